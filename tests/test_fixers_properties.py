"""Property tests for every fixer: over generated Cells, fixed code parses, a second --fix changes
nothing, and a file is untouched when every fix is refused."""

import os
import tempfile
import textwrap

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from graphlint.config import Config
from graphlint.run.fix import fix_paths

EXAMPLES = int(os.environ.get("GRAPHLINT_FUZZ_EXAMPLES", "40"))
SETTINGS = settings(max_examples=EXAMPLES, deadline=None,
                    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])

ATOMS = st.sampled_from(["x", "y", "1", "2.5", "ops.relu(x)", "x.sum()", "ops.exp(y)", "(x * y)", "-x"])
OPERATORS = st.sampled_from(["+", "-", "*", "/"])


@st.composite
def expressions(draw, depth=2):
    if depth == 0 or draw(st.booleans()):
        return draw(ATOMS)
    return f"{draw(expressions(depth=depth - 1))} {draw(OPERATORS)} {draw(expressions(depth=depth - 1))}"


@st.composite
def statements(draw):
    kind = draw(st.sampled_from(["augassign", "del", "import", "is", "select", "loop", "plain", "loop_definition",
                                 "branch_definition", "no_grad", "walrus", "comprehension", "match", "lambda_in_loop",
                                 "class_def"]))
    expr = draw(expressions())
    if kind == "augassign":
        return [f"{draw(st.sampled_from(['x', 'y']))} {draw(OPERATORS)}= {expr}  # keep"]
    if kind == "del":
        return [f"tmp = {expr}", "del tmp"]
    if kind == "import":
        return [draw(st.sampled_from(["import math", "from mindspore import numpy as mnp", "import os.path"]))]
    if kind == "is":
        return [f"flag = x.dtype is {draw(st.sampled_from(['1.5', '(1, 2)', 'None', 'ms.float32']))}"]
    if kind == "select":
        other = draw(expressions())
        return ["if x.sum() > 0:", f"    y = {expr}", "else:", f"    y = {other}"]
    if kind == "loop":
        trips = draw(st.integers(min_value=1, max_value=1500))
        body = [f"    x = {expr}"] + (["    break"] if draw(st.booleans()) and trips > 900 else [])
        return [f"for i in range({trips}):"] + body
    if kind == "loop_definition":
        return ["for k in range(2):", f"    w = {expr}", "y = w"]
    if kind == "branch_definition":
        return ["if x.shape[0] > 1:", f"    v = {expr}", "y = v"]
    if kind == "no_grad":
        return ["with ms._no_grad():", f"    y = {expr}"]
    if kind == "walrus":
        return [f"y = (z := {expr}) * z"]
    if kind == "comprehension":
        return [f"y = sum([{expr} for a in range(2) for b in (1, 2)])"]
    if kind == "lambda_in_loop":
        return ["for k in range(2):", "    f = lambda t: t * 2", f"    x = f({expr})"]
    if kind == "class_def":
        return ["class Holder:", "    factor = 2", "y = y * Holder.factor"]
    if kind == "match":
        return ["match x.ndim:", "    case 2 | 3:", f"        y = {expr}", "    case _:", "        y = x"]
    return [f"y = {expr}"]


@st.composite
def cells(draw):
    body = []
    for _ in range(draw(st.integers(min_value=1, max_value=5))):
        body.extend(draw(statements()))
    lines = "\n".join(body + ["return x, y"])
    return ("import mindspore as ms\nfrom mindspore import nn, ops\n\n\nclass Net(nn.Cell):\n"
            "    def construct(self, x, y):\n" + textwrap.indent(lines, " " * 8) + "\n")


def _fix(text, **kw):
    with tempfile.TemporaryDirectory() as folder:
        path = os.path.join(folder, "model.py")
        with open(path, "w", encoding="utf-8") as handle:
            handle.write(text)
        report = fix_paths([path], Config(), **kw)
        with open(path, encoding="utf-8") as handle:
            return handle.read(), report


@SETTINGS
@given(cells(), st.booleans())
def test_fixed_code_parses_and_fixing_again_changes_nothing(source, unsafe):
    fixed, report = _fix(source, unsafe=unsafe)
    compile(fixed, "model.py", "exec")
    assert not [f for f in report.files if f.error]
    again, second = _fix(fixed, unsafe=unsafe)
    assert again == fixed
    assert not [f for f in second.files if f.changed]


@SETTINGS
@given(cells())
def test_refused_or_diff_only_leaves_the_file_untouched(source):
    fixed, report = _fix(source, unsafe=True, write=False)
    assert fixed == source  # --diff writes nothing
    if not report.applied:
        assert all(not f.changed for f in report.files)
