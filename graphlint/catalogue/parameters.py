"""Parameters entering one graph under the same name.

A compiled graph addresses its Parameters by name. A Cell prefixes the names of its sub-Cells' Parameters with
the attribute path (`block.w`), so two instances of one Cell class do not clash; but Parameters named by hand
(`Parameter(..., name="w")`) that end up as direct attributes of one Cell, or module-level Parameters that one
`@jit` function reads, keep their names. Measured with MindSpore 2.10 (CPU).
"""

from graphlint.catalogue.model import Rule, Severity, fails, falls_back, passes

E, W, I = Severity.ERROR, Severity.WARNING, Severity.INFO
FAMILY = "parameters"

# message fields: {name}, {first} - where the other Parameter of that name is
DUPLICATE_PARAMETER_NAME = Rule(
    id="W6201",
    symbol="duplicate-parameter-name",
    family=FAMILY,
    lax=W,
    strict=E,
    message="a second Parameter named {name!r} enters this graph (the first at line {first}): STRICT and MindIR "
            "export reject the clash; give each Parameter a unique name, or let the Cell name it (drop `name=`)",
    summary="Two Parameters created with the same explicit `name=` and held directly by one Cell (as attributes, "
            "or module-level Parameters it stores).",
    why=(
        "GRAPH_MODE at the lax level tolerates the clash, but `jit(fullgraph=True)` and MindIR export stop with "
        "\"The parameter ... its name 'w' already exists. Please set a unique name for the parameter.\": a graph "
        "can hold only one Parameter per name, and names given by hand are not prefixed by the attribute path."
    ),
    mindspore_error="RuntimeError: The parameter ..., its name 'w' already exists. Please set a unique name for the parameter.",
    fix="Give the Parameters different names, or leave `name=` out so the Cell names them after the attribute.",
    flagged=(
        falls_back(
            """
            class Net(nn.Cell):
                def __init__(self):
                    super().__init__()
                    self.p = Parameter(Tensor(np.ones((3,), np.float32)), name="w")
                    self.q = Parameter(Tensor(np.ones((3,), np.float32)), name="w")

                def construct(self, x):
                    return x * self.p + self.q
            """,
            fixed="""
            class Net(nn.Cell):
                def __init__(self):
                    super().__init__()
                    self.p = Parameter(Tensor(np.ones((3,), np.float32)), name="w")
                    self.q = Parameter(Tensor(np.ones((3,), np.float32)), name="q")

                def construct(self, x):
                    return x * self.p + self.q
            """,
            error="already exists. Please set a unique name for the parameter",
            title="two Parameters named alike in one Cell",
            lines=5,
            fields={"name": "w", "first": 8},
        ),
    ),
    clean=(
        passes(
            """
            class Block(nn.Cell):
                def __init__(self):
                    super().__init__()
                    self.w = Parameter(Tensor(np.ones((3,), np.float32)), name="w")

                def construct(self, x):
                    return x * self.w


            class Net(nn.Cell):
                def __init__(self):
                    super().__init__()
                    self.a = Block()
                    self.b = Block()
                    self.p = Parameter(Tensor(np.ones((3,), np.float32)), name="p")
                    self.q = Parameter(Tensor(np.ones((3,), np.float32)))

                def construct(self, x):
                    return self.a(x) + self.b(x) * self.p + self.q
            """,
        ),
    ),
)

