"""The IR oracle (issue 39): graphlint's analysis against MindSpore 2.10's own type inference.

Compiles real programs with the type-inference IR dumped, reads the IR and joins it with the analysis. One test
reads facts of a compile it made (the compiler's, asserted as MindSpore printed them); one runs the oracle on a
slice (a dozen catalogue programs and one mindcv model) and fails when agreement drops below the floor measured
on this slice (benchmarks/ir_oracle.json records the figures on the whole sets).
"""

import os
import sys
import textwrap


from graphlint import oracle
from graphlint.validate import ir

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(os.path.dirname(HERE), "benchmarks"))

SCHEDULER = textwrap.dedent("""\
    import mindspore as ms
    from mindspore import nn, Tensor
    import numpy as np


    class Scheduler:
        def __init__(self):
            self.steps = 3

        def step(self, x, t):
            return x * t + self.steps


    class Net(nn.Cell):
        def __init__(self):
            super().__init__()
            self.sched = Scheduler()

        def construct(self, x):
            ys = []
            for i in range(2):
                ys.append(self.sched.step(x, i))
            return ys[0] + ys[1], len(ys)
    """)


def test_ir_reader_and_join_on_a_compiled_scheduler(tmp_path):
    path = tmp_path / "sched.py"
    path.write_text(SCHEDULER)
    program = oracle.Program("scheduler", [str(path)], {"path": str(path), "module_name": "sched", "entry": "Net",
                                                        "inputs": "Tensor(np.ones((2, 3), np.float32))"})
    statuses = oracle.compile_programs([program], str(tmp_path))
    assert statuses == [{"status": "ok"}]
    graphs = oracle.read_graphs(str(tmp_path / "0"))
    steps = [g for g in graphs if g.span and g.span.path == str(path) and g.span.line == 10]
    # One specialisation per constant `t` (range(2) unrolls): `x * t` takes I64(0) in one and I64(1) in the other.
    assert len(steps) == 2
    assert [ir.abstract(a) for _, a in steps[0].parameters] == [
        ir.Abstract("tensor", "float32", (2, 3)), ir.Abstract("int", "int64")]
    products = sorted(n.inputs[1] for g in steps for n in g.nodes
                      if n.span and (n.span.line, n.span.col, n.span.end_col) == (11, 15, 20))
    assert products == ["I64(0)", "I64(1)"]
    tally = oracle.Tally()
    joiner = oracle.Joiner([str(path)])
    joiner.tally_scope(graphs, tally)
    joiner.tally_values(graphs, tally)
    # Both functions the compiler compiled from the file are measured, and `t` is a constant operand there.
    assert tally.total["scope_recall"] == 2
    constants = [where for (dimension, _), places in tally.misses.items() for where in places
                 if dimension == "constant"]
    assert tally.total["constant"] >= 2 and not any(":11:19 t" in where for where in constants), constants


# Floors measured on this slice (see the closing notes of issue 39; session 12 measured scope recall 1.000,
# precision 0.882, kind 1.000, constant 0.875, dtype 0.944, shape 0.250 here; session 14 shape 0.306); a change
# that lowers one fails here.
SLICE_FLOORS = {"scope_recall": 0.99, "scope_precision": 0.85, "kind": 0.97, "constant": 0.85, "dtype": 0.94,
                "shape": 0.30}


def test_oracle_agreement_on_a_slice_does_not_drop(tmp_path):
    import ir_oracle

    programs = ir_oracle.catalogue_programs(str(tmp_path), limit=12) + ir_oracle.zoo_programs(str(tmp_path), 1)
    tally = oracle.measure(programs)
    print(oracle.report(tally))
    assert tally.compiled == len(programs), tally.failed
    below = {d: (tally.rate(d), floor) for d, floor in SLICE_FLOORS.items()
             if tally.rate(d) is not None and tally.rate(d) < floor}
    assert not below, below


