"""libcst node builders for rewrites: operands parenthesised by precedence, never code assembled as text.

Every builder takes expressions (libcst nodes, usually copied from the user's code) and puts each one where it
goes with the parentheses Python's grammar needs there, so `range(600 if self.big else 700)` becomes
`i < (600 if self.big else 700)`, never `i < 600 if self.big else 700` (which Python reads as
`(i < 600) if self.big else 700`). An expression that spans lines outside brackets gets parentheses too when
it is moved to a statement of its own.
"""

from __future__ import annotations

import libcst as cst

# Python's precedence levels, lowest first (the language reference, "Operator precedence").
NAMED, LAMBDA, IFEXP, OR, AND, NOT, COMPARE, BITOR, BITXOR, BITAND, SHIFT, ARITH, TERM, UNARY, POWER, AWAIT, \
    PRIMARY, ATOM = range(18)

_BINARY = {
    cst.BitOr: BITOR, cst.BitXor: BITXOR, cst.BitAnd: BITAND, cst.LeftShift: SHIFT, cst.RightShift: SHIFT,
    cst.Add: ARITH, cst.Subtract: ARITH, cst.Multiply: TERM, cst.MatrixMultiply: TERM, cst.Divide: TERM,
    cst.FloorDivide: TERM, cst.Modulo: TERM, cst.Power: POWER,
}
_ATOMS = (cst.Name, cst.SimpleString, cst.ConcatenatedString, cst.FormattedString, cst.Float, cst.Imaginary,
          cst.List, cst.Tuple, cst.Dict, cst.Set, cst.ListComp, cst.SetComp, cst.DictComp, cst.GeneratorExp,
          cst.Ellipsis)


def precedence(expr: cst.BaseExpression) -> int:
    """How tightly ``expr`` binds, as written (a parenthesised expression is an atom)."""
    if getattr(expr, "lpar", None):
        return ATOM
    if isinstance(expr, _ATOMS):
        return ATOM
    if isinstance(expr, cst.Integer):
        return PRIMARY  # an atom, except before `.`: `1 .real` (see attribute())
    if isinstance(expr, (cst.Call, cst.Attribute, cst.Subscript)):
        return PRIMARY
    if isinstance(expr, cst.Await):
        return AWAIT
    if isinstance(expr, cst.BinaryOperation):
        return _BINARY[type(expr.operator)]
    if isinstance(expr, cst.UnaryOperation):
        return NOT if isinstance(expr.operator, cst.Not) else UNARY
    if isinstance(expr, cst.Comparison):
        return COMPARE
    if isinstance(expr, cst.BooleanOperation):
        return AND if isinstance(expr.operator, cst.And) else OR
    if isinstance(expr, cst.IfExp):
        return IFEXP
    if isinstance(expr, cst.Lambda):
        return LAMBDA
    return NAMED  # walrus, yield, starred and anything unknown: parenthesise


def parens(expr: cst.BaseExpression) -> cst.BaseExpression:
    return expr.with_changes(lpar=[cst.LeftParen()], rpar=[cst.RightParen()])


def operand(expr: cst.BaseExpression, minimum: int) -> cst.BaseExpression:
    """``expr`` where an expression of at least ``minimum`` precedence is needed (in parentheses if not)."""
    return expr if precedence(expr) >= minimum else parens(expr)


def _multiline(expr: cst.BaseExpression) -> bool:
    return "\n" in cst.Module([]).code_for_node(expr)


def standalone(expr: cst.BaseExpression) -> cst.BaseExpression:
    """``expr`` moved to a place outside any brackets (a statement, a `while` test): an expression whose text
    spans lines is only valid inside brackets, so it gets its own."""
    if not getattr(expr, "lpar", None) and not isinstance(expr, _BRACKETED) and _multiline(expr):
        return parens(expr)
    return expr


_BRACKETED = (cst.List, cst.Dict, cst.Set, cst.ListComp, cst.SetComp, cst.DictComp, cst.GeneratorExp, cst.Call,
              cst.Subscript)


