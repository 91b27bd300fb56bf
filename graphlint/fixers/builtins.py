"""Fixes of the builtins family: `reversed(...)` iterated in graph code -> a slice or a descending `range`.

``for layer in reversed(self.layers)`` -> ``for layer in self.layers[::-1]``; ``reversed(range(n))`` ->
``range(n - 1, -1, -1)``; ``reversed(range(a, b))`` -> ``range(b - 1, a - 1, -1)``. Measured with MindSpore 2.10
(the catalogue's clean examples of E6109 and E6110): the slice of a list, a tuple or a CellList and the
descending range compile at both levels, where `reversed` runs by JIT fallback (wrong values, lost appends,
"the inputs should be constant" at STRICT).

Safe where the reversed items are only iterated (a `for`, a comprehension, `enumerate`/`zip` there, `list()`/
`tuple()`): iterating ``seq[::-1]`` gives the items of ``reversed(seq)`` in the same order. The slice is a copy
taken before the loop where ``reversed`` reads the sequence as it goes: a loop that changes the sequence it
iterates is refused.
"""

from __future__ import annotations

import libcst as cst
from astroid import nodes

from graphlint.analysis.kinds import LIST, TUPLE
from graphlint.analysis.provenance import locally_bound
from graphlint.catalogue import builtins as builtin_rules
from graphlint.catalogue.model import FixSafety
from graphlint.fixers import build
from graphlint.fixers.base import Fixer

_ITERATING_CALLS = ("enumerate", "zip", "list", "tuple")


class ReversedToSlice(Fixer):
    rules = (builtin_rules.REVERSED_ITERATION_BREAKS, builtin_rules.REVERSED_CELL_SEQUENCE,
             builtin_rules.BUILTIN_FALLS_BACK)
    safety = FixSafety.SAFE
    description = "`reversed(seq)` -> `seq[::-1]`, `reversed(range(n))` -> `range(n - 1, -1, -1)`"

    def plan(self, finding, context):
        call = finding.node
        if not (isinstance(call, nodes.Call) and isinstance(call.func, nodes.Name) and call.func.name == "reversed"
                and len(call.args) == 1 and not call.keywords):
            return None  # another builtin (W6102 also reports `sorted`, `all`, ...): the rule's advice stands
        values = context.values_of(finding)
        if values is None:
            return self.refuse(finding, "no analysis of the graph code: what `reversed` takes is unknown")
        if locally_bound(call.func, values):
            return self.refuse(finding, "`reversed` is a name of this code, not the builtin")
        argument = call.args[0]
        loop = _iterating_statement(call)
        if loop is None:
            return self.refuse(finding, "`reversed(...)` is used as a value, not only iterated: a slice is a list, "
                                        "not an iterator; iterate the slice `seq[::-1]` by hand")
        node = context.find(call)
        if not isinstance(node, cst.Call) or len(node.args) != 1:
            return self.refuse(finding, "the `reversed(...)` call was not found")
        inner = node.args[0].value
        if isinstance(argument, nodes.Call) and isinstance(argument.func, nodes.Name) and argument.func.name == "range" \
                and not locally_bound(argument.func, values):
            return self._descending_range(finding, context, node, argument, inner, values)
        value = values.value(argument)
        if finding.rule is not builtin_rules.REVERSED_CELL_SEQUENCE and not (value.is_(LIST) or value.is_(TUPLE)):
            kinds = " or ".join(sorted(value.kinds)) or "unknown"
            return self.refuse(finding, f"`{argument.as_string()}` is not proven a list or a tuple (the analysis "
                                        f"finds: {kinds}): its slice may not be its items in reverse order")
        changed = _changed_in(loop, argument)
        if changed:
            return self.refuse(finding, f"the loop changes `{argument.as_string()}` ({changed}) while `reversed` "
                                        "reads it: a slice is a copy taken before the loop; rewrite by hand")
        sliced = cst.Subscript(value=build.operand(inner, build.PRIMARY), slice=[cst.SubscriptElement(
            slice=cst.Slice(lower=None, upper=None, step=build.integer(-1),
                            second_colon=cst.Colon()))])
        sliced = sliced.with_changes(lpar=node.lpar, rpar=node.rpar)
        text = argument.as_string()
        return self.edit(finding, [(node, sliced)], description=f"`reversed({text})` -> `{text}[::-1]`")

    def _descending_range(self, finding, context, node, argument: nodes.Call, inner, values):
        if argument.keywords or not 1 <= len(argument.args) <= 2 or not isinstance(inner, cst.Call) \
                or any(isinstance(a, nodes.Starred) for a in argument.args):
            return self.refuse(finding, "only `reversed(range(stop))` and `reversed(range(start, stop))` are "
                                        "rewritten: with a step, write the descending range by hand")
        bounds = [a.value for a in inner.args]
        if len(bounds) == 1:
            start, stop = None, bounds[0]
        else:
            start, stop = bounds
            called = [a.as_string() for a in argument.args
                      if any(not _pure_builtin(c, values) for c in a.nodes_of_class(nodes.Call))]
            if called:
                # `range(b - 1, a - 1, -1)` evaluates `b` before `a`
                return self.refuse(finding, f"`{called[0]}` calls a function, and the descending range evaluates "
                                            "the bounds in the other order: bind the bounds to names first")
        first, last = _minus_one(stop), build.integer(-1) if start is None else _minus_one(start)
        descending = build.call(inner.func, first, last, build.integer(-1))
        descending = descending.with_changes(lpar=node.lpar, rpar=node.rpar)
        text = argument.as_string()
        return self.edit(finding, [(node, descending)],
                         description=f"`reversed({text})` -> `{context.code(descending)}`")


