"""Functions jitted with ``capture_mode="bytecode"`` (PIJit): what it keeps from the first call, what it never
captures and the Python releases it runs on, beyond the other families' rules that also hold there.

PIJit compiles a function's bytecode into graphs and turns what it cannot capture into graph breaks that run in
Python between two graphs (``fullgraph=True`` makes the first call raise ``Unsupported`` instead). Measured with
MindSpore 2.10 (CPU) on Python 3.11, each example run under bytecode capture and compared with PYNATIVE over two
inputs.
"""

from graphlint.catalogue.model import DIVERGES, FAILS, OK, Rule, Severity, bytecoded, traced

E, W, I = Severity.ERROR, Severity.WARNING, Severity.INFO
FAMILY = "bytecode"

# message fields: {source}
HOST_ARRAY_FROZEN = Rule(
    id="E6401",
    symbol="host-array-frozen-in-bytecode",
    family=FAMILY,
    lax=E,
    strict=E,
    bytecode=E,
    bytecode_fullgraph=E,
    in_ast=False,
    message="`Tensor(...)` of a NumPy array made from `{source}` is kept as a constant of the graph after the "
            "break: every later call computes with the first call's array; compute it with mindspore.ops",
    summary="`Tensor(...)` of a NumPy array that changes between calls (`.asnumpy()` data, a sized "
            "`np.random` draw) used in further Tensor ops, in a function jitted with `capture_mode=\"bytecode\"`.",
    why=(
        "The NumPy call is a graph break; PIJit compiles the code after it with the array it got on the first "
        "call as a constant, and guards only the array's type and shape. Measured: `Tensor(np.tanh(x.asnumpy())) "
        "+ x` returned `tanh` of the first input plus the second input; `x + Tensor(np.random.rand(3))` added "
        "the first call's noise on every call (PYNATIVE, seeded alike, drew the same noise first, new noise "
        "second); also `x * Tensor(x.numpy() + 1)`, `ops.relu(Tensor(...))`, `Tensor(...) + 1`. Kept right "
        "(not reported): a NumPy scalar (`Tensor(np.mean(a))`, `x * "
        "np.random.rand()`), an array computed with such a scalar (`Tensor(e / e.sum())`: PIJit guards the "
        "scalar's value and recompiles when it changes), `np.abs(...)`, and a Tensor returned as it is, scaled "
        "by a Python number or reduced (`return Tensor(a) * 2`). With `fullgraph=True` the first call raises 'Unsupported function'."
    ),
    fix="Compute on the Tensor with mindspore.ops (`ops.tanh(x)`, `ops.clamp(x, 0)`), draw noise with "
        "`ops.rand_like(x)` / `ops.randn(...)`, or compute the array before the call and pass it as an argument.",
    flagged=(
        bytecoded(
            """
            @ms.jit(capture_mode="bytecode")
            def fn(x):
                return Tensor(np.tanh(x.asnumpy())) + x
            """,
            bytecode=DIVERGES,
            title="`Tensor(np.tanh(x.asnumpy())) + x` under bytecode capture",
            lines=3,
            fields={"source": "x.asnumpy()"},
        ),
        bytecoded(
            """
            @ms.jit(capture_mode="bytecode")
            def fn(x):
                noise = Tensor(np.random.rand(3).astype(np.float32))
                return x + noise
            """,
            bytecode=DIVERGES,
            title="NumPy noise made a Tensor under bytecode capture",
            lines=3,
            fields={"source": "np.random.rand(3)"},
        ),
        bytecoded(
            """
            @ms.jit(capture_mode="bytecode")
            def fn(x):
                mask = Tensor((x.asnumpy() > 0).astype(np.float32))
                return x * mask
            """,
            bytecode=DIVERGES,
            title="a mask made in NumPy under bytecode capture",
            lines=3,
            fields={"source": "x.asnumpy()"},
        ),
        bytecoded(
            """
            @ms.jit(capture_mode="bytecode", fullgraph=True)
            def fn(x):
                return Tensor(np.tanh(x.asnumpy())) + x
            """,
            bytecode=FAILS,
            error="Unsupported function",
            title="`Tensor(np.tanh(x.asnumpy())) + x` under bytecode capture with fullgraph",
            lines=3,
            fields={"source": "x.asnumpy()"},
        ),
    ),
    clean=(
        bytecoded(
            """
            @ms.jit(capture_mode="bytecode")
            def fn(x):
                return ops.tanh(x) + x
            """,
            bytecode=OK,
        ),
        bytecoded(
            """
            @ms.jit(capture_mode="bytecode")
            def fn(x):
                mean = np.mean(x.asnumpy())
                return x - Tensor(mean, ms.float32)
            """,
            bytecode=OK,
        ),
        bytecoded(
            """
            @ms.jit(capture_mode="bytecode")
            def fn(x):
                e = np.exp(x.asnumpy())
                weights = Tensor(e / e.sum())
                return (weights * x).sum()
            """,
            bytecode=OK,
        ),
        bytecoded(
            """
            @ms.jit(capture_mode="bytecode")
            def fn(x):
                clipped = np.clip(x.asnumpy(), 0, None)
                return Tensor(clipped) * 2
            """,
            bytecode=OK,
        ),
    ),
)