# Cells reached however the callee holds them: a factory's return, a class passed as a parameter, the members of
# a SequentialCell, a CellList iterated, a project subclass of an nn layer with no construct of its own. The
# compiler types every call below as a Tensor of the argument's dtype; the analysis must say the same, by following
# each call into the Cells it may call (each call in its own context: `Scale` is called on float32 and on
# float16 Tensors). An attribute that holds a Parameter or None is a Tensor under `is not None` (each instance is
# compiled with its own), and a subclass of `nn.LayerNorm` reads the `gamma` its base's constructor made.
HELD_CELLS = textwrap.dedent("""\
    import mindspore as ms
    from mindspore import nn, ops, Parameter, Tensor
    import numpy as np


    def conv(channels):
        return nn.Conv2d(channels, channels, 1, has_bias=True)


    class Drop(nn.Dropout):
        def __init__(self, p):
            super().__init__(p=p)


    class Scale(nn.Cell):
        def construct(self, x):
            return x * 2


    class Block(nn.Cell):
        def __init__(self, channels):
            super().__init__()
            self.conv = conv(channels)
            self.drop = Drop(0.1)
            if channels > 2:
                self.gamma = Parameter(Tensor(np.ones((channels, 1, 1)), ms.float32))
            else:
                self.gamma = None

        def construct(self, x):
            y = self.conv(x)
            y = self.drop(y)
            if self.gamma is not None:
                y = self.gamma * y
            return y


    class Norm(nn.LayerNorm):
        def __init__(self, shape):
            super().__init__(shape)
            self.axis = -1

        def construct(self, x):
            return x * self.gamma.mean()


    class Net(nn.Cell):
        def __init__(self, block, channels=4):
            super().__init__()
            layers = []
            for _ in range(2):
                layers.append(block(channels))
            self.stage = nn.SequentialCell(layers)
            self.blocks = nn.CellList([block(channels), block(channels)])
            self.scale = Scale()
            self.norm = Norm((3,))

        def construct(self, x):
            x = self.norm(x)
            x = self.stage(x)
            for blk in self.blocks:
                x = blk(x)
            half = self.scale(x.astype(ms.float16))
            return self.scale(x), half


    def build():
        return Net(Block)
    """)
HELD_TEXTS = ("self.conv(x)", "self.drop(y)", "self.gamma * y", "x * self.gamma.mean()", "self.norm(x)",
              "self.stage(x)", "blk(x)", "self.scale(x.astype(ms.float16))", "self.scale(x)")
HELD_CALLS = {next(number for number, line in enumerate(HELD_CELLS.splitlines(), 1) if f"= {text}" in line
                   or f"return {text}" in line): text for text in HELD_TEXTS}


def test_calls_of_held_cells_agree_with_the_compiler(tmp_path):
    path = tmp_path / "held.py"
    path.write_text(HELD_CELLS)
    lines = HELD_CELLS.splitlines()
    for line, text in HELD_CALLS.items():
        assert text in lines[line - 1], (line, lines[line - 1])
    program = oracle.Program("held cells", [str(path)], {"path": str(path), "module_name": "held",
                                                         "factory": "build", "inputs_specs": ["float32[1,4,3,3]"]})
    tally = oracle.measure([program])
    assert tally.compiled == 1, tally.failed
    misses = {(dimension, where) for (dimension, _), places in tally.misses.items() for where in places
              if dimension in ("kind", "dtype")}
    for line, text in HELD_CALLS.items():
        assert not [m for m in misses if f"held.py:{line}:" in m[1]], (line, sorted(misses))
    # each call above was typed by the compiler and measured (a Tensor, with its dtype)
    assert tally.total["dtype"] >= len(HELD_CALLS)


# Values the analysis follows to their making, each typed by the compiler: a Primitive an nn layer's constructor
# made (`self.layer_norm` of an `nn.LayerNorm` subclass) and one the Cell holds (`ops.Unstack`), both returning
# tuples (generated.primitive_outputs); SequentialCells a method of the class builds and an OrderedDict fills; a
# list comprehension's element and `sum` of a generator of Tensors.
MADE_VALUES = textwrap.dedent("""\
    from collections import OrderedDict

    from mindspore import nn, ops


    class Norm(nn.LayerNorm):
        def construct(self, x):
            y, _, _ = self.layer_norm(x, self.gamma, self.beta)
            return y


    class Block(nn.Cell):
        def __init__(self, c):
            super().__init__()
            self.fc = nn.Dense(c, c)

        def construct(self, x):
            return self.fc(x)


    class Net(nn.Cell):
        def __init__(self, c=3):
            super().__init__()
            self.norm = Norm((c,))
            self.unstack = ops.Unstack(axis=0)
            self.stage = self._make_stage(c, 2)
            layers = OrderedDict()
            layers["first"] = Block(c)
            layers["second"] = Block(c)
            self.head = nn.SequentialCell(layers)

        def _make_stage(self, c, n):
            blocks = []
            for _ in range(n):
                blocks.append(Block(c))
            return nn.SequentialCell(blocks)

        def construct(self, x):
            parts = self.unstack(x)
            y = self.stage(self.norm(x))
            z = self.head(y)
            rows = [[z * i for i in range(2)] for _ in range(2)]
            return rows[1][1] + sum(y * i for i in range(3)), parts[0]


    def build():
        return Net()
    """)