# -- expressions -------------------------------------------------------------------------------------------
def name(text: str) -> cst.Name:
    return cst.Name(text)


def dotted(text: str) -> cst.BaseExpression:
    """``"ms.ops.where"`` -> the Attribute chain (each part an identifier)."""
    parts = text.split(".")
    node: cst.BaseExpression = cst.Name(parts[0])
    for part in parts[1:]:
        node = cst.Attribute(value=node, attr=cst.Name(part))
    return node


def integer(value: int) -> cst.BaseExpression:
    if value < 0:
        return cst.UnaryOperation(operator=cst.Minus(), expression=cst.Integer(str(-value)))
    return cst.Integer(str(value))


def constant(value) -> cst.BaseExpression:
    if value is True or value is False or value is None:
        return cst.Name(repr(value))
    if isinstance(value, int):
        return integer(value)
    if isinstance(value, float) and value == value and abs(value) != float("inf"):
        node = cst.Float(repr(abs(value)))
        return cst.UnaryOperation(operator=cst.Minus(), expression=node) if value < 0 else node
    raise TypeError(f"no literal for {value!r}")


def attribute(value: cst.BaseExpression, attr: str) -> cst.Attribute:
    value = operand(value, PRIMARY)
    if isinstance(value, cst.Integer) and not value.lpar:
        value = parens(value)
    return cst.Attribute(value=value, attr=cst.Name(attr))


def call(func, *args, **keywords) -> cst.Call:
    """``func(*args, **keywords)``; ``func`` a node or a dotted name."""
    if isinstance(func, str):
        func = dotted(func)
    arguments = [cst.Arg(value=operand(a, LAMBDA)) for a in args]
    arguments += [cst.Arg(keyword=cst.Name(k), value=operand(v, LAMBDA),
                          equal=cst.AssignEqual(whitespace_before=cst.SimpleWhitespace(""),
                                                whitespace_after=cst.SimpleWhitespace("")))
                  for k, v in keywords.items()]
    return cst.Call(func=operand(func, PRIMARY), args=_comma_separated(arguments))


def _comma_separated(arguments):
    return [a.with_changes(comma=cst.Comma(whitespace_after=cst.SimpleWhitespace(" ")))
            if index < len(arguments) - 1 else a for index, a in enumerate(arguments)]


def subscript(value: cst.BaseExpression, index: cst.BaseExpression) -> cst.Subscript:
    return cst.Subscript(value=operand(value, PRIMARY),
                         slice=[cst.SubscriptElement(slice=cst.Index(value=operand(index, LAMBDA)))])


_BINARY_OPERATORS = {"+": cst.Add, "-": cst.Subtract, "*": cst.Multiply, "/": cst.Divide, "//": cst.FloorDivide,
                     "%": cst.Modulo, "**": cst.Power, "@": cst.MatrixMultiply, "&": cst.BitAnd, "|": cst.BitOr,
                     "^": cst.BitXor, "<<": cst.LeftShift, ">>": cst.RightShift}
_COMPARE_OPERATORS = {"<": cst.LessThan, "<=": cst.LessThanEqual, ">": cst.GreaterThan,
                      ">=": cst.GreaterThanEqual, "==": cst.Equal, "!=": cst.NotEqual, "is": cst.Is}


def binary(left: cst.BaseExpression, op, right: cst.BaseExpression) -> cst.BinaryOperation:
    """``left op right``; ``op`` a symbol (``"+"``) or a libcst operator node."""
    operator = _BINARY_OPERATORS[op]() if isinstance(op, str) else op
    level = _BINARY[type(operator)]
    if isinstance(operator, cst.Power):  # right-associative, and binds tighter than a unary operator on its left
        left, right = operand(left, AWAIT), operand(right, UNARY)
    else:  # left-associative: an equal level stays bare on the left only (float `x + (a + b)` is not `x + a + b`)
        left, right = operand(left, level), operand(right, level + 1)
    return cst.BinaryOperation(left=left, operator=operator, right=right)


