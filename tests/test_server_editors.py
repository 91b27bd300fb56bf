"""Real editor clients with the set-up of docs/editors.md (editors/): headless Neovim (Debian's `neovim`) and
Emacs with eglot in batch (`emacs-nox`, `elpa-eglot`) attach ``graphlint server`` to a model file, show its
diagnostics and apply the quick fix for `del` in `construct`; Neovim also shows, on hover, why a loop cannot be fixed."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys

import pytest

from tests.server_support import DEL_MODEL, server_subcommand, write

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
CONFIG = os.path.join(ROOT, "editors", "nvim", "graphlint.lua")
SCRIPT = os.path.join(ROOT, "tests", "nvim_quickfix.lua")
EMACS_CONFIG = os.path.join(ROOT, "editors", "emacs", "graphlint-eglot.el")
EMACS_SCRIPT = os.path.join(ROOT, "tests", "emacs_quickfix.el")


def _environment(tmp_path, **more):
    return dict(os.environ, XDG_CONFIG_HOME=str(tmp_path / "config"), XDG_DATA_HOME=str(tmp_path / "data"),
                XDG_STATE_HOME=str(tmp_path / "state"), XDG_CACHE_HOME=str(tmp_path / "cache"),
                HOME=str(tmp_path / "home"),
                # `graphlint` as installed (the venv's scripts first), as a user's shell finds it
                PATH=os.pathsep.join([os.path.dirname(sys.executable), os.environ.get("PATH", "")]), **more)


@pytest.mark.skipif(shutil.which("nvim") is None, reason="needs Neovim (apt-get install neovim)")
def test_neovim_diagnostics_and_quick_fix(tmp_path):
    write(tmp_path, "pyproject.toml", "[tool.graphlint]\n")
    model = write(tmp_path, "model.py", DEL_MODEL)
    result = tmp_path / "result.txt"
    env = _environment(tmp_path, GRAPHLINT_NVIM_CONFIG=CONFIG, GRAPHLINT_MODEL=model, GRAPHLINT_RESULT=str(result))
    command = ["nvim", "--headless", "--clean"]
    if server_subcommand() is None:  # until the CLI dispatches `graphlint server`
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
    assert shown == ("shown No fix here: `x` changes shape each step (`ops.concat`): a real loop needs carries "
                     "of fixed shape")


def _emacs_has_eglot() -> bool:
    if shutil.which("emacs") is None:
        return False
    probe = subprocess.run(["emacs", "--batch", "--eval", "(progn (require 'package) (package-initialize) "
                                                          "(require 'eglot))"], capture_output=True, timeout=120)
    return probe.returncode == 0


@pytest.mark.skipif(not _emacs_has_eglot(), reason="needs Emacs with eglot (apt-get install emacs-nox elpa-eglot)")
def test_emacs_eglot_diagnostics_and_quick_fix(tmp_path):
    write(tmp_path, "pyproject.toml", "[tool.graphlint]\n")
    model = write(tmp_path, "model.py", DEL_MODEL)
    result = tmp_path / "result.txt"
    env = _environment(tmp_path, GRAPHLINT_EMACS_CONFIG=EMACS_CONFIG, GRAPHLINT_MODEL=model,
                       GRAPHLINT_RESULT=str(result))
    if server_subcommand() is None:
        env["GRAPHLINT_SERVER_COMMAND"] = "\t".join([sys.executable, "-m", "graphlint.server"])
    os.makedirs(env["HOME"], exist_ok=True)
    completed = subprocess.run(["emacs", "--batch", "-l", EMACS_SCRIPT], cwd=tmp_path, env=env,
                               stdin=subprocess.DEVNULL, capture_output=True, text=True, timeout=240)
    lines = result.read_text(encoding="utf-8").splitlines() if result.exists() else []
    assert completed.returncode == 0, "\n".join(lines) + completed.stderr[-2000:]
    assert lines[:2] == ["mode python-mode",
                         "diagnostic 8 eglot-error graphlint [E5102]: del-in-graph: `del` is not supported in graph "
                         "code; drop the statement, or rebuild the list/dict without the item"]
    assert "offered graphlint: drop `del y` (safe fix)" in lines
    assert "diagnostics after the fix 0" in lines
    with open(model, encoding="utf-8") as handle:
        assert handle.read() == DEL_MODEL.replace("        del y\n", "")


def test_documented_snippets_are_the_tested_files():
    """docs/editors.md (where the README sends editor users) shows exactly the set-up files the editor tests run."""
    with open(os.path.join(ROOT, "README.md"), encoding="utf-8") as handle:
        assert "](docs/editors.md)" in handle.read()
    with open(os.path.join(ROOT, "docs", "editors.md"), encoding="utf-8") as handle:
        editors = handle.read()
    for path, fence in ((CONFIG, "lua"), (EMACS_CONFIG, "elisp")):
        with open(path, encoding="utf-8") as handle:
            snippet = f"```{fence}\n{handle.read()}```"
        assert snippet in editors, path


@pytest.mark.skipif(shutil.which("node") is None, reason="needs node")
def test_vscode_extension_manifest_and_syntax():
    import json

    folder = os.path.join(ROOT, "editors", "vscode")
    with open(os.path.join(folder, "package.json"), encoding="utf-8") as handle:
        manifest = json.load(handle)
    assert manifest["main"] == "./extension.js" and "onLanguage:python" in manifest["activationEvents"]
    assert manifest["contributes"]["configuration"]["properties"]["graphlint.command"]["default"] == ["graphlint",
                                                                                                      "server"]
    assert subprocess.run(["node", "--check", os.path.join(folder, "extension.js")], timeout=60).returncode == 0
