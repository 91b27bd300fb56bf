"""Silent divergence: graph code that compiles, but Python in it runs once, at compile time.

GRAPH_MODE (and ``mindspore.jit``) parse ``construct`` and run the Python that
is not a Tensor operation while compiling: the value it produces is frozen into
the graph, and its side effects happen once, or never. PYNATIVE_MODE runs the
same Python on every call. Every rule here was measured with MindSpore 2.10
(CPU): see the examples, each one compiled by ``graphlint.validate.examples``.
"""

from graphlint.catalogue.model import (
    DIVERGES,
    Example,
    FAILS,
    OK,
    Rule,
    SKIP,
    Severity,
    bytecoded,
    diverges,
    fails,
    falls_back,
    passes,
    traced,
)

E, W, I = Severity.ERROR, Severity.WARNING, Severity.INFO
FAMILY = "divergence"

# message fields: {call} - the call as written, e.g. "random.random()" or "np.random.normal(...)"
PYTHON_RANDOM_IN_GRAPH = Rule(
    id="W5201",
    symbol="python-random-in-graph",
    family=FAMILY,
    lax=W,
    strict=W,
    trace=E,
    trace_message=(
        "`{call}` is drawn once, on the first call, and every later call of the traced function reuses that "
        "value; draw it outside and pass a Tensor argument"
    ),
    message=(
        "`{call}` is drawn once, when the graph is compiled, and every call reuses that value; "
        "use a MindSpore random op (ops.uniform, ops.standard_normal, ops.rand_like, nn.Dropout)"
    ),
    summary=(
        "A call into Python's `random` module or `numpy.random` (`random.random()`, "
        "`random.randint`, `np.random.rand()`, `np.random.normal`, ...) inside graph code."
    ),
    why=(
        "The graph compiler evaluates calls into `random` / `numpy.random` while it compiles and "
        "bakes the result into the graph as a constant. PYNATIVE_MODE draws a new number on every "
        "call; GRAPH_MODE and `jit(fullgraph=True)` return the first draw forever (measured with "
        "MindSpore 2.10: `x * random.random()` with `random.seed(0)` gives 0.844 on the first "
        "call and again 0.844 on the second, PYNATIVE gives 0.844 then 0.758; a "
        "`if random.random() < 0.5: flip` augmentation takes the same branch on every call). "
        "Neither level reports anything: strict does not reject it. MindSpore's own random ops "
        "(`ops.uniform`, `ops.standard_normal`, `ops.rand_like`, `ops.randn`, `ops.randint`, "
        "`nn.Dropout`) are graph operators and draw new values on every call at both levels."
    ),
    fix=(
        "Use a MindSpore random operator inside the graph (`ops.uniform(shape, Tensor(0.0), "
        "Tensor(1.0))`, `ops.standard_normal(shape)`, `ops.rand_like(x)`), or draw the value "
        "outside the Cell and pass it in as a Tensor argument. A value that should be drawn "
        "once may be drawn in `__init__`."
    ),
    flagged=(
        traced(
            """
            import random


            @ms.jit(capture_mode="trace")
            def fn(x):
                return x * random.random()
            """,
            trace=DIVERGES,
            title="`random.random()` in a traced function",
            lines=6,
        ),
        diverges(
            """
            import random

            class Net(nn.Cell):
                def construct(self, x):
                    return x * random.random()

            def drive(call, target, inputs):
                random.seed(0)
                return [call(*args) for args in inputs]
            """,
            title="`random.random()` / `random.randint()`",
            lines=5,
        ),
        diverges(
            """
            class Net(nn.Cell):
                def construct(self, x):
                    noise = Tensor(np.random.normal(0.0, 1.0, (2, 3)).astype(np.float32))
                    return x + noise

            def drive(call, target, inputs):
                np.random.seed(0)
                return [call(*args) for args in inputs]
            """,
            title="`np.random.normal()` / `np.random.rand()`",
            lines=3,
        ),
        diverges(
            """
            import random

            class Net(nn.Cell):
                def construct(self, x):
                    if random.random() < 0.5:
                        return x[:, ::-1]
                    return x

            def drive(call, target, inputs):
                random.seed(3)
                return [call(*inputs[0]) for _ in range(6)]
            """,
            title="random branch (`if random.random() < p:`)",
            lines=5,
        ),
    ),
    clean=(
        traced(
            """
            import random


            @ms.jit(capture_mode="trace")
            def fn(x, scale):
                return x * scale


            def drive(call, target, inputs):
                for args in inputs:
                    yield call(*args, Tensor(random.random(), ms.float32))
            """,
            trace=OK,
        ),
        # MindSpore random ops draw on every call: the outputs differ between calls at every level.
        passes(
            """
            class Net(nn.Cell):
                def construct(self, x):
                    u = ops.uniform(x.shape, Tensor(0.0), Tensor(1.0))
                    n = ops.standard_normal(x.shape)
                    return u, n

            def drive(call, target, inputs):
                u1, n1 = call(*inputs[0])
                u2, n2 = call(*inputs[0])
                in_range = bool(((u1 >= 0) & (u1 < 1)).all())
                return [bool((u1 != u2).any()), bool((n1 != n2).any()), in_range]
            """,
        ),
        passes(
            """
            class Net(nn.Cell):
                def __init__(self):
                    super().__init__()
                    self.dropout = nn.Dropout(p=0.5)

                def construct(self, x):
                    return self.dropout(x)

            def drive(call, target, inputs):
                target.set_train(True)
                x = Tensor(np.ones((64, 64), np.float32))
                a = call(x)
                b = call(x)
                return [bool((a != b).any()), bool((a == 0).any())]
            """,
        ),
        # Drawn once in __init__: the same value in both modes (random is seeded at import).
        passes(
            """
            import random

            random.seed(0)

            class Net(nn.Cell):
                def __init__(self):
                    super().__init__()
                    self.scale = random.random()

                def construct(self, x):
                    return x * self.scale
            """,
        ),
    ),
)


# message fields: {call} - e.g. "time.time()"
WALL_CLOCK_IN_GRAPH = Rule(
    id="W5202",
    symbol="wall-clock-in-graph",
    family=FAMILY,
    lax=W,
    strict=W,
    message=(
        "`{call}` is read once, when the graph is compiled; measure time outside the Cell "
        "or pass it in as a Tensor argument"
    ),
    summary=(
        "A clock read (`time.time()`, `time.perf_counter()`, `time.monotonic()`, "
        "`datetime.now()`, ...) inside graph code."
    ),
    why=(
        "The compiler runs the clock call while compiling and freezes its result into the graph: "
        "every later call returns the compile-time timestamp. Measured with MindSpore 2.10: two "
        "calls 0.3 s apart return different values in PYNATIVE_MODE and identical values in "
        "GRAPH_MODE and under `jit(fullgraph=True)`; strict does not reject the call."
    ),
    fix="Read the clock outside the graph (around the Cell call) and pass the value in as a Tensor.",
    flagged=(
        diverges(
            """
            import time

            class Net(nn.Cell):
                def construct(self, x):
                    t = time.time()
                    return x * 0 + (t - int(t))

            def drive(call, target, inputs):
                a = call(*inputs[0])
                time.sleep(0.3)
                b = call(*inputs[1])
                return [bool((a != b).all())]
            """,
            title="`time.time()`",
            lines=5,
        ),
    ),
    clean=(
        passes(
            """
            class Net(nn.Cell):
                def construct(self, x, t):
                    return x * 0 + t

            def drive(call, target, inputs):
                x = inputs[0][0]
                return [call(x, Tensor(1.0)), call(x, Tensor(2.0))]
            """,
        ),
    ),
)


# A module-level `drive` for captured examples: the variable is "1", then "2", one call each.
_ENVIRON_CHANGED = """

def drive(call, target, inputs):
    for index, args in enumerate(inputs):
        os.environ["GRAPHLINT_SCALE"] = str(index + 1)
        yield call(*args)
"""


# message fields: {call} - e.g. "os.environ['SCALE']" or "os.getenv('DEBUG')"
ENVIRON_READ_IN_GRAPH = Rule(
    id="W5203",
    symbol="environ-read-in-graph",
    family=FAMILY,
    lax=W,
    strict=W,
    trace=E,
    trace_message=(
        "`{call}` is read on the first call only: every later call of the traced function keeps that value; "
        "read the variable outside and pass the value as a Tensor argument"
    ),
    bytecode=E,
    bytecode_fullgraph=E,
    bytecode_message=(
        "`{call}` keeps the value it had on the first call: bytecode capture does not guard a value of the "
        "environment that feeds a computation (only one that decides an `if`); read the variable outside and "
        "pass the value as a Tensor argument"
    ),
    message=(
        "`{call}` is read once, when the graph is compiled; read the variable in `__init__` "
        "or outside the Cell and pass the value in"
    ),
    summary="`os.environ[...]`, `os.environ.get(...)` or `os.getenv(...)` read inside graph code.",
    why=(
        "The environment is read while the graph is compiled and the value (and any branch that "
        "depends on it) is frozen into the graph. Measured with MindSpore 2.10: setting "
        "`GL_SCALE=2` then `GL_SCALE=3` between two calls of `x * float(os.environ['GL_SCALE'])` "
        "gives x*2 then x*3 in PYNATIVE_MODE, x*2 twice in GRAPH_MODE and under "
        "`jit(fullgraph=True)`; an `if os.getenv(...) == '1':` branch is likewise frozen. "
        "Strict does not reject it. Under `capture_mode=\"bytecode\"` (with or without `fullgraph=True`) "
        "a value that feeds a computation keeps its first value too (`x * float(os.getenv(...))`, "
        "`range(int(...))`, `x * (os.getenv(...) == '1')`), while one that only decides a condition "
        "(`if os.getenv(...) == '1':`, `if 'X' in os.environ:`, a flag bound to a comparison then tested) is "
        "guarded by PIJit and followed the variable: only the first is reported there."
    ),
    fix=(
        "Read the variable once in `__init__` (and treat it as configuration), or pass the value "
        "as an argument when it must change between calls."
    ),
    flagged=(
        traced(
            """
            import os


            @ms.jit(capture_mode="trace")
            def fn(x):
                return x * float(os.environ.get("GRAPHLINT_SCALE", "1"))
            """,
            driver="""

def drive(call, target, inputs):
    for index, args in enumerate(inputs):
        os.environ["GRAPHLINT_SCALE"] = str(index + 1)
        yield call(*args)
""",
            trace=DIVERGES,
            title="`os.environ` read in a traced function",
            lines=6,
        ),
        bytecoded(
            """
            import os


            @ms.jit(capture_mode="bytecode")
            def fn(x):
                return x * float(os.environ["GRAPHLINT_SCALE"])
            """,
            driver=_ENVIRON_CHANGED,
            bytecode=DIVERGES,
            title="`os.environ[...]` feeding a computation (bytecode)",
            lines=6,
            fields={"call": "os.environ['GRAPHLINT_SCALE']"},
        ),
        bytecoded(
            """
            import os


            @ms.jit(capture_mode="bytecode", fullgraph=True)
            def fn(x):
                steps = int(os.getenv("GRAPHLINT_SCALE", "1"))
                for _ in range(steps):
                    x = x + 1
                return x
            """,
            driver=_ENVIRON_CHANGED,
            bytecode=DIVERGES,
            title="`os.getenv()` feeding a computation (bytecode, fullgraph)",
            lines=6,
        ),
        diverges(
            """
            import os

            class Net(nn.Cell):
                def construct(self, x):
                    return x * float(os.environ["GL_SCALE"])

            def drive(call, target, inputs):
                out = []
                for scale in ("2", "3"):
                    os.environ["GL_SCALE"] = scale
                    out.append(call(*inputs[0]))
                return out
            """,
            title="`os.environ[...]`",
            lines=5,
        ),
        diverges(
            """
            import os

            class Net(nn.Cell):
                def construct(self, x):
                    if os.getenv("GL_DOUBLE") == "1":
                        return x * 2
                    return x

            def drive(call, target, inputs):
                out = []
                for flag in ("0", "1"):
                    os.environ["GL_DOUBLE"] = flag
                    out.append(call(*inputs[0]))
                return out
            """,
            title="`os.getenv()` / `os.environ.get()`",
            lines=5,
        ),
    ),
    clean=(
        traced(
            """
            import os


            @ms.jit(capture_mode="trace")
            def fn(x, scale):
                return x * scale
            """,
            driver="""

def drive(call, target, inputs):
    for index, args in enumerate(inputs):
        os.environ["GRAPHLINT_SCALE"] = str(index + 1)
        yield call(*args, Tensor(float(os.environ["GRAPHLINT_SCALE"]), ms.float32))
""",
            trace=OK,
        ),
        # Bytecode capture guards a value that only decides a condition: the branch follows the variable.
        bytecoded(
            """
            import os


            @ms.jit(capture_mode="bytecode", fullgraph=True)
            def fn(x):
                if os.getenv("GRAPHLINT_SCALE") == "2":
                    return x * 2
                return x
            """,
            driver=_ENVIRON_CHANGED,
            bytecode=OK,
        ),
        # Read in __init__: both modes use the value seen at construction time.
        passes(
            """
            import os

            os.environ["GL_SCALE"] = "2"

            class Net(nn.Cell):
                def __init__(self):
                    super().__init__()
                    self.scale = float(os.environ["GL_SCALE"])

                def construct(self, x):
                    return x * self.scale

            def drive(call, target, inputs):
                out = []
                for scale in ("2", "3"):
                    os.environ["GL_SCALE"] = scale
                    out.append(call(*inputs[0]))
                return out
            """,
        ),
    ),
)


