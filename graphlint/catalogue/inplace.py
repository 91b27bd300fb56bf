"""In-place updates of Tensors whose storage outlives the call.

``x += v`` (and ``-=``, ``*=``, ``/=``, ``//=``) on a Tensor is NOT in place in
PYNATIVE_MODE (MindSpore 2.10 rebinds ``x`` to a new Tensor), but the graph
compiler turns it into an in-place write into ``x``'s storage. When that storage
belongs to someone else - the caller's input, a Tensor or Parameter attribute
reached through an alias, or a constant Tensor that is part of the compiled
graph - GRAPH_MODE silently changes it. Item updates go the other way:
``x[i] += v`` / ``x[i] = v`` write into ``x`` in PYNATIVE_MODE but produce a
new Tensor in GRAPH_MODE. All of it was measured with MindSpore 2.10 (CPU).
"""

import textwrap

from graphlint.catalogue.model import Rule, Severity, diverges, passes

E, W, I = Severity.ERROR, Severity.WARNING, Severity.INFO
FAMILY = "inplace"

_SNAPSHOT_DRIVE = """
def drive(call, target, inputs):
    x = Tensor(np.arange(6, dtype=np.float32).reshape(2, 3))
    first = call(x).asnumpy()
    x_after_first = x.asnumpy().copy()
    second = call(x).asnumpy()
    return [first, x_after_first, second]
"""


def _snapshot(code: str, drive: str = _SNAPSHOT_DRIVE) -> str:
    """Example code followed by a drive that records the caller's tensor after the first call."""
    return textwrap.dedent(code).strip("\n") + "\n\n" + drive.strip("\n") + "\n"

# message fields: {name} - the argument, {op} - the operator without "=", e.g. "+"
AUGMENTED_ASSIGN_TO_INPUT = Rule(
    id="W5301",
    symbol="augmented-assign-to-input",
    family=FAMILY,
    since="2.8",  # measured: 2.7 rebinds like PYNATIVE_MODE
    lax=W,
    strict=W,
    message=(
        "`{name} {op}= ...` writes into the caller's tensor in GRAPH_MODE (PYNATIVE leaves it "
        "unchanged); write `{name} = {name} {op} ...`"
    ),
    summary=(
        "An augmented assignment (`+=`, `-=`, `*=`, `/=`, `//=`) whose target is a Tensor "
        "argument of `construct` or of a `@jit` function, before the name is rebound."
    ),
    why=(
        "In PYNATIVE_MODE `x += 1` creates a new Tensor and the caller's `x` is unchanged. The "
        "graph compiler turns it into an in-place update of the argument's storage, so GRAPH_MODE "
        "and `jit(fullgraph=True)` change the caller's tensor: measured with MindSpore 2.10, "
        "after `out = net(x)` with `x += 1` inside, `x` holds x+1, and calling again with the "
        "same `x` returns a different result (x*2+2 then x*2+4; a residual `x += "
        "self.dense(x)` returns 15..65 instead of 3..17 on the second call). The in-place form "
        "also keeps the input's dtype: an int32 `x += 0.5` returns int32 in GRAPH_MODE, float32 "
        "in PYNATIVE. `**=` is not affected (Tensor has no in-place power)."
    ),
    fix="Rebind instead of updating in place: `x = x + v` (what PYNATIVE_MODE does anyway).",
    flagged=(
        diverges(
            _snapshot("""
            class Net(nn.Cell):
                def construct(self, x):
                    x += 1
                    return x * 2
            """),
            title="`x += ...` on an argument",
            lines=3,
            fixed="""
                class Net(nn.Cell):
                    def construct(self, x):
                        x = x + 1
                        return x * 2

                def drive(call, target, inputs):
                    x = Tensor(np.arange(6, dtype=np.float32).reshape(2, 3))
                    first = call(x).asnumpy()
                    x_after_first = x.asnumpy().copy()
                    second = call(x).asnumpy()
                    return [first, x_after_first, second]
            """,
        ),
        diverges(
            _snapshot("""
            class Net(nn.Cell):
                def __init__(self):
                    super().__init__()
                    self.dense = nn.Dense(3, 3, weight_init="ones", bias_init="zeros")

                def construct(self, x):
                    x += self.dense(x)
                    return x
            """),
            title="residual `x += block(x)`",
            lines=7,
            fixed="""
                class Net(nn.Cell):
                    def __init__(self):
                        super().__init__()
                        self.dense = nn.Dense(3, 3, weight_init="ones", bias_init="zeros")

                    def construct(self, x):
                        x = x + self.dense(x)
                        return x

                def drive(call, target, inputs):
                    x = Tensor(np.arange(6, dtype=np.float32).reshape(2, 3))
                    first = call(x).asnumpy()
                    x_after_first = x.asnumpy().copy()
                    second = call(x).asnumpy()
                    return [first, x_after_first, second]
            """,
        ),
        diverges(
            _snapshot("""
            @ms.jit
            def step(x):
                x *= 2
                return x
            """),
            entry="step",
            title="`x *= ...` in a `@jit` function",
            lines=3,
            fixed="""
                @ms.jit
                def step(x):
                    x = x * 2
                    return x

                def drive(call, target, inputs):
                    x = Tensor(np.arange(6, dtype=np.float32).reshape(2, 3))
                    first = call(x).asnumpy()
                    x_after_first = x.asnumpy().copy()
                    second = call(x).asnumpy()
                    return [first, x_after_first, second]
            """,
        ),
    ),
    clean=(
        passes(
            _snapshot("""
            class Net(nn.Cell):
                def construct(self, x):
                    x = x + 1
                    return x * 2
            """),
        ),
        # The augmented target is a fresh result, not the argument.
        passes(
            _snapshot("""
            class Net(nn.Cell):
                def __init__(self):
                    super().__init__()
                    self.dense = nn.Dense(3, 3, weight_init="ones", bias_init="zeros")

                def construct(self, x):
                    out = self.dense(x)
                    out += x
                    y = x + 1
                    y *= 2
                    return out + y
            """),
        ),
        # A Python number argument is rebound, never shared (annotated, so a checker can tell).
        passes(
            """
            class Net(nn.Cell):
                def construct(self, x, n: int):
                    n += 1
                    return x * n

            def drive(call, target, inputs):
                x = inputs[0][0]
                return [call(x, 2), call(x, 2)]
            """,
        ),
    ),
)


