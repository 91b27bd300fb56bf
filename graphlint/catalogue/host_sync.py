"""Tensor-to-Python conversions in graph code: `.item()`, `.tolist()`, `int()`, `float()`, `bool()`.

In PYNATIVE_MODE each of them waits for the device and copies the value to the
host. In graph code MindSpore 2.10 compiles `.item()`, `int(t)`, `float(t)` and
`bool(t)` to its `TensorToScalar` operator (a scalar inside the graph: correct
at both levels and in MindIR), while `.tolist()` is implemented with
`asnumpy()` and falls back to the Python interpreter. Measured with MindSpore
2.10 on CPU; timings are per call, averaged over 100 calls, on a machine shared
with other jobs (load average about 9 on 2 cores): treat them as rough.
"""

from graphlint.catalogue.model import (DIVERGES, FAILS, OK, Example, Rule, Severity, bytecoded, falls_back, passes,
                                      traced)

E, W, I = Severity.ERROR, Severity.WARNING, Severity.INFO
FAMILY = "host_sync"

# message fields: {expr} - the Tensor expression, e.g. "x.max()"
TENSOR_ITEM_IN_GRAPH = Rule(
    id="I5701",
    symbol="tensor-item-in-graph",
    family=FAMILY,
    lax=I,
    strict=I,
    trace=E,
    trace_message=(
        "`{expr}.item()` is read on the first call only: every later call reuses that number (a trace records"
        " it as a constant); keep the value a Tensor"
    ),
    message=(
        "`{expr}.item()` turns a Tensor into a Python scalar: a device-to-host sync in PYNATIVE, "
        "a scalar in the graph; keep the value a Tensor if you only compute with it"
    ),
    summary="`Tensor.item()` inside graph code.",
    why=(
        "In graph code `.item()` is compiled to MindSpore's `TensorToScalar` operator: it "
        "compiles at the lax and strict levels, exports to MindIR, and returns the same value as "
        "PYNATIVE_MODE, even when it steers an `if` or feeds a shape (measured with MindSpore "
        "2.10). The cost is in PYNATIVE_MODE, where every call waits for the device: measured "
        "(CPU, 100 calls, noisy shared machine) `x / x.max().item()` took 1.5-2.9 ms per call "
        "against 0.07-0.12 ms for `x / x.max()` on a (2, 3) input, and about 20 ms against 6 ms "
        "on (256, 256). In GRAPH_MODE the difference was within noise on (2, 3) (0.9-1.0 ms "
        "both) and about +0.5 ms on (256, 256) (2.6 vs 2.0 ms). A Python scalar also turns "
        "downstream Tensor arithmetic into scalar arithmetic and, used as a size, makes shapes "
        "dynamic."
    ),
    fix=(
        "Keep the value as a 0-d Tensor (`x / x.max()`; `ops.cast` to change its dtype) and "
        "call `.item()` outside the Cell when a Python number is really needed. `--fix "
        "--unsafe-fixes` drops `.item()` where the value only feeds a comparison with numbers or "
        "Tensors that is the test of an `if`, `while` or ternary (`if x.sum().item() > 0:` -> "
        "`if x.sum() > 0:`). Unsafe: the comparison then happens in the Tensor's dtype, not in "
        "Python's float64/int (measured: a float32 0.1 is `> 0.1` only as a Python float)."
    ),
    flagged=(
        traced(
            """
            @ms.jit(capture_mode="trace")
            def fn(x):
                return x * x.max().item()
            """,
            trace=DIVERGES,
            title="`.item()` in a traced function",
            lines=3,
            fields={"expr": "x.max()"},
        ),
        Example(
            """
            class Net(nn.Cell):
                def construct(self, x):
                    scale = x.max().item()
                    return x / scale
            """,
            lax=OK,
            strict=OK,
            export=OK,
            title="`t.item()`",
            lines=3,
            fixed="""
                class Net(nn.Cell):
                    def construct(self, x):
                        scale = x.max()
                        return x / scale
            """,
        ),
        Example(
            """
            class Net(nn.Cell):
                def construct(self, x):
                    if x.sum().item() > 20:
                        return x * 2
                    return x

            def drive(call, target, inputs):
                x = Tensor(np.arange(6, dtype=np.float32).reshape(2, 3))
                return [call(x), call(x * 2)]
            """,
            lax=OK,
            strict=OK,
            title="branch on `t.item()`",
            lines=3,
            fixed="""
                class Net(nn.Cell):
                    def construct(self, x):
                        return ops.where(x.sum() > 20, x * 2, x)

                def drive(call, target, inputs):
                    x = Tensor(np.arange(6, dtype=np.float32).reshape(2, 3))
                    return [call(x), call(x * 2)]
            """,
        ),
    ),
    clean=(
        traced(
            """
            @ms.jit(capture_mode="trace")
            def fn(x):
                return x * x.max()
            """,
            trace=OK,
        ),
        passes(
            """
            class Net(nn.Cell):
                def construct(self, x):
                    scale = x.max()
                    return x / scale
            """,
        ),
    ),
)


