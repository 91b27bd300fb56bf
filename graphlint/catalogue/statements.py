"""Statements and expressions that MindSpore's graph parser rejects."""

from dataclasses import dataclass

from graphlint.catalogue.model import FAILS, OK, Example, Rule, Severity, diverges, fails, passes

E, W, I = Severity.ERROR, Severity.WARNING, Severity.INFO
FAMILY = "statements"


@dataclass(frozen=True)
class UnsupportedIdentity:
    """What `a is b` compares against, for the `is` -> `==` rewrite: a class MindSpore turns into an instance
    maker (a Cell, Primitive or @jit_class class) fails under `==` too (measured: "name '__input_key_0__' is
    not defined")."""

    operand: str  # "a float", "a Cell class", ...
    makes_instances: bool = False

TRY_IN_GRAPH = Rule(
    id="E5101",
    symbol="try-in-graph",
    family=FAMILY,
    lax=E,
    strict=E,
    message="`try` is not supported in graph code; validate inputs before the graph or remove the handler",
    summary="A `try` statement (with `except`, `else` or `finally`) inside graph code.",
    why=(
        "MindSpore's graph parser has no exception handling: compiling a `construct` or `@jit` "
        "function that contains `try` stops with an error, at every syntax level."
    ),
    mindspore_error="RuntimeError: Unsupported statement 'Try'.",
    fix="Remove the `try`: check the condition explicitly, or handle errors outside the Cell.",
    flagged=(
        fails(
            """
            class Net(nn.Cell):
                def construct(self, x):
                    try:
                        y = x * 2
                    except ValueError:
                        y = x
                    return y
            """,
            fixed="""
            class Net(nn.Cell):
                def construct(self, x):
                    y = x * 2
                    return y
            """,
            error="Unsupported statement 'Try'",
            title="`try` / `except`",
            lines=3,
        ),
        fails(
            """
            class Net(nn.Cell):
                def construct(self, x):
                    try:
                        y = ops.relu(x)
                    except ValueError:
                        print("bad input")
                        raise
                    return y * 2
            """,
            error="Unsupported statement 'Try'",
            title="`try` whose handler only reports and re-raises",
            lines=3,
            fixed="""
            class Net(nn.Cell):
                def construct(self, x):
                    y = ops.relu(x)
                    return y * 2
            """,
        ),
    ),
    clean=(
        passes(
            """
            class Net(nn.Cell):
                def construct(self, x):
                    return x * 2
            """,
        ),
    ),
)


# message fields: none
DEL_IN_GRAPH = Rule(
    id="E5102",
    symbol="del-in-graph",
    family=FAMILY,
    lax=E,
    strict=E,
    message="`del` is not supported in graph code; drop the statement, or rebuild the list/dict without the item",
    summary="A `del` statement (`del name`, `del seq[i]`, `del d[key]`, `del obj.attr`) inside graph code.",
    why=(
        "MindSpore's graph parser has no translation for `ast.Delete`: any `del` in `construct`, "
        "a `@jit` function or a helper they call stops compilation at every syntax level. The "
        "parser rejects the whole function, so even a `del` in a branch that never runs "
        "(`if False:`) fails. Graph variables need no freeing: the compiler manages their memory."
    ),
    mindspore_error="RuntimeError: Unsupported statement 'Delete'.",
    fix=(
        "Remove `del name` (graph values are freed by the compiler). For `del seq[i]` build a new "
        "sequence (`seq = seq[:i] + seq[i + 1:]`); for a dict build a new one without the key."
    ),
    flagged=(
        fails(
            """
            class Net(nn.Cell):
                def construct(self, x):
                    y = x + 1
                    z = y * 2
                    del y
                    return z
            """,
            error="Unsupported statement 'Delete'",
            title="`del name`",
            lines=5,
            fixed="""
                class Net(nn.Cell):
                    def construct(self, x):
                        y = x + 1
                        z = y * 2
                        return z
            """,
        ),
        fails(
            """
            @ms.jit
            def f(x):
                items = [x, x + 1, x + 2]
                del items[0]
                return items[0]
            """,
            fixed="""
            @ms.jit
            def f(x):
                items = [x, x + 1, x + 2]
                items = items[:0] + items[1:]
                return items[0]
            """,
            entry="f",
            error="Unsupported statement 'Delete'",
            title="`del seq[i]` / `del d[key]`",
            lines=4,
        ),
    ),
    clean=(
        passes(
            """
            class Net(nn.Cell):
                def __init__(self):
                    super().__init__()
                    table = {"a": 1, "b": 2}
                    del table["a"]  # outside graph code: plain Python
                    self.k = table["b"]

                def construct(self, x):
                    items = [x, x + 1, x + 2]
                    items = items[1:]
                    return items[0] * self.k
            """,
        ),
    ),
)