# message fields: {name} - the local name, {op} - the operator without "="
AUGMENTED_ASSIGN_TO_CONSTANT_TENSOR = Rule(
    id="W5302",
    symbol="augmented-assign-to-constant-tensor",
    family=FAMILY,
    since="2.8",  # measured: 2.7 rebinds like PYNATIVE_MODE
    lax=W,
    strict=W,
    message=(
        "`{name} {op}= ...` mutates the constant Tensor `{name}` stored in the graph: the next "
        "call starts from the mutated value; write `{name} = {name} {op} ...`"
    ),
    summary=(
        "An augmented assignment on a name bound to a constant Tensor - `Tensor(...)` / "
        "`ms.Tensor(...)` created in graph code, or a module-level Tensor global - such as a "
        "`loss = Tensor(0.0)` accumulator or a `i = Tensor(0)` loop counter."
    ),
    why=(
        "A Tensor built from Python values in graph code is a constant of the compiled graph, "
        "created once. `+=` on it is compiled as an in-place update of that constant, so every "
        "call after the first starts from the previous call's result. Measured with MindSpore "
        "2.10 at both levels: `loss = Tensor(0.0); for ...: loss += x.sum()` returns 45 then 90 "
        "(PYNATIVE: 45, 45); a counter `i = Tensor(0); while i < n: ...; i += 1` runs the loop "
        "body 3 times on the first call and once on every later call (the counter starts at the "
        "previous call's 3, 4, 5, ...; the first `i < n` test was folded at compile time); the "
        "same for a module-level Tensor. Op results are fresh (`ops.zeros`, `ops.zeros_like`, "
        "`mint.zeros`, `ops.fill`, `x * 0` are safe), but `ops.ones_like(x)` was folded to a "
        "constant and mutated too."
    ),
    fix=(
        "Rebind instead of updating in place (`loss = loss + v`, `i = i + 1`), or count with a "
        "Python int when the bound is a Python value."
    ),
    flagged=(
        diverges(
            """
            class Net(nn.Cell):
                def construct(self, x):
                    loss = Tensor(0.0, ms.float32)
                    for i in range(3):
                        loss += x.sum()
                    return loss
            """,
            title="`acc = Tensor(0.0)` accumulator with `acc += ...`",
            lines=5,
            fixed="""
                class Net(nn.Cell):
                    def construct(self, x):
                        loss = Tensor(0.0, ms.float32)
                        for i in range(3):
                            loss = loss + x.sum()
                        return loss
            """,
        ),
        diverges(
            """
            class Net(nn.Cell):
                def construct(self, x):
                    i = Tensor(0, ms.int32)
                    n = Tensor(3, ms.int32)
                    while i < n:
                        x = x + 1
                        i += 1
                    return x
            """,
            title="Tensor loop counter `i += 1`",
            lines=7,
            fixed="""
                class Net(nn.Cell):
                    def construct(self, x):
                        i = Tensor(0, ms.int32)
                        n = Tensor(3, ms.int32)
                        while i < n:
                            x = x + 1
                            i = i + 1
                        return x
            """,
        ),
        diverges(
            """
            ZERO = Tensor(np.zeros((2, 3), np.float32))

            class Net(nn.Cell):
                def construct(self, x):
                    acc = ZERO
                    acc += x
                    return acc
            """,
            title="module-level Tensor with `+=`",
            lines=6,
            fixed="""
                ZERO = Tensor(np.zeros((2, 3), np.float32))

                class Net(nn.Cell):
                    def construct(self, x):
                        acc = ZERO
                        acc = acc + x
                        return acc
            """,
        ),
    ),
    clean=(
        passes(
            """
            class Net(nn.Cell):
                def construct(self, x):
                    loss = Tensor(0.0, ms.float32)
                    for i in range(3):
                        loss = loss + x.sum()
                    return loss
            """,
        ),
        passes(
            """
            class Net(nn.Cell):
                def construct(self, x):
                    i = Tensor(0, ms.int32)
                    n = Tensor(3, ms.int32)
                    while i < n:
                        x = x + 1
                        i = i + 1
                    return x
            """,
        ),
        # Fresh op results and Python numbers may be updated in place.
        passes(
            """
            class Net(nn.Cell):
                def construct(self, x):
                    acc = ops.zeros_like(x)
                    for i in range(3):
                        acc += x
                    total = ops.zeros((2, 3), ms.float32)
                    total += x
                    n = 0
                    for i in range(3):
                        n += 1
                    return acc + total * n
            """,
        ),
    ),
)


