"""Data flow through `if`, `while`, `for` and `a if c else b` in graph code.

MindSpore's parser turns every `if` into a true and a false subgraph and joins
the names they define; every loop body becomes a subgraph too. Two different
moments decide what is allowed (measured with MindSpore 2.10 on CPU):

* while PARSING, before any type is known, a name read after an `if` must be
  defined in both branches, and a name read after a loop must be defined before
  it. The parser folds only a narrow set of conditions (a bool `self.flag`,
  `not ...`, `self.attr is None`, `self.attr == <literal>`, `self.n > <number>`,
  a local bound to a literal `True`, and `and`/`or` of those); every other
  condition, including `mask is None` on an argument, `x.shape[0] > 1`,
  `isinstance(...)`, `len(...)`, Python-scalar or keyword arguments and bare
  module-level names, keeps both branches;
* while INFERRING TYPES, the two branches of a condition whose value is only
  known at run time (it depends on a Tensor's values) must produce the same
  kind of value: same Python type, same dtype, tuples of joinable elements.
  Any condition that inference can evaluate (anything not computed from Tensor
  values, `x.shape`, `x.dtype`, `mask is None` on arguments included) selects one branch
  and the other is never typed.
"""

from dataclasses import dataclass

from graphlint.catalogue.model import (DIVERGES, FAILS, OK, SKIP, Example, Rule, Severity, bytecoded, fails,
                                      falls_back, passes, traced)

E, W, I = Severity.ERROR, Severity.WARNING, Severity.INFO
FAMILY = "branches"

# Two calls: the first takes the true branch of `x.sum() > 0`, the second the false one.
_BOTH_SIGNS = (
    "[(Tensor(np.arange(6, dtype=np.float32).reshape(2, 3)),), "
    "(Tensor(-np.arange(6, dtype=np.float32).reshape(2, 3) - 1),)]"
)
_WITH_MASK = (
    "(Tensor(np.arange(6, dtype=np.float32).reshape(2, 3)), Tensor(np.ones((2, 3), np.float32)))"
)



@dataclass(frozen=True, eq=False)
class MissingDefinition:
    """Where the parser finds a name undefined, for the rewrite that gives it a value first: the `if` (E5801)
    or the loop (E5802) the checker reported (an astroid node)."""

    statement: object


