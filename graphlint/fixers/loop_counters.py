"""A Tensor `while` counted by a Tensor made from a constant (E5903) -> the same counter as a Python int.

``i = Tensor(0, ms.int32)`` / ``while i < 3: ...; i = i + 1`` keeps the loop a compiled one, whose carry must
keep its shape; with ``i = 0`` the condition is a Python one and graph mode unrolls the loop (measured in the
catalogue's E5903 text: "the same code with a Python condition is unrolled and compiles"), so the carry may grow
step by step as it does in PYNATIVE_MODE. Only when the counter is read nowhere but in the test and its one
constant step, the bound is a constant, the loop has no `break`/`continue`/`return`, and it runs at most
MAX_STEPS times (each step is compiled). Safe: the loop runs the same steps on the same values.
"""

from __future__ import annotations

import libcst as cst
from astroid import nodes

from graphlint.analysis import api
from graphlint.catalogue import loops as loops_rules
from graphlint.catalogue.model import FixSafety
from graphlint.fixers import build
from graphlint.fixers.base import Fixer

MAX_STEPS = 64
_ORDER = {"<": lambda a, b: a < b, "<=": lambda a, b: a <= b, ">": lambda a, b: a > b, ">=": lambda a, b: a >= b,
          "!=": lambda a, b: a != b}


class TensorCounterToInt(Fixer):
    rules = (loops_rules.TENSOR_WHILE_CARRY_CHANGES_SHAPE,)
    safety = FixSafety.SAFE
    description = "a constant Tensor counter of a `while` -> a Python int"

    def plan(self, finding, context):
        values = context.values_of(finding)
        loop = finding.node.parent if finding.node is not None else None
        while loop is not None and not isinstance(loop, (nodes.While, nodes.FunctionDef)):
            loop = loop.parent
        if values is None or not isinstance(loop, nodes.While):
            return None
        counted = _counter(loop, values)
        if isinstance(counted, str):
            return self.refuse(finding, counted + ": allocate the result at its final size and write rows by index "
                                                  "(by hand)")
        name, start_node, start, _step = counted
        node = context.find(start_node)
        if not isinstance(node, cst.Call):
            return self.refuse(finding, f"the `{name}` Tensor was not found")
        return self.edit(finding, [(node, build.integer(start).with_changes(lpar=node.lpar, rpar=node.rpar))],
                         description=f"`{name} = {start_node.as_string()}` -> `{name} = {start}`: the loop is "
                                     "unrolled")


def _counter(loop: nodes.While, values):
    """(name, the Tensor(...) call, its start, its step) of the loop's counter; else why not (a str)."""
    test = loop.test
    if not (isinstance(test, nodes.Compare) and len(test.ops) == 1 and isinstance(test.left, nodes.Name)
            and test.ops[0][0] in _ORDER):
        return "the condition is not `counter < bound`"
    name, (operator, bound_node) = test.left.name, test.ops[0]
    bound = values.value(bound_node)
    if not (bound.known and not bound.var and type(bound.const) is int):
        return f"`{bound_node.as_string()}` is not a constant int"
    made = _counter_start(loop, name, values)
    if isinstance(made, str):
        return made
    step = _counter_step(loop, name)
    if isinstance(step, str):
        return step
    count, value = 0, made.args[0].value
    while _ORDER[operator](value, bound.const):
        count, value = count + 1, value + step
        if count > MAX_STEPS:
            return f"the loop runs more than {MAX_STEPS} steps, each of which an unrolled loop compiles"
    return name, made, made.args[0].value, step


def _counter_start(loop: nodes.While, name: str, values):
    """The ``Tensor(<int>)`` call that makes the counter once before the loop (else why not, a str)."""
    element = values.cfg.element_of(loop.test)
    starts = [d for d in values.cfg.reaching(element, name) if not _within(d.node, loop)]
    if len(starts) != 1 or starts[0].kind != "assign" or not isinstance(starts[0].value, nodes.Call):
        return f"`{name}` is not made once before the loop"
    made = starts[0].value
    if api.canonical(values.imports.qualify(made.func) or "") not in api.TENSOR_CONSTRUCTORS or not made.args \
            or not isinstance(made.args[0], nodes.Const) or type(made.args[0].value) is not int:
        return f"`{name}` is not `Tensor(<int>)`"
    dtype = made.args[1] if len(made.args) > 1 else next((k.value for k in made.keywords or () if k.arg == "dtype"),
                                                          None)
    if dtype is not None and not (dtype.as_string().rsplit(".", 1)[-1].startswith(("int", "uint"))):
        return f"`{name}` is a `{dtype.as_string()}` Tensor, not an int one"
    return made


def _counter_step(loop: nodes.While, name: str):
    """The counter's one constant step (else why not, a str): one statement of the loop body changes it, nothing
    leaves the loop early, and nothing else reads it."""
    steps = [s for s in loop.nodes_of_class((nodes.Assign, nodes.AugAssign))
             if any(t.name == name for t in s.nodes_of_class(nodes.AssignName))]
    if len(steps) != 1 or steps[0].parent is not loop:
        return f"`{name}` is not changed by one statement of the loop body"
    step = _step(steps[0], name)
    if step is None:
        return f"`{steps[0].as_string()}` is not a constant int step"
    if any(True for _ in loop.nodes_of_class((nodes.Break, nodes.Continue, nodes.Return))):
        return "the loop has a `break`, `continue` or `return`"
    reads = [n for n in loop.scope().nodes_of_class(nodes.Name) if n.name == name]
    allowed = {id(loop.test.left)} | {id(n) for n in steps[0].nodes_of_class(nodes.Name)}
    if any(id(n) not in allowed for n in reads):
        return f"`{name}` is read outside the condition and its step, where an int would differ from a Tensor"
    return step


def _step(statement, name: str):
    if isinstance(statement, nodes.AugAssign) and statement.op in ("+=", "-=") \
            and isinstance(statement.value, nodes.Const) and type(statement.value.value) is int:
        return statement.value.value if statement.op == "+=" else -statement.value.value
    if isinstance(statement, nodes.Assign) and len(statement.targets) == 1 \
            and isinstance(statement.value, nodes.BinOp) and statement.value.op in ("+", "-") \
            and isinstance(statement.value.left, nodes.Name) and statement.value.left.name == name \
            and isinstance(statement.value.right, nodes.Const) and type(statement.value.right.value) is int:
        return statement.value.right.value if statement.value.op == "+" else -statement.value.right.value
    return None


def _within(node, ancestor) -> bool:
    while node is not None:
        if node is ancestor:
            return True
        node = node.parent
    return False


FIXERS = (TensorCounterToInt(),)