# message fields: {expr} - the Tensor expression
TENSOR_TOLIST_IN_GRAPH = Rule(
    id="I5702",
    symbol="tensor-tolist-in-graph",
    family=FAMILY,
    lax=I,
    strict=E,
    trace=E,
    trace_message=(
        "`{expr}.tolist()` is read on the first call only: every later call reuses those numbers (a trace "
        "records them as constants); keep the value a Tensor"
    ),
    bytecode=E,
    bytecode_fullgraph=E,
    bytecode_message=(
        "`{expr}.tolist()` is read on the first call only: bytecode capture keeps those numbers as constants "
        "in every later call; keep the value a Tensor"
    ),
    message=(
        "`{expr}.tolist()` runs `asnumpy()` in the Python interpreter (JIT fallback; rejected by "
        "jit(fullgraph=True) and export); index the Tensor instead"
    ),
    summary="`Tensor.tolist()` inside graph code.",
    why=(
        "MindSpore implements `Tensor.tolist()` in graph code as `x.asnumpy().tolist()`, which is "
        "not a graph operation: at the lax level the graph falls back to the Python interpreter "
        "for it (results match PYNATIVE_MODE, including a returned nested list), at the strict "
        "level (`jit(fullgraph=True)`, MindIR export) compilation stops. The fallback is slow: "
        "measured with MindSpore 2.10 in GRAPH_MODE (CPU, 100 calls, noisy shared machine) "
        "`x / x.max(axis=0).tolist()[0]` took 5.3-5.8 ms per call against 0.9-1.0 ms for "
        "`x / x.max(axis=0)[0]` on a (2, 3) input, and about 20 ms against 1.7-2.0 ms on "
        "(256, 256)."
    ),
    mindspore_error=(
        "AttributeError: In JIT strict mode, cannot get attributes asnumpy or the "
        "Tensor[Float32] object has no attribute: 'asnumpy'."
    ),
    fix=(
        "Index the Tensor (`t[0]`, `ops.unstack(t)`) and keep computing with Tensors; convert "
        "with `.tolist()` outside the Cell."
    ),
    flagged=(
        bytecoded(
            """
            @ms.jit(capture_mode="bytecode")
            def fn(x):
                return x * sum(x.tolist())
            """,
            bytecode=DIVERGES,
            title="`.tolist()` (bytecode)",
            lines=3,
            fields={"expr": "x"},
        ),
        bytecoded(
            """
            @ms.jit(capture_mode="bytecode", fullgraph=True)
            def fn(x):
                return x * sum(x.tolist())
            """,
            bytecode=DIVERGES,
            title="`.tolist()` (bytecode, fullgraph)",
            lines=3,
            fields={"expr": "x"},
        ),
        traced(
            """
            @ms.jit(capture_mode="trace")
            def fn(x):
                return x * sum(x.tolist())
            """,
            trace=DIVERGES,
            title="`.tolist()` in a traced function",
            lines=3,
            fields={"expr": "x"},
        ),
        falls_back(
            """
            class Net(nn.Cell):
                def construct(self, x):
                    sums = x.sum(axis=1).tolist()
                    return x * sums[0]
            """,
            fixed="""
            class Net(nn.Cell):
                def construct(self, x):
                    sums = x.sum(axis=1)
                    return x * sums[0]
            """,
            error="cannot get attributes asnumpy",
            export=FAILS,
            title="`t.tolist()`",
            lines=3,
        ),
    ),
    clean=(
        bytecoded(
            """
            @ms.jit(capture_mode="bytecode")
            def fn(x):
                return x * x.sum()
            """,
            bytecode=OK,
        ),
        traced(
            """
            @ms.jit(capture_mode="trace")
            def fn(x):
                return x * x.sum()
            """,
            trace=OK,
        ),
        passes(
            """
            class Net(nn.Cell):
                def construct(self, x):
                    sums = x.sum(axis=1)
                    return x * sums[0]
            """,
        ),
    ),
)


