"""E5210: `x.max(axis)` / `x.min(axis)` taken apart as (values, indices) gets PYNATIVE's argument names
(`dim=`, `keepdim=`); what cannot be named so is refused with the reason. The one-argument form is compiled by
the catalogue examples (tests/test_examples_compile.py); the two-argument form is compiled here."""

import pytest

from graphlint.config import Config
from graphlint.run.fix import fix_paths
from graphlint.validate.compare import outputs_difference
from graphlint.validate.runner import run_job

SOURCE = ("import numpy as np\nfrom mindspore import Tensor, nn\n\n\nclass Net(nn.Cell):\n"
          "    def construct(self, x):\n"
          "        lowest, where = x.min(0, True)\n"
          "        best, index = x.max(1)\n"
          "        return lowest, where, best * 2, index\n")
INPUTS = "(Tensor(np.array([[1.0, 5.0, 2.0], [7.0, 0.0, 3.0]], np.float32)),)"


def test_positional_arguments_are_named_after_the_pair_overload(tmp_path):
    target = tmp_path / "pairs.py"
    target.write_text(SOURCE, encoding="utf-8")
    report = fix_paths([str(target)], Config())  # safe: applied without --unsafe-fixes
    assert sorted((a.line, a.safety) for a in report.applied if a.rule == "E5210") == [(7, "safe"), (8, "safe")]
    fixed = target.read_text(encoding="utf-8")
    assert fixed == SOURCE.replace("x.min(0, True)", "x.min(dim=0, keepdim=True)").replace("x.max(1)",
                                                                                            "x.max(dim=1)")


def test_keywords_star_arguments_and_extra_positionals_are_refused_with_the_reason(tmp_path):
    target = tmp_path / "refused.py"
    text = ("from mindspore import nn\n\n\nclass Net(nn.Cell):\n    def construct(self, x, axes):\n"
            "        best, index = x.max(*axes)\n"
            "        low, where = x.min(0, True, 1)\n"
            "        return best, index, low, where\n")
    target.write_text(text, encoding="utf-8")
    report = fix_paths([str(target)], Config(), unsafe=True)
    assert target.read_text(encoding="utf-8") == text
    assert sorted((r.line, r.reason) for r in report.refused if r.symbol == "tensor-max-positional-axis") == [
        (6, "only positional arguments are named; name them `dim=` and `keepdim=` by hand"),
        (7, "more than two positional arguments: the pair overload takes only `dim` and `keepdim`")]


@pytest.mark.compile
def test_the_named_keepdim_form_compiles_with_pynative_outputs(tmp_path):
    target = tmp_path / "pairs.py"
    target.write_text(SOURCE, encoding="utf-8")
    fix_paths([str(target)], Config())
    fixed = target.read_text(encoding="utf-8")
    original = run_job({"source": SOURCE, "entry": "Net", "inputs": INPUTS, "runs": ["pynative"]})["pynative"]
    assert original.ok and original.outputs, original.describe()
    result = run_job({"source": fixed, "entry": "Net", "inputs": INPUTS, "runs": ["pynative", "graph", "strict"]})
    for mode in ("pynative", "graph", "strict"):
        assert result[mode].ok, result[mode].describe()
        assert not outputs_difference(original.outputs, result[mode].outputs), mode
