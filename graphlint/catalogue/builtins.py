"""Python builtins and containers used on what MindSpore's graph compiler does not support.

The graph parser converts a few builtins (``len``, ``max``, ``min``, ``sum``, ``range``, ``zip`` ...) to graph
operations and leaves the others to the JIT fallback (the list is read from MindSpore's parser by
``scripts/mindspore_tables.py``: ``generated.builtins.BUILTIN_SUPPORT``); list, dict and str have a fixed set of
graph methods. Beyond that: nested sequences of Tensors, dict keys that are run-time values, integers that do
not fit int64, and Python sequences indexed by a Tensor. Measured with MindSpore 2.10 (CPU).
"""

from graphlint.catalogue.model import (DIVERGES, FAILS, OK, SKIP, Example, Rule, Severity, diverges, falls_back, fails,
                                      passes)

E, W, I = Severity.ERROR, Severity.WARNING, Severity.INFO
FAMILY = "builtins"

# message fields: {func} - max or min
BUILTIN_OVER_NESTED_TENSORS = Rule(
    id="E6101",
    symbol="builtin-over-nested-tensors",
    family=FAMILY,
    lax=E,
    strict=E,
    message="`{func}()` over sequences of sequences that hold Tensors is not supported in graph code; compare the "
            "Tensors with ops (`ops.maximum`, `ops.stack(...).max(0)`) or pick the element by index",
    summary="`max(...)` / `min(...)` over a nested tuple or list whose inner sequences hold Tensors.",
    why=(
        "Graph-mode `max`/`min` compare Tensors and numbers, but not tuples of Tensors (PYNATIVE compares them "
        "lexicographically): compiling stops with \"max() cannot support tensor in list or tuple nested now.\" "
        "at every syntax level."
    ),
    mindspore_error="TypeError: 'max() cannot support tensor in list or tuple nested now.'",
    fix="Reduce the Tensors with ops, or compare the first elements and index with the result (`--fix` writes the "
        "lexicographic test with ops and selects each item with `ops.where`, for two tuples of 0-d Tensors).",
    flagged=(
        fails(
            """
            class Net(nn.Cell):
                def construct(self, x):
                    pairs = ((x.sum(), x.mean()), (x.max(), x.min()))
                    return max(pairs)
            """,
            fixed="""
            class Net(nn.Cell):
                def construct(self, x):
                    pairs = ((x.sum(), x.mean()), (x.max(), x.min()))
                    return (ops.where((pairs[1][0] > pairs[0][0]) | (pairs[1][0] == pairs[0][0]) & (pairs[1][1] > pairs[0][1]), pairs[1][0], pairs[0][0]), ops.where((pairs[1][0] > pairs[0][0]) | (pairs[1][0] == pairs[0][0]) & (pairs[1][1] > pairs[0][1]), pairs[1][1], pairs[0][1]))
            """,
            fix_safety="unsafe",
            error="cannot support tensor in list or tuple nested",
            title="`max()` over nested tuples of Tensors",
            lines=4,
            fields={"func": "max"},
        ),
        fails(
            """
            class Net(nn.Cell):
                def construct(self, x):
                    return min([(x.sum(), 1), (x.mean(), 2)])
            """,
            error="cannot support tensor in list or tuple nested",
            title="`min()` over a list of tuples holding Tensors",
            lines=3,
        ),
    ),
    clean=(
        passes(
            """
            class Net(nn.Cell):
                def construct(self, x):
                    return max(x.sum(), x.mean()), min((x.max(), x.min()))
            """,
        ),
    ),
)

# message fields: {func}; {what} - what it is called on; {instead} - what to use
BUILTIN_FALLS_BACK = Rule(
    id="W6102",
    symbol="builtin-falls-back",
    family=FAMILY,
    lax=W,
    strict=E,
    message="`{func}()` of {what} runs only in the JIT fallback (MindSpore's parser does not convert it): STRICT "
            "and MindIR export reject it; {instead}",
    summary="A Python builtin that MindSpore's parser does not convert (`all`, `any`, `sorted`, `reversed`, `id`, "
            "`bin`, `ord`, ...) called on a run-time value (`reversed`: on anything that reads one).",
    why=(
        "MindSpore's graph parser converts only some builtins (`len`, `max`, `sum`, `range`, ...; the list is read "
        "from its parser). The others run in the Python interpreter by JIT fallback when their arguments are "
        "run-time values: that compiles at the default lax level, but `jit(fullgraph=True)` and MindIR export "
        "stop with \"the inputs should be constant, but found variable ...\". With constant arguments they are "
        "folded while compiling and work at every level. For `reversed(...)` STRICT looks at every variable the "
        "argument reads (measured): `reversed(items)` of a list built from Tensors, `reversed(range(x.shape[0]))` "
        "and `reversed(range(len(items)))` fail, while `n = x.shape[0]; reversed(range(n))`, a list of numbers, an "
        "attribute list of constants and a list argument of the top graph (a constant) compile. At the lax level a "
        "loop over `reversed(...)` works when its body only computes values (for the uses that break, see "
        "`reversed-iteration-breaks`)."
    ),
    mindspore_error=(
        "ValueError: When handling script 'sorted(x[0]) in graph mode', the inputs should be constant, but found "
        "variable 'x' to be nonconstant."
    ),
    fix="Use the ops equivalent (`ops.all(t)`, `ops.any(t)`, `ops.sort(t)[0]`), or compute the value outside; "
        "instead of `reversed(...)` iterate a slice (`items[::-1]`) or a descending `range(n - 1, -1, -1)` (`list."
        "reverse()` on a copy works too).",
    flagged=(
        falls_back(
            """
            class Net(nn.Cell):
                def construct(self, x):
                    ordered = sorted([x.sum(), x.mean()])
                    return ordered[0]
            """,
            fixed="""
            class Net(nn.Cell):
                def construct(self, x):
                    ordered = ops.sort(ops.stack([x.sum(), x.mean()]))[0]
                    return ordered[0]
            """,
            fix_safety="unsafe",
            error="the inputs should be constant",
            title="`sorted()` over Tensors",
            lines=3,
            fields={"func": "sorted"},
        ),
        falls_back(
            """
            class Net(nn.Cell):
                def construct(self, x):
                    if all(x[0] > 0):
                        return x * 2
                    return x
            """,
            fixed="""
            class Net(nn.Cell):
                def construct(self, x):
                    return ops.where((x[0] > 0).all(), x * 2, x)
            """,
            fix_safety="unsafe",
            error="the inputs should be constant",
            title="`all()` / `any()` over a Tensor",
            lines=3,
        ),
        falls_back(
            """
            class Net(nn.Cell):
                def construct(self, x):
                    out = dict(scaled=x * 2, raw=x)
                    return out["scaled"] + out["raw"]
            """,
            error="When handling script 'dict(scaled=x * 2, raw=x) in graph mode', the inputs should be constant",
            title="`dict(key=value)` of Tensors (a dict display compiles)",
            lines=3,
            fields={"func": "dict", "what": "a value computed from a Tensor"},
        ),
        falls_back(
            """
            class Net(nn.Cell):
                def construct(self, x):
                    items = [x, x * 2, x * 3]
                    out = x
                    for t in reversed(items):
                        out = out * 10 + t
                    return out
            """,
            fixed="""
            class Net(nn.Cell):
                def construct(self, x):
                    items = [x, x * 2, x * 3]
                    out = x
                    for t in items[::-1]:
                        out = out * 10 + t
                    return out
            """,
            error="the inputs should be constant, but found variable 'items'",
            title="`reversed()` of a list of Tensors",
            lines=5,
            fields={"func": "reversed", "what": "an expression that reads the run-time value `items`"},
        ),
        falls_back(
            """
            class Net(nn.Cell):
                def construct(self, x):
                    out = x[0]
                    for i in reversed(range(x.shape[0])):
                        out = out * 2 + x[i]
                    return out
            """,
            fixed="""
            class Net(nn.Cell):
                def construct(self, x):
                    out = x[0]
                    for i in range(x.shape[0] - 1, -1, -1):
                        out = out * 2 + x[i]
                    return out
            """,
            error="the inputs should be constant, but found variable 'x'",
            title="`reversed(range(x.shape[0]))` (reads a Tensor)",
            lines=4,
            fields={"func": "reversed", "what": "an expression that reads the run-time value `x`"},
        ),
    ),
    clean=(
        passes(
            """
            class Net(nn.Cell):
                def __init__(self):
                    super().__init__()
                    self.sizes = sorted([3, 1, 2])

                def construct(self, x):
                    if all((1, 2)):
                        return x * self.sizes[0] + ops.sort(x)[0]
                    return x
            """,
        ),
        passes(
            """
            class Net(nn.Cell):
                def __init__(self):
                    super().__init__()
                    self.sizes = [1, 2, 3]

                def construct(self, x):
                    items = [x, x * 2, x * 3]
                    n = x.shape[0]
                    out = x
                    for t in items[::-1]:
                        out = out * 10 + t
                    for i in reversed(range(n)):
                        out = out + x[i]
                    for i in range(len(items) - 1, -1, -1):
                        out = out + items[i]
                    for s in reversed(self.sizes):
                        out = out * s
                    backwards = list(items)
                    backwards.reverse()
                    return out + backwards[0]
            """,
        ),
        passes(
            """
            class Net(nn.Cell):
                def construct(self, x):
                    out = {"scaled": x * 2, "raw": x}
                    sizes = dict(h=2, w=3)
                    return out["scaled"] + out["raw"] * sizes["w"]
            """,
            title="a dict display of Tensors; `dict()` of constants (folded while compiling)",
        ),
    ),
)