# message fields: {name} - the alias, {attr} - the attribute it aliases, {op} - the operator
AUGMENTED_ASSIGN_TO_ATTRIBUTE_ALIAS = Rule(
    id="W5303",
    symbol="augmented-assign-to-attribute-alias",
    family=FAMILY,
    since="2.8",  # measured: 2.7 rebinds like PYNATIVE_MODE
    lax=W,
    strict=W,
    message=(
        "`{name} {op}= ...` changes `self.{attr}` through the alias `{name}` in GRAPH_MODE "
        "(PYNATIVE does not); write `{name} = {name} {op} ...`"
    ),
    summary=(
        "A local name bound to a Tensor or Parameter attribute (`w = self.w`) and then updated "
        "with an augmented assignment (`w += ...`)."
    ),
    why=(
        "In PYNATIVE_MODE `w = self.w; w += 1` rebinds `w` and the attribute is unchanged. The "
        "graph compiler updates the aliased storage in place, so GRAPH_MODE and "
        "`jit(fullgraph=True)` change the attribute - a Parameter's value or a plain Tensor "
        "attribute - and the change accumulates over calls. Measured with MindSpore 2.10: after "
        "two calls of `b = self.bias; b += 1; return x + b` the attribute holds 3 (PYNATIVE: 1) "
        "and the second output is x+3 instead of x+2; the same for a Parameter alias. Writing "
        "`self.w += 1` directly on a Parameter is an intended, matching update (an assign at "
        "both levels) and is not reported."
    ),
    fix=(
        "Rebind (`w = w + v`). If the attribute is meant to change, make it a Parameter and "
        "update it explicitly with `ops.assign` / `ops.assign_add`."
    ),
    flagged=(
        diverges(
            """
            class Net(nn.Cell):
                def __init__(self):
                    super().__init__()
                    self.bias = Tensor(np.ones((2, 3), np.float32))

                def construct(self, x):
                    b = self.bias
                    b += 1
                    return x + b

            def drive(call, target, inputs):
                out = [call(*args) for args in inputs]
                out.append(target.bias)
                return out
            """,
            title="alias of a Tensor attribute with `+=`",
            lines=8,
            fixed="""
                class Net(nn.Cell):
                    def __init__(self):
                        super().__init__()
                        self.bias = Tensor(np.ones((2, 3), np.float32))

                    def construct(self, x):
                        b = self.bias
                        b = b + 1
                        return x + b

                def drive(call, target, inputs):
                    out = [call(*args) for args in inputs]
                    out.append(target.bias)
                    return out
            """,
        ),
        diverges(
            """
            class Net(nn.Cell):
                def __init__(self):
                    super().__init__()
                    self.w = Parameter(Tensor(np.ones((2, 3), np.float32)), name="w", requires_grad=False)

                def construct(self, x):
                    w = self.w
                    w += 1
                    return x + w

            def drive(call, target, inputs):
                out = [call(*args) for args in inputs]
                out.append(target.w.value())
                return out
            """,
            title="alias of a Parameter with `+=`",
            lines=8,
            fixed="""
                class Net(nn.Cell):
                    def __init__(self):
                        super().__init__()
                        self.w = Parameter(Tensor(np.ones((2, 3), np.float32)), name="w", requires_grad=False)

                    def construct(self, x):
                        w = self.w
                        w = w + 1
                        return x + w

                def drive(call, target, inputs):
                    out = [call(*args) for args in inputs]
                    out.append(target.w.value())
                    return out
            """,
        ),
    ),
    clean=(
        passes(
            """
            class Net(nn.Cell):
                def __init__(self):
                    super().__init__()
                    self.bias = Tensor(np.ones((2, 3), np.float32))

                def construct(self, x):
                    b = self.bias
                    b = b + 1
                    return x + b

            def drive(call, target, inputs):
                out = [call(*args) for args in inputs]
                out.append(target.bias)
                return out
            """,
        ),
        # Explicit Parameter updates match PYNATIVE at both levels.
        passes(
            """
            class Net(nn.Cell):
                def __init__(self):
                    super().__init__()
                    self.w = Parameter(Tensor(np.ones((2, 3), np.float32)), name="w", requires_grad=False)
                    self.steps = Parameter(Tensor(0, ms.int32), name="steps", requires_grad=False)

                def construct(self, x):
                    self.w += 1
                    ops.assign_add(self.steps, Tensor(1, ms.int32))
                    return x + self.w

            def drive(call, target, inputs):
                out = [call(*args) for args in inputs]
                out.append(target.w.value())
                out.append(target.steps.value())
                return out
            """,
        ),
    ),
)


