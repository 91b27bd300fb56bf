"""APIs and objects MindSpore refuses inside graph code.

MindSpore keeps a registry of functions and methods that must not run in ``construct`` or a ``@jit`` function
(``jit_forbidden_register``: ``Cell.get_parameters``, ``Cell.trainable_params``, hook registration,
``Parameter.set_data``, everything in ``mindspore.context``, ``mindspore.log`` and
``mindspore.common.initializer``). Graph code that reaches one stops compiling at every syntax level: these are
compile errors, not JIT fallbacks. The registry is read from the installed MindSpore by
``scripts/mindspore_tables.py`` (``graphlint/analysis/generated/jit_forbidden.py``) and every entry was compiled
(``refused_measured.py``). Measured with MindSpore 2.10 (CPU).
"""

from dataclasses import dataclass

from graphlint.catalogue.model import DIVERGES, SKIP, Example, FAILS, Rule, Severity, diverges, fails, falls_back, passes

E, W, I = Severity.ERROR, Severity.WARNING, Severity.INFO
FAMILY = "refused"

_REFUSED = "is not supported in 'construct' or function with @jit decorator"

# message fields: {call} - the call as written; {registered} - MindSpore's own name for it
JIT_FORBIDDEN_API = Rule(
    id="E6001",
    symbol="jit-forbidden-api",
    family=FAMILY,
    lax=E,
    strict=E,
    message="`{call}` ({registered}) is refused in graph code at every syntax level; call it outside the graph "
            "(in `__init__`, or before calling the Cell) and pass the result in",
    summary="A call (or reference) in graph code to an API MindSpore registers as not supported in `construct`: "
            "`Cell.get_parameters`/`trainable_params`/hooks/buffers/`state_dict`/`to`, `Parameter.set_data`, "
            "`Tensor.assign_value`, `mindspore.get_context`/`set_context`, `mindspore.log.*`, `initializer(...)`.",
    why=(
        "MindSpore marks these APIs with `jit_forbidden_register` (or their whole module as forbidden): when the "
        "graph compiler meets one it stops with \"Failed to compile in GRAPH_MODE because the method or function "
        "... is not supported in 'construct' or function with @jit decorator\", in GRAPH_MODE and under "
        "`jit(fullgraph=True)` alike. They query or change the Python-side state of the network (its parameter "
        "list, hooks, the context), which a compiled graph cannot do. graphlint reads the registry from "
        "MindSpore itself (`scripts/mindspore_tables.py`)."
    ),
    mindspore_error=(
        "RuntimeError: Failed to compile in GRAPH_MODE because the method or function "
        "'mindspore.nn.cell.Cell.get_parameters' is not supported in 'construct' or function with @jit decorator."
    ),
    fix=(
        "Do it outside the graph: read the context, the parameter list or the log level in `__init__` and keep "
        "the result in an attribute (a Python value is a constant of the graph); change a Parameter with "
        "`ops.assign(self.p, value)` instead of `set_data`; register hooks and create initializers before the "
        "first call."
    ),
    flagged=(
        fails(
            """
            def build():
                class Inner(nn.Cell):
                    def construct(self, x):
                        return x

                class Outer(nn.Cell):
                    def __init__(self):
                        super().__init__()
                        self.inner = Inner()

                    def construct(self, x):
                        params = self.inner.get_parameters()
                        return self.inner(x)
                return Outer


            Net = build()
            """,
            fixed="""
            def build():
                class Inner(nn.Cell):
                    def construct(self, x):
                        return x

                class Outer(nn.Cell):
                    def __init__(self):
                        super().__init__()
                        self.inner = Inner()

                    def construct(self, x):
                        return self.inner(x)
                return Outer


            Net = build()
            """,
            error="is not supported in 'construct' or function with @jit decorator",
            title="a forbidden method of a sub-Cell whose classes are defined in a function",
            lines=12,
        ),
        fails(
            """
            class Net(nn.Cell):
                def __init__(self):
                    super().__init__()
                    self.w = Parameter(Tensor(np.ones((2, 3), np.float32)), name="w")

                def construct(self, x):
                    params = self.trainable_params()
                    return x * params[0]
            """,
            error="'mindspore.nn.cell.Cell.trainable_params' " + _REFUSED,
            title="`self.trainable_params()` / `self.get_parameters()`",
            lines=7,
            fields={"call": "self.trainable_params()"},
        ),
        fails(
            """
            class Recommender(nn.Cell):
                def __init__(self):
                    super().__init__()
                    self.item_emb = nn.Dense(3, 3)

                def construct(self, x):
                    return self.item_emb(x)

            class WithL2(nn.Cell):
                def __init__(self, model):
                    super().__init__()
                    self.model = model

                def construct(self, x):
                    loss = self.model(x).sum()
                    for param in self.model.item_emb.get_parameters():
                        loss += ops.norm(param)
                    return loss

            class Net(nn.Cell):
                def __init__(self):
                    super().__init__()
                    self.train_net = WithL2(Recommender())

                def construct(self, x):
                    return self.train_net(x)
            """,
            error="'mindspore.nn.cell.Cell.get_parameters' " + _REFUSED,
            title="`get_parameters()` of a layer held by a Cell the constructor was given (SASRec's L2 term)",
            lines=16,
            fields={"call": "self.model.item_emb.get_parameters()"},
        ),
        fails(
            """
            class Net(nn.Cell):
                def construct(self, x):
                    if ms.get_context("device_target") == "CPU":
                        return x * 2
                    return x
            """,
            error="'mindspore.context.get_context' " + _REFUSED,
            title="`mindspore.get_context(...)`",
            lines=3,
        ),
        fails(
            """
            from mindspore import log as logger


            class Net(nn.Cell):
                def construct(self, x):
                    logger.warning("in construct")
                    return x * 2
            """,
            fixed="""
            from mindspore import log as logger


            class Net(nn.Cell):
                def construct(self, x):
                    return x * 2
            """,
            fix_safety="unsafe",  # the log no longer appears
            error="'mindspore.log.warning' " + _REFUSED,
            title="`mindspore.log.warning(...)`",
            lines=6,
        ),
        Example(
            """
            class Net(nn.Cell):
                def __init__(self):
                    super().__init__()
                    self.w = Parameter(Tensor(np.ones((2, 3), np.float32)), name="w")

                def construct(self, x):
                    self.w.set_data(x)
                    return x * 2
            """,
            lax=FAILS,
            strict=FAILS,
            error="set_data",
            title="`Parameter.set_data(...)`",
            lines=7,
        ),
    ),
    clean=(
        passes(
            """
            class Net(nn.Cell):
                def construct(self, x):
                    return x * (ms.context.GRAPH_MODE + 1)
            """,
        ),
        passes(
            """
            class Net(nn.Cell):
                def __init__(self):
                    super().__init__()
                    self.w = Parameter(Tensor(np.ones((2, 3), np.float32)), name="w")
                    self.count = len(self.trainable_params())  # outside graph code: fine
                    self.on_cpu = ms.get_context("device_target") == "CPU"

                def construct(self, x):
                    if self.on_cpu:
                        return x * self.w * self.count
                    return x
            """,
        ),
        passes(
            """
            class Net(nn.Cell):
                def __init__(self):
                    super().__init__()
                    self.w = Parameter(Tensor(np.ones((2, 3), np.float32)), name="w")

                def construct(self, x):
                    ops.assign(self.w, x)
                    return self.w * 2 + x.to(ms.float32)
            """,
        ),
    ),
)