# message fields: {method}, {kind}
CONTAINER_METHOD_FALLS_BACK = Rule(
    id="W6103",
    symbol="container-method-falls-back",
    family=FAMILY,
    lax=W,
    strict=E,
    message="`{method}` of a {kind} is not a graph operation (it runs by JIT fallback): STRICT and MindIR export "
            "reject it; compute the value in `__init__` and keep the result",
    summary="A `str` method other than `lower`/`upper`/`format`, `len()` of a str or a loop over one, or "
            "`list.copy`/`sort`/`remove`, `dict.copy`/`setdefault`/`popitem`, in graph code.",
    why=(
        "Graph code supports only some methods of Python containers natively (measured: str `lower`, `upper`, "
        "`format`; list `append`, `pop`, `insert`, `extend`, `index`, `count`, `reverse`, `clear`; dict `get`, "
        "`keys`, `values`, `items`, `update`, `pop`). Others compile at the lax level only by JIT fallback; "
        "STRICT stops with \"cannot get attributes ... or the String object has no attribute\". Even "
        "`self.mode.startswith('train')` on a constant string does."
    ),
    mindspore_error=(
        "AttributeError: In JIT strict mode, cannot get attributes startswith or the String object has no "
        "attribute: 'startswith'."
    ),
    fix="Decide it in `__init__` (`self.training_mode = mode.startswith('train')`) and read the attribute.",
    flagged=(
        falls_back(
            """
            @ms.jit
            def spelled(x):
                word = "abc"
                return x, tuple([letter for letter in word])
            """,
            fixed="""
            @ms.jit
            def spelled(x):
                word = "abc"
                return x, tuple([letter for letter in ("a", "b", "c")])
            """,
            fix_safety="safe",  # a local constant
            error="cannot get attributes __len__",
            entry="spelled",
            title="a loop or comprehension over a str",
            lines=4,
            fields={"method": "for ... in", "kind": "str"},
        ),
        falls_back(
            """
            class Net(nn.Cell):
                def __init__(self):
                    super().__init__()
                    self.mode = "train_fast"

                def construct(self, x):
                    if self.mode.startswith("train"):
                        return x * 2
                    return x
            """,
            fixed="""
            class Net(nn.Cell):
                def __init__(self):
                    super().__init__()
                    self.mode = "train_fast"

                def construct(self, x):
                    if True:
                        return x * 2
                    return x
            """,
            error="cannot get attributes startswith",
            title="`str.startswith` (and most str methods) in graph code",
            lines=7,
            fields={"method": "str.startswith", "kind": "str"},
        ),
        falls_back(
            """
            class Net(nn.Cell):
                def __init__(self):
                    super().__init__()
                    self.tag = "abc"

                def construct(self, x):
                    return x * len(self.tag)
            """,
            fixed="""
            class Net(nn.Cell):
                def __init__(self):
                    super().__init__()
                    self.tag = "abc"

                def construct(self, x):
                    return x * 3
            """,
            error="cannot get attributes __len__",
            title="`len()` of a str",
            lines=7,
        ),
    ),
    clean=(
        passes(
            """
            class Net(nn.Cell):
                def __init__(self):
                    super().__init__()
                    self.mode = "train_fast"
                    self.training_mode = self.mode.startswith("train")

                def construct(self, x):
                    items = [x]
                    items.append(x * 2)
                    if self.training_mode and self.mode.upper() == "TRAIN_FAST":
                        return items[-1] + len(items)
                    return x
            """,
        ),
    ),
)

