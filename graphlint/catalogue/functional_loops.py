"""Misuse of MindSpore's functional loops: ``ops.WhileLoop``, ``ops.ForiLoop`` and ``ops.Scan``.

These primitives (experimental in MindSpore 2.10) turn a Python loop body into a
subgraph that the compiler runs as a real loop (``WhileLoop``, ``ForiLoop(...,
unroll=False)``, ``Scan(..., unroll=False)``) or unrolls (``ForiLoop`` and
``Scan`` by default). Their bodies are compiled apart from the function that
calls them, and that is where most of the failures below come from.

Call forms (MindSpore 2.10):

* ``ops.WhileLoop()(cond_func, loop_func, init_val)``: ``cond_func(val)``,
  ``loop_func(val) -> val``;
* ``ops.ForiLoop()(lower, upper, loop_func, init_val, unroll=True)``:
  ``loop_func(i, val) -> val``;
* ``ops.Scan()(loop_func, init, xs, length=None, unroll=True)``:
  ``loop_func(carry, x) -> (carry, y)``; ``xs`` is a tuple/list or ``None``
  (``None`` with ``length=`` does not run in PYNATIVE_MODE: MindSpore's own
  type check raises ``isinstance() arg 2 must be a type``).
"""

from dataclasses import dataclass

from graphlint.catalogue.model import CRASHES, FAILS, OK, SKIP, Example, Rule, Severity, fails, passes

E, W, I = Severity.ERROR, Severity.WARNING, Severity.INFO
FAMILY = "functional_loops"


@dataclass(frozen=True)
class NestedBody:
    """One nested body of the call, for the move-to-module-level rewrite."""

    node: object  # the astroid FunctionDef or Lambda
    name: str  # as passed ("body", "lambda")
    enclosing_reads: tuple[str, ...]  # names it reads that the functions around it bind (literals included)


@dataclass(frozen=True)
class NestedBodies:
    """The nested bodies of one functional loop call."""

    bodies: tuple[NestedBody, ...]

