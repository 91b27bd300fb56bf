"""Unit tests for the branches checker (E5801-I5806) beyond the catalogue examples."""

import textwrap

import pytest

from graphlint.config import Config
from graphlint.lint import lint_text

PRELUDE = (
    "import numpy as np\n"
    "import mindspore as ms\n"
    "from mindspore import nn, ops, Tensor, Parameter\n"
)


def _lint(source):
    return lint_text(PRELUDE + textwrap.dedent(source), Config())


def _symbols(source, prefix=""):
    return [f.rule.symbol for f in _lint(source) if f.rule.family == "branches"]


def _findings(source, symbol):
    return [f for f in _lint(source) if f.rule.symbol == symbol]


def _cell(init, body, args="x"):
    init_text = textwrap.indent(textwrap.dedent(init), " " * 8) if init else ""
    return (
        "class Net(nn.Cell):\n"
        "    def __init__(self, flag=True):\n"
        "        super().__init__()\n"
        f"{init_text}\n"
        f"    def construct(self, {args}):\n"
        + textwrap.indent(textwrap.dedent(body), " " * 8)
    )


# -- E5801: the parser's folding decides -----------------------------------------------------------
@pytest.mark.parametrize("init, test", [
    ("self.use_bias = flag", "self.use_bias"),  # value unknown here: do not claim
    ("self.use_bias = True", "self.use_bias"),
    ("self.bias = None", "self.bias is None"),
    ("self.mode = 'train'", "self.mode == 'train'"),
    ("self.p = 0.5", "self.p >= 0.5"),
    ("self.use = True", "not self.use"),
    ("self.use = True\nself.n = 3", "self.use and self.n > 1"),
    ("", "self.training"),
])
def test_folded_conditions_allow_one_branch_definitions(init, test):
    source = _cell(init, f"""
        if {test}:
            y = x * 2
        return y
    """)
    assert "variable-defined-in-one-branch" not in _symbols(source)


@pytest.mark.parametrize("init, test", [
    ("self.use_bias = 1", "self.use_bias"),  # must be a real bool
    ("self.act = nn.ReLU()", "self.act"),  # Cell truthiness is not folded
    ("self.mode = 'a'", "self.mode in ('a', 'b')"),  # `in` is not folded
    ("self.p = 0.5", "0 < self.p"),  # number on the left
    ("self.flag = True", "self.flag is True"),  # `is` folds only against None
    ("self.flag = True", "x.sum() > 0 and self.flag"),
    ("", "x.ndim == 2"),
    ("", "len(x.shape) == 2"),
    ("", "isinstance(x, Tensor)"),
])
def test_unfolded_conditions_report_one_branch_definitions(init, test):
    source = _cell(init, f"""
        if {test}:
            y = x * 2
        return y
    """)
    assert "variable-defined-in-one-branch" in _symbols(source)


def test_keyword_flag_and_local_literal():
    assert "variable-defined-in-one-branch" in _symbols(_cell("", """
        if flag:
            y = x * 2
        return y
    """, args="x, flag=True"))
    assert "variable-defined-in-one-branch" not in _symbols(_cell("", """
        flag = True
        if flag:
            y = x * 2
        return y
    """))


def test_attribute_written_in_construct_is_not_folded():
    source = _cell("self.flag = True", """
        self.flag = False
        if self.flag:
            y = x * 2
        return y
    """)
    assert "variable-defined-in-one-branch" in _symbols(source)


def test_one_branch_message_fields():
    [finding] = _findings(_cell("", """
        if x.sum() > 0:
            pass
        else:
            y = x * 2
        return y
    """), "variable-defined-in-one-branch")
    assert "`y` is assigned only in the false branch of `if x.sum() > 0`" in finding.message


def test_branches_ending_in_raise_or_continue_do_not_count():
    assert "variable-defined-in-one-branch" not in _symbols(_cell("", """
        if x.sum() > 0:
            y = x * 2
        else:
            raise ValueError("negative")
        return y
    """))
    assert "variable-defined-in-one-branch" not in _symbols(_cell("", """
        out = x
        for i in range(3):
            if x.sum() > i:
                y = x
            else:
                continue
            out = out + y
        return out
    """))


def test_defined_in_earlier_partial_if_reported_once():
    symbols = _symbols(_cell("", """
        if x.sum() > 0:
            y = x
        if x.sum() > 1:
            y = x * 2
        return y
    """))
    assert symbols.count("variable-defined-in-one-branch") == 1


