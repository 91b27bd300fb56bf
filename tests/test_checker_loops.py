"""loops checker: unrolled Python loops (trip counts, the depth estimate, the limit) and Tensor `while` carries."""

import textwrap

from graphlint.catalogue.model import EXAMPLE_HEADER
from graphlint.config import Config
from graphlint.lint import lint_text


def findings(code: str, config: Config | None = None):
    source = EXAMPLE_HEADER + textwrap.dedent(code)
    return [f for f in lint_text(source, config or Config()) if f.rule.family == "loops"]


def symbols(code: str, config: Config | None = None):
    return [f.rule.symbol for f in findings(code, config)]


def test_range_of_a_constant_attribute_and_module_constant():
    found = findings("""
        STEPS = 600

        class Net(nn.Cell):
            def __init__(self):
                super().__init__()
                self.n = 100

            def construct(self, x):
                for i in range(self.n):
                    x = x * 0.5
                for j in range(STEPS):
                    x = x + 1
                return x
        """)
    assert [(f.rule.symbol, f.args.get("count")) for f in found] == [
        ("python-loop-unrolls", 100), ("python-loop-exceeds-call-depth", 600)]
    error = found[1]
    assert error.args["depth"] == 1200 and error.args["limit"] == 1000
    assert (error.line, error.column, error.end_column) == (error.node.lineno, error.node.col_offset + 1,
                                                            error.node.col_offset + 4)


def test_unknown_trip_counts_and_cell_lists_are_quiet():
    assert symbols("""
        class Net(nn.Cell):
            def __init__(self, depth):
                super().__init__()
                self.depth = depth
                self.layers = nn.CellList([nn.Dense(3, 3) for _ in range(depth)])

            def construct(self, x, xs: tuple):
                for layer in self.layers:
                    x = layer(x)
                for i in range(self.depth):
                    x = x + 1
                for t in xs:
                    x = x + t
                for row in x:
                    x = x + row
                return x
        """) == []


def test_below_the_threshold_is_quiet_and_the_threshold_is_configurable():
    code = """
        class Net(nn.Cell):
            def construct(self, x):
                for i in range(40):
                    x = x * 0.5
                return x
        """
    assert symbols(code) == []
    assert symbols(code, Config(unroll_warn=10)) == ["python-loop-unrolls"]


def test_nested_loops_multiply_and_are_reported_once_on_the_outer_loop():
    found = findings("""
        class Net(nn.Cell):
            def construct(self, x):
                for i in range(20):
                    for j in range(5):
                        x = x + 1
                return x
        """)
    assert [(f.rule.symbol, f.args["count"], f.line) for f in found] == [("python-loop-unrolls", 100, 7)]


def test_depth_formula_with_tensor_ifs_and_nesting():
    # 340 x (2 + 1 Tensor if) = 1020: fails; 300 x 3 = 900 compiles (only unrolled).
    assert symbols("""
        class Net(nn.Cell):
            def construct(self, x):
                for i in range(340):
                    if x.sum() > 0:
                        x = x - 1
                return x
        """) == ["python-loop-exceeds-call-depth"]
    assert symbols("""
        class Net(nn.Cell):
            def construct(self, x):
                for i in range(300):
                    if x.sum() > 0:
                        x = x - 1
                return x
        """) == ["python-loop-unrolls"]
    # three levels 50 x 2 x 2: 50 * (2 + (2 * (2 + 4 + 2)) + 2) = 1000
    found = findings("""
        class Net(nn.Cell):
            def construct(self, x):
                for i in range(50):
                    for j in range(2):
                        for k in range(2):
                            x = x + 1
                return x
        """)
    assert [(f.rule.symbol, f.args["depth"], f.args["count"]) for f in found] == [
        ("python-loop-exceeds-call-depth", 1000, 200)]


def test_python_if_does_not_count_and_helpers_add_nothing():
    assert symbols("""
        def step(x):
            for j in range(10):
                x = x * 0.5
            return x

        class Net(nn.Cell):
            def __init__(self):
                super().__init__()
                self.flag = True

            def construct(self, x):
                for i in range(300):
                    if self.flag:
                        x = step(x)
                return x
        """) == ["python-loop-unrolls"]