# message fields: {statement} - "import math", "from mindspore import ops"
IMPORT_IN_GRAPH = Rule(
    id="E5103",
    symbol="import-in-graph",
    family=FAMILY,
    lax=E,
    strict=E,
    message="`{statement}` inside graph code is not supported; move the import to the top of the module",
    summary=(
        "An `import` or `from ... import` statement inside graph code (construct, "
        "@jit function or a helper they call)."
    ),
    why=(
        "The graph parser has no translation for `ast.Import` / `ast.ImportFrom`: compiling stops "
        "at every syntax level, for any module (`import math`, `from mindspore import ops`), "
        "even when the import sits in a branch that never runs. Lazy imports inside helper "
        "functions break as soon as graph code calls the helper."
    ),
    mindspore_error="RuntimeError: Unsupported statement 'Import'. (or 'ImportFrom')",
    fix="Move the import to module level (or into `__init__`) and refer to the module name in graph code.",
    flagged=(
        fails(
            """
            class Net(nn.Cell):
                def construct(self, x):
                    import math
                    return x * math.pi
            """,
            error="Unsupported statement 'Import'",
            title="`import module`",
            lines=3,
            fixed="""
                import math

                class Net(nn.Cell):
                    def construct(self, x):
                        return x * math.pi
            """,
        ),
        fails(
            """
            @ms.jit
            def f(x):
                from mindspore import ops as P
                return P.relu(x)
            """,
            entry="f",
            error="Unsupported statement 'ImportFrom'",
            title="`from module import name`",
            lines=3,
            fixed="""
                from mindspore import ops as P

                @ms.jit
                def f(x):
                    return P.relu(x)
            """,
        ),
        fails(
            """
            class Net(nn.Cell):
                def construct(self, x):
                    if x.shape[0] > 1:
                        import math
                        x = x * math.pi
                    return x
            """,
            error="Unsupported statement 'Import'",
            title="`import` in a branch that runs",
            lines=4,
            fixed="""
                import math

                class Net(nn.Cell):
                    def construct(self, x):
                        if x.shape[0] > 1:
                            x = x * math.pi
                        return x
            """,
        ),
        fails(
            """
            def scale(t):
                import math
                return t * math.pi

            class Net(nn.Cell):
                def construct(self, x):
                    return scale(x)
            """,
            error="Unsupported statement 'Import'",
            title="`import` in a helper called from graph code",
            lines=2,
            fixed="""
                import math

                def scale(t):
                    return t * math.pi

                class Net(nn.Cell):
                    def construct(self, x):
                        return scale(x)
            """,
        ),
    ),
    clean=(
        passes(
            """
            import math

            class Net(nn.Cell):
                def __init__(self):
                    super().__init__()
                    import collections  # outside graph code: plain Python
                    self.k = len(collections.OrderedDict(a=1))

                def construct(self, x):
                    return ops.relu(x) * math.pi * self.k
            """,
        ),
    ),
)


# message fields: {function} - the generator function called from graph code
GENERATOR_IN_GRAPH = Rule(
    id="E5104",
    symbol="generator-in-graph",
    family=FAMILY,
    lax=E,
    strict=E,
    message=(
        "`{function}` is a generator (`yield`); graph code cannot run "
        "generators, return a tuple or list instead"
    ),
    summary="A function containing `yield` or `yield from` that is called from (or defined in) graph code.",
    why=(
        "The graph parser has no translation for `ast.Yield` / `ast.YieldFrom`: compiling a "
        "graph that calls a generator function stops at every syntax level. Generator "
        "expressions (`sum(t for t in ...)`, `tuple(x * i for i in range(3))`) are a different "
        "construct and do compile."
    ),
    mindspore_error="RuntimeError: Unsupported expression 'Yield'. (or 'YieldFrom')",
    fix="Make the helper build and return a tuple or list of its values, and iterate over that.",
    flagged=(
        fails(
            """
            def pieces(x):
                yield x
                yield x + 1

            class Net(nn.Cell):
                def construct(self, x):
                    total = x
                    for p in pieces(x):
                        total = total + p
                    return total
            """,
            fixed="""
            def pieces(x):
                return (x, x + 1)

            class Net(nn.Cell):
                def construct(self, x):
                    total = x
                    for p in pieces(x):
                        total = total + p
                    return total
            """,
            error="Unsupported expression 'Yield'",
            title="`yield` (generator helper)",
            lines=2,
        ),
        fails(
            """
            def pieces(x):
                yield from (x, x + 1)

            @ms.jit
            def f(x):
                total = x
                for p in pieces(x):
                    total = total + p
                return total
            """,
            fixed="""
            def pieces(x):
                return (x, x + 1)

            @ms.jit
            def f(x):
                total = x
                for p in pieces(x):
                    total = total + p
                return total
            """,
            entry="f",
            error="Unsupported expression 'YieldFrom'",
            title="`yield from`",
            lines=2,
        ),
    ),
    clean=(
        passes(
            """
            def pieces(x):
                return (x, x + 1)

            class Net(nn.Cell):
                def construct(self, x):
                    total = x
                    for p in pieces(x):
                        total = total + p
                    return total + sum(x * i for i in range(3))
            """,
        ),
    ),
)


# message fields: {name} - the class name
CLASS_DEF_IN_GRAPH = Rule(
    id="E5105",
    symbol="class-def-in-graph",
    family=FAMILY,
    lax=E,
    strict=E,
    message="class `{name}` is defined inside graph code; define it at module level",
    summary="A `class` statement inside construct, a @jit function, or a helper they call.",
    why=(
        "The graph parser has no translation for `ast.ClassDef`: a class body nested in graph "
        "code stops compilation at every syntax level. Nested `def` and `lambda` are supported."
    ),
    mindspore_error="RuntimeError: Unsupported statement 'ClassDef'.",
    fix="Move the class to module level (and create its instances in `__init__` if they are Cells).",
    flagged=(
        fails(
            """
            class Net(nn.Cell):
                def construct(self, x):
                    class Scale:
                        factor = 2
                    return x * Scale.factor
            """,
            error="Unsupported statement 'ClassDef'",
            title="nested `class`",
            lines=3,
            fixed="""
            class Scale:
                factor = 2


            class Net(nn.Cell):
                def construct(self, x):
                    return x * Scale.factor
            """,
        ),
        fails(
            """
            class Net(nn.Cell):
                def construct(self, x):
                    for _ in range(2):
                        class Step:
                            size = 3
                        x = x + Step.size
                    return x
            """,
            error="Unsupported statement 'ClassDef'",
            title="`class` in a loop",
            lines=4,
            fixed="""
            class Step:
                size = 3


            class Net(nn.Cell):
                def construct(self, x):
                    for _ in range(2):
                        x = x + Step.size
                    return x
            """,
            fix_safety="unsafe",
        ),
    ),
    clean=(
        passes(
            """
            class Scale:
                factor = 2

            class Net(nn.Cell):
                def construct(self, x):
                    def triple(t):
                        return t * 3
                    double = lambda t: t * Scale.factor
                    return triple(x) + double(x)
            """,
        ),
    ),
)