def test_helper_reached_through_self_method():
    source = (
        "class Net(nn.Cell):\n"
        "    def helper(self, x, mask):\n"
        "        if mask is not None:\n"
        "            y = x * mask\n"
        "        return y\n"
        "    def construct(self, x, mask=None):\n"
        "        return self.helper(x, mask)\n"
    )
    [finding] = _findings(source, "variable-defined-in-one-branch")
    assert "helper" in finding.message


# -- E5802 -----------------------------------------------------------------------------------------
def test_loop_definitions():
    assert "variable-defined-in-loop" in _symbols(_cell("", """
        i = 0
        while i < 3:
            y = x * i
            i += 1
        return y
    """))
    assert "variable-defined-in-loop" in _symbols(_cell("", """
        for row in x:
            y = row * 2
        return y
    """))
    assert "variable-defined-in-loop" not in _symbols(_cell("", """
        i = 0
        while i < 3:
            i += 1
        return x * i
    """))
    assert "variable-defined-in-loop" not in _symbols(_cell("", """
        ys = [x * i for i in range(3)]
        return ys[-1]
    """))


def test_loop_variable_reported_on_for_keyword():
    [finding] = _findings(_cell("", """
        for i in range(3):
            x = x + i
        return x * i
    """), "variable-defined-in-loop")
    assert finding.args == {"name": "i", "loop": "for"}
    assert finding.end_column - finding.column == 3


def test_nested_loop_definition_reported():
    assert "variable-defined-in-loop" in _symbols(_cell("", """
        out = x
        for j in range(2):
            for i in range(3):
                y = x * i
            out = out + y
        return out
    """))


# -- joins -----------------------------------------------------------------------------------------
def test_compile_time_conditions_join_freely():
    symbols = _symbols(_cell("", """
        if mask is None:
            y = x
        else:
            y = (x, mask)
        if n > 1:
            z = x * n
        else:
            z = 0
        if isinstance(x, Tensor):
            w = x
        else:
            w = None
        return y, z, w
    """, args="x, n: int, mask=None"))
    assert not {"branch-type-mismatch", "branch-joins-none-and-tensor",
                "branch-joins-tuples-of-different-length"} & set(symbols)


def test_parameter_condition_is_runtime():
    source = _cell("self.w = Parameter(Tensor(1.0))", """
        if self.w > 0:
            return x
        return None
    """)
    [finding] = _findings(source, "branch-joins-none-and-tensor")
    assert "the Parameter `self.w`" in finding.message


def test_join_in_helper_via_self_method():
    source = (
        "class Net(nn.Cell):\n"
        "    def helper(self, x):\n"
        "        if x.sum() > 0:\n"
        "            return x * 2\n"
        "        return 1\n"
        "    def construct(self, x):\n"
        "        return self.helper(x)\n"
    )
    [finding] = _findings(source, "branch-type-mismatch")
    assert "a Tensor and an int" in finding.message and "the Tensor argument `x`" in finding.message


def test_dtype_mismatch_of_two_casts():
    [finding] = _findings(_cell("", """
        if x.sum() > 0:
            y = ops.cast(x, ms.float16)
        else:
            y = x.astype(ms.float32)
        return y
    """), "branch-type-mismatch")
    assert "float16" in finding.message and "float32" in finding.message


def test_same_dtype_and_shapes_differ_is_fine():
    assert "branch-type-mismatch" not in _symbols(_cell("", """
        if x.sum() > 0:
            y = ops.cast(x, ms.float16)
        else:
            y = ops.cast(x[0], ms.float16)
        return y
    """))


def test_tuple_length_join_on_variable():
    assert "branch-joins-tuples-of-different-length" in _symbols(_cell("", """
        if x.sum() > 0:
            y = (x, x)
        else:
            y = (x,)
        return y
    """))


def test_none_inside_tuple():
    assert "branch-joins-none-and-tensor" in _symbols(_cell("", """
        if x.sum() > 0:
            return x, None
        return x, x
    """))


def test_python_counter_in_tensor_while_is_fine():
    symbols = _symbols(_cell("", """
        n = 0
        while x.sum() < 100:
            x = x * 2
            n = n + 1
        return x, n
    """))
    assert not {"branch-type-mismatch", "branch-joins-none-and-tensor"} & set(symbols)
    assert "tensor-condition-control-flow" in symbols


def test_int_and_float_used_not_returned_is_quiet():
    assert "branch-type-mismatch" not in _symbols(_cell("", """
        if x.sum() > 0:
            s = 2
        else:
            s = 0.5
        return x * s
    """))


