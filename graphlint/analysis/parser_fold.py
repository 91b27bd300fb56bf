"""MindSpore's parser folds a narrow set of `if` conditions while parsing, before any type is known.

A name read after an `if` must be defined in every branch that falls through, unless the parser itself decided
the branch (``Parser::CheckConstantCondition``): a bool ``self.flag``, ``self.attr is None``,
``self.attr == <literal>``, ``self.n > <number>``, ``G.attr`` of a module-level object, a local bound to a
literal, and ``not``/``and``/``or`` of those. Everything else keeps both branches, even a condition that is
constant for type inference (``mask is None``, shapes ...). Measured with MindSpore 2.10.
"""

from __future__ import annotations

from astroid import nodes

from graphlint.analysis.kinds import BOOL, FLOAT, INT, NONE, STR, TENSOR, UNKNOWN
from graphlint.analysis.lattice import Value
from graphlint.analysis.tree import nodes_of_class

FOLD, NO, MAYBE = "fold", "no", "maybe"  # the parser folds it / does not / cannot be told here
NOTHING_KNOWN = object()  # the folded value is not known
_SCALAR_KINDS = {INT, FLOAT, BOOL, STR}


class ParserFold:
    """Which conditions of one graph function the parser folds (see :meth:`status`)."""

    def __init__(self, values):
        self.values = values
        self._assigned_attrs = _attributes_assigned(values.func, values.self_name)

    def status(self, test) -> tuple[str, object]:
        """Whether MindSpore's parser folds ``test`` (and to what, when known)."""
        if isinstance(test, nodes.Const):
            # `if True:` keeps both branches too (measured: "not defined in false branch"); other literals unmeasured
            return (NO if isinstance(test.value, bool) else MAYBE), NOTHING_KNOWN
        if isinstance(test, nodes.UnaryOp) and test.op == "not":
            status, value = self.status(test.operand)
            return status, (not value) if value is not NOTHING_KNOWN else NOTHING_KNOWN
        if isinstance(test, nodes.BoolOp):
            return self._boolop_status(test)
        if isinstance(test, nodes.Compare):
            return self._compare_status(test)
        if isinstance(test, (nodes.Attribute, nodes.Name)):
            status, value = self._operand(test)
            if status != FOLD:
                return status, NOTHING_KNOWN
            if value is None:  # self.training
                return FOLD, NOTHING_KNOWN
            if value.is_(BOOL):
                return FOLD, value.const if value.known else NOTHING_KNOWN
            if UNKNOWN in value.kinds or not value.kinds or BOOL in value.kinds:
                return MAYBE, NOTHING_KNOWN
            return NO, NOTHING_KNOWN
        return NO, NOTHING_KNOWN

    def _boolop_status(self, test: nodes.BoolOp) -> tuple[str, object]:
        """`a and b` / `a or b`: folded when every operand the parser evaluates folds (it stops at the first that
        decides)."""
        maybe = unsure_value = False
        value = NOTHING_KNOWN
        for operand in test.values:
            status, value = self.status(operand)
            if status == NO:
                return (MAYBE if maybe or unsure_value else NO), NOTHING_KNOWN
            if status == MAYBE:
                maybe = True
                continue
            if value is NOTHING_KNOWN:
                unsure_value = True
                continue
            if (test.op == "and" and not value) or (test.op == "or" and value):
                return (MAYBE if maybe or unsure_value else FOLD), value
        return (MAYBE if maybe else FOLD), (NOTHING_KNOWN if unsure_value else value)

    def _compare_status(self, test: nodes.Compare) -> tuple[str, object]:
        """One comparison of an operand the parser reads with None (`is`), a literal (`==`) or a number (`<`)."""
        if len(test.ops) != 1:
            return NO, NOTHING_KNOWN
        left_status, left = self._operand(test.left)
        if left_status == NO:
            return NO, NOTHING_KNOWN
        op, right = test.ops[0]
        if op in ("is", "is not"):
            if isinstance(right, nodes.Const) and right.value is None:
                return (FOLD if left_status == FOLD else MAYBE), NOTHING_KNOWN
            return NO, NOTHING_KNOWN
        if op in ("==", "!="):
            return self._equality_status(left_status, left, right), NOTHING_KNOWN
        if op in ("<", "<=", ">", ">="):
            return _order_status(left_status, left, right), NOTHING_KNOWN
        return NO, NOTHING_KNOWN

    def _equality_status(self, left_status: str, left, right) -> str:
        literal = isinstance(right, nodes.Const) and (right.value is None or isinstance(right.value, (int, float, str)))
        if not literal and (self._operand(right)[0] == NO or isinstance(right, nodes.Name)):
            return NO
        if left_status == MAYBE or left is None:
            return MAYBE
        if left.may_be(TENSOR):
            return NO
        if left.kinds and left.kinds <= _SCALAR_KINDS | {NONE}:
            return FOLD
        return MAYBE

    def _operand(self, expr) -> tuple[str, Value | None]:
        """An operand the parser can read while parsing: ``self.X``, ``G.X``, a local bound to a literal."""
        if isinstance(expr, nodes.Attribute) and isinstance(expr.expr, nodes.Name):
            base = expr.expr.name
            if self.values.self_name is not None and base == self.values.self_name and self.values.cls is not None:
                if expr.attrname in self._assigned_attrs:
                    return NO, None
                if expr.attrname == "training":
                    return FOLD, None
                value = self.values.analysis.self_attribute(self.values.cls, expr.attrname)
                if UNKNOWN in value.kinds or not value.kinds:
                    return MAYBE, value
                return FOLD, value
            if base in self.values.cfg.defs_by_name:
                return NO, None
            return MAYBE, None  # a global object's attribute: its value is not known here
        if isinstance(expr, nodes.Name):
            definitions = [d for d in self.values.cfg.defs_by_name.get(expr.name, ())]
            if not definitions:
                return NO, None  # a bare global name is never folded (measured)
            element = self.values.cfg.element_of(expr)
            reaching = self.values.cfg.reaching(element, expr.name) if element is not None else []
            if reaching and all(d.kind == "assign" and isinstance(d.value, nodes.Const) for d in reaching):
                return FOLD, self.values.def_values.get(reaching[0].index)
            return NO, None
        return NO, None


def _order_status(left_status: str, left, right) -> str:
    """`<`, `<=`, `>`, `>=` against a number literal: folded for a Python number."""
    if isinstance(right, nodes.UnaryOp) and isinstance(right.operand, nodes.Const):
        return MAYBE
    if not (isinstance(right, nodes.Const) and isinstance(right.value, (int, float))
            and not isinstance(right.value, bool)):
        return NO
    if left_status == MAYBE or left is None:
        return MAYBE
    if left.kinds and left.kinds <= {INT, FLOAT}:
        return FOLD
    if UNKNOWN in left.kinds or not left.kinds:
        return MAYBE
    return NO


def _attributes_assigned(func, self_name) -> set[str]:
    found = set()
    if self_name is None:
        return found
    for node in nodes_of_class(func, nodes.AssignAttr):
        if isinstance(node.expr, nodes.Name) and node.expr.name == self_name:
            found.add(node.attrname)
    return found