# message fields: {method}
LIST_MUTATION_LOST = Rule(
    id="W6104",
    symbol="list-mutation-lost",
    family=FAMILY,
    lax=W,
    strict=E,
    message="`list.{method}()` in graph code leaves the list unchanged in GRAPH_MODE (and STRICT rejects it): "
            "build the new list instead (`items = [v for v in items if ...]`, `sorted` outside the graph)",
    summary="`list.remove(...)` or `list.sort()` on a Python list inside graph code.",
    why=(
        "At the lax level GRAPH_MODE runs these methods by JIT fallback on a copy: the list in the graph keeps "
        "its items and order, so the graph silently computes something else than PYNATIVE_MODE (measured with "
        "MindSpore 2.10: `[1, 2, 3].remove(2)` leaves 3 items); STRICT rejects the method."
    ),
    mindspore_error="(lax: no error, the list is unchanged) AttributeError: In JIT strict mode, cannot get attributes remove",
    fix="Rebuild the list: `items = items[:i] + items[i + 1:]`, or a comprehension; sort constants in `__init__`.",
    flagged=(
        Example(
            """
            class Net(nn.Cell):
                def construct(self, x):
                    items = [1, 2, 3]
                    items.remove(2)
                    return x * len(items)
            """,
            fixed="""
            class Net(nn.Cell):
                def construct(self, x):
                    items = [1, 2, 3]
                    items = [1, 3]
                    return x * len(items)
            """,
            lax=DIVERGES,
            strict=FAILS,
            error="cannot get attributes remove",
            title="`list.remove` / `list.sort`",
            lines=4,
            fields={"method": "remove"},
        ),
    ),
    clean=(
        passes(
            """
            class Net(nn.Cell):
                def construct(self, x):
                    items = [1, 2, 3]
                    items = [v for v in items if v != 2]
                    return x * len(items)
            """,
        ),
    ),
)

# message fields: {key}
RUNTIME_DICT_KEY = Rule(
    id="E6105",
    symbol="runtime-dict-key",
    family=FAMILY,
    lax=E,
    strict=E,
    message="dict key `{key}` is a run-time value; graph code needs constant keys (str, number, None, tuple): "
            "select between the values with `ops.select`/`ops.where`, or index a Tensor",
    summary="A dict built, read (`d[k]`, `d.get(k)`) or written (`d[k] = v`) in graph code with a key that is a "
            "Tensor or depends on one.",
    why=(
        "Graph-mode dicts are resolved while compiling: their keys must be constants. A key computed from a "
        "Tensor stops compilation: \"make_dict evaluator key only supports string, number, type, none, constant "
        "tensor and tuple, but got ValueAny\" (`dict_getitem` for a read, `dict_get` too, `dict_setitem` for a "
        "write), at every syntax level; PYNATIVE_MODE counts per key as Python does."
    ),
    mindspore_error=(
        "RuntimeError: dict_getitem evaluator key only supports string, number, type, none, constant tensor and "
        "tuple, but got ValueAny"
    ),
    fix="Keep the keys constant and choose between values with `ops.where(cond, d['a'], d['b'])`.",
    flagged=(
        fails(
            """
            class Net(nn.Cell):
                def construct(self, x):
                    table = {"a": x, "b": x * 2}
                    key = "a" if x.sum() > 0 else "b"
                    return table[key]
            """,
            fixed="""
            class Net(nn.Cell):
                def construct(self, x):
                    table = {"a": x, "b": x * 2}
                    return ops.where(x.sum() > 0, table["a"], table["b"])
            """,
            error="evaluator key only supports string, number, type, none, constant tensor and tuple",
            title="dict read with a key chosen by a Tensor",
            lines=5,
        ),
        fails(
            """
            class Net(nn.Cell):
                def construct(self, x):
                    table = {x.sum(): x}
                    return x * 2
            """,
            fixed="""
            class Net(nn.Cell):
                def construct(self, x):
                    return x * 2
            """,
            error="evaluator key only supports string, number, type, none, constant tensor and tuple",
            title="dict built with a Tensor key",
            lines=3,
        ),
        fails(
            """
            class Net(nn.Cell):
                def construct(self, x):
                    counts = {}
                    k = int(x.sum())
                    counts[k] = 1
                    return x * 2
            """,
            error="dict_setitem evaluator key only supports string, number, type, none, constant tensor and tuple",
            title="dict written with a key computed from a Tensor (a count per category)",
            lines=5,
        ),
        fails(
            """
            class Net(nn.Cell):
                def construct(self, x):
                    counts = {1: 2}
                    k = int(x.sum())
                    return x * counts.get(k, 0)
            """,
            error="dict_getitem evaluator key only supports string, number, type, none, constant tensor and tuple",
            strict_error="the inputs should be constant",
            title="dict.get with a key computed from a Tensor",
            lines=5,
        ),
    ),
    clean=(
        passes(
            """
            class Net(nn.Cell):
                def construct(self, x):
                    table = {"a": x, "b": x * 2}
                    return ops.where(x.sum() > 0, table["a"], table["b"])
            """,
        ),
        passes(
            """
            class Net(nn.Cell):
                def construct(self, x):
                    feats = {"a": x, "b": x * 2}
                    out = {}
                    for name, v in feats.items():
                        out[name] = v + 1
                    return out["a"] + out["b"]
            """,
            title="keys of a graph dict's items() are constants, whatever its values",
        ),
    ),
)

# message fields: {value}
INTEGER_BEYOND_INT64 = Rule(
    id="E6106",
    symbol="integer-beyond-int64",
    family=FAMILY,
    lax=E,
    strict=E,
    message="the integer constant {value} does not fit int64: graph code cannot hold it; use a float or keep the "
            "value outside the graph",
    summary="An integer outside int64 (|n| >= 2**63) in graph code: a literal, or a Python int the module passes "
            "to a `construct` or `@jit` function.",
    why=(
        "Python integers are unbounded; graph scalars are int64. A literal that does not fit stops compilation "
        "at every level: \"Unable to cast Python instance of type <class 'int'> to C++ type 'long'\"."
    ),
    mindspore_error="RuntimeError: Unable to cast Python instance of type <class 'int'> to C++ type 'long'",
    fix="Use a float, or reduce the value outside the graph (`self.k = big % 7` in `__init__`).",
    flagged=(
        fails(
            """
            class Net(nn.Cell):
                def construct(self, x):
                    big = 100000000000000000000000
                    return x + (big % 7)
            """,
            fixed="""
            class Net(nn.Cell):
                def construct(self, x):
                    return x + 5
            """,
            error="Unable to cast Python instance of type <class 'int'> to C++ type 'long'",
            title="integer literal beyond int64",
            lines=3,
        ),
        fails(
            """
            class Net(nn.Cell):
                def construct(self, seed, x):
                    return x * (seed % 7)


            if __name__ == "__main__":
                print(Net()(2 ** 64 + 3, Tensor(np.ones((2, 3), np.float32))))
            """,
            error="Unable to cast Python instance of type <class 'int'> to C++ type 'long'",
            inputs="(2 ** 64 + 3, Tensor(np.ones((2, 3), np.float32)))",
            title="a Python int beyond int64 passed to `construct`",
            lines=2,
            fields={"value": "18446744073709551619 (passed as `seed`)"},
        ),
    ),
    clean=(
        passes(
            """
            class Net(nn.Cell):
                def __init__(self):
                    super().__init__()
                    self.k = 100000000000000000000000 % 7

                def construct(self, x):
                    return x + self.k + 2 ** 40 // 2 ** 38
            """,
        ),
    ),
)