# message fields: {manager} - the context-manager expression as written, e.g. "ms._no_grad()"
UNSUPPORTED_CONTEXT_MANAGER = Rule(
    id="E5106",
    symbol="unsupported-context-manager",
    family=FAMILY,
    lax=E,
    strict=E,
    message=(
        "`with {manager}`: graph code only accepts context managers whose class is decorated "
        "with @mindspore.jit_class; move the `with` outside the Cell or use a @jit_class manager"
    ),
    summary=(
        "A `with` statement in graph code whose context manager is not an instance of a "
        "`@mindspore.jit_class` class (a plain class, `ms._no_grad()`, `contextlib.nullcontext()`, "
        "`open()`, a Cell, a `@contextmanager` function)."
    ),
    why=(
        "MindSpore 2.10 compiles `with` only for instances of `@jit_class` classes (or their "
        "subclasses): it calls their `__enter__` / `__exit__` in the graph. Any other manager "
        "stops compilation at every syntax level, MindSpore's own `ms._no_grad()` included. "
        "Managers that are not class instances (`open()`, a `@contextlib.contextmanager` "
        "function) fail with an unrelated-looking `issubclass()` error."
    ),
    mindspore_error=(
        "TypeError: Only support jit_class instance, but got PythonObject(type: <class '...'>, ...) "
        "(for open() or @contextmanager: TypeError: issubclass() arg 1 must be a class)"
    ),
    fix=(
        "Enter the context around the Cell call instead of inside `construct`, or decorate the "
        "manager class with `@mindspore.jit_class`. For `_no_grad`, use `ops.stop_gradient` on "
        "the values that must not receive gradients (`--fix --unsafe-fixes` does this for the names the "
        "block assigns and later code reads); a `contextlib.nullcontext()` block can simply lose its "
        "`with` (`--fix`)."
    ),
    flagged=(
        fails(
            """
            class Scaled:
                def __enter__(self):
                    return 2
                def __exit__(self, exc_type, exc_val, exc_tb):
                    return False

            class Net(nn.Cell):
                def construct(self, x):
                    with Scaled() as k:
                        y = x * k
                    return y
            """,
            error="Only support jit_class instance",
            title="`with` a plain class instance",
            lines=9,
        ),
        fails(
            """
            class Net(nn.Cell):
                def construct(self, x):
                    with ms._no_grad():
                        y = x * 2
                    return y
            """,
            error="Only support jit_class instance",
            title="`with ms._no_grad()`",
            lines=3,
            fixed="""
            class Net(nn.Cell):
                def construct(self, x):
                    y = x * 2
                    y = ops.stop_gradient(y)
                    return y
            """,
        ),
        fails(
            """
            import contextlib

            @ms.jit
            def f(x):
                with contextlib.nullcontext():
                    y = x * 2
                return y
            """,
            entry="f",
            error="Only support jit_class instance",
            title="`with contextlib.nullcontext()`",
            lines=5,
            fix_safety="safe",  # the manager does nothing
            fixed="""
            import contextlib

            @ms.jit
            def f(x):
                y = x * 2
                return y
            """,
        ),
    ),
    clean=(
        passes(
            """
            @ms.jit_class
            class Scaled:
                def __init__(self, k):
                    self.k = k
                def __enter__(self):
                    return self.k
                def __exit__(self, exc_type, exc_val, exc_tb):
                    return False

            class Net(nn.Cell):
                def __init__(self):
                    super().__init__()
                    self.scaled = Scaled(3)

                def construct(self, x):
                    with Scaled(2) as a, self.scaled as b:
                        y = x * a * b
                    return ops.stop_gradient(y)
            """,
        ),
    ),
)


# message fields: {names} - the names listed in the nonlocal statement
NONLOCAL_IN_GRAPH = Rule(
    id="E5107",
    symbol="nonlocal-in-graph",
    family=FAMILY,
    lax=E,
    strict=E,
    message=(
        "`nonlocal {names}` is not supported in graph code; return the new "
        "value from the inner function instead"
    ),
    summary="A `nonlocal` statement in a function nested in (or called from) graph code.",
    why=(
        "The graph parser has no translation for `ast.Nonlocal`: a closure that rebinds a "
        "variable of its enclosing function stops compilation at every syntax level."
    ),
    mindspore_error="RuntimeError: Unsupported statement 'Nonlocal'.",
    fix="Have the inner function return the new value and assign it in the outer function (`--fix` does it where "
        "the inner function is only called as a statement and the names have their value before its `def`).",
    flagged=(
        fails(
            """
            class Net(nn.Cell):
                def construct(self, x):
                    k = 1
                    def bump():
                        nonlocal k
                        k = 3
                    bump()
                    return x * k
            """,
            fixed="""
            class Net(nn.Cell):
                def construct(self, x):
                    k = 1
                    def bump(k):
                        k = 3
                        return k
                    k = bump(k=k)
                    return x * k
            """,
            error="Unsupported statement 'Nonlocal'",
            title="`nonlocal`",
            lines=5,
        ),
    ),
    clean=(
        passes(
            """
            class Net(nn.Cell):
                def construct(self, x):
                    k = 1
                    def bump(v):
                        return v + 2
                    k = bump(k)
                    return x * k
            """,
        ),
    ),
)


# message fields: {target} - the name bound by `:=`
WALRUS_IN_GRAPH = Rule(
    id="E5108",
    symbol="walrus-in-graph",
    family=FAMILY,
    lax=E,
    strict=E,
    message=(
        "the assignment expression `{target} := ...` is not supported in graph "
        "code; assign on its own line first"
    ),
    summary="An assignment expression (walrus, `name := value`) anywhere in graph code, comprehensions included.",
    why=(
        "The graph parser has no translation for `ast.NamedExpr`: compiling stops at every "
        "syntax level, whatever the value (a constant or a Tensor)."
    ),
    mindspore_error="RuntimeError: Unsupported expression 'NamedExpr'.",
    fix="Split it: `z = x + 1` on its own line, then use `z`.",
    flagged=(
        fails(
            """
            class Net(nn.Cell):
                def construct(self, x):
                    y = (z := x + 1) * z
                    return y
            """,
            error="Unsupported expression 'NamedExpr'",
            title="walrus `:=`",
            lines=3,
            fixed="""
            class Net(nn.Cell):
                def construct(self, x):
                    z = x + 1
                    y = z * z
                    return y
            """,
        ),
    ),
    clean=(
        passes(
            """
            class Net(nn.Cell):
                def construct(self, x):
                    z = x + 1
                    y = z * z
                    return y
            """,
        ),
    ),
)


