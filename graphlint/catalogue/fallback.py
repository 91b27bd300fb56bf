"""JIT fallback: Python that only the interpreter can run inside graph code.

At MindSpore's default (lax) syntax level the graph compiler hands code it cannot
translate to the Python interpreter ("JIT fallback", the PyExecute node). That
compiles and runs, but STRICT (``mindspore.jit(fn, fullgraph=True)``) and
``mindspore.export`` (which compiles STRICT) reject it, so the model cannot be
exported to MindIR. Every rule here is a warning at the lax level and an error
at the strict level.
"""

from graphlint.catalogue.model import (DIVERGES, FAILS, OK, SKIP, Example, Rule, Severity, bytecoded, diverges, fails,
                                      falls_back, passes, traced)

E, W, I = Severity.ERROR, Severity.WARNING, Severity.INFO
FAMILY = "fallback"

# Inputs for the container-input rule: the two tensors of the default input, packed.
_DICT_INPUTS = (
    "({'a': Tensor(np.arange(6, dtype=np.float32).reshape(2, 3)), "
    "'b': Tensor(np.ones((2, 3), np.float32))},)"
)
# Two calls: the first takes the true branch of `x.sum() > 0`, the second the false one.
_BOTH_SIGNS = "[(Tensor(np.arange(6, dtype=np.float32).reshape(2, 3)),), (Tensor(-np.arange(6, dtype=np.float32).reshape(2, 3) - 1),)]"
_PAIR_INPUTS = (
    "(Tensor(np.arange(6, dtype=np.float32).reshape(2, 3)), Tensor(np.ones((2, 3), np.float32)))"
)

# message fields: {method} = "asnumpy" or "numpy"
ASNUMPY_IN_GRAPH = Rule(
    id="W5501",
    symbol="asnumpy-in-graph",
    family=FAMILY,
    lax=W,
    strict=E,
    trace=E,
    trace_message=(
        "`Tensor.{method}()` leaves the trace: what it computes on the first call is a constant in every "
        "later call; keep the value a Tensor and use mindspore.ops"
    ),
    bytecode=W,
    bytecode_fullgraph=E,
    bytecode_message=(
        "`Tensor.{method}()` is a graph break under bytecode capture: it runs in Python between two graphs "
        "and its result may be kept as a constant (measured: `Tensor(np.tanh(x.asnumpy())) + x` kept the "
        "first call's value), and `fullgraph=True` refuses it ('Unsupported function'); keep the value a "
        "Tensor and use mindspore.ops"
    ),
    message="`Tensor.{method}()` in graph code needs JIT fallback and blocks MindIR export; "
    "keep the value a Tensor and use mindspore.ops",
    summary="`Tensor.asnumpy()` or `Tensor.numpy()` called inside graph code.",
    why=(
        "A graph has no NumPy arrays: at the lax level MindSpore runs the conversion (and "
        "everything that uses its result) in the Python interpreter, a host round trip in the "
        "middle of the graph. STRICT (`jit(fullgraph=True)`) and `mindspore.export` reject the "
        "attribute outright."
    ),
    mindspore_error=(
        "AttributeError: In JIT strict mode, cannot get attributes asnumpy or the "
        "Tensor[Float32] object has no attribute: 'asnumpy'. You can use "
        "os.environ['MS_DEV_JIT_SYNTAX_LEVEL'] = '2' to enable the JIT lax mode to support "
        "the current syntax."
    ),
    fix=(
        "Compute on the Tensor with mindspore.ops / Tensor methods; for sizes use `x.shape`, "
        "which is a compile-time tuple. Convert to NumPy only outside the Cell. `--fix "
        "--unsafe-fixes` drops `.asnumpy()` / `.numpy()` where the value only feeds a comparison "
        "with numbers or Tensors that is the test of an `if`, `while` or ternary "
        "(`if x.sum().asnumpy() > 0:` -> `if x.sum() > 0:`). Unsafe: the comparison then happens "
        "in the Tensor's dtype, not in NumPy's float64. `--fix` drops a copy that nothing reads."
    ),
    flagged=(
        bytecoded(
            """
            @ms.jit(capture_mode="bytecode")
            def fn(x):
                return Tensor(np.tanh(x.asnumpy())) + x
            """,
            bytecode=DIVERGES,
            title="`.asnumpy()` under bytecode capture",
            lines=3,
            fields={"method": "asnumpy"},
        ),
        bytecoded(
            """
            @ms.jit(capture_mode="bytecode", fullgraph=True)
            def fn(x):
                return Tensor(np.tanh(x.asnumpy())) + x
            """,
            bytecode=FAILS,
            error="Unsupported function",
            title="`.asnumpy()` under bytecode capture with fullgraph",
            lines=3,
            fields={"method": "asnumpy"},
        ),
        traced(
            """
            @ms.jit(capture_mode="trace")
            def fn(x):
                return Tensor(np.tanh(x.asnumpy())) + x
            """,
            trace=DIVERGES,
            title="`.asnumpy()` in a traced function",
            lines=3,
            fields={"method": "asnumpy"},
        ),
        falls_back(
            """
            class Net(nn.Cell):
                def construct(self, x):
                    rows = x.asnumpy().shape[0]
                    return x * rows
            """,
            fixed="""
            class Net(nn.Cell):
                def construct(self, x):
                    rows = x.shape[0]
                    return x * rows
            """,
            fix_safety="safe",
            error="cannot get attributes asnumpy",
            title="`Tensor.asnumpy()`",
            export=FAILS,
            lines=3,
        ),
        falls_back(
            """
            class Net(nn.Cell):
                def construct(self, x):
                    y = x * 2
                    snapshot = y.asnumpy()  # for debugging
                    return y
            """,
            fixed="""
            class Net(nn.Cell):
                def construct(self, x):
                    y = x * 2
                    return y
            """,
            fix_safety="safe",
            error="cannot get attributes asnumpy",
            title="an unread `Tensor.asnumpy()` copy",
            lines=4,
        ),
        falls_back(
            """
            @ms.jit
            def net(x):
                return x + 1, x.numpy()
            """,
            error="cannot get attributes numpy",
            entry="net",
            title="`Tensor.numpy()`",
            lines=3,
        ),
        falls_back(
            """
            class Net(nn.Cell):
                def construct(self, x):
                    if x.sum().asnumpy() > 0:
                        return x * 2
                    return x - 1
            """,
            error="cannot get attributes asnumpy",
            inputs=_BOTH_SIGNS,
            title="`Tensor.asnumpy()` compared in a condition",
            lines=3,
            fixed="""
                class Net(nn.Cell):
                    def construct(self, x):
                        return ops.where(x.sum() > 0, x * 2, x - 1)
            """,
        ),
    ),
    clean=(
        bytecoded(
            """
            @ms.jit(capture_mode="bytecode", fullgraph=True)
            def fn(x):
                return ops.tanh(x) + x
            """,
            bytecode=OK,
        ),
        traced(
            """
            @ms.jit(capture_mode="trace")
            def fn(x):
                return ops.tanh(x) + x
            """,
            trace=OK,
        ),
        passes(
            """
            class Net(nn.Cell):
                def construct(self, x):
                    rows = x.shape[0]
                    return x * rows
            """,
            export=OK,
        ),
    ),
)


