"""Property tests of what the rewrites *do*: generated Cells with low-precedence operands (conditional
expressions, `or`, `not`, lambdas, calls, attributes, negative numbers) are fixed, and the original and the
rewritten code run as plain Python, without MindSpore, on a small stand-in for its API (a scalar Tensor, a
Tensor counter that is an int, `ops.where` that selects): both must return the same value, and a loop must
run the same number of steps. The bug this guards: `for i in range(600 if self.big else 700)` was rewritten
to `while i < 600 if self.big else 700`, which Python reads as `(i < 600) if self.big else 700`."""

import math
import os
import re
import tempfile
import textwrap

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from graphlint.config import Config
from graphlint.run.fix import fix_paths

EXAMPLES = int(os.environ.get("GRAPHLINT_FUZZ_EXAMPLES", "40"))
SETTINGS = settings(max_examples=EXAMPLES, deadline=None,
                    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])


# -- a stand-in for the MindSpore API the rewrites use ------------------------------------------------------
class FakeTensor:
    """A 0-d Tensor: arithmetic, comparisons and reductions on one number."""

    def __init__(self, value):
        self.v = value.v if isinstance(value, FakeTensor) else value

    def _op(self, other, fn):
        return FakeTensor(fn(self.v, other.v if isinstance(other, FakeTensor) else other))

    def __add__(self, o): return self._op(o, lambda a, b: a + b)
    def __radd__(self, o): return self._op(o, lambda a, b: b + a)
    def __sub__(self, o): return self._op(o, lambda a, b: a - b)
    def __rsub__(self, o): return self._op(o, lambda a, b: b - a)
    def __mul__(self, o): return self._op(o, lambda a, b: a * b)
    def __rmul__(self, o): return self._op(o, lambda a, b: b * a)
    def __truediv__(self, o): return self._op(o, lambda a, b: a / b)
    def __mod__(self, o): return self._op(o, lambda a, b: a % b)
    def __neg__(self): return FakeTensor(-self.v)
    def __lt__(self, o): return self._op(o, lambda a, b: a < b)
    def __le__(self, o): return self._op(o, lambda a, b: a <= b)
    def __gt__(self, o): return self._op(o, lambda a, b: a > b)
    def __ge__(self, o): return self._op(o, lambda a, b: a >= b)
    def __eq__(self, o): return self._op(o, lambda a, b: a == b)
    def __ne__(self, o): return self._op(o, lambda a, b: a != b)
    def __bool__(self): return bool(self.v)
    def __hash__(self): return hash(self.v)
    def __index__(self): return int(self.v)
    def sum(self): return FakeTensor(self.v)
    def mean(self): return FakeTensor(self.v)
    def max(self): return FakeTensor(self.v)
    def abs(self): return FakeTensor(abs(self.v))
    def item(self): return self.v


def _where(c, a, b):
    return a if bool(c) else b


class _Namespace:
    def __init__(self, **kw):
        self.__dict__.update(kw)


class _Cell:
    def __call__(self, *args):
        return self.construct(*args)


def _fake_modules():
    ms = _Namespace(Tensor=lambda value, dtype=None: FakeTensor(value), int32="int32", bool_="bool_",
                    float32="float32", set_recursion_limit=lambda n: None)
    ops = _Namespace(where=_where, select=_where, logical_and=lambda a, b: FakeTensor(bool(a) and bool(b)),
                     logical_or=lambda a, b: FakeTensor(bool(a) or bool(b)),
                     logical_not=lambda a: FakeTensor(not bool(a)), zeros_like=lambda x: FakeTensor(0),
                     tanh=lambda x: FakeTensor(math.tanh(x.v)), relu=lambda x: FakeTensor(max(x.v, 0)),
                     abs=lambda x: FakeTensor(abs(x.v)))
    ms.ops = ops
    ms.nn = _Namespace(Cell=_Cell)
    return ms, ops


def run_cell(source: str, *inputs, init=None):
    """Execute ``source`` with the stand-in API and return what ``Net(**init)(*inputs)`` returns."""
    ms, ops = _fake_modules()
    lines = [line for line in source.splitlines()
             if not re.match(r"\s*(import mindspore|from mindspore)", line)]
    namespace = {"ms": ms, "mindspore": ms, "ops": ops, "nn": ms.nn, "Tensor": ms.Tensor, "__name__": "fixed"}
    exec(compile("\n".join(lines), "fixed.py", "exec"), namespace)  # noqa: S102 - generated test code
    net = namespace["Net"](**(init or {}))
    return _plain(net(*inputs))


def _plain(value):
    if isinstance(value, FakeTensor):
        return value.v
    if isinstance(value, tuple):
        return tuple(_plain(v) for v in value)
    return value


def _fix(text, unsafe=True):
    with tempfile.TemporaryDirectory() as folder:
        path = os.path.join(folder, "model.py")
        with open(path, "w", encoding="utf-8") as handle:
            handle.write(text)
        report = fix_paths([path], Config(unroll_warn=64), unsafe=unsafe)
        with open(path, encoding="utf-8") as handle:
            return handle.read(), report


HEADER = "import mindspore as ms\nfrom mindspore import nn, ops\n\n\n"

# -- loop bounds of low precedence --------------------------------------------------------------------------
SMALL = st.integers(min_value=70, max_value=140)  # above unroll-warn: the loop is reported and rewritten