# message fields: none
MATCH_IN_GRAPH = Rule(
    id="E5109",
    symbol="match-in-graph",
    family=FAMILY,
    lax=E,
    strict=E,
    message="`match` is not supported in graph code; use an if/elif chain",
    summary="A `match` statement (structural pattern matching) inside graph code.",
    why="The graph parser has no translation for `ast.Match`: compiling stops at every syntax level.",
    mindspore_error="RuntimeError: Unsupported statement 'Match'.",
    fix="Rewrite it as `if` / `elif` / `else` comparisons.",
    flagged=(
        fails(
            """
            class Net(nn.Cell):
                def __init__(self):
                    super().__init__()
                    self.mode = 2

                def construct(self, x):
                    match self.mode:
                        case 1:
                            y = x
                        case _:
                            y = x * 2
                    return y
            """,
            error="Unsupported statement 'Match'",
            title="`match` / `case`",
            lines=7,
            fixed="""
            class Net(nn.Cell):
                def __init__(self):
                    super().__init__()
                    self.mode = 2

                def construct(self, x):
                    if self.mode == 1:
                        y = x
                    else:
                        y = x * 2
                    return y
            """,
        ),
    ),
    clean=(
        passes(
            """
            class Net(nn.Cell):
                def __init__(self):
                    super().__init__()
                    self.mode = 2

                def construct(self, x):
                    if self.mode == 1:
                        y = x
                    else:
                        y = x * 2
                    return y
            """,
        ),
    ),
)


# message fields: {name} - the async function
ASYNC_IN_GRAPH = Rule(
    id="E5110",
    symbol="async-in-graph",
    family=FAMILY,
    lax=E,
    strict=E,
    message=(
        "`async def {name}` cannot be compiled into a graph; make it a plain `def` "
        "(no await / async for / async with)"
    ),
    summary=(
        "An `async def` function called from graph code or defined inside it (and with it "
        "`await`, `async for`, `async with`, which only occur in such functions)."
    ),
    why=(
        "Graph code has no coroutines. An `async def` nested in `construct` is rejected as an "
        "unsupported statement; calling a module-level `async def` helper from graph code fails "
        "with a misleading lambda-parsing error. Both happen at every syntax level."
    ),
    mindspore_error=(
        "TypeError: Parse Lambda Function Fail. Node type must be Lambda, but got NoneType. "
        "(calling an async helper); RuntimeError: Unsupported statement 'AsyncFunctionDef'. (nested)"
    ),
    fix="Turn the helper into an ordinary function; run asynchronous I/O outside the Cell.",
    flagged=(
        fails(
            """
            async def double(t):
                return t * 2

            class Net(nn.Cell):
                def construct(self, x):
                    return double(x)
            """,
            error="Parse Lambda Function Fail",
            title="`async def` helper called from graph code",
            lines=1,
        ),
        fails(
            """
            @ms.jit
            def f(x):
                async def double(t):
                    return t * 2
                return x
            """,
            fixed="""
            @ms.jit
            def f(x):
                return x
            """,
            entry="f",
            error="Unsupported statement 'AsyncFunctionDef'",
            title="`async def` inside graph code",
            lines=3,
        ),
    ),
    clean=(
        passes(
            """
            def double(t):
                return t * 2

            class Net(nn.Cell):
                def construct(self, x):
                    return double(x)
            """,
        ),
    ),
)


# message fields: {loop} - "for" or "while"
LOOP_ELSE_IN_GRAPH = Rule(
    id="E5111",
    symbol="loop-else-in-graph",
    family=FAMILY,
    lax=E,
    strict=E,
    message=(
        "`{loop} ... else` is not supported in graph code; use a flag set by "
        "`break` and an `if` after the loop"
    ),
    summary="A `for` or `while` loop with an `else:` clause inside graph code.",
    why=(
        "MindSpore's graph parser refuses the `else` clause of loops at every syntax level, "
        "whether or not the loop contains `break`."
    ),
    mindspore_error=(
        "RuntimeError: The 'for...else...' statement is not supported now. "
        "(or The 'while...else...' statement ...)"
    ),
    fix=(
        "Drop the `else`: if the loop has no `break`, move the `else` body after the loop; "
        "otherwise set a flag before `break` and test it after the loop. `--fix` does the first "
        "(safe: without a `break` the `else` runs exactly when the code after the loop does) and "
        "leaves a loop with a `break` to you."
    ),
    flagged=(
        fails(
            """
            class Net(nn.Cell):
                def construct(self, x):
                    y = x
                    for i in range(3):
                        if i == 1:
                            break
                        y = y + i
                    else:
                        y = y * 2
                    return y
            """,
            fixed="""
            class Net(nn.Cell):
                def construct(self, x):
                    y = x
                    loop_broke = False
                    for i in range(3):
                        if i == 1:
                            loop_broke = True
                            break
                        y = y + i
                    if not loop_broke:
                        y = y * 2
                    return y
            """,
            error="The 'for...else...' statement is not supported now",
            title="`for ... else`",
            lines=4,
        ),
        fails(
            """
            @ms.jit
            def f(x):
                y = x
                i = 0
                while i < 3:
                    y = y + i
                    i += 1
                else:
                    y = y * 2
                return y
            """,
            entry="f",
            error="The 'while...else...' statement is not supported now",
            title="`while ... else`",
            lines=5,
            fixed="""
                @ms.jit
                def f(x):
                    y = x
                    i = 0
                    while i < 3:
                        y = y + i
                        i += 1
                    y = y * 2
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
                    broke = False
                    for i in range(3):
                        if i == 1:
                            broke = True
                            break
                        y = y + i
                    if not broke:
                        y = y * 2
                    return y
            """,
        ),
    ),
)