# message fields: {op} = "WhileLoop" / "ForiLoop" / "Scan"; {func} = the body's name; {names} = the
# captured names, comma separated
FUNCTIONAL_LOOP_BODY_CLOSURE = Rule(
    id="E5401",
    symbol="functional-loop-body-closure",
    family=FAMILY,
    lax=E,
    strict=E,
    message=(
        "`{func}` passed to ops.{op} is defined inside graph code and uses {names} from outside it; "
        "define it at module level (or as a Cell method) and pass tensors through the loop carry"
    ),
    summary=(
        "The `cond_func`/`loop_func` of `ops.WhileLoop`, `ops.ForiLoop` or `ops.Scan` is a nested "
        "function or lambda, defined inside graph code, that refers to a name of the enclosing function "
        "(a Tensor argument, a local computed in graph code, a Parameter) or to a module global "
        "(`ops`, a helper function, a constant)."
    ),
    why=(
        "The loop body is compiled as a separate subgraph. A nested body's free variables are nodes of the "
        "enclosing graph (or names it resolves), and MindSpore 2.10 cannot take them into the loop "
        "subgraph: compilation stops with an internal error that depends on the primitive and on what is "
        "captured: `Illegal AnfNode for evaluating` (a captured argument), `The object is not callable` "
        "(WhileLoop, a captured local or global), `The pointer[cnode_abs] is null` (ForiLoop/Scan with "
        "unroll=False), `For 'scan', input[0] should be Function` (ForiLoop), `The pointer[f_node] is null` "
        "(Scan). The same body defined at module level, or as a method of the Cell, compiles. From a "
        "nested body only names bound to literal constants in the enclosing function (`k = 2.0`) and "
        "`self.<python scalar>` work everywhere; the default (unrolled) Scan also accepts module globals "
        "such as `ops`, but not captured Tensors. The behaviour is the same in `Cell.construct` and in "
        "`@jit` functions."
    ),
    mindspore_error="RuntimeError: Illegal AnfNode for evaluating, node: @...:param_x(type:Parameter)",
    fix=(
        "Move the body to module level or make it a method of the Cell (`self.body`: methods may use "
        "`self.<Parameter>` and sub-Cells in WhileLoop), and pass every Tensor it needs through "
        "`init_val` (the carry), returning it unchanged."
    ),
    payload=NestedBodies,
    flagged=(
        fails(
            """
            class Net(nn.Cell):
                def construct(self, x):
                    def cond(c):
                        return c[0] < 3
                    def body(c):
                        i, y = c
                        return i + 1, y + x
                    return ops.WhileLoop()(cond, body, (Tensor(0, ms.int32), x))[1]
            """,
            fixed="""
            class Net(nn.Cell):
                def construct(self, x):
                    def cond(c):
                        return c[0] < 3
                    def body(c):
                        i, y = c
                        return i + 1, y + x
                    carry = (Tensor(0, ms.int32), x)
                    while cond(carry):
                        carry = body(carry)
                    return carry[1]
            """,
            fix_safety="unsafe",
            error="Illegal AnfNode for evaluating",
            title="nested WhileLoop body captures a Tensor argument",
            lines=8,
        ),
        fails(
            """
            class Net(nn.Cell):
                def construct(self, x):
                    def cond(c):
                        return c[0] < 3
                    def body(c):
                        i, y = c
                        return i + 1, ops.relu(y - 1)
                    return ops.WhileLoop()(cond, body, (Tensor(0, ms.int32), x))[1]
            """,
            error="The object is not callable",
            title="nested WhileLoop body uses a module global (`ops`)",
            lines=8,
            fixed="""
            def cond(c):
                return c[0] < 3

            def body(c):
                i, y = c
                return i + 1, ops.relu(y - 1)

            class Net(nn.Cell):
                def construct(self, x):
                    return ops.WhileLoop()(cond, body, (Tensor(0, ms.int32), x))[1]
            """,
        ),
        fails(
            """
            @ms.jit
            def f(x):
                def body(i, y):
                    return ops.relu(y - 1)
                return ops.ForiLoop()(0, 3, body, x, unroll=False)
            """,
            error="The pointer[cnode_abs] is null",
            entry="f",
            title="nested ForiLoop body in a `@jit` function uses a module global",
            lines=5,
            fixed="""
            def body(i, y):
                return ops.relu(y - 1)

            @ms.jit
            def f(x):
                return ops.ForiLoop()(0, 3, body, x, unroll=False)
            """,
        ),
        fails(
            """
            class Net(nn.Cell):
                def construct(self, x):
                    def body(y, el):
                        return y + x * el, y
                    return ops.Scan()(body, x, [1.0, 2.0, 3.0])[0]
            """,
            fixed="""
            class Net(nn.Cell):
                def construct(self, x):
                    def body(y, el):
                        return y + x * el, y
                    carry = x
                    for element in [1.0, 2.0, 3.0]:
                        carry, y_2 = body(carry, element)
                    return carry
            """,
            fix_safety="unsafe",
            error="The pointer[f_node] is null",
            title="nested Scan body captures a Tensor argument",
            lines=5,
        ),
    ),
    clean=(
        passes(
            """
            def cond(c):
                return c[0] < 3

            def body(c):
                i, y, x = c
                return i + 1, ops.relu(y - 1) + x, x

            class Net(nn.Cell):
                def construct(self, x):
                    return ops.WhileLoop()(cond, body, (Tensor(0, ms.int32), x, x))[1]
            """,
        ),
        passes(
            # near miss: an unrolled Scan (the default) tolerates module globals in a nested body
            # (a captured Tensor still fails there)
            """
            class Net(nn.Cell):
                def construct(self, x):
                    def body(y, el):
                        return ops.relu(y * el - 1), y
                    return ops.Scan()(body, x, [2.0, 2.0, 2.0])[0]
            """,
        ),
        passes(
            """
            class Net(nn.Cell):
                def construct(self, x):
                    k = 2.0
                    def cond(c):
                        return c[0] < 3
                    def body(c):
                        i, y = c
                        return i + 1, y * k
                    return ops.WhileLoop()(cond, body, (Tensor(0, ms.int32), x))[1]
            """,
        ),
        passes(
            """
            class Net(nn.Cell):
                def __init__(self):
                    super().__init__()
                    self.w = Parameter(Tensor(np.full((2, 3), 0.5, np.float32)), name="w")
                    self.dense = nn.Dense(3, 3, weight_init="ones", bias_init="zeros")

                def cond(self, c):
                    return c[0] < 3

                def body(self, c):
                    i, y = c
                    return i + 1, self.dense(y) * self.w

                def construct(self, x):
                    return ops.WhileLoop()(self.cond, self.body, (Tensor(0, ms.int32), x))[1]
            """,
        ),
    ),
)