# message fields: {func} = the NumPy function as written, e.g. "np.exp"; {operand} = what it is called on: "a Tensor",
# or "a NumPy copy of a Tensor" (`np.mean(x.asnumpy())`)
NUMPY_CALL_ON_TENSOR = Rule(
    id="W5502",
    symbol="numpy-call-on-tensor",
    family=FAMILY,
    lax=W,
    strict=E,
    trace=E,
    trace_message=(
        "`{func}(...)` runs on the first call only: its result is a constant in every later call of the "
        "traced function; use the mindspore.ops equivalent"
    ),
    bytecode=W,
    bytecode_fullgraph=E,
    bytecode_message=(
        "`{func}(...)` on {operand} is a graph break under bytecode capture: it runs in Python between two "
        "graphs and its result may be kept as a constant (measured: `Tensor(np.tanh(x.asnumpy())) + x` kept "
        "the first call's value), and `fullgraph=True` refuses it ('Unsupported function'); use the "
        "mindspore.ops equivalent"
    ),
    message="`{func}(...)` on {operand} in graph code needs JIT fallback and blocks MindIR export; "
    "use the mindspore.ops equivalent",
    summary="A NumPy function called with a Tensor (a graph value) as an argument inside graph code.",
    why=(
        "NumPy cannot run inside a graph. With a constant argument (`np.sqrt(2.0)`, "
        "`np.prod(x.shape)`, `np.ones((2, 3))`) the call is evaluated once at compile time and "
        "is fine at every level; with a Tensor argument the lax level runs it in the Python "
        "interpreter (PyExecute) on every call, and STRICT / `mindspore.export` reject it "
        "because the interpreted call's input is not a constant."
    ),
    mindspore_error=(
        "ValueError: When handling script '__call_func_str__(__input_0__,) in graph mode', the "
        "inputs should be constant, but found variable '__input_0__' to be nonconstant. Try to "
        "set jit_syntax_level to LAX."
    ),
    fix=(
        "Use the mindspore.ops (or Tensor method) equivalent: `ops.exp`, `ops.where`, "
        "`ops.ones_like`, `ops.sum`, `ops.tanh`, ... NumPy on shapes and Python numbers can stay. "
        "`--fix --unsafe-fixes` rewrites the functions whose ops form returns the same values, "
        "dtype and shape on float32 Tensors in both modes (measured): exp, log, sqrt, sin, cos, "
        "tan, tanh, sinh, cosh, square, log1p, expm1, log2, log10, exp2, sign, reciprocal, floor, "
        "ceil, round, abs/absolute, negative (`ops.neg`), arctan (`ops.atan`), isnan, isinf, "
        "isfinite, logical_not/and/or, maximum, minimum, matmul, power (`ops.pow`), where, clip "
        "(`ops.clamp`, `a_min=`/`a_max=` -> `min=`/`max=`), reshape, concatenate (`ops.cat`) and "
        "stack (`axis=`), cumsum (with an axis), argmax (`axis=` -> `dim=`). Unsafe: the result is a "
        "Tensor instead of an ndarray, and on integer Tensors NumPy computes in float64 where ops "
        "gives float32 or rejects the dtype. NumPy reductions (`np.sum`, `np.mean`, `np.max`, ...) "
        "are not rewritten: on a Tensor they raise TypeError in MindSpore 2.10."
    ),
    flagged=(
        bytecoded(
            """
            @ms.jit(capture_mode="bytecode")
            def fn(x):
                return Tensor(np.tanh(x.asnumpy())) + x
            """,
            bytecode=DIVERGES,
            title="NumPy on a Tensor under bytecode capture",
            lines=3,
            fields={"func": "np.tanh"},
        ),
        bytecoded(
            """
            @ms.jit(capture_mode="bytecode", fullgraph=True)
            def fn(x):
                return Tensor(np.tanh(x.asnumpy())) + x
            """,
            bytecode=FAILS,
            error="Unsupported function",
            title="NumPy on a Tensor under bytecode capture with fullgraph",
            lines=3,
            fields={"func": "np.tanh"},
        ),
        traced(
            """
            @ms.jit(capture_mode="trace")
            def fn(x):
                return Tensor(np.tanh(x.asnumpy())) + x
            """,
            trace=DIVERGES,
            title="NumPy on a Tensor in a traced function",
            lines=3,
            fields={"func": "np.tanh"},
        ),
        falls_back(
            """
            class Net(nn.Cell):
                def construct(self, x):
                    return np.exp(x)
            """,
            error="the inputs should be constant, but found variable",
            title="NumPy function on a Tensor (`np.exp(x)`)",
            export=FAILS,
            lines=3,
            fixed="""
                class Net(nn.Cell):
                    def construct(self, x):
                        return ops.exp(x)
            """,
        ),
        falls_back(
            """
            class Net(nn.Cell):
                def construct(self, x):
                    return Tensor(np.where(x > 2, x, 0))
            """,
            error="the inputs should be constant, but found variable",
            title="`np.where` on a Tensor",
            lines=3,
            fixed="""
                class Net(nn.Cell):
                    def construct(self, x):
                        return ops.where(x > 2, x, 0)
            """,
        ),
    ),
    clean=(
        bytecoded(
            """
            @ms.jit(capture_mode="bytecode", fullgraph=True)
            def fn(x):
                return ops.tanh(x) + x
            """,
            bytecode=OK,
        ),
        traced(
            """
            @ms.jit(capture_mode="trace")
            def fn(x):
                return ops.tanh(x) + x
            """,
            trace=OK,
        ),
        passes(
            """
            class Net(nn.Cell):
                def construct(self, x):
                    return ops.where(x > 2, ops.exp(x), ops.zeros_like(x))
            """,
            export=OK,
        ),
        passes(
            """
            class Net(nn.Cell):
                def construct(self, x):
                    scale = np.sqrt(x.shape[-1]) * np.pi / np.prod(x.shape)
                    bias = Tensor(np.linspace(0, 1, 3).astype(np.float32))
                    return x * scale + bias * np.float32(2.0)
            """,
            export=OK,
        ),
    ),
)


# message fields: {func} = the math function as written, e.g. "math.sqrt"
MATH_CALL_ON_TENSOR = Rule(
    id="W5503",
    symbol="math-call-on-tensor",
    family=FAMILY,
    lax=W,
    strict=E,
    message="`{func}(...)` on {operand} in graph code needs JIT fallback and blocks MindIR export; "
    "use the mindspore.ops equivalent",
    summary="A function of Python's `math` module called with a Tensor (a graph value) inside graph code.",
    why=(
        "`math` functions take Python numbers. On a constant (`math.sqrt(x.shape[-1])`, "
        "`math.log(10000.0)`, `math.pi`) they are folded at compile time and fine; on a Tensor "
        "the lax level converts it to a Python number in the interpreter (a host sync), and "
        "STRICT / `mindspore.export` reject the call."
    ),
    mindspore_error=(
        "ValueError: When handling script '__call_func_str__(__input_0__,) in graph mode', the "
        "inputs should be constant, but found variable '__input_0__' to be nonconstant. Try to "
        "set jit_syntax_level to LAX."
    ),
    fix=(
        "Use the Tensor operation: `ops.sqrt`, `ops.exp`, `ops.log`, `ops.floor`, ... (the result "
        "stays a Tensor). `--fix --unsafe-fixes` rewrites sqrt, exp, log (one argument), sin, cos, "
        "tan, tanh, atan, log2, log10, log1p, expm1, pow and fabs (`ops.abs`). Unsafe: the result "
        "is a 0-d float32 Tensor instead of a Python float (same value within float32 precision, "
        "measured). `math.floor` and `math.ceil` are not rewritten: they return a Python int."
    ),
    flagged=(
        falls_back(
            """
            import math

            class Net(nn.Cell):
                def construct(self, x):
                    return x / math.sqrt(ops.sum(x))
            """,
            error="the inputs should be constant, but found variable",
            title="`math.*` on a Tensor",
            export=FAILS,
            lines=5,
            fixed="""
                import math

                class Net(nn.Cell):
                    def construct(self, x):
                        return x / ops.sqrt(ops.sum(x))
            """,
        ),
    ),
    clean=(
        passes(
            """
            class Net(nn.Cell):
                def construct(self, x):
                    return x / ops.sqrt(ops.sum(x))
            """,
        ),
        passes(
            """
            import math

            class Net(nn.Cell):
                def construct(self, x):
                    return x / math.sqrt(x.shape[-1]) * math.pi + math.log(10000.0)
            """,
        ),
    ),
)