# message fields: {name} - the global's name
MUTABLE_GLOBAL_IN_GRAPH = Rule(
    id="W5204",
    symbol="mutable-global-in-graph",
    family=FAMILY,
    lax=W,
    strict=W,
    trace=E,
    trace_message=(
        "global `{name}` is read on the first call only: later calls of the traced function keep that value "
        "though the module changes it; pass it as a Tensor argument"
    ),
    bytecode=E,
    bytecode_fullgraph=E,
    bytecode_message=(
        "global `{name}` keeps the value it had on the first call: bytecode capture does not guard module "
        "globals, so later calls reuse it though the module changes it; pass it as a Tensor argument"
    ),
    message=(
        "global `{name}` is frozen into the graph when it is compiled, but the module changes it; "
        "pass the value as an argument (or keep it in a Parameter updated with ops.assign)"
    ),
    summary=(
        "Graph code reads a module-level global that the module rebinds (`global {name}` "
        "assignment in a function) or mutates (`NAME[key] = ...`, `NAME.update(...)`) - "
        "mutable configuration."
    ),
    why=(
        "Globals read by graph code are constants of the compiled graph: their value at the first "
        "call is baked in, and the graph is not recompiled when the global changes. Measured with "
        "MindSpore 2.10: `x * SCALE` with `SCALE` changed from 2.0 to 3.0 between calls gives "
        "x*2 then x*3 in PYNATIVE_MODE, x*2 twice in GRAPH_MODE and under `jit(fullgraph=True)`; "
        "the same holds for an item of a global dict (`CONFIG['scale']`). Globals that are never "
        "changed (constants such as `EPS = 1e-6`, `np.pi`, `np.float32(2.0)`) are fine."
    ),
    fix=(
        "Pass changing values as arguments of `construct`, or hold them in a `Parameter` "
        "(`requires_grad=False`) and change it with `ops.assign`. Keep module globals constant."
    ),
    flagged=(
        bytecoded(
            """
            SCALE = 1.0


            @ms.jit(capture_mode="bytecode")
            def fn(x):
                return x * SCALE
            """,
            driver="""

def drive(call, target, inputs):
    global SCALE
    for args in inputs:
        yield call(*args)
        SCALE = SCALE + 1.0
""",
            bytecode=DIVERGES,
            title="a global changed between calls (bytecode)",
            lines=6,
            fields={"name": "SCALE"},
        ),
        bytecoded(
            """
            SCALE = 1.0


            @ms.jit(capture_mode="bytecode", fullgraph=True)
            def fn(x):
                return x * SCALE
            """,
            driver="""

def drive(call, target, inputs):
    global SCALE
    for args in inputs:
        yield call(*args)
        SCALE = SCALE + 1.0
""",
            bytecode=DIVERGES,
            title="a global changed between calls (bytecode, fullgraph)",
            lines=6,
            fields={"name": "SCALE"},
        ),
        traced(
            """
            SCALE = 1.0


            @ms.jit(capture_mode="trace")
            def fn(x):
                return x * SCALE


            def drive(call, target, inputs):
                global SCALE
                for args in inputs:
                    yield call(*args)
                    SCALE = SCALE + 1.0
            """,
            trace=DIVERGES,
            title="a global changed between traced calls",
            lines=6,
            fields={"name": "SCALE"},
        ),
        diverges(
            """
            SCALE = 2.0

            def set_scale(value):
                global SCALE
                SCALE = value

            class Net(nn.Cell):
                def construct(self, x):
                    return x * SCALE

            def drive(call, target, inputs):
                out = [call(*inputs[0])]
                set_scale(3.0)
                out.append(call(*inputs[0]))
                return out
            """,
            title="global rebound between calls",
            lines=9,
        ),
        diverges(
            """
            CONFIG = {"scale": 2.0}

            class Net(nn.Cell):
                def construct(self, x):
                    return x * CONFIG["scale"]

            def drive(call, target, inputs):
                out = [call(*inputs[0])]
                CONFIG["scale"] = 3.0
                out.append(call(*inputs[0]))
                return out
            """,
            title="global dict item changed between calls",
            lines=5,
        ),
    ),
    clean=(
        bytecoded(
            """
            SCALE = 1.0


            @ms.jit(capture_mode="bytecode")
            def fn(x, scale):
                return x * scale
            """,
            driver="""

def drive(call, target, inputs):
    global SCALE
    for args in inputs:
        yield call(*args, Tensor(SCALE, ms.float32))
        SCALE = SCALE + 1.0
""",
            bytecode=OK,
        ),
        traced(
            """
            SCALE = 1.0


            @ms.jit(capture_mode="trace")
            def fn(x, scale):
                return x * scale


            def drive(call, target, inputs):
                global SCALE
                for args in inputs:
                    yield call(*args, Tensor(SCALE, ms.float32))
                    SCALE = SCALE + 1.0
            """,
            trace=OK,
        ),
        passes(
            """
            import math

            EPS = 1e-6

            class Net(nn.Cell):
                def construct(self, x):
                    return x * np.float32(2.0) + np.pi + math.e + EPS
            """,
        ),
        passes(
            """
            class Net(nn.Cell):
                def construct(self, x, scale):
                    return x * scale

            def drive(call, target, inputs):
                x = inputs[0][0]
                return [call(x, Tensor(2.0)), call(x, Tensor(3.0))]
            """,
        ),
    ),
)


# message fields: {name} - the global's name
GLOBAL_WRITE_IN_GRAPH = Rule(
    id="W5205",
    symbol="global-write-in-graph",
    family=FAMILY,
    lax=W,
    strict=W,
    trace=E,
    trace_message=(
        "`global {name}` written in a traced function: the write runs on the first call only; keep the state "
        "outside the traced function"
    ),
    bytecode=E,
    bytecode_fullgraph=E,
    bytecode_message=(
        "`global {name}` written in a function captured from bytecode: the write runs on the first call only;"
        " keep the state outside the jitted function"
    ),
    message=(
        "`global {name}` written in graph code: the module global never changes and the graph "
        "does not see the new value; return the value, or keep it in a Parameter updated with "
        "ops.assign_add"
    ),
    summary="A `global` statement followed by an assignment (`COUNT += 1`) inside graph code.",
    why=(
        "Graph code cannot write module globals. Measured with MindSpore 2.10: with "
        "`global COUNT; COUNT += 1; return x + COUNT` (or `COUNT = COUNT + 1`), PYNATIVE_MODE "
        "returns x+1, x+2 and leaves COUNT == 2; GRAPH_MODE and `jit(fullgraph=True)` return "
        "x+0 on both calls and leave COUNT == 0: the write is silently dropped and even the read "
        "after it sees the old value. No level reports an error."
    ),
    fix=(
        "Keep the counter in a `Parameter(Tensor(0, ms.int32), requires_grad=False)` and update "
        "it with `ops.assign_add`, or return the value and update the global outside the Cell."
    ),
    flagged=(
        bytecoded(
            """
            CALLS = 0


            @ms.jit(capture_mode="bytecode")
            def fn(x):
                global CALLS
                CALLS = CALLS + 1
                return x * 2
            """,
            driver="""

def drive(call, target, inputs):
    for args in inputs:
        yield call(*args), CALLS
""",
            bytecode=DIVERGES,
            title="a global written (bytecode)",
            lines=7,
            fields={"name": "CALLS"},
        ),
        bytecoded(
            """
            CALLS = 0


            @ms.jit(capture_mode="bytecode", fullgraph=True)
            def fn(x):
                global CALLS
                CALLS = CALLS + 1
                return x * 2
            """,
            driver="""

def drive(call, target, inputs):
    for args in inputs:
        yield call(*args), CALLS
""",
            bytecode=DIVERGES,
            title="a global written (bytecode, fullgraph)",
            lines=7,
            fields={"name": "CALLS"},
        ),
        traced(
            """
            CALLS = 0


            @ms.jit(capture_mode="trace")
            def fn(x):
                global CALLS
                CALLS = CALLS + 1
                return x * 2


            def drive(call, target, inputs):
                for args in inputs:
                    yield call(*args), CALLS
            """,
            trace=DIVERGES,
            title="a global written in a traced function",
            lines=7,
            fields={"name": "CALLS"},
        ),
        diverges(
            """
            COUNT = 0

            class Net(nn.Cell):
                def construct(self, x):
                    global COUNT
                    COUNT += 1
                    return x + COUNT

            def drive(call, target, inputs):
                out = [call(*args) for args in inputs]
                out.append(COUNT)
                return out
            """,
            title="`global NAME` + assignment",
            lines=6,
        ),
    ),
    clean=(
        bytecoded(
            """
            CALLS = 0


            @ms.jit(capture_mode="bytecode")
            def fn(x):
                return x * 2
            """,
            driver="""

def drive(call, target, inputs):
    global CALLS
    for args in inputs:
        CALLS = CALLS + 1
        yield call(*args), CALLS
""",
            bytecode=OK,
        ),
        traced(
            """
            CALLS = 0


            @ms.jit(capture_mode="trace")
            def fn(x):
                return x * 2


            def drive(call, target, inputs):
                global CALLS
                for args in inputs:
                    CALLS = CALLS + 1
                    yield call(*args), CALLS
            """,
            trace=OK,
        ),
        passes(
            """
            class Net(nn.Cell):
                def __init__(self):
                    super().__init__()
                    self.steps = Parameter(Tensor(0, ms.int32), name="steps", requires_grad=False)

                def construct(self, x):
                    ops.assign_add(self.steps, Tensor(1, ms.int32))
                    return x * 2

            def drive(call, target, inputs):
                out = [call(*args) for args in inputs]
                out.append(target.steps.value())
                return out
            """,
        ),
    ),
)