# message fields: {name}; {holder} - the argument or name it enters by; {other} - the Parameter it clashes with
DUPLICATE_PARAMETER_NAME_IN_JIT = Rule(
    id="E6202",
    symbol="duplicate-parameter-name-in-jit",
    family=FAMILY,
    lax=E,
    strict=E,
    message="the Parameter named {name!r} that enters this graph as `{holder}` has the name of {other}; a graph "
            "holds one Parameter per name: give them unique names",
    summary="A graph entry (a `@jit` function or a Cell's `construct`) that receives two Parameters created with "
            "the same `name=`: read from module globals or from a function that encloses it, or passed as "
            "arguments (by a call in the same module), or an argument named like one of the Cell's own Parameters, or "
            "gathered with `ParameterTuple(net.get_parameters())` from Cells it does not hold as sub-Cells.",
    why=(
        "A graph compiles the Parameters it reads or receives under their names; names given by hand are not "
        "prefixed by any attribute path, so two alike stop compilation at every level: \"The parameter ..., its "
        "name 'w' already exists.\" graphlint follows the Parameters through module globals, closures of an "
        "enclosing function, and the arguments the module's own calls pass."
    ),
    mindspore_error="RuntimeError: The parameter @f:param_w , its name 'w' already exists. Please set a unique name for the parameter.",
    fix="Give the Parameters unique names, or hold them in a Cell (which prefixes their names).",
    flagged=(
        fails(
            """
            P1 = Parameter(Tensor(np.ones((3,), np.float32)), name="w")
            P2 = Parameter(Tensor(np.ones((3,), np.float32)), name="w")


            @ms.jit
            def f(x):
                return x * P1 + P2
            """,
            fixed="""
            P1 = Parameter(Tensor(np.ones((3,), np.float32)), name="w")
            P2 = Parameter(Tensor(np.ones((3,), np.float32)), name="P2")


            @ms.jit
            def f(x):
                return x * P1 + P2
            """,
            error="already exists. Please set a unique name for the parameter",
            entry="f",
            title="a `@jit` function reading two Parameters named alike",
            lines=7,
            fields={"name": "w", "holder": "P2"},
        ),
        fails(
            """
            def make_step():
                scale = Parameter(Tensor(np.ones((3,), np.float32)), name="s")
                shift = Parameter(Tensor(np.zeros((3,), np.float32)), name="s")

                @ms.jit
                def step(x):
                    return x * scale + shift
                return step


            f = make_step()
            """,
            fixed="""
            def make_step():
                scale = Parameter(Tensor(np.ones((3,), np.float32)), name="s")
                shift = Parameter(Tensor(np.zeros((3,), np.float32)), name="shift")

                @ms.jit
                def step(x):
                    return x * scale + shift
                return step


            f = make_step()
            """,
            error="already exists. Please set a unique name for the parameter",
            entry="f",
            title="a `@jit` closure over two Parameters named alike",
            lines=7,
            fields={"name": "s", "holder": "shift"},
        ),
        fails(
            """
            class Net(nn.Cell):
                def __init__(self):
                    super().__init__()
                    self.w = Parameter(Tensor(np.ones((2, 3), np.float32)), name="w")

                def construct(self, x, bias):
                    return x * self.w + bias


            if __name__ == "__main__":
                print(Net()(Tensor(np.ones((2, 3), np.float32)), Parameter(Tensor(np.ones((2, 3), np.float32)), name="w")))
            """,
            error="already exists. Please set a unique name for the parameter",
            inputs="(Tensor(np.ones((2, 3), np.float32)), Parameter(Tensor(np.ones((2, 3), np.float32)), name='w'))",
            title="a Parameter argument named like the Cell's own",
            lines=6,
            fields={"name": "w", "holder": "bias", "other": "the Cell's own Parameter 'w'"},
        ),
        fails(
            """
            from mindspore import ParameterTuple


            class Inner(nn.Cell):
                def __init__(self):
                    super().__init__()
                    self.weight = Parameter(Tensor(np.ones((3,), np.float32)), name="weight")

                def construct(self, x):
                    return x * self.weight


            class Outer(nn.Cell):
                def __init__(self, first, second):
                    super().__init__()
                    self.first_params = ParameterTuple(first.get_parameters())
                    self.second_params = ParameterTuple(second.get_parameters())

                def construct(self, x):
                    return x * self.first_params[0] + self.second_params[0]


            net = Outer(Inner(), Inner())
            """,
            error="already exists. Please set a unique name for the parameter",
            entry="net",
            title="the Parameters of two Cells that are not sub-Cells, gathered with `ParameterTuple`",
            lines=20,
            fields={"name": "weight", "holder": "self.second_params"},
        ),
    ),
    clean=(
        passes(
            """
            P1 = Parameter(Tensor(np.ones((3,), np.float32)), name="w1")
            P2 = Parameter(Tensor(np.ones((3,), np.float32)), name="w2")


            @ms.jit
            def f(x):
                return x * P1 + P2
            """,
            entry="f",
        ),
        passes(
            """
            class Net(nn.Cell):
                def __init__(self):
                    super().__init__()
                    self.w = Parameter(Tensor(np.ones((2, 3), np.float32)), name="w")

                def construct(self, x, bias):
                    return x * self.w + bias


            if __name__ == "__main__":
                print(Net()(Tensor(np.ones((2, 3), np.float32)), Parameter(Tensor(np.ones((2, 3), np.float32)), name="b")))
            """,
            inputs="(Tensor(np.ones((2, 3), np.float32)), Parameter(Tensor(np.ones((2, 3), np.float32)), name='b'))",
        ),
        passes(
            """
            from mindspore import ParameterTuple


            class Inner(nn.Cell):
                def __init__(self):
                    super().__init__()
                    self.weight = Parameter(Tensor(np.ones((3,), np.float32)), name="weight")

                def construct(self, x):
                    return x * self.weight


            class Outer(nn.Cell):
                def __init__(self):
                    super().__init__()
                    self.first = Inner()
                    self.second = Inner()
                    self.first_params = ParameterTuple(self.first.get_parameters())
                    self.second_params = ParameterTuple(self.second.get_parameters())

                def construct(self, x):
                    return x * self.first_params[0] + self.second_params[0]
            """,
            entry="Outer",
            title="the same Parameters gathered from sub-Cells (their names are prefixed)",
        ),
    ),
)

RULES = (
    DUPLICATE_PARAMETER_NAME,
    DUPLICATE_PARAMETER_NAME_IN_JIT,
)