TENSOR_CONSTRUCTOR_ON_TENSOR = Rule(
    id="W5504",
    symbol="tensor-constructor-on-tensor",
    family=FAMILY,
    lax=W,
    strict=E,
    message="`Tensor(...)` of a graph Tensor needs JIT fallback and blocks MindIR export; "
    "use the value directly, or `.astype(dtype)` to convert",
    summary="`Tensor(value)` / `mindspore.tensor(value)` inside graph code where `value` is a Tensor computed in the graph.",
    why=(
        "Inside a graph `Tensor(...)` can only build constants. Wrapping a runtime Tensor makes "
        "the lax level run the constructor in the Python interpreter; STRICT and "
        "`mindspore.export` reject it. (With a dtype that differs from the value's, e.g. "
        "`Tensor(x, ms.int32)`, even the lax level fails at run time.)"
    ),
    mindspore_error=(
        "ValueError: When handling script 'Tensor(input_data, dtype, shape, init, const_arg, "
        "device) in graph mode', the inputs should be constant, but found variable "
        "'input_data' to be nonconstant. Try to set jit_syntax_level to LAX."
    ),
    fix="Drop the wrapper (the value already is a Tensor); to change the dtype use `x.astype(dtype)` or `ops.cast(x, dtype)`.",
    flagged=(
        falls_back(
            """
            class Net(nn.Cell):
                def construct(self, x):
                    total = ops.sum(x)
                    return x / Tensor(total)
            """,
            fixed="""
            class Net(nn.Cell):
                def construct(self, x):
                    total = ops.sum(x)
                    return x / total
            """,
            error="the inputs should be constant, but found variable 'input_data'",
            title="`Tensor(...)` of a Tensor value",
            export=FAILS,
            lines=4,
        ),
    ),
    clean=(
        passes(
            """
            class Net(nn.Cell):
                def construct(self, x):
                    if isinstance(x, (list, tuple)):
                        x = Tensor(x)
                    if not isinstance(x, Tensor):
                        x = Tensor(x, ms.float32)
                    return x * 2
            """,
        ),
        passes(
            """
            class Net(nn.Cell):
                def construct(self, x):
                    total = ops.sum(x)
                    return x / total.astype(ms.float32)
            """,
        ),
        passes(
            """
            class Net(nn.Cell):
                def construct(self, x):
                    w = Tensor(np.ones((2, 3), np.float32))
                    b = Tensor([1.0, 2.0, 3.0], ms.float32)
                    return x * w + b / Tensor(x.shape[0], ms.float32)
            """,
        ),
    ),
)


TYPE_OF_GRAPH_VALUE = Rule(
    id="W5505",
    symbol="type-of-graph-value",
    family=FAMILY,
    lax=W,
    strict=E,
    message="`type(...)` of a graph value needs JIT fallback and blocks MindIR export; "
    "use `isinstance(value, Tensor)`",
    summary="The builtin `type()` applied to a Tensor or other runtime value inside graph code.",
    why=(
        "The graph compiler supports `isinstance` (resolved at compile time) but not `type()` of "
        "a non-constant: the lax level evaluates it in the interpreter, STRICT and "
        "`mindspore.export` reject it."
    ),
    mindspore_error=(
        "ValueError: When handling script 'type(x) in graph mode', the inputs should be "
        "constant, but found variable 'x' to be nonconstant. Try to set jit_syntax_level to LAX."
    ),
    fix="Replace `type(x) == Tensor` / `type(x) is Tensor` by `isinstance(x, Tensor)`; compare dtypes with `x.dtype`.",
    flagged=(
        falls_back(
            """
            class Net(nn.Cell):
                def construct(self, x):
                    if type(x) == Tensor:
                        return x + 1
                    return x
            """,
            fixed="""
            class Net(nn.Cell):
                def construct(self, x):
                    if isinstance(x, Tensor):
                        return x + 1
                    return x
            """,
            error="When handling script 'type(x) in graph mode'",
            title="`type(x)` of a Tensor",
            export=FAILS,
            lines=3,
        ),
    ),
    clean=(
        passes(
            """
            class Net(nn.Cell):
                def construct(self, x):
                    if isinstance(x, Tensor) and x.dtype == ms.float32:
                        return x + 1
                    return x
            """,
        ),
    ),
)


# message fields: {how} = "str()", "str.format", "%-formatting" or "an f-string"
TENSOR_TO_STRING = Rule(
    id="W5506",
    symbol="tensor-to-string",
    family=FAMILY,
    lax=W,
    strict=E,
    message="Formatting a Tensor into a string ({how}) in graph code needs JIT fallback; "
    "STRICT rejects it or yields a wrong string; print the Tensor itself (`print('x:', x)`)",
    summary="`str(x)`, `'...'.format(x)`, `'%s' % x` or an f-string with a Tensor field, inside graph code.",
    why=(
        "A graph has no strings computed from tensor values. The lax level formats the Tensor in "
        "the Python interpreter. STRICT (and `mindspore.export`) rejects `str(x)` and `%`, "
        "fails to find a CPU kernel for `'...'.format(x)`, and silently turns an f-string with a "
        "Tensor field into the Tensor `[0]` (int64): `print(f'x = {x}')` prints "
        "`Tensor(shape=[1], dtype=Int64, value=[0])`."
    ),
    mindspore_error=(
        "AttributeError: In JIT strict mode, cannot get attributes __str__ or the "
        "Tensor[Float32] object has no attribute: '__str__'. You can use "
        "os.environ['MS_DEV_JIT_SYNTAX_LEVEL'] = '2' to enable the JIT lax mode to support "
        "the current syntax."
    ),
    fix=(
        "Pass the Tensor to `print` as its own argument (`print('x:', x)` works at every level) "
        "or use `ops.print_`; format shapes and dtypes (`f'{x.shape}'`), which are constants; "
        "build messages from tensor values outside the Cell."
    ),
    flagged=(
        falls_back(
            """
            class Net(nn.Cell):
                def construct(self, x):
                    print("x: " + str(x))
                    return x + 1
            """,
            error="cannot get attributes __str__",
            title="`str()` of a Tensor",
            export=FAILS,
            lines=3,
        ),
        falls_back(
            """
            class Net(nn.Cell):
                def construct(self, x):
                    return x + 1, "v=%s" % x
            """,
            error="""When handling script '"v=%s" % x in graph mode'""",
            title="`%`-formatting of a Tensor",
            lines=3,
        ),
        Example(
            """
            class Net(nn.Cell):
                def construct(self, x):
                    return x + 1, f"value {x}"
            """,
            lax=OK,
            strict=DIVERGES,
            export=DIVERGES,
            title="f-string with a Tensor field",
            lines=3,
        ),
    ),
    clean=(
        passes(
            """
            class Net(nn.Cell):
                def construct(self, x):
                    print("x:", x, "shape:", x.shape)
                    ops.print_("x:", x)
                    return x + 1, f"shape {x.shape}", str(x.dtype)
            """,
        ),
    ),
)


# message fields: {expr} - the element that is None
NONE_IN_GRAPH_OUTPUT = Rule(
    id="I5517",
    symbol="none-in-graph-output",
    family=FAMILY,
    lax=I,
    strict=E,
    message="`{expr}` is None in the tuple the graph returns: STRICT leaves the None out, so callers get one element "
            "fewer (`image, _ = net(z)` fails to unpack); return only Tensors (a zero Tensor, or a flag outside)",
    summary="`return image, None` (a None beside Tensors in the tuple a graph compiled or exported on its own "
            "returns): StyleGAN's `(image, latent) if return_latents else (image, None)`.",
    why=(
        "Measured with MindSpore 2.10: a top-level graph returning `x * 2, None` gives the 2-tuple at the lax level, "
        "as PYNATIVE_MODE does, and the 1-tuple `(x * 2,)` at STRICT; `None, x * 2` gives `(x * 2,)` too. No error "
        "is raised: the caller's unpacking fails (\"not enough values to unpack\"), or takes the wrong element. A "
        "None passed between functions inside one graph is fine."
    ),
    mindspore_error="(STRICT: no error; the None is left out of the returned tuple)",
    fix="Return only Tensors from the graph: leave the element out where the caller does not need it, or return "
        "a placeholder Tensor and a flag decided outside the graph.",
    flagged=(
        Example(
            """
            class Net(nn.Cell):
                def construct(self, x):
                    image = x * 2
                    return image, None
            """,
            lax=OK,
            strict=DIVERGES,
            title="`return image, None` from the top-level graph",
            lines=4,
            fields={"expr": "None"},
        ),
    ),
    clean=(
        passes(
            """
            def render(x, latent=None):
                return x * 2, latent

            class Net(nn.Cell):
                def construct(self, x):
                    image, _ = render(x)
                    return image
            """,
        ),
    ),
)