PARAMETER_CREATED_IN_GRAPH = Rule(
    id="E6002",
    symbol="parameter-created-in-graph",
    family=FAMILY,
    lax=E,
    strict=E,
    message="a `Parameter` cannot be created in graph code; create it in `__init__` (`self.{name} = "
            "Parameter(...)`) and use the attribute",
    summary="`Parameter(...)` (or `ParameterTuple(...)`) called inside graph code.",
    why=(
        "A Parameter is state that lives across calls; the graph compiler refuses to create one while "
        "compiling: \"Failed to compile in GRAPH_MODE because creating class "
        "'mindspore.common.parameter.Parameter' instances is not supported in 'construct' or @jit decorated "
        "function\", at every syntax level."
    ),
    mindspore_error=(
        "ValueError: Failed to compile in GRAPH_MODE because creating class "
        "'mindspore.common.parameter.Parameter' instances is not supported in 'construct' or @jit decorated "
        "function."
    ),
    fix="Create the Parameter in `__init__` and refer to it as `self.<name>`; a temporary value is a Tensor.",
    flagged=(
        fails(
            """
            class Net(nn.Cell):
                def construct(self, x):
                    w = Parameter(Tensor(np.ones((2, 3), np.float32)), name="w")
                    return x * w
            """,
            fixed="""
            class Net(nn.Cell):
                def construct(self, x):
                    w = Tensor(np.ones((2, 3), np.float32))
                    return x * w
            """,
            error="creating class 'mindspore.common.parameter.Parameter' instances is not supported",
            title="`Parameter(...)` in `construct`",
            lines=3,
        ),
    ),
    clean=(
        passes(
            """
            class Net(nn.Cell):
                def __init__(self):
                    super().__init__()
                    self.w = Parameter(Tensor(np.ones((2, 3), np.float32)), name="w")

                def construct(self, x):
                    w = Tensor(np.ones((2, 3), np.float32))
                    return x * self.w + w
            """,
        ),
    ),
)

# message fields: {attr} - the attribute holding the lambda; {parameter} - the __init__ parameter
LAMBDA_DEFAULT_IN_GRAPH = Rule(
    id="E6003",
    symbol="lambda-default-in-graph",
    family=FAMILY,
    lax=E,
    strict=E,
    message="`self.{attr}` is the lambda default of `{parameter}` in a `def` line; MindSpore cannot find its "
            "source there: put the lambda on a line of its own (`{parameter}=None` and "
            "`self.{attr} = {parameter} or (lambda ...)`)",
    summary="Graph code calls a lambda that a `def` line gave as a default argument (`def __init__(self, "
            "fn=lambda t: t * 2)`).",
    why=(
        "To compile a lambda MindSpore reads its source line; a lambda written on a `def` line (a default "
        "argument) is refused: \"An error occurred while parsing the positional information of the lambda "
        "expression. Please write the lambda expression on a separate line.\" (measured with MindSpore 2.10, "
        "at every syntax level)."
    ),
    mindspore_error=(
        "ValueError: An error occurred while parsing the positional information of the lambda expression. "
        "Please write the lambda expression on a separate line."
    ),
    fix="Give the parameter a default of None and write the lambda on a line of its own in `__init__`.",
    flagged=(
        fails(
            """
            class Net(nn.Cell):
                def __init__(self, combine=lambda t: t * 2):
                    super().__init__()
                    self.combine = combine

                def construct(self, x):
                    return self.combine(x)
            """,
            fixed="""
            def _combine_default(t):
                return t * 2

            class Net(nn.Cell):
                def __init__(self, combine=_combine_default):
                    super().__init__()
                    self.combine = combine

                def construct(self, x):
                    return self.combine(x)
            """,
            error="Please write the lambda expression on a separate line",
            title="a lambda default argument called in `construct`",
            lines=7,
            fields={"attr": "combine", "parameter": "combine"},
        ),
    ),
    clean=(
        passes(
            """
            class Net(nn.Cell):
                def __init__(self, combine=None):
                    super().__init__()
                    self.combine = combine or (
                        lambda t: t * 2
                    )

                def construct(self, x):
                    return self.combine(x)
            """,
        ),
    ),
)