MADE_TEXTS = ("self.layer_norm(x, self.gamma, self.beta)", "self.unstack(x)", "self.stage(self.norm(x))",
              "self.head(y)", "rows[1]", "sum(y * i for i in range(3))")


def test_values_made_by_primitives_methods_and_comprehensions_agree_with_the_compiler(tmp_path):
    path = tmp_path / "made.py"
    path.write_text(MADE_VALUES)
    lines = MADE_VALUES.splitlines()
    located = {text: next(number for number, line in enumerate(lines, 1) if text in line) for text in MADE_TEXTS}
    program = oracle.Program("made values", [str(path)], {"path": str(path), "module_name": "made",
                                                          "factory": "build", "inputs_specs": ["float32[2,3]"]})
    tally = oracle.measure([program])
    assert tally.compiled == 1, tally.failed
    misses = [where for (dimension, _), places in tally.misses.items() for where in places if dimension == "kind"]
    for text, line in located.items():
        column = lines[line - 1].index(text)
        assert not [m for m in misses if f"made.py:{line}:{column} " in m], (text, misses)
    assert tally.total["kind"] >= len(MADE_TEXTS)


# Facts carried through calls and containers, each typed by the compiler: what a project function and a method
# return for each call (in the caller's terms, as the compiler specialises them per call), a nested function's
# result, an element of a list, a slice of it, a dict comprehension's value, measured shape-keeping layers
# (generated.layer_shapes), and `sum` of a generator of Tensors.
CARRIED_FACTS = textwrap.dedent("""\
    import mindspore as ms
    from mindspore import nn, ops


    def scale(t, k=2):
        return t * k


    class Net(nn.Cell):
        def __init__(self):
            super().__init__()
            self.act = nn.GELU()
            self.norm = nn.LayerNorm((3,))

        def combine(self, a, b):
            return ops.relu(a) + b

        def construct(self, x):
            def triple(t):
                return t * 3
            half = x.astype(ms.float16)
            items = [x, x + 1, x + 2]
            rest = items[1:]
            weights = {i: half * i for i in range(3)}
            total = sum(t * 2 for t in items)
            return scale(x), scale(half), self.combine(x, x * 2), triple(half), rest[0], weights[2], self.act(self.norm(x)), total


    def build():
        return Net()
    """)
CARRIED_TEXTS = ("scale(x)", "scale(half)", "self.combine(x, x * 2)", "triple(half)", "rest[0]", "weights[2]",
                 "self.act(self.norm(x))", "total")


def test_facts_carried_through_calls_and_containers_agree_with_the_compiler(tmp_path):
    path = tmp_path / "carried.py"
    path.write_text(CARRIED_FACTS)
    lines = CARRIED_FACTS.splitlines()
    line = next(number for number, text in enumerate(lines, 1) if text.strip().startswith("return scale(x)"))
    program = oracle.Program("carried facts", [str(path)], {"path": str(path), "module_name": "carried",
                                                            "factory": "build", "inputs_specs": ["float32[2,3]"]})
    tally = oracle.measure([program])
    assert tally.compiled == 1, tally.failed
    misses = [(dimension, where) for (dimension, _), places in tally.misses.items() for where in places
              if dimension in ("dtype", "shape")]
    for text in CARRIED_TEXTS:
        column = lines[line - 1].index(text)
        assert not [m for m in misses if f"carried.py:{line}:{column} " in m[1]], (text, misses)
    assert tally.total["dtype"] >= len(CARRIED_TEXTS) and tally.total["shape"] >= len(CARRIED_TEXTS)