DICT_OUTPUT_FROM_GRAPH = Rule(
    id="W5507",
    symbol="dict-output-from-graph",
    family=FAMILY,
    lax=W,
    strict=E,
    message="A graph that returns a dict gives a tuple of its values under STRICT and after MindIR export; "
    "return a tuple (and rebuild the dict outside the Cell)",
    summary="`return {...}` (a dict) from a Cell's `construct` or a `@jit` function that is compiled or exported on its own "
            "(reported at the graph's `return`, and where the dict it returns is made: a `{...}` in a method whose "
            "result it returns, a `masks = {}` filled in a loop).",
    why=(
        "The lax level builds the returned dict in the Python interpreter. STRICT "
        "(`jit(fullgraph=True)`) and a MindIR exported with `mindspore.export` return a plain "
        "tuple of the dict's values instead, with no error: callers that index the result by "
        "key break. A dict passed between Cells inside one graph is fine."
    ),
    mindspore_error="",
    fix="Return a tuple in a fixed order (e.g. `return x, y`) and build the dict outside the graph.",
    flagged=(
        Example(
            """
            class Net(nn.Cell):
                def construct(self, x):
                    loss = x.sum()
                    return loss, {"mean": x.mean(), "max": x.max()}
            """,
            lax=OK,
            strict=DIVERGES,
            title="a dict inside the returned tuple",
            lines=4,
        ),
        Example(
            """
            class Net(nn.Cell):
                def construct(self, x):
                    return {"logits": x, "probs": ops.softmax(x)}
            """,
            lax=OK,
            strict=DIVERGES,
            export=DIVERGES,
            title="`return` of a dict",
            lines=3,
        ),
        Example(
            """
            class Model(nn.Cell):
                def construct(self, x):
                    return x * 2

                def visualize(self, x):
                    y = self.construct(x)
                    return {"output": y, "input": x}


            class Net(nn.Cell):
                def __init__(self):
                    super().__init__()
                    self.model = Model()

                def construct(self, x):
                    return self.model.visualize(x)
            """,
            lax=OK,
            strict=DIVERGES,
            title="a dict built by a method the graph returns the result of",
            lines=(7, 16),  # (where the dict is built, and the graph's return)
        ),
        Example(
            """
            class Encoder(nn.Cell):
                def masks(self, x):
                    found = {}
                    for step in range(2):
                        found[step] = x * step
                    return x.sum(), found


            class Net(nn.Cell):
                def __init__(self):
                    super().__init__()
                    self.encoder = Encoder()

                def construct(self, x):
                    return self.encoder.masks(x)
            """,
            lax=OK,
            strict=DIVERGES,
            title="a dict filled in a loop, returned through a method of a held Cell",
            lines=(3, 15),  # (where the dict is made, and the graph's return)
        ),
        Example(
            """
            class Net(nn.Cell):
                def construct(self, xs):
                    outputs = []
                    for x in xs:
                        outputs.append({"mean": x.mean(), "max": x.max()})
                    return outputs
            """,
            lax=OK,
            strict=DIVERGES,
            inputs="([Tensor(np.ones((2, 3), np.float32)), Tensor(np.arange(6, dtype=np.float32))],)",
            title="a list a loop appends dicts to (SAM's per-image outputs)",
            lines=(5, 6),  # (the dict appended, and the graph's return)
        ),
    ),
    clean=(
        passes(
            """
            class Net(nn.Cell):
                def construct(self, x):
                    return x, ops.softmax(x)
            """,
            export=OK,
        ),
    ),
)


# message fields: {cls} = the class name
PYTHON_OBJECT_FROM_TENSOR = Rule(
    id="W5508",
    symbol="python-object-from-tensor",
    family=FAMILY,
    lax=W,
    strict=E,
    message="Creating `{cls}` from Tensor values in graph code needs JIT fallback and blocks MindIR export; "
    "pass the tensors as a tuple",
    summary="An instance of a plain Python class, dataclass or namedtuple created inside graph code with a Tensor (graph value) argument.",
    why=(
        "Graph code may create plain Python objects from constants (they are built at compile "
        "time), but an object holding a runtime Tensor can only exist in the interpreter: the "
        "lax level creates it there, STRICT and `mindspore.export` reject the call. "
        "(A `@ms.jit_class` class with a Tensor argument fails even at the lax level.)"
    ),
    mindspore_error=(
        "ValueError: When handling script '__call_func_str__(__input_0__,) in graph mode', the "
        "inputs should be constant, but found variable '__input_0__' to be nonconstant. Try to "
        "set jit_syntax_level to LAX."
    ),
    fix=(
        "Pass and return tensors as tuples (or separate values) inside the graph; build "
        "dataclasses / namedtuples from the outputs outside the Cell. Objects built from "
        "constants, and helper objects created in `__init__`, are fine."
    ),
    flagged=(
        falls_back(
            """
            from dataclasses import dataclass

            @dataclass
            class Output:
                value: object

            class Net(nn.Cell):
                def construct(self, x):
                    out = Output(x * 2)
                    return out.value + 1
            """,
            fixed="""
            from dataclasses import dataclass

            @dataclass
            class Output:
                value: object

            class Net(nn.Cell):
                def construct(self, x):
                    out = (x * 2,)
                    return out[0] + 1
            """,
            error="the inputs should be constant, but found variable",
            title="dataclass instance holding a Tensor",
            export=FAILS,
            lines=9,
        ),
        falls_back(
            """
            from collections import namedtuple

            Pair = namedtuple("Pair", ["first", "second"])

            class Net(nn.Cell):
                def construct(self, x):
                    pair = Pair(x * 2, x)
                    return pair.first + pair.second
            """,
            fixed="""
            from collections import namedtuple

            Pair = namedtuple("Pair", ["first", "second"])

            class Net(nn.Cell):
                def construct(self, x):
                    pair = (x * 2, x)
                    return pair[0] + pair[1]
            """,
            error="the inputs should be constant, but found variable",
            title="namedtuple holding a Tensor",
            lines=7,
        ),
        falls_back(
            """
            from collections import namedtuple

            Output = namedtuple("Output", ["hidden", "pooled"])


            class Net(nn.Cell):
                def construct(self, x, return_dict: bool = False):
                    hidden = x * 2
                    if not return_dict:
                        return hidden + 1
                    out = Output(hidden=hidden, pooled=hidden.sum())
                    return out.hidden + out.pooled
            """,
            fixed="""
            from collections import namedtuple

            Output = namedtuple("Output", ["hidden", "pooled"])


            class Net(nn.Cell):
                def construct(self, x, return_dict: bool = False):
                    hidden = x * 2
                    if not return_dict:
                        return hidden + 1
                    out = (hidden, hidden.sum())
                    return out[0] + out[1]
            """,
            error="the inputs should be constant, but found variable",
            title="a namedtuple on the side of a flag argument a call selects (`return_dict=True`: each call "
                  "compiles the side its flag takes, and the default is only one of them)",
            inputs="(Tensor(np.ones((2, 3), np.float32)), True)",
            lines=11,
        ),
    ),
    clean=(
        passes(
            """
            from collections import namedtuple

            Output = namedtuple("Output", ["hidden", "pooled"])


            class Net(nn.Cell):
                def __init__(self, return_dict: bool = False):
                    super().__init__()
                    self.return_dict = return_dict

                def construct(self, x):
                    hidden = x * 2
                    if not self.return_dict:
                        return hidden, hidden.sum()
                    return Output(hidden=hidden, pooled=hidden.sum())
            """,
            title="the side of an `if` on a flag the instance holds, which no call can change: not compiled",
        ),
        passes(
            """
            class Net(nn.Cell):
                def construct(self, x):
                    first, second = x * 2, x
                    return first + second
            """,
        ),
        passes(
            """
            from dataclasses import dataclass

            @dataclass
            class Config:
                scale: float = 2.0

            class Scaler:
                def __init__(self, k):
                    self.k = k

                def apply(self, x):
                    return ops.relu(x) * self.k

            class Net(nn.Cell):
                def __init__(self):
                    super().__init__()
                    self.helper = Scaler(3.0)
                    self.config = Config()

                def construct(self, x):
                    local = Scaler(self.config.scale)
                    return self.helper.apply(x) + local.apply(x)
            """,
            export=OK,
        ),
    ),
)