# message fields: {expr}
INTEGER_OVERFLOWS_INT64 = Rule(
    id="W6107",
    symbol="integer-overflows-int64",
    family=FAMILY,
    lax=W,
    strict=W,
    message="`{expr}` is computed in int64 in graph code and overflows (Python gives {value}): the graph "
            "silently computes something else; compute it in `__init__` or as a float",
    summary="Constant integer arithmetic in graph code whose result does not fit int64.",
    why=(
        "The graph compiler folds constant integer arithmetic in int64: `2 ** 70` wraps around instead of "
        "giving Python's big integer, and the graph returns a different result than PYNATIVE_MODE without any "
        "error (measured with MindSpore 2.10, at both levels)."
    ),
    fix="Compute the value in `__init__` (plain Python) and use the result, or use floats.",
    flagged=(
        Example(
            """
            class Net(nn.Cell):
                def construct(self, x):
                    n = 2 ** 70
                    return x * (n % 7)
            """,
            fixed="""
            class Net(nn.Cell):
                def construct(self, x):
                    return x * 2
            """,
            lax=DIVERGES,
            strict=DIVERGES,
            title="integer arithmetic overflowing int64",
            lines=3,
            fields={"expr": "2**70"},
        ),
    ),
    clean=(
        passes(
            """
            class Net(nn.Cell):
                def __init__(self):
                    super().__init__()
                    self.scale = (2 ** 70) // 2 ** 68

                def construct(self, x):
                    return x * self.scale * (2 ** 20)
            """,
        ),
    ),
)

# message fields: {kind}
SEQUENCE_INDEXED_BY_TENSOR = Rule(
    id="W6108",
    symbol="sequence-indexed-by-tensor",
    family=FAMILY,
    lax=W,
    strict=E,
    message="a Python {kind} indexed by a Tensor works only at the lax level (JIT fallback or a switch); STRICT and "
            "MindIR export reject it: stack the items into a Tensor and index that (`ops.stack(items)[i]`)",
    summary="A Python tuple or list (of Tensors or numbers) indexed by a Tensor in graph code.",
    why=(
        "Indexing a Python sequence needs a constant index. With a Tensor index GRAPH_MODE falls back to the "
        "interpreter (a list) or builds a switch (a tuple); `jit(fullgraph=True)` and MindIR export stop: "
        "\"using Tensor index to get value from tuple requires that all elements in tuple should be function\" "
        "or \"the inputs should be constant\"."
    ),
    mindspore_error=(
        "TypeError: When JIT_SYNTAX_LEVEL is STRICT, using Tensor index to get value from tuple requires that all "
        "elements in tuple should be function"
    ),
    fix="Stack the elements into one Tensor and index it, or use `ops.gather`.",
    flagged=(
        falls_back(
            """
            class Net(nn.Cell):
                def construct(self, x):
                    items = (x, x * 2, x * 3)
                    i = ops.argmax(x.sum(1))
                    return items[i]
            """,
            fixed="""
            class Net(nn.Cell):
                def construct(self, x):
                    items = (x, x * 2, x * 3)
                    i = ops.argmax(x.sum(1))
                    return ops.stack(items)[i.reshape(()) % 3]
            """,
            error="using Tensor index to get value from tuple",
            title="tuple indexed by a Tensor",
            lines=5,
            fields={"kind": "tuple"},
        ),
        falls_back(
            """
            class Net(nn.Cell):
                def construct(self, x):
                    items = [x, x * 2, x * 3]
                    i = ops.argmax(x.sum(1))
                    return items[i]
            """,
            fixed="""
            class Net(nn.Cell):
                def construct(self, x):
                    items = [x, x * 2, x * 3]
                    i = ops.argmax(x.sum(1))
                    return ops.stack(items)[i.reshape(()) % 3]
            """,
            error="the inputs should be constant",
            title="list indexed by a Tensor",
            lines=5,
        ),
    ),
    clean=(
        passes(
            """
            class Net(nn.Cell):
                def construct(self, x):
                    items = ops.stack((x, x * 2, x * 3))
                    i = ops.argmax(x.sum(1))
                    return items[i], (x, x * 2)[1]
            """,
        ),
    ),
)

