"""The bytecode family beyond its examples: where each rule reports (lines asserted), what it leaves to other
rules, and the Python release it judges (the interpreter graphlint runs on)."""

import textwrap

import pytest

from graphlint.analysis import capture
from graphlint.config import Config
from graphlint.lint import lint_text

HEADER = "import numpy as np\nimport mindspore as ms\nfrom mindspore import nn, ops, Tensor\n"


def found(body: str, family_only: bool = True):
    source = HEADER + textwrap.dedent(body)
    return sorted((f.line - 3, f.rule.id, f.severity.value) for f in lint_text(source, Config())
                  if not family_only or f.rule.family == "bytecode")


@pytest.fixture
def python_311(monkeypatch):
    monkeypatch.setattr(capture, "python_release", lambda: (3, 11))


def test_host_array_through_names_and_its_kept_right_uses(python_311):
    body = """
    @ms.jit(capture_mode="bytecode")
    def fn(x):
        data = x.asnumpy()
        squashed = np.tanh(data).astype(np.float32)
        y = Tensor(squashed)
        mean = Tensor(np.mean(data))
        kept = Tensor(np.abs(data))
        scaled = Tensor(squashed)
        return y + x + mean + kept, scaled
    """
    # line 6: `y` is added to x (frozen); `mean` a NumPy scalar, `kept` np.abs (measured right); `scaled` returned in
    # a tuple, which is not one of the uses measured right: reported
    assert found(body) == [(6, "E6401", "error"), (9, "E6401", "error")]


def test_host_array_computed_with_a_scalar_of_its_data_is_guarded(python_311):
    body = """
    @ms.jit(capture_mode="bytecode")
    def fn(x):
        e = np.exp(x.asnumpy())
        total = e.sum()
        weights = Tensor(e / total)
        centred = Tensor(e - np.mean(e))
        doubled = Tensor(e * 2)
        mask = Tensor((x.asnumpy() > 0).astype(np.float32))
        return x * weights * centred * doubled * mask
    """
    # the scalar `total` / np.mean(e) is guarded by value (measured right); `e * 2` and the mask are not
    assert found(body) == [(8, "E6401", "error"), (9, "E6401", "error")]


def test_host_array_returned_scaled_or_reduced_is_quiet(python_311):
    body = """
    @ms.jit(capture_mode="bytecode")
    def fn(x):
        return Tensor(np.tanh(x.asnumpy())) * 2


    @ms.jit(capture_mode="bytecode")
    def gn(x):
        return Tensor(np.tanh(x.asnumpy())).mean()


    @ms.jit(capture_mode="bytecode")
    def hn(x):
        return Tensor(np.tanh(x.asnumpy())) + 1
    """
    assert found(body) == [(14, "E6401", "error")]


def test_not_reported_under_trace_or_ast():
    body = """
    @ms.jit(capture_mode="trace")
    def fn(x):
        return Tensor(np.tanh(x.asnumpy())) + x + next(iter([x]))


    @ms.jit
    def gn(x):
        act = nn.ReLU()
        return Tensor(np.tanh(x.asnumpy())) + act(x) + next(iter([x]))
    """
    assert found(body) == []


def test_skip_list_calls_leave_numpy_on_tensors_environ_and_host_arrays_to_their_rules(python_311):
    body = """
    import os
    import random


    @ms.jit(capture_mode="bytecode")
    def fn(x):
        keep = random.random()
        flag = os.getenv("FLAG")
        noise = Tensor(np.random.rand(3).astype(np.float32))
        squashed = np.tanh(x.asnumpy())
        return x * keep + noise, flag, squashed
    """
    assert found(body, family_only=False) == [
        (8, "W6402", "warning"),  # random.random(): a graph break
        (9, "W5203", "error"),  # os.getenv returned: measured, the first call's string every call
        (10, "E6401", "error"),  # the sized draw made a Tensor: once, at Tensor(...)
        (11, "W5501", "warning"), (11, "W5502", "warning"),  # NumPy on the Tensor's data: fallback's rules
    ]


def test_skip_list_call_is_an_error_with_fullgraph(python_311):
    body = """
    import re


    @ms.jit(capture_mode="bytecode", fullgraph=True)
    def fn(x):
        return x * len(re.findall("a", "aaa"))
    """
    assert found(body) == [(7, "W6402", "error")]