# message fields: {call} - e.g. "logging.info(...)", "logger.warning(...)", "warnings.warn(...)"
LOGGING_IN_GRAPH = Rule(
    id="W5206",
    symbol="logging-in-graph",
    family=FAMILY,
    lax=W,
    strict=W,
    trace=E,
    trace_message=(
        "`{call}` runs on the first call only: a traced function replays Tensor ops, so later calls log "
        "nothing; log the outputs after the call"
    ),
    message=(
        "`{call}` runs once, when the graph is compiled, not on every call; use print() or "
        "ops.print_ (graph Print ops run on every call) or log outside the Cell"
    ),
    summary=(
        "A `logging` call (`logging.info`, `logger.warning`, ...) or `warnings.warn` inside "
        "graph code."
    ),
    why=(
        "The compiler executes these Python calls while it compiles the graph; they are not part "
        "of the compiled graph. Measured with MindSpore 2.10: a handler attached to the logger "
        "receives 2 records for 2 calls in PYNATIVE_MODE but 1 record in GRAPH_MODE and under "
        "`jit(fullgraph=True)`; `warnings.warn` likewise fires once. By contrast `print(...)` and `ops.print_` "
        "become a graph Print operator and print on every call at both levels (the text format "
        "differs slightly from PYNATIVE), so they are not reported."
    ),
    fix=(
        "Log outside the Cell (around the call), or use `print(...)` / `ops.print_(...)` in graph "
        "code when the message must appear on every call."
    ),
    flagged=(
        traced(
            """
            import logging

            LOG = logging.getLogger("graphlint_example")


            @ms.jit(capture_mode="trace")
            def fn(x):
                LOG.warning("a step")
                return x * 2
            """,
            driver="""

def drive(call, target, inputs):
    records = []
    handler = logging.Handler()
    handler.emit = records.append
    LOG.addHandler(handler)
    for args in inputs:
        yield call(*args), len(records)
""",
            trace=DIVERGES,
            title="logging in a traced function",
            lines=8,
        ),
        diverges(
            """
            import logging

            class ListHandler(logging.Handler):
                def __init__(self):
                    super().__init__()
                    self.records = []

                def emit(self, record):
                    self.records.append(record)

            HANDLER = ListHandler()
            LOGGER = logging.getLogger("graphlint_probe")
            LOGGER.addHandler(HANDLER)
            LOGGER.setLevel(logging.INFO)

            class Net(nn.Cell):
                def construct(self, x):
                    LOGGER.info("forward")
                    return x * 2

            def drive(call, target, inputs):
                out = [call(*args) for args in inputs]
                out.append(len(HANDLER.records))
                return out
            """,
            title="`logger.info()` / `logging.info()`",
            lines=18,
        ),
        diverges(
            """
            import warnings

            class Net(nn.Cell):
                def construct(self, x):
                    warnings.warn("slow path")
                    return x * 2

            def drive(call, target, inputs):
                with warnings.catch_warnings(record=True) as caught:
                    warnings.simplefilter("always")
                    out = [call(*args) for args in inputs]
                out.append(len(caught))
                return out
            """,
            title="`warnings.warn()`",
            lines=5,
        ),
    ),
    clean=(
        traced(
            """
            import logging

            LOG = logging.getLogger("graphlint_example")


            @ms.jit(capture_mode="trace")
            def fn(x):
                return x * 2
            """,
            driver="""

def drive(call, target, inputs):
    records = []
    handler = logging.Handler()
    handler.emit = records.append
    LOG.addHandler(handler)
    for args in inputs:
        LOG.warning("a step")
        yield call(*args), len(records)
""",
            trace=OK,
        ),
        passes(
            """
            import functools
            import logging


            class OnceLogger(logging.Logger):
                @functools.lru_cache(None)
                def warning_once(self, message):
                    self.warning(message)


            logger = OnceLogger("model")


            class Net(nn.Cell):
                def construct(self, x):
                    logger.warning_once("the slow path is used")
                    return x * 2
            """,
        ),
        # print() compiles to a Print operator that runs on every call.
        passes(
            """
            class Net(nn.Cell):
                def construct(self, x):
                    print("x sum:", x.sum())
                    ops.print_("x max:", x.max())
                    return x * 2
            """,
        ),
        passes(
            """
            import logging

            logger = logging.getLogger("model")


            class Block(nn.Cell):
                def construct(self, x, mask=None):
                    if mask is not None:  # no call passes a mask: type inference drops the branch
                        logger.warning("masking the input")
                        x = x * mask
                    return x


            class Net(nn.Cell):
                def __init__(self):
                    super().__init__()
                    self.block = Block()

                def construct(self, x):
                    return self.block(x) * 2
            """,
            title="logging under `if arg is not None:` where no call passes the argument",
        ),
    ),
)


# message fields: {expr} - the mutation as written, e.g. "CALLS.append(...)", "STATS[...] = ...",
#                 {target} - the container, e.g. "CALLS", "self.history"
PYTHON_CONTAINER_MUTATION_IN_GRAPH = Rule(
    id="W5207",
    symbol="python-container-mutation-in-graph",
    family=FAMILY,
    lax=W,
    strict=W,
    trace=E,
    trace_message=(
        "`{expr}` mutates the Python container `{target}` on the first call only: a traced function replays "
        "Tensor ops, so later calls leave it unchanged; keep the container outside the traced function"
    ),
    bytecode=E,
    bytecode_fullgraph=E,
    bytecode_message=(
        "`{expr}` mutates the Python container `{target}` on the first call only: bytecode capture replays "
        "the graph without it; keep the container outside the jitted function"
    ),
    message=(
        "`{expr}` mutates the Python container `{target}` from graph code: the graph works on a "
        "compile-time copy and the host object is not reliably updated; return the values instead"
    ),
    summary=(
        "Graph code mutates a Python list or dict that lives outside the call: a module-level "
        "container or a `self.<attr>` container (`append`, `extend`, `insert`, `pop`, `update`, "
        "`clear`, or `GLOBAL[key] = value`)."
    ),
    why=(
        "Lists and dicts that graph code reads are converted into graph constants at compile "
        "time; mutating them mutates that copy. Measured with MindSpore 2.10: `CALLS.append(1)` "
        "in `construct` (or in a helper it calls) leaves `len(CALLS) == 0` after two GRAPH_MODE "
        "or `jit(fullgraph=True)` calls (PYNATIVE: 2); `STATS['calls'] = ...` leaves the dict "
        "empty; `self.history.append(1); return x * len(self.history)` returns x*0 in GRAPH_MODE "
        "(x*1 then x*2 in PYNATIVE) and leaves `net.history` empty; `list.clear()`, "
        "`dict.update()` / `clear()` / `setdefault()` are dropped the same way. At the lax level "
        "a few list methods (`extend`, `insert`, `pop`) are instead run by the interpreter on "
        "every call and match PYNATIVE, but strict drops them too (`BUF.extend([1, 2])` twice: "
        "7 items in PYNATIVE and lax, 3 under `jit(fullgraph=True)`). No level reports an "
        "error, except strict for dict methods it does not know (`setdefault`, `pop`). "
        "Item assignment on a `self` dict (`self.cache[k] = v`) is a different case: strict "
        "rejects it (see attribute-write-in-graph)."
    ),
    fix=(
        "Return the values from `construct` and collect them outside the Cell; for counters use "
        "a `Parameter` and `ops.assign_add`. Local lists built and consumed inside `construct` "
        "are fine."
    ),
    flagged=(
        bytecoded(
            """
            HISTORY = []


            @ms.jit(capture_mode="bytecode")
            def fn(x):
                HISTORY.append(1)
                return x * 2
            """,
            driver="""

def drive(call, target, inputs):
    for args in inputs:
        yield call(*args), len(HISTORY)
""",
            bytecode=DIVERGES,
            title="a global list appended to (bytecode)",
            lines=6,
            fields={"target": "HISTORY"},
        ),
        bytecoded(
            """
            HISTORY = []


            @ms.jit(capture_mode="bytecode", fullgraph=True)
            def fn(x):
                HISTORY.append(1)
                return x * 2
            """,
            driver="""

def drive(call, target, inputs):
    for args in inputs:
        yield call(*args), len(HISTORY)
""",
            bytecode=DIVERGES,
            title="a global list appended to (bytecode, fullgraph)",
            lines=6,
            fields={"target": "HISTORY"},
        ),
        traced(
            """
            HISTORY = []


            @ms.jit(capture_mode="trace")
            def fn(x):
                HISTORY.append(1)
                return x * 2


            def drive(call, target, inputs):
                for args in inputs:
                    yield call(*args), len(HISTORY)
            """,
            trace=DIVERGES,
            title="a global list appended to in a traced function",
            lines=6,
            fields={"target": "HISTORY"},
        ),
        diverges(
            """
            CALLS = []

            def log_call(x):
                CALLS.append(1)

            class Net(nn.Cell):
                def construct(self, x):
                    log_call(x)
                    return x * 2

            def drive(call, target, inputs):
                out = [call(*args) for args in inputs]
                out.append(len(CALLS))
                return out
            """,
            title="module-level list `.append()`",
            lines=4,
        ),
        diverges(
            """
            class Net(nn.Cell):
                def __init__(self):
                    super().__init__()
                    self.groups = [[1, 2], [3]]

                def construct(self, x):
                    self.groups[0].append(1)
                    return x * len(self.groups[0])

            def drive(call, target, inputs):
                out = [call(*args) for args in inputs]
                out.append(len(target.groups[0]))
                return out
            """,
            strict=FAILS,
            error="should be initialized as a 'Parameter'",
            inputs="[(Tensor(np.ones((2, 3), np.float32)),)] * 2",
            title="`.append()` on an item of a `self` list",
            lines=7,
            fields={"target": "self.groups[0]"},
        ),
        diverges(
            """
            STATS = {}

            class Net(nn.Cell):
                def construct(self, x):
                    STATS["calls"] = STATS.get("calls", 0) + 1
                    return x * 2

            def drive(call, target, inputs):
                out = [call(*args) for args in inputs]
                out.append(len(STATS))
                return out
            """,
            title="module-level dict item assignment",
            lines=5,
        ),
        diverges(
            """
            class Net(nn.Cell):
                def __init__(self):
                    super().__init__()
                    self.history = []

                def construct(self, x):
                    self.history.append(1)
                    return x * len(self.history)

            def drive(call, target, inputs):
                out = [call(*args) for args in inputs]
                out.append(len(target.history))
                return out
            """,
            title="`self.<list>.append()`",
            lines=7,
        ),
        Example(
            """
            BUF = [7, 8, 9]

            class Net(nn.Cell):
                def construct(self, x):
                    BUF.extend([1, 2])
                    return x * 2

            def drive(call, target, inputs):
                out = [call(*args) for args in inputs]
                out.append(len(BUF))
                return out
            """,
            lax=OK,
            strict=DIVERGES,
            title="module-level list `.extend()` / `.insert()` / `.pop()`",
            lines=5,
        ),
    ),
    clean=(
        bytecoded(
            """
            HISTORY = []


            @ms.jit(capture_mode="bytecode")
            def fn(x):
                return x * 2
            """,
            driver="""

def drive(call, target, inputs):
    for args in inputs:
        HISTORY.append(1)
        yield call(*args), len(HISTORY)
""",
            bytecode=OK,
        ),
        traced(
            """
            HISTORY = []


            @ms.jit(capture_mode="trace")
            def fn(x):
                return x * 2


            def drive(call, target, inputs):
                for args in inputs:
                    HISTORY.append(1)
                    yield call(*args), len(HISTORY)
            """,
            trace=OK,
        ),
        # A local list built and consumed inside construct is fine.
        passes(
            """
            class Net(nn.Cell):
                def construct(self, x):
                    parts = []
                    for i in range(3):
                        parts.append(x * i)
                    return ops.stack(parts)
            """,
        ),
    ),
)