# -- I5806 -----------------------------------------------------------------------------------------
def test_conditions_that_are_not_tensor_values_stay_quiet():
    source = _cell("self.block = nn.ReLU()", """
        if not return_dict:
            x = x * 2
        if stage == "LF_1":
            x = x + 1
        h = self.block(x)
        if h.shape[0] > 1:
            x = x - 1
        return x
    """, args="x, stage, return_dict=None")
    assert "tensor-condition-control-flow" not in _symbols(source)


def test_runtime_condition_forms():
    source = _cell("", """
        if x.sum().item() > 0:
            x = x * 2
        y = x * 2 if x[0, 1] else x
        while x.sum() < 100:
            x = x * 2
        return x + y
    """)
    findings = _findings(source, "tensor-condition-control-flow")
    assert sorted(f.args["kind"] for f in findings) == ["`if`", "`while`", "conditional expression"]
    assert all(f.args["origin"] == "the Tensor argument `x`" for f in findings)


def test_a_name_bound_by_a_walrus_in_the_test_is_not_one_branch_only():
    source = """
        class Net(nn.Cell):
            def construct(self, x, mask):
                if not isinstance((mapping := mask), dict):
                    mapping = {"full": mask}
                return x * mapping["full"]
        """
    found = [(f.rule.symbol, f.line) for f in _lint(source) if f.rule.family in ("branches", "statements")]
    assert found == [("walrus-in-graph", 7)]  # once, as the walrus; both branches see `mapping`


# E5807 in the test of an `if` / `while`: each form compiled with MindSpore 2.10 at both levels (the catalogue
# compiles the first of each kind); where it failed, the line and column of the `and`/`or` that joins.
@pytest.mark.parametrize("body, where", [
    ("if x.sum() > 1 or x.shape[0] > 5:\n    x = x + 1\n", (1, 4)),
    ("if not (x.sum() > 1 and x.shape[0] > 2):\n    x = x + 1\n", (1, 9)),
    ("if not x.sum() > 1 and x.shape[0] > 2:\n    x = x + 1\n", (1, 4)),
    ("if (x.sum() > 1 and x.shape[0] > 2) or x.max() > 3:\n    x = x + 1\n", (1, 5)),
    ("if x.shape[0] > 1 and x.sum() > 1 and x.shape[1] > 2:\n    x = x + 1\n", (1, 4)),
    ("if x.shape[0] > 5 or (x.sum() > 1 and x.shape[1] > 2):\n    x = x + 1\n", (1, 23)),
    ("flag = True\nif x.sum() > 1 and flag:\n    x = x + 1\n", (2, 4)),
    ("if x.max() > 100:\n    x = x - 1\nelif x.sum() > 1 and x.shape[0] > 2:\n    x = x + 1\n", (3, 6)),
    ("x = x + 1 if x.sum() > 1 and x.shape[0] > 2 else x - 1\n", (1, 14)),
    ("i = 0\nwhile i < 5 or x.sum() > 1:\n    x = x - 1\n    i += 1\n", (2, 7)),
    ("i = 0\nwhile x.sum() > 1:\n    x = x - 1\n    i += 1\n    if i < 3 and x.max() > 0:\n        x = x - 0.5\n",
     (5, 8)),
])
def test_boolop_in_a_condition_that_cannot_join(body, where):
    source = _cell("", body + "return x\n")
    found = _findings(source, "boolop-joins-different-kinds")
    first_line = PRELUDE.count("\n") + 6  # the first line of the body
    assert [(f.line - first_line + 1, f.column - 8) for f in found] == [where]


@pytest.mark.parametrize("body", [
    "if x.shape[0] > 2 and x.sum() > 1:\n    x = x + 1\n",  # the Python operand folds first
    "if x.shape[0] > 5 or x.sum() > 1:\n    x = x + 1\n",
    "if x.sum() > 1 or x.max() > 2:\n    x = x + 1\n",  # two bool Tensors join
    "if (x.sum() > 1) & (x.shape[0] > 2):\n    x = x + 1\n",  # an op, no branch
    "while x.shape[0] > 1 and x.sum() > 1:\n    x = x - 1\n",  # the shape of a carried Tensor stays
    "i = 0\nwhile i < 5 and x.sum() > 1:\n    x = x - 1\n",  # `i` is not changed in the loop: folded
    "if x.sum() > 1 and None:\n    x = x + 1\n",  # compiles at the lax level (STRICT rejects it): not told
])
def test_boolop_in_a_condition_that_compiles(body):
    assert _findings(_cell("", body + "return x\n"), "boolop-joins-different-kinds") == []