# message fields: {func} - "int", "float" or "bool", {expr} - the Tensor expression
TENSOR_TO_PYTHON_SCALAR_IN_GRAPH = Rule(
    id="I5703",
    symbol="tensor-to-python-scalar-in-graph",
    family=FAMILY,
    lax=I,
    strict=I,
    trace=E,
    trace_message=(
        "`{func}({expr})` is read on the first call only: every later call reuses that number (a trace "
        "records it as a constant); keep it a Tensor (`ops.cast`)"
    ),
    message=(
        "`{func}({expr})` turns a Tensor into a Python scalar: a device-to-host sync in PYNATIVE, "
        "a scalar in the graph; keep it a Tensor (ops.cast) if you only compute with it"
    ),
    summary="`int(t)`, `float(t)` or `bool(t)` on a Tensor inside graph code.",
    why=(
        "MindSpore 2.10 compiles `int()`, `float()` and `bool()` of a one-element Tensor to the "
        "`TensorToScalar` operator: they compile at the lax and strict levels, export to MindIR "
        "and match PYNATIVE_MODE, also as a loop bound (`range(int(t))`), a slice bound, a "
        "tuple index or a shape (measured). In PYNATIVE_MODE each one waits for the device "
        "and copies the value to the host: measured (CPU, 100 calls, noisy shared machine) "
        "`x / float(x.max())` took 1.8-2.5 ms per call against 0.07-0.12 ms for `x / x.max()` "
        "on (2, 3); GRAPH_MODE showed no difference beyond noise. Conversions of Python values "
        "(`int(x.shape[0])`, `float(self.ratio * 10)`) are not Tensors and are not reported."
    ),
    fix=(
        "Keep the value a Tensor (`ops.cast(t, ms.int32)`, `t.astype(...)`, `ops.select` "
        "instead of `if bool(t):`), or convert outside the Cell."
    ),
    flagged=(
        traced(
            """
            @ms.jit(capture_mode="trace")
            def fn(x):
                return x * float(x.max())
            """,
            trace=DIVERGES,
            title="`float(tensor)` in a traced function",
            lines=3,
            fields={"func": "float"},
        ),
        Example(
            """
            class Net(nn.Cell):
                def construct(self, x):
                    m = float(x.mean())
                    n = int(x.max())
                    return (x - m) * n
            """,
            lax=OK,
            strict=OK,
            export=OK,
            title="`int(t)` / `float(t)`",
            lines=(3, 4),
        ),
        Example(
            """
            class Net(nn.Cell):
                def construct(self, x):
                    if bool(x.sum() > 20):
                        return x * 2
                    return x

            def drive(call, target, inputs):
                x = Tensor(np.arange(6, dtype=np.float32).reshape(2, 3))
                return [call(x), call(x * 2)]
            """,
            lax=OK,
            strict=OK,
            title="`bool(t)`",
            lines=3,
        ),
    ),
    clean=(
        traced(
            """
            @ms.jit(capture_mode="trace")
            def fn(x):
                return x * x.max()
            """,
            trace=OK,
        ),
        passes(
            """
            class Net(nn.Cell):
                def __init__(self):
                    super().__init__()
                    self.ratio = 0.5

                def construct(self, x):
                    n = int(x.shape[0])
                    k = int(self.ratio * 10)
                    return x * n + float(k) + len(x.shape)
            """,
        ),
        passes(
            """
            class Net(nn.Cell):
                def construct(self, x):
                    m = x.mean()
                    n = x.max().astype(ms.int32)
                    return (x - m) * n
            """,
        ),
    ),
)


RULES = (
    TENSOR_ITEM_IN_GRAPH,
    TENSOR_TOLIST_IN_GRAPH,
    TENSOR_TO_PYTHON_SCALAR_IN_GRAPH,
)
