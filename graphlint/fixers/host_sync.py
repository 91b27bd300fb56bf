"""`t.item()` / `t.asnumpy()` kept a Tensor where the Python number is not needed.

A comparison used as a condition compares the Tensor itself; a number that only feeds arithmetic with Tensors
of its own dtype stays a 0-d Tensor.

``if x.sum().item() > 0:`` becomes ``if x.sum() > 0:``: the value never leaves the condition, so it can
stay a Tensor. Only a comparison (``<``, ``<=``, ``>``, ``>=``, ``==``, ``!=``) whose other operands are
numbers or Tensors is rewritten, and only when its result is the test of an ``if``, a ``while`` or a
ternary (possibly under ``not``, ``and``, ``or``); anything else is left alone.

Unsafe, measured with MindSpore 2.10 CPU in PYNATIVE_MODE and GRAPH_MODE: both modes run the rewritten
``if`` (a Tensor condition), and the results match for float32/int32/bool values compared with integer
literals, with other Tensors and in chained comparisons. But the comparison now happens in the Tensor's
dtype instead of Python's float64/int: ``float32(0.1).item() > 0.1`` is True in PYNATIVE_MODE, ``t > 0.1``
is False; a float16 2048 is "< 2049" only as a Python number, and float32 cannot hold every integer
above 2**24.
"""

from __future__ import annotations

import libcst as cst
from astroid import nodes

from graphlint.analysis import api
from graphlint.analysis.kinds import SCALARS, TENSOR, UNKNOWN
from graphlint.analysis.rewrite_facts import tensor_facts
from graphlint.catalogue import fallback as fallback_rules
from graphlint.catalogue import host_sync as host_sync_rules
from graphlint.catalogue.model import FixSafety
from graphlint.fixers.base import Fixer

_HOST_METHODS = api.HOST_ARRAY_METHODS | {"item"}  # the host copies a comparison can do without
_ORDERING = ("<", "<=", ">", ">=", "==", "!=")


class CompareTensorNotHostValue(Fixer):
    rules = (host_sync_rules.TENSOR_ITEM_IN_GRAPH, fallback_rules.ASNUMPY_IN_GRAPH)
    safety = FixSafety.UNSAFE
    description = "drop `.item()` / `.asnumpy()` in a comparison used as a condition"

    def plan(self, finding, context):
        call = finding.node
        if not (isinstance(call, nodes.Call) and isinstance(call.func, nodes.Attribute)
                and call.func.attrname in _HOST_METHODS):
            return None
        comparison = call.parent
        if not isinstance(comparison, nodes.Compare):
            return None  # a value used in arithmetic or returned: the rule's advice is the fix
        method = call.func.attrname
        if any(operator not in _ORDERING for operator, _ in comparison.ops):
            return self.refuse(finding, f"only `<`, `<=`, `>`, `>=`, `==`, `!=` comparisons drop `.{method}()`")
        if not _used_as_condition(comparison):
            return self.refuse(finding, f"the comparison's result is used as a value, not as a condition: "
                                        f"without `.{method}()` it would be a Tensor")
        values = context.analysis.values(finding.graph) \
            if context.analysis is not None and finding.graph is not None else None
        operands = [comparison.left] + [operand for _, operand in comparison.ops]
        for operand in operands:
            if operand is not call and not _number_or_tensor(operand, values):
                return self.refuse(finding, f"`{operand.as_string()}` in the comparison is not known to be a "
                                            "number or a Tensor")
        node = context.find(call)
        if not isinstance(node, cst.Call) or not isinstance(node.func, cst.Attribute):
            return self.refuse(finding, f"the `.{method}()` call was not found")
        receiver = node.func.value
        return self.edit(finding, [(node, receiver.with_changes(lpar=node.lpar or receiver.lpar,
                                                                rpar=node.rpar or receiver.rpar))],
                         description=f"`{context.code(node)}` -> `{context.code(receiver)}` in the condition")