# message fields: (none)
LAMBDA_IN_FOR_LOOP = Rule(
    id="E6004",
    symbol="lambda-in-for-loop",
    family=FAMILY,
    lax=E,
    strict=E,
    message="a lambda inside a `for` loop body makes the compiled graph return None (MindSpore 2.10): define it "
            "before the loop, or use a nested `def`",
    summary="A `lambda` written inside the body of a `for` loop in graph code (`f = lambda t: t * 2`, or passed "
            "straight to `ops.Map()`).",
    why=(
        "The `for` loop is unrolled, and with a lambda in its body the compiled graph returns None instead of its "
        "result: no error, at either syntax level, and a helper's caller then fails on None (measured with "
        "MindSpore 2.10 on `for _ in range(2)`: the same lambda before the loop, in a `while` loop, or as a nested "
        "`def` in the loop, compiles and gives PYNATIVE_MODE's result)."
    ),
    fix="Move the lambda above the loop (it is the same function each step), or write a nested `def` in its place "
        "(what `--fix` writes).",
    flagged=(
        diverges(
            """
            class Net(nn.Cell):
                def construct(self, x):
                    y = x
                    for _ in range(2):
                        double = lambda t: t * 2
                        y = double(y)
                    return y
            """,
            title="a lambda assigned in a `for` body",
            lines=5,
            fixed="""
            class Net(nn.Cell):
                def construct(self, x):
                    y = x
                    for _ in range(2):
                        def double(t):
                            return t * 2
                        y = double(y)
                    return y
            """,
        ),
        diverges(
            """
            class Net(nn.Cell):
                def construct(self, x):
                    y = x
                    for _ in range(2):
                        y = ops.Map()(lambda t: t * 2, (y, x))[0]
                    return y
            """,
            title="a lambda passed to `ops.Map()` in a `for` body",
            lines=5,
            fixed="""
            class Net(nn.Cell):
                def construct(self, x):
                    y = x
                    for _ in range(2):
                        def step_fn(t):
                            return t * 2
                        y = ops.Map()(step_fn, (y, x))[0]
                    return y
            """,
        ),
    ),
    clean=(
        passes(
            """
            class Net(nn.Cell):
                def construct(self, x):
                    y = x
                    double = lambda t: t * 2
                    for _ in range(2):
                        y = double(y)
                    return y
            """,
        ),
        passes(
            """
            class Net(nn.Cell):
                def construct(self, x):
                    y = x
                    for _ in range(2):
                        def double(t):
                            return t * 2
                        y = double(y)
                    return y
            """,
        ),
    ),
)


@dataclass(frozen=True)
class TorchSpelling:
    """The measured MindSpore spelling of a reported PyTorch habit, as an edit of the node: keywords renamed
    ((torch, MindSpore) pairs) and the method or the function replaced, or an attribute read turned into an index
    (``entry``)."""

    keyword_renames: tuple = ()
    method_rename: str = ""
    entry: str = ""
    function: str = ""  # the qualified MindSpore function to call instead (``mindspore.ops.diff``)
    receiver_first: bool = False  # the method's receiver is the function's first argument (`t.diag()` -> `ops.diag(t)`)