# message fields: {what} - "a set literal" or "a set comprehension"
SET_IN_GRAPH = Rule(
    id="E5112",
    symbol="set-in-graph",
    family=FAMILY,
    lax=E,
    strict=E,
    message="{what} is not supported in graph code; use a tuple (e.g. `mode in ('a', 'b')`)",
    summary="A set display (`{1, 2}`) or a set comprehension (`{f(i) for i in ...}`) inside graph code.",
    why=(
        "Graph code has no set type: the parser rejects `ast.Set` and `ast.SetComp` at every "
        "syntax level, including the common membership idiom `if mode in {'a', 'b'}:` and a "
        "set used as the default value of a parameter of a helper that graph code calls. "
        "Dict displays and dict comprehensions are supported."
    ),
    mindspore_error="RuntimeError: Unsupported expression 'Set'. (or 'SetComp')",
    fix=(
        "Use a tuple for membership tests and constant collections; if de-duplication is "
        "needed, compute it in `__init__` and store the result as a tuple. `--fix` rewrites a set "
        "of constants on the right of `in` / `not in` into a tuple: safe where the value tested is "
        "a known Python value (membership agrees), unsafe where graphlint cannot tell what it is, "
        "refused for a Tensor; a set used any other way is left to you."
    ),
    flagged=(
        fails(
            """
            class Net(nn.Cell):
                def __init__(self):
                    super().__init__()
                    self.mode = "b"

                def construct(self, x):
                    if self.mode in {"a", "b"}:
                        return x * 2
                    return x
            """,
            error="Unsupported expression 'Set'",
            title="set literal `{a, b}`",
            lines=7,
            fixed="""
                class Net(nn.Cell):
                    def __init__(self):
                        super().__init__()
                        self.mode = "b"

                    def construct(self, x):
                        if self.mode in ("a", "b"):
                            return x * 2
                        return x
            """,
        ),
        fails(
            """
            @ms.jit
            def f(x):
                sizes = {i % 2 for i in range(4)}
                return x * len(sizes)
            """,
            entry="f",
            error="Unsupported expression 'SetComp'",
            title="set comprehension",
            lines=3,
        ),
        fails(
            """
            def pick(x, modes={1, 2}):
                return x * len(modes)

            class Net(nn.Cell):
                def construct(self, x):
                    return pick(x)
            """,
            fixed="""
            def pick(x, modes=(1, 2)):
                return x * len(modes)

            class Net(nn.Cell):
                def construct(self, x):
                    return pick(x)
            """,
            error="Unsupported expression 'Set'",
            title="set literal as a default argument of a graph helper",
            lines=1,
        ),
    ),
    clean=(
        passes(
            """
            class Net(nn.Cell):
                def __init__(self):
                    super().__init__()
                    self.mode = "b"
                    self.sizes = tuple(sorted({i % 2 for i in range(4)}))  # outside graph code

                def construct(self, x):
                    weights = {i: x * i for i in range(3)}
                    if self.mode in ("a", "b"):
                        return weights[2] * len(self.sizes)
                    return x
            """,
        ),
    ),
)


# message fields: {kind} - "list comprehension", "dict comprehension" or "generator expression"
MULTI_FOR_COMPREHENSION = Rule(
    id="E5113",
    symbol="multi-for-comprehension",
    family=FAMILY,
    lax=E,
    strict=E,
    message=(
        "a {kind} with more than one `for` clause is not supported in graph code; "
        "nest two comprehensions or use a loop"
    ),
    summary=(
        "A list/dict comprehension or generator expression with two or more `for` clauses "
        "(`[f(i, j) for i in a for j in b]`) inside graph code."
    ),
    why=(
        "MindSpore's parser translates comprehensions with exactly one `for` clause; two or "
        "more stop compilation at every syntax level. Several `if` clauses, and a comprehension "
        "nested inside another one, are fine."
    ),
    mindspore_error=(
        "TypeError: The 'generators' supports 1 'comprehension' in ListComp/GeneratorExp, "
        "but got 2 comprehensions."
    ),
    fix=(
        "Nest the comprehensions (`[[f(i, j) for j in b] for i in a]`) and flatten if needed, "
        "or write explicit `for` loops that append to a list (what `--fix` writes)."
    ),
    flagged=(
        fails(
            """
            class Net(nn.Cell):
                def construct(self, x):
                    terms = [x * i * j for i in range(2) for j in range(2)]
                    return terms[3]
            """,
            error="supports 1 'comprehension' in ListComp",
            title="comprehension with two `for` clauses",
            lines=3,
            fixed="""
            class Net(nn.Cell):
                def construct(self, x):
                    terms = []
                    for i in range(2):
                        for j in range(2):
                            terms.append(x * i * j)
                    return terms[3]
            """,
        ),
        fails(
            """
            @ms.jit
            def f(x):
                return sum(x * i * j for i in range(2) for j in range(2))
            """,
            entry="f",
            error="supports 1 'comprehension'",
            title="generator expression with two `for` clauses",
            lines=3,
            fixed="""
            @ms.jit
            def f(x):
                items = []
                for i in range(2):
                    for j in range(2):
                        items.append(x * i * j)
                return sum(items)
            """,
        ),
    ),
    clean=(
        passes(
            """
            class Net(nn.Cell):
                def construct(self, x):
                    rows = [[x * i * j for j in range(2)] for i in range(2)]
                    picked = [x * i for i in range(6) if i > 1 if i < 4]
                    return rows[1][1] + picked[1]
            """,
        ),
    ),
)