def _used_as_condition(expression: nodes.NodeNG) -> bool:
    """Only the truth of ``expression`` is used: it is (under `not`/`and`/`or`) the test of an if/while/ternary."""
    child, parent = expression, expression.parent
    # `and`/`or` can return the comparison itself: they count only when their own result is a condition.
    while isinstance(parent, nodes.BoolOp) or (isinstance(parent, nodes.UnaryOp) and parent.op == "not"):
        child, parent = parent, parent.parent
    return isinstance(parent, (nodes.If, nodes.While, nodes.IfExp)) and parent.test is child


def _number_or_tensor(operand: nodes.NodeNG, values) -> bool:
    if isinstance(operand, nodes.Const):
        return isinstance(operand.value, (int, float)) and not isinstance(operand.value, bool)
    if isinstance(operand, nodes.UnaryOp) and operand.op in ("-", "+"):
        return _number_or_tensor(operand.operand, values)
    if values is None:
        return False
    if isinstance(operand, nodes.Call) and isinstance(operand.func, nodes.Attribute) \
            and operand.func.attrname in _HOST_METHODS and not operand.args and not operand.keywords:
        operand = operand.func.expr  # another `t.item()`: a number taken from a Tensor
    value = values.value(operand)
    if not value.kinds:
        return False
    if value.kinds <= SCALARS | {TENSOR}:
        return True
    # A runtime value the analysis cannot name (a Cell's output, an entry argument) is a Tensor or a number.
    return value.var and value.kinds <= {TENSOR, UNKNOWN}


_ARITHMETIC = ("+", "-", "*", "/")


class KeepItemTensor(Fixer):
    """``scale = x.max().item(); return x / scale`` -> ``scale = x.max()``.

    Only when the receiver is proven 0-d and every use of the number is an operand of ``+ - * /`` with a Tensor
    proven of the receiver's dtype: then no broadcast (a (1, 1) Tensor would widen the result's shape, where
    its ``.item()`` does not) and no dtype promotion differs. Unsafe all the same: the result is computed from
    the Tensor, not from a Python number (a float64 `float` or an unbounded `int`), and a later edit that
    passes the value to a call, an index or a shape would now hand it a Tensor."""

    rules = (host_sync_rules.TENSOR_ITEM_IN_GRAPH,)
    safety = FixSafety.UNSAFE
    description = "drop `.item()` whose number only feeds arithmetic with Tensors of its dtype"

    def plan(self, finding, context):
        call = finding.node
        if not (isinstance(call, nodes.Call) and isinstance(call.func, nodes.Attribute)
                and call.func.attrname == "item" and not call.args and not call.keywords):
            return None
        if context.analysis is None or finding.graph is None:
            return self.refuse(finding, "no analysis of the graph code: the receiver's shape and dtype are unknown")
        refusal = self._unprovable(call, tensor_facts(context.analysis.values(finding.graph)))
        if refusal:
            return self.refuse(finding, refusal)
        node = context.find(call)
        if not isinstance(node, cst.Call) or not isinstance(node.func, cst.Attribute):
            return self.refuse(finding, "the `.item()` call was not found")
        receiver = node.func.value
        return self.edit(finding, [(node, receiver.with_changes(lpar=node.lpar or receiver.lpar,
                                                                rpar=node.rpar or receiver.rpar))],
                         description=f"`{context.code(node)}` -> `{context.code(receiver)}`, a 0-d Tensor")

    @staticmethod
    def _unprovable(call: nodes.Call, facts) -> str:
        """Why keeping the Tensor is not proven to compute what the number did ('' when it is)."""
        receiver = call.func.expr
        text = receiver.as_string()
        if facts.shape(receiver) != ("0d",):
            return (f"`{text}` is not proven 0-d: a one-element Tensor of another shape would broadcast where "
                    f"its number does not; reduce it to 0-d (`{text}.reshape(())`)")
        uses = _number_uses(call)
        if isinstance(uses, str):
            return uses
        dtype = facts.dtype(receiver)
        for use in uses:
            operation = use.parent
            if not isinstance(operation, nodes.BinOp) or operation.op not in _ARITHMETIC:
                return (f"the number is used as `{operation.as_string()}`, not as an operand of `+ - * /`: there "
                        "the Python type may matter (a call, an index, a shape, a graph output)")
            other = operation.right if use is operation.left else operation.left
            if dtype is None or facts.dtype(other) != dtype or not facts.values.value(other).is_tensor:
                return (f"`{other.as_string()}` is not proven a Tensor of `{text}`'s dtype: against a 0-d Tensor "
                        "the result's dtype may be promoted where a Python number keeps the Tensor's")
        return ""