# message fields: {name} - the variable; {branch} - "true" or "false" (the branch that
# assigns it); {condition} - the `if` test as written
VARIABLE_DEFINED_IN_ONE_BRANCH = Rule(
    id="E5801",
    symbol="variable-defined-in-one-branch",
    family=FAMILY,
    by_parser=True,
    payload=MissingDefinition,
    lax=E,
    strict=E,
    message=(
        "`{name}` is assigned only in the {branch} branch of `if {condition}` but used after it; "
        "graph mode compiles both branches: assign `{name}` before the `if` or in every branch"
    ),
    summary=(
        "A name assigned in only some branches of an `if` (or `elif` chain) and read after it, "
        "where MindSpore's parser does not fold the condition."
    ),
    why=(
        "MindSpore parses both branches of an `if` into subgraphs and joins every name read "
        "after the `if`; a name missing from one branch stops compilation at every syntax level "
        "with UnboundLocalError, even if that branch is never taken. This is decided while "
        "parsing, before types are known, so it is NOT limited to Tensor conditions: the parser "
        "drops the untaken branch only for a narrow set of conditions (a bool attribute "
        "`self.flag`, `not self.flag`, `self.attr is None` / `is not None`, `self.attr == "
        "<number|string|None|self.other>`, `self.n > <number>` and the other orderings, "
        "`Module.attr` of a global object, a local assigned a literal bool, and `and`/`or` of "
        "those). `mask is None` on an argument, `x.shape[0] > 1`, `x.ndim == 4`, "
        "`x.dtype == ms.float32`, `isinstance(...)`, `len(xs) == 2`, keyword arguments with "
        "literal defaults, Python-scalar arguments, bare module-level constants, `self.n` "
        "holding an int, `self.act` holding a Cell, chained comparisons and `in` all keep both "
        "branches and fail (measured with MindSpore 2.10). A branch that ends in `return` or "
        "`raise` does not count: it never reaches the code after the `if`."
    ),
    mindspore_error=(
        "UnboundLocalError: The local variable 'y' is not defined in false branch, but defined "
        "in true branch."
    ),
    fix=(
        "Assign a default before the `if` (`y = x`, or `y = None` when the condition is a "
        "compile-time constant) or assign the name in every branch, including an explicit "
        "`else`. Alternatively end the other branch with `return`."
    ),
    flagged=(
        fails(
            """
            class Net(nn.Cell):
                def construct(self, x):
                    if x.sum() > 0:
                        y = x * 2
                    return y
            """,
            fixed="""
            class Net(nn.Cell):
                def construct(self, x):
                    y = ops.zeros_like(x * 2)
                    y = ops.where(x.sum() > 0, x * 2, y)
                    return y
            """,
            error="The local variable 'y' is not defined in false branch, but defined in true branch",
            title="name assigned only under an `if` on a Tensor",
            lines=4,
        ),
        fails(
            """
            class Encoder(nn.Cell):
                def construct(self, x):
                    is_list = isinstance(x, (tuple, list))
                    if is_list:
                        n = x[0].shape[0]
                        x = ops.cat(x, axis=0)
                    x = x * 2
                    if is_list:
                        x = x.split([n, n], axis=0)
                    return x

            class Net(nn.Cell):
                def __init__(self):
                    super().__init__()
                    self.encoder = Encoder()

                def construct(self, x):
                    return self.encoder(x)
            """,
            fixed="""
            class Encoder(nn.Cell):
                def construct(self, x):
                    is_list = isinstance(x, (tuple, list))
                    n = None
                    if is_list:
                        n = x[0].shape[0]
                        x = ops.cat(x, axis=0)
                    x = x * 2
                    if is_list:
                        x = x.split([n, n], axis=0)
                    return x

            class Net(nn.Cell):
                def __init__(self):
                    super().__init__()
                    self.encoder = Encoder()

                def construct(self, x):
                    return self.encoder(x)
            """,
            error="The local variable 'n' is not defined in false branch, but defined in true branch",
            title="a branch type inference drops, which the parser still reads (RAFT's `is_list`)",
            lines=5,
        ),
        fails(
            """
            class Net(nn.Cell):
                def construct(self, x):
                    out = x
                    for _ in range(3):
                        if True:  # a debugging switch
                            scale = 2
                        out = out * scale
                    return out
            """,
            fixed="""
            class Net(nn.Cell):
                def construct(self, x):
                    out = x
                    scale = None
                    for _ in range(3):
                        if True:  # a debugging switch
                            scale = 2
                        out = out * scale
                    return out
            """,
            error="The local variable 'scale' is not defined in false branch, but defined in true branch",
            title="name assigned only under `if True:`",
            lines=6,
        ),
        fails(
            """
            class Net(nn.Cell):
                def construct(self, x):
                    out = x
                    for i in range(3):
                        if x.sum() > i:
                            step = x * i
                        out = out + step
                    return out
            """,
            fixed="""
            class Net(nn.Cell):
                def construct(self, x):
                    out = x
                    step = ops.zeros_like(x)
                    for i in range(3):
                        step = ops.where(x.sum() > i, x * i, step)
                        out = out + step
                    return out
            """,
            error="The local variable 'step' is not defined in false branch, but defined in true branch",
            title="name assigned under an `if` on a Tensor inside a loop",
            lines=6,
        ),
        fails(
            """
            @ms.jit
            def net(x):
                if x.sum() < 0:
                    scale = 1
                else:
                    y = x * 2
                return y
            """,
            fixed="""
            @ms.jit
            def net(x):
                y = ops.zeros_like(x * 2)
                take_then = x.sum() < 0
                scale_then = 1
                y_else = x * 2
                y = ops.where(take_then, y, y_else)
                return y
            """,
            error="The local variable 'y' is not defined in true branch, but defined in false branch",
            entry="net",
            title="name assigned only in the `else` branch",
            lines=6,
        ),
        fails(
            """
            class Net(nn.Cell):
                def construct(self, x):
                    if x.sum() > 100:
                        y = x * 2
                    elif x.sum() > 0:
                        y = x * 3
                    return y
            """,
            fixed="""
            class Net(nn.Cell):
                def construct(self, x):
                    y = ops.zeros_like(x * 2)
                    take_branch1 = x.sum() > 100
                    take_branch2 = x.sum() > 0
                    y = ops.where(take_branch1, x * 2, ops.where(take_branch2, x * 3, y))
                    return y
            """,
            error="The local variable 'y' is not defined in false branch, but defined in true branch",
            title="`if`/`elif` chain without `else`",
            lines=6,
        ),
        fails(
            """
            class Net(nn.Cell):
                def construct(self, x, mask=None):
                    if mask is None:
                        y = x * 2
                    return y
            """,
            error="The local variable 'y' is not defined in false branch, but defined in true branch",
            title="name assigned only under `arg is None`",
            lines=4,
            fixed="""
            class Net(nn.Cell):
                def construct(self, x, mask=None):
                    y = None
                    if mask is None:
                        y = x * 2
                    return y
            """,
        ),
        fails(
            """
            class Net(nn.Cell):
                def construct(self, x):
                    if x.shape[0] > 1:
                        y = x * 2
                    return y
            """,
            error="The local variable 'y' is not defined in false branch, but defined in true branch",
            title="name assigned only under a shape test",
            lines=4,
            fixed="""
            class Net(nn.Cell):
                def construct(self, x):
                    y = None
                    if x.shape[0] > 1:
                        y = x * 2
                    return y
            """,
        ),
        fails(
            """
            class Net(nn.Cell):
                def construct(self, x, mask=None):
                    if mask is not None:
                        m = mask * 2
                    if mask is not None:
                        x = x + m
                    return x
            """,
            error="The local variable 'm' is not defined in false branch, but defined in true branch",
            inputs=_WITH_MASK,
            title="name read under a second `if` with the same condition",
            lines=4,
            fixed="""
            class Net(nn.Cell):
                def construct(self, x, mask=None):
                    m = None
                    if mask is not None:
                        m = mask * 2
                    if mask is not None:
                        x = x + m
                    return x
            """,
        ),
    ),
    clean=(
        passes(
            """
            class Net(nn.Cell):
                def construct(self, x):
                    y = x
                    if x.sum() > 0:
                        y = x * 2
                    return y
            """,
        ),
        passes(
            """
            class Net(nn.Cell):
                def construct(self, x, mask=None):
                    if mask is None:
                        y = x * 2
                    else:
                        y = x * mask
                    return y
            """,
        ),
        passes(
            """
            class Net(nn.Cell):
                def construct(self, x):
                    if x.sum() > 0:
                        y = x * 2
                    else:
                        return x
                    return y
            """,
        ),
        passes(
            """
            class Net(nn.Cell):
                def construct(self, x):
                    if x.sum() > 0:
                        y = x * 2
                        x = y + 1
                    return x
            """,
        ),
        # Conditions the parser folds: only the taken branch is parsed.
        passes(
            """
            class Net(nn.Cell):
                def __init__(self):
                    super().__init__()
                    self.use_bias = True
                    self.bias = None
                    self.mode = "train"
                    self.p = 0.5

                def construct(self, x):
                    if self.use_bias:
                        a = x + 1
                    if self.bias is None:
                        b = x * 2
                    if self.mode == "train" and self.p > 0:
                        c = x * 3
                    if not self.training:
                        d = x - 1
                    return a + b + c + d
            """,
        ),
        passes(
            """
            class Net(nn.Cell):
                def construct(self, x, mask=None):
                    if mask is None:
                        mask = ops.ones_like(x)
                    return x * mask
            """,
        ),
        passes(
            """
            class Net(nn.Cell):
                def __init__(self, refine=False):
                    super().__init__()
                    self.refine = refine

                def construct(self, x):
                    if self.refine:  # False for every instance the project makes: type inference drops the branch
                        if x.sum() > 0:
                            y = x * 2
                        return y
                    return x
            """,
            title="a name bound in one branch, inside a branch `__init__` makes dead",
        ),
    ),
)