# message fields: {attr} - the attribute name, {method} - the method (or place) that reassigns it
HOST_ATTRIBUTE_CHANGE_BETWEEN_CALLS = Rule(
    id="W5208",
    symbol="host-attribute-change-between-calls",
    family=FAMILY,
    lax=W,
    strict=W,
    message=(
        "`self.{attr}` is frozen into the graph when it is compiled, but `{method}` changes it; "
        "make it a Parameter changed with ops.assign, or pass it as an argument"
    ),
    summary=(
        "`construct` reads a plain (non-Parameter) attribute - a Python number, string, list or "
        "a Tensor - that is reassigned outside `__init__` (in another method, or on the "
        "instance from outside)."
    ),
    why=(
        "The compiled graph is cached per Cell and input signature; plain attributes are compile-"
        "time constants and changing one does not trigger a recompilation. Measured with "
        "MindSpore 2.10: `net.scale` changed from 2.0 to 3.0 between calls gives x*2 then x*3 in "
        "PYNATIVE_MODE, x*2 twice in GRAPH_MODE and under `jit(fullgraph=True)`; the same for a "
        "Tensor attribute replaced by another Tensor and for an item of a list attribute. "
        "`Cell.set_train()` on the Cell that is called is the exception: it recompiles and "
        "matches PYNATIVE at both levels, so it is not reported; but assigning `.training` "
        "directly, or calling `set_train()` only on a sub-Cell after the first call, is frozen "
        "like any other attribute (measured). A `Parameter` changed with `ops.assign` "
        "is seen by every later call at both levels; note that `Parameter.set_data(...)` / "
        "`assign_value(...)` between calls is seen in GRAPH_MODE but NOT by `mindspore.jit(cell)` "
        "called in PYNATIVE_MODE (measured: the old value is used), so prefer `ops.assign`."
    ),
    fix=(
        "Hold values that change between calls in a `Parameter(..., requires_grad=False)` and "
        "change it with `ops.assign(param, value)`, or pass them as arguments of `construct`."
    ),
    flagged=(
        diverges(
            """
            class Net(nn.Cell):
                def __init__(self):
                    super().__init__()
                    self.scale = 2.0

                def set_scale(self, scale):
                    self.scale = scale

                def construct(self, x):
                    return x * self.scale

            def drive(call, target, inputs):
                out = [call(*inputs[0])]
                target.set_scale(3.0)
                out.append(call(*inputs[0]))
                return out
            """,
            title="Python scalar attribute changed between calls",
            lines=10,
        ),
        diverges(
            """
            class Net(nn.Cell):
                def __init__(self):
                    super().__init__()
                    self.bias = Tensor(np.ones((2, 3), np.float32))

                def set_bias(self, bias):
                    self.bias = bias

                def construct(self, x):
                    return x + self.bias

            def drive(call, target, inputs):
                out = [call(*inputs[0])]
                target.set_bias(Tensor(np.full((2, 3), 5.0, np.float32)))
                out.append(call(*inputs[0]))
                return out
            """,
            title="Tensor attribute replaced between calls",
            lines=10,
        ),
        diverges(
            """
            class Net(nn.Cell):
                def eval_mode(self):
                    self.training = False

                def construct(self, x):
                    if self.training:
                        return x * 2
                    return x

            def drive(call, target, inputs):
                target.set_train(True)
                out = [call(*inputs[0])]
                target.eval_mode()
                out.append(call(*inputs[0]))
                return out
            """,
            title="`self.training` assigned directly (not via `set_train()`)",
            lines=6,
        ),
    ),
    clean=(
        passes(
            """
            class Net(nn.Cell):
                def __init__(self):
                    super().__init__()
                    self.scale = Parameter(Tensor(2.0, ms.float32), name="scale", requires_grad=False)

                def set_scale(self, scale):
                    ops.assign(self.scale, Tensor(scale, ms.float32))

                def construct(self, x):
                    return x * self.scale

            def drive(call, target, inputs):
                out = [call(*inputs[0])]
                target.set_scale(3.0)
                out.append(call(*inputs[0]))
                return out
            """,
        ),
        # set_train() toggles self.training and recompiles: not a divergence.
        passes(
            """
            class Net(nn.Cell):
                def construct(self, x):
                    if self.training:
                        return x * 2
                    return x

            def drive(call, target, inputs):
                target.set_train(True)
                out = [call(*inputs[0])]
                target.set_train(False)
                out.append(call(*inputs[0]))
                target.set_train(True)
                out.append(call(*inputs[0]))
                return out
            """,
        ),
    ),
)


# message fields: {attr} - the attribute name
ATTRIBUTE_WRITE_IN_GRAPH = Rule(
    id="W5209",
    symbol="attribute-write-in-graph",
    family=FAMILY,
    lax=W,
    strict=E,
    message=(
        "`self.{attr}` is assigned in graph code but is not a Parameter: lax falls back to Python "
        "(branches on it are frozen), strict rejects it; use a Parameter and ops.assign"
    ),
    summary=(
        "`self.<attr> = ...`, `self.<attr> += ...` or `self.<attr>[key] = ...` inside graph code, "
        "where the attribute is not a `Parameter` (a Python number or bool, None, a Tensor, a "
        "list or dict)."
    ),
    why=(
        "At the lax level the write is executed by the Python interpreter (JIT fallback) on every "
        "call, so a plain counter (`self.count += 1`) ends with the right value - but reads of the "
        "attribute that steer control flow are folded at compile time: `if self.count < 1: "
        "self.count += 1` keeps incrementing (PYNATIVE: 1, 1, 1; GRAPH_MODE: 1, 2, 3), and a "
        "'first call' flag (`if not self.warm: self.warm = True; ...`) takes the first-call "
        "branch forever. Item assignment on a dict or Tensor attribute (`self.cache[k] = v`, "
        "`self.buf[0] = v`) is not written back at all in GRAPH_MODE. Strict "
        "(`jit(fullgraph=True)`, MindIR export) rejects every such write, also in a method of a "
        "helper object that graph code calls (`self.counter.step(x)` with `self.n += 1` in "
        "`step`), and an attribute that only graph code creates fails there with "
        "`AttributeError: The 'Net' object has no attribute 'feature'` (measured)."
    ),
    mindspore_error=(
        "TypeError: In JIT strict mode, if need to modify a member attribute of a class with "
        "self.count, the member attribute must be of the Parameter type. But got '0' with type "
        "'int'."
    ),
    fix=(
        "Make the attribute a `Parameter(Tensor(...), requires_grad=False)` in `__init__` and "
        "update it with `ops.assign` / `ops.assign_add` (or `self.param += ...`, which MindSpore "
        "turns into an assign). Do not keep Python state on the Cell that `construct` changes."
    ),
    flagged=(
        falls_back(
            """
            class Net(nn.Cell):
                def __init__(self):
                    super().__init__()
                    self.state = self.init_state()

                def init_state(self):
                    return (ops.zeros((2, 3), ms.float32), ops.ones((2, 3), ms.float32))

                def construct(self, x):
                    self.state = self.init_state()
                    return x + self.state[0] + self.state[1]
            """,
            fixed="""
            class Net(nn.Cell):
                def __init__(self):
                    super().__init__()
                    self.state = self.init_state()

                def init_state(self):
                    return (ops.zeros((2, 3), ms.float32), ops.ones((2, 3), ms.float32))

                def construct(self, x):
                    state = self.init_state()
                    return x + state[0] + state[1]
            """,
            error="the member attribute must be of the Parameter type",
            title="a state tuple a method makes, kept on `self`",
            lines=10,
            fields={"attr": "state"},
        ),
        falls_back(
            """
            class Net(nn.Cell):
                def __init__(self):
                    super().__init__()
                    self.count = 0

                def construct(self, x):
                    self.count += 1
                    return x * 2

            def drive(call, target, inputs):
                out = [call(*args) for args in inputs]
                out.append(target.count)
                return out
            """,
            error="the member attribute must be of the Parameter type",
            title="`self.count += 1` on a Python number",
            lines=7,
        ),
        Example(
            """
            class Net(nn.Cell):
                def __init__(self):
                    super().__init__()
                    self.count = 0

                def construct(self, x):
                    if self.count < 1:
                        self.count += 1
                    return x + self.count

            def drive(call, target, inputs):
                out = [call(*inputs[0]) for _ in range(3)]
                out.append(target.count)
                return out
            """,
            lax=DIVERGES,
            strict=FAILS,
            error="the member attribute must be of the Parameter type",
            title="attribute write guarded by the same attribute",
            lines=8,
        ),
        Example(
            """
            class Net(nn.Cell):
                def __init__(self):
                    super().__init__()
                    self.warm = False

                def construct(self, x):
                    if not self.warm:
                        self.warm = True
                        return x
                    return x * 2
            """,
            lax=DIVERGES,
            strict=FAILS,
            error="the member attribute must be of the Parameter type",
            title="'first call' flag on `self`",
            lines=8,
        ),
        Example(
            """
            class Net(nn.Cell):
                def __init__(self):
                    super().__init__()
                    self.cache = {}

                def construct(self, x):
                    self.cache["y"] = x * 2
                    return x + 1

            def drive(call, target, inputs):
                out = [call(*args) for args in inputs]
                out.append(len(target.cache))
                return out
            """,
            lax=DIVERGES,
            strict=FAILS,
            error="should be initialized as a 'Parameter'",
            title="`self.<dict>[key] = value`",
            lines=7,
        ),
        # An attribute that only graph code creates: strict looks it up first and fails.
        falls_back(
            """
            class Net(nn.Cell):
                def construct(self, x):
                    self.feature = x * 2
                    return x + 1
            """,
            fixed="""
            class Net(nn.Cell):
                def construct(self, x):
                    feature = x * 2
                    return x + 1
            """,
            error="object has no attribute 'feature'",
            title="attribute first created in graph code",
            lines=3,
        ),
        # A method of a helper object called from graph code is compiled too.
        falls_back(
            """
            class Counter:
                def __init__(self):
                    self.n = 0

                def step(self, x):
                    self.n += 1
                    return x * 2

            class Net(nn.Cell):
                def __init__(self):
                    super().__init__()
                    self.counter = Counter()

                def construct(self, x):
                    return self.counter.step(x)

            def drive(call, target, inputs):
                out = [call(*args) for args in inputs]
                out.append(target.counter.n)
                return out
            """,
            error="the member attribute must be of the Parameter type",
            title="attribute write in a helper object's method",
            lines=6,
        ),
    ),
    clean=(
        passes(
            """
            class Net(nn.Cell):
                def __init__(self):
                    super().__init__()
                    self.count = Parameter(Tensor(0, ms.int32), name="count", requires_grad=False)

                def construct(self, x):
                    ops.assign_add(self.count, Tensor(1, ms.int32))
                    return x + self.count

            def drive(call, target, inputs):
                out = [call(*args) for args in inputs]
                out.append(target.count.value())
                return out
            """,
        ),
        # Augmented assignment directly on a Parameter attribute is an assign in the graph.
        passes(
            """
            class Net(nn.Cell):
                def __init__(self):
                    super().__init__()
                    self.w = Parameter(Tensor(np.ones((2, 3), np.float32)), name="w", requires_grad=False)

                def construct(self, x):
                    self.w += 1
                    return x + self.w

            def drive(call, target, inputs):
                out = [call(*args) for args in inputs]
                out.append(target.w.value())
                return out
            """,
        ),
    ),
)


