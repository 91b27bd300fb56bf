"""`x += v` on a Tensor alias -> `x = x + v`: what PYNATIVE_MODE does anyway, so the graph stops writing in place."""

from __future__ import annotations

import libcst as cst

from graphlint.catalogue import inplace as inplace_rules
from graphlint.catalogue.model import FixSafety
from graphlint.fixers.base import Fixer

_OPERATORS = {
    cst.AddAssign: cst.Add, cst.SubtractAssign: cst.Subtract, cst.MultiplyAssign: cst.Multiply,
    cst.DivideAssign: cst.Divide, cst.FloorDivideAssign: cst.FloorDivide, cst.ModuloAssign: cst.Modulo,
    cst.PowerAssign: cst.Power, cst.MatrixMultiplyAssign: cst.MatrixMultiply,
    cst.BitAndAssign: cst.BitAnd, cst.BitOrAssign: cst.BitOr, cst.BitXorAssign: cst.BitXor,
    cst.LeftShiftAssign: cst.LeftShift, cst.RightShiftAssign: cst.RightShift,
}
# Expressions that bind at least as tightly as any binary operator: no parentheses needed.
_ATOMS = (cst.Name, cst.Attribute, cst.Call, cst.Subscript, cst.Integer, cst.Float, cst.Imaginary,
          cst.SimpleString, cst.ConcatenatedString, cst.FormattedString, cst.Tuple, cst.List, cst.Dict, cst.Set,
          cst.ListComp, cst.SetComp, cst.DictComp, cst.GeneratorExp)


_PRECEDENCE = {
    cst.Power: 7, cst.Multiply: 5, cst.Divide: 5, cst.FloorDivide: 5, cst.Modulo: 5, cst.MatrixMultiply: 5,
    cst.Add: 4, cst.Subtract: 4, cst.LeftShift: 3, cst.RightShift: 3, cst.BitAnd: 2, cst.BitXor: 1, cst.BitOr: 0,
}


def parenthesized(expression: cst.BaseExpression, operator: cst.BaseBinaryOp) -> cst.BaseExpression:
    """``expression`` as the right operand of ``operator``, in parentheses only where precedence needs them
    (equal precedence keeps them: ``x - (a - b)``, and float ``x + (a + b)`` is not ``x + a + b``)."""
    if isinstance(expression, _ATOMS) or expression.lpar:
        return expression
    if isinstance(expression, cst.BinaryOperation):
        inner = _PRECEDENCE.get(type(expression.operator), -1)
        if inner > _PRECEDENCE.get(type(operator), 8):
            return expression
    elif isinstance(expression, cst.UnaryOperation) and not isinstance(expression.operator, cst.Not):
        if _PRECEDENCE.get(type(operator), 8) < 6:
            return expression
    return expression.with_changes(lpar=[cst.LeftParen()], rpar=[cst.RightParen()])


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
        value = cst.BinaryOperation(left=node.target, operator=operator(), right=parenthesized(node.value, operator()))
        replacement = cst.Assign(targets=[cst.AssignTarget(target=node.target)], value=value,
                                 semicolon=node.semicolon)
        target = node.target.value
        symbol = _symbol(node)
        return self.edit(finding, [(node, replacement)],
                         description=f"`{target} {symbol}= ...` -> `{target} = {target} {symbol} ...`")


def _symbol(node: cst.AugAssign) -> str:
    return cst.Module([]).code_for_node(node.operator).strip().rstrip("=")


FIXERS = (RebindAugmentedAssign(),)