# message fields: {name} - the variable; {loop} - "for" or "while"
VARIABLE_DEFINED_IN_LOOP = Rule(
    id="E5802",
    symbol="variable-defined-in-loop",
    family=FAMILY,
    by_parser=True,
    payload=MissingDefinition,
    lax=E,
    strict=E,
    message=(
        "`{name}` is first assigned inside the `{loop}` loop but used after it; graph mode "
        "requires a definition before the loop: assign `{name}` before the `{loop}`"
    ),
    summary=(
        "A name (loop target included) that is first assigned inside a `for` or `while` body and "
        "read after the loop."
    ),
    why=(
        "MindSpore's parser compiles a loop body as a subgraph that may run zero times, so a "
        "name read after the loop must already exist before it. This is checked while parsing, "
        "for every loop: `for i in range(3)`, `for w in (1, 2, 3)`, `for layer in self.layers` "
        "(CellList), `for row in x`, `while i < 3` with a Python counter and `while x.sum() < "
        "100` all fail the same way, and so does reading the loop variable `i` after a "
        "`for i in ...` (measured with MindSpore 2.10). Names assigned before the loop and "
        "reassigned inside are fine."
    ),
    mindspore_error=(
        "UnboundLocalError: The local variable 'y' defined in the 'for' loop body cannot be used "
        "outside of the loop body. Please define variable 'y' before 'for'."
    ),
    fix=(
        "Assign the name before the loop (`y = x`, `last = 0`); for the loop index keep your own "
        "counter defined before the loop."
    ),
    flagged=(
        fails(
            """
            class Net(nn.Cell):
                def construct(self, x):
                    for i in range(3):
                        y = x * i
                    return y
            """,
            error="The local variable 'y' defined in the 'for' loop body cannot be used outside of the loop body",
            title="name first assigned in a `for` body",
            lines=4,
            fixed="""
            class Net(nn.Cell):
                def construct(self, x):
                    y = None
                    for i in range(3):
                        y = x * i
                    return y
            """,
        ),
        fails(
            """
            class Net(nn.Cell):
                def construct(self, x):
                    for i in range(3):
                        x = x + i
                    return x * i
            """,
            error="The local variable 'i' defined in the 'for' loop body cannot be used outside of the loop body",
            title="loop variable read after the `for`",
            lines=3,
            fixed="""
            class Net(nn.Cell):
                def construct(self, x):
                    i = None
                    for i in range(3):
                        x = x + i
                    return x * i
            """,
        ),
        fails(
            """
            class Net(nn.Cell):
                def __init__(self):
                    super().__init__()
                    self.layers = nn.CellList([nn.ReLU(), nn.Tanh()])

                def construct(self, x):
                    for layer in self.layers:
                        out = layer(x)
                    return out
            """,
            error="The local variable 'out' defined in the 'for' loop body cannot be used outside of the loop body",
            title="name first assigned in a `for` over a CellList",
            lines=8,
            fix_safety="unsafe",  # graphlint cannot tell that the CellList is not empty
            fixed="""
            class Net(nn.Cell):
                def __init__(self):
                    super().__init__()
                    self.layers = nn.CellList([nn.ReLU(), nn.Tanh()])

                def construct(self, x):
                    out = None
                    for layer in self.layers:
                        out = layer(x)
                    return out
            """,
        ),
        fails(
            """
            @ms.jit
            def net(x):
                while x.sum() < 100:
                    x = x * 2
                    y = x + 1
                return y
            """,
            fixed="""
            @ms.jit
            def net(x):
                y = ops.zeros_like(x + 1)
                while x.sum() < 100:
                    x = x * 2
                    y = x + 1
                return y
            """,
            fix_safety="unsafe",
            error="The local variable 'y' defined in the 'while' loop body cannot be used outside of the loop body",
            entry="net",
            title="name first assigned in a `while` body",
            lines=5,
        ),
        fails(
            """
            class Net(nn.Cell):
                def construct(self, x):
                    y = x
                    for step in range(2):
                        for i in range(3):
                            z = x * i
                        y = y + z
                        z = y
                    return y
            """,
            error="The local variable 'z' defined in the 'for' loop body cannot be used outside of the loop body",
            title="an inner loop's name, reassigned later in the outer loop (the first step has no value)",
            lines=6,
            fixed="""
            class Net(nn.Cell):
                def construct(self, x):
                    y = x
                    for step in range(2):
                        z = None
                        for i in range(3):
                            z = x * i
                        y = y + z
                        z = y
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
                    for i in range(3):
                        y = x * i
                    return y
            """,
        ),
        passes(
            """
            class Net(nn.Cell):
                def __init__(self):
                    super().__init__()
                    self.layers = nn.CellList([nn.ReLU(), nn.Tanh()])

                def construct(self, x):
                    out = x
                    for layer in self.layers:
                        h = layer(out)
                        out = h + 1
                    return out
            """,
        ),
        passes(
            """
            class Net(nn.Cell):
                def construct(self, x):
                    i = 0
                    y = x
                    while x.sum() < 100:
                        x = x * 2
                        y = x + 1
                        i += 1
                    return y * i
            """,
        ),
    ),
)


