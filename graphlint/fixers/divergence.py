"""`x.max(1)` taken apart as (values, indices) -> `x.max(dim=1)`: the binding PYNATIVE_MODE gave it.

PYNATIVE_MODE binds the positional arguments of ``Tensor.max`` / ``Tensor.min`` to ``(dim, keepdim)`` and
returns the pair; graph code binds them to ``(axis, keepdims)`` and returns the values only. Naming them
``dim=`` / ``keepdim=`` asks for the pair in both modes. Safe, measured with MindSpore 2.10 CPU:
``x.max(dim=1)`` and ``x.min(dim=0, keepdim=True)`` return PYNATIVE's values and indices in GRAPH_MODE (lax and
STRICT), where ``x.min(0, True)`` unpacked fails to compile.
"""

from __future__ import annotations

import libcst as cst
from astroid import nodes

from graphlint.analysis import api
from graphlint.catalogue import divergence as divergence_rules
from graphlint.catalogue.model import FixSafety
from graphlint.fixers.base import Fixer, unused_name

_PAIR_KEYWORDS = ("dim", "keepdim")  # PYNATIVE's names for the positional arguments of the pair overload


class NamePairArguments(Fixer):
    rules = (divergence_rules.TENSOR_MAX_POSITIONAL_AXIS,)
    safety = FixSafety.SAFE
    description = "`x.max(axis)` -> `x.max(dim=axis)`, the (values, indices) pair in both modes"

    def plan(self, finding, context):
        call = context.find(finding.node)
        if not isinstance(call, cst.Call) or not isinstance(call.func, cst.Attribute):
            return self.refuse(finding, "the `.max(...)` / `.min(...)` call was not found")
        refusal = self._unnamable(call)
        if refusal:
            return self.refuse(finding, refusal)
        named = [argument.with_changes(keyword=cst.Name(keyword),
                                       equal=cst.AssignEqual(whitespace_before=cst.SimpleWhitespace(""),
                                                             whitespace_after=cst.SimpleWhitespace("")))
                 for keyword, argument in zip(_PAIR_KEYWORDS, call.args)]
        replacement = call.with_changes(args=named)
        return self.edit(finding, [(call, replacement)],
                         description=f"`{context.code(call)}` -> `{context.code(replacement)}`")

    @staticmethod
    def _unnamable(call: cst.Call) -> str:
        """Why the call's arguments cannot all be named after the pair overload ('' when they can)."""
        if any(argument.star or argument.keyword is not None for argument in call.args):
            return "only positional arguments are named; name them `dim=` and `keepdim=` by hand"
        if len(call.args) > len(_PAIR_KEYWORDS):
            return "more than two positional arguments: the pair overload takes only `dim` and `keepdim`"
        return ""


class SwapTwoAxes(Fixer):
    """PyTorch's ``x.transpose(a, b)`` -> ``x.swapaxes(a, b)``: the swap PYNATIVE_MODE made, in both modes (measured
    with MindSpore 2.10: ``swapaxes`` gives PYNATIVE's transpose at lax and STRICT). Safe."""
    rules = (divergence_rules.TENSOR_TRANSPOSE_TWO_AXES,)
    safety = FixSafety.SAFE
    description = "`x.transpose(a, b)` -> `x.swapaxes(a, b)`, PyTorch's swap in both modes"

    def plan(self, finding, context):
        call = context.find(finding.node)
        if not isinstance(call, cst.Call) or not isinstance(call.func, cst.Attribute) \
                or call.func.attr.value != "transpose":
            return self.refuse(finding, "the `.transpose(a, b)` call was not found")
        replacement = call.with_changes(func=call.func.with_changes(attr=cst.Name(api.SWAP_AXES_METHOD)))
        return self.edit(finding, [(call, replacement)],
                         description=f"`{context.code(call)}` -> `{context.code(replacement)}`")