# message fields: {call}, {method}
TENSOR_MAX_POSITIONAL_AXIS = Rule(
    id="E5210",
    symbol="tensor-max-positional-axis",
    family=FAMILY,
    lax=E,
    strict=E,
    message="`{call}` gives (values, indices) in PYNATIVE_MODE but only the values in graph code; write "
            "`{method}(dim=...)` for the pair, or `{method}(axis=...)` for the values",
    summary="`Tensor.max(axis)` / `Tensor.min(axis)` with the axis given positionally, in graph code, whose result "
            "is taken apart as (values, indices): unpacked into two names, or indexed by 0 or 1; or that a top-level "
            "graph returns (PYNATIVE_MODE returns the pair, the graph a Tensor).",
    why=(
        "The two modes bind the positional argument differently. Measured with MindSpore 2.10: `x.max(1)` "
        "returns `(values, indices)` in PYNATIVE_MODE and only `values` in GRAPH_MODE and under "
        "`jit(fullgraph=True)`, so `best, index = x.max(1)` silently unpacks the rows of `values` (or fails when "
        "there are not two rows). `x.max(dim=1)` is the pair in both modes, `x.max(axis=1)` the values in both."
    ),
    mindspore_error="(no error: the graph unpacks the values Tensor instead of the (values, indices) pair)",
    fix="Name the argument: `x.max(dim=1)` for (values, indices), `x.max(axis=1)` for the values; or "
        "`ops.max(x, 1)` / `x.argmax(1)`.",
    flagged=(
        diverges(
            """
            class Net(nn.Cell):
                def construct(self, x):
                    best, index = x.max(1)
                    return best * 2, index
            """,
            title="`values, indices = x.max(axis)` unpacked",
            lines=3,
            fields={"call": "x.max(1)", "method": "max"},
            fixed="""
                class Net(nn.Cell):
                    def construct(self, x):
                        best, index = x.max(dim=1)
                        return best * 2, index
            """,
        ),
        diverges(
            """
            @ms.jit
            def lowest_index(x):
                return x.min(0)[1] * 2
            """,
            entry="lowest_index",
            title="`x.min(axis)[1]` read as the indices",
            lines=3,
            fields={"method": "min"},
            fixed="""
                @ms.jit
                def lowest_index(x):
                    return x.min(dim=0)[1] * 2
            """,
        ),
        diverges(
            """
            class Net(nn.Cell):
                def construct(self, x):
                    scores = x * 2
                    return x, scores.max(1)
            """,
            title="`x.max(axis)` returned by the graph",
            lines=4,
            fields={"call": "scores.max(1)", "method": "max"},
            fixed="""
                class Net(nn.Cell):
                    def construct(self, x):
                        scores = x * 2
                        return x, scores.max(dim=1)
            """,
        ),
    ),
    clean=(
        passes(
            """
            class Net(nn.Cell):
                def construct(self, x):
                    best, index = x.max(dim=1)
                    return best * 2, index, x.max(axis=0), x.min(), x.argmax(1), x.max(1, keepdims=True)
            """,
        ),
    ),
)


# message fields: {call}, {first}, {second}, {what}
TENSOR_TRANSPOSE_TWO_AXES = Rule(
    id="E5212",
    symbol="tensor-transpose-two-axes",
    family=FAMILY,
    lax=E,
    strict=E,
    message="`{call}` swaps axes {first} and {second} in PYNATIVE_MODE (PyTorch's form), but graph code reads the two "
            "numbers as the whole permutation: {what}; write `.swapaxes({first}, {second})`",
    summary="`x.transpose(a, b)`, PyTorch's swap of two axes, on a Tensor in graph code.",
    why=(
        "PYNATIVE_MODE accepts PyTorch's `transpose(dim0, dim1)`, which swaps two axes. Graph code binds the "
        "arguments as `Tensor.transpose(*axes)`, the full permutation. Measured with MindSpore 2.10 (CPU), at "
        "both levels: `x.transpose(1, 2)` on a 3-D or 4-D Tensor fails (\"the number of axes must be equal to the "
        "dimension of Tensor\"), and so does `x.transpose(0, 1)` on a 3-D one; on a 2-D Tensor `x.transpose(0, 1)` "
        "and `x.transpose(-2, -1)` are the identity permutation, so the graph silently returns `x` where "
        "PYNATIVE_MODE returns its transpose. `x.swapaxes(a, b)` swaps in both modes."
    ),
    mindspore_error="ValueError: 'For Tensor.transpose, the number of axes must be equal to the dimension of Tensor, "
                    "but got 2 in the number of axes.'",
    fix="Write `x.swapaxes(a, b)` (the same in both modes), or the whole permutation: `x.transpose(0, 2, 1)`.",
    flagged=(
        fails(
            """
            class Net(nn.Cell):
                def construct(self, x):
                    return x.transpose(1, 2) * 2
            """,
            error="the number of axes must be equal to the dimension of Tensor",
            inputs="(Tensor(np.arange(24, dtype=np.float32).reshape(2, 3, 4)),)",
            title="`x.transpose(1, 2)` on a 3-D Tensor",
            lines=3,
            fields={"call": "x.transpose(1, 2)", "first": "1", "second": "2"},
            fixed="""
                class Net(nn.Cell):
                    def construct(self, x):
                        return x.swapaxes(1, 2) * 2
            """,
        ),
        diverges(
            """
            class Net(nn.Cell):
                def construct(self, x):
                    return x.transpose(0, 1) + 1
            """,
            title="`x.transpose(0, 1)` on a 2-D Tensor: the identity in graph code",
            lines=3,
            fixed="""
                class Net(nn.Cell):
                    def construct(self, x):
                        return x.swapaxes(0, 1) + 1
            """,
        ),
        fails(
            """
            class Net(nn.Cell):
                def construct(self, x):
                    t = x.reshape(2, 3, 4)
                    return t.transpose(1, 0) * 2
            """,
            error="the number of axes must be equal to the dimension of Tensor",
            inputs="(Tensor(np.arange(24, dtype=np.float32)),)",
            title="`t.transpose(1, 0)` on a Tensor the code made 3-D",
            lines=4,
            fields={"call": "t.transpose(1, 0)", "first": "1", "second": "0"},
            fixed="""
                class Net(nn.Cell):
                    def construct(self, x):
                        t = x.reshape(2, 3, 4)
                        return t.swapaxes(1, 0) * 2
            """,
        ),
        fails(
            """
            class Net(nn.Cell):
                def construct(self, x):
                    y = x.reshape(2, 3) * 2
                    return y.transpose(-1, 1) + 1
            """,
            error="perms should all be unique dim",
            inputs="(Tensor(np.arange(6, dtype=np.float32)),)",
            title="`y.transpose(-1, 1)`: one axis named twice",
            lines=4,
            fields={"call": "y.transpose(-1, 1)", "first": "-1", "second": "1"},
            fixed="""
                class Net(nn.Cell):
                    def construct(self, x):
                        y = x.reshape(2, 3) * 2
                        return y.swapaxes(-1, 1) + 1
            """,
        ),
    ),
    clean=(
        passes(
            """
            class Net(nn.Cell):
                def construct(self, x):
                    return x.transpose(1, 0), x.swapaxes(0, 1), x.transpose(), ops.transpose(x, (1, 0))
            """,
        ),
        passes(
            """
            class Net(nn.Cell):
                def construct(self, x):
                    return x.transpose(0, 2, 1), x.swapaxes(-2, -1)
            """,
            inputs="(Tensor(np.arange(24, dtype=np.float32).reshape(2, 3, 4)),)",
        ),
        passes(
            """
            class Decoder(nn.Cell):
                def __init__(self):
                    super().__init__()
                    self.layers = nn.CellList([nn.Dense(4, 4), nn.Dense(4, 4)])

                def construct(self, x, pasts=None):
                    if pasts is None:
                        pasts = [None] * len(self.layers)
                    for i, (layer, past) in enumerate(zip(self.layers, pasts)):
                        x = layer(x)
                        if past is not None:
                            x = x + past.transpose(-2, -1)
                    return x

            class Net(nn.Cell):
                def __init__(self):
                    super().__init__()
                    self.decoder = Decoder()

                def construct(self, x):
                    return self.decoder(x)
            """,
            inputs="(Tensor(np.ones((2, 4), np.float32)),)",
            title="in a branch no call compiles: the holder never passes `pasts`, so every `past` the loop over "
                  "`zip(self.layers, [None] * n)` binds is None (GPT-2's `layer_past`)",
        ),
    ),
)


