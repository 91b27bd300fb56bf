"""`x.max(1)` taken apart as (values, indices) -> `x.max(dim=1)`: the binding PYNATIVE_MODE gave it.

PYNATIVE_MODE binds the positional arguments of ``Tensor.max`` / ``Tensor.min`` to ``(dim, keepdim)`` and
returns the pair; graph code binds them to ``(axis, keepdims)`` and returns the values only. Naming them
``dim=`` / ``keepdim=`` asks for the pair in both modes. Safe, measured with MindSpore 2.10 CPU:
``x.max(dim=1)`` and ``x.min(dim=0, keepdim=True)`` return PYNATIVE's values and indices in GRAPH_MODE (lax and
STRICT), where ``x.min(0, True)`` unpacked fails to compile.
"""

from __future__ import annotations

import libcst as cst

from graphlint.catalogue import divergence as divergence_rules
from graphlint.catalogue.model import FixSafety
from graphlint.fixers.base import Fixer

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


FIXERS = (NamePairArguments(),)