# message fields: {call}, {module}
SKIP_LIST_CALL = Rule(
    id="W6402",
    symbol="skip-list-call-in-bytecode",
    family=FAMILY,
    lax=W,
    strict=E,
    bytecode=W,
    bytecode_fullgraph=E,
    in_ast=False,
    message="`{call}` calls into `{module}`, a module PIJit never captures (its skip list): a graph break that "
            "runs in Python on every call, and `fullgraph=True` refuses it ('Unsupported function'); move it "
            "out of the function or use a mindspore.ops equivalent",
    summary="A call of a function of a module in PIJit's skip list (numpy, pandas, sklearn, tqdm, `copy`, "
            "`functools`, `random`, `re`, ... as listed by the installed MindSpore) in a function jitted with "
            "`capture_mode=\"bytecode\"`.",
    why=(
        "PIJit does not trace into the files of the modules in `SKIP_RULES` of "
        "`mindspore/graph/_utils/pijit_context.py` (the table `graphlint/analysis/generated/pijit_skip.py` is "
        "generated from it): a call into one ends the graph, runs in Python and starts another graph after it. "
        "Measured under `fullgraph=True`: `copy.deepcopy(x)`, `functools.reduce(...)`, `random.random()`, "
        "`re.findall(...)`, `float(np.sqrt(4.0))`, `os.path.join(...)` and NumPy constants (`Tensor(np.ones(3))`, "
        "`np.array([...])`) raised 'Unsupported function'. Not reported, measured to "
        "compile: classes and NumPy scalar types (`np.float32(2.0)`, `collections.OrderedDict()`) and `operator` "
        "functions (PIJit maps them). NumPy on Tensors (W5502), `os.environ` reads and logging have rules of "
        "their own."
    ),
    fix="Do the host work before or after the jitted function, or use the mindspore.ops equivalent (`x.copy()` "
        "for `copy.deepcopy(x)`, a loop of ops for `functools.reduce`, `ops.rand` for `random`).",
    flagged=(
        bytecoded(
            """
            import copy


            @ms.jit(capture_mode="bytecode")
            def fn(x):
                return copy.deepcopy(x) * 2
            """,
            bytecode=OK,
            title="`copy.deepcopy` under bytecode capture",
            lines=6,
            fields={"call": "copy.deepcopy(...)", "module": "copy"},
        ),
        bytecoded(
            """
            import copy


            @ms.jit(capture_mode="bytecode", fullgraph=True)
            def fn(x):
                return copy.deepcopy(x) * 2
            """,
            bytecode=FAILS,
            error="Unsupported function",
            title="`copy.deepcopy` under bytecode capture with fullgraph",
            lines=6,
            fields={"call": "copy.deepcopy(...)", "module": "copy"},
        ),
        bytecoded(
            """
            import functools
            import operator


            @ms.jit(capture_mode="bytecode", fullgraph=True)
            def fn(x):
                return functools.reduce(operator.add, [x, x * 2])
            """,
            bytecode=FAILS,
            error="Unsupported function",
            title="`functools.reduce` under bytecode capture with fullgraph",
            lines=7,
            fields={"call": "functools.reduce(...)", "module": "functools"},
        ),
    ),
    clean=(
        bytecoded(
            """
            import operator


            @ms.jit(capture_mode="bytecode", fullgraph=True)
            def fn(x):
                return operator.add(x, x) * np.float32(2.0)
            """,
            bytecode=OK,
        ),
        bytecoded(
            """
            import math


            @ms.jit(capture_mode="bytecode", fullgraph=True)
            def fn(x):
                return x.copy() * math.sqrt(4.0)
            """,
            bytecode=OK,
        ),
    ),
)