def _minus_one(bound: cst.BaseExpression) -> cst.BaseExpression:
    """``bound - 1``, folded for an integer literal."""
    if isinstance(bound, cst.Integer) and not bound.lpar:
        return build.integer(int(bound.evaluated_value) - 1)
    return build.binary(bound, "-", cst.Integer("1"))


def _pure_builtin(call: nodes.Call, values) -> bool:
    """``call`` is the builtin `len` (no side effect, whatever order it runs in)."""
    return isinstance(call.func, nodes.Name) and call.func.name == "len" and not locally_bound(call.func, values)


def _iterating_statement(call: nodes.Call):
    """The `for` loop or comprehension that iterates ``call`` (directly, or through `enumerate`/`zip`, or the
    list/tuple built from it); None when the reversed items are used otherwise."""
    holder, inner = call.parent, call
    if isinstance(holder, nodes.Call) and isinstance(holder.func, nodes.Name) \
            and holder.func.name in _ITERATING_CALLS and inner in holder.args and not holder.keywords:
        if holder.func.name in ("list", "tuple"):
            return holder  # the items, copied: nothing reads the sequence later
        holder, inner = holder.parent, holder
    if isinstance(holder, nodes.Comprehension) and holder.iter is inner:
        return holder.parent
    if isinstance(holder, nodes.For) and holder.iter is inner:
        return holder
    return None


def _changed_in(loop, argument) -> str:
    """How the body of ``loop`` changes the sequence ``argument`` names ('' when it does not, or when the
    iteration is no loop)."""
    if not isinstance(loop, (nodes.For, nodes.ListComp, nodes.SetComp, nodes.DictComp, nodes.GeneratorExp)):
        return ""
    text = argument.as_string()
    body = loop.body if isinstance(loop, nodes.For) else [loop]
    for statement in body:
        for node in statement.nodes_of_class((nodes.Call, nodes.AssignName, nodes.AssignAttr, nodes.Delete,
                                              nodes.AugAssign)):
            if isinstance(node, nodes.Call) and isinstance(node.func, nodes.Attribute) \
                    and node.func.expr.as_string() == text:
                return f"`{node.func.as_string()}(...)`"
            if isinstance(node, (nodes.AssignName, nodes.AssignAttr)) and node.as_string() == text:
                return "it is assigned"
            if isinstance(node, nodes.Delete) and any(text in target.as_string() for target in node.targets):
                return "`del`"
            if isinstance(node, nodes.AugAssign) and node.target.as_string().startswith(text):
                return f"`{node.as_string()}`"
    return ""


FIXERS = (ReversedToSlice(),)