def _number_uses(call: nodes.Call) -> list[nodes.NodeNG] | str:
    """Where the number ``call`` gives is used: the call itself, or the reads of the one name it is assigned
    to (a refusal reason when neither)."""
    parent = call.parent
    if not (isinstance(parent, nodes.Assign) and len(parent.targets) == 1
            and isinstance(parent.targets[0], nodes.AssignName)):
        return [call]
    name = parent.targets[0].name
    function = call.scope()
    if not isinstance(function, nodes.FunctionDef):
        return f"`{name}` is not a local of a function"
    if sum(1 for bound in function.nodes_of_class(nodes.AssignName) if bound.name == name) != 1:
        return f"`{name}` is assigned more than once: rename the number before keeping it a Tensor"
    reads = [read for read in function.nodes_of_class(nodes.Name) if read.name == name]
    return reads or f"`{name}` is never read"


class KeepListTensor(Fixer):
    """``sums = x.sum(axis=1).tolist(); return x * sums[0]`` -> ``sums = x.sum(axis=1)``: each ``sums[k]`` (a constant
    index) is then the 0-d Tensor of that element instead of its number. Only when every use of the list is such
    an element, an operand of ``+ - * /`` with a Tensor proven of the receiver's dtype (no promotion differs).
    Unsafe: the element is computed from the Tensor, not from a Python number; where the receiver has more than
    one axis (its elements are lists, which arithmetic rejects) the Tensor's row broadcasts instead."""

    rules = (host_sync_rules.TENSOR_TOLIST_IN_GRAPH,)
    safety = FixSafety.UNSAFE
    description = "drop `.tolist()` whose elements only feed arithmetic with Tensors of their dtype"

    def plan(self, finding, context):
        call = finding.node
        if not (isinstance(call, nodes.Call) and isinstance(call.func, nodes.Attribute)
                and call.func.attrname == "tolist" and not call.args and not call.keywords):
            return None
        values = context.values_of(finding)
        if values is None:
            return self.refuse(finding, "no analysis of the graph code: the receiver's dtype is unknown")
        facts = tensor_facts(values)
        receiver = call.func.expr
        uses = _number_uses(call)
        if isinstance(uses, str):
            return self.refuse(finding, uses)
        dtype = facts.dtype(receiver)
        for use in uses:
            element = use.parent
            if not (isinstance(element, nodes.Subscript) and element.value is use and _constant_index(element.slice)):
                shown = " ".join(element.as_string().split())[:40]
                return self.refuse(finding, f"the list is used as `{shown}`, not only as its elements `[k]`: keep it "
                                            "a list there")
            operation = element.parent
            if not isinstance(operation, nodes.BinOp) or operation.op not in _ARITHMETIC:
                return self.refuse(finding, f"the element is used as `{operation.as_string()[:40]}`, not as an "
                                            "operand of `+ - * /`")
            other = operation.right if element is operation.left else operation.left
            if dtype is None or facts.dtype(other) != dtype or not values.value(other).is_tensor:
                return self.refuse(finding, f"`{other.as_string()[:40]}` is not proven a Tensor of "
                                            f"`{receiver.as_string()[:40]}`'s dtype")
        node = context.find(call)
        if not isinstance(node, cst.Call) or not isinstance(node.func, cst.Attribute):
            return self.refuse(finding, "the `.tolist()` call was not found")
        kept = node.func.value
        return self.edit(finding, [(node, kept.with_changes(lpar=node.lpar or kept.lpar,
                                                            rpar=node.rpar or kept.rpar))],
                         description=f"`{context.code(node)}` -> `{context.code(kept)}`: its elements stay "
                                     "0-d Tensors")


def _constant_index(index) -> bool:
    if isinstance(index, nodes.UnaryOp) and index.op == "-":
        index = index.operand
    return isinstance(index, nodes.Const) and type(index.value) is int


FIXERS = (CompareTensorNotHostValue(), KeepItemTensor(), KeepListTensor())