# message fields: {op}, {func}, {param} = the Parameter written (e.g. "self.w")
FUNCTIONAL_LOOP_CLOSURE_WRITES_PARAMETER = Rule(
    id="E5402",
    symbol="functional-loop-closure-writes-parameter",
    family=FAMILY,
    lax=E,
    strict=E,
    message=(
        "`{func}` is a nested function that writes Parameter `{param}` inside ops.{op}: "
        "this crashes the process (SIGSEGV); make the body a Cell method"
    ),
    summary=(
        "A nested function or lambda defined inside graph code, used as the `loop_func` of "
        "`ops.WhileLoop`/`ops.ForiLoop`/`ops.Scan`, assigns a Parameter (`ops.assign`, `assign_add`, "
        "`param += ...`)."
    ),
    why=(
        "Compiling a WhileLoop whose nested body writes a Parameter (taken from `self`, from a local "
        "alias `w = self.w`, or a module-level Parameter in a `@jit` function) kills the Python process "
        "with a segmentation fault in MindSpore 2.10, at both syntax levels: no exception, no traceback, "
        "the training script just dies."
    ),
    mindspore_error="Segmentation fault (the process is killed by SIGSEGV while compiling)",
    fix=(
        "Write the Parameter from a method of the Cell (`ops.WhileLoop()(self.cond, self.body, init)` "
        "with `ops.assign(self.w, ...)` in `body` works), or return the new value through the carry and "
        "assign it after the loop."
    ),
    flagged=(
        Example(
            """
            class Net(nn.Cell):
                def __init__(self):
                    super().__init__()
                    self.w = Parameter(Tensor(np.zeros((2, 3), np.float32)), name="w")

                def construct(self, x):
                    def cond(c):
                        return c[0] < 3
                    def body(c):
                        i, y = c
                        ops.assign(self.w, y)
                        return i + 1, y * 2
                    y = ops.WhileLoop()(cond, body, (Tensor(0, ms.int32), x))[1]
                    return y + self.w
            """,
            lax=CRASHES,
            strict=SKIP,  # the process is gone after the lax run; STRICT alone crashes too (see notes)
            title="nested WhileLoop body assigns a Parameter",
            lines=13,
        ),
    ),
    clean=(
        passes(
            """
            class Net(nn.Cell):
                def __init__(self):
                    super().__init__()
                    self.w = Parameter(Tensor(np.zeros((2, 3), np.float32)), name="w")

                def cond(self, c):
                    return c[0] < 3

                def body(self, c):
                    i, y = c
                    ops.assign(self.w, y)
                    return i + 1, y * 2

                def construct(self, x):
                    y = ops.WhileLoop()(self.cond, self.body, (Tensor(0, ms.int32), x))[1]
                    return y + self.w
            """,
        ),
    ),
)


