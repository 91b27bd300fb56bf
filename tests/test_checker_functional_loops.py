"""functional_loops checker: ops.WhileLoop / ops.ForiLoop / ops.Scan bodies, carries, unrolling and export."""

import textwrap

from graphlint.catalogue.model import EXAMPLE_HEADER
from graphlint.config import Config
from graphlint.lint import lint_text


def findings(code: str, config: Config | None = None):
    source = EXAMPLE_HEADER + textwrap.dedent(code)
    return [f for f in lint_text(source, config or Config()) if f.rule.family == "functional_loops"]


def symbols(code: str):
    return [f.rule.symbol for f in findings(code)]


def test_nested_body_capture_names_the_captured_values():
    found = findings("""
        class Net(nn.Cell):
            def __init__(self):
                super().__init__()
                self.k = 2.0
                self.w = Parameter(Tensor(np.ones((2, 3), np.float32)), name="w")

            def construct(self, x):
                n = 3
                t = x * 2
                def cond(c):
                    return c[0] < n
                def body(c):
                    i, y = c
                    return i + 1, y * self.k + t * self.w
                return ops.WhileLoop()(cond, body, (Tensor(0, ms.int32), x))[1]
        """)
    assert [(f.rule.symbol, f.args["func"], f.args["names"]) for f in found] == [
        ("functional-loop-body-closure", "body", "`t`, `self.w`")]


def test_nested_helpers_literals_and_python_scalar_attributes_are_allowed():
    assert symbols("""
        class Net(nn.Cell):
            def __init__(self):
                super().__init__()
                self.n = 3

            def construct(self, x):
                k = 2.0
                def double(t):
                    return t * 2
                def body(c):
                    i, y = c
                    return i + 1, double(y) * k
                return ops.WhileLoop()(lambda c: c[0] < self.n, body, (Tensor(0, ms.int32), x))[1]
        """) == []


def test_builtins_and_globals_in_a_nested_body_are_captures_except_in_an_unrolled_scan():
    found = findings("""
        @ms.jit
        def f(x):
            def body(i, y):
                return y * len((1, 2))
            def step(y, el):
                return ops.relu(y * el), y
            a = ops.ForiLoop()(0, 3, body, x)
            b = ops.Scan()(step, x, [1.0, 2.0])[0]
            c = ops.Scan()(step, x, [1.0, 2.0], unroll=False)[0]
            return a + b + c
        """)
    assert [(f.rule.symbol, f.args.get("names"), f.line) for f in found] == [
        ("functional-loop-body-closure", "`len`", 11),
        ("functional-loop-body-closure", "`ops`", 13),
        ("rolled-functional-loop-export", None, 13)]


def test_nested_body_writing_an_aliased_parameter_crashes():
    found = findings("""
        class Net(nn.Cell):
            def __init__(self):
                super().__init__()
                self.w = Parameter(Tensor(np.zeros((2, 3), np.float32)), name="w")

            def construct(self, x):
                w = self.w
                def cond(c):
                    return c[0] < 3
                def body(c):
                    i, y = c
                    ops.assign(w, y)
                    return i + 1, y * 2
                return ops.WhileLoop()(cond, body, (Tensor(0, ms.int32), x))[1]
        """)
    assert [(f.rule.symbol, f.args["param"]) for f in found] == [
        ("functional-loop-closure-writes-parameter", "self.w")]


def test_primitive_instance_stored_in_init_and_aliased_import():
    found = findings("""
        from mindspore.ops import ForiLoop as Fori

        def body(i, y):
            print(i)
            return y + 1

        class Net(nn.Cell):
            def __init__(self):
                super().__init__()
                self.loop = ops.ForiLoop()

            def construct(self, x):
                return self.loop(0, 3, body, x) + Fori()(0, 3, body, x)
        """)
    assert [(f.rule.symbol, f.args["what"]) for f in found] == [
        ("fori-scan-body-uses-parameter", "print()"), ("fori-scan-body-uses-parameter", "print()")]


def test_weightless_sub_cells_and_while_loops_may_touch_the_cell():
    assert symbols("""
        class Net(nn.Cell):
            def __init__(self):
                super().__init__()
                self.act = nn.ReLU()
                self.w = Parameter(Tensor(np.ones((2, 3), np.float32)), name="w")

            def fori_body(self, i, y):
                return self.act(y - 1)

            def cond(self, c):
                return c[0] < 3

            def while_body(self, c):
                i, y = c
                print(i)
                return i + 1, y * self.w

            def construct(self, x):
                y = ops.ForiLoop()(0, 3, self.fori_body, x)
                return ops.WhileLoop()(self.cond, self.while_body, (Tensor(0, ms.int32), y))[1]
        """) == []


def test_parameter_in_fori_init_val():
    found = findings("""
        def body(i, c):
            y, w = c
            return y * w, w

        class Net(nn.Cell):
            def __init__(self):
                super().__init__()
                self.w = Parameter(Tensor(np.ones((2, 3), np.float32)), name="w")

            def construct(self, x):
                return ops.ForiLoop()(0, 3, body, (x, self.w))[0]
        """)
    assert [(f.rule.symbol, f.args["what"]) for f in found] == [
        ("fori-scan-body-uses-parameter", "Parameter `self.w` (given as `init_val`)")]


def test_carry_changes_in_tuple_carries_and_scan():
    found = findings("""
        def cond(c):
            return c[0] < 3

        def body(c):
            i, y = c
            return i + 1, ops.stack((y, y), 0)

        def step(carry, el):
            return ops.concat((carry, carry)), carry

        def keep(c):
            i, y = c
            return i + 1, ops.concat((y[1:], y[:1]), 0)

        class Net(nn.Cell):
            def construct(self, x):
                a = ops.WhileLoop()(cond, body, (Tensor(0, ms.int32), x))[1]
                b = ops.Scan()(step, x, [1.0])[0]
                c = ops.WhileLoop()(cond, keep, (Tensor(0, ms.int32), x))[1]
                return a, b, c
        """)
    assert [(f.rule.symbol, f.args["op"], f.args["change"]) for f in found] == [
        ("functional-loop-carry-changes-type", "WhileLoop", "shape"),
        ("functional-loop-carry-changes-type", "Scan", "shape")]


def test_dtype_cast_keeping_the_dtype_is_quiet():
    assert symbols("""
        def cond(y):
            return y.sum() < 100

        def body(y):
            return (y * 2).astype(y.dtype)

        class Net(nn.Cell):
            def construct(self, x):
                return ops.WhileLoop()(cond, body, x)
        """) == []


def test_unrolled_trip_counts():
    found = findings("""
        N = 100

        def body(i, y):
            return y * 0.5 + 1

        def step(y, el):
            return y * el, y

        class Net(nn.Cell):
            def construct(self, x, n):
                a = ops.ForiLoop()(10, N + 10, body, x)
                b = ops.ForiLoop()(0, 50, body, x)
                c = ops.ForiLoop()(0, n, body, x)
                d = ops.Scan()(step, x, None, length=200)[0]
                return a + b + c + d
        """)
    assert [(f.rule.symbol, f.args.get("op"), f.args.get("count")) for f in found] == [
        ("functional-loop-unrolled", "ForiLoop", 100), ("functional-loop-unrolled", "Scan", 200)]