# message fields: {seq} - the argument of reversed(); {problem} - how the use breaks
REVERSED_ITERATION_BREAKS = Rule(
    id="E6109",
    symbol="reversed-iteration-breaks",
    family=FAMILY,
    lax=E,
    strict=E,
    message="`reversed({seq})` {problem} in GRAPH_MODE, and STRICT rejects it: iterate a slice (`items[::-1]`) "
            "or a descending `range(n - 1, -1, -1)` instead",
    summary="`reversed(...)` of something that reads a run-time value, iterated by a comprehension, passed to "
            "`enumerate()`, or iterated by a loop that adds to a list or tuple of the enclosing code.",
    why=(
        "The parser leaves `reversed` to the JIT fallback, and at the lax level graph code then iterates the "
        "interpreter's reverse iterator instead of unrolling a loop over the items. A loop whose body only computes "
        "values still works, but what the body adds to a list or tuple from outside the loop (`append`, `extend`, "
        "`insert`, `+=`) is lost (the list is still empty after the loop: \"cannot get item by index from an empty "
        "sequence\"), a list comprehension or generator over it returns wrong values without an error, and "
        "`enumerate(reversed(items))` stops with \"'list_reverseiterator' object has no attribute '__len__'\" (of a "
        "tuple: \"'reversed' object ...\"). "
        "STRICT rejects every `reversed` of a run-time value (\"the inputs should be constant\"). Measured with "
        "MindSpore 2.10; the slice `items[::-1]`, a descending `range` and `list.reverse()` compile at both levels."
    ),
    mindspore_error="ValueError: For primitive:'list_getitem', cannot get item by index from an empty sequence.",
    fix="Iterate `items[::-1]`, or `range(len(items) - 1, -1, -1)` for indices (bind `n = x.shape[0]` first for "
        "a Tensor's length).",
    flagged=(
        Example(
            """
            class Net(nn.Cell):
                def construct(self, x):
                    items = [x, x * 2, x * 3]
                    outs = []
                    for i in reversed(range(len(items))):
                        outs.append(items[i] + 1)
                    return outs[0]
            """,
            fixed="""
            class Net(nn.Cell):
                def construct(self, x):
                    items = [x, x * 2, x * 3]
                    outs = []
                    for i in range(len(items) - 1, -1, -1):
                        outs.append(items[i] + 1)
                    return outs[0]
            """,
            lax=FAILS,
            strict=FAILS,
            # lax: "cannot get item by index from an empty sequence", STRICT: "the inputs should be constant"
            title="a loop over `reversed(...)` that appends to a list",
            lines=5,
            fields={"seq": "range(len(items))",
                    "problem": "iterated by a loop that adds to `outs` leaves `outs` as it was before the loop"},
        ),
        Example(
            """
            class Net(nn.Cell):
                def construct(self, x):
                    items = [x, x * 2, x * 3]
                    return ops.stack([t * 2 for t in reversed(items)])
            """,
            fixed="""
            class Net(nn.Cell):
                def construct(self, x):
                    items = [x, x * 2, x * 3]
                    return ops.stack([t * 2 for t in items[::-1]])
            """,
            lax=DIVERGES,
            strict=FAILS,
            error="the inputs should be constant, but found variable 'items'",
            title="a comprehension over `reversed(...)`",
            lines=4,
            fields={"seq": "items", "problem": "iterated by a comprehension gives wrong values"},
        ),
        Example(
            """
            class Net(nn.Cell):
                def construct(self, x):
                    items = (x, x * 2, x * 3)
                    out = x
                    for i, t in enumerate(reversed(items)):
                        out = out + t * i
                    return out
            """,
            fixed="""
            class Net(nn.Cell):
                def construct(self, x):
                    items = (x, x * 2, x * 3)
                    out = x
                    for i, t in enumerate(items[::-1]):
                        out = out + t * i
                    return out
            """,
            lax=FAILS,
            strict=FAILS,
            # lax: "'reversed' object has no attribute '__len__'", STRICT: "the inputs should be constant"
            title="`enumerate(reversed(...))`",
            lines=5,
            fields={"problem": "in `enumerate()` fails to compile"},
        ),
    ),
    clean=(
        passes(
            """
            class Net(nn.Cell):
                def construct(self, x):
                    items = [x, x * 2, x * 3]
                    outs = []
                    for i in range(len(items) - 1, -1, -1):
                        outs.append(items[i] + 1)
                    for i, t in enumerate(items[::-1]):
                        outs.append(t * i)
                    backwards = list(items)
                    backwards.reverse()
                    return outs[0] + ops.stack([t * 2 for t in backwards])
            """,
        ),
    ),
)

# message fields: {seq} - the argument of reversed(); {what} - a CellList / a list of Cells / a tuple of Cells
REVERSED_CELL_SEQUENCE = Rule(
    id="E6110",
    symbol="reversed-cell-sequence",
    family=FAMILY,
    lax=E,
    strict=E,
    message="`reversed({seq})` of {what} fails in graph code (when the graph runs at the lax level; STRICT rejects "
            "it): iterate the slice `{seq}[::-1]` instead",
    summary="`reversed(...)` of an `nn.CellList` or of a list or tuple of Cells in graph code.",
    why=(
        "The JIT fallback runs `reversed`, and the reverse iterator of Cells it hands back cannot become graph "
        "data: the lax level compiles, then stops when the graph is run with \"Unsupported element type[unknown] "
        "to set element data type for KernelTensor\" (also for `list(reversed(self.layers))`); STRICT rejects it "
        "(\"the inputs should be constant, but found variable 'self.layers'\"). Measured with MindSpore 2.10; "
        "`self.layers[::-1]` compiles at both levels, and so does `reversed()` of an `nn.SequentialCell`."
    ),
    mindspore_error="RuntimeError: Unsupported element type[unknown] to set element data type for KernelTensor.",
    fix="Iterate the slice `self.layers[::-1]` (a CellList, a list or a tuple of Cells all slice in graph code).",
    flagged=(
        Example(
            """
            class Net(nn.Cell):
                def __init__(self):
                    super().__init__()
                    self.layers = nn.CellList([nn.ReLU(), nn.Tanh()])

                def construct(self, x):
                    for layer in reversed(self.layers):
                        x = layer(x)
                    return x
            """,
            fixed="""
            class Net(nn.Cell):
                def __init__(self):
                    super().__init__()
                    self.layers = nn.CellList([nn.ReLU(), nn.Tanh()])

                def construct(self, x):
                    for layer in self.layers[::-1]:
                        x = layer(x)
                    return x
            """,
            lax=FAILS,
            strict=FAILS,
            # lax (when run): "Unsupported element type[unknown] ...", STRICT: "the inputs should be constant"
            title="`reversed()` of an `nn.CellList`",
            lines=7,
            fields={"seq": "self.layers", "what": "a CellList"},
        ),
        Example(
            """
            class Net(nn.Cell):
                def __init__(self):
                    super().__init__()
                    self.layers = (nn.ReLU(), nn.Tanh())

                def construct(self, x):
                    for layer in reversed(self.layers):
                        x = layer(x)
                    return x
            """,
            fixed="""
            class Net(nn.Cell):
                def __init__(self):
                    super().__init__()
                    self.layers = (nn.ReLU(), nn.Tanh())

                def construct(self, x):
                    for layer in self.layers[::-1]:
                        x = layer(x)
                    return x
            """,
            lax=FAILS,
            strict=FAILS,
            title="`reversed()` of a list or tuple of Cells",
            lines=7,
            fields={"what": "a tuple of Cells"},
        ),
    ),
    clean=(
        passes(
            """
            class Net(nn.Cell):
                def __init__(self):
                    super().__init__()
                    self.layers = nn.CellList([nn.ReLU(), nn.Tanh()])
                    self.blocks = [nn.ReLU(), nn.Tanh()]
                    self.seq = nn.SequentialCell([nn.ReLU(), nn.Tanh()])

                def construct(self, x):
                    for layer in self.layers[::-1]:
                        x = layer(x)
                    for block in self.blocks[::-1]:
                        x = block(x)
                    for cell in reversed(self.seq):
                        x = cell(x)
                    return x
            """,
        ),
    ),
)

