"""Python loops that MindSpore unrolls at compile time, and Tensor loops whose state changes shape.

In graph code a `for` over `range(<constant>)`, a tuple, a list or a CellList, a `while` whose condition
is a Python value, and a list comprehension are unrolled: the body is copied once per iteration. Each copy
deepens the compiler's call stack, and past 1000 levels (MindSpore's default `max_call_depth`) compiling
stops. A `while` whose condition is a Tensor is compiled as a real loop instead: it compiles in constant
time, but its state must keep one shape.

Depth estimate (MindSpore 2.10, CPU; measured by bisecting the trip count, see the notes of this family):

    depth(loop) = n * (2 + t + sum(depth(inner) + 2 for each loop nested in the body))

where ``n`` is the trip count and ``t`` the number of Tensor-dependent ``if`` statements written directly
in the body. Calls to helper functions, methods and sub-Cells add nothing, even when the callee holds
its own loop or Tensor ``if`` (its depth is unwound when it returns); only the loop's own lexical body
counts. Every measured pattern compiles at ``depth <= 993`` and fails at ``depth >= 996``, except a plain
body at exactly 996 (498 iterations), which still compiles (plain ``for``: 498 iterations compile, 499
fail; one Tensor ``if``: 331/332; two: 248/249; nested ``N x 2``: 124/125; ``N x 10``: 41/42; three
levels ``N x 2 x 2``: 49/50). A top-level list comprehension of n elements costs 2n, plus about 10 when
the list is consumed by ``sum`` (493 compile, 494 fail). ``mindspore.set_recursion_limit(n)`` (or the deprecated
``set_context(max_call_depth=n)``) raises the limit: 600 iterations compile with 2000, 5000 with 12000.
"""

from dataclasses import dataclass

from graphlint.catalogue.model import DIVERGES, OK, Rule, Severity, fails, passes, traced

E, W, I = Severity.ERROR, Severity.WARNING, Severity.INFO
FAMILY = "loops"


@dataclass(frozen=True)
class UnrolledLoop:
    """What the loops checker knows of an unrolled loop, for the loop rewrite: the carried names whose shape
    grows in the body (``(name, op)``, op e.g. "concat"), which a real loop cannot carry."""

    shape_changes: tuple[tuple[str, str], ...] = ()