def test_while_on_a_python_counter_and_on_a_tensor_counter():
    found = findings("""
        @ms.jit
        def f(x):
            i = 10
            while i < 1010:
                x = x + 1
                i = i + 2
            return x

        @ms.jit
        def g(x):
            i = Tensor(0, ms.int32)
            while i < 5000:
                x = x + 1
                i = i + 1
            return x

        @ms.jit
        def h(x):
            i = 0
            while i < 5000:
                if i > 3:
                    break
                i += 1
            return x
        """)
    assert [(f.rule.symbol, f.args["kind"], f.args["count"]) for f in found] == [
        ("python-loop-exceeds-call-depth", "`while` loop", 500)]


def test_tuples_enumerate_zip_and_list_comprehensions():
    found = findings("""
        SCALES = (1, 2, 3, 4)

        class Net(nn.Cell):
            def construct(self, x):
                for i, s in enumerate(SCALES):
                    x = x * s
                ys = [x * k for k in range(600)]
                for a, b in zip(range(100), range(80)):
                    x = x + a
                return x + ys[0]
        """)
    assert [(f.rule.symbol, f.args["kind"], f.args["count"]) for f in found] == [
        ("python-loop-exceeds-call-depth", "list comprehension", 600),
        ("python-loop-unrolls", "`for` loop", 80)]


def test_recursion_limit_in_the_module_and_configured_limit():
    code = """
        ms.set_recursion_limit(12000)

        class Net(nn.Cell):
            def construct(self, x):
                for i in range(5000):
                    x = x + 1
                return x
        """
    found = findings(code)
    assert [(f.rule.symbol, f.args.get("threshold")) for f in found] == [("python-loop-unrolls", 64)]
    assert symbols(code, Config(unroll_limit=2000)) == ["python-loop-exceeds-call-depth"]


def test_loop_inside_a_tensor_while_is_estimated_alone():
    found = findings("""
        class Net(nn.Cell):
            def construct(self, x):
                i = Tensor(0, ms.int32)
                while i < 3:
                    for j in range(100):
                        x = x * 0.5
                    i = i + 1
                return x
        """)
    assert [(f.rule.symbol, f.args["count"], f.line) for f in found] == [("python-loop-unrolls", 100, 9)]


def test_carry_shape_change_forms():
    found = findings("""
        class Net(nn.Cell):
            def construct(self, x):
                i = Tensor(0, ms.int32)
                y = x
                z = x
                w = x
                while i < 3:
                    y = y.expand_dims(0)
                    z = ops.cat([z, x])
                    w = ops.tile(w, (1, 1))
                    i = i + 1
                return y, z, w
        """)
    assert [(f.args["name"], f.args["op"]) for f in found] == [("y", "y.expand_dims"), ("z", "ops.cat")]
    assert all(f.rule.symbol == "tensor-while-carry-changes-shape" for f in found)


def test_carry_shape_change_not_reported_for_values_not_carried_or_python_loops():
    assert symbols("""
        class Net(nn.Cell):
            def construct(self, x):
                i = Tensor(0, ms.int32)
                while i < 3:
                    y = ops.concat((x, x), 0)
                    x = y[:2] * 2
                    i = i + 1
                for k in range(3):
                    x = ops.concat((x, x), 0)
                return x
        """) == []


def test_a_class_attribute_bound_is_the_constant_its_class_sets():
    """``range(Config.steps)``: graph code reads a project class's attribute while compiling, so the loop is
    unrolled ``Config.steps`` times (800 here: over the call-depth limit)."""
    source = """
        class Config:
            steps = 800

        class Net(nn.Cell):
            def construct(self, x):
                for _ in range(Config.steps):
                    x = x * 0.5 + 1
                return x
        """
    found = [(f.rule.id, f.line) for f in findings(source)]
    line = (EXAMPLE_HEADER + textwrap.dedent(source)).splitlines().index(" " * 8 + "for _ in range(Config.steps):") + 1
    assert ("E5901", line) in found, found