# message fields: {call}, {tensor}
INDEX_OF_CONSTANT_TENSOR = Rule(
    id="E6111",
    symbol="index-of-constant-tensor",
    family=FAMILY,
    lax=E,
    strict=E,
    message="`{call}` looks for the Tensor `{tensor}` in a sequence of Python constants: graph code never finds "
            "it (\"... is not in\"); look for the Python number instead",
    summary="`seq.index(Tensor(...))` in graph code, where `seq` is a list or tuple of Python constants and the "
            "argument a Tensor made in graph code.",
    why=(
        "While compiling, `index` on a constant sequence compares its items with the argument as Python objects; "
        "a Tensor made in graph code equals none of the numbers. Measured with MindSpore 2.10 at both levels: "
        "`[1, 2, 3].index(Tensor(2))` stops with \"ValueError: Tensor(shape=[], dtype=Int64, value=2) is not "
        "in\"; PYNATIVE_MODE returns 1."
    ),
    mindspore_error="ValueError: Tensor(shape=[], dtype=Int64, value=2) is not in",
    fix="Look for the Python number (`[1, 2, 3].index(2)`); to find a run-time value, compare with ops "
        "(`ops.nonzero(ops.equal(Tensor(seq), value))`).",
    flagged=(
        fails(
            """
            @ms.jit
            def position(x):
                steps = [1, 2, 3]
                return x * steps.index(Tensor(2))
            """,
            error="is not in",
            entry="position",
            title="`list.index()` of a Tensor made in graph code",
            lines=4,
            fields={"call": "steps.index(Tensor(2))", "tensor": "Tensor(2)"},
        ),
    ),
    clean=(
        passes(
            """
            @ms.jit
            def position(x):
                steps = [1, 2, 3]
                return x * steps.index(2)
            """,
            entry="position",
        ),
    ),
)

# message fields: {method}
DICT_POP_IN_GRAPH = Rule(
    id="E6112",
    symbol="dict-pop-in-graph",
    family=FAMILY,
    lax=E,
    strict=E,
    message="`dict.{method}()` in graph code returns a wrong value or stops compiling, and STRICT refuses it; read "
            "the value with `d[key]` and build a dict without the key if you need one",
    summary="`d.pop(key)` on a dict in graph code (the methods the measured API table finds refused at the lax "
            "level: `pop` in MindSpore 2.10).",
    why=(
        "Measured with MindSpore 2.10 (CPU): in GRAPH_MODE `{'a': x, 'b': x * 2}.pop('a')` returned the first row "
        "of `x` instead of `x`, and so did `pop` with a default; reading the dict after a `pop` failed with "
        "\"Unsupported Python object type received: <class 'str'>\"; on a dict of ints the popped value failed "
        "with \"For 'TupleGetItem', input[0] should be Sequence\", and so did `kwargs.pop(key)` on a passed "
        "keyword; only `kwargs.pop(key, default)` of a key no call passes compiled. `jit(fullgraph=True)` refuses the "
        "method: \"the Dictionary[...] object has no attribute: 'pop'\". Reported one severity lower where the "
        "finding rests on a keyword being passed."
    ),
    mindspore_error="IndexError: Unsupported Python object type received: <class 'str'>. Supported types for tensor "
                    "indexing are: list, int, float, tuple, slice, ellipsis, None, array, bool, or Tensor.",
    fix="Read the value with `d[key]` (or `d.get(key, default)`), and where the rest is needed build it: "
        "`rest = {k: v for k, v in d.items() if k != key}`.",
    flagged=(
        Example(
            """
            class Net(nn.Cell):
                def construct(self, x):
                    outputs = {"logits": x, "scores": x * 2}
                    logits = outputs.pop("logits")
                    return logits
            """,
            fixed="""
            class Net(nn.Cell):
                def construct(self, x):
                    outputs = {"logits": x, "scores": x * 2}
                    logits = outputs["logits"]
                    return logits
            """,
            lax=DIVERGES,
            strict=FAILS,
            error="has no attribute: 'pop'",
            title="the value `dict.pop` returns",
            lines=4,
            fields={"method": "pop"},
        ),
        Example(
            """
            class Net(nn.Cell):
                def construct(self, x):
                    outputs = {"logits": x, "scores": x * 2}
                    outputs.pop("logits")
                    return outputs["scores"]
            """,
            fixed="""
            class Net(nn.Cell):
                def construct(self, x):
                    outputs = {"logits": x, "scores": x * 2}
                    return outputs["scores"]
            """,
            lax=FAILS,
            strict=SKIP,  # (STRICT refuses `pop` itself, as in the example above)
            error="Unsupported Python object type received",
            title="the dict after `dict.pop`",
            lines=4,
            fields={"method": "pop"},
        ),
        Example(
            """
            class Net(nn.Cell):
                def construct(self, x, **kwargs):
                    if kwargs.pop("scale", False) is not False:
                        x = x * 2
                    return x
            """,
            lax=OK,  # (no call passes `scale`: popping a missing key with a default compiles; a passed one fails)
            strict=FAILS,
            error="has no attribute: 'pop'",
            title="`kwargs.pop(key, default)`",
            lines=3,
            fields={"method": "pop"},
            assumes="`scale` is passed",
        ),
    ),
    clean=(
        passes(
            """
            class Net(nn.Cell):
                def construct(self, x):
                    outputs = {"logits": x, "scores": x * 2}
                    logits = outputs["logits"]
                    return logits + outputs.get("scores", x)
            """,
        ),
    ),
)


_SCORES = "(Tensor(np.array([0.5, 1.5, 2.0], np.float32)),)"