def test_numpy_constants_and_os_path_are_skip_list_calls(python_311):
    body = """
    import math
    import os


    @ms.jit(capture_mode="bytecode", fullgraph=True)
    def fn(x):
        ones = Tensor(np.ones(3, np.float32))
        depth = len(os.path.join("a", "b"))
        return (x + ones) * depth * math.sqrt(2.0) * np.float32(2.0)
    """
    # measured under fullgraph=True: np.ones and os.path.join raise 'Unsupported function'; math.sqrt and the
    # NumPy scalar type compile
    assert found(body) == [(8, "W6402", "error"), (9, "W6402", "error")]
    messages = sorted(f.message for f in lint_text(HEADER + textwrap.dedent(body), Config()))
    assert messages[0].startswith("`np.ones(...)` calls into `numpy`, a module PIJit never captures")
    assert messages[1].startswith("`os.path.join(...)` calls into `os`")


def test_next_of_a_local_function_is_not_the_builtin(python_311):
    body = """
    def next(items):
        return items[0]


    @ms.jit(capture_mode="bytecode")
    def fn(x):
        return next([x, x])


    @ms.jit(capture_mode="bytecode")
    def gn(x):
        return x + __builtins__["len"]([1]) if False else x
    """
    assert found(body) == []


def test_a_project_cell_created_in_the_function(python_311):
    body = """
    class Block(nn.Cell):
        def construct(self, x):
            return x * 2


    @ms.jit(capture_mode="bytecode")
    def fn(x):
        block = Block()
        return block(x) + nn.Dense(3, 3)(x)
    """
    assert found(body) == [(9, "W6404", "warning"), (10, "W6404", "warning")]


PLAIN = """
@ms.jit(capture_mode="bytecode")
def fn(x):
    items = [x, x * 2]
    return items[1] + x[0]


@ms.jit(capture_mode="bytecode", fullgraph=True)
def gn(x):
    with ms._no_grad():
        y = x * 2
    return y


@ms.jit(capture_mode="bytecode")
def hn(x):
    items = [x, x * 2]
    return items[1]
"""


def test_python_311_eager_fallback_once_per_entry_at_its_first_construct(python_311):
    # fn: the list subscript (line 5) is captured, the Tensor subscript `x[0]` is not; gn: the `with`; hn: nothing
    assert found(PLAIN) == [(5, "W6405", "warning"), (10, "W6405", "warning")]
    messages = [f.message for f in lint_text(HEADER + PLAIN, Config()) if f.rule.id == "W6405"]
    assert messages[0].startswith("this Tensor subscript makes PIJit on Python 3.11 run the whole function eagerly")
    assert messages[1].startswith("this with makes PIJit")


def test_python_311_a_helpers_tensor_subscript_makes_its_caller_eager(python_311):
    body = """
    def pick(x):
        return x[0]


    def guarded(x):
        try:
            return x * 2
        except ValueError:
            return x


    @ms.jit(capture_mode="bytecode")
    def fn(x):
        return x * 2 + pick(x) + guarded(x)
    """
    # measured: the helper's `x[0]` made fn run eagerly, the helper's `try` did not
    findings = [f for f in lint_text(HEADER + textwrap.dedent(body), Config()) if f.rule.id == "W6405"]
    assert [(f.line - 3, f.severity.value) for f in findings] == [(3, "warning")]
    assert "(in helper `pick`" in findings[0].message


def test_python_312_refuses_every_bytecode_entry(monkeypatch):
    monkeypatch.setattr(capture, "python_release", lambda: (3, 12))
    assert found(PLAIN) == [(3, "E6406", "error"), (9, "E6406", "error"), (16, "E6406", "error")]
    finding = next(f for f in lint_text(HEADER + PLAIN, Config()) if f.rule.id == "E6406")
    assert (finding.column, finding.end_column) == (1, 7)  # `def fn`
    assert "does not run on Python 3.12: every call of `fn` raises" in finding.message


def test_python_310_captures_them(monkeypatch):
    monkeypatch.setattr(capture, "python_release", lambda: (3, 10))
    assert found(PLAIN) == []
