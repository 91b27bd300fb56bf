"""`from module import *`: the names a star import brings (and their qualifications) are those of the imported
module, transitively, limited by its `__all__`; `from mindspore.nn import *` binds MindSpore's own names."""

import os

from graphlint.config import Config
from graphlint.lint import lint_paths
from graphlint.session import LintSession
from tests.support import write

TRY_CELL = """\
from common import *


class Net({base}):
    def construct(self, x):
        try:
            y = x * 2
        except ValueError:
            y = x
        return y
"""
TRY_LINE = 6  # measured: MindSpore 2.10 stops at this `try` ("Unsupported statement 'Try'")


def reported(folder, *names):
    result = lint_paths([os.path.join(str(folder), name) for name in names] or [str(folder)], Config())
    assert not result.problems
    return sorted((os.path.basename(f.path), f.line, f.rule.id) for f in result.findings)


def test_star_import_of_a_project_module_brings_its_imports(tmp_path):
    write(tmp_path, "common.py", "import numpy as np\nfrom mindspore import nn\n")
    write(tmp_path, "model.py", TRY_CELL.format(base="nn.Cell"))
    assert reported(tmp_path) == [("model.py", TRY_LINE, "E5101")]
    # the imported module found on disk when only the importing file is linted
    assert reported(tmp_path, "model.py") == [("model.py", TRY_LINE, "E5101")]


def test_star_import_of_a_module_aliasing_mindspore_nn(tmp_path):
    write(tmp_path, "common.py", "import mindspore.nn as nn\n")
    write(tmp_path, "model.py", TRY_CELL.format(base="nn.Cell"))
    assert reported(tmp_path) == [("model.py", TRY_LINE, "E5101")]


def test_star_imports_are_transitive_and_respect_all(tmp_path):
    write(tmp_path, "pkg/__init__.py", "")
    write(tmp_path, "pkg/layers.py", "import mindspore.nn as nn\nfrom mindspore import ops\n")
    write(tmp_path, "pkg/common.py", "from .layers import *\n\n\nclass Base(nn.Cell):\n    pass\n")
    write(tmp_path, "pkg/only.py", "from mindspore import nn\n\n\nclass Block(nn.Cell):\n    pass\n\n\n"
                                   "__all__ = ['Block']\n")
    write(tmp_path, "pkg/model.py", TRY_CELL.replace("from common import *", "from pkg.common import *")
          .format(base="Base") + "\n\nclass Other(nn.Cell):\n    def construct(self, x):\n        del x\n"
                                 "        return ops.ones(2)\n")
    write(tmp_path, "pkg/restricted.py", TRY_CELL.replace("from common import *", "from .only import *")
          .format(base="Block") + "\n\nclass NotExported(nn.Cell):\n    def construct(self, x):\n"
                                  "        del x\n        return 1\n")
    # `Base` through pkg.common, `nn` through pkg.common and pkg.layers; `nn` is not in pkg.only's __all__ (Python
    # raises NameError there), so `NotExported` is not a Cell
    assert reported(tmp_path) == [("model.py", TRY_LINE, "E5101"), ("model.py", 15, "E5102"),
                                  ("restricted.py", TRY_LINE, "E5101")]


def test_star_import_of_mindspore_nn(tmp_path):
    # measured: `from mindspore.nn import *` then `class Net(Cell)` with a `try` fails to compile as above
    write(tmp_path, "model.py", TRY_CELL.replace("from common import *", "from mindspore.nn import *")
          .format(base="Cell"))
    assert reported(tmp_path) == [("model.py", TRY_LINE, "E5101")]


def test_a_changed_module_changes_what_its_star_importers_see(tmp_path):
    write(tmp_path, "common.py", "from mindspore import nn\n")
    model = write(tmp_path, "model.py", TRY_CELL.format(base="nn.Cell"))
    session = LintSession()
    session.add_files([model, os.path.join(str(tmp_path), "common.py")])
    assert [(f.line, f.rule.id) for f in session.lint().findings] == [(TRY_LINE, "E5101")]

    def model_findings():
        return [(f.line, f.rule.id) for f in session.findings_of(session.project.by_path[os.path.abspath(model)])]

    common = os.path.join(str(tmp_path), "common.py")
    session.update(common, "import numpy as np\n")
    assert model_findings() == []
    session.update(common, "import mindspore.nn as nn\n")
    assert model_findings() == [(TRY_LINE, "E5101")]
    session.update(common, "import mindspore.nn as nn\n__all__ = ['np']\n")
    assert model_findings() == []
