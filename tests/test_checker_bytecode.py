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


EAGER = """
import os
import contextlib

SCALE = 1.0
CALLS = 0
HISTORY = []


@ms.jit(capture_mode="bytecode")
def eager_try(x):
    global CALLS
    CALLS += 1
    HISTORY.append(1)
    first = x.tolist()[0]
    try:
        y = x * SCALE * float(os.environ["GL_SCALE"]) * first
    except ValueError:
        y = x
    return y


@ms.jit(capture_mode="bytecode")
def eager_subscript(x):
    y = Tensor(np.tanh(x.asnumpy())) * SCALE
    return y + x[0]


@ms.jit(capture_mode="bytecode")
def try_then_break(x):
    global CALLS
    CALLS += 1
    try:
        y = x * SCALE
    except ValueError:
        y = x
    return y + Tensor(np.tanh(x.asnumpy()))


def plain_helper(x):
    return x * SCALE


@ms.jit(capture_mode="bytecode", fullgraph=True)
def eager_entry(x):
    try:
        y = plain_helper(x)
    except ValueError:
        y = x
    return y


def pick(x):
    return x + x[0]


def through(x):
    return pick(x) * SCALE


@ms.jit(capture_mode="bytecode")
def eager_through_helpers(x):
    return through(x) * SCALE


def with_helper(x):
    with contextlib.suppress(ValueError):
        x = x * SCALE
    return x


@ms.jit(capture_mode="bytecode")
def calls_with_helper(x):
    return with_helper(x) * SCALE


def try_helper(x):
    try:
        y = x * SCALE
    except ValueError:
        y = x
    return y


@ms.jit(capture_mode="bytecode")
def calls_try_helper(x):
    return try_helper(x) * SCALE


def bump():
    global SCALE
    SCALE += 1.0
"""


def test_python_311_nothing_but_the_fallback_is_reported_where_pijit_runs_eagerly(python_311):
    # Measured with MindSpore 2.10 on Python 3.11.7 (this program, SCALE and GL_SCALE changed between two calls):
    # - eager_try runs eagerly (its try): the global write, the append, tolist, the environ and global reads (13-17)
    #   followed eager; only W6405 is reported (16);
    # - eager_subscript runs eagerly (x[0]): the Tensor of host data and the global read (25) followed eager;
    # - try_then_break's try is followed by a graph break (NumPy): PIJit captures it, and the write (32), the read
    #   (34) and the Tensor of host data (37) kept the first call's; no W6405;
    # - eager_entry runs eagerly (try), but PIJit captures plain_helper, which it calls, as a frame of its own: its
    #   read kept the first value (41);
    # - pick's x[0] makes through and eager_through_helpers run eagerly (both followed SCALE): only W6405 (54);
    # - with_helper runs as a frame of its own, eagerly (its `with`; followed SCALE; its skip-list call
    #   contextlib.suppress runs in Python like the rest), its caller is compiled and kept the first value (74);
    # - try_helper is inlined into its compiled caller: both kept the first value (79, 87).
    assert found(EAGER, family_only=False) == [
        (16, "W6405", "warning"),
        (26, "W6405", "warning"),
        (32, "W5205", "error"),
        (34, "W5204", "error"),
        (37, "E6401", "error"),
        (37, "W5501", "warning"),
        (37, "W5502", "warning"),
        (41, "W5204", "error"),
        (46, "W6405", "warning"),
        (54, "W6405", "warning"),
        (74, "W5204", "error"),
        (79, "W5204", "error"),
        (87, "W5204", "error"),
    ]


def test_python_310_reports_what_the_captured_functions_keep(monkeypatch):
    # Python 3.10 captures them all (no eager fallback): every error stays
    monkeypatch.setattr(capture, "python_release", lambda: (3, 10))
    assert found(EAGER, family_only=False) == [
        (13, "W5205", "error"),
        (14, "W5207", "error"),
        (15, "I5702", "error"),
        (17, "W5203", "error"),
        (17, "W5204", "error"),
        (25, "E6401", "error"),
        (25, "W5204", "error"),
        (25, "W5501", "warning"),
        (25, "W5502", "warning"),
        (32, "W5205", "error"),
        (34, "W5204", "error"),
        (37, "E6401", "error"),
        (37, "W5501", "warning"),
        (37, "W5502", "warning"),
        (41, "W5204", "error"),
        (58, "W5204", "error"),
        (63, "W5204", "error"),
        (67, "W6402", "warning"),
        (68, "W5204", "error"),
        (74, "W5204", "error"),
        (79, "W5204", "error"),
        (87, "W5204", "error"),
    ]


def test_python_312_refuses_every_bytecode_entry(monkeypatch):
    monkeypatch.setattr(capture, "python_release", lambda: (3, 12))
    assert found(PLAIN) == [(3, "E6406", "error"), (9, "E6406", "error"), (16, "E6406", "error")]
    finding = next(f for f in lint_text(HEADER + PLAIN, Config()) if f.rule.id == "E6406")
    assert (finding.column, finding.end_column) == (1, 7)  # `def fn`
    assert "does not run on Python 3.12: every call of `fn` raises" in finding.message


def test_python_310_captures_them(monkeypatch):
    monkeypatch.setattr(capture, "python_release", lambda: (3, 10))
    assert found(PLAIN) == []