# message fields: {kind} = "`for` loop" / "`while` loop" / "list comprehension"; {count} = the trip
# count (product for nested loops); {depth} = the estimated call depth; {limit} = the recursion limit
# in force (1000, or what the module sets with mindspore.set_recursion_limit)
PYTHON_LOOP_EXCEEDS_CALL_DEPTH = Rule(
    id="E5901",
    symbol="python-loop-exceeds-call-depth",
    family=FAMILY,
    payload=UnrolledLoop,
    lax=E,
    strict=E,
    message=(
        "this {kind} is unrolled {count} times{assumed}, about {depth} compiler call levels (limit {limit}): "
        "use a `while` on a Tensor counter or ops.WhileLoop"
    ),
    summary=(
        "A loop that graph code unrolls (`for` over `range(<constant>)`, a tuple, a list or a CellList; "
        "`while` on a Python condition; a list comprehension) whose estimated unroll depth reaches "
        "MindSpore's call-depth limit."
    ),
    why=(
        "Each unrolled iteration nests the compiler's evaluation two levels deeper (three with one Tensor "
        "`if` in the body, and an inner loop of m iterations adds 2m + 2 per outer iteration). At 1000 "
        "levels compiling stops: a plain `for i in range(499)` fails, 498 compiles. Helper functions "
        "and sub-Cells called from the body do not count."
    ),
    mindspore_error=(
        "RuntimeError: Exceed function call depth limit 1000, (function call depth: 1001, simulate call "
        "depth: 1000)."
    ),
    fix=(
        "Write the loop as `i = Tensor(0, ms.int32)` / `while i < n: ...; i = i + 1` (compiled once, "
        "constant compile time) or with `ops.WhileLoop`; or, if unrolling is wanted, call "
        "`mindspore.set_recursion_limit(...)` before compiling. `--fix --unsafe-fixes` writes the "
        "Tensor-counter `while` for `for i in range(...)`; a loop that collects one carried Tensor per "
        "step (`outs.append(h)`, then `ops.stack(outs)`) gets a preallocated "
        "`outs = ops.zeros((n,) + h.shape, h.dtype)` written as `outs[i] = h`."
    ),
    flagged=(
        fails(
            """
            class Net(nn.Cell):
                def construct(self, x):
                    for i in range(499):
                        x = x + 1
                    return x
            """,
            error="Exceed function call depth limit 1000",
            title="`for i in range(N)` with N >= 499",
            lines=3,
            fixed="""
                class Net(nn.Cell):
                    def construct(self, x):
                        i = Tensor(0, ms.int32)
                        while i < 499:
                            x = x + 1
                            i = i + 1
                        return x
            """,
        ),
        fails(
            """
            class Net(nn.Cell):
                def construct(self, x):
                    for i in range(50):
                        for j in range(10):
                            x = x + 1
                    return x
            """,
            error="Exceed function call depth limit 1000",
            title="nested `for` loops (50 x 10)",
            lines=3,
            fixed="""
                class Net(nn.Cell):
                    def construct(self, x):
                        i = Tensor(0, ms.int32)
                        while i < 50:
                            for j in range(10):
                                x = x + 1
                            i = i + 1
                        return x
            """,
        ),
        fails(
            """
            @ms.jit
            def f(x):
                i = 0
                while i < 500:
                    x = x + 1
                    i += 1
                return x
            """,
            error="Exceed function call depth limit 1000",
            entry="f",
            title="`while` on a Python int counter",
            lines=4,
        ),
        fails(
            """
            class Net(nn.Cell):
                def construct(self, x):
                    for i in range(340):
                        if x.sum() > 0:
                            x = x - 1
                        else:
                            x = x + 1
                    return x
            """,
            error="Exceed function call depth limit 1000",
            title="`for` with a Tensor `if` in the body",
            timeout=600.0,
            lines=3,
        ),
        fails(
            """
            class Net(nn.Cell):
                def __init__(self, dim=16, n_steps=800):
                    super().__init__()
                    self.dim = dim
                    self.n_steps = n_steps

                def construct(self, x):
                    for _ in range(self.n_steps):
                        x = x * 0.5 + 1
                    return x
            """,
            error="Exceed function call depth limit",
            title="`for` over `range(self.n_steps)` set from an `__init__` default",
            lines=8,
            fields={"count": 800, "assumed": " (with the default n_steps=800)"},
            fixed="""
                class Net(nn.Cell):
                    def __init__(self, dim=16, n_steps=800):
                        super().__init__()
                        self.dim = dim
                        self.n_steps = n_steps

                    def construct(self, x):
                        _ = Tensor(0, ms.int32)
                        while _ < self.n_steps:
                            x = x * 0.5 + 1
                            _ = _ + 1
                        return x
            """,
        ),
    ),
    clean=(
        passes(
            """
            class Net(nn.Cell):
                def construct(self, x):
                    i = Tensor(0, ms.int32)
                    while i < 600:
                        x = x + 1
                        i = i + 1
                    return x
            """,
        ),
        passes(
            # near miss: the helper's own loop does not deepen the caller's loop (200 x 2, not 200 x 24)
            """
            def step(x):
                for j in range(10):
                    x = x * 0.5 + 1
                return x

            class Net(nn.Cell):
                def construct(self, x):
                    for i in range(200):
                        x = step(x)
                    return x
            """,
        ),
        passes(
            # near miss: the module raises the limit before compiling
            """
            ms.set_recursion_limit(2000)

            class Net(nn.Cell):
                def construct(self, x):
                    for i in range(600):
                        x = x + 1
                    return x
            """,
        ),
    ),
)