# message fields: {attr}, {layer}, {keyword}
STATE_ATTRIBUTE_WRITTEN_IN_GRAPH = Rule(
    id="E5211",
    symbol="state-attribute-written-in-graph",
    family=FAMILY,
    lax=E,
    strict=E,
    message="`self.{attr}` is passed as the `{keyword}` of `{layer}` and graph code also assigns it: the read gives "
            "an interpreted object that `{layer}` rejects (it needs a tuple); keep the state in a local variable",
    summary="A recurrent layer's state (`nn.LSTM`'s or `nn.LSTMCell`'s `hx`) passed as a `self` attribute that graph code also assigns "
            "(`out, self.hidden = self.lstm(x, self.hidden)`), the PyTorch habit of keeping the hidden state on "
            "the module.",
    why=(
        "An attribute that graph code assigns is handled by the JIT fallback: reading it gives an interpreted "
        "Python object, which the input check of `nn.LSTM` and `nn.LSTMCell` takes for a Tensor. Measured with MindSpore 2.10: "
        "GRAPH_MODE stops with \"For 'LSTM', the 'hx' must be Tuple, but got Tensor\" whether the write comes "
        "before the call or after it, and `jit(fullgraph=True)` rejects the write itself (the attribute is no "
        "Parameter). Reading the same attribute without writing it, or keeping the state in a local variable, "
        "compiles."
    ),
    mindspore_error="TypeError: For 'LSTM', the 'hx' must be '<class 'mindspore._c_expression.typing.Tuple'>', but got 'Tensor[Float64]'",
    fix="Keep the state in a local variable (`hidden = self.init_hidden(n)`; `out, hidden = self.lstm(x, hidden)`) "
        "and return it if the caller needs it.",
    flagged=(
        Example(
            """
            class Tagger(nn.Cell):
                def __init__(self):
                    super().__init__()
                    self.lstm = nn.LSTM(3, 4, batch_first=True)
                    self.hidden = self.init_hidden(2)

                def init_hidden(self, batch):
                    return (ops.zeros((1, batch, 4), ms.float32), ops.zeros((1, batch, 4), ms.float32))

                def construct(self, x):
                    self.hidden = self.init_hidden(2)
                    out, self.hidden = self.lstm(x.reshape(2, 1, 3), self.hidden)
                    return out
            """,
            lax=FAILS,
            strict=SKIP,  # (STRICT stops at the write first: attribute-write-in-graph says it)
            error="the 'hx' must be",
            entry="Tagger",
            title="an LSTM's hidden state kept on `self`",
            lines=12,
            fields={"attr": "hidden", "layer": "LSTM", "keyword": "hx"},
        ),
        Example(
            """
            class Stepper(nn.Cell):
                def __init__(self):
                    super().__init__()
                    self.cell = nn.LSTMCell(3, 4)
                    self.state = (ops.zeros((2, 4), ms.float32), ops.zeros((2, 4), ms.float32))

                def construct(self, x):
                    self.state = self.cell(x, self.state)
                    return self.state[0]
            """,
            lax=FAILS,
            strict=SKIP,  # (STRICT stops at the write first: attribute-write-in-graph says it)
            error="the 'hx' must be",
            entry="Stepper",
            title="an LSTMCell's state kept on `self`",
            lines=8,
            fields={"attr": "state", "layer": "LSTMCell", "keyword": "hx"},
        ),
    ),
    clean=(
        passes(
            """
            class Tagger(nn.Cell):
                def __init__(self):
                    super().__init__()
                    self.lstm = nn.LSTM(3, 4, batch_first=True)
                    self.hidden = self.init_hidden(2)

                def init_hidden(self, batch):
                    return (ops.zeros((1, batch, 4), ms.float32), ops.zeros((1, batch, 4), ms.float32))

                def construct(self, x):
                    hidden = self.init_hidden(2)
                    out, hidden = self.lstm(x.reshape(2, 1, 3), hidden)
                    start, _ = self.lstm(x.reshape(2, 1, 3), self.hidden)
                    return out + start
            """,
            entry="Tagger",
        ),
    ),
)


# message fields: {call} - the call; {api} - the random op or layer it draws with; {times} - how graph code repeats it
RANDOM_DRAW_REPEATED = Rule(
    id="W5213",
    symbol="random-draw-repeated",
    family=FAMILY,
    lax=W,
    strict=W,
    message="`{call}` draws random numbers (`{api}`) and graph code runs it {times}: every run gets the same "
            "numbers in graph mode (one random node), where PYNATIVE_MODE draws anew; write the random op at "
            "each call site, draw once for all of them, or give each use its own layer",
    summary="A function, method or Cell that draws random numbers (a MindSpore random op, a Dropout layer), called "
            "more than once in one graph, or in a loop graph mode unrolls.",
    why=(
        "Graph mode makes one random node for each place the compiled code calls a random op. A helper that calls "
        "`ops.randn` (or `ops.randint`, `ops.multinomial`, ...) compiles to one graph, and every call of it runs "
        "that one node: measured with MindSpore 2.10 (CPU), two calls of such a helper, a method, a sub-Cell, or "
        "one `nn.Dropout` layer used twice return the same draw (the same dropout mask, whatever the input), and "
        "so does one call in a `for` loop, which graph mode unrolls. PYNATIVE_MODE, like PyTorch, draws anew each "
        "time. The same op written twice inline draws twice in both modes. (A Dropout layer draws only in "
        "training.)"
    ),
    fix=(
        "Draw at each call site (`ops.randn` written where it is used), draw once with the shape of all uses and "
        "split, or keep one Dropout layer per use (`self.drop1`, `self.drop2`)."
    ),
    flagged=(
        diverges(
            """
            def noise(x):
                return x + ops.randn(x.shape)

            class Net(nn.Cell):
                def construct(self, x):
                    a = noise(x)
                    b = noise(x)
                    return (a == b).all()
            """,
            title="a helper that draws, called twice",
            lines=7,
            fields={"api": "ops.randn", "times": "twice"},
        ),
        diverges(
            """
            def noise(x):
                return x + ops.randn(x.shape)

            class Net(nn.Cell):
                def construct(self, x):
                    outs = []
                    for _ in range(2):
                        outs.append(noise(x))
                    return (outs[0] == outs[1]).all()
            """,
            title="a helper that draws, called in an unrolled loop",
            lines=8,
        ),
        diverges(
            """
            class Net(nn.Cell):
                def __init__(self):
                    super().__init__()
                    self.drop = nn.Dropout(p=0.5)
                    self.set_train(True)

                def construct(self, x):
                    a = self.drop(ops.ones((64,), ms.float32))
                    b = self.drop(ops.ones((64,), ms.float32) * 2)
                    return ((a > 0) == (b > 0)).all()
            """,
            title="one `nn.Dropout` layer used twice (training)",
            lines=9,
            fields={"api": "nn.Dropout"},
        ),
        diverges(
            """
            from typing import Type


            class Block(nn.Cell):
                def __init__(self, down_sample=None):
                    super().__init__()
                    self.down_sample = down_sample

                def construct(self, x):
                    a = self.down_sample(x)
                    b = self.down_sample(x)
                    return ((a > 0) == (b > 0)).all()


            class Net(nn.Cell):
                def __init__(self, **kwargs):
                    super().__init__()
                    self.layer = self._make(**kwargs)
                    self.set_train(True)

                def _make(self, block: Type[Block] = Block):
                    return block(down_sample=nn.SequentialCell([nn.Dense(64, 64), nn.Dropout(p=0.5)]))

                def construct(self, x):
                    return self.layer(ops.ones((2, 64), ms.float32))
            """,
            title="a `SequentialCell` holding a Dropout, given to a block made through a class parameter, called "
                  "twice",
            lines=11,
            fields={"api": "nn.Dropout", "times": "twice"},
        ),
    ),
    clean=(
        passes(
            """
            class Net(nn.Cell):
                def __init__(self):
                    super().__init__()
                    self.drop1 = nn.Dropout(p=0.5)
                    self.drop2 = nn.Dropout(p=0.5)
                    self.set_train(True)

                def construct(self, x):
                    a = x + ops.randn(x.shape)
                    b = x + ops.randn(x.shape)
                    c = self.drop1(ops.ones((64,), ms.float32))
                    d = self.drop2(ops.ones((64,), ms.float32))
                    return (a == b).all(), ((c > 0) == (d > 0)).all()
            """,
        ),
        passes(
            """
            class Net(nn.Cell):
                def __init__(self):
                    super().__init__()
                    self.drop = nn.Dropout(p=0.5)
                    self.set_train(True)

                def construct(self, x, doubled=False):
                    if doubled:
                        return (self.drop(x * 2) >= 0).all()
                    else:
                        return (self.drop(x) >= 0).all()
            """,
            title="one `nn.Dropout` layer called on each side of an `if` on a flag (a call takes one side)",
        ),
    ),
)


# message fields: {call} - the random op's call
SEEDED_RANDOM_STREAM_DIFFERS = Rule(
    id="I5214",
    symbol="seeded-random-stream-differs",
    family=FAMILY,
    lax=I,
    strict=I,
    message="`{call}` draws random numbers in graph code: under the same `mindspore.set_seed` the numbers after "
            "the first call differ from PYNATIVE_MODE's (the same distribution, another stream); to compare the "
            "modes, pass the noise in as an argument",
    summary="A MindSpore random op (`ops.multinomial`, `ops.randn`, ...) in graph code: seeded runs draw other "
            "numbers than PYNATIVE_MODE.",
    why=(
        "Graph mode keeps each random node's state in the compiled graph; PYNATIVE_MODE draws from the global "
        "generator. Measured with MindSpore 2.10 (CPU) on two blind ports (sampling with `ops.multinomial` in a "
        "decoding loop, `ops.randn` for a Gaussian policy): after one `mindspore.set_seed` the first call draws "
        "what PYNATIVE_MODE draws, later calls draw something else. The model is not wrong, but a result "
        "checked in PYNATIVE_MODE cannot be reproduced in graph mode, and a port cannot be compared number "
        "for number."
    ),
    fix="Draw the noise outside the graph (`ops.randn` in host code, or NumPy) and pass it in as an argument when "
        "runs must match; otherwise nothing to change.",
    flagged=(
        diverges(
            """
            class Net(nn.Cell):
                def construct(self, x):
                    return x + ops.randn(x.shape)
            """,
            title="`ops.randn` in `construct`",
            lines=3,
        ),
        diverges(
            """
            class Net(nn.Cell):
                def construct(self, x):
                    probs = ops.softmax(x, -1)
                    return probs.multinomial(1)
            """,
            inputs="(Tensor(np.ones((4, 6), np.float32)),)",
            title="the Tensor method `probs.multinomial(1)` (a sampling decoder)",
            lines=4,
        ),
    ),
    clean=(
        passes(
            """
            class Net(nn.Cell):
                def construct(self, x, noise):
                    return x + noise
            """,
            inputs="(Tensor(np.ones((2, 3), np.float32)), Tensor(np.full((2, 3), 0.5, np.float32)))",
        ),
    ),
)


