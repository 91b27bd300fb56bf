"""A fix is validated on the fixed text, however its entry is declared (issue 40, item 1).

Each test plants a "fix" that changes what the model returns (``x * 2`` becomes ``x * 3``) and asks the validator
to compare it with the original: MindSpore runs both (PYNATIVE_MODE, then GRAPH_MODE for the fix), and the verdict
must say that the outputs differ, by the factor the change makes. Before this was fixed, an entry built by a
``factory = "module:function"`` (or a module importing the entry's module) ran the original twice and the fix was
reported as matching.
"""

from __future__ import annotations

import re

import pytest

from graphlint.validate.validator import EntryRef, validate_entry

CELL = '''\
from mindspore import nn


class Net(nn.Cell):
    def __init__(self, bias=0.0):
        super().__init__()
        self.bias = bias

    def construct(self, x):
        return x * 2 + self.bias


def make_net():
    return Net(bias=1.0)


def make_inputs():
    from mindspore import Tensor
    import numpy as np
    return (Tensor(np.arange(1, 5, dtype=np.float32)),)
'''

# model.py and helper.py import each other: the Cell calls helper.finish, which reads model.scale at call time.
MUTUAL_MODEL = '''\
from mindspore import nn

import helper


def scale(x):
    return x * 2


class Net(nn.Cell):
    def construct(self, x):
        return helper.finish(x)
'''
MUTUAL_HELPER = '''\
import model


def finish(x):
    return model.scale(x) + 1
'''
FACTORIES = '''\
from model import Net


def make_net():
    return Net(bias=1.0)
'''

FORMS = {
    "inputs": (["float32[4]"], {}),
    "init": ({"inputs": ["float32[4]"], "init": {"bias": 1.0}}, {}),
    "factory": ({"inputs": ["float32[4]"], "factory": "model:make_net"}, {}),
    "inputs factory": ("model:make_inputs", {}),
    "factory in a module importing the entry's": ({"inputs": ["float32[4]"], "factory": "factories:make_net"},
                                                  {"factories.py": FACTORIES}),
}


def _validate(tmp_path, model: str, declared, others: dict, change=("x * 2", "x * 3")):
    (tmp_path / "model.py").write_text(model)
    for name, text in others.items():
        (tmp_path / name).write_text(text)
    assert change[0] in model
    fixed = model.replace(*change)
    return validate_entry(EntryRef("model", "Net", True, 1), str(tmp_path / "model.py"), model, fixed,
                          str(tmp_path), declared, 120, 8192)


def _ratio(reason: str) -> tuple[float, float]:
    """(the fix's value, the original's) of the first element the verdict says differs."""
    found = re.search(r"element (\d+) is (-?[\d.]+), expected (-?[\d.]+)", reason)
    assert found, reason
    return float(found.group(2)), float(found.group(3))


@pytest.mark.parametrize("form", list(FORMS))
def test_a_fix_that_changes_the_output_is_not_reported_as_matching(tmp_path, form):
    declared, others = FORMS[form]
    verdict = _validate(tmp_path, CELL, declared, others)
    assert not verdict.ok, verdict.reason
    assert "in PYNATIVE_MODE the rewritten code returns other values than the original" in verdict.reason
    got, expected = _ratio(verdict.reason)
    bias = 0.0 if form in ("inputs", "inputs factory") else 1.0  # (make_net and init build Net(bias=1.0))
    # (seeded random inputs: the element is whatever it is; the ratio shows the change made it x * 3)
    assert (got - bias) / (expected - bias) == pytest.approx(1.5, rel=1e-4), verdict.reason


def test_modules_that_import_each_other_see_the_fixed_text(tmp_path):
    declared = "helper:make_inputs"
    helper = MUTUAL_HELPER + "\n\ndef make_inputs():\n    from mindspore import Tensor\n" \
                             "    return (Tensor([1.0, 2.0, 3.0]),)\n"
    verdict = _validate(tmp_path, MUTUAL_MODEL, declared, {"helper.py": helper})
    assert not verdict.ok, verdict.reason
    assert _ratio(verdict.reason) == pytest.approx((1 * 3 + 1, 1 * 2 + 1)), verdict.reason
    # The same entry with a change that keeps the output (a control: the verdict above is the change's, not the
    # setup's): it runs, compiles in GRAPH_MODE and matches.
    kept = _validate(tmp_path, MUTUAL_MODEL, declared, {"helper.py": helper}, change=("x * 2", "x + x"))
    assert kept.ok and kept.compared, kept.reason
    assert kept.reason == "model:Net: compiles in GRAPH_MODE and matches the original PYNATIVE_MODE outputs"