# message fields: {kind} (as above); {count} = trip count (product for nested loops); {threshold} =
# the configured unroll-warn value
PYTHON_LOOP_UNROLLS = Rule(
    id="W5902",
    symbol="python-loop-unrolls",
    family=FAMILY,
    payload=UnrolledLoop,
    lax=W,
    strict=W,
    message=(
        "this {kind} is unrolled {count} times{assumed} at compile time (more than {threshold}): compile time "
        "grows with the trip count; use a `while` on a Tensor counter or ops.WhileLoop"
    ),
    summary=(
        "A loop that graph code unrolls whose trip count (the product of the trip counts for nested "
        "loops) exceeds the configured `unroll-warn` threshold (default 64), below the call-depth limit."
    ),
    why=(
        "The unrolled graph holds one copy of the body per iteration, so compile time grows linearly: "
        "on a shared 2-core CPU machine `for i in range(N): x = x + 1` compiled in 0.5 s (N=10), 1.4 s "
        "(100) and 3.5 s (300); with a Tensor `if` in the body 1.1 s, 7.3 s and 29 s. A `while` on a "
        "Tensor counter compiled in 0.3-0.7 s for every N up to 1000. Loops over a few layers "
        "(`for layer in self.layers`) are normal and below the threshold."
    ),
    fix=(
        "For long loops use `while i < n` with `i = Tensor(0, ms.int32)` and `i = i + 1`, or "
        "`ops.WhileLoop`; raise `unroll-warn` in `[tool.graphlint]` if the unrolled graph is wanted "
        "(it runs faster than a rolled loop)."
    ),
    flagged=(
        passes(
            """
            class Net(nn.Cell):
                def construct(self, x):
                    for i in range(100):
                        x = x * 0.5 + 1
                    return x
            """,
            title="`for i in range(N)` with N > 64",
            lines=3,
            fixed="""
                class Net(nn.Cell):
                    def construct(self, x):
                        i = Tensor(0, ms.int32)
                        while i < 100:
                            x = x * 0.5 + 1
                            i = i + 1
                        return x
            """,
        ),
        passes(
            """
            class Net(nn.Cell):
                def construct(self, x):
                    for i in range(10):
                        for j in range(10):
                            x = x * 0.5 + 1
                    return x
            """,
            title="nested loops whose trip counts multiply past 64",
            lines=3,
            fixed="""
                class Net(nn.Cell):
                    def construct(self, x):
                        i = Tensor(0, ms.int32)
                        while i < 10:
                            for j in range(10):
                                x = x * 0.5 + 1
                            i = i + 1
                        return x
            """,
        ),
    ),
    clean=(
        passes(
            """
            class Net(nn.Cell):
                def __init__(self):
                    super().__init__()
                    self.layers = nn.CellList([nn.Dense(3, 3, weight_init="ones") for _ in range(4)])

                def construct(self, x):
                    for layer in self.layers:
                        x = ops.relu(layer(x)) * 0.1
                    return x
            """,
        ),
        passes(
            """
            class Net(nn.Cell):
                def construct(self, x):
                    i = Tensor(0, ms.int32)
                    while i < 100:
                        x = x * 0.5 + 1
                        i = i + 1
                    return x
            """,
        ),
    ),
)