# message fields: {call} - the form as written; {what} - what graph mode does with it; {error} - MindSpore's
# measured message; {advice} - the measured MindSpore spelling to write (or where to look)
TORCH_HABIT_REFUSED = Rule(
    id="E6005",
    symbol="torch-habit-refused",
    family=FAMILY,
    payload=TorchSpelling,
    lax=E,
    strict=E,
    message="`{call}` {what} (measured: \"{error}\"); {advice}",
    summary="A PyTorch spelling PYNATIVE_MODE accepts and graph mode refuses, at every rank it was measured at: "
            "`x.split(n, dim=k)` (no CPU kernel), `max/min(..., key=...)`, an `nn.CellDict` entry read as an "
            "attribute, `mindspore.dtype_to_nptype`, a Cell method graph code cannot run.",
    why=(
        "MindSpore 2.x's PYNATIVE_MODE takes many PyTorch spellings that graph mode does not: "
        "`scripts/measure_torch_habits.py` compiled every form of MindSpore's PyTorch API mapping pages, the nn "
        "containers, Cell methods and builtins with keywords (`graphlint/analysis/generated/torch_habits.py`, "
        "docs/pytorch-habits.md). The rule reports a call whose every measured form of the same shape (the "
        "method, how many positional arguments, which keywords) stops graph compilation at both levels, with "
        "the MindSpore spelling that was measured to give PYNATIVE_MODE's result. `x.split(n, dim=k)` picks "
        "the SplitTensor kernel, which CPU graph mode does not have (\"Unsupported op [SplitTensor] on CPU\", "
        "with no source line); `axis=` picks Split."
    ),
    mindspore_error="RuntimeError: Kernel select failed: Unsupported op [SplitTensor] on CPU",
    fix="Write the measured MindSpore spelling the message names (`split(n, axis=k)`, `self.parts['name']`); "
        "docs/pytorch-habits.md lists every measured form.",
    flagged=(
        fails(
            """
            class Net(nn.Cell):
                def construct(self, x):
                    options = {"scale": x}
                    options.update(context=x * 2)
                    return options["scale"] + options["context"]
            """,
            error="unexpected keyword argument 'context'",
            title="`kwargs.update(context=c)` (a dict method's keyword form)",
            lines=4,
        ),
        fails(
            """
            class Net(nn.Cell):
                def construct(self, x):
                    a, b = x.split(2, dim=1)
                    return a.sum() + b.sum()
            """,
            fixed="""
            class Net(nn.Cell):
                def construct(self, x):
                    a, b = x.split(2, axis=1)
                    return a.sum() + b.sum()
            """,
            error="Unsupported op [SplitTensor] on CPU",
            title="`x.split(n, dim=k)`",
            lines=3,
            fields={"call": "x.split(2, dim=1)", "advice": "write `x.split(2, axis=1)`"},
        ),
        fails(
            """
            class Net(nn.Cell):
                def construct(self, x):
                    return x.diag() * 2
            """,
            fixed="""
            class Net(nn.Cell):
                def construct(self, x):
                    return ops.diag(x) * 2
            """,
            error="As a deprecated Tensor method, 'diag'",
            title="`t.diag()` (the receiver moves into `ops.diag`)",
            lines=3,
            fields={"call": "x.diag()", "advice": "write `ops.diag(x)`"},
        ),
        fails(
            """
            class Net(nn.Cell):
                def construct(self, x):
                    return x[0:1].expand(2, 2, x.shape[1]) + 1
            """,
            fixed="""
            class Net(nn.Cell):
                def construct(self, x):
                    return x[0:1].broadcast_to(2, 2, x.shape[1]) + 1
            """,
            error="The parameters number of the function is 2",
            title="PyTorch's `*size`: `t.expand(a, b, c)`, any number of sizes",
            lines=3,
        ),
        fails(
            """
            class Net(nn.Cell):
                def construct(self, x):
                    return x.argsort(dim=-1, descending=True)
            """,
            error="Unsupported op [ArgSort] on CPU",
            title="`t.argsort(dim=-1, descending=True)`: the flag selects no other kernel",
            lines=3,
        ),
        fails(
            """
            from mindspore import mint

            class Net(nn.Cell):
                def construct(self, x):
                    return mint.eye(3).index_select(dim=0, index=x.argmax(axis=1))
            """,
            fixed="""
            from mindspore import mint

            class Net(nn.Cell):
                def construct(self, x):
                    return mint.eye(3).index_select(axis=0, index=x.argmax(axis=1))
            """,
            error="Unsupported op [IndexSelect] on CPU",
            title="on a Tensor a `mint` function made (CapsNet's one-hot `mint.eye(n).index_select(dim=0, index=i)`)",
            lines=5,
        ),
        # (STRICT stops earlier, at `.tolist()`, which other rules report: this form is measured at the lax level)
        Example(
            """
            class Net(nn.Cell):
                def construct(self, x):
                    t = x.reshape((6,))
                    sizes = (t[:2] * 0 + 3).astype(ms.int32).tolist()
                    return t.split(sizes, axis=0)
            """,
            lax=FAILS,
            strict=SKIP,
            error="Illegal type in the graph: AbstractKeywordArg",
            title="`t.split(sizes, axis=0)` with sizes from `.tolist()`",
            lines=5,
            fields={"advice": "write `t.split(sizes, 0)`"},
        ),
        fails(
            """
            class Net(nn.Cell):
                def construct(self, x):
                    best = max(((x[0, 0], 1), (x[0, 1], 2)), key=lambda c: c[1])
                    return best[0]
            """,
            error="Got an unexpected keyword argument 'key'",
            title="`max(..., key=...)`",
            lines=3,
        ),
        fails(
            """
            class Net(nn.Cell):
                def construct(self, x):
                    low = Tensor(np.finfo(ms.dtype_to_nptype(x.dtype)).min)
                    return ops.maximum(x, low)
            """,
            error="'mindspore.log.warning' is not supported",
            title="`mindspore.dtype_to_nptype(...)` (deprecated: it logs)",
            lines=3,
        ),
        fails(
            """
            from mindspore import mint


            class Net(nn.Cell):
                def construct(self, x):
                    return mint.diff(x, dim=1)
            """,
            fixed="""
            from mindspore import mint


            class Net(nn.Cell):
                def construct(self, x):
                    return ops.diff(x, axis=1)
            """,
            error="Unsupported op [Narrow] on CPU",
            title="`mint.diff(x, dim=1)` (no CPU kernel in graph mode)",
            lines=6,
            fields={"advice": "write `ops.diff(x, axis=1)`"},
        ),
        fails(
            """
            class Net(nn.Cell):
                def __init__(self):
                    super().__init__()
                    self.parts = nn.CellDict({"proj": nn.Dense(3, 3), "act": nn.ReLU()})

                def construct(self, x):
                    return self.parts.act(self.parts["proj"](x))
            """,
            fixed="""
            class Net(nn.Cell):
                def __init__(self):
                    super().__init__()
                    self.parts = nn.CellDict({"proj": nn.Dense(3, 3), "act": nn.ReLU()})

                def construct(self, x):
                    return self.parts["act"](self.parts["proj"](x))
            """,
            error="Dictionary",
            title="an `nn.CellDict` entry read as an attribute",
            lines=7,
            fields={"advice": "write `self.parts['act']`"},
        ),
    ),
    clean=(
        passes(
            """
            class Net(nn.Cell):
                def __init__(self):
                    super().__init__()
                    self.parts = nn.CellDict({"proj": nn.Dense(3, 3), "act": nn.ReLU()})

                def construct(self, x):
                    a, b = x.split(2, axis=1)
                    y = self.parts["act"](self.parts["proj"](x))
                    return a.sum() + b.sum() + y.sum() + max((1, 2))
            """,
        ),
    ),
)