CONTAINER_GRAPH_INPUT = Rule(
    id="W5509",
    symbol="container-graph-input",
    family=FAMILY,
    lax=W,
    strict=E,
    message="`{parameter}` ({kind} argument of `{entry}`, which no Cell of the project holds, so it is taken for a "
    "top-level graph) is a compile-time constant: GRAPH_MODE recompiles for every new value and MindIR export "
    "bakes it in; pass tensors as separate arguments or wrap the container in mindspore.mutable",
    summary="A top-level `construct` (or `@jit` function) that takes a dict, tuple or list of tensors as one argument (e.g. indexes a parameter by a string key).",
    why=(
        "MindSpore treats a dict/tuple/list passed to the top-level graph as a constant unless "
        "it is wrapped in `mindspore.mutable`. In GRAPH_MODE results stay correct but every call "
        "with new tensor values recompiles the graph (measured: ~300 ms per call instead of "
        "~0.3 ms). `mindspore.export` folds the example tensors into the MindIR: the exported "
        "graph has no inputs, returns the export-time result, and rejects real inputs."
    ),
    mindspore_error="RuntimeError: The input number of parameters is not Compatible.",
    fix=(
        "Give `construct` one argument per tensor (`def construct(self, image, label)`) and "
        "unpack the container at the call site; or pass `mindspore.mutable(container)` both "
        "when calling and when exporting."
    ),
    flagged=(
        Example(
            """
            class Net(nn.Cell):
                def construct(self, batch):
                    return batch["a"] + batch["b"] * 2
            """,
            lax=OK,
            strict=OK,
            export=FAILS,
            error="The input number of parameters is not Compatible",
            inputs=_DICT_INPUTS,
            title="dict argument of the top-level graph",
            lines=2,
            fields={"parameter": "batch", "kind": "a dict", "entry": "Net.construct"},
        ),
    ),
    clean=(
        passes(
            """
            class Net(nn.Cell):
                def construct(self, a, b):
                    return a + b * 2
            """,
            inputs=_PAIR_INPUTS,
            export=OK,
        ),
    ),
)


# message fields: {expr} - the returned view; {view} - dict_items, dict_keys or dict_values
DICT_VIEW_OUTPUT_FROM_GRAPH = Rule(
    id="W5515",
    symbol="dict-view-output-from-graph",
    family=FAMILY,
    lax=W,
    strict=W,
    message="`{expr}` is a `{view}` in PYNATIVE_MODE, but a graph returns it as a list or tuple at every level "
            "(measured): callers that rely on the view (set operations on keys, `.mapping`, its type) break; return "
            "`tuple({expr})`, which both modes give alike",
    summary="A top-level graph that returns a dict's `keys()`, `values()` or `items()` (PyTorch code hands back "
            "`outputs.items()`).",
    why=(
        "Graph mode has no dict views: `d.keys()`, `d.values()` and `d.items()` are lists of the dict's keys, "
        "values or (key, value) pairs. Inside the graph that is the same to iterate over, but what the graph "
        "returns is that list (`keys()` and `values()` come back as tuples), where PYNATIVE_MODE returns the view. "
        "Measured with MindSpore 2.10 at the lax level and under `jit(fullgraph=True)`: no error, another type."
    ),
    mindspore_error="",
    fix="Return `tuple(d.items())` (or the values in a fixed order): both modes then give a tuple.",
    flagged=(
        Example(
            """
            class Net(nn.Cell):
                def construct(self, x):
                    scores = {"mean": x.mean(), "max": x.max()}
                    return scores.items()
            """,
            lax=DIVERGES,
            strict=DIVERGES,
            title="`return d.items()`",
            lines=4,
            fields={"view": "dict_items"},
        ),
        Example(
            """
            class Net(nn.Cell):
                def construct(self, x):
                    heads = {"a": x + 1, "b": x * 2}
                    names = heads.keys()
                    return x, names
            """,
            lax=DIVERGES,
            strict=DIVERGES,
            title="a dict's keys returned through a name",
            lines=5,
            fields={"view": "dict_keys", "expr": "names"},
        ),
    ),
    clean=(
        passes(
            """
            class Net(nn.Cell):
                def construct(self, x):
                    heads = {"a": x + 1, "b": x * 2}
                    total = x * 0
                    for name, value in heads.items():
                        total = total + value
                    return total, tuple(heads.values())
            """,
        ),
    ),
)


# message fields: {cls} - the class; {cell} - the Cell passed to it
CELL_CALLED_BY_INTERPRETED_OBJECT = Rule(
    id="E5516",
    symbol="cell-called-by-interpreted-object",
    family=FAMILY,
    lax=E,
    strict=E,
    message="`{cls}(...)` is made in graph code from run-time values and is given the Cell `{cell}`, which its "
            "methods call: the JIT fallback runs the object in the interpreter, and a Cell called from there stops "
            "the graph (measured: \"Nested execution during JIT execution\"); call the Cell in graph code and hand "
            "the object its result, or make the object a function of Tensors",
    summary="A plain Python object (a solver, a sampler, a beam scorer) made in graph code from Tensors and given a "
            "Cell that its methods call: torchdiffeq's `Dopri5Solver(func, y0)`, a sampler holding the UNet.",
    why=(
        "An instance of a plain class made from run-time Tensors lives in MindSpore's interpreter (JIT fallback). "
        "Its methods run there, not in the graph, and a Cell called from them would be a second compile inside "
        "the running one. Measured with MindSpore 2.10: `Solver(self.f, x).step()`, where `step` calls "
        "`self.func(self.y)`, stops at the default level with \"Nested execution during JIT execution for "
        "'Dense.construct' is not supported\" and under STRICT with \"the inputs should be constant\". Made from "
        "constants, the same object compiles (it is a compile-time object)."
    ),
    mindspore_error="RuntimeError: Nested execution during JIT execution for 'Dense.construct' is not supported when "
                    "'Net.construct' compile and execute.",
    fix="Call the Cell in graph code and give the object what it returned, or write the object's method as a "
        "function of Tensors that graph code calls with the Cell.",
    flagged=(
        fails(
            """
            class Solver:
                def __init__(self, func, y0):
                    self.func = func
                    self.y = y0

                def step(self):
                    return self.func(self.y) + self.y

            class Net(nn.Cell):
                def __init__(self):
                    super().__init__()
                    self.f = nn.Dense(3, 3)

                def construct(self, x):
                    solver = Solver(self.f, x)
                    return solver.step()
            """,
            error="Nested execution during JIT execution",
            strict_error="the inputs should be constant",
            title="a solver made from a Tensor, holding the Cell it calls",
            lines=15,
            fields={"cls": "Solver", "cell": "self.f"},
        ),
        fails(
            """
            class Euler:
                def __init__(self, func, y0):
                    self.func = func
                    self.y = y0

                def integrate(self):
                    return self.y + 0.1 * self.func(self.y)

            SOLVERS = {"euler": Euler}

            def odeint(func, y0, method="euler"):
                return SOLVERS[method](func, y0).integrate()

            class Block(nn.Cell):
                def __init__(self, func):
                    super().__init__()
                    self.func = func

                def construct(self, x):
                    return odeint(self.func, x)

            class Net(nn.Cell):
                def __init__(self):
                    super().__init__()
                    self.block = Block(nn.Dense(3, 3))

                def construct(self, x):
                    return self.block(x)
            """,
            error="Nested execution during JIT execution",
            strict_error="the inputs should be constant",
            title="a solver from a registry of classes, given the Cell a constructor was passed (torchdiffeq)",
            lines=12,
            fields={"cls": "SOLVERS[method]", "cell": "func"},
        ),
    ),
    clean=(
        passes(
            """
            class Solver:
                def __init__(self, func, y0):
                    self.func = func
                    self.y = y0

                def step(self):
                    return self.func(self.y)

            class Net(nn.Cell):
                def __init__(self):
                    super().__init__()
                    self.f = nn.Dense(3, 3)

                def construct(self, x):
                    solver = Solver(self.f, Tensor(np.ones((2, 3), np.float32)))
                    return solver.step() + x
            """,
        ),
    ),
)