# message fields: {name} = the carried variable; {op} = the call that changes its shape
# (e.g. "ops.concat")
TENSOR_WHILE_CARRY_CHANGES_SHAPE = Rule(
    id="E5903",
    symbol="tensor-while-carry-changes-shape",
    family=FAMILY,
    lax=E,
    strict=E,
    message=(
        "`{name}` changes shape in this `while` on a Tensor condition ({op}): preallocate it at its final "
        "shape and write into it by index"
    ),
    summary=(
        "A `while` whose condition depends on a Tensor (so it is compiled as a real loop) reassigns a "
        "loop-carried Tensor with a value of another shape: `ops.concat`/`ops.cat`, `ops.stack`, "
        "`ops.tile`, `expand_dims`/`unsqueeze` of itself."
    ),
    why=(
        "A compiled loop needs one abstract shape for its state. MindSpore re-specialises the loop for "
        "each new shape it infers and never reaches a fixed point: compiling stops with `Exceed function "
        "call depth limit 1000` (concat, stack, expand_dims) or with `For Tile, the shape of outputs[0] "
        "... is too big` (tile doubles the shape until it overflows). PYNATIVE_MODE runs it. The same "
        "code with a Python condition (`while i < 3` on an int) is unrolled and compiles."
    ),
    mindspore_error=(
        "RuntimeError: Exceed function call depth limit 1000, (function call depth: 1001, simulate call "
        "depth: 501)."
    ),
    fix=(
        "Allocate the result at its final size before the loop and write rows by index "
        "(`buf[i] = row`), or keep a Python loop bound when the trip count is a constant."
    ),
    flagged=(
        fails(
            """
            class Net(nn.Cell):
                def construct(self, x):
                    i = Tensor(0, ms.int32)
                    y = x
                    while i < 3:
                        y = ops.concat((y, x), 0)
                        i = i + 1
                    return y
            """,
            fixed="""
            class Net(nn.Cell):
                def construct(self, x):
                    i = 0
                    y = x
                    while i < 3:
                        y = ops.concat((y, x), 0)
                        i = i + 1
                    return y
            """,
            error="Exceed function call depth limit 1000",
            title="`ops.concat` onto the carry of a Tensor `while`",
            lines=6,
        ),
        fails(
            """
            class Net(nn.Cell):
                def construct(self, x):
                    y = x
                    while y.sum() < 100:
                        y = ops.stack((y, y + 1), 0)
                    return y
            """,
            error="Exceed function call depth limit 1000",
            title="`ops.stack` in a `while` on a Tensor condition",
            lines=5,
        ),
        fails(
            """
            class Net(nn.Cell):
                def construct(self, x):
                    i = Tensor(0, ms.int32)
                    y = x
                    while i < 3:
                        y = ops.tile(y, (2, 1))
                        i = i + 1
                    return y
            """,
            fixed="""
            class Net(nn.Cell):
                def construct(self, x):
                    i = 0
                    y = x
                    while i < 3:
                        y = ops.tile(y, (2, 1))
                        i = i + 1
                    return y
            """,
            error="is too big",
            title="`ops.tile` of the carry",
            lines=6,
        ),
    ),
    clean=(
        passes(
            """
            class Net(nn.Cell):
                def construct(self, x):
                    i = Tensor(0, ms.int32)
                    buf = ops.zeros((4, 3), ms.float32)
                    while i < 3:
                        buf[i] = x[0] * 1.0
                        i = i + 1
                    return buf
            """,
        ),
        passes(
            # near miss: concat of two slices keeps the shape
            """
            class Net(nn.Cell):
                def construct(self, x):
                    i = Tensor(0, ms.int32)
                    y = x
                    while i < 3:
                        y = ops.concat((y[1:], y[:1]), 0)
                        i = i + 1
                    return y
            """,
        ),
        passes(
            # near miss: a Python condition unrolls the loop, each copy has its own shape
            """
            class Net(nn.Cell):
                def construct(self, x):
                    i = 0
                    y = x
                    while i < 3:
                        y = ops.concat((y, x), 0)
                        i = i + 1
                    return y
            """,
        ),
    ),
)