# message fields: {call} - the call as written; {error} - MindSpore's measured STRICT message
TORCH_HABIT_FALLS_BACK = Rule(
    id="W6006",
    symbol="torch-habit-falls-back",
    family=FAMILY,
    lax=W,
    strict=E,
    message="`{call}` runs in graph mode only through the lax syntax level's fallback (measured STRICT: "
            "\"{error}\"); do it outside the graph",
    summary="A Cell method a PyTorch port calls on a sub-Cell in `construct` (`self.sub.set_train(False)`), or a "
            "Tensor method or attribute (`x.stride()`, `x.is_contiguous()`, `x.device`), that GRAPH_MODE runs at the "
            "lax level and "
            "`jit(fullgraph=True)` refuses, at every rank measured (generated/torch_habits.py).",
    why=(
        "`set_train` writes the Cell's `_phase` string: graph code may change an attribute only where it is a "
        "Parameter, so STRICT stops with \"In JIT strict mode, if need to modify a member attribute of a class "
        "with self._phase, the member attribute must be of the Parameter type\"; the lax level runs it as Python "
        "during compilation, once, not at every call."
    ),
    mindspore_error="TypeError: In JIT strict mode, if need to modify a member attribute of a class with "
                    "self._phase, the member attribute must be of the Parameter type.",
    fix="Call it outside the graph: `net.set_train(False)` before calling the network sets every sub-Cell; read "
        "what a Tensor method answers from the shape (`x.shape`) or drop it (`contiguous` layouts do not exist in "
        "graph code).",
    flagged=(
        falls_back(
            """
            class Net(nn.Cell):
                def __init__(self):
                    super().__init__()
                    self.sub = nn.ReLU()

                def construct(self, x):
                    self.sub.set_train(False)
                    return self.sub(x)
            """,
            error="must be of the Parameter type",
            title="`self.sub.set_train(False)` in `construct`",
            lines=7,
        ),
        falls_back(
            """
            class Net(nn.Cell):
                def construct(self, x):
                    return x * x.stride(0)
            """,
            error="cannot get attributes stride",
            title="`x.stride(0)`",
            lines=3,
        ),
        falls_back(
            """
            class Net(nn.Cell):
                def construct(self, x):
                    return x * 2 + ops.ones((2, 3)).to(x.device).sum()
            """,
            error="cannot get attributes device",
            title="`x.device`, read for PyTorch's `.to(x.device)` (an attribute read, measured as the table's "
                  "`t.device`)",
            lines=3,
        ),
    ),
    clean=(
        passes(
            """
            class Net(nn.Cell):
                def __init__(self):
                    super().__init__()
                    self.sub = nn.ReLU()
                    self.sub.set_train(False)

                def construct(self, x):
                    return self.sub(x)
            """,
        ),
    ),
)

# message fields: {call} - the call as written; {fixed} - the same call of `construct`
CELL_CALLS_ITSELF = Rule(
    id="E6007",
    symbol="cell-calls-itself",
    family=FAMILY,
    lax=E,
    strict=E,
    message="`{call}` {how} the Cell through `self`, which graph code cannot call (\"The object is not callable\"); "
            "call its `construct`: `{fixed}`",
    summary="`self(...)` in graph code: a Cell method (a `generate()` loop, a helper) calling its own Cell, as "
            "PyTorch code calls `self(...)` for `forward`.",
    why=(
        "PyTorch modules call `self(idx)` to run `forward` (a `generate()` loop does), and PYNATIVE_MODE runs it. "
        "In graph code `self` is the Cell object the graph was made from, and calling it is refused at every level: "
        "\"The object is not callable. Please check code.\" (measured with MindSpore 2.10: a sub-Cell's "
        "`generate()` reached from another Cell's `construct`, and a helper of the Cell itself). "
        "`self.construct(...)` compiles and computes the same (graph code runs no hooks either way)."
    ),
    mindspore_error="ValueError: The object is not callable. Please check code.",
    fix="Call `self.construct(...)` instead of `self(...)`.",
    flagged=(
        fails(
            """
            class Model(nn.Cell):
                def __init__(self):
                    super().__init__()
                    self.dense = nn.Dense(3, 3)

                def construct(self, x):
                    return self.dense(x)

                def generate(self, x):
                    for _ in range(2):
                        x = self(x)
                    return x

            class Net(nn.Cell):
                def __init__(self):
                    super().__init__()
                    self.model = Model()

                def construct(self, x):
                    return self.model.generate(x)
            """,
            error="The object is not callable",
            inputs="(Tensor(np.ones((2, 3), np.float32)),)",
            title="`self(x)` in a sub-Cell's `generate()`",
            lines=11,
            fields={"call": "self(x)", "fixed": "self.construct(x)", "how": "calls"},
            fixed="""
            class Model(nn.Cell):
                def __init__(self):
                    super().__init__()
                    self.dense = nn.Dense(3, 3)

                def construct(self, x):
                    return self.dense(x)

                def generate(self, x):
                    for _ in range(2):
                        x = self.construct(x)
                    return x

            class Net(nn.Cell):
                def __init__(self):
                    super().__init__()
                    self.model = Model()

                def construct(self, x):
                    return self.model.generate(x)
            """,
        ),
        fails(
            """
            def run_windows(x, predictor):
                return predictor(x) + predictor(x * 2)

            class Model(nn.Cell):
                def __init__(self):
                    super().__init__()
                    self.dense = nn.Dense(3, 3)

                def construct(self, x):
                    return self.dense(x)

                def predict(self, x):
                    return run_windows(x, self)

            class Net(nn.Cell):
                def __init__(self):
                    super().__init__()
                    self.model = Model()

                def construct(self, x):
                    return self.model.predict(x)
            """,
            error="The object is not callable",
            inputs="(Tensor(np.ones((2, 3), np.float32)),)",
            title="the Cell passed as `self` to a function that calls it (MONAI's `sliding_window_inference(x, "
                  "roi, n, self)`)",
            lines=13,
            fields={"call": "run_windows(x, self)", "fixed": "run_windows(x, self.construct)"},
            fixed="""
            def run_windows(x, predictor):
                return predictor(x) + predictor(x * 2)

            class Model(nn.Cell):
                def __init__(self):
                    super().__init__()
                    self.dense = nn.Dense(3, 3)

                def construct(self, x):
                    return self.dense(x)

                def predict(self, x):
                    return run_windows(x, self.construct)

            class Net(nn.Cell):
                def __init__(self):
                    super().__init__()
                    self.model = Model()

                def construct(self, x):
                    return self.model.predict(x)
            """,
        ),
    ),
    clean=(
        passes(
            """
            class Model(nn.Cell):
                def __init__(self):
                    super().__init__()
                    self.dense = nn.Dense(3, 3)

                def construct(self, x):
                    return self.dense(x)

            class Net(nn.Cell):
                def __init__(self):
                    super().__init__()
                    self.model = Model()

                def construct(self, x):
                    return self.model(self.model(x))
            """,
            inputs="(Tensor(np.ones((2, 3), np.float32)),)",
        ),
    ),
)