# message fields: {how} - "returns" or "prints"; {expr}
HOST_OBJECT_RETURNED = Rule(
    id="W5510",
    symbol="host-object-returned",
    family=FAMILY,
    lax=W,
    strict=E,
    message="graph code {how} a NumPy array (`{expr}`): it is a host object, not a graph value; STRICT and MindIR "
            "export reject it: use a Tensor (`Tensor(...)` in `__init__`, or an ops function)",
    summary="A top-level graph that returns a NumPy array (a `numpy.*` result, arithmetic on one, or `t.asnumpy()`), "
            "or graph code that prints one.",
    why=(
        "At the lax level the JIT fallback hands the array back, but a graph's outputs must be graph values: "
        "`jit(fullgraph=True)` and MindIR export stop with \"Illegal type in the graph: AbstractScalar(Type: "
        "External, Value: PythonObject(type: <class 'numpy.ndarray'>...\"."
    ),
    mindspore_error="RuntimeError: Illegal type in the graph: AbstractScalar(Type: External, Value: PythonObject(type: <class 'numpy.ndarray'>, ...))",
    fix="Make the value a Tensor: build constant arrays as Tensors in `__init__`, compute with ops.",
    flagged=(
        falls_back(
            """
            class Net(nn.Cell):
                def construct(self, x):
                    return x * 2, np.ones((2,))
            """,
            error="Illegal type in the graph",
            title="a NumPy array returned from graph code",
            lines=3,
            fields={"expr": "np.ones((2, ))"},
        ),
        falls_back(
            """
            @ms.jit
            def grid():
                points = np.linspace(1, 10, 4)
                return points
            """,
            error="Illegal type in the graph",
            entry="grid",
            inputs="()",
            title="a NumPy array returned through a variable",
            lines=4,
            fields={"expr": "points"},
        ),
        falls_back(
            """
            @ms.jit
            def scaled(x):
                steps = np.array([1, 2, 3])
                print(steps)
                return x * 2, steps + steps
            """,
            error="Illegal type in the graph",
            entry="scaled",
            title="a NumPy array printed, or returned after arithmetic",
            lines=(4, 5),
        ),
    ),
    clean=(
        passes(
            """
            @ms.jit
            def folded(x):
                steps = np.array([1.0, 2.0, 3.0], np.float32)
                return x + Tensor(steps) + (steps + steps).sum() + steps.shape[0]
            """,
            entry="folded",
            inputs="(Tensor(np.ones((3,), np.float32)),)",
        ),
        passes(
            """
            class Net(nn.Cell):
                def __init__(self):
                    super().__init__()
                    self.ones = Tensor(np.ones((2,), np.float32))

                def construct(self, x):
                    return x * 2, self.ones
            """,
        ),
    ),
)


# message fields: {cell} - the Cell as written; {how} - "str.format" or "an f-string"
CELL_FORMATTED_AS_STRING = Rule(
    id="E5511",
    symbol="cell-formatted-as-string",
    family=FAMILY,
    lax=E,
    strict=E,
    message="a Cell instance (`{cell}`) is formatted into a string with {how}: `str.format` cannot take a Cell in "
            "graph code and an f-string turns it into \"DeadNode\"; format the attribute you need (`{cell}.k`)",
    summary="A Cell instance passed to `str.format(...)` or placed in an f-string field inside graph code.",
    why=(
        "A Cell is not a value graph code can hand to Python's string formatting. Measured with MindSpore 2.10 at "
        "both levels: `\"k={0.k}\".format(self.sub)` and `\"{}\".format(self.sub)` stop compilation with "
        "\"Unsupported parameter type for python primitive, the parameter value is DeadNode\"; `f\"{self.sub}\"` "
        "compiles but gives the string \"DeadNode\" instead of the Cell's repr. Formatting a plain attribute of "
        "the Cell (`f\"k={self.sub.k}\"`) works."
    ),
    mindspore_error="TypeError: Unsupported parameter type for python primitive, the parameter value is DeadNode",
    fix="Format the attribute you need (`self.sub.k`), or build the string in `__init__` and keep it as an attribute.",
    flagged=(
        fails(
            """
            class Scale(nn.Cell):
                def __init__(self):
                    super().__init__()
                    self.k = 3

                def construct(self, x):
                    return x * self.k


            class Net(nn.Cell):
                def __init__(self):
                    super().__init__()
                    self.scale = Scale()

                def construct(self, x):
                    return self.scale(x), "k={0.k}".format(self.scale)
            """,
            error="the parameter value is DeadNode",
            title="`str.format` of a Cell",
            lines=16,
            fields={"cell": "self.scale", "how": "str.format"},
        ),
        diverges(
            """
            class Scale(nn.Cell):
                def construct(self, x):
                    return x * 3


            class Net(nn.Cell):
                def __init__(self):
                    super().__init__()
                    self.scale = Scale()

                def construct(self, x):
                    return self.scale(x), f"{self.scale}"
            """,
            title="an f-string field holding a Cell",
            lines=12,
            fields={"cell": "self.scale", "how": "an f-string"},
        ),
    ),
    clean=(
        passes(
            """
            class Scale(nn.Cell):
                def __init__(self):
                    super().__init__()
                    self.k = 3

                def construct(self, x):
                    return x * self.k


            class Net(nn.Cell):
                def __init__(self):
                    super().__init__()
                    self.scale = Scale()

                def construct(self, x):
                    return self.scale(x), f"k={self.scale.k}", "k={}".format(self.scale.k)
            """,
        ),
    ),
)

# message fields: {name}
SELF_CONTAINING_GRAPH_INPUT = Rule(
    id="E5512",
    symbol="self-containing-graph-input",
    family=FAMILY,
    lax=E,
    strict=E,
    message="`{name}` holds itself (it was put into itself before this call): MindSpore cannot convert it into a "
            "graph input; pass the values it holds instead",
    summary="A list or dict that contains itself (`cfg.append(cfg)`, `a += [a]`, `d[k] = d`) passed to a Cell or "
            "`@jit` function by a call in the same module.",
    why=(
        "Graph inputs are converted from Python objects element by element; a container that holds itself never "
        "ends, and MindSpore stops before compiling with \"Detect recursion when converting python object.\" "
        "(measured with MindSpore 2.10, lists and dicts, at both levels)."
    ),
    mindspore_error="RuntimeError: Detect recursion when converting python object.",
    fix="Pass the plain values (a tuple of the numbers or Tensors the graph reads), not the self-referencing object.",
    flagged=(
        fails(
            """
            class Net(nn.Cell):
                def construct(self, x, cfg):
                    return x * cfg[0]


            def drive(call, target, inputs):
                cfg = [2, 3]
                cfg.append(cfg)
                return [call(inputs[0][0], cfg)]


            if __name__ == "__main__":
                options = {"scale": 2}
                options["parent"] = options
                print(Net()(Tensor(np.ones((2, 3), np.float32)), options))
            """,
            error="Detect recursion when converting python object",
            title="a container that holds itself passed to a Cell",
            lines=15,
            fields={"name": "options"},
        ),
    ),
    clean=(
        passes(
            """
            class Net(nn.Cell):
                def construct(self, x, cfg):
                    return x * cfg[0]


            def drive(call, target, inputs):
                cfg = [2, 3]
                return [call(inputs[0][0], cfg)]


            if __name__ == "__main__":
                options = [2, 3]
                options.append(4)
                print(Net()(Tensor(np.ones((2, 3), np.float32)), options))
            """,
        ),
    ),
)