RANGE_OF_TENSOR = Rule(
    id="E5904",
    symbol="range-of-tensor",
    family=FAMILY,
    lax=E,
    strict=E,
    trace=E,
    trace_message=(
        "`range()` of a Tensor (`{arg}`) runs as many steps as on the first call: the trace records that many"
        " iterations for every later call; loop over a Python int, or compute without the loop"
    ),
    message="`range()` of a Tensor (`{arg}`) is not supported in graph code: its bounds must be Python ints; loop "
            "with a Tensor counter (`i = ops.zeros((), ms.int32)`; `while i < n: ...; i = i + 1`)",
    summary="`range(n)` in graph code where `n` is a Tensor (or computed from one).",
    why=(
        "In graph code `range` builds a constant sequence while compiling (`make_range`), so its arguments must "
        "be Python ints known then. A Tensor bound stops compilation at every level: \"For 'make_range', the 0th "
        "input should be a int scalar but got AbstractTensor\"."
    ),
    mindspore_error="TypeError: For 'make_range', the 0th input should be a int scalar but got AbstractTensor(...)",
    fix="Write a Tensor-counter `while i < n:` loop (compiled as a real loop), or pass the bound as a Python int.",
    flagged=(
        traced(
            """
            @ms.jit(capture_mode="trace")
            def fn(x):
                y = x
                for _ in range((x > 0).sum()):
                    y = y + 1
                return y
            """,
            trace=DIVERGES,
            title="`range()` of a Tensor in a traced function",
            lines=4,
        ),
        fails(
            """
            class Net(nn.Cell):
                def construct(self, x):
                    n = (x.sum() * 0 + 3).astype(ms.int32)
                    y = x
                    for i in range(n):
                        y = y + 1
                    return y
            """,
            error="For 'make_range', the 0th input should be a int scalar",
            title="`range()` of a Tensor",
            lines=5,
            fields={"arg": "n"},
            fixed="""
            class Net(nn.Cell):
                def construct(self, x):
                    n = (x.sum() * 0 + 3).astype(ms.int32)
                    y = x
                    i = Tensor(0, ms.int32)
                    while i < n:
                        y = y + 1
                        i = i + 1
                    return y
            """,
        ),
        fails(
            """
            class Net(nn.Cell):
                def construct(self, x, steps):
                    y = x
                    for _ in range(steps):
                        y = y * 2
                    return y


            if __name__ == "__main__":
                print(Net()(Tensor(np.ones((2, 3), np.float32)), Tensor(3, ms.int32)))
            """,
            error="should be a int scalar",
            inputs="(Tensor(np.ones((2, 3), np.float32)), Tensor(3, ms.int32))",
            title="`range()` of a Tensor the module passes in",
            lines=4,
            fields={"arg": "steps"},
            fixed="""
            class Net(nn.Cell):
                def construct(self, x, steps):
                    y = x
                    _ = Tensor(0, ms.int32)
                    while _ < steps:
                        y = y * 2
                        _ = _ + 1
                    return y


            if __name__ == "__main__":
                print(Net()(Tensor(np.ones((2, 3), np.float32)), Tensor(3, ms.int32)))
            """,
        ),
        fails(
            """
            class Net(nn.Cell):
                def construct(self, x, steps):
                    y = x
                    for _ in range(steps):
                        y = y * 2
                    return y
            """,
            error="should be a int scalar",
            inputs="(Tensor(np.ones((2, 3), np.float32)), Tensor(3, ms.int32))",
            title="`range()` of an argument no call in the module describes",
            lines=4,
            fields={"arg": "steps"},
            assumes="`steps` is a Tensor",
            fixed="""
            class Net(nn.Cell):
                def construct(self, x, steps):
                    y = x
                    _ = Tensor(0, ms.int32)
                    while _ < steps:
                        y = y * 2
                        _ = _ + 1
                    return y
            """,
        ),
    ),
    clean=(
        traced(
            """
            @ms.jit(capture_mode="trace")
            def fn(x):
                return x + (x > 0).sum()
            """,
            trace=OK,
        ),
        passes(
            """
            class Net(nn.Cell):
                def construct(self, x, steps):
                    y = x
                    for _ in range(steps):
                        y = y * 2
                    return y


            if __name__ == "__main__":
                print(Net()(Tensor(np.ones((2, 3), np.float32)), 3))
            """,
            inputs="(Tensor(np.ones((2, 3), np.float32)), 3)",
        ),
        passes(
            """
            class Net(nn.Cell):
                def construct(self, x):
                    n = (x.sum() * 0 + 3).astype(ms.int32)
                    i = ops.zeros((), ms.int32)
                    y = x
                    while i < n:
                        y = y + 1
                        i = i + 1
                    for j in range(x.shape[0]):
                        y = y + j
                    return y
            """,
        ),
    ),
)