# message fields: {call} - the call in graph code; {line} - the line of the lambda; {found} - the node type
# MindSpore's parser finds there ("Call", "Dict", ...)
LAMBDA_NOT_ITS_OWN_STATEMENT = Rule(
    id="E6008",
    symbol="lambda-inside-expression",
    family=FAMILY,
    lax=E,
    strict=E,
    message="`{call}` runs the lambda of line {line}, written inside a larger expression (MindSpore's parser finds "
            "{found} there, not the lambda): give it a statement of its own (`name = lambda ...`) or make it a "
            "`def`",
    summary="Graph code calls a lambda object (held in a list, a dict, an attribute, a factory's return) that was "
            "written inside a call, a list or dict display or a conditional expression: "
            "`fns.append(lambda x: ...)`, `ACT = {\"swish\": lambda x: ...}`.",
    why=(
        "MindSpore compiles a function object from its source: it takes the lines from the one the lambda starts on "
        "(`inspect.getsourcelines`) and expects the first statement there to have the lambda as its value. A "
        "lambda inside `fns.append(...)`, `[...]`, `{...}` or `a if c else lambda ...` is refused at every level: "
        "\"Parse Lambda Function Fail. Node type must be Lambda, but got Call\" (measured with MindSpore 2.10; "
        "`Parser::ParseFuncGraph` in parse.cc). A lambda defined inside the graph function itself is part of its "
        "source and is not concerned."
    ),
    mindspore_error="TypeError: Parse Lambda Function Fail. Node type must be Lambda, but got Call. Please check "
                    "lambda expression to make sure it is defined on a separate line.",
    fix="Write each lambda as its own assignment (`double = lambda x: x * 2`, then `fns.append(double)`), or as a "
        "`def`.",
    flagged=(
        fails(
            """
            class Net(nn.Cell):
                def __init__(self):
                    super().__init__()
                    fns = []
                    fns.append(lambda t: t * 2)
                    fns.append(ops.sin)
                    self.fns = fns

                def construct(self, x):
                    return ops.cat([f(x) for f in self.fns], -1)
            """,
            error="Parse Lambda Function Fail",
            title="lambdas appended to a list in `__init__`, called in `construct`",
            lines=10,
            fields={"call": "f(...)", "found": "a `Call`"},
        ),
        fails(
            """
            ACTIVATIONS = {"swish": lambda t: t * ops.sigmoid(t), "relu": ops.relu}

            class Net(nn.Cell):
                def __init__(self):
                    super().__init__()
                    self.act = ACTIVATIONS["swish"]

                def construct(self, x):
                    return self.act(x)
            """,
            error="Parse Lambda Function Fail",
            title="a lambda in a module-level dict of activations",
            lines=9,
            fields={"call": "self.act(...)", "found": "a `Dict`"},
        ),
    ),
    clean=(
        passes(
            """
            def _double(t):
                return t * 2

            class Net(nn.Cell):
                def __init__(self):
                    super().__init__()
                    halve = lambda t: t / 2
                    self.fns = [_double, halve, ops.sin]

                def construct(self, x):
                    return ops.cat([f(x) for f in self.fns], -1)
            """,
        ),
        passes(
            """
            ACTIVATIONS = {"swish": lambda t: t * ops.sigmoid(t), "relu": ops.relu}

            class Net(nn.Cell):
                def __init__(self):
                    super().__init__()
                    self.act = ACTIVATIONS["relu"]

                def construct(self, x):
                    return self.act(x)
            """,
        ),
    ),
)