# message fields: {name} - the variable, or "the return value"; {kinds} - the two kinds, e.g.
# "a float32 Tensor and an int"; {origin} - what makes the condition a run-time value, e.g.
# "the Tensor argument `x`"
BRANCH_TYPE_MISMATCH = Rule(
    id="E5803",
    symbol="branch-type-mismatch",
    family=FAMILY,
    lax=E,
    strict=E,
    message=(
        "{name} is {kinds} on different branches of a condition that depends on {origin}; "
        "graph mode cannot join them: give every branch the same type and dtype"
    ),
    summary=(
        "Branches of an `if`, ternary or early `return` under a run-time (Tensor-valued) "
        "condition that produce different kinds of value: Tensor vs Python scalar, different "
        "dtypes, Tensor vs tuple, list vs tuple, int vs float."
    ),
    why=(
        "When the condition depends on Tensor values, both branches are compiled and their "
        "results must join into one abstract value. MindSpore 2.10 rejects, at every syntax "
        "level: Tensor vs int/float/bool, a 0-d Tensor vs a Python number, float32 vs int32 or "
        "float16 Tensors, float vs bool Tensors, Tensor vs tuple, list vs tuple, tuples whose "
        "elements differ in dtype, and int vs float or bool vs int when the joined value is "
        "returned. When the joined value is used afterwards (`x * s`) the lax level reports the "
        "join and STRICT reports 'the inputs should be constant, but found variable' instead; "
        "an int/float pair used only as `x * s` even compiled. It accepts Tensors of different "
        "shapes or ranks (the result gets a dynamic shape), int vs int, and tuples of different "
        "lengths whose elements all have one type (W5805). None vs Tensor is W5804. The check "
        "is on inferred types: a condition that inference can evaluate (`mask is None` on an "
        "argument, `x.shape[0] > 1`, `x.dtype == ...`, `isinstance`, `self.training`, Python "
        "scalar arguments, a plain Tensor attribute) compiles only one branch, so its branches "
        "may differ freely."
    ),
    mindspore_error=(
        "TypeError: Cannot join the return values of different branches, perhaps you need to "
        "make them equal.\nType Join Failed: Abstract type AbstractTensor cannot join with "
        "AbstractScalar."
    ),
    fix=(
        "Make the branches agree: wrap Python numbers as Tensors of the same dtype "
        "(`ops.full_like(x, 1)`, `ops.zeros_like(x)`), cast to one dtype with `ops.cast`, "
        "return the same tuple structure on every path."
    ),
    flagged=(
        fails(
            """
            class Net(nn.Cell):
                def construct(self, x):
                    n = int(x.argmax())
                    total = 0.0
                    for k in range(n + 1):
                        total = total + x[k]
                    return total
            """,
            error="Cannot join",
            inputs="(Tensor(np.array([0.5, 1.5, 2.0], np.float32)),)",
            title="a float carried by a loop over `range()` of a run-time int becomes a Tensor",
            lines=5,
        ),
        fails(
            """
            class Net(nn.Cell):
                def construct(self, x):
                    if x.sum() > 0:
                        y = x * 2
                    else:
                        y = 1
                    return y
            """,
            fixed="""
            class Net(nn.Cell):
                def construct(self, x):
                    y = ops.where(x.sum() > 0, x * 2, ops.full_like(x * 2, 1))
                    return y
            """,
            error="Abstract type AbstractTensor cannot join with AbstractScalar",
            title="Tensor in one branch, Python number in the other",
            lines=3,
        ),
        fails(
            """
            class Net(nn.Cell):
                def construct(self, x):
                    if x.sum() > 0:
                        return x * 2
                    return ops.cast(x, ms.int32)
            """,
            error="Type Join Failed: dtype1 = Float32, dtype2 = Int32",
            title="early `return` of Tensors with different dtypes",
            lines=3,
        ),
        fails(
            """
            class Net(nn.Cell):
                def __init__(self):
                    super().__init__()
                    self.cast = ops.Cast()

                def construct(self, x):
                    if x.sum() > 0:
                        return x
                    return self.cast(x, ms.float16)
            """,
            error="Type Join Failed: dtype1 = Float32, dtype2 = Float16",
            title="a `Cast` primitive held by the Cell, in one branch",
            lines=7,
        ),
        fails(
            """
            class Net(nn.Cell):
                def construct(self, x):
                    y = ops.cast(x, ms.int32)
                    while y.sum() > 0:
                        y = y - 0.5
                    return y
            """,
            error="Cannot join the return values of different branches",
            title="a Tensor `while` whose carry changes dtype (int32 - 0.5 is float32)",
            lines=4,
        ),
        fails(
            """
            class Net(nn.Cell):
                def construct(self, x):
                    if x.sum() > 0:
                        return x, x * 2
                    return x
            """,
            error="Abstract type AbstractTuple cannot join with AbstractTensor",
            title="early `return` of a tuple and of a Tensor",
            lines=3,
        ),
        fails(
            """
            @ms.jit
            def net(x):
                return x * 2 if x.sum() > 0 else 0
            """,
            fixed="""
            @ms.jit
            def net(x):
                return ops.where(x.sum() > 0, x * 2, ops.full_like(x * 2, 0))
            """,
            error="Abstract type AbstractTensor cannot join with AbstractScalar",
            entry="net",
            title="conditional expression of a Tensor and a Python number",
            lines=3,
        ),
        fails(
            """
            class Net(nn.Cell):
                def construct(self, x):
                    if x.sum() > 0:
                        y = [x, x * 2]
                    else:
                        y = (x, x)
                    return y
            """,
            error="Abstract type AbstractList cannot join with AbstractTuple",
            title="list in one branch, tuple in the other",
            lines=3,
        ),
        fails(
            """
            class Net(nn.Cell):
                def construct(self, x):
                    i = 0
                    while x.sum() > i:
                        if i > 2:
                            return x, x
                        i = i + 1
                    return x * 2
            """,
            error="Cannot join the return values of different branches",
            inputs=_BOTH_SIGNS,
            title="`return` of another kind inside a Tensor `while`",
            lines=4,
        ),
    ),
    clean=(
        passes(
            """
            class Net(nn.Cell):
                def construct(self, x):
                    if x.sum() > 0:
                        y = x * 2
                    else:
                        y = ops.full_like(x, 1)
                    return y
            """,
            inputs=_BOTH_SIGNS,
        ),
        passes(
            """
            class Net(nn.Cell):
                def construct(self, x):
                    if x > 0:
                        return x
                    return 0


            if __name__ == "__main__":
                print(Net()(10), Net()(-3))
            """,
            inputs="[(10,), (-3,)]",
        ),
        passes(
            """
            class Net(nn.Cell):
                def construct(self, x):
                    if x.sum() > 0:
                        return x * 2
                    return x[0]
            """,
            inputs=_BOTH_SIGNS,
        ),
        passes(
            """
            class Net(nn.Cell):
                def construct(self, x, mask=None):
                    if mask is not None:
                        return x * mask, mask
                    if x.shape[0] > 1:
                        y = x
                    else:
                        y = 1
                    if x.dtype == ms.float32:
                        return y
                    return ops.cast(x, ms.int32)
            """,
        ),
        passes(
            """
            class Net(nn.Cell):
                def construct(self, x):
                    if self.training:
                        return x, x * 2
                    return x
            """,
        ),
    ),
)