# message fields: {op} = "ForiLoop" / "Scan"; {func}; {what} = e.g. "Parameter `self.w`",
# "sub-Cell `self.dense`", "print()"
FORI_SCAN_BODY_USES_PARAMETER = Rule(
    id="E5403",
    symbol="fori-scan-body-uses-parameter",
    family=FAMILY,
    lax=E,
    strict=E,
    message=(
        "the ops.{op} body `{func}` uses {what}; ForiLoop and unrolled Scan bodies cannot touch Parameters "
        "or have side effects: use ops.WhileLoop or ops.Scan(..., unroll=False) with a method body"
    ),
    summary=(
        "The `loop_func` of `ops.ForiLoop` (either `unroll`) or of `ops.Scan` with the default "
        "`unroll=True` reads or writes a Parameter (`self.w`, a sub-Cell with weights such as "
        "`self.dense`, a module-level Parameter, a Parameter given as ForiLoop's `init_val`) or has a "
        "side effect (`print`, `ops.assign`)."
    ),
    why=(
        "MindSpore lowers ForiLoop to its Scan machinery. A Parameter or a side effect in the body "
        "becomes an extra input of the body subgraph (a free Parameter or the IO/U monad), and the "
        "arity check then fails: `For `Scan` op, loop_func expects two arguments, but got: 3` "
        "(ForiLoop, unrolled Scan) or `The parameters number of the function is 2, but the number of "
        "provided arguments is 1` (ForiLoop with unroll=False). The same body works in "
        "`ops.WhileLoop` and in `ops.Scan(..., unroll=False)`; the error is not about bound methods: "
        "a method body that touches no Parameter compiles everywhere."
    ),
    mindspore_error="ValueError: For `Scan` op, loop_func expects two arguments, but got: 3",
    fix=(
        "Use `ops.WhileLoop` (counter in the carry) or `ops.Scan(..., unroll=False)` with the body as a "
        "Cell method; for a plain weight, pass a copy through the carry (`(x, self.w * 1)`: a Parameter "
        "itself in ForiLoop's `init_val` fails too); move prints out of the loop."
    ),
    flagged=(
        fails(
            """
            class Net(nn.Cell):
                def __init__(self):
                    super().__init__()
                    self.dense = nn.Dense(3, 3, weight_init="ones", bias_init="zeros")

                def body(self, i, y):
                    return self.dense(y)

                def construct(self, x):
                    return ops.ForiLoop()(0, 3, self.body, x)
            """,
            fixed="""
            class Net(nn.Cell):
                def __init__(self):
                    super().__init__()
                    self.dense = nn.Dense(3, 3, weight_init="ones", bias_init="zeros")

                def body(self, i, y):
                    return self.dense(y)

                def construct(self, x):
                    carry = x
                    for i in range(0, 3):
                        carry = self.body(i, carry)
                    return carry
            """,
            error="loop_func expects two arguments, but got: 3",
            title="ForiLoop body calls a sub-Cell with weights",
            lines=10,
        ),
        fails(
            """
            class Net(nn.Cell):
                def __init__(self):
                    super().__init__()
                    self.w = Parameter(Tensor(np.full((2, 3), 0.5, np.float32)), name="w")

                def body(self, i, y):
                    return y * self.w

                def construct(self, x):
                    return ops.ForiLoop()(0, 3, self.body, x, unroll=False)
            """,
            fixed="""
            class Net(nn.Cell):
                def __init__(self):
                    super().__init__()
                    self.w = Parameter(Tensor(np.full((2, 3), 0.5, np.float32)), name="w")

                def body(self, i, y):
                    return y * self.w

                def construct(self, x):
                    carry = x
                    for i in range(0, 3):
                        carry = self.body(i, carry)
                    return carry
            """,
            error="The parameters number of the function is 2, but the number of provided arguments is 1",
            title="ForiLoop(unroll=False) body reads a Parameter",
            lines=10,
        ),
        fails(
            """
            def body(y, el):
                print(el)
                return y * el, y

            class Net(nn.Cell):
                def construct(self, x):
                    return ops.Scan()(body, x, [2.0, 2.0, 2.0])[0]
            """,
            fixed="""
            def body(y, el):
                print(el)
                return y * el, y

            class Net(nn.Cell):
                def construct(self, x):
                    carry = x
                    for element in [2.0, 2.0, 2.0]:
                        carry, y = body(carry, element)
                    return carry
            """,
            error="loop_func expects two arguments, but got: 3",
            title="unrolled Scan body prints",
            lines=7,
        ),
    ),
    clean=(
        passes(
            """
            class Net(nn.Cell):
                def __init__(self):
                    super().__init__()
                    self.dense = nn.Dense(3, 3, weight_init="ones", bias_init="zeros")

                def body(self, y, el):
                    return self.dense(y) * el, y

                def construct(self, x):
                    return ops.Scan()(self.body, x, [1.0, 1.0, 1.0], unroll=False)[0]
            """,
        ),
        passes(
            """
            def body(i, c):
                y, w = c
                return y * w + 1, w

            class Net(nn.Cell):
                def __init__(self):
                    super().__init__()
                    self.w = Parameter(Tensor(np.full((2, 3), 2.0, np.float32)), name="w")

                def construct(self, x):
                    return ops.ForiLoop()(0, 3, body, (x, self.w * 1))[0]
            """,
        ),
        passes(
            """
            class Net(nn.Cell):
                def body(self, i, y):
                    return ops.relu(y - 1)

                def construct(self, x):
                    return ops.ForiLoop()(0, 3, self.body, x)
            """,
        ),
    ),
)