# message fields: {call} - the call in graph code; {function} - the lambda or function; {names} - the names
DEFAULT_OUT_OF_REACH = Rule(
    id="E6009",
    symbol="default-names-enclosing-local",
    family=FAMILY,
    lax=E,
    strict=E,
    message="`{call}` runs {function}, whose parameter default reads {names}, a local of the enclosing function "
            "that MindSpore cannot resolve (not a global, not read by the body); read it in the body, or pass it",
    summary="Graph code calls a nested function or lambda a factory made, whose parameter default names a local "
            "of the factory (`lambda x, eo=embedder: eo.embed(x)`).",
    why=(
        "Python evaluates a default once, when the function is made; MindSpore compiles the default expression "
        "instead and resolves its names in the function's globals and closure. A local of the enclosing function "
        "that only the default reads is in neither: \"The name 'embedder' is not defined, or not supported in "
        "graph mode\" at both levels (measured with MindSpore 2.10, for a lambda and for a nested `def`)."
    ),
    mindspore_error="NameError: The name 'embedder' is not defined, or not supported in graph mode.",
    fix="Read the value in the body (`lambda x: embedder.embed(x)` closes over it), or bind it with "
        "`functools.partial` outside graph code.",
    flagged=(
        fails(
            """
            def make_scale(s):
                factor = s * 2
                scale = lambda t, k=factor: t * k
                return scale

            class Net(nn.Cell):
                def __init__(self):
                    super().__init__()
                    self.scale = make_scale(2.0)

                def construct(self, x):
                    return self.scale(x)
            """,
            error="is not defined",
            title="a factory's lambda with a default naming the factory's local",
            lines=12,
            fields={"call": "self.scale(...)", "names": "`factor`"},
        ),
        fails(
            """
            def make_scale(s):
                factor = s * 2
                def scale(t, k=factor):
                    return t * k
                return scale

            class Net(nn.Cell):
                def __init__(self):
                    super().__init__()
                    self.scale = make_scale(2.0)

                def construct(self, x):
                    return self.scale(x)
            """,
            error="is not defined",
            title="a factory's nested `def` with a default naming the factory's local",
            lines=13,
            fields={"call": "self.scale(...)", "function": "`scale`", "names": "`factor`"},
        ),
    ),
    clean=(
        passes(
            """
            def make_scale(s):
                factor = s * 2
                scale = lambda t: t * factor
                return scale

            class Net(nn.Cell):
                def __init__(self):
                    super().__init__()
                    self.scale = make_scale(2.0)

                def construct(self, x):
                    return self.scale(x)
            """,
        ),
    ),
)

# message fields: {call} - the call in graph code; {function} - the wrapped function
PARTIAL_CALLED_IN_GRAPH = Rule(
    id="W6010",
    symbol="partial-called-in-graph",
    family=FAMILY,
    lax=W,
    strict=E,
    message="`{call}` calls a `functools.partial` of {function}: graph mode runs it as Python through the lax "
            "level's fallback (STRICT refuses it, and a Cell called inside it cannot run); call the function with "
            "the arguments written out",
    summary="Graph code calls a `functools.partial` object that an attribute, a dict or a factory holds.",
    why=(
        "A `functools.partial` object has no source for MindSpore to compile, so the lax level runs it as "
        "interpreted Python, and `jit(fullgraph=True)` refuses it: \"When handling script '__call_func_str__(...)' "
        "in graph mode, the inputs should be constant, but found variable '__input_0__' to be nonconstant\". When "
        "the wrapped function calls a Cell, the lax level fails too (\"Nested execution during JIT execution ... is "
        "not supported\"). Measured with MindSpore 2.10."
    ),
    mindspore_error="ValueError: When handling script '__call_func_str__(__input_0__,) in graph mode', the inputs "
                    "should be constant, but found variable '__input_0__' to be nonconstant.",
    fix="Keep the bound arguments as attributes and call the function itself: `scaled(x, k=self.k)`.",
    flagged=(
        falls_back(
            """
            import functools

            def scaled(t, k=1.0):
                return t * k

            class Net(nn.Cell):
                def __init__(self):
                    super().__init__()
                    self.scale = functools.partial(scaled, k=2.0)

                def construct(self, x):
                    return self.scale(x)
            """,
            error="the inputs should be constant",
            title="a `functools.partial` held by the Cell",
            lines=12,
            fields={"call": "self.scale(...)", "function": "`scaled`"},
        ),
    ),
    clean=(
        passes(
            """
            def scaled(t, k=1.0):
                return t * k

            class Net(nn.Cell):
                def __init__(self):
                    super().__init__()
                    self.k = 2.0

                def construct(self, x):
                    return scaled(x, k=self.k)
            """,
        ),
    ),
)


# message fields: {call} - the call in graph code; {function} - the wrapped function
PARTIAL_RUNS_CELL = Rule(
    id="E6011",
    symbol="partial-runs-cell",
    family=FAMILY,
    lax=E,
    strict=E,
    message="`{call}` calls a `functools.partial` of {function} with a Cell among its arguments: the partial runs "
            "as interpreted Python, which cannot run a Cell (\"Nested execution during JIT execution\"); call the "
            "function itself",
    summary="Graph code calls a `functools.partial` object and passes it a Cell, or the partial bound one "
            "(NeRF's `network_query_fn(pts, viewdirs, network_fn)`).",
    why=(
        "Graph mode has no source to compile a `functools.partial` from, so the lax level runs it as interpreted "
        "Python; a Cell called from there fails at run time: \"Nested execution during JIT execution for "
        "'Dense.construct' is not supported when 'Net.construct' compile and execute\" (measured with MindSpore "
        "2.10, the Cell passed at the call and the Cell bound in the partial). STRICT refuses the partial itself."
    ),
    mindspore_error="RuntimeError: Nested execution during JIT execution for 'Dense.construct' is not supported "
                    "when 'Net.construct' compile and execute.",
    fix="Call the wrapped function with the bound arguments written out (keep them as attributes of the Cell).",
    flagged=(
        fails(
            """
            import functools

            def run(t, net, k=1.0):
                return net(t) * k

            class Net(nn.Cell):
                def __init__(self):
                    super().__init__()
                    self.dense = nn.Dense(3, 3)
                    self.query = functools.partial(run, k=2.0)

                def construct(self, x):
                    return self.query(x, self.dense)
            """,
            error="Nested execution during JIT execution",
            strict_error="the inputs should be constant",
            inputs="(Tensor(np.ones((2, 3), np.float32)),)",
            title="a partial given a Cell at the call",
            lines=13,
            fields={"call": "self.query(...)", "function": "`run`"},
        ),
    ),
    clean=(
        passes(
            """
            def run(t, net, k=1.0):
                return net(t) * k

            class Net(nn.Cell):
                def __init__(self):
                    super().__init__()
                    self.dense = nn.Dense(3, 3)
                    self.k = 2.0

                def construct(self, x):
                    return run(x, self.dense, k=self.k)
            """,
            inputs="(Tensor(np.ones((2, 3), np.float32)),)",
        ),
    ),
)

