"""`pylint --load-plugins=graphlint` reports what the CLI reports, and honours the same pragmas."""

import os
import re
import subprocess
import sys

from tests.support import BROKEN_CELL, ROOT, run_cli, write

HELPER_AND_BASE = """\
import mindspore as ms
from mindspore import nn


class Base(nn.Cell):
    def helper(self, x):
        del x
        return 1


def util(x):
    try:
        return x
    finally:
        pass
"""

DERIVED = """\
from pkg.base import Base, util


class Net(Base):
    def construct(self, x):
        y = self.helper(x)
        try:  # pylint: disable=try-in-graph
            y = y * 2
        except ValueError:
            pass
        return util(y)
"""


def _pylint(paths, cwd):
    env = dict(os.environ, PYTHONPATH=ROOT)
    result = subprocess.run([sys.executable, "-m", "pylint", "--load-plugins=graphlint", "--disable=all",
                             "--enable=" + ",".join(_graphlint_ids()), "--score=n",
                             "--msg-template={path}:{line}:{column}: {msg_id} {symbol}", *paths],
                            cwd=cwd, env=env, capture_output=True, text=True, timeout=600)
    assert "Traceback" not in result.stderr, result.stderr
    return sorted(line for line in result.stdout.splitlines() if re.match(r"^\S+:\d+:\d+: [EWI]\d{4} ", line))


def _graphlint_ids():
    from graphlint.catalogue import RULES

    return [rule.id for rule in RULES]


def test_plugin_matches_cli_across_files(tmp_path):
    write(tmp_path, "pkg/__init__.py", "")
    write(tmp_path, "pkg/base.py", HELPER_AND_BASE)
    write(tmp_path, "pkg/net.py", DERIVED)
    write(tmp_path, "pkg/broken.py", BROKEN_CELL)
    cli = run_cli("--quiet", "pkg", cwd=tmp_path)  # the finding lines only
    assert cli.returncode == 1, cli.stderr
    # Pylint columns are 0-based, graphlint's 1-based.
    from_cli = sorted(re.sub(r":(\d+): ([EWI]\d{4}) (\S+) .*", lambda m: f":{int(m.group(1)) - 1}: {m.group(2)} {m.group(3)}", line)
                      for line in cli.stdout.splitlines())
    from_pylint = _pylint(["pkg"], tmp_path)
    assert from_pylint == from_cli
    symbols = " ".join(from_cli)
    assert "pkg/base.py:12:4: E5101 try-in-graph" in symbols  # helper in another file, reached from Net
    assert "pkg/net.py" not in symbols  # suppressed by the pragma in both
    assert "pkg/broken.py:7:8: E5101 try-in-graph" in symbols