# message fields: {op}, {func}, {change} = "dtype" / "shape"
FUNCTIONAL_LOOP_CARRY_CHANGES_TYPE = Rule(
    id="E5404",
    symbol="functional-loop-carry-changes-type",
    family=FAMILY,
    lax=E,
    strict=E,
    message=(
        "the ops.{op} body `{func}` returns a carry whose {change} differs from `init_val`; "
        "keep every carried value's dtype and shape fixed (cast `init_val`, preallocate buffers)"
    ),
    summary=(
        "The body of `ops.WhileLoop` returns a carry whose dtype or shape differs from `init_val`, or the "
        "body of `ops.ForiLoop`/`ops.Scan` returns a carry of another shape (`ops.concat`, `ops.stack`, "
        "`ops.tile`, `expand_dims` on the carry)."
    ),
    why=(
        "A rolled loop needs one abstract type for its state. WhileLoop checks that `loop_func` returns "
        "the type and shape of `init_val` (a dtype change fails while joining the loop's branches: "
        "`Type Join Failed`); ForiLoop and Scan check the shape (`should maintain the same type and "
        "shape`). PYNATIVE_MODE runs the Python loop and accepts both. ForiLoop and Scan do accept a dtype "
        "change: they run the first iteration before the loop."
    ),
    mindspore_error=(
        "ValueError: WhileLoop op has invalid argument, the return value of the [loop_func] and the "
        "[init_value] should maintain the same type and shape"
    ),
    fix=(
        "Give `init_val` the dtype the body produces (`x.astype(ms.float16)` before the loop); for a "
        "growing result, preallocate a buffer of the final shape and write rows by index."
    ),
    flagged=(
        fails(
            """
            def cond(y):
                return y.sum() < 100

            def body(y):
                return (y * 2).astype(ms.float16)

            class Net(nn.Cell):
                def construct(self, x):
                    return ops.WhileLoop()(cond, body, x)
            """,
            error="Type Join Failed: dtype1 = Float16, dtype2 = Float32",
            title="WhileLoop carry changes dtype",
            lines=9,
        ),
        fails(
            """
            def cond(y):
                return y.sum() < 100

            def body(y):
                return ops.concat((y, y), 0)

            class Net(nn.Cell):
                def construct(self, x):
                    return ops.WhileLoop()(cond, body, x)
            """,
            error="should maintain the same type and shape",
            title="WhileLoop carry changes shape",
            lines=9,
        ),
        fails(
            """
            def body(i, y):
                return ops.concat((y, y), 0)

            class Net(nn.Cell):
                def construct(self, x):
                    return ops.ForiLoop()(0, 3, body, x, unroll=False)
            """,
            fixed="""
            def body(i, y):
                return ops.concat((y, y), 0)

            class Net(nn.Cell):
                def construct(self, x):
                    carry = x
                    for i in range(0, 3):
                        carry = body(i, carry)
                    return carry
            """,
            error="should maintain the same type and shape",
            title="ForiLoop carry changes shape",
            lines=6,
        ),
    ),
    clean=(
        passes(
            """
            def cond(y):
                return y.sum() < 100

            def body(y):
                return y * 2

            class Net(nn.Cell):
                def construct(self, x):
                    return ops.WhileLoop()(cond, body, x.astype(ms.float16))
            """,
        ),
        passes(
            """
            def body(i, y):
                return (y * 2).astype(ms.float16)

            class Net(nn.Cell):
                def construct(self, x):
                    return ops.ForiLoop()(0, 3, body, x, unroll=False)
            """,
        ),
    ),
)