# message fields: {name} - the variable, or "the return value"; {origin} - what makes the
# condition a run-time value, e.g. "the Tensor argument `x`"
BRANCH_JOINS_NONE_AND_TENSOR = Rule(
    id="W5804",
    symbol="branch-joins-none-and-tensor",
    family=FAMILY,
    lax=W,
    strict=E,
    message=(
        "{name} is None on one branch and a Tensor on another of a condition that depends on "
        "{origin}; this falls back to the interpreter and fails under jit(fullgraph=True) and "
        "export: use a Tensor (e.g. zeros) or a flag instead of None"
    ),
    summary=(
        "A variable, ternary or early `return` that is None on one branch and a Tensor on "
        "another, under a condition that depends on Tensor values."
    ),
    why=(
        "At MindSpore's default (lax) level the None/Tensor join compiles to an interpreter "
        "(Any) value: it runs and returns what PYNATIVE_MODE returns, but every use of the "
        "joined value goes through JIT fallback. STRICT (`jit(fullgraph=True)`) and MindIR "
        "export reject the join; using the value afterwards (`y * 2`) also fails there with "
        "'the inputs should be constant, but found variable'. The same holds for `return None` "
        "after `if x.sum() > 0: return x`, `x if c else None`, `(x, None)` vs `(x, x)`, and a "
        "`while` loop that turns `y = None` into a Tensor (measured with MindSpore 2.10). "
        "Under a compile-time condition (`if mask is None` on an argument, `if self.training`) "
        "only one branch is compiled and None is fine."
    ),
    mindspore_error=(
        "TypeError: Cannot join the return values of different branches, perhaps you need to "
        "make them equal.\nType Join Failed: Abstract type AbstractTensor cannot join with "
        "AbstractNone."
    ),
    fix=(
        "Return a Tensor on every branch (`ops.zeros_like(x)`, or the input unchanged) and a "
        "separate bool Tensor when the caller needs to know which branch ran; decide "
        "None-returning paths with compile-time conditions only."
    ),
    flagged=(
        falls_back(
            """
            class Net(nn.Cell):
                def construct(self, x):
                    if x.sum() > 0:
                        return x
                    return None
            """,
            error="Abstract type AbstractTensor cannot join with AbstractNone",
            inputs=_BOTH_SIGNS,
            title="early `return x` / `return None` under a Tensor condition",
            lines=3,
        ),
        falls_back(
            """
            class Net(nn.Cell):
                def construct(self, x):
                    y = x * 2 if x.sum() > 0 else None
                    if y is None:
                        return x
                    return y
            """,
            error="Cannot join the return values of different branches",
            inputs=_BOTH_SIGNS,
            title="`t if cond else None` on a Tensor condition",
            lines=3,
        ),
        falls_back(
            """
            class Net(nn.Cell):
                def construct(self, x):
                    if x.sum() > 0:
                        return x * 2
            """,
            error="Abstract type AbstractTensor cannot join with AbstractNone",
            inputs=_BOTH_SIGNS,
            title="implicit `return None` after `if cond: return t`",
            lines=3,
        ),
        falls_back(
            """
            @ms.jit
            def net(x):
                y = None
                while x.sum() < 100:
                    x = x * 2
                    y = x
                return y
            """,
            error="Cannot join the return values of different branches",
            entry="net",
            title="`while` loop turning None into a Tensor",
            lines=4,
        ),
    ),
    clean=(
        passes(
            """
            class Net(nn.Cell):
                def construct(self, x):
                    if x.sum() > 0:
                        return x
                    return ops.zeros_like(x)
            """,
            inputs=_BOTH_SIGNS,
            export=OK,
        ),
        passes(
            """
            class Net(nn.Cell):
                def construct(self, x, mask=None):
                    if mask is None:
                        out = None
                    else:
                        out = x * mask
                    if out is None:
                        return x
                    return out
            """,
        ),
        passes(
            """
            class Net(nn.Cell):
                def __init__(self, keep_cache=False):
                    super().__init__()
                    self.keep_cache = keep_cache

                def construct(self, x):
                    cache = x
                    if self.keep_cache:  # False for every instance the project makes: the branch is dropped
                        if x.sum() > 0:
                            cache = None
                    return x if cache is None else cache
            """,
            title="a None/Tensor join inside a branch `__init__` makes dead",
        ),
    ),
)


# message fields: {name} - the variable, or "the return value"; {origin} - what makes the
# condition a run-time value
BRANCH_JOINS_TUPLES_OF_DIFFERENT_LENGTH = Rule(
    id="W5805",
    symbol="branch-joins-tuples-of-different-length",
    family=FAMILY,
    lax=W,
    strict=W,
    message=(
        "{name} is a tuple of a different length on each branch of a condition that depends on "
        "{origin}; it becomes a variable-length sequence (one element type only, wrong output "
        "for length 1): return the same tuple structure on every branch"
    ),
    summary=(
        "Tuples of different lengths joined by a condition that depends on Tensor values."
    ),
    why=(
        "MindSpore 2.10 joins `(x, x)` and `(x,)` into a variable-length sequence instead of "
        "failing: it compiles at both levels and `len`/indexing inside the graph work, but all "
        "elements must share one type and shape (`(x, x[0])` vs `(x,)` fails with 'Cannot join "
        "the return values of different branches'), and when the joined tuple of Tensors is "
        "returned with one element the graph gives `(Tensor of shape (1, 2, 3),)` where "
        "PYNATIVE_MODE gives `(Tensor of shape (2, 3),)`; lengths 2 and 3 came back right "
        "(measured on CPU)."
    ),
    fix=(
        "Keep the tuple structure fixed: return the same number of outputs on every branch "
        "(fill with `ops.zeros_like(x)`), or move the choice to a compile-time condition."
    ),
    flagged=(
        Example(
            """
            class Net(nn.Cell):
                def construct(self, x):
                    if x.sum() > 0:
                        return x, x * 2
                    return (x,)
            """,
            lax=DIVERGES,
            strict=DIVERGES,
            inputs=_BOTH_SIGNS,
            title="early `return` of tuples of different lengths",
            lines=3,
        ),
    ),
    clean=(
        passes(
            """
            class Net(nn.Cell):
                def construct(self, x):
                    if x.sum() > 0:
                        return x, x * 2
                    return x, ops.zeros_like(x)
            """,
            inputs=_BOTH_SIGNS,
        ),
        passes(
            """
            class Net(nn.Cell):
                def construct(self, x):
                    if self.training:
                        return x, x * 2
                    return (x,)
            """,
        ),
    ),
)