# message fields: {call} - the form as written; {rank} - the receiver's rank; {difference} - what the measurement
# found; {advice} - "write `<the measured MindSpore spelling>`", or that none was measured
TORCH_HABIT_DIFFERS = Rule(
    id="E6012",
    symbol="torch-habit-differs",
    family=FAMILY,
    lax=E,
    strict=E,
    payload=TorchSpelling,
    message="`{call}` on a Tensor of {rank} computes another result in graph mode than in PYNATIVE_MODE "
            "(measured: {difference}); {advice}",
    summary="A Tensor method or function graph mode runs, at the Tensor's rank, with another result than "
            "PYNATIVE_MODE, as generated/torch_habits.py measured at that rank (`t.argmax()` on a matrix; "
            "`t.add_(v)`, which graph mode writes into `t` and PYNATIVE_MODE on CPU does not).",
    why=(
        "MindSpore binds some Tensor methods differently in the two modes. Measured with MindSpore 2.10 on CPU: "
        "`t.argmax()` on a Tensor of rank 2 to 4 reduces the last axis in PYNATIVE_MODE and gives the flat index in "
        "graph mode; `ops.argmax(t)` gives PYNATIVE_MODE's result in both. The rule needs the receiver's rank (the "
        "analysis takes it from creation ops, reshapes and indexing); at rank 1 the form is fine. A form that "
        "passes no dim (`t.mul_(0.5)`, `t.add_(v)`) was measured at one rank and holds at any: PYNATIVE_MODE on CPU "
        "returns the result without writing `t`, graph mode writes it: the rule reports such a call when `t` is read "
        "after it (its result alone is the same in both modes)."
    ),
    mindspore_error="(no error: the graph computes another result)",
    fix="Write the measured spelling (docs/pytorch-habits.md lists each form and rank).",
    flagged=(
        diverges(
            """
            class Net(nn.Cell):
                def construct(self, x):
                    t = x.reshape(2, 3) * 1.0
                    return t.argmax()
            """,
            strict=DIVERGES,
            inputs="(Tensor(np.array([1.0, 5.0, 2.0, 7.0, 0.0, 3.0], np.float32)),)",
            title="`t.argmax()` on a matrix",
            lines=4,
            fields={"call": "t.argmax()", "rank": "rank 2", "advice": "write `ops.argmax(t)`"},
            fixed="""
            class Net(nn.Cell):
                def construct(self, x):
                    t = x.reshape(2, 3) * 1.0
                    return ops.argmax(t)
            """,
        ),
        diverges(
            """
            class Net(nn.Cell):
                def construct(self, x):
                    t = x.reshape(2, 3) * 1.0
                    t.add_(x.reshape(2, 3))
                    return t
            """,
            strict=DIVERGES,
            inputs="(Tensor(np.array([1.0, 5.0, 2.0, 7.0, 0.0, 3.0], np.float32)),)",
            title="`t.add_(v)`: written in graph mode, not in PYNATIVE_MODE on CPU",
            lines=4,
            fields={"call": "t.add_(x.reshape(2, 3))", "rank": "rank 2",
                    "advice": "no MindSpore spelling was measured to give PYNATIVE_MODE's result at both levels"},
        ),
        diverges(
            """
            class Net(nn.Cell):
                def __init__(self):
                    super().__init__()
                    self.scale = 0.5

                def construct(self, x):
                    scores = x + 1
                    scores.mul_(self.scale)
                    return scores
            """,
            strict=DIVERGES,
            title="`scores.mul_(self.scale)` (a Python number): scaled in graph mode, not in PYNATIVE_MODE on CPU",
            lines=8,
            fields={"call": "scores.mul_(self.scale)", "rank": "any rank (the form passes no dim)"},
        ),
    ),
    clean=(
        passes(
            """
            class Net(nn.Cell):
                def construct(self, x):
                    t = x * 1.0
                    return t.argmax()
            """,
            inputs="(Tensor(np.array([1.0, 5.0, 2.0, 7.0, 0.0, 3.0], np.float32)),)",
        ),
        passes(
            """
            class Net(nn.Cell):
                def construct(self, x):
                    scores = x + 1
                    return scores.mul_(0.5)
            """,
        ),
    ),
)


RULES = (
    JIT_FORBIDDEN_API,
    PARAMETER_CREATED_IN_GRAPH,
    LAMBDA_DEFAULT_IN_GRAPH,
    LAMBDA_IN_FOR_LOOP,
    TORCH_HABIT_REFUSED,
    TORCH_HABIT_FALLS_BACK,
    CELL_CALLS_ITSELF,
    LAMBDA_NOT_ITS_OWN_STATEMENT,
    DEFAULT_OUT_OF_REACH,
    PARTIAL_CALLED_IN_GRAPH,
    PARTIAL_RUNS_CELL,
    TORCH_HABIT_DIFFERS,
)