# message fields: {op} = "ForiLoop" / "Scan"; {count} = the constant trip count
FUNCTIONAL_LOOP_UNROLLED = Rule(
    id="I5405",
    symbol="functional-loop-unrolled",
    family=FAMILY,
    lax=I,
    strict=I,
    message=(
        "ops.{op} unrolls its {count} iterations at compile time by default; "
        "pass unroll=False to compile one loop body (but see I5406 before exporting to MindIR)"
    ),
    summary=(
        "`ops.ForiLoop` or `ops.Scan` called without `unroll=False` (the default is `unroll=True`) on a "
        "constant trip count above the `unroll-warn` threshold (default 64)."
    ),
    why=(
        "With `unroll=True` the body is copied once per iteration: compile time grows linearly with the "
        "trip count (measured on a shared 2-core CPU machine: ForiLoop 0.6 s at 10 iterations, 2.8 s at "
        "1000, 6.6 s at 3000; the same loop with unroll=False compiles in about 1 s). Unlike a Python "
        "`for` loop it does not hit the call-depth limit, and the unrolled graph runs faster, so this is "
        "a trade-off, not a failure."
    ),
    fix="Pass `unroll=False` for long loops; keep the default for short ones or when exporting to MindIR.",
    flagged=(
        passes(
            """
            def body(i, y):
                return y * 0.5 + 1

            class Net(nn.Cell):
                def construct(self, x):
                    return ops.ForiLoop()(0, 1000, body, x)
            """,
            title="ForiLoop without unroll=False",
            lines=6,
        ),
    ),
    clean=(
        passes(
            """
            def body(i, y):
                return y * 0.5 + 1

            class Net(nn.Cell):
                def construct(self, x):
                    return ops.ForiLoop()(0, 1000, body, x, unroll=False)
            """,
        ),
    ),
)


# message fields: {op} = "ForiLoop" / "Scan"
ROLLED_FUNCTIONAL_LOOP_EXPORT = Rule(
    id="I5406",
    symbol="rolled-functional-loop-export",
    family=FAMILY,
    lax=I,
    strict=E,
    message=(
        "ops.{op}(..., unroll=False) exports to MindIR, but the loaded graph fails to run; "
        "use ops.WhileLoop or a Tensor-counter `while` in exported models"
    ),
    summary="`ops.ForiLoop` or `ops.Scan` with `unroll=False` in a network that is exported to MindIR.",
    why=(
        "`mindspore.export` accepts the rolled ForiLoop/Scan, but running the graph loaded back with "
        "`mindspore.load` + `nn.GraphCell` fails (`Invalid parameter context size:7 parameter size:5`). "
        "Training and GRAPH_MODE are not affected. `ops.WhileLoop`, a `while` on a Tensor counter, and the "
        "unrolled ForiLoop/Scan export and run after reload."
    ),
    mindspore_error="RuntimeError: Invalid parameter context size:7 parameter size:5",
    fix=(
        "For an exported model, write the loop as `ops.WhileLoop()(cond, body, (Tensor(0, ms.int32), x))` "
        "or keep the default unroll=True (short loops)."
    ),
    flagged=(
        Example(
            """
            def body(i, y):
                return y * 2

            class Net(nn.Cell):
                def construct(self, x):
                    return ops.ForiLoop()(0, 3, body, x, unroll=False)
            """,
            lax=OK,
            strict=OK,
            export=FAILS,
            error="Invalid parameter context size",
            title="ForiLoop(unroll=False) in an exported network",
            lines=6,
        ),
        Example(
            """
            def body(y, el):
                return y * el, y

            class Net(nn.Cell):
                def construct(self, x):
                    return ops.Scan()(body, x, [2.0, 2.0, 2.0], unroll=False)[0]
            """,
            lax=OK,
            strict=OK,
            export=FAILS,
            error="Invalid parameter context size",
            title="Scan(unroll=False) in an exported network",
            lines=6,
        ),
    ),
    clean=(
        passes(
            """
            def cond(c):
                return c[0] < 3

            def body(c):
                i, y = c
                return i + 1, y * 2

            class Net(nn.Cell):
                def construct(self, x):
                    return ops.WhileLoop()(cond, body, (Tensor(0, ms.int32), x))[1]
            """,
            export=OK,
        ),
        passes(
            """
            class Net(nn.Cell):
                def construct(self, x):
                    i = Tensor(0, ms.int32)
                    while i < 3:
                        x = x * 2
                        i = i + 1
                    return x
            """,
            export=OK,
        ),
        passes(
            """
            def body(i, y):
                return y * 2

            class Net(nn.Cell):
                def construct(self, x):
                    return ops.ForiLoop()(0, 3, body, x)
            """,
            export=OK,
        ),
    ),
)