# message fields: {kind} - "`if`", "`while`" or "conditional expression"; {origin} - what
# makes the condition a run-time value, e.g. "the Tensor argument `x`"; {hint} - what to do about it
TENSOR_CONDITION_CONTROL_FLOW = Rule(
    id="I5806",
    symbol="tensor-condition-control-flow",
    family=FAMILY,
    lax=I,
    strict=I,
    trace=E,
    trace_message=(
        "this {kind} on a Tensor takes the branch of the first call for every later call (a trace records the"
        " path the first call took; it depends on {origin}): select with `ops.where`, or jit with the default"
        " capture"
    ),
    bytecode=W,
    bytecode_fullgraph=E,
    bytecode_message=(
        "this {kind} on a Tensor is a graph break under bytecode capture: Python decides it and the graph is "
        "split there, and `fullgraph=True` refuses it ('Data-dependent conditional control flow is not "
        "supported'); compute both sides and select with `ops.where`"
    ),
    message=(
        "this {kind} depends on {origin}, so graph mode compiles it as run-time control flow; {hint}"
    ),
    summary=(
        "An `if`, `while` or conditional expression whose condition depends on Tensor values "
        "(a run-time condition), which MindSpore compiles into control-flow subgraphs."
    ),
    why=(
        "A condition known only at run time cannot be folded: MindSpore keeps both branches (or "
        "the loop) as subgraphs called through Switch, and the CPU runtime dispatches them "
        "separately. Measured with MindSpore 2.10 on CPU for a (2, 3) input, `if x.sum() > 0: "
        "y = x * 2 else: y = x - 1` and the same ternary took 8-20 ms per call (median over "
        "300 calls, 5 fresh processes) against 0.21 ms for `ops.select(x.sum() > 0, x * 2, "
        "x - 1)` or `ops.where(...)` and 0.20 ms for `x * 2` alone; first-call (compile) time "
        "was 0.49-0.82 s for the `if` against 0.40-0.71 s for select, within noise. The machine "
        "was shared (load average about 10 on 2 cores): the control-flow version suffers most "
        "from contention; in the calmest runs it still took 0.37-0.43 ms (p10) against 0.2 ms. "
        "A `while x.sum() < 100: x = x * 2` (3 iterations) took 8-16 ms per call against "
        "0.2 ms for 4 unrolled multiplications. "
        "`ops.select`/`ops.where` broadcast a scalar (0-d) condition, but compute both branches: "
        "for large branches the `if` can be cheaper. `.item()`, `int(t)`, `float(t)` and "
        "`t.asnumpy()` in a condition are run-time too."
    ),
    fix=(
        "For a small computation replace the branch with `ops.where(cond, a, b)` (what `--fix` "
        "writes; `ops.select` is the same operation), which compiles to one kernel; keep `if` for "
        "large or expensive branches. "
        "Conditions on `self.<flag>`, shapes, dtypes, `is None` and Python scalars are "
        "compile-time and cost nothing. `--fix --unsafe-fixes` rewrites an `if` whose branches "
        "only assign names from side-effect-free expressions into `name = ops.where(cond, a, b)` "
        "(an `if/elif` chain on Tensor conditions into nested `ops.where`; unsafe: every branch is "
        "computed). For a `while` it shows (never applies) the "
        "`ops.WhileLoop()(cond, body, carry)` form, with module-level `cond`/`body` functions that "
        "read everything through the carry: measured, it compiles and steps in the same time as "
        "the `while`, so rewriting working code buys nothing; the suggestion is refused where "
        "`ops.WhileLoop` cannot express the loop (`break`/`continue`/`return`, `self`, writes, "
        "non-Tensor carries, a carry that changes shape)."
    ),
    flagged=(
        bytecoded(
            """
            @ms.jit(capture_mode="bytecode")
            def fn(x):
                if x.sum() > 0:
                    return x * 2
                return x - 1
            """,
            bytecode=OK,
            title="a Tensor `if` under bytecode capture",
            lines=3,
            fields={"kind": "`if`"},
        ),
        bytecoded(
            """
            @ms.jit(capture_mode="bytecode", fullgraph=True)
            def fn(x):
                if x.sum() > 0:
                    return x * 2
                return x - 1
            """,
            bytecode=FAILS,
            error="Data-dependent conditional control flow is not supported",
            title="a Tensor `if` under bytecode capture with fullgraph",
            lines=3,
            fields={"kind": "`if`"},
        ),
        traced(
            """
            @ms.jit(capture_mode="trace")
            def fn(x):
                if x.sum() > 0:
                    return x * 2
                return x - 1
            """,
            trace=DIVERGES,
            title="a Tensor `if` in a traced function",
            lines=3,
            fields={"kind": "`if`"},
        ),
        Example(
            """
            class Net(nn.Cell):
                def construct(self, x):
                    if x.sum() > 0:
                        y = x * 2
                    else:
                        y = x - 1
                    return y
            """,
            lax=OK,
            strict=OK,
            inputs=_BOTH_SIGNS,
            title="`if` on a Tensor value",
            lines=3,
            fix_safety="safe",  # both branches proven of one dtype and shape, and pure
            fixed="""
                class Net(nn.Cell):
                    def construct(self, x):
                        y = ops.where(x.sum() > 0, x * 2, x - 1)
                        return y
            """,
        ),
        Example(
            """
            class Net(nn.Cell):
                def construct(self, x):
                    return x * 2 if x.sum() > 0 else x - 1
            """,
            lax=OK,
            strict=OK,
            inputs=_BOTH_SIGNS,
            title="conditional expression on a Tensor value",
            lines=3,
            fix_safety="safe",  # both branches proven of one dtype and shape, and pure
            fixed="""
                class Net(nn.Cell):
                    def construct(self, x):
                        return ops.where(x.sum() > 0, x * 2, x - 1)
            """,
        ),
        Example(
            """
            @ms.jit
            def net(x):
                while x.sum() < 100:
                    x = x * 2
                return x
            """,
            lax=OK,
            strict=OK,
            entry="net",
            title="`while` on a Tensor value",
            lines=3,
        ),
    ),
    clean=(
        bytecoded(
            """
            @ms.jit(capture_mode="bytecode", fullgraph=True)
            def fn(x):
                return ops.where(x.sum() > 0, x * 2, x - 1)
            """,
            bytecode=OK,
        ),
        traced(
            """
            @ms.jit(capture_mode="trace")
            def fn(x):
                return ops.where(x.sum() > 0, x * 2, x - 1)
            """,
            trace=OK,
        ),
        passes(
            """
            class Net(nn.Cell):
                def construct(self, x):
                    return ops.where(x.sum() > 0, x * 2, x - 1)
            """,
            inputs=_BOTH_SIGNS,
        ),
        passes(
            """
            class Net(nn.Cell):
                def __init__(self):
                    super().__init__()
                    self.scale = 2

                def construct(self, x, mask=None):
                    if x.shape[0] > 1 and x.ndim == 2:
                        x = x * self.scale
                    if mask is not None:
                        x = x * mask
                    if not self.training:
                        x = x - 1
                    return x
            """,
        ),
        passes(
            """
            def scaled(module, x):
                if module.scale > 1:
                    return x * module.scale
                return x

            class Net(nn.Cell):
                def __init__(self):
                    super().__init__()
                    self.scale = 2

                def construct(self, x):
                    forward = scaled  # called through a variable: what `module` is stays unknown
                    return forward(self, x)
            """,
            title="helper called through a variable, passed the Cell",
        ),
        passes(
            """
            class Net(nn.Cell):
                def __init__(self, gated=False):
                    super().__init__()
                    self.gated = gated

                def construct(self, x):
                    if self.gated:  # False for every instance the project makes: type inference drops the branch
                        if x.sum() > 0:
                            x = x * 2
                    return x
            """,
            title="a Tensor `if` inside a branch `__init__` makes dead",
        ),
    ),
)