# message fields: {attr} - the attribute; {call} - the helper call that writes it; {line} - that call's line
ATTRIBUTE_READ_AFTER_HELPER_WRITE = Rule(
    id="E5215",
    symbol="attribute-read-after-helper-write",
    family=FAMILY,
    lax=E,
    strict=E,
    message="`self.{attr}` is read after `{call}` (line {line}) assigned it, but graph code reads the value it had "
            "while compiling, not the helper's: PYNATIVE_MODE reads the new one; return the value from the helper "
            "and use it (`{attr} = {call}`)",
    summary="A plain attribute that a helper method assigns in graph code (`self.create_grids(...)` setting "
            "`self.nx`), read afterwards by the code that called the helper.",
    why=(
        "At the lax level an attribute write in graph code runs in the interpreter, and a write in the function "
        "itself is seen by its later reads. A write in a helper method the function calls is not: the later reads "
        "in the caller keep the value the attribute had when the graph was compiled (measured with MindSpore 2.10: "
        "`self.scale = 2.0` in a helper, then `x * self.scale` in `construct`, gives `x * 1.0`, the `__init__` "
        "value; a size written so gives a Tensor of shape (0, 2); a grid left None fails with \"add(None)\"). "
        "STRICT refuses the write itself (`attribute-write-in-graph`). PyTorch's habit of caching anchor grids "
        "or sizes on the layer (`self.grid`, `self.nx`) is this."
    ),
    mindspore_error="TypeError: In JIT strict mode, if need to modify a member attribute of a class with self.scale, "
                    "the member attribute must be of the Parameter type.",
    fix="Return what the helper computes (`nx, ny, grid = self.make_grids(ng)`) and use the locals; keep state that "
        "must outlive the call in a Parameter written with `ops.assign`.",
    flagged=(
        Example(
            """
            class Net(nn.Cell):
                def __init__(self):
                    super().__init__()
                    self.scale = 1.0

                def setup(self, x):
                    self.scale = 2.0

                def construct(self, x):
                    self.setup(x)
                    return x * self.scale
            """,
            lax=DIVERGES,
            strict=FAILS,
            error="must be of the Parameter type",
            title="a scale a helper sets, read after the call",
            lines=11,
            fields={"attr": "scale"},
        ),
        fails(
            """
            class Net(nn.Cell):
                def init_state(self, x):
                    self.hidden = x * 2

                def step(self, x):
                    return x + self.hidden

                def construct(self, x):
                    self.init_state(x)
                    return self.step(x)
            """,
            error="object has no attribute 'hidden'",
            title="decoder state a helper creates, read by the next helper (Tacotron's `decode`)",
            lines=6,  # (the read in `step`, the line to change)
            fields={"attr": "hidden"},
        ),
    ),
    clean=(
        passes(
            """
            class Net(nn.Cell):
                def __init__(self):
                    super().__init__()
                    self.scale = 1.0

                def setup(self, x):
                    return 2.0

                def construct(self, x):
                    scale = self.setup(x)
                    return x * scale * self.scale
            """,
        ),
    ),
)


# message fields: {target} - the attribute as written (`blk.H`); {holder} - what the receiver is; {consequence}
ATTRIBUTE_WRITTEN_ON_HELD_OBJECT = Rule(
    id="E5216",
    symbol="attribute-written-on-held-object",
    family=FAMILY,
    lax=E,
    strict=E,
    message="`{target} = ...` writes an attribute of {holder} in graph code: {consequence}; pass the value as an "
            "argument instead (`blk(x, H, W)`)",
    summary="Graph code assigns an attribute of another object it holds: a sub-Cell (`blk.H, blk.W = H, W` before "
            "`blk(x)`, Swin's habit) or a plain helper object (`self.sched.t = t` before `self.sched.step(x)`).",
    why=(
        "The object's methods are compiled into the same graph with the attribute values the object had when "
        "compilation started. Measured with MindSpore 2.10: a float written on a sub-Cell (also one taken from "
        "an `nn.CellList`) stops the graph at both levels (\"Default/Cast-op0 does not support this kernel data "
        "type\"; STRICT also \"'int' object has no attribute\"), a sub-Cell attribute left None fails with "
        "\"Failed calling mul with mul(None)\"; a plain object's method reads the `__init__` value, silently "
        "(`x * 1.0` for `x * 3.0`), at both levels."
    ),
    mindspore_error="(a sub-Cell: a kernel's type check fails, e.g. \"Default/Cast-op0 does not support this kernel "
                    "data type\"; a plain object: no error, its method reads the old value)",
    fix="Give the value to the method that needs it as an argument (`blk(x, H, W)`, `sched.step(x, t)`); keep "
        "state that must outlive the call in a Parameter of the object, written with `ops.assign`.",
    flagged=(
        fails(
            """
            class Block(nn.Cell):
                def __init__(self):
                    super().__init__()
                    self.scale = 1.0

                def construct(self, x):
                    return x * self.scale

            class Net(nn.Cell):
                def __init__(self):
                    super().__init__()
                    self.blocks = nn.CellList([Block(), Block()])

                def construct(self, x):
                    for blk in self.blocks:
                        blk.scale = 3.0
                        x = blk(x)
                    return x
            """,
            error="Cast-op0 does not support this kernel data type",
            strict_error="has no attribute",
            title="an attribute of an `nn.CellList` block written before calling it",
            lines=16,
            fields={"target": "blk.scale"},
        ),
        diverges(
            """
            class Scheduler:
                def __init__(self):
                    self.k = 1.0

                def step(self, x):
                    return x * self.k

            class Net(nn.Cell):
                def __init__(self):
                    super().__init__()
                    self.sched = Scheduler()

                def construct(self, x):
                    self.sched.k = 3.0
                    return self.sched.step(x)
            """,
            strict=DIVERGES,
            title="an attribute of a plain helper object written before calling its method",
            lines=14,
            fields={"target": "self.sched.k"},
        ),
    ),
    clean=(
        passes(
            """
            class Block(nn.Cell):
                def construct(self, x, scale):
                    return x * scale

            class Net(nn.Cell):
                def __init__(self):
                    super().__init__()
                    self.blocks = nn.CellList([Block(), Block()])

                def construct(self, x):
                    for blk in self.blocks:
                        x = blk(x, 3.0)
                    return x
            """,
        ),
    ),
)


# message fields: {attr} - the attribute; {method} - the method that carries it; {call} - the call in the graph;
# {line} - that call's line; {times} - "in a loop" or "twice"
STATE_CARRIED_ACROSS_CALLS = Rule(
    id="E5217",
    symbol="state-carried-across-calls",
    family=FAMILY,
    lax=E,
    strict=E,
    message="`{method}` reads `self.{attr}` and then assigns it, and graph code calls it {times} (`{call}`, line "
            "{line}): every call reads the value the attribute had when compiling started, not the previous call's; "
            "pass the state in and return it",
    summary="A method that keeps state on its object between calls (WaveNet's per-layer `input_buffer`, a cache "
            "filled on first use, a running counter), called in a loop or more than once in one graph.",
    why=(
        "Graph code reads an attribute's value once, while compiling; the method's writes do not reach its next "
        "call in the same graph. Measured with MindSpore 2.10: a sub-Cell's `step` that does `self.buf = "
        "self.buf + x`, called three times in a loop, returns `x` where PYNATIVE_MODE returns `3 * x` (a `None` "
        "start and a Tensor start alike); in a larger model the same pattern stops the graph (\"The pointer[input_1] "
        "is null\"). STRICT refuses the attribute write itself."
    ),
    mindspore_error="(no error: every call starts from the compile-time value of the attribute)",
    fix="Keep the state outside the object: take it as an argument and return the new state (`y, buf = "
        "layer.step(x, buf)`), or keep it in a Parameter updated with `ops.assign`.",
    flagged=(
        Example(
            """
            class Layer(nn.Cell):
                def __init__(self):
                    super().__init__()
                    self.buf = None

                def step(self, x):
                    if self.buf is None:
                        self.buf = ops.zeros_like(x)
                    self.buf = self.buf + x
                    return self.buf

            class Net(nn.Cell):
                def __init__(self):
                    super().__init__()
                    self.layer = Layer()

                def construct(self, x):
                    y = x
                    for _ in range(3):
                        y = self.layer.step(x)
                    return y
            """,
            lax=DIVERGES,
            strict=FAILS,
            error="must be of the Parameter type",
            title="a buffer a layer's `step` keeps on itself, called in a loop",
            lines=7,
            fields={"attr": "buf", "times": "in a loop"},
        ),
    ),
    clean=(
        passes(
            """
            class Layer(nn.Cell):
                def step(self, x, buf):
                    buf = buf + x
                    return buf, buf

            class Net(nn.Cell):
                def __init__(self):
                    super().__init__()
                    self.layer = Layer()

                def construct(self, x):
                    y, buf = x, ops.zeros_like(x)
                    for _ in range(3):
                        y, buf = self.layer.step(x, buf)
                    return y
            """,
        ),
    ),
)


# message fields: {callee} - the call; {name} - the caller's container; {parameter} - the callee's parameter
ARGUMENT_CONTAINER_MUTATED = Rule(
    id="E5218",
    symbol="argument-container-mutated",
    family=FAMILY,
    lax=E,
    strict=E,
    message="`{callee}` changes `{name}` in place (its parameter `{parameter}`), and this code reads `{name}` "
            "afterwards: graph code passes lists and dicts by value, so `{name}` here stays as it was; return the "
            "new value from the callee and rebind it",
    summary="A helper or a sub-Cell changes a list or dict it received (`incremental_state[key] = {...}`, "
            "`acc.append(x)`), and the caller reads its own container after the call (fairseq's "
            "`incremental_state` caches).",
    why=(
        "Python passes the caller's object; graph code passes lists and dicts by value. Measured with MindSpore "
        "2.10 at both levels: a sub-Cell that does `state['k'] = x * 2` leaves the caller's `state['k']` as it "
        "was (`x + x` where PYNATIVE_MODE gives `x + 2 * x`), and a helper's `acc.append(x * 3)` leaves the "
        "caller's list with one element. A callee that returns the container it changed, used by the caller "
        "(`features = self.fpn(features)`), is fine."
    ),
    mindspore_error="(no error: the caller's container is unchanged)",
    fix="Return what the callee computes (`y, cache = layer(x, cache)`) and rebind it in the caller.",
    flagged=(
        diverges(
            """
            class Attn(nn.Cell):
                def construct(self, x, state):
                    state["k"] = x * 2
                    return x

            class Net(nn.Cell):
                def __init__(self):
                    super().__init__()
                    self.attn = Attn()

                def construct(self, x):
                    state = {"k": x}
                    y = self.attn(x, state)
                    return y + state["k"]
            """,
            strict=DIVERGES,
            title="a sub-Cell writing into the caller's dict, read back by the caller",
            lines=13,
            fields={"name": "state", "parameter": "state"},
        ),
        diverges(
            """
            def collect(x, acc):
                acc.append(x * 3)
                return x

            class Net(nn.Cell):
                def construct(self, x):
                    acc = [x]
                    collect(x, acc)
                    return ops.stack(acc)
            """,
            strict=DIVERGES,
            title="a helper appending to the caller's list",
            lines=8,
            fields={"name": "acc", "parameter": "acc"},
        ),
    ),
    clean=(
        passes(
            """
            class Attn(nn.Cell):
                def construct(self, x, state):
                    state["k"] = x * 2
                    return x, state

            class Net(nn.Cell):
                def __init__(self):
                    super().__init__()
                    self.attn = Attn()

                def construct(self, x):
                    state = {"k": x}
                    y, state = self.attn(x, state)
                    return y + state["k"]
            """,
        ),
    ),
)


