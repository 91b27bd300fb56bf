"""I5701: a `.item()` whose number only feeds `+ - * /` with Tensors of its dtype stays a 0-d Tensor (unsafe);
what is not proven is refused with the reason, and the rewritten Cell gives PYNATIVE's outputs in GRAPH_MODE."""

import pytest

from graphlint.config import Config
from graphlint.run.fix import fix_paths
from graphlint.validate.compare import outputs_difference
from graphlint.validate.runner import run_job

SOURCE = ("import numpy as np\nfrom mindspore import Tensor, nn\n\n\nclass Net(nn.Cell):\n"
          "    def construct(self, x):\n"
          "        scale = x.max().item()\n"
          "        return x / scale - x * x.min().item()\n")
FIXED = SOURCE.replace("x.max().item()", "x.max()").replace("x.min().item()", "x.min()")
INPUTS = "(Tensor(np.array([[1.5, 5.0, -2.0], [7.25, 0.5, 3.0]], np.float32)),)"


def _fix(tmp_path, text, unsafe=True):
    target = tmp_path / "net.py"
    target.write_text(text, encoding="utf-8")
    return target, fix_paths([str(target)], Config(), unsafe=unsafe)


def test_a_number_feeding_tensor_arithmetic_stays_a_tensor_only_with_unsafe_fixes(tmp_path):
    target, report = _fix(tmp_path, SOURCE, unsafe=False)
    assert target.read_text(encoding="utf-8") == SOURCE
    target, report = _fix(tmp_path, SOURCE)
    assert sorted((a.line, a.safety) for a in report.applied if a.rule == "I5701") == [(7, "unsafe"), (8, "unsafe")]
    assert target.read_text(encoding="utf-8") == FIXED


def test_what_is_not_proven_is_refused_with_the_reason(tmp_path):
    text = ("from mindspore import nn\n\n\nclass Net(nn.Cell):\n    def construct(self, x, y):\n"
            "        first = x[0].item()\n"
            "        total = x.sum().item()\n"
            "        peak = x.max().item()\n"
            "        peak = peak + 1\n"
            "        return x * first, total, y * x.min().item(), peak\n")
    target, report = _fix(tmp_path, text)
    assert target.read_text(encoding="utf-8") == text
    assert sorted((r.line, r.reason) for r in report.refused if r.symbol == "tensor-item-in-graph") == [
        (6, "`x[0]` is not proven 0-d: a one-element Tensor of another shape would broadcast where its number "
            "does not; reduce it to 0-d (`x[0].reshape(())`)"),
        (7, "the number is used as `(x * first, total, y * x.min().item(), peak)`, not as an operand of "
            "`+ - * /`: there the Python type may matter (a call, an index, a shape, a graph output)"),
        (8, "`peak` is assigned more than once: rename the number before keeping it a Tensor"),
        (10, "`y` is not proven a Tensor of `x.min()`'s dtype: against a 0-d Tensor the result's dtype may be "
             "promoted where a Python number keeps the Tensor's")]


def test_traced_code_is_refused_until_the_rewrite_is_compiled_there(tmp_path):
    text = ("import mindspore as ms\n\n\n@ms.jit(capture_mode=\"trace\")\ndef fn(x):\n"
            "    return x * x.max().item()\n")
    target, report = _fix(tmp_path, text)
    assert target.read_text(encoding="utf-8") == text
    assert [(r.line, r.reason) for r in report.refused if r.symbol == "tensor-item-in-graph"] == [
        (6, "under capture_mode=\"trace\" the rewrite is not proven by compiling (only AST-captured graphs are): "
            "change it by hand")]


@pytest.mark.compile
def test_the_kept_tensor_gives_pynative_outputs_in_every_mode():
    original = run_job({"source": SOURCE, "entry": "Net", "inputs": INPUTS, "runs": ["pynative"]})["pynative"]
    assert original.ok and original.outputs, original.describe()
    result = run_job({"source": FIXED, "entry": "Net", "inputs": INPUTS, "runs": ["pynative", "graph", "strict"]})
    for mode in ("pynative", "graph", "strict"):
        assert result[mode].ok, result[mode].describe()
        assert not outputs_difference(original.outputs, result[mode].outputs), mode