class AttributeToLocal(Fixer):
    """``self.state = v`` in graph code, where the function writes the attribute before it ever reads it and no other
    method but ``__init__`` touches it -> a local ``state = v`` (and every later ``self.state`` of the function ->
    ``state``). Each call starts from the value it assigns, so the calls compute what they did; graph code gets a
    local it compiles (STRICT rejects the write, and a layer's state read back from such an attribute fails).

    Unsafe: the attribute no longer changes after a call, so host code that reads it after the call (a test, a
    logger) sees the value ``__init__`` gave it, or none. A function that reads the attribute before writing it
    (state carried from one call to the next) is refused: that needs a Parameter and ``ops.assign``."""

    rules = (divergence_rules.ATTRIBUTE_WRITE_IN_GRAPH,)  # E5211's state attribute is reported by it too
    safety = FixSafety.UNSAFE
    description = "attribute written before it is read in graph code -> a local"

    def plan(self, finding, context):
        attr = finding.args.get("attr", "")
        graph = finding.graph
        values = context.values_of(finding)
        if not attr or "." in attr or graph is None or graph.cls is None or values is None or not values.self_name:
            return None  # an attribute of another object: the rule's advice stands
        function, self_name = graph.node, values.self_name
        uses = [node for node in function.nodes_of_class((nodes.Attribute, nodes.AssignAttr))
                if node.attrname == attr and isinstance(node.expr, nodes.Name) and node.expr.name == self_name]
        problem = _not_written_first(uses, function, graph.cls, f"{self_name}.{attr}", attr)
        if problem:
            return self.refuse(finding, problem)
        taken = set(function.locals) | {n.name for n in function.nodes_of_class((nodes.Name, nodes.AssignName))} \
            | set(function.root().locals)
        local = unused_name(attr.lstrip("_") or "value", taken)
        replacements = []
        for node in uses:
            found = context.find(node, (cst.Attribute,))
            if found is None:
                return self.refuse(finding, f"a use of `{self_name}.{attr}` was not found")
            replacements.append((found, cst.Name(local, lpar=found.lpar, rpar=found.rpar)))
        return self.edit(finding, replacements, description=f"`{self_name}.{attr}` -> the local `{local}` in "
                                                            f"`{function.name}`")


def _not_written_first(uses, function, cls, shown: str, attr: str) -> str:
    """Why ``uses`` (the function's reads and writes of ``self.attr``) cannot become a local ('' when they can):
    the first one must be a write at the function's top level whose value does not read it, and no other method
    but ``__init__`` may use the attribute."""
    if any(node.scope() is not function for node in uses):
        return f"a nested function or lambda uses `{shown}`: rewrite by hand"
    others = [method.name for method in cls.mymethods() if method is not function and method.name != "__init__"
              and any(node.attrname == attr for node in method.nodes_of_class((nodes.Attribute, nodes.AssignAttr)))]
    if others:
        return (f"`{others[0]}` uses `{attr}` too, and would no longer see what this call assigns: keep the value in "
                "a Parameter (`ops.assign`) by hand")
    first = min(uses, key=lambda node: (node.lineno, node.col_offset)).statement()
    if first.parent is not function:
        return f"`{shown}` is first used under a condition or in a loop: a local would not have a value on every path"
    written = isinstance(first, nodes.Assign) and any(
        node in uses for target in first.targets for node in _targets(target))
    if not written or any(node in uses for node in first.value.nodes_of_class(nodes.Attribute)):
        return (f"the function reads `{shown}` before it writes it: the value carries from one call to the next, "
                "which needs a Parameter and `ops.assign` (by hand)")
    return ""


def _targets(target):
    """The nodes an assignment target binds (the elements of a tuple or list target, recursively)."""
    if isinstance(target, (nodes.Tuple, nodes.List)):
        return [inner for element in target.elts for inner in _targets(element)]
    if isinstance(target, nodes.Starred):
        return _targets(target.value)
    return [target]


FIXERS = (NamePairArguments(), SwapTwoAxes(), AttributeToLocal())