# message fields: {iterable} - the sliced Tensor as written
LOOP_OVER_RUNTIME_SLICE = Rule(
    id="E5905",
    symbol="loop-over-runtime-slice",
    family=FAMILY,
    lax=E,
    strict=E,
    message="`for` over `{iterable}`, a Tensor computed in the graph and sliced to a length known only at run time: "
            "graph mode unrolls the loop over the Tensor's full static length, and the steps past the bound fail; "
            "loop over the full length and mask the steps past the bound",
    summary="A `for` loop over a slice `y[:n]` of a Tensor computed inside the graph (`y = feats[b]`, `y = x * 2`) "
            "whose bound `n` is a run-time value (`int(lengths[b])`, a Tensor).",
    why=(
        "A `for` over a Tensor is unrolled while compiling, one step per row of its static shape. A slice bounded "
        "by a run-time value has a dynamic length, and for a Tensor computed in the graph MindSpore 2.10 unrolls "
        "the loop over the length the Tensor had before slicing: the first step past the bound stops the graph "
        "with \"For 'StridedSlice', ... 'begin[0]' must be in [-2, 2)\" at both levels (measured). PYNATIVE runs "
        "the loop `n` times. Slicing a graph input directly (`x[:n]`, `feats[b, :n]`) compiled and ran correctly "
        "in the same measurements."
    ),
    mindspore_error="IndexError: For 'StridedSlice', the 'strides[0]' cannot be negative number and 'begin[0]' must "
                    "be in [-2, 2) when 'shrink_axis_mask' is greater than 0, but got 'strides[0]': 1, 'begin[0]': 2.",
    fix="Loop over the full static length and mask the rows past the bound (`keep = ops.arange(y.shape[0]) < n`, "
        "then `ops.where(keep[i], row, 0)`), or reduce without a loop (`(y * keep[:, None]).sum(0)`).",
    flagged=(
        fails(
            """
            class Net(nn.Cell):
                def construct(self, feats):
                    total = feats[0, 0] * 0
                    n = int((feats[1, :, 0] > 0).sum())
                    rows = feats[1]
                    for row in rows[:n]:
                        total = total + row
                    return total
            """,
            error="For 'StridedSlice'",
            inputs="(Tensor(np.array([[[1., 2.], [3., 4.], [5., 6.]], [[1., 2.], [3., 4.], [-5., 6.]]], "
                   "np.float32)),)",
            title="`for` over a run-time slice of a computed Tensor",
            lines=6,
            fields={"iterable": "rows[:n]"},
        ),
        fails(
            """
            class Tagger(nn.Cell):
                def construct(self, feats, lengths):
                    scores = []
                    for b in range(feats.shape[0]):
                        n = int(lengths[b])
                        for step in feats[b][:n]:
                            scores.append(step.sum())
                    return scores


            if __name__ == "__main__":
                print(Tagger()(Tensor(np.ones((2, 4, 3), np.float32)), Tensor(np.array([2, 3], np.int32))))
            """,
            error="For 'StridedSlice'",
            entry="Tagger",
            inputs="(Tensor(np.ones((2, 4, 3), np.float32)), Tensor(np.array([2, 3], np.int32)))",
            title="per-sequence loop up to each length (a PyTorch habit)",
            lines=6,
            fields={"iterable": "feats[b][:n]"},
        ),
    ),
    clean=(
        passes(
            """
            class Net(nn.Cell):
                def construct(self, feats):
                    n = (feats[1, :, 0] > 0).sum()
                    rows = feats[1]
                    keep = (ops.arange(rows.shape[0]) < n).astype(rows.dtype)
                    return (rows * keep[:, None]).sum(0)
            """,
            inputs="(Tensor(np.array([[[1., 2.], [3., 4.], [5., 6.]], [[1., 2.], [3., 4.], [-5., 6.]]], "
                   "np.float32)),)",
        ),
        passes(
            """
            class Net(nn.Cell):
                def construct(self, x):
                    total = x[0] * 0
                    n = int((x[:, 0] > 0).sum())
                    for row in x[:n]:
                        total = total + row
                    return total
            """,
            inputs="(Tensor(np.array([[1., 2.], [3., 4.], [-5., 6.]], np.float32)),)",
            title="`for` over a run-time slice of a graph input",
        ),
    ),
)


RULES = (
    PYTHON_LOOP_EXCEEDS_CALL_DEPTH,
    PYTHON_LOOP_UNROLLS,
    TENSOR_WHILE_CARRY_CHANGES_SHAPE,
    RANGE_OF_TENSOR,
    LOOP_OVER_RUNTIME_SLICE,
)