# message fields: {literal}
BYTES_LITERAL_IN_GRAPH = Rule(
    id="E5513",
    symbol="bytes-literal-in-graph",
    family=FAMILY,
    lax=E,
    strict=E,
    message="the bytes literal `{literal}` becomes a `str` in graph code (PYNATIVE keeps bytes): what reads it "
            "computes something else or fails; convert it outside the graph",
    summary="A bytes literal (`b\"...\"`) inside graph code.",
    why=(
        "The graph compiler turns a bytes constant into a string. Measured with MindSpore 2.10 at both levels: "
        "`return x, b\"abc\"` returns `'abc'`, `isinstance(s, bytes)` is False, and "
        "`np.frombuffer(b\"...\")` stops with \"a bytes-like object is required, not 'str'\"."
    ),
    mindspore_error="TypeError: a bytes-like object is required, not 'str'",
    fix="Decode or convert the bytes outside the graph (in `__init__`, or before the call) and pass a str, a "
        "number or a Tensor in.",
    flagged=(
        diverges(
            """
            @ms.jit
            def tagged(x):
                tag = b"v1"
                return x * 2, tag
            """,
            entry="tagged",
            title="a bytes constant returned from graph code",
            lines=3,
            fields={"literal": "b'v1'"},
        ),
        fails(
            """
            @ms.jit
            def decode(x):
                codes = np.frombuffer(b"\\x01\\x02", dtype=np.uint8)
                return x * 2, codes
            """,
            error="a bytes-like object is required, not 'str'",
            entry="decode",
            title="NumPy reading a bytes constant in graph code",
            lines=3,
        ),
    ),
    clean=(
        passes(
            """
            CODES = Tensor(np.frombuffer(b"\\x01\\x02", dtype=np.uint8).astype(np.float32))


            @ms.jit
            def decode(x):
                tag = "v1"
                return x * 2, CODES, tag
            """,
            entry="decode",
        ),
    ),
)


_ROWS = "(Tensor(np.array([[0.5, 3.0, 2.0], [4.0, -1.0, 0.0]], np.float32)),)"

