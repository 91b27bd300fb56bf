"""A real editor client: headless Neovim (Debian's `neovim`) with the set-up of docs/editors.md attaches
``graphlint server`` to a model file, shows its diagnostics, applies the quick fix for `del` in `construct` and
shows why a loop cannot be fixed."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys

import pytest

from tests.server_support import DEL_MODEL, write

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
CONFIG = os.path.join(ROOT, "editors", "nvim", "graphlint.lua")
SCRIPT = os.path.join(ROOT, "tests", "nvim_quickfix.lua")


def _has_server_subcommand() -> bool:
    from graphlint import cli

    with open(cli.__file__, encoding="utf-8") as handle:
        return "server" in handle.read()


@pytest.mark.skipif(shutil.which("nvim") is None, reason="needs Neovim (apt-get install neovim)")
def test_neovim_diagnostics_and_quick_fix(tmp_path):
    write(tmp_path, "pyproject.toml", "[tool.graphlint]\n")
    model = write(tmp_path, "model.py", DEL_MODEL)
    result = tmp_path / "result.txt"
    env = dict(os.environ, GRAPHLINT_NVIM_CONFIG=CONFIG, GRAPHLINT_MODEL=model, GRAPHLINT_RESULT=str(result),
               XDG_CONFIG_HOME=str(tmp_path / "config"), XDG_DATA_HOME=str(tmp_path / "data"),
               XDG_STATE_HOME=str(tmp_path / "state"), XDG_CACHE_HOME=str(tmp_path / "cache"),
               # `graphlint` as installed (the venv's scripts first), as a user's shell finds it
               PATH=os.pathsep.join([os.path.dirname(sys.executable), os.environ.get("PATH", "")]))
    command = ["nvim", "--headless", "--clean"]
    if not _has_server_subcommand():  # until the CLI dispatches `graphlint server`
        command += ["--cmd", f"let g:graphlint_cmd = ['{sys.executable}', '-m', 'graphlint.server']"]
    command += ["-c", f"luafile {SCRIPT}"]
    completed = subprocess.run(command, cwd=tmp_path, env=env, stdin=subprocess.DEVNULL, capture_output=True,
                               text=True, timeout=240)
    lines = result.read_text(encoding="utf-8").splitlines() if result.exists() else []
    assert completed.returncode == 0, "\n".join(lines) + completed.stderr[-2000:]
    assert lines[0] == "filetype python"
    assert lines[1] == ("diagnostic 8:9 graphlint E5102 severity=1 del-in-graph: `del` is not supported in graph "
                        "code; drop the statement, or rebuild the list/dict without the item")
    assert "applied graphlint: drop `del y` (safe fix)" in lines
    assert "offered graphlint: disable del-in-graph for this line" in lines
    assert "diagnostics after the fix 0" in lines
    with open(model, encoding="utf-8") as handle:
        assert handle.read() == DEL_MODEL.replace("        del y\n", "")  # written by Neovim's :write
    (shown,) = [line for line in lines if line.startswith("shown ")]
    assert shown == ("shown E5901 python-loop-exceeds-call-depth: no fix: `break` in the loop body "
                     "(kept as a Python loop)")
