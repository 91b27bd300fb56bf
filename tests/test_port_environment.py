"""What --validate needs from its environment, said in one line (issue 40, item 6): a Python with MindSpore (its
own, ``--python PATH`` or ``python = ...`` under ``[tool.graphlint.validate]``) and a declared entry."""

from __future__ import annotations

import subprocess
import sys

MODEL = "from mindspore import nn\n\n\nclass Net(nn.Cell):\n    def construct(self, x):\n        y = x * 2\n" \
        "        del x\n        return y\n"


def _graphlint(tmp_path, *arguments):
    return subprocess.run([sys.executable, "-c", "from graphlint.cli import run; run()", *arguments],
                          cwd=tmp_path, capture_output=True, text=True, timeout=600)


def _python_without_mindspore(tmp_path) -> str:
    """A fresh virtual environment's interpreter: nothing installed in it."""
    folder = tmp_path / "bare"
    subprocess.run([sys.executable, "-m", "venv", "--without-pip", str(folder)], check=True, timeout=300)
    python = str(folder / "bin" / "python")
    assert subprocess.run([python, "-c", "import mindspore"], capture_output=True).returncode != 0
    return python


def test_a_python_without_mindspore_is_named_with_how_to_install_it(tmp_path):
    (tmp_path / "model.py").write_text(MODEL)
    python = _python_without_mindspore(tmp_path)
    run = _graphlint(tmp_path, "--fix", "--validate", "--python", python, "model.py")
    assert run.returncode == 2
    assert run.stderr.splitlines() == [
        f"graphlint: error: --validate runs MindSpore with {python}, which has no MindSpore: install it there with "
        f"{python} -m pip install 'mindspore-graphlint[validate]'"], run.stderr
    assert (tmp_path / "model.py").read_text() == MODEL  # (nothing was fixed unvalidated)
    # The same Python named in the configuration, relative to it.
    (tmp_path / "pyproject.toml").write_text('[tool.graphlint.validate]\npython = "bare/bin/python"\n')
    configured = _graphlint(tmp_path, "--diff", "--validate", "model.py")
    assert configured.returncode == 2 and configured.stderr.count("\n") == 1, configured.stderr
    assert f"with {python}, which has no MindSpore" in configured.stderr
    missing = _graphlint(tmp_path, "--diff", "--validate", "--python", "no/such/python", "model.py")
    assert missing.returncode == 2 and missing.stderr == (
        f"graphlint: error: --validate runs MindSpore with {tmp_path / 'no/such/python'}, which does not run: "
        "No such file or directory\n"), missing.stderr
    alone = _graphlint(tmp_path, "--python", python, "model.py")
    assert alone.returncode == 2 and alone.stderr == "graphlint: error: --python goes with --validate\n"


def test_a_python_with_mindspore_named_by_python_validates(tmp_path):
    (tmp_path / "model.py").write_text(MODEL)
    (tmp_path / "pyproject.toml").write_text('[tool.graphlint.validate.inputs]\n"model:Net" = ["float32[2,3]"]\n')
    run = _graphlint(tmp_path, "--diff", "--validate", "--python", sys.executable, "model.py")
    assert "would fix model.py:7: E5102 del-in-graph: drop `del x` [model:Net: compiles in GRAPH_MODE and matches " \
           "the original PYNATIVE_MODE outputs]" in run.stderr, run.stderr


def test_without_a_declared_entry_validate_says_how_to_declare_one(tmp_path):
    (tmp_path / "model.py").write_text(MODEL)
    run = _graphlint(tmp_path, "--diff", "--unsafe-fixes", "--validate", "model.py")
    assert run.stderr.splitlines()[-1] == (
        "graphlint: no entry is declared for --validate, so outputs were not compared and port mode has no entry to "
        "compile: declare one in pyproject.toml, e.g. [tool.graphlint.validate.inputs] \"model:Net\" = "
        "[\"float32[2,3]\"] (one spec per argument of construct; init = { ... } for its constructor, factory = "
        "\"module:function\" to build it)"), run.stderr