# message fields: none
EVAL_WITHOUT_NAMESPACE = Rule(
    id="E5114",
    symbol="eval-without-namespace",
    family=FAMILY,
    lax=E,
    strict=E,
    message=(
        "`eval()` in graph code sees no local or module names (only builtins); write the "
        "expression directly, or pass the names in an explicit dict"
    ),
    summary=(
        "`eval(text)` (or `eval(text, globals(), locals())`) inside graph code where the "
        "evaluated text refers to a variable, a module global or an imported module."
    ),
    why=(
        "The graph compiler evaluates `eval` itself, while compiling, in an empty namespace: "
        "the function's locals, the module's globals and even `globals()` / `locals()` passed "
        "explicitly are not visible, so any name other than a builtin raises NameError at every "
        "syntax level. `eval('abs(-2)')` and `eval(text, {'n': n})` with an explicit dict of "
        "Python constants compile."
    ),
    mindspore_error="NameError: name 'n' is not defined",
    fix=(
        "Write the expression as code. If it really is dynamic, pass every name in an explicit "
        "dict (`eval(text, {'n': n})`); Tensor values in that dict need JIT fallback (STRICT "
        "rejects them)."
    ),
    flagged=(
        fails(
            """
            class Net(nn.Cell):
                def construct(self, x):
                    n = 3
                    return x * eval("n + 1")
            """,
            fixed="""
            class Net(nn.Cell):
                def construct(self, x):
                    n = 3
                    return x * (n + 1)
            """,
            error="name 'n' is not defined",
            title="`eval()` of a local name",
            lines=4,
        ),
        fails(
            """
            SCALE = 3

            @ms.jit
            def f(x):
                return x * eval("SCALE + 1")
            """,
            fixed="""
            SCALE = 3

            @ms.jit
            def f(x):
                return x * (SCALE + 1)
            """,
            entry="f",
            error="name 'SCALE' is not defined",
            title="`eval()` of a module global",
            lines=5,
        ),
    ),
    clean=(
        passes(
            """
            class Net(nn.Cell):
                def construct(self, x):
                    n = 3
                    return x * (n + 1) + eval("n + 1", {"n": n}) + eval("abs(-2)")
            """,
        ),
    ),
)


# message fields: {left}, {right} - the operands as written; {op} - "is" or "is not"
TENSOR_IDENTITY_COMPARISON = Rule(
    id="W5115",
    symbol="tensor-identity-comparison",
    family=FAMILY,
    lax=W,
    strict=E,
    message=(
        "`{left} {op} {right}` compares two Tensors by identity: GRAPH_MODE always answers as if "
        "they were different objects and STRICT fails; compare values (ops.equal) or use flags"
    ),
    summary=(
        "`a is b` / `a is not b` where both operands are Tensors or Parameters "
        "(not `x is None`, which is fine)."
    ),
    why=(
        "Graph values have no Python identity. At the lax level MindSpore evaluates `x is y` "
        "between Tensors as False (and `is not` as True) even when both names refer to the same "
        "Tensor, so the graph takes the other branch than PYNATIVE_MODE. STRICT "
        "(`jit(fullgraph=True)`, MindIR export) fails with an internal error about the `is_` "
        "node."
    ),
    mindspore_error=(
        "RuntimeError: Failed to find input:...{[0]: ValueNode<PrimitivePy> is_, ...} ... in graph "
        "output map. (STRICT; the lax level silently returns False)"
    ),
    fix=(
        "Decide identity outside the graph (a bool attribute set in `__init__`), compare values "
        "with `ops.equal(...).all()`, or restructure so the comparison is not needed."
    ),
    flagged=(
        diverges(
            """
            class Net(nn.Cell):
                def construct(self, x):
                    y = x
                    if x is y:
                        return x * 2
                    return x
            """,
            fixed="""
            class Net(nn.Cell):
                def construct(self, x):
                    y = x
                    if True:
                        return x * 2
                    return x
            """,
            strict=FAILS,
            error="in graph output map",
            title="`is` between two Tensors",
            lines=4,
        ),
        diverges(
            """
            class Net(nn.Cell):
                def __init__(self):
                    super().__init__()
                    self.w = Parameter(Tensor(np.ones(3, np.float32)), name="w")

                def construct(self, x):
                    w = self.w
                    if w is not self.w:
                        return x
                    return x * 2
            """,
            fixed="""
            class Net(nn.Cell):
                def __init__(self):
                    super().__init__()
                    self.w = Parameter(Tensor(np.ones(3, np.float32)), name="w")

                def construct(self, x):
                    w = self.w
                    if False:
                        return x
                    return x * 2
            """,
            strict=FAILS,
            error="in graph output map",
            title="`is not` between two Parameters",
            lines=8,
        ),
    ),
    clean=(
        passes(
            """
            class Net(nn.Cell):
                def __init__(self):
                    super().__init__()
                    self.bias = None
                    self.shared = True

                def construct(self, x):
                    if self.bias is not None:
                        x = x + self.bias
                    if x is None:
                        return x
                    if self.shared:
                        return x * 2
                    return x
            """,
        ),
    ),
)