# message fields: {op} - and / or; {kinds}; {origin}
BOOLOP_JOINS_DIFFERENT_KINDS = Rule(
    id="E5807",
    symbol="boolop-joins-different-kinds",
    family=FAMILY,
    lax=E,
    strict=E,
    message="`{op}` on {kinds} under a condition that depends on {origin}: graph mode must join both operands and "
            "cannot; use `ops.logical_{op}` on Tensors, or `ops.where`",
    summary="`a and b` / `a or b` on a run-time condition whose operands are of different kinds (a bool Tensor "
            "and a Tensor of values, a Tensor and a Python value), as a value or in the test of an `if` / `while`.",
    why=(
        "Python's `and`/`or` return one of their operands. With a Tensor condition graph mode compiles them as a "
        "branch and joins the two possible results, which must agree in kind and dtype: `(x.sum() > 0) and x` "
        "stops with \"Cannot join the return values of different branches\" at every level. The test of an `if` "
        "or a `while` is no exception: `if x.sum() > 1 and x.shape[0] > 2:` joins a bool Tensor with a Python "
        "bool (\"Type Join Failed: dtype1 = Bool, dtype2 = Any\"), and so does `while i < 5 and x.sum() > 1:`, "
        "whose counter `i` the Tensor loop carries as a run-time value. A Python operand the compiler decides "
        "before the Tensor one (`if x.shape[0] > 2 and x.sum() > 1:`) is folded away, and two bool Tensors join."
    ),
    mindspore_error="TypeError: Cannot join the return values of different branches, perhaps you need to make them equal.",
    fix="Say what you mean with ops: `ops.logical_and(c, d)` for conditions, `ops.where(c, x, 0)` for values. "
        "In the test of an `if`, put the Python operand first (`if x.shape[0] > 2 and x.sum() > 1:`) or split it "
        "into two nested `if`s; in a `while`, make the counter a Tensor or test it in the body and `break`.",
    flagged=(
        fails(
            """
            class Net(nn.Cell):
                def construct(self, x):
                    y = x.sum() > 0 and x
                    return y
            """,
            error="Cannot join the return values of different branches",
            inputs=_BOTH_SIGNS,
            title="`cond and value` on a Tensor condition",
            lines=3,
            fields={"op": "and"},
        ),
        fails(
            """
            class Net(nn.Cell):
                def construct(self, x):
                    y = (x.sum() > 0) or 2
                    return y
            """,
            error="Cannot join the return values of different branches",
            inputs=_BOTH_SIGNS,
            title="`cond or number` on a Tensor condition",
            lines=3,
        ),
        fails(
            """
            class Net(nn.Cell):
                def construct(self, x):
                    if x.sum() > 1 and x.shape[0] > 2:
                        x = x + 1
                    return x
            """,
            error="Type Join Failed: dtype1 = Bool, dtype2 = Any",
            inputs=_BOTH_SIGNS,
            title="`if tensor_cond and python_cond:`",
            lines=3,
            fields={"op": "and", "kinds": "a Tensor and a bool"},
        ),
        fails(
            """
            class Net(nn.Cell):
                def construct(self, x):
                    i = 0
                    while i < 5 and x.sum() > 1:
                        x = x - 1
                        i += 1
                    return x
            """,
            error="Cannot join the return values of different branches",
            inputs=_BOTH_SIGNS,
            title="`while counter_cond and tensor_cond:`",
            lines=4,
        ),
        fails(
            """
            class Net(nn.Cell):
                def construct(self, x):
                    while x.sum() > 1 or x.shape[0] > 5:
                        x = x - 1
                    return x
            """,
            error="Cannot join the return values of different branches",
            inputs=_BOTH_SIGNS,
            title="`while tensor_cond or python_cond:`",
            lines=3,
            fields={"op": "or"},
        ),
    ),
    clean=(
        passes(
            """
            class Net(nn.Cell):
                def construct(self, x):
                    both = ops.logical_and(x.sum() > 0, x.max() > 1)
                    return ops.where(both, x, 0 * x)
            """,
            inputs=_BOTH_SIGNS,
        ),
        passes(
            """
            class Net(nn.Cell):
                def construct(self, x):
                    if x.shape[0] > 2 and x.sum() > 1:
                        x = x + 1
                    return x
            """,
            inputs=_BOTH_SIGNS,
        ),
        passes(
            """
            class Net(nn.Cell):
                def construct(self, x):
                    while x.sum() > 1 and x.max() > 2:
                        x = x - 1
                    return x
            """,
            inputs=_BOTH_SIGNS,
        ),
    ),
)