@st.composite
def bounds(draw):
    a, b = draw(SMALL), draw(SMALL)
    kind = draw(st.sampled_from(["ifexp", "or", "attr", "negated", "call", "sum", "lambda", "and", "ifexp_attr"]))
    return {
        "ifexp": f"{a} if self.big else {b}",
        "ifexp_attr": f"self.n if not self.big else {b}",
        "or": f"self.zero or {a}",
        "and": f"self.big and {a}",
        "attr": "self.n",
        "negated": f"-(-{a})",
        "call": f"max({a}, {b})",
        "sum": f"{a} + {b} - {b}",
        "lambda": f"(lambda: {a})()",
    }[kind]


@st.composite
def loop_cells(draw):
    bound = draw(bounds())
    start = draw(st.sampled_from(["", "0, ", "3, ", "-5, "]))
    step = draw(st.sampled_from(["", ", 1", ", 2", ", 3"])) if start else ""
    exit_kind = draw(st.sampled_from(["none", "none", "break", "continue", "return"]))
    threshold = draw(st.integers(min_value=5, max_value=200))
    body = ["x = x + 1"]  # the result counts the steps
    if exit_kind == "break":
        body += [f"if x > {threshold}:", "    break", "y = y + 2"]
    elif exit_kind == "continue":
        body += ["if x % 3 == 0:", "    continue", "y = y + 2"]
    elif exit_kind == "return":
        body += [f"if x > {threshold}:", "    return x * 10 + y", "y = y + 2"]
    lines = ["y = x * 0", f"for i in range({start}{bound}{step}):"] + ["    " + line for line in body] + \
        ["return x + y"]
    big = draw(st.booleans())
    return (HEADER + "class Net(nn.Cell):\n    def __init__(self):\n        super().__init__()\n"
            f"        self.big = {big}\n        self.n = {draw(SMALL)}\n        self.zero = 0\n\n"
            "    def construct(self, x):\n" + textwrap.indent("\n".join(lines), " " * 8) + "\n")


@SETTINGS
@given(loop_cells(), st.integers(min_value=-3, max_value=3))
def test_loop_rewrite_keeps_the_trip_count_and_the_result(source, start_value):
    fixed, report = _fix(source)
    compile(fixed, "model.py", "exec")
    expected = run_cell(source, FakeTensor(start_value))
    got = run_cell(fixed, FakeTensor(start_value))
    assert got == expected, (source, fixed)
    if "for i in range" not in fixed:
        assert "while" in fixed and any(a.symbol.startswith("python-loop") for a in report.applied)


def test_the_precedence_case_of_the_issue_keeps_its_meaning():
    source = (HEADER + "class Net(nn.Cell):\n    def __init__(self):\n        super().__init__()\n"
              "        self.big = False\n\n    def construct(self, x):\n"
              "        for i in range(600 if self.big else 700):\n            x = x + 1\n        return x\n")
    fixed, report = _fix(source)
    assert "while i < (600 if self.big else 700):" in fixed, fixed
    assert run_cell(fixed, FakeTensor(0)) == run_cell(source, FakeTensor(0)) == 700


# -- select operands of low precedence ----------------------------------------------------------------------
OPERANDS = st.sampled_from([
    "x * 2", "x - 1", "-x", "x + 0.5", "(x if self.big else -x)", "x * 2 if x.sum() > 3 else x",
    "ops.relu(x)", "ops.tanh(x) * 2", "x / 3", "x * self.k", "(lambda v: v * 2)(x)", "x.abs()", "-1 * x",
    "self.k * x + -3", "x or x * 2",
])
CONDITIONS = st.sampled_from([
    "x.sum() > 0", "x.sum() > 0 and x.max() < 5", "not x.mean() > 1", "x.sum() > 0 or x.mean() < -2",
    "x.abs().max() >= 2", "-x.sum() < 1",
])


@st.composite
def select_cells(draw):
    a, b, condition = draw(OPERANDS), draw(OPERANDS), draw(CONDITIONS)
    form = draw(st.sampled_from(["assign", "ifexp", "return", "elif"]))
    if form == "assign":
        lines = ["y = x", f"if {condition}:", f"    y = {a}", "else:", f"    y = {b}", "return y + 1"]
    elif form == "ifexp":
        lines = [f"y = {a} if {condition} else {b}", "return y"]
    elif form == "return":
        lines = [f"if {condition}:", f"    return {a}", f"return {b}"]
    else:
        c = draw(OPERANDS)
        lines = [f"if {condition}:", f"    y = {a}", "elif x.sum() < -1:", f"    y = {b}", "else:", f"    y = {c}",
                 "return y"]
    return (HEADER + "class Net(nn.Cell):\n    def __init__(self):\n        super().__init__()\n"
            f"        self.big = {draw(st.booleans())}\n        self.k = {draw(st.integers(-3, 3))}\n\n"
            "    def construct(self, x):\n" + textwrap.indent("\n".join(lines), " " * 8) + "\n")


@SETTINGS
@given(select_cells(), st.sampled_from([-4, -1.5, 0, 0.5, 2, 7]))
def test_select_rewrite_returns_what_the_branches_return(source, value):
    fixed, _report = _fix(source)
    compile(fixed, "model.py", "exec")
    assert run_cell(fixed, FakeTensor(value)) == run_cell(source, FakeTensor(value)), (source, fixed)