# Dtypes of operations whose rule was measured (generated.op_dtypes) and shapes computed by shape_algebra, each
# typed by the compiler: Primitives held by the Cell (one made with arguments that cannot change the dtype), a
# function, Tensor methods, integer inputs made floating; a shape unpacked into ints and used to reshape, a
# permutation, a view with -1, stacking and joining, a matmul against swapped axes, indexing with a slice, an
# Ellipsis and None, creation from literal shapes, a reduction and a flatten; the shapes convolution, pooling,
# Flatten and Dense layers give, from their constructions (pad_mode "pad" and the default "same", a window and a
# stride, an output size from the weight where the construction computes it).
MEASURED_FACTS = textwrap.dedent("""\
    import mindspore as ms
    from mindspore import nn, ops, mint


    class Convs(nn.Cell):
        def __init__(self, c):
            super().__init__()
            self.conv = nn.Conv2d(c, 8, 3, stride=2, pad_mode="pad", padding=1)
            self.same = nn.Conv2d(8, c * 2, kernel_size=3)
            self.pool = nn.MaxPool2d(kernel_size=2, stride=2)
            self.flat = nn.Flatten()
            self.fc = nn.Dense(c * 2 * 16, 5)

        def construct(self, image):
            h = self.same(self.conv(image))
            return self.fc(self.flat(self.pool(h)))


    class Net(nn.Cell):
        def __init__(self):
            super().__init__()
            self.convs = Convs(3)
            self.scores = ops.BatchMatMul(transpose_b=True)
            self.mul = ops.Mul()
            self.reshape = ops.Reshape()
            self.transpose = ops.Transpose()

        def construct(self, x, image):
            b, n, c = x.shape
            half = x.astype(ms.float16)
            ids = x.astype(ms.int32)
            dtypes = (self.scores(half, half), self.mul(x, x), ops.bmm(half, half.swapaxes(1, 2)), half.matmul(half.swapaxes(1, 2)), ops.sqrt(ids), x.argmax(1), b + n)
            y = self.reshape(x, (b, n, 3, c // 3))
            shapes = (self.transpose(y, (2, 0, 3, 1)), x.view(b, -1), ops.stack([x, x], 1), ops.concat((x, x), axis=-1), x @ x.swapaxes(1, 2), x[:, 0], x[..., None, 1:], ops.ones((2, 3), ms.float16), x.mean(-1), mint.zeros((2, 4)), x.flatten(1))
            return dtypes, shapes, self.convs(image)


    def build():
        return Net()
    """)
LAYER_TEXTS = ("self.conv(image)", "self.same(self.conv(image))", "self.pool(h)", "self.flat(self.pool(h))",
               "self.fc(self.flat(self.pool(h)))")
DTYPE_TEXTS = ("self.scores(half, half)", "self.mul(x, x)", "ops.bmm(half, half.swapaxes(1, 2))",
               "half.matmul(half.swapaxes(1, 2))",
               "ops.sqrt(ids)", "x.argmax(1)")
SHAPE_TEXTS = ("self.transpose(y, (2, 0, 3, 1))", "x.view(b, -1)", "ops.stack([x, x], 1)", "ops.concat((x, x), axis=-1)",
               "x @ x.swapaxes(1, 2)", "x[:, 0]", "x[..., None, 1:]", "ops.ones((2, 3), ms.float16)", "x.mean(-1)",
               "mint.zeros((2, 4))", "x.flatten(1)")


def test_measured_dtypes_and_computed_shapes_agree_with_the_compiler(tmp_path):
    path = tmp_path / "measured.py"
    path.write_text(MEASURED_FACTS)
    lines = MEASURED_FACTS.splitlines()
    program = oracle.Program("measured facts", [str(path)], {"path": str(path), "module_name": "measured",
                                                             "factory": "build",
                                                             "inputs_specs": ["float32[2,4,6]", "float32[1,3,16,16]"]})
    tally = oracle.measure([program])
    assert tally.compiled == 1, tally.failed
    misses = [(dimension, where) for (dimension, _), places in tally.misses.items() for where in places]

    def at(text: str, dimension: str | None):
        line = next(number for number, code in enumerate(lines, 1) if text in code)
        column = lines[line - 1].index(text)
        return [m for m in misses if (dimension is None or m[0] == dimension) and f"measured.py:{line}:{column} " in m[1]]

    for text in DTYPE_TEXTS:
        assert not at(text, "dtype"), (text, misses)
    assert not at("b + n", None), misses
    assert not at("self.reshape(x, (b, n, 3, c // 3))", None), misses
    for text in SHAPE_TEXTS + LAYER_TEXTS:
        assert not at(text, None), (text, misses)
    assert tally.total["dtype"] >= len(DTYPE_TEXTS) + len(SHAPE_TEXTS)
    assert tally.total["shape"] >= len(SHAPE_TEXTS) + len(LAYER_TEXTS)