def test_boolop_as_a_branch_of_a_conditional_expression_is_a_value():
    # measured with MindSpore 2.10 at both levels: "Cannot join the return values of different branches"
    source = _cell("", "x = (x.sum() > 0 and x) if x.shape[0] > 1 else x\nreturn x\n")
    found = _findings(source, "boolop-joins-different-kinds")
    first_line = PRELUDE.count("\n") + 6
    assert [(f.line - first_line + 1, f.column - 8, f.args["kinds"]) for f in found] == [
        (1, 6, "a bool Tensor and a Tensor of values")]


def test_parameters_a_mindspore_base_layer_makes_are_tensors():
    """``self.gamma`` in a subclass of ``nn.LayerNorm`` (and ``self.bias`` of ``nn.Dense``), which the layer's own
    constructor makes (MindSpore's sources: generated.nn_parameters), are Parameters of the graph, also when the
    subclass has an ``__init__`` of its own."""
    source = (
        "class ScaledNorm(nn.LayerNorm):\n"
        "    def __init__(self, shape, scale=2):\n"
        "        super().__init__(shape)\n"
        "        self.scale = scale\n"
        "\n"
        "    def construct(self, x):\n"
        "        y, _, _ = self.layer_norm(x, self.gamma, self.beta)\n"
        "        if self.gamma.max() > 1:\n"
        "            y = y * self.scale\n"
        "        return y\n"
        "\n"
        "\n"
        "class Lora(nn.Dense):\n"
        "    def __init__(self, a, b, r=4):\n"
        "        super().__init__(a, b)\n"
        "        self.r = r\n"
        "\n"
        "    def construct(self, x):\n"
        "        return ops.matmul(x, self.weight.t()) + self.bias.item()\n"
    )
    found = [(f.rule.id, f.line) for f in _lint(source)]
    first = PRELUDE.count("\n")
    assert (("I5806", first + 8) in found and ("I5701", first + 19) in found), found
    assert "the Parameter `self.gamma`" in next(f.message for f in _lint(source) if f.rule.id == "I5806")


def test_values_through_primitive_tuples_layer_factories_and_generators():
    """What graph code gets from calls the analysis follows to their making: an inherited Primitive attribute
    (``self.layer_norm`` of an ``nn.LayerNorm`` subclass is ``ops.LayerNorm``, whose result is a tuple of Tensors:
    generated.primitive_outputs), a ``SequentialCell`` a method of the class builds (``self._make_layer(...)``), one
    built from an ``OrderedDict`` filled item by item, and ``sum`` of a generator of Tensors. Each condition on them
    is a Tensor condition (I5806), reported at its line."""
    source = (
        "from collections import OrderedDict\n"
        "\n"
        "\n"
        "class Norm(nn.LayerNorm):\n"
        "    def construct(self, x):\n"
        "        y, _, _ = self.layer_norm(x, self.gamma, self.beta)\n"
        "        if y.sum() > 1:\n"
        "            y = y * 2\n"
        "        return y\n"
        "\n"
        "\n"
        "class Block(nn.Cell):\n"
        "    def __init__(self, c):\n"
        "        super().__init__()\n"
        "        self.fc = nn.Dense(c, c)\n"
        "\n"
        "    def construct(self, x):\n"
        "        return self.fc(x)\n"
        "\n"
        "\n"
        "class Net(nn.Cell):\n"
        "    def __init__(self, c=4, n=2):\n"
        "        super().__init__()\n"
        "        self.stage = self._make_stage(c, n)\n"
        "        layers = OrderedDict()\n"
        "        layers['first'] = Block(c)\n"
        "        layers['second'] = Block(c)\n"
        "        self.head = nn.SequentialCell(layers)\n"
        "\n"
        "    def _make_stage(self, c, n):\n"
        "        blocks = []\n"
        "        for _ in range(n):\n"
        "            blocks.append(Block(c))\n"
        "        return nn.SequentialCell(blocks)\n"
        "\n"
        "    def construct(self, x):\n"
        "        y = self.stage(x)\n"
        "        if y.sum() > 0:\n"
        "            y = y * 2\n"
        "        z = self.head(y)\n"
        "        if z.max() > 1:\n"
        "            z = z - 1\n"
        "        if sum(z * i for i in range(3)).mean() > 0:\n"
        "            z = z + 1\n"
        "        return z\n"
    )
    first = PRELUDE.count("\n")
    found = {(f.rule.id, f.line) for f in _lint(source)}
    expected = {("I5806", first + line) for line in (7, 38, 41, 43)}
    assert expected <= found, sorted(found)