# message fields: {name} - the argument, {op} - "" for `x[i] = v`, else the operator, e.g. "+"
ITEM_UPDATE_OF_INPUT = Rule(
    id="W5304",
    symbol="item-update-of-input",
    family=FAMILY,
    lax=W,
    strict=W,
    message=(
        "`{name}[...] {op}= ...` changes the caller's tensor in PYNATIVE but not in GRAPH_MODE; "
        "copy first (`{name} = {name}.copy()`) and return the result"
    ),
    summary=(
        "An item assignment or augmented item assignment (`x[i] = v`, `x[i] += v`) whose target "
        "is a Tensor argument of `construct` or of a `@jit` function."
    ),
    why=(
        "Here the two modes disagree the other way round: PYNATIVE_MODE writes into the caller's "
        "tensor (and a returned `x` is that same object), while GRAPH_MODE and "
        "`jit(fullgraph=True)` compute a new Tensor and leave the caller's unchanged. Measured "
        "with MindSpore 2.10: after `x[0] += 1` the caller's x holds 1, 2, 3 in row 0 in "
        "PYNATIVE and 0, 1, 2 in GRAPH_MODE, and a second call with the same x returns "
        "different results. Item updates of a Tensor created in graph code (`out = "
        "Tensor(np.zeros(3)); out[i] = ...`, `y = x * 1; y[0] = 7`) or of a copy match at "
        "both levels and are not reported."
    ),
    fix=(
        "Work on a copy and return it: `y = x.copy(); y[0] += 1; return y` (or build the "
        "result with `ops.tensor_scatter_elements` / `ops.concat`)."
    ),
    flagged=(
        diverges(
            _snapshot("""
            class Net(nn.Cell):
                def construct(self, x):
                    x[0] += 1
                    return x * 1
            """),
            title="`x[i] += ...` on an argument",
            lines=3,
        ),
        diverges(
            _snapshot("""
            class Net(nn.Cell):
                def construct(self, x):
                    x[0] = 7.0
                    return x * 1
            """),
            title="`x[i] = ...` on an argument",
            lines=3,
        ),
    ),
    clean=(
        passes(
            _snapshot("""
            class Net(nn.Cell):
                def construct(self, x):
                    y = x.copy()
                    y[0] += 1
                    return y
            """),
        ),
        passes(
            """
            class Net(nn.Cell):
                def construct(self, x):
                    out = Tensor(np.zeros((3,), np.float32))
                    for i in range(3):
                        out[i] = x[0, i] * 2
                    y = x * 1
                    y[1] += 1
                    return out, y

            def drive(call, target, inputs):
                x = Tensor(np.arange(6, dtype=np.float32).reshape(2, 3))
                first = [t.asnumpy() for t in call(x)]
                x_after_first = x.asnumpy().copy()
                second = [t.asnumpy() for t in call(x)]
                return [first, x_after_first, second]
            """,
        ),
    ),
)


RULES = (
    AUGMENTED_ASSIGN_TO_INPUT,
    AUGMENTED_ASSIGN_TO_CONSTANT_TENSOR,
    AUGMENTED_ASSIGN_TO_ATTRIBUTE_ALIAS,
    ITEM_UPDATE_OF_INPUT,
)