# message fields: {right} - the right operand as written; {kind} - what it is ("a float",
# "a tuple", "a Cell class", "a function", "an enum member", ...)
IS_UNSUPPORTED_OPERAND = Rule(
    id="E5116",
    symbol="is-unsupported-operand",
    family=FAMILY,
    payload=UnsupportedIdentity,
    lax=E,
    strict=E,
    message=(
        "`is` against {kind} (`{right}`) is not supported in graph code (only None, bool, int, "
        "str and types); use `==`, isinstance() or a flag set in __init__"
    ),
    summary=(
        "`a is b` / `a is not b` in graph code whose right operand is a float, tuple, list, "
        "function, Cell class or instance, enum member, Ellipsis or constant Tensor."
    ),
    why=(
        "MindSpore compiles `is` only when the right operand is None, a bool, an int, a str or "
        "a type (a MindSpore dtype such as `ms.float32`, or a builtin/plain Python class such "
        "as `int`). Any other right operand stops compilation at every syntax level. Notably "
        "`type(self.act) is nn.ReLU` and `self.fn is ops.relu` fail; "
        "`isinstance(self.act, nn.ReLU)` compiles."
    ),
    mindspore_error=(
        "RuntimeError: For syntax like 'a is b', b supports Int, Bool, String, None and Type, "
        "but got ..."
    ),
    fix=(
        "Use `isinstance(obj, Class)` for class checks, `==` for values (enum members, floats, "
        "tuples), or compute a bool attribute in `__init__` and test that."
    ),
    flagged=(
        fails(
            """
            class Net(nn.Cell):
                def __init__(self):
                    super().__init__()
                    self.act = nn.ReLU()

                def construct(self, x):
                    if type(self.act) is nn.ReLU:
                        return self.act(x)
                    return x
            """,
            fixed="""
            class Net(nn.Cell):
                def __init__(self):
                    super().__init__()
                    self.act = nn.ReLU()

                def construct(self, x):
                    if isinstance(self.act, nn.ReLU):
                        return self.act(x)
                    return x
            """,
            fix_safety="safe",
            error="For syntax like 'a is b', b supports Int, Bool, String, None and Type",
            title="`is` a Cell class",
            lines=7,
        ),
        fails(
            """
            import enum

            class Mode(enum.Enum):
                TRAIN = 1
                EVAL = 2

            class Net(nn.Cell):
                def __init__(self):
                    super().__init__()
                    self.mode = Mode.TRAIN

                def construct(self, x):
                    if self.mode is Mode.TRAIN:
                        return x * 2
                    return x
            """,
            error="For syntax like 'a is b', b supports Int, Bool, String, None and Type",
            title="`is` an enum member",
            lines=13,
            fixed="""
                import enum

                class Mode(enum.Enum):
                    TRAIN = 1
                    EVAL = 2

                class Net(nn.Cell):
                    def __init__(self):
                        super().__init__()
                        self.mode = Mode.TRAIN

                    def construct(self, x):
                        if self.mode == Mode.TRAIN:
                            return x * 2
                        return x
            """,
        ),
        fails(
            """
            @ms.jit
            def f(x):
                fn = ops.relu
                if fn is ops.relu:
                    return x * 2
                return x
            """,
            entry="f",
            error="For syntax like 'a is b', b supports Int, Bool, String, None and Type",
            title="`is` a function",
            lines=4,
            fixed="""
                @ms.jit
                def f(x):
                    fn = ops.relu
                    if fn == ops.relu:
                        return x * 2
                    return x
            """,
        ),
        fails(
            """
            class Net(nn.Cell):
                def construct(self, x):
                    pair = (1, 2)
                    same = pair
                    if pair is same:
                        return x * 2
                    return x
            """,
            error="For syntax like 'a is b', b supports Int, Bool, String, None and Type",
            title="`is` a tuple / list / float",
            lines=5,
            fixed="""
                class Net(nn.Cell):
                    def construct(self, x):
                        pair = (1, 2)
                        same = pair
                        if pair == same:
                            return x * 2
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
                    self.act = nn.ReLU()
                    self.norm = None
                    self.flag = True

                def construct(self, x):
                    n = x.shape[0]
                    if self.norm is None and self.flag is True and type(n) is int:
                        x = x * 2
                    if x.dtype is ms.float32 and isinstance(self.act, nn.ReLU):
                        x = self.act(x)
                    return x
            """,
        ),
    ),
)


# message fields: {call} - the called expression, e.g. `self.func(...)`; {method} - Class.method
CLASSMETHOD_CALL_IN_GRAPH = Rule(
    id="E5117",
    symbol="classmethod-call-in-graph",
    family=FAMILY,
    lax=E,
    strict=E,
    message="`{call}` calls the class method `{method}`: graph code does not pass `cls`, so the arguments fill the "
            "wrong parameters and compiling fails; make it a `@staticmethod` (or a module function)",
    summary="A `@classmethod` called from graph code: `self.f(...)`, `type(self).f(...)`, `self.__class__.f(...)`, "
            "`Net.f(...)`, or on another object's class.",
    why=(
        "MindSpore's graph compiler takes the function of a class method without binding the class to its first "
        "parameter. The call passes one argument fewer than the function has parameters, and compiling stops at "
        "every syntax level: \"The parameters number of the function is 3, but the number of provided arguments is "
        "2\" (with keyword arguments: \"Miss argument input for parameter:x\"). It does not matter how the method "
        "is reached (through `self`, `type(self)`, the class name, a plain Python class). Static methods and "
        "instance methods are called as in Python, and class methods work in `__init__` (plain Python)."
    ),
    mindspore_error=(
        "TypeError: The parameters number of the function is 3, but the number of provided arguments is 2."
    ),
    fix="Make the method a `@staticmethod` (read class constants by the class name), or a module-level function; "
        "or call the class method in `__init__` and keep the result.",
    flagged=(
        fails(
            """
            class Net(nn.Cell):
                @classmethod
                def combine(cls, x, y):
                    return x + y

                def construct(self, x):
                    return self.combine(x, x * 2)
            """,
            fixed="""
            class Net(nn.Cell):
                @staticmethod
                def combine(x, y):
                    return x + y

                def construct(self, x):
                    return self.combine(x, x * 2)
            """,
            error="The parameters number of the function is 3, but the number of provided arguments is 2",
            title="a `@classmethod` called as `self.method(...)`",
            lines=7,
            fields={"call": "self.combine(...)", "method": "Net.combine"},
        ),
        fails(
            """
            class Base(nn.Cell):
                factor = 3

                @classmethod
                def scale(cls, x):
                    return x * cls.factor


            class Net(Base):
                def construct(self, x):
                    y = type(self).scale(x)
                    return y + Net.scale(x)
            """,
            fixed="""
            class Base(nn.Cell):
                factor = 3

                @staticmethod
                def scale(x):
                    return x * Base.factor


            class Net(Base):
                def construct(self, x):
                    y = type(self).scale(x)
                    return y + Net.scale(x)
            """,
            fix_safety="unsafe",  # a subclass elsewhere may override `factor`
            error="The parameters number of the function is 2, but the number of provided arguments is 1",
            title="a `@classmethod` called through `type(self)` or the class name",
            lines=(11, 12),
            fields={"method": "Base.scale"},
        ),
        fails(
            """
            class Helper:
                @classmethod
                def add(cls, x, y):
                    return x + y


            @ms.jit
            def f(x):
                return Helper.add(x, x * 2)
            """,
            fixed="""
            class Helper:
                @staticmethod
                def add(x, y):
                    return x + y


            @ms.jit
            def f(x):
                return Helper.add(x, x * 2)
            """,
            entry="f",
            error="The parameters number of the function is 3, but the number of provided arguments is 2",
            title="a plain class's `@classmethod` in a `@jit` function",
            lines=9,
            fields={"call": "Helper.add(...)", "method": "Helper.add"},
        ),
    ),
    clean=(
        passes(
            """
            class Net(nn.Cell):
                factor = 3

                def __init__(self):
                    super().__init__()
                    self.k = self.make_factor(2)

                @classmethod
                def make_factor(cls, n):
                    return cls.factor * n

                @staticmethod
                def combine(x, y):
                    return x + y

                def construct(self, x):
                    y = self.combine(x, x * 2) + Net.combine(x, x) + type(self).combine(x, 1.0)
                    return y * self.k * Net.factor
            """,
        ),
    ),
)


