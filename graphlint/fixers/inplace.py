"""`x += v` on a Tensor alias -> `x = x + v`: what PYNATIVE_MODE does anyway, so the graph stops writing in place."""

from __future__ import annotations

import libcst as cst

from graphlint.catalogue import inplace as inplace_rules
from graphlint.catalogue.model import FixSafety
from graphlint.fixers import build
from graphlint.fixers.base import Fixer

_OPERATORS = {
    cst.AddAssign: cst.Add, cst.SubtractAssign: cst.Subtract, cst.MultiplyAssign: cst.Multiply,
    cst.DivideAssign: cst.Divide, cst.FloorDivideAssign: cst.FloorDivide, cst.ModuloAssign: cst.Modulo,
    cst.PowerAssign: cst.Power, cst.MatrixMultiplyAssign: cst.MatrixMultiply,
    cst.BitAndAssign: cst.BitAnd, cst.BitOrAssign: cst.BitOr, cst.BitXorAssign: cst.BitXor,
    cst.LeftShiftAssign: cst.LeftShift, cst.RightShiftAssign: cst.RightShift,
}
class RebindAugmentedAssign(Fixer):
    rules = (inplace_rules.AUGMENTED_ASSIGN_TO_INPUT, inplace_rules.AUGMENTED_ASSIGN_TO_CONSTANT_TENSOR,
             inplace_rules.AUGMENTED_ASSIGN_TO_ATTRIBUTE_ALIAS)
    safety = FixSafety.SAFE
    description = "`x op= v` -> `x = x op v`"

    def plan(self, finding, context):
        node = context.find(finding.node)
        if not isinstance(node, cst.AugAssign) or not isinstance(node.target, cst.Name):
            return self.refuse(finding, "only `name op= value` is rewritten")
        operator = _OPERATORS.get(type(node.operator))
        if operator is None:
            return self.refuse(finding, "unknown operator")
        value = build.binary(node.target, operator(), node.value)  # parenthesised by precedence
        replacement = cst.Assign(targets=[cst.AssignTarget(target=node.target)], value=value,
                                 semicolon=node.semicolon)
        target = node.target.value
        symbol = _symbol(node)
        return self.edit(finding, [(node, replacement)],
                         description=f"`{target} {symbol}= ...` -> `{target} = {target} {symbol} ...`")


def _symbol(node: cst.AugAssign) -> str:
    return cst.Module([]).code_for_node(node.operator).strip().rstrip("=")


FIXERS = (RebindAugmentedAssign(),)