# message fields: {callee} - the call; {name} - the caller's list; {parameter} - the callee's parameter
LIST_POPPED_BY_CALLEES = Rule(
    id="I5221",
    symbol="list-popped-by-callees",
    family=FAMILY,
    lax=I,
    strict=E,
    message="`{callee}` pops from `{name}` (its parameter `{parameter}`), and the next callee given `{name}` pops "
            "again: STRICT passes lists by value, so each callee pops the same element (the lax level happens to "
            "match PYNATIVE_MODE); pass each callee the element it takes (`hs[-1]`) or return the shortened list",
    summary="The same list handed to several sub-Cells or helpers that each `pop()` from it (a diffusers-style "
            "UNet's up blocks taking `hs` and popping their skip connection), with no other read of the list "
            "in the caller.",
    why=(
        "Graph code passes lists by value at STRICT: a callee's `hs.pop()` shortens its own copy, so the next "
        "callee pops the same element. Measured with MindSpore 2.10: two sub-Cells each doing `skip = hs.pop()` "
        "on `[x, 2 * x]` give `x + 2x + 2x` at STRICT where PYNATIVE_MODE gives `x + 2x + x`. At the lax level "
        "the second pop happens to see the first one's (so only STRICT and MindIR export differ); a read of the "
        "list in the caller itself (an index, `len`, a loop, `ops.stack`) does not, at either level "
        "(argument-container-mutated, E5218)."
    ),
    mindspore_error="(STRICT: no error, each callee pops the same element)",
    fix="Give each callee the element it uses: `h = self.up1(h, hs[1])`, `h = self.up2(h, hs[0])`, or return the "
        "shortened list from the callee and rebind it.",
    flagged=(
        Example(
            """
            class Up(nn.Cell):
                def construct(self, h, hs):
                    skip = hs.pop()
                    return h + skip

            class Net(nn.Cell):
                def __init__(self):
                    super().__init__()
                    self.blocks = nn.CellDict({"up1": Up(), "up2": Up()})

                def construct(self, x):
                    hs = [x, x * 2]
                    h = self.blocks["up1"](x, hs)
                    return self.blocks["up2"](h, hs)
            """,
            lax=OK,
            strict=DIVERGES,
            title="skip connections popped by each up block of a UNet",
            lines=13,
            fields={"name": "hs", "parameter": "hs"},
        ),
    ),
    clean=(
        passes(
            """
            class Up(nn.Cell):
                def construct(self, h, skip):
                    return h + skip

            class Net(nn.Cell):
                def __init__(self):
                    super().__init__()
                    self.blocks = nn.CellDict({"up1": Up(), "up2": Up()})

                def construct(self, x):
                    hs = [x, x * 2]
                    h = self.blocks["up1"](x, hs[1])
                    return self.blocks["up2"](h, hs[0])
            """,
        ),
    ),
)

# message fields: {target} - `obj.attr`; {cls} - the object's class; {line} - the loop's line
STATE_ON_OBJECT_MADE_IN_GRAPH = Rule(
    id="E5219",
    symbol="state-on-object-made-in-graph",
    family=FAMILY,
    lax=E,
    strict=E,
    message="`{target}` is written in the loop at line {line} on a `{cls}` that graph code made, and the loop reads "
            "it: graph mode keeps the object in its interpreter, and each step reads the value from before the "
            "loop, at both levels; keep the state in a local variable of the loop",
    summary="A plain Python object (no Cell, no `jit_class`) made in graph code, whose attribute (or an item of a "
            "container it holds) a loop both changes and reads: an `InferenceParams` step counter, a cache dict, "
            "a hypotheses list in a decoding loop.",
    why=(
        "MindSpore keeps an instance of a plain class made in graph code in its interpreter (an "
        "`InterpretedObject`). Measured with MindSpore 2.10: a counter `s.n += 1` in a `for` loop that also reads "
        "`s.n` gives every step the value from before the loop, silently, at the default level and under "
        "`jit(fullgraph=True)`; so does a dict it holds, written in one step and read in the next. Straight-line "
        "writes and reads agree at the default level. Returning such an attribute from the graph under STRICT "
        "stops the process (\"Can not find kernel tensor for node: ValueNode<InterpretedObject>\")."
    ),
    mindspore_error="(no error at the default level: each step reads the attribute's value from before the loop)",
    fix="Keep the state in local variables of the loop (`offset = 0` ... `offset += n`), or in a Tensor you pass "
        "and return; make the object outside the graph if only its constants are needed.",
    flagged=(
        Example(
            """
            class Counter:
                def __init__(self):
                    self.n = 0

            class Net(nn.Cell):
                def construct(self, x):
                    steps = Counter()
                    for _ in range(3):
                        x = x + steps.n
                        steps.n += 1
                    return x
            """,
            lax=DIVERGES,
            strict=DIVERGES,
            title="a step counter on an object made in `construct`",
            lines=10,
            fields={"target": "steps.n", "cls": "Counter"},
        ),
        Example(
            """
            class Cache:
                def __init__(self):
                    self.states = {}

            class Net(nn.Cell):
                def construct(self, x):
                    cache = Cache()
                    for step in range(3):
                        if step - 1 in cache.states:
                            x = x + cache.states[step - 1]
                        cache.states[step] = x * 2
                    return x
            """,
            lax=DIVERGES,
            strict=DIVERGES,
            title="a cache dict on an object made in `construct`",
            lines=11,
            fields={"target": "cache.states", "cls": "Cache"},
        ),
        Example(
            """
            class Beams:
                def __init__(self):
                    self.done = []

            class Net(nn.Cell):
                def construct(self, x):
                    beams = Beams()
                    for i in range(3):
                        x = x + len(beams.done)
                        beams.done.append(i)
                    return x
            """,
            lax=DIVERGES,
            strict=DIVERGES,
            title="a list on an object made in `construct`, appended to in the loop that reads its length",
            lines=10,
            fields={"target": "beams.done", "cls": "Beams"},
        ),
    ),
    clean=(
        passes(
            """
            class Counter:
                def __init__(self):
                    self.n = 0

            class Net(nn.Cell):
                def construct(self, x):
                    steps = Counter()
                    offset = steps.n
                    for _ in range(3):
                        x = x + offset
                        offset += 1
                    return x
            """,
        ),
    ),
)

# message fields: {attr} - the attribute; {cls} - its class; {reader} - the method that reads it first; {line} - where
ATTRIBUTE_CREATED_IN_GRAPH = Rule(
    id="E5220",
    symbol="attribute-created-in-graph",
    family=FAMILY,
    lax=E,
    strict=E,
    message="`self.{attr}` of `{cls}` is created only by graph code, as here (no `__init__` makes it), and `{reader}` "
            "(line {line}) reads it before it writes it: graph mode compiles that read against the object as it "
            "was built, which has no `{attr}` (\"object has no attribute\") at both levels; create it in `__init__`",
    summary="An attribute of a plain Python object (a gym-style environment, a scheduler) that only methods graph "
            "code calls create (`reset()` setting `self.t`), read by a method that does not create it first "
            "(`step()`).",
    why=(
        "MindSpore compiles every method graph code calls, whatever object holds it, and resolves `self.attr` "
        "against the object as it stands when compiling starts. An attribute that only such a method creates does "
        "not exist then. Measured with MindSpore 2.10: `reset()` setting `self.scale = 3.0` and `step()` reading "
        "`x * self.scale`, both called from `construct`, fail at the default level (\"object has no attribute "
        "'scale'\") and under STRICT; a method that creates the attribute and then reads it itself compiles at the "
        "default level (STRICT refuses the write: `attribute-write-in-graph`)."
    ),
    mindspore_error="AttributeError: 'Env' object has no attribute 'scale'",
    fix="Create every attribute in `__init__` (`self.t = 0`, `self.pos = None` is not enough for a Tensor: give "
        "it its type), or better, keep the state out of the object: return it from `reset()` and pass it to "
        "`step()`.",
    flagged=(
        fails(
            """
            class Env:
                def __init__(self):
                    self.k = 2.0

                def reset(self, x):
                    self.scale = 3.0
                    return x

                def step(self, x):
                    return x * self.scale

            class Net(nn.Cell):
                def __init__(self):
                    super().__init__()
                    self.env = Env()

                def construct(self, x):
                    y = self.env.reset(x)
                    return self.env.step(y)
            """,
            error="object has no attribute 'scale'",
            title="an environment's state created by `reset()`, read by `step()`",
            lines=6,
            fields={"attr": "scale", "cls": "Env", "reader": "Env.step"},
        ),
    ),
    clean=(
        Example(
            """
            class Env:
                def __init__(self):
                    self.scale = 1.0

                def reset(self, x):
                    self.scale = 3.0
                    return x

                def step(self, x):
                    return x * self.scale

            class Net(nn.Cell):
                def __init__(self):
                    super().__init__()
                    self.env = Env()

                def construct(self, x):
                    y = self.env.reset(x)
                    return self.env.step(y) * 0 + y
            """,
            lax=OK,
            strict=FAILS,
            error="must be of the Parameter type",
            title="the attribute made in `__init__`: the read compiles (STRICT refuses the write, "
                  "`attribute-write-in-graph`)",
        ),
    ),
)

RULES = (
    PYTHON_RANDOM_IN_GRAPH,
    WALL_CLOCK_IN_GRAPH,
    ENVIRON_READ_IN_GRAPH,
    MUTABLE_GLOBAL_IN_GRAPH,
    GLOBAL_WRITE_IN_GRAPH,
    LOGGING_IN_GRAPH,
    PYTHON_CONTAINER_MUTATION_IN_GRAPH,
    HOST_ATTRIBUTE_CHANGE_BETWEEN_CALLS,
    ATTRIBUTE_WRITE_IN_GRAPH,
    TENSOR_MAX_POSITIONAL_AXIS,
    TENSOR_TRANSPOSE_TWO_AXES,
    STATE_ATTRIBUTE_WRITTEN_IN_GRAPH,
    RANDOM_DRAW_REPEATED,
    SEEDED_RANDOM_STREAM_DIFFERS,
    ATTRIBUTE_READ_AFTER_HELPER_WRITE,
    ATTRIBUTE_WRITTEN_ON_HELD_OBJECT,
    STATE_CARRIED_ACROSS_CALLS,
    ARGUMENT_CONTAINER_MUTATED,
    LIST_POPPED_BY_CALLEES,
    STATE_ON_OBJECT_MADE_IN_GRAPH,
    ATTRIBUTE_CREATED_IN_GRAPH,
)