def compare(left: cst.BaseExpression, op: str, right: cst.BaseExpression) -> cst.Comparison:
    """``left op right``: each side above the comparisons (no chaining with a comparison operand)."""
    return cst.Comparison(left=operand(left, BITOR),
                          comparisons=[cst.ComparisonTarget(operator=_COMPARE_OPERATORS[op](),
                                                            comparator=operand(right, BITOR))])


def boolean(left: cst.BaseExpression, op: str, right: cst.BaseExpression) -> cst.BooleanOperation:
    """``left and right`` / ``left or right``, each side parenthesised where it binds more loosely."""
    level, operator = (AND, cst.And()) if op == "and" else (OR, cst.Or())
    return cst.BooleanOperation(left=operand(left, level), operator=operator, right=operand(right, level + 1))


def tuple_of(items, bare: bool = False) -> cst.Tuple:
    """``(a, b)``; ``a, b`` with ``bare`` (a return value or an assignment's right side)."""
    items = [cst.Element(value=operand(i, IFEXP if bare else LAMBDA)) for i in items]
    if len(items) == 1:
        items[0] = items[0].with_changes(comma=cst.Comma())
    node = cst.Tuple(elements=_comma_separated(items))
    return node.with_changes(lpar=[], rpar=[]) if bare and items else node


# -- statements --------------------------------------------------------------------------------------------
def line(small: cst.BaseSmallStatement, leading_lines=()) -> cst.SimpleStatementLine:
    return cst.SimpleStatementLine(body=[small], leading_lines=list(leading_lines))


def assign(target, value: cst.BaseExpression, leading_lines=()) -> cst.SimpleStatementLine:
    """``target = value`` on its own line; ``target`` a name or a node (``outs[i]``, a tuple)."""
    if isinstance(target, str):
        target = cst.Name(target)
    return line(cst.Assign(targets=[cst.AssignTarget(target=target)], value=standalone(value)), leading_lines)


def returns(value: cst.BaseExpression | None) -> cst.SimpleStatementLine:
    return line(cst.Return(value=standalone(value) if value is not None else None,
                           whitespace_after_return=cst.SimpleWhitespace(" " if value is not None else "")))


def while_loop(test: cst.BaseExpression, body: list[cst.BaseStatement], leading_lines=()) -> cst.While:
    return cst.While(test=standalone(test), body=cst.IndentedBlock(body=list(body)), leading_lines=list(leading_lines))


def if_statement(test: cst.BaseExpression, body: list[cst.BaseStatement], leading_lines=()) -> cst.If:
    return cst.If(test=standalone(test), body=cst.IndentedBlock(body=list(body)), leading_lines=list(leading_lines))


def function(name_text: str, params: list[str], body: list[cst.BaseStatement], leading_lines=()) -> cst.FunctionDef:
    parameters = cst.Parameters(params=_comma_separated([cst.Param(name=cst.Name(p)) for p in params]))
    return cst.FunctionDef(name=cst.Name(name_text), params=parameters, body=cst.IndentedBlock(body=list(body)),
                           leading_lines=list(leading_lines))


def rename(expr: cst.CSTNode, names: dict[str, str]) -> cst.CSTNode:
    """``expr`` with reads of the given names replaced (not attributes, keywords or nested scopes)."""
    if not names:
        return expr
    return expr.visit(_Renamer(names))


class _Renamer(cst.CSTTransformer):
    def __init__(self, names: dict[str, str]):
        super().__init__()
        self.names = names

    def leave_Attribute(self, original, updated):
        return updated.with_changes(attr=original.attr)

    def leave_Arg(self, original, updated):
        return updated.with_changes(keyword=original.keyword)

    def visit_Lambda(self, node) -> bool:
        return not (set(p.name.value for p in node.params.params) & set(self.names))

    def leave_Name(self, original, updated):
        replacement = self.names.get(original.value)
        return updated.with_changes(value=replacement) if replacement else updated