# message fields: {name} - the function; {line} - the check's line; {origin} - what makes the condition a Tensor;
# {effect} - "raises" / "calls `print(...)`" / "asserts"; {returned} - "nothing" / "a tuple holding None"
CHECK_IN_FUNCTION_RETURNING_NONE = Rule(
    id="I5118",
    symbol="tensor-check-in-function-returning-none",
    family=FAMILY,
    lax=I,
    strict=E,
    message="`{name}` returns {returned}, and on a condition on {origin} (line {line}) it {effect}: STRICT fails "
            "compiling it (\"output index [0] large than the output size [0] of node!\", no source line); return "
            "Tensors only from `{name}` (the Tensor it checks) or make the check before the graph",
    summary="A helper or sub-Cell that graph code calls, that returns None (nothing, or a tuple holding None: "
            "`return cost, None`), with an `assert` on a Tensor, or a `raise` or a call made for its effect "
            "(`print`) under an `if` on one (a `_validate(mask)` method, a tour check in `get_costs`).",
    why=(
        "At STRICT the switch a Tensor condition makes around an effect finds no output to carry it where the "
        "function's output is None: measured with MindSpore 2.10, a `_validate(self, m)` helper doing "
        "`if not m[:, 0].all(): raise ValueError(...)` (or `print(...)`), and a `get_costs(x)` doing "
        "`assert (x > 0).all()` then `return cost, None`, fail with \"RuntimeError: output index [0] large than "
        "the output size [0] of node!\", with no line, whether the caller uses the None or not. The same "
        "functions returning only Tensors compile, and so does a check whose branch only assigns names "
        "(nothing runs there). The lax level compiles them and raises when the condition holds, as PYNATIVE_MODE "
        "does."
    ),
    mindspore_error="RuntimeError: output index [0] large than the output size [0] of node!",
    fix="Return only Tensors from the function (`return mask`, `return cost`) and use them, or check outside "
        "the graph.",
    flagged=(
        Example(
            """
            class Net(nn.Cell):
                def _validate(self, mask):
                    if not mask[:, 0].all():
                        raise ValueError("mask of the first timestep must all be on")

                def construct(self, x, mask):
                    self._validate(mask)
                    return x * 2
            """,
            lax=OK,
            strict=FAILS,
            error="output index [0] large than the output size [0] of node",
            inputs="(Tensor(np.ones((3,), np.float32)), Tensor(np.ones((2, 3), np.bool_)))",
            title="a `_validate` helper raising under a Tensor `if`",
            lines=3,
            fields={"name": "_validate", "effect": "raises", "returned": "nothing"},
        ),
        Example(
            """
            def get_costs(x):
                assert (x > 0).all(), "invalid tour"
                return x * 2, None

            class Net(nn.Cell):
                def construct(self, x):
                    cost, _ = get_costs(x)
                    return cost
            """,
            lax=OK,
            strict=FAILS,
            error="output index [0] large than the output size [0] of node",
            inputs="(Tensor(np.ones((3,), np.float32)),)",
            title="an `assert` on a Tensor in a function returning `cost, None`",
            lines=2,
            fields={"name": "get_costs", "effect": "asserts", "returned": "a tuple holding None"},
        ),
        Example(
            """
            class Check(nn.Cell):
                def construct(self, mask):
                    if not mask.all():
                        print("some positions are masked")

            class Net(nn.Cell):
                def __init__(self):
                    super().__init__()
                    self.check = Check()

                def construct(self, x, mask):
                    self.check(mask)
                    return x * 2
            """,
            lax=OK,
            strict=FAILS,
            error="output index [0] large than the output size [0] of node",
            inputs="(Tensor(np.ones((3,), np.float32)), Tensor(np.ones((2, 3), np.bool_)))",
            title="a sub-Cell that only prints under a Tensor `if`",
            lines=3,
            fields={"name": "construct"},
        ),
    ),
    clean=(
        passes(
            """
            class Net(nn.Cell):
                def _validate(self, x, mask):
                    if not mask[:, 0].all():
                        raise ValueError("mask of the first timestep must all be on")
                    return x

                def construct(self, x, mask):
                    x = self._validate(x, mask)
                    return x * 2
            """,
            inputs="(Tensor(np.ones((3,), np.float32)), Tensor(np.ones((2, 3), np.bool_)))",
        ),
        passes(
            """
            def get_costs(x):
                assert (x > 0).all(), "invalid tour"
                return x * 2

            class Net(nn.Cell):
                def construct(self, x):
                    return get_costs(x)
            """,
            inputs="(Tensor(np.ones((3,), np.float32)),)",
        ),
        passes(
            """
            class Net(nn.Cell):
                def _validate(self, mask):
                    if mask.shape[0] != 2:
                        raise ValueError("expected a batch of 2")

                def construct(self, x, mask):
                    self._validate(mask)
                    return x * 2
            """,
            inputs="(Tensor(np.ones((3,), np.float32)), Tensor(np.ones((2, 3), np.bool_)))",
        ),
    ),
)

RULES = (
    TRY_IN_GRAPH,
    DEL_IN_GRAPH,
    IMPORT_IN_GRAPH,
    GENERATOR_IN_GRAPH,
    CLASS_DEF_IN_GRAPH,
    UNSUPPORTED_CONTEXT_MANAGER,
    NONLOCAL_IN_GRAPH,
    WALRUS_IN_GRAPH,
    MATCH_IN_GRAPH,
    ASYNC_IN_GRAPH,
    LOOP_ELSE_IN_GRAPH,
    SET_IN_GRAPH,
    MULTI_FOR_COMPREHENSION,
    EVAL_WITHOUT_NAMESPACE,
    TENSOR_IDENTITY_COMPARISON,
    IS_UNSUPPORTED_OPERAND,
    CLASSMETHOD_CALL_IN_GRAPH,
    CHECK_IN_FUNCTION_RETURNING_NONE,
)