# message fields: {call} - the call; {what} - its run-time argument, as measured; {error} - MindSpore's message
PYTHON_CALL_FAILS_ON_RUN_TIME_VALUE = Rule(
    id="E6113",
    symbol="python-call-fails-on-run-time-value",
    family=FAMILY,
    lax=E,
    strict=E,
    message="`{call}` on {what} fails in graph code at every level (measured: \"{error}\"); give it a value "
            "known while compiling (a shape, a constant), compute it with ops on Tensors, or do it after the graph "
            "returns",
    summary="A Python builtin, standard-library function, str method or MindSpore op that graph code refuses when "
            "an argument is a run-time Python value: `round`, `itertools.groupby`, `\"\".join` of what "
            "`Tensor.tolist()` gave, `ops.unsorted_segment_sum(x, ids, n)` with `n = int(t) + 1`, ... (the "
            "measured table `python_on_runtime`).",
    why=(
        "With constant arguments MindSpore folds Python's own functions while compiling. Host-side decoding in "
        "PyTorch code (a beam search over `.item()` scores, `max(beams, key=...)`, collapsing repeats with "
        "`itertools.groupby`, `\"\".join` of looked-up tokens, `round(score, 4)`) gives them values only the run "
        "knows: a Python scalar from `.item()` or `int(t)`, a list of them, what `.tolist()` returns. "
        "`scripts/measure_python_on_runtime.py` ran each form in PYNATIVE_MODE, GRAPH_MODE and "
        "`jit(fullgraph=True)` (MindSpore 2.10, CPU); these stop compiling or running at both levels, with "
        "messages like \"Got an unexpected keyword argument 'key'\", \"For Operator[Round], input's type "
        "'Float32' does not match expected type 'Tensor'\", \"unsupported operand type(s) for +: 'int' and "
        "'list'\". PYNATIVE_MODE runs them as Python."
    ),
    mindspore_error="TypeError: unsupported operand type(s) for +: 'int' and 'list'",
    fix=(
        "Return the Tensors from the graph and decode in Python afterwards (beam search, `groupby`, `join`, "
        "`round`), or keep the computation on Tensors: `ops.argmax` for `max(key=...)`, `ops.round`, a mask for "
        "collapsing repeats."
    ),
    flagged=(
        fails(
            """
            class Net(nn.Cell):
                def construct(self, x):
                    ids = x.argsort().tolist()
                    return x * len("-".join(str(k) for k in ids))
            """,
            error="",  # lax: "... contain unsupported element"; STRICT: "cannot get attributes join"
            inputs=_SCORES,
            title="`\"\".join` of what `.tolist()` gave",
            lines=4,
        ),
        fails(
            """
            import itertools

            class Net(nn.Cell):
                def construct(self, x):
                    ids = [int(x.argmax()), int(x.argmin()), int(x.argmax())]
                    kept = [k for k, _ in itertools.groupby(ids)]
                    return x[kept[0]]
            """,
            error="",  # the levels fail with different messages (lax: "unsupported operand type(s) for +")
            inputs=_SCORES,
            title="`itertools.groupby` over run-time ints",
            lines=6,
        ),
        fails(
            """
            class Net(nn.Cell):
                def construct(self, x):
                    n = int(x.argmax()) + 1
                    return ops.unsorted_segment_sum(x, ops.zeros((3,), ms.int32), n)
            """,
            error="",  # lax: "Invalid kernel object type, a tensor type is required but the actual is scalar"
            inputs=_SCORES,
            title="a segment count from `int(t)`",
            lines=4,
        ),
        fails(
            """
            def pool(x, ids, size=None):
                size = int(ids.argmax()) + 1 if size is None else size
                return ops.unsorted_segment_sum(x, ids, size)

            class Net(nn.Cell):
                def construct(self, x):
                    return pool(x, ops.zeros((3,), ms.int32))
            """,
            error="",  # lax: "Invalid kernel object type, a tensor type is required but the actual is scalar"
            inputs=_SCORES,
            title="in a helper whose `size=None` no call passes (PyG's `global_mean_pool`): the parameter is None, "
                  "so the count is the `int(t)` one",
            lines=3,
        ),
    ),
    clean=(
        passes(
            """
            class Net(nn.Cell):
                def construct(self, x):
                    scores = [x[0].item(), x[1].item(), x[2].item()]
                    return x * max(scores)
            """,
            inputs=_SCORES,
        ),
        passes(
            """
            class Net(nn.Cell):
                def construct(self, x):
                    return x * round(2.675, 2) * int(x[0].item())
            """,
            inputs=_SCORES,
        ),
    ),
)


# message fields: {call} - the call; {what} - its run-time argument, as measured
PYTHON_CALL_FALLS_BACK_ON_RUN_TIME_VALUE = Rule(
    id="W6114",
    symbol="python-call-falls-back-on-run-time-value",
    family=FAMILY,
    lax=W,
    strict=E,
    message="`{call}` on {what} runs only by JIT fallback (the Python interpreter, at run time): STRICT and MindIR "
            "export reject it; keep the value a Tensor (ops) or do this after the graph returns",
    summary="A Python builtin or standard-library function that graph code runs only in the interpreter when an "
            "argument is a run-time Python value (`max(a, b)` of `.item()` scores, `divmod`, `str(n)`, "
            "`functools.reduce`, `heapq.nlargest`, a constant list of str indexed by a run-time int, ...).",
    why=(
        "MindSpore's graph parser turns `max`, `min` and `sum` of Tensors into graph operations, but of Python "
        "numbers that only the run knows (`.item()`, `int(t)`) it hands them, like any function it does not "
        "convert, to the JIT fallback: the lax level runs them in the interpreter when the graph runs; "
        "`jit(fullgraph=True)` and MindIR export stop with \"the inputs should be constant, but found variable "
        "...\". Measured per form by `scripts/measure_python_on_runtime.py` (MindSpore 2.10, CPU). The same "
        "functions of Tensors are `math-call-on-tensor` and `builtin-falls-back`."
    ),
    mindspore_error="ValueError: When handling script 'max(data) in graph mode', the inputs should be constant, but "
                    "found variable 'data' to be nonconstant.",
    fix="Keep Tensors: `ops.maximum(a, b)` of the 0-d Tensors instead of `max(a.item(), b.item())`, `ops.log`, "
        "`ops.topk`; or return the Tensors and finish in Python.",
    flagged=(
        falls_back(
            """
            class Net(nn.Cell):
                def construct(self, x):
                    best = max(x[0].item(), x[1].item())
                    return x * best
            """,
            error="the inputs should be constant",
            inputs=_SCORES,
            title="`max()` of two `.item()` scalars",
            lines=3,
            fields={"call": "max(x[0].item(), x[1].item())"},
        ),
        falls_back(
            """
            import functools

            class Net(nn.Cell):
                def construct(self, x):
                    total = functools.reduce(lambda p, q: p + q, [x[0].item(), x[1].item()])
                    return x * total
            """,
            error="the inputs should be constant",
            inputs=_SCORES,
            title="`functools.reduce` over `.item()` scalars",
            lines=5,
        ),
        falls_back(
            """
            class Net(nn.Cell):
                def __init__(self):
                    super().__init__()
                    self.names = ["cat", "dog", "cow"]

                def construct(self, x):
                    return x, self.names[int(x.argmax())]
            """,
            error="Kernel select failed",
            inputs=_SCORES,
            title="a list of label names indexed by `int(t)`",
            lines=7,
            fields={"call": "self.names[int(x.argmax())]"},
        ),
    ),
    clean=(
        passes(
            """
            class Net(nn.Cell):
                def construct(self, x):
                    best = ops.maximum(x[0], x[1])
                    return x * best * max(x.shape[0], 2)
            """,
            inputs=_SCORES,
        ),
    ),
)


# message fields: {call} - the call; {method} - the method
MUTATION_RESULT_USED = Rule(
    id="E6115",
    symbol="mutation-result-used",
    family=FAMILY,
    lax=E,
    strict=E,
    message="`{call}` is used as a value, and graph code then leaves the container unchanged: write "
            "`.{method}(...)` as a statement of its own (it returns None anyway)",
    summary="The result of a list's `append`/`extend`/`insert`/`reverse`/`clear` or a dict's `clear`/`update` "
            "used in graph code (`r = values.append(v)`, `return items.append(v) or items`).",
    why=(
        "Graph code has no mutable lists: MindSpore compiles `values.append(v)` written as a statement into a new "
        "list bound to `values`. Where the call's result is used instead, no name is rebound and the list keeps "
        "its items: measured with MindSpore 2.10 (scripts/measure_torch_habits.py), `[1, 2, 3]` after "
        "`r = values.append(4)` still has 3 items at both levels, where PYNATIVE_MODE has 4; the statement form "
        "gives 4."
    ),
    mindspore_error="(no error: the list keeps its items)",
    fix="Call the method as a statement (`values.append(v)`) and use `None` (or the list) where the result was "
        "used.",
    flagged=(
        diverges(
            """
            class Net(nn.Cell):
                def construct(self, x):
                    values = [x, x * 2]
                    added = values.append(x * 3)
                    return ops.stack(values)
            """,
            strict=DIVERGES,
            title="`added = values.append(v)`",
            lines=4,
            fields={"method": "append"},
        ),
    ),
    clean=(
        passes(
            """
            class Net(nn.Cell):
                def construct(self, x):
                    values = [x, x * 2]
                    values.append(x * 3)
                    return ops.stack(values)
            """,
        ),
    ),
)