# message fields: {name} - the list; {where} - the `if` or loop that resizes it, and why the run decides;
# {op} - the call that needs the length
LIST_LENGTH_DECIDED_AT_RUN_TIME = Rule(
    id="E5808",
    symbol="list-length-decided-at-run-time",
    family=FAMILY,
    lax=E,
    strict=E,
    message=(
        "`{name}` gains or loses elements {where}: its length is decided when the graph runs, and `{op}` needs a "
        "list whose length is known while compiling; change it by the same number of elements whatever the run "
        "decides (append `ops.zeros_like(...)` as a placeholder, loop to a bound known while compiling), or keep "
        "a fixed-size Tensor and a mask"
    ),
    summary=(
        "A list that `append`/`pop`/... change on one branch of a Tensor condition only, or in a loop whose number "
        "of steps only the run knows (`for i in range(int(t))`, a Tensor `while`, `for i in t.tolist()`), then "
        "stacked or concatenated, read by index after such a loop, or given a dict or tuple element."
    ),
    why=(
        "Graph mode rebinds a list on every `append` (ListAppend makes a new list). Under a Tensor condition the "
        "two branches give lists of different lengths, which join into a list whose length only the run decides. "
        "`ops.stack` and `ops.cat` of it fail: at compile time (\"'TensorType' object is not subscriptable\", "
        "\"For 'Stack', the 'len of input_x' must be int and must >= 1\" in a loop), or when the graph runs down "
        "the shorter branch (\"Shapes number and types number must be equal\"), at both levels; PYNATIVE_MODE "
        "stacks what the run appended. A loop whose number of steps is a run-time value (`range(n)` of `n = "
        "int(t.max()) + 1`, a `while` on a Tensor, a `for` over `t.tolist()`, which the JIT fallback makes when the "
        "graph runs) is compiled as a real loop, and a list it appends to has a run-time length the same way: an "
        "item read after it fails (\"cannot get item by index from an empty sequence\"). A list of run-time length "
        "holds only Tensors and scalars: appending a tuple or a dict to it fails at the append (\"ListAppend ... "
        "target must be scalar or tensor\", \"DynamicSequence does not support dictionary type as element type\"). "
        "Measured with MindSpore 2.10 (CPU)."
    ),
    mindspore_error="ValueError: For 'Stack', the 'len of input_x' must be int and must >= 1, but got '0' with type "
                    "'int'.",
    fix=(
        "Keep the structure fixed: append on every branch (`ops.zeros_like(v)` where nothing belongs), then "
        "select with `ops.where` or a mask; or collect into a preallocated Tensor."
    ),
    flagged=(
        fails(
            """
            class Net(nn.Cell):
                def construct(self, x):
                    outs = [x]
                    if x.sum() > 0:
                        outs.append(x * 2)
                    return ops.stack(outs)
            """,
            error="is not subscriptable",
            inputs="(Tensor(np.arange(6, dtype=np.float32).reshape(2, 3)),)",
            title="`append` under a Tensor `if`, then `ops.stack`",
            lines=6,
            fields={"name": "outs", "op": "ops.stack"},
        ),
        fails(
            """
            class Net(nn.Cell):
                def construct(self, x):
                    kept = []
                    for i in range(3):
                        if x[i] > 0:
                            kept.append(x[i] * 2)
                    return ops.stack(kept)
            """,
            error="must be int and must >= 1",
            inputs="(Tensor(np.array([1.0, -2.0, 3.0], np.float32)),)",
            title="`append` under a Tensor `if` in a loop, then `ops.stack`",
            lines=7,
            fields={"name": "kept"},
        ),
        fails(
            """
            class Net(nn.Cell):
                def construct(self, x):
                    n = int(x.argmax()) + 1
                    rows = []
                    for i in range(n):
                        rows.append(x[i] * 2)
                    return ops.stack(rows)
            """,
            error="must be int and must >= 1",
            inputs="(Tensor(np.array([1.0, -2.0, 3.0], np.float32)),)",
            title="`append` in a loop over `range()` of a run-time int, then `ops.stack`",
            lines=7,
            fields={"name": "rows", "op": "ops.stack"},
        ),
        fails(
            """
            class Net(nn.Cell):
                def construct(self, x):
                    n = int(x.argmax()) + 1
                    rows = []
                    for i in range(n):
                        rows.append(x[i] * 2)
                    return rows[0]
            """,
            error="cannot get item by index from an empty sequence",
            inputs="(Tensor(np.array([1.0, -2.0, 3.0], np.float32)),)",
            title="an item read after a loop over `range()` of a run-time int",
            lines=7,
            fields={"name": "rows", "op": "rows[0]"},
        ),
        Example(
            """
            from dataclasses import dataclass, replace


            @dataclass
            class State:
                step: Tensor

                def finished(self):
                    return self.step.item() >= 3

                def update(self):
                    return replace(self, step=self.step + 1)


            class Net(nn.Cell):
                def construct(self, x):
                    state = State(ops.zeros_like(x[0, 0]).astype(ms.int32))
                    outs = []
                    while not state.finished():
                        outs.append(x * 2)
                        state = state.update()
                    return ops.stack(outs)
            """,
            lax=FAILS,
            strict=SKIP,  # (STRICT refuses the dataclass made from a Tensor first: python-object-from-tensor)
            error="must be int and must >= 1",
            title="a `while` on a method of a state object made in graph code (a decoder's `state.all_finished()`)",
            lines=22,
            fields={"name": "outs", "op": "ops.stack"},
        ),
        fails(
            """
            class Net(nn.Cell):
                def construct(self, x):
                    found = []
                    for i in range(3):
                        if x[i] > 0:
                            found.append((x[i], i))
                    return x * len(found)
            """,
            error="must be scalar or tensor",
            inputs="(Tensor(np.array([1.0, -2.0, 3.0], np.float32)),)",
            title="a tuple appended under a Tensor `if`: the append itself",
            lines=6,
            fields={"name": "found"},
        ),
        Example(
            """
            class Net(nn.Cell):
                def construct(self, x):
                    _, idx = ops.topk(x, 2)
                    spans = []
                    for i in idx.tolist():
                        spans.append({"score": x[i], "index": i})
                    return spans[0]["score"]
            """,
            lax=FAILS,
            strict=SKIP,  # (STRICT refuses `tolist` itself first: tensor-tolist-in-graph says it)
            error="DynamicSequence does not support dictionary type as element type",
            inputs="(Tensor(np.array([1.0, -2.0, 3.0], np.float32)),)",
            title="a dict appended in a loop over `t.tolist()` (SQuAD's span search)",
            lines=(6, 7),
            fields={"name": "spans"},
        ),
    ),
    clean=(
        passes(
            """
            class Net(nn.Cell):
                def construct(self, x):
                    outs = [x[0]]
                    for i in range(3):
                        if x[i] > 0:
                            outs.append(x[i])
                    return outs[-1]
            """,
            inputs="(Tensor(np.array([1.0, -2.0, 3.0], np.float32)),)",
        ),
        passes(
            """
            class Net(nn.Cell):
                def construct(self, x):
                    rows = []
                    for i in range(x.shape[0]):
                        rows.append(x[i] * 2)
                    return ops.stack(rows)
            """,
            inputs="(Tensor(np.array([1.0, -2.0, 3.0], np.float32)),)",
        ),
        passes(
            """
            class Net(nn.Cell):
                def construct(self, x):
                    outs = [x]
                    if x.sum() > 0:
                        outs.append(x * 2)
                    else:
                        outs.append(x)
                    return ops.stack(outs)
            """,
            inputs=_BOTH_SIGNS,
        ),
        passes(
            """
            class Net(nn.Cell):
                def construct(self, x):
                    outs = [x]
                    if x.shape[0] > 1:
                        outs.append(x * 2)
                    return ops.stack(outs)
            """,
            inputs=_BOTH_SIGNS,
        ),
    ),
)


RULES = (
    VARIABLE_DEFINED_IN_ONE_BRANCH,
    VARIABLE_DEFINED_IN_LOOP,
    BRANCH_TYPE_MISMATCH,
    BRANCH_JOINS_NONE_AND_TENSOR,
    BRANCH_JOINS_TUPLES_OF_DIFFERENT_LENGTH,
    LIST_LENGTH_DECIDED_AT_RUN_TIME,
    TENSOR_CONDITION_CONTROL_FLOW,
    BOOLOP_JOINS_DIFFERENT_KINDS,
)