# message fields: {op} - Map or HyperMap; {names} - the free variables
MAP_CLOSURE = Rule(
    id="E5407",
    symbol="map-closure",
    family=FAMILY,
    lax=E,
    strict=E,
    message="the function given to `{op}` reads {names} from the enclosing graph function; `{op}` does not support "
            "closures with free variables: pass the value as an extra sequence or compute it inside",
    summary="`ops.Map()` / `ops.HyperMap()` or Python's `map` applied to a lambda or nested function that reads a "
            "local variable of the enclosing graph function.",
    why=(
        "MindSpore's Map and HyperMap compile their function as a graph of its own and cannot capture the "
        "enclosing function's variables: \"The Map operator don't support Closure with free variable yet.\" "
        "(\"HyperMap don't support Closure with free variable yet.\"), at every syntax level."
    ),
    mindspore_error="RuntimeError: The Map operator don't support Closure with free variable yet.",
    fix="Pass what the function needs as a further sequence (`ops.Map()(f, xs, (s,) * len(xs))`), use "
        "`functools.partial`, or write the loop out.",
    flagged=(
        fails(
            """
            class Net(nn.Cell):
                def construct(self, x):
                    scale = x.sum()
                    outs = ops.Map()(lambda t: t * scale, (x, x))
                    return outs[0]
            """,
            fixed="""
            class Net(nn.Cell):
                def construct(self, x):
                    scale = x.sum()
                    def map_fn(t):
                        return t * scale
                    outs = (map_fn(x), map_fn(x))
                    return outs[0]
            """,
            error="don't support Closure with free variable",
            title="`ops.Map` over a lambda reading a local",
            lines=4,
            fields={"op": "ops.Map", "names": "`scale`"},
        ),
        fails(
            """
            class Net(nn.Cell):
                def construct(self, x):
                    scale = x.sum()
                    outs = ops.HyperMap()(lambda t: t * scale, (x, x))
                    return outs[0]
            """,
            fixed="""
            class Net(nn.Cell):
                def construct(self, x):
                    scale = x.sum()
                    def map_fn(t):
                        return t * scale
                    outs = (map_fn(x), map_fn(x))
                    return outs[0]
            """,
            error="don't support Closure with free variable",
            title="`ops.HyperMap` over a lambda reading a local",
            lines=4,
        ),
        fails(
            """
            class Net(nn.Cell):
                def construct(self, x):
                    heads = x.shape[0]
                    def split_heads(t):
                        return t.reshape(heads, -1)
                    q, k = map(split_heads, (x, x * 2))
                    return q + k
            """,
            fixed="""
            class Net(nn.Cell):
                def construct(self, x):
                    heads = x.shape[0]
                    def split_heads(t):
                        return t.reshape(heads, -1)
                    q, k = (split_heads(x), split_heads(x * 2))
                    return q + k
            """,
            error="don't support Closure with free variable",
            title="Python's `map` over a nested function reading a local (`map(split_heads, (q, k, v))`)",
            lines=6,
            fields={"op": "map", "names": "`heads`"},
        ),
    ),
    clean=(
        passes(
            """
            class Net(nn.Cell):
                def construct(self, x):
                    def split_heads(t):
                        return t.reshape(2, -1)
                    q, k = map(split_heads, (x, x * 2))
                    return q + k
            """,
        ),
        passes(
            """
            class Net(nn.Cell):
                def construct(self, x):
                    outs = ops.Map()(lambda t: t * 2, (x, x))
                    return outs[0] + outs[1]
            """,
        ),
    ),
)


RULES = (
    FUNCTIONAL_LOOP_BODY_CLOSURE,
    FUNCTIONAL_LOOP_CLOSURE_WRITES_PARAMETER,
    FORI_SCAN_BODY_USES_PARAMETER,
    FUNCTIONAL_LOOP_CARRY_CHANGES_TYPE,
    FUNCTIONAL_LOOP_UNROLLED,
    ROLLED_FUNCTIONAL_LOOP_EXPORT,
    MAP_CLOSURE,
)