# message fields: (none)
NEXT_ON_ITERATOR = Rule(
    id="E6403",
    symbol="next-in-bytecode",
    family=FAMILY,
    lax=E,
    strict=E,
    bytecode=E,
    bytecode_fullgraph=E,
    in_ast=False,
    message="`next(...)` under bytecode capture: on an iterator of Tensors it returns a tuple (the item and the "
            "rest) instead of the item, silently, and on one of Python values it is a graph break ('Cannot infer "
            "the execution result' with `fullgraph=True`); index the sequence or unpack it",
    summary="The builtin `next(...)` in a function jitted with `capture_mode=\"bytecode\"`.",
    why=(
        "Measured: `it = iter([x, x * 2]); first = next(it); return first + next(it)` returned a tuple of "
        "Tensors and lists instead of `3 * x`, without an error; `next(iter(ops.split(x, 1)))` likewise; "
        "`next(iter([3.0, 4.0]))` ran in Python (a graph break) and `fullgraph=True` raised 'Cannot infer the "
        "execution result'; a generator's `next(gen)` raised a TypeError."
    ),
    fix="Index or unpack the sequence (`first, second = [x, x * 2]`, `items[0]`) instead of iterating by hand.",
    flagged=(
        bytecoded(
            """
            @ms.jit(capture_mode="bytecode")
            def fn(x):
                it = iter([x, x * 2])
                first = next(it)
                return first + next(it)


            def drive(call, target, inputs):
                for args in inputs:
                    yield type(call(*args)).__name__
            """,
            bytecode=DIVERGES,
            title="`next()` on an iterator of Tensors under bytecode capture",
            lines=(4, 5),
        ),
        bytecoded(
            """
            @ms.jit(capture_mode="bytecode", fullgraph=True)
            def fn(x):
                return x * next(iter([3.0, 4.0]))
            """,
            bytecode=FAILS,
            error="Cannot infer the execution result",
            title="`next()` on an iterator of numbers under bytecode capture with fullgraph",
            lines=3,
        ),
    ),
    clean=(
        bytecoded(
            """
            @ms.jit(capture_mode="bytecode", fullgraph=True)
            def fn(x):
                first, second = [x, x * 2]
                return first + second
            """,
            bytecode=OK,
        ),
    ),
)

# message fields: {cell}
CELL_CREATED = Rule(
    id="W6404",
    symbol="cell-created-in-bytecode",
    family=FAMILY,
    lax=W,
    strict=E,
    bytecode=W,
    bytecode_fullgraph=E,
    in_ast=False,
    message="`{cell}(...)` creates an `nn.Cell` in a function captured from bytecode: a graph break that builds "
            "a new Cell (new weights) on every call, and `fullgraph=True` refuses it ('Can not create nn.Cell in "
            "graph'); create it in `__init__`",
    summary="An `nn.Cell` (a MindSpore layer or a Cell class of the project) instantiated inside a function "
            "jitted with `capture_mode=\"bytecode\"`.",
    why=(
        "PIJit does not capture Cell construction. Measured: `layer = nn.ReLU(); return layer(x)` ran, in Python "
        "between graphs, and with `fullgraph=True` the first call raised 'Unsupported ... Can not create nn.Cell "
        "in graph'; a layer with weights (`nn.Dense(3, 3)`) is initialised anew on every call, in PYNATIVE too, "
        "so it never learns."
    ),
    fix="Create the layer once in `__init__` (`self.act = nn.ReLU()`) and call it in `construct`, or use the "
        "functional op (`ops.relu(x)`).",
    flagged=(
        bytecoded(
            """
            @ms.jit(capture_mode="bytecode")
            def fn(x):
                act = nn.ReLU()
                return act(x)
            """,
            bytecode=OK,
            title="`nn.ReLU()` created under bytecode capture",
            lines=3,
            fields={"cell": "nn.ReLU"},
        ),
        bytecoded(
            """
            @ms.jit(capture_mode="bytecode", fullgraph=True)
            def fn(x):
                act = nn.ReLU()
                return act(x)
            """,
            bytecode=FAILS,
            error="Can not create nn.Cell in graph",
            title="`nn.ReLU()` created under bytecode capture with fullgraph",
            lines=3,
            fields={"cell": "nn.ReLU"},
        ),
    ),
    clean=(
        bytecoded(
            """
            class Net(nn.Cell):
                def __init__(self):
                    super().__init__()
                    self.act = nn.ReLU()

                @ms.jit(capture_mode="bytecode", fullgraph=True)
                def construct(self, x):
                    return self.act(x)
            """,
            bytecode=OK,
            entry="Net",
        ),
    ),
)

_GLOBAL_CHANGED = '''

def drive(call, target, inputs):
    global SCALE
    for args in inputs:
        yield call(*args)
        SCALE = SCALE + 1.0
'''