# message fields: {call} - the pop call
POP_INSIDE_EXPRESSION = Rule(
    id="E6116",
    symbol="pop-inside-expression",
    family=FAMILY,
    lax=E,
    strict=E,
    message="`{call}` inside a larger expression gives graph code a (list, value) pair, not the value: take it "
            "out first (`skip = {call}`) and use the name",
    summary="`list.pop()` in graph code used inside an expression (`ops.cat([h, hs.pop()], 1)`, a diffusers-style "
            "UNet's skip connections; `hs.pop() * 2`; `return hs.pop()`).",
    why=(
        "Graph code has no mutable lists: MindSpore compiles `lst.pop()` into a new list and the popped value, and "
        "binds them only where the call is the whole value of an assignment (`skip = hs.pop()`, `y: int = x.pop()`, "
        "`y += x.pop()`) or a statement. "
        "Elsewhere the expression gets the pair: measured with MindSpore 2.10 at both levels, `ops.cat([x, "
        "hs.pop()])` fails (\"Failed calling Concat with tensors=List[Tensor[Float32],Tuple[List[...],Tensor]]\"), "
        "`hs.pop() * 2` returns the pair repeated, `hs.pop(0) + 1` fails (\"can only concatenate tuple\"), and a sub-Cell "
        "given `hs.pop()` as an argument gets the pair (\"'Tuple' object has no attribute 'shape'\")."
    ),
    mindspore_error="TypeError: Failed calling Concat with \"tensors=List[Tensor[Float32],Tuple[List[Tensor[Float32]],"
                    "Tensor[Float32]]]\".",
    fix="Pop into a name first: `skip = hs.pop()`, then `ops.cat([h, skip], 1)`.",
    flagged=(
        fails(
            """
            class Net(nn.Cell):
                def construct(self, x):
                    hs = [x, x * 2]
                    return ops.cat([x, hs.pop()])
            """,
            error="Failed calling Concat",
            title="`ops.cat([h, hs.pop()])` (a UNet's skip connection)",
            lines=4,
            fields={"call": "hs.pop()"},
        ),
        diverges(
            """
            class Net(nn.Cell):
                def construct(self, x):
                    hs = [x, x * 2]
                    return hs.pop() * 2
            """,
            strict=DIVERGES,
            title="`hs.pop() * 2`",
            lines=4,
        ),
        fails(
            """
            class Up(nn.Cell):
                def construct(self, x, skip):
                    return x + skip.shape[0]


            class Net(nn.Cell):
                def __init__(self):
                    super().__init__()
                    self.up = Up()

                def construct(self, x):
                    hs = [x, x * 2]
                    return self.up(x, hs.pop())
            """,
            error="'Tuple' object has no attribute 'shape'",
            strict_error="cannot get attributes shape",
            title="`self.up(x, hs.pop())` (the sub-Cell gets the pair)",
            lines=13,
        ),
    ),
    clean=(
        passes(
            """
            class Net(nn.Cell):
                def construct(self, x):
                    hs = [x, x * 2]
                    skip = hs.pop()
                    return ops.cat([x, skip])
            """,
        ),
    ),
)


# message fields: {unpacked} - the dict spread with `**`
DICT_UNPACKING_IN_DISPLAY = Rule(
    id="E6117",
    symbol="dict-unpacking-in-display",
    family=FAMILY,
    lax=E,
    strict=E,
    message="`**{unpacked}` inside a dict display: graph code makes each spread key and value a nested tuple "
            "(`(('r',),)`), so reading them fails or gives other values; write the keys out "
            "(`{{\"r\": d[\"r\"], ...}}`) or set them one by one",
    summary="A dict display that spreads another dict with `**` in graph code (`log = {**regularization_log, "
            "'loss': loss}`).",
    why=(
        "Measured with MindSpore 2.10 at both levels: `log = {**d, 'b': x}` with `d = {'r': x * 3}`, then "
        "`log['r'] + log['b']`, fails (\"For Operator[Add], input's type 'Tuple[Tuple[Tensor[Float32]]]' does not "
        "match\"): the spread entry's key and value come back wrapped in tuples (a returned dict holds "
        "`(('r',),)` as a key at the lax level). PYNATIVE_MODE merges the dicts."
    ),
    mindspore_error="TypeError: For Operator[Add], input's type 'Tuple[Tuple[Tensor[Float32]]]' does not match "
                    "expected type",
    fix="Write the entries out (`{'r': d['r'], 'b': x}`), or start from the display and set the others one by one.",
    flagged=(
        fails(
            """
            class Net(nn.Cell):
                def construct(self, x):
                    d = {"r": x * 3}
                    log = {**d, "b": x}
                    return log["r"] + log["b"]
            """,
            error="Tuple[Tuple[Tensor",
            title="`{**d, 'b': x}` (a training step's log dict)",
            lines=4,
            fields={"unpacked": "d"},
        ),
    ),
    clean=(
        passes(
            """
            class Net(nn.Cell):
                def construct(self, x):
                    d = {"r": x * 3}
                    log = {"r": d["r"], "b": x}
                    return log["r"] + log["b"]
            """,
        ),
    ),
)


RULES = (
    BUILTIN_OVER_NESTED_TENSORS,
    BUILTIN_FALLS_BACK,
    CONTAINER_METHOD_FALLS_BACK,
    LIST_MUTATION_LOST,
    RUNTIME_DICT_KEY,
    INTEGER_BEYOND_INT64,
    INTEGER_OVERFLOWS_INT64,
    SEQUENCE_INDEXED_BY_TENSOR,
    REVERSED_ITERATION_BREAKS,
    REVERSED_CELL_SEQUENCE,
    INDEX_OF_CONSTANT_TENSOR,
    DICT_POP_IN_GRAPH,
    PYTHON_CALL_FAILS_ON_RUN_TIME_VALUE,
    PYTHON_CALL_FALLS_BACK_ON_RUN_TIME_VALUE,
    MUTATION_RESULT_USED,
    POP_INSIDE_EXPRESSION,
    DICT_UNPACKING_IN_DISPLAY,
)