# message fields: {arg} - where the value is taken from the object (or the argument); {layer} - the layer called;
# {at} - " (line N)", the layer call's line where it is not the finding's; {made} - where the object was made
FALLBACK_VALUE_INTO_LAYER = Rule(
    id="E5514",
    symbol="fallback-value-into-layer",
    family=FAMILY,
    lax=E,
    strict=E,
    message="`{arg}` is a value only the interpreter holds ({made}, built by JIT fallback), so graph code no longer knows "
            "its shape, and the layer `{layer}`{at} needs it: the lax level fails when it runs (measured: \"negative "
            "dimensions are not allowed\" or \"'int' object has no attribute '__len__'\"); {advice}",
    summary="A Tensor read back from a plain-class or dataclass instance, or a `dict(...)`, that graph code built "
            "from Tensors, a `Tensor(t, dtype)` of a run-time Tensor (or the object itself, or what arithmetic and "
            "ops compute from such a Tensor) passed to an nn layer or a sub-Cell.",
    why=(
        "Graph code cannot hold an instance of a plain class or a dataclass made from run-time Tensors: the lax "
        "level makes it in the interpreter (JIT fallback; STRICT refuses it, see `python-object-from-tensor`). "
        "Arithmetic on its fields still compiles, but what comes back from the interpreter has no static shape, "
        "and the layers that need one fail: measured with MindSpore 2.10 (CPU), a dataclass output of a sub-Cell "
        "read as `out.logits` and given to `nn.LayerNorm` (\"negative dimensions are not allowed\"), a field given "
        "to `nn.Dense` (\"'int' object has no attribute '__len__'\"), and the object given to a sub-Cell that does "
        "so. A `dict(key=value)` of Tensors is built the same way (a dict display is not), and what graph code "
        "computes from such a value keeps no shape either: `ops.relu(d[\"h\"]) * 1.0`, `.reshape(...)` or a slice "
        "of it given to `nn.Dense` fail too (\"'int' object has no attribute '__len__'\"). PyTorch's "
        "`torch.BoolTensor(t)` habit, `Tensor(t)` of a run-time Tensor, is built by the interpreter too: a mask "
        "made so and multiplied into a graph Tensor makes `nn.LayerNorm` fail (\"negative dimensions are not "
        "allowed\"); with a dtype (`Tensor(t, ms.float32)`) the outcome varied between runs (it ran, and once failed "
        "with a kernel error), so only the form without a dtype is reported. PYNATIVE_MODE runs them "
        "as Python."
    ),
    mindspore_error="ValueError: negative dimensions are not allowed",
    fix="Return or pass the Tensors as a tuple (`return logits, prob`; `self.inner(t, m)`), and build the "
        "dataclass in Python after the graph returns; convert a Tensor with `t.astype(dtype)`, not `Tensor(t, dtype)`.",
    flagged=(
        fails(
            """
            from dataclasses import dataclass

            @dataclass
            class Out:
                logits: Tensor
                prob: Tensor

            class Head(nn.Cell):
                def construct(self, x):
                    return Out(x * 2, ops.softmax(x, -1))

            class Net(nn.Cell):
                def __init__(self):
                    super().__init__()
                    self.head = Head()
                    self.norm = nn.LayerNorm((3,))

                def construct(self, x):
                    out = self.head(x)
                    return self.norm(out.logits)
            """,
            error="",  # lax: "negative dimensions are not allowed"; STRICT refuses the object's creation
            inputs=_ROWS,
            title="a sub-Cell's dataclass output read into `nn.LayerNorm`",
            lines=20,
            fields={"arg": "out.logits"},
        ),
        fails(
            """
            class Net(nn.Cell):
                def __init__(self):
                    super().__init__()
                    self.fc = nn.Dense(3, 2)

                def construct(self, x):
                    out = dict(hidden=x * 2, raw=x)
                    h = ops.relu(out["hidden"]) * 1.0
                    return self.fc(h)
            """,
            error="",  # lax: "'int' object has no attribute '__len__'"; STRICT refuses `dict(...)` itself
            inputs=_ROWS,
            title="a value computed from a `dict(...)` of Tensors (arithmetic and ops keep it shapeless) into "
                  "`nn.Dense`",
            lines=8,
            fields={"arg": "out['hidden']"},
        ),
        Example(
            """
            class Net(nn.Cell):
                def __init__(self):
                    super().__init__()
                    self.fc = nn.Dense(3, 2)

                def construct(self, x):
                    scaled = Tensor.from_numpy(x.asnumpy() * 2)
                    return self.fc(scaled)
            """,
            lax=FAILS,
            strict=SKIP,  # (STRICT refuses `asnumpy()` first: `asnumpy-in-graph`)
            error="",  # lax: "'int' object has no attribute '__len__'"
            inputs=_ROWS,
            title="a Tensor made from a NumPy array of run-time values into `nn.Dense`",
            lines=7,
            fields={"arg": "Tensor.from_numpy(x.asnumpy() * 2)"},
        ),
        Example(
            """
            class Net(nn.Cell):
                def __init__(self):
                    super().__init__()
                    self.norm = nn.LayerNorm((3,))
                    self.bias = Tensor(np.ones((3,), np.float32))

                def construct(self, x):
                    self.bias = self.bias.astype(x.dtype)
                    return self.norm(x + self.bias)
            """,
            lax=FAILS,
            strict=SKIP,  # (STRICT refuses the write first: `attribute-write-in-graph`)
            error="negative dimensions are not allowed",
            inputs=_ROWS,
            title="a Tensor attribute `__init__` made, rewritten in `construct` and read back into a layer "
                  "(CLIP's `self.attn_mask = self.attn_mask.to(x.dtype)`)",
            lines=9,
            fields={"arg": "self.bias"},
        ),
        fails(
            """
            class Nested:
                def __init__(self, tensors, mask):
                    self.tensors, self.mask = tensors, mask

            class Body(nn.Cell):
                def __init__(self):
                    super().__init__()
                    self.norm = nn.LayerNorm((3,))

                def construct(self, batch):
                    return self.norm(batch.tensors)

            class Net(nn.Cell):
                def __init__(self):
                    super().__init__()
                    self.body = Body()

                def construct(self, x):
                    if isinstance(x, (list, Tensor)):
                        x = Nested(x, x > 0)
                    return self.body(x)
            """,
            error="",  # lax: "negative dimensions are not allowed"; STRICT refuses the object's creation
            inputs=_ROWS,
            title="an input wrapped in a plain object under an `if isinstance(...)` that type inference decides "
                  "(DETR's `NestedTensor`): after the `if` the name holds the object alone, and a sub-Cell reads "
                  "it into `nn.LayerNorm`",
            lines=20,
            fields={"arg": "Nested(x, x > 0)"},
        ),
        fails(
            """
            class Config:
                def __init__(self, **kwargs):
                    self.use_return_dict = kwargs.get("use_return_dict", True)

            class Encoder(nn.Cell):
                def __init__(self, config):
                    super().__init__()
                    self.config = config
                    self.dense = nn.Dense(3, 3)

                def construct(self, x, return_dict=None):
                    return_dict = return_dict if return_dict is not None else self.config.use_return_dict
                    h = self.dense(x)
                    if not return_dict:
                        return (h,)
                    return dict(last_hidden_state=h)

            class Net(nn.Cell):
                def __init__(self):
                    super().__init__()
                    self.encoder = Encoder(Config())
                    self.head = nn.Dense(3, 2)

                def construct(self, x):
                    out = self.encoder(x)
                    return self.head(out["last_hidden_state"])
            """,
            error="",  # lax: "'int' object has no attribute '__len__'"; STRICT refuses `dict(...)` itself
            inputs=_ROWS,
            title="a Hugging Face style output, a tuple or a `dict(...)` as a config flag decides, indexed by key: "
                  "only the dict takes a key, so the value read is the interpreter's",
            lines=26,
            fields={"arg": "out['last_hidden_state']"},
        ),
        Example(
            """
            class Net(nn.Cell):
                def __init__(self):
                    super().__init__()
                    self.blocks = nn.CellList([nn.Dense(3, 3), nn.Dense(3, 3)])

                def construct(self, x):
                    prior = ops.ones((2, 3)).to(x.device)
                    for i in range(2):
                        x = self.blocks[i](x * prior)
                    return x
            """,
            lax=FAILS,
            strict=SKIP,  # (STRICT refuses `x.device` first: `torch-habit-falls-back`)
            error="",  # lax: "'int' object has no attribute '__len__'"
            inputs=_ROWS,
            title="PyTorch's `.to(x.device)`: the interpreter reads `x.device`, and the Tensor moved to it is the "
                  "interpreter's too (TabNet's initial prior, into the attentive transformers of a `CellList`)",
            lines=7,
            fields={"arg": "ops.ones((2, 3)).to(x.device)"},
        ),
        Example(
            """
            class Net(nn.Cell):
                def __init__(self):
                    super().__init__()
                    self.norm = nn.LayerNorm((3,))

                def construct(self, x):
                    keep = Tensor(x > 0)
                    h = x * 2.0
                    h *= ~keep
                    return self.norm(h)
            """,
            lax=FAILS,
            strict=SKIP,  # (STRICT refuses `Tensor(...)` of a Tensor first: `tensor-constructor-on-tensor`)
            error="negative dimensions are not allowed",
            inputs=_ROWS,
            title="PyTorch's `torch.BoolTensor(mask)` habit: `Tensor(t)` of a run-time Tensor is the interpreter's, "
                  "and so is what it is multiplied into (SASRec's timeline mask, before `nn.LayerNorm`)",
            lines=7,
            fields={"arg": "Tensor(x > 0)",
                    "advice": "convert with `.astype(dtype)`, not `Tensor(...)`"},
        ),
    ),
    clean=(
        passes(
            """
            class Net(nn.Cell):
                def __init__(self):
                    super().__init__()
                    self.norm = nn.LayerNorm((3,))

                def construct(self, x):
                    keep = (x <= 0).astype(ms.float32)
                    h = x * 2.0
                    h *= keep
                    return self.norm(h)
            """,
            inputs=_ROWS,
            title="the mask converted with `.astype`: graph code computes it, and knows its shape",
        ),
        passes(
            """
            class Head(nn.Cell):
                def construct(self, x):
                    return x * 2, ops.softmax(x, -1)

            class Net(nn.Cell):
                def __init__(self):
                    super().__init__()
                    self.head = Head()
                    self.norm = nn.LayerNorm((3,))

                def construct(self, x):
                    logits, prob = self.head(x)
                    return self.norm(logits) + prob
            """,
            inputs=_ROWS,
        ),
        passes(
            """
            class Net(nn.Cell):
                def __init__(self):
                    super().__init__()
                    self.fc = nn.Dense(3, 2)

                def construct(self, x):
                    out = {"hidden": x * 2, "raw": x}
                    h = ops.relu(out["hidden"]) * 1.0
                    return self.fc(h)
            """,
            inputs=_ROWS,
            title="the same values in a dict display: graph code builds it, and knows the shapes",
        ),
        passes(
            """
            class Nested:
                def __init__(self, tensors, mask):
                    self.tensors, self.mask = tensors, mask

            class Net(nn.Cell):
                def __init__(self):
                    super().__init__()
                    self.norm = nn.LayerNorm((3,))

                def construct(self, x):
                    if isinstance(x, (list, tuple)):
                        x = Nested(x[0], x[1]).tensors
                    return self.norm(x)
            """,
            inputs=_ROWS,
            title="the wrapping branch decided the other way (a Tensor is not a list): the name keeps the Tensor",
        ),
        Example(
            """
            class Net(nn.Cell):
                def __init__(self):
                    super().__init__()
                    self.norm = nn.LayerNorm((3,))
                    self.bias = Tensor(np.ones((3,), np.float32))

                def construct(self, x):
                    self.bias = self.bias.astype(x.dtype)
                    return self.norm(x) + self.bias
            """,
            lax=OK,
            strict=FAILS,
            error="must be of the Parameter type",
            inputs=_ROWS,
            title="the rewritten attribute read back outside the layer: the lax level runs it (STRICT refuses the "
                  "write, `attribute-write-in-graph`)",
        ),
    ),
)


RULES = (
    ASNUMPY_IN_GRAPH,
    NUMPY_CALL_ON_TENSOR,
    MATH_CALL_ON_TENSOR,
    TENSOR_CONSTRUCTOR_ON_TENSOR,
    TYPE_OF_GRAPH_VALUE,
    TENSOR_TO_STRING,
    DICT_OUTPUT_FROM_GRAPH,
    NONE_IN_GRAPH_OUTPUT,
    PYTHON_OBJECT_FROM_TENSOR,
    CONTAINER_GRAPH_INPUT,
    HOST_OBJECT_RETURNED,
    CELL_FORMATTED_AS_STRING,
    SELF_CONTAINING_GRAPH_INPUT,
    BYTES_LITERAL_IN_GRAPH,
    FALLBACK_VALUE_INTO_LAYER,
    DICT_VIEW_OUTPUT_FROM_GRAPH,
    CELL_CALLED_BY_INTERPRETED_OBJECT,
)