# message fields: {construct}
EAGER_FALLBACK = Rule(
    id="W6405",
    symbol="bytecode-eager-fallback",
    family=FAMILY,
    lax=W,
    strict=W,
    bytecode=W,
    bytecode_fullgraph=W,
    in_ast=False,
    in_eager_fallback=True,
    message="this {construct} makes PIJit on Python 3.11 run the whole function eagerly, on every call (it "
            "logs 'JitCompileWithTry] got an unexpected c++ error' and compiles nothing, even with "
            "`fullgraph=True`); use Python 3.10 for bytecode capture, or the default `capture_mode=\"ast\"`",
    summary="On Python 3.11, a function jitted with `capture_mode=\"bytecode\"` that contains a `try` (no graph "
            "break after it), a `with` or a subscript of a Tensor (`x[0]`, `x[1:]`), or calls a helper with a "
            "Tensor subscript.",
    why=(
        "PIJit on Python 3.11 (which MindSpore's own PIJit tests do not cover) fails to analyse these "
        "functions and falls back to running them in Python: the results are right but nothing is compiled, "
        "silently but for an [ERROR] log line. Measured: `x * SCALE + x[0]`, `x[1:] * SCALE`, a `try` and a "
        "`with` around `x * SCALE` all followed a global changed between calls (a captured graph keeps the first "
        "value: W5204), and `fullgraph=True` did not raise; a Tensor subscript in a helper the function calls "
        "did the same (a helper's `try` did not). A subscript of a list (`items[1]`) is captured, and so is a "
        "`try` followed by a graph break (a NumPy or `random` call, `.asnumpy()`, a Tensor `if`): it kept the "
        "first call's values, so it is not reported. Since such a function returns PYNATIVE's results, "
        "graphlint reports nothing else in it (what a captured function would keep from the first call, or break "
        "on); a helper it calls is still captured as a function of its own (measured: its global read kept the "
        "first value) and checked. "
        "Python 3.10 captures these functions; 3.12 and later refuse bytecode capture (E6406). graphlint judges "
        "the Python it runs on (its configuration has no target Python)."
    ),
    fix="Run bytecode capture on Python 3.10, or jit the function with the default `capture_mode=\"ast\"`; "
        "or move the subscript / `try` / `with` out of the jitted function.",
    flagged=(
        bytecoded(
            """
            SCALE = 1.0


            @ms.jit(capture_mode="bytecode")
            def fn(x):
                return x * SCALE + x[0]
            """,
            driver=_GLOBAL_CHANGED,
            bytecode=OK,
            python="3.11",
            title="a Tensor subscript under bytecode capture on Python 3.11",
            lines=6,
            fields={"construct": "Tensor subscript"},
        ),
        bytecoded(
            """
            SCALE = 1.0


            @ms.jit(capture_mode="bytecode", fullgraph=True)
            def fn(x):
                try:
                    y = x * SCALE
                except ValueError:
                    y = x
                return y
            """,
            driver=_GLOBAL_CHANGED,
            bytecode=OK,
            python="3.11",
            title="a `try` under bytecode capture on Python 3.11",
            lines=6,
            fields={"construct": "try"},
        ),
    ),
    clean=(
        bytecoded(
            """
            @ms.jit(capture_mode="bytecode", fullgraph=True)
            def fn(x):
                items = [x, x * 2]
                return items[1] + 1
            """,
            bytecode=OK,
        ),
    ),
)

# message fields: {python}, {entry}
UNSUPPORTED_PYTHON = Rule(
    id="E6406",
    symbol="bytecode-unsupported-python",
    family=FAMILY,
    lax=E,
    strict=E,
    bytecode=E,
    bytecode_fullgraph=E,
    in_ast=False,
    message="bytecode capture does not run on Python {python}: every call of `{entry}` raises Unsupported('@jit("
            "capture_mode=\"bytecode\") does not support Python 3.12+'); use Python 3.10, or the default "
            "`capture_mode=\"ast\"`",
    summary="A function jitted with `capture_mode=\"bytecode\"`, linted on Python 3.12 or later.",
    why=(
        "PIJit's wrapper (`mindspore/graph/_utils/pijit_context.py`, `_PY312_OR_LATER`, read into "
        "`graphlint/analysis/generated/pijit_skip.py`) raises `Unsupported` on every call from Python 3.12 on, "
        "before running anything. graphlint judges the Python it runs on (its configuration has no target "
        "Python)."
    ),
    fix="Jit the function with the default `capture_mode=\"ast\"` (or `\"trace\"`), or run it on Python 3.10.",
    flagged=(
        bytecoded(
            """
            @ms.jit(capture_mode="bytecode")
            def fn(x):
                return x * 2
            """,
            bytecode=FAILS,
            error="does not support Python 3.12+",
            python=">=3.12",
            title="bytecode capture on Python 3.12",
            lines=2,
            fields={"entry": "fn"},
        ),
    ),
    clean=(
        traced(
            """
            @ms.jit(capture_mode="trace")
            def fn(x):
                return x * 2
            """,
            trace=OK,
        ),
        bytecoded(
            """
            @ms.jit(capture_mode="bytecode", fullgraph=True)
            def fn(x):
                return x * 2
            """,
            bytecode=OK,
            python="3.11",
        ),
    ),
)


RULES = (
    HOST_ARRAY_FROZEN,
    SKIP_LIST_CALL,
    NEXT_ON_ITERATOR,
    CELL_CREATED,
    EAGER_FALLBACK,
    UNSUPPORTED_PYTHON,
)
