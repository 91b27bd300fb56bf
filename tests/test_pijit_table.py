"""graphlint/analysis/generated/pijit_skip.py is PIJit's skip list as the installed MindSpore has it (read from
mindspore/graph/_utils/pijit_context.py by scripts/pijit_tables.py), and it is what the bytecode rules use."""

import importlib.util
import os
import subprocess
import sys

import pytest

from graphlint.analysis import capture
from graphlint.analysis.generated import pijit_skip
from tests.support import ROOT

SCRIPT = os.path.join(ROOT, "scripts", "pijit_tables.py")


def _script():
    spec = importlib.util.spec_from_file_location("pijit_tables", SCRIPT)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_table_matches_installed_mindspore():
    if importlib.util.find_spec("mindspore") is None:
        pytest.skip("mindspore is not installed: the table cannot be compared with it")
    result = subprocess.run([sys.executable, SCRIPT, "--check"], capture_output=True, text=True, cwd=ROOT,
                            timeout=300)
    assert result.returncode == 0, result.stdout + result.stderr[-2000:]
    assert "matches the installed MindSpore" in result.stdout


def test_a_changed_skip_list_changes_the_table():
    """What --check compares: the table follows the file's SKIP_RULES and _PY312_OR_LATER, not a copy."""
    text = '''
import sys
_PY312_OR_LATER = sys.version_info >= (3, 13)
SKIP_RULES = {"skip_dirs": ("<string>",), "builtins": ("mindspore", "copy", "re"), "third_party": ("numpy", "tqdm2"),
              "codes": ()}
'''
    tables = {name: value for name, value, _comment in _script().tables(text)}
    assert tables == {"SKIP_MODULES": ("copy", "numpy", "re", "tqdm2"), "UNSUPPORTED_FROM_PYTHON": (3, 13)}


def test_the_table_is_the_wheels_list():
    assert {"numpy", "pandas", "sklearn", "tqdm", "copy", "functools", "random", "re", "os"} \
        <= set(pijit_skip.SKIP_MODULES)
    assert "mindspore" not in pijit_skip.SKIP_MODULES  # (skipped for MindSpore's own internals only)
    assert tuple(pijit_skip.UNSUPPORTED_FROM_PYTHON) == (3, 12)


@pytest.mark.parametrize("qualified, module", [
    ("copy.deepcopy", "copy"),
    ("functools.reduce", "functools"),
    ("numpy.random.rand", "numpy"),
    ("os.path.join", "os"),
    ("numpy.float32", None),  # a NumPy scalar type: built by PIJit (measured)
    ("collections.OrderedDict", None),  # a class (measured)
    ("operator.add", None),  # mapped by PIJit (measured)
    ("math.sqrt", None),  # not in the skip list
    ("mindspore.ops.relu", None),
])
def test_skip_list_module_of_a_call(qualified, module):
    assert capture.skip_list_module(qualified) == module
