"""What MindSpore's type inference joins where a run-time condition merges two values, and when it cannot.

Under a Tensor condition both branches of an `if` (a conditional expression, the returns of a function, the
carry of a Tensor `while`) are compiled and their values joined: they must agree in kind, tuple length and
Tensor dtype (measured with MindSpore 2.10: "Cannot join the return values of different branches" and
friends). A value's *shape* here is what the join compares:

* ``("tensor", dtype)``: dtype a name ("int32"), ``("of", name)`` (the dtype of argument ``name``),
  ``("cast", name, source dtype)``, or None when unknown;
* ``("none",)``, ``("scalar", kind)``, ``(kind, items)`` for a tuple/list (items None when unknown);
* None when nothing is known.

Rules about joins (the branches checker) and rewrites that merge branches into one value (the select fixer)
both ask here.
"""

from __future__ import annotations

from astroid import nodes

from graphlint.analysis import api
from graphlint.analysis.kinds import BOOL, FLOAT, INT, LIST, NONE, STR, TENSOR, TUPLE
from graphlint.analysis.lattice import Value

# Why two shapes cannot join.
NONE_AND_TENSOR, TYPE_MISMATCH, TUPLE_LENGTHS = "none-and-tensor", "type-mismatch", "tuple-lengths"
_SCALAR_KINDS = {INT, FLOAT, BOOL, STR}
_ARTICLE = {INT: "an int", FLOAT: "a float", BOOL: "a bool", STR: "a str", TUPLE: "a tuple", LIST: "a list",
            NONE: "None", TENSOR: "a Tensor"}


class Shapes:
    """Shapes and dtypes of the values of one graph function, memoised."""

    def __init__(self, values):
        self.values = values
        self._def_shapes: dict[int, object] = {}
        self._assumed: tuple[str, object] | None = None

    def carried_shape(self, definition, name: str, entry_shape):
        """The shape of a loop body's ``definition`` of ``name`` in the first step, when ``name`` comes in as
        ``entry_shape`` (the value it has before the loop): ``y = y - 0.5`` on an int32 ``y`` is float32."""
        if definition.kind != "assign" or definition.value is None or entry_shape is None \
                or entry_shape[0] != "tensor" or _concrete(entry_shape[1]) is None:
            return self.definition_shape(definition)
        self._assumed = (name, entry_shape[1])
        try:
            return self.expr_shape(definition.value)
        finally:
            self._assumed = None

    def definitions_shape(self, definitions):
        shapes = {self.definition_shape(d) for d in definitions}
        if len(shapes) == 1:
            return shapes.pop()
        kinds = {s[0] for s in shapes if s is not None}
        if None in shapes or len(kinds) != 1:
            return None
        kind = kinds.pop()
        if kind == "tensor":
            return ("tensor", None)
        return None

    def definition_shape(self, definition):
        if definition.index not in self._def_shapes:
            self._def_shapes[definition.index] = self._def_shape_uncached(definition)
        return self._def_shapes[definition.index]

    def _def_shape_uncached(self, definition):
        if definition.kind in ("assign", "walrus") and definition.value is not None and \
                not isinstance(definition.element.node, nodes.For):
            return self.expr_shape(definition.value)
        return value_shape(self.values.def_values.get(definition.index))

    def expr_shape(self, expr, depth=0):
        value = self.values.value(expr)
        if isinstance(expr, (nodes.Tuple, nodes.List)) and not any(isinstance(e, nodes.Starred) for e in expr.elts):
            kind = "tuple" if isinstance(expr, nodes.Tuple) else "list"
            return (kind, tuple(self.expr_shape(e, depth + 1) for e in expr.elts))
        shape = value_shape(value)
        if shape is not None and shape[0] == "tensor":
            return ("tensor", self.dtype(expr, 0))
        return shape

    # -- dtypes: a concrete name ("int32"), ("of", root) for "the dtype of argument root", or None
    def _held_primitive(self, func) -> str | None:
        """The Primitive class (``mindspore.ops.Cast``) whose instance ``self.<attr>`` holds, set in ``__init__``."""
        values = self.values
        if isinstance(func, nodes.Attribute) and isinstance(func.expr, nodes.Name) and values.cls is not None \
                and func.expr.name == values.self_name:
            return values.analysis.attribute_primitive(values.cls, func.attrname)
        return None

    def dtype(self, expr, depth=0):
        if depth > 8 or expr is None:
            return None
        if isinstance(expr, nodes.Name):
            return self._name_dtype(expr, depth)
        if isinstance(expr, nodes.Call):
            return self._call_dtype(expr, depth)
        if isinstance(expr, nodes.Compare):
            value = self.values.value(expr)
            if value.is_tensor and all(op in ("<", "<=", ">", ">=", "==", "!=") for op, _ in expr.ops):
                return "bool_"
            return None
        if isinstance(expr, nodes.BinOp):
            return self._binop_dtype(expr.left, expr.right, depth, expr.op)
        if isinstance(expr, nodes.Subscript):
            if self.values.value(expr.value).is_tensor:
                return self.dtype(expr.value, depth + 1)
            return None
        if isinstance(expr, nodes.UnaryOp) and expr.op == "-":
            return self.dtype(expr.operand, depth + 1)
        return None

    def _name_dtype(self, expr: nodes.Name, depth):
        """The dtype of a name: of its one reaching definition (a Tensor parameter's own, ``("of", name)``)."""
        element = self.values.cfg.element_of(expr)
        if element is None:
            return None
        defs = self.values.cfg.reaching(element, expr.name)
        if self._assumed is not None and self._assumed[0] == expr.name and len(defs) > 1:
            return self._assumed[1]
        if len(defs) != 1:
            return None
        d = defs[0]
        if d.kind == "param":
            value = self.values.def_values.get(d.index)
            return ("of", expr.name) if value is not None and value.is_tensor else None
        if d.kind == "assign" and d.value is not None:
            return self.dtype(d.value, depth + 1)
        return None

    def _call_dtype(self, expr: nodes.Call, depth):
        """The dtype of a cast (a cast op, a held Cast primitive, ``.astype``), of an op or method keeping its
        input's dtype, or of ``.float()`` / ``.int()`` / ``.bool()``."""
        imports = self.values.imports
        func = expr.func
        qualified = imports.qualify(func) if not (isinstance(func, nodes.Name)
                                                  and func.name in self.values.cfg.defs_by_name) else None
        primitive = imports.qualify(func.func) if isinstance(func, nodes.Call) else self._held_primitive(func)
        if primitive is not None or isinstance(func, nodes.Call):
            # `ops.Cast()(x, t)`, or `self.cast(x, t)` with `self.cast = ops.Cast()` in `__init__`
            if primitive in api.CAST_OPS and len(expr.args) >= 2:
                return self._dtype_constant(expr.args[1], expr.args[0], depth)
            return None
        if qualified in api.CAST_OPS and len(expr.args) >= 2:
            return self._dtype_constant(expr.args[1], expr.args[0], depth)
        if qualified and qualified.startswith("mindspore.ops.") and qualified.rsplit(".", 1)[-1] in api.SAME_DTYPE_OPS \
                and expr.args:
            return self.dtype(expr.args[0], depth + 1)
        if isinstance(func, nodes.Attribute) and qualified is None and self.values.value(func.expr).is_tensor:
            if func.attrname in ("astype", "to") and expr.args:
                return self._dtype_constant(expr.args[0], func.expr, depth)
            if func.attrname in api.SAME_DTYPE_METHODS:
                return self.dtype(func.expr, depth + 1)
            return _METHOD_DTYPES.get(func.attrname)
        return None

    def _binop_dtype(self, left, right, depth, op="*"):
        if left is None or right is None:
            return None
        lv, rv = self.values.value(left), self.values.value(right)
        if lv.is_tensor and rv.is_tensor:
            if op == "/":
                return None  # int Tensors divide to float
            a, b = self.dtype(left, depth + 1), self.dtype(right, depth + 1)
            return a if a == b else None
        tensor_side, other = (left, rv) if lv.is_tensor else (right, lv) if rv.is_tensor else (None, None)
        if tensor_side is None:
            return None
        if op == "/" or other.is_(FLOAT):
            # an integer or bool Tensor with a Python float, or divided: float32 (`y - 0.5` on int32 `y`)
            return "float32" if _concrete(self.dtype(tensor_side, depth + 1)) in _INTEGER_DTYPES else None
        if other.is_(INT) or other.is_(BOOL):
            return self.dtype(tensor_side, depth + 1)
        return None

    def _dtype_constant(self, dtype_expr, source, depth):
        qualified = self.values.imports.qualify(dtype_expr)
        if not qualified or not qualified.startswith("mindspore."):
            return None
        name = qualified.rsplit(".", 1)[-1]
        name = api.DTYPE_ALIASES.get(name, name)
        if name not in api.DTYPE_NAMES:
            return None
        return ("cast", name, self.dtype(source, depth + 1))


# Tensor methods that cast to one dtype.
_METHOD_DTYPES = {"float": "float32", "int": "int32", "bool": "bool_"}


def value_shape(value: Value | None):
    if value is None or len(value.kinds) != 1:
        return None
    kind = next(iter(value.kinds))
    if kind == TENSOR:
        return ("tensor", None)
    if kind == NONE:
        return ("none",)
    if kind in _SCALAR_KINDS:
        return ("scalar", kind)
    if kind in (TUPLE, LIST):
        items = None
        if value.items is not None:
            items = tuple(value_shape(item) for item in value.items)
        return (kind, items)
    return None


def mismatch(a, b, returned):
    """(mismatch kind, kinds text) when shapes ``a`` and ``b`` cannot join where a run-time condition joins
    them, else None. ``returned``: they are return values (scalars of different kinds cannot join there)."""
    if a is None or b is None:
        return None
    ka, kb = a[0], b[0]
    if {ka, kb} == {"tensor", "none"}:
        return (NONE_AND_TENSOR, "")
    if ka == "tensor" and kb == "tensor":
        text = _dtype_mismatch(a[1], b[1])
        return (TYPE_MISMATCH, text) if text else None
    if ka in ("tuple", "list") and kb in ("tuple", "list"):
        return _sequence_mismatch(a, b, returned)
    if "none" in (ka, kb):
        return None
    if ka == "tensor" or kb == "tensor":
        other = b if ka == "tensor" else a
        return (TYPE_MISMATCH, f"a Tensor and {_shape_text(other)}")
    if ka == "scalar" and kb == "scalar":
        if a[1] != b[1] and returned and STR not in (a[1], b[1]):
            return (TYPE_MISMATCH, f"{_ARTICLE[a[1]]} and {_ARTICLE[b[1]]}")
        return None
    if {ka, kb} & {"tuple", "list"} and {ka, kb} & {"scalar"}:
        return (TYPE_MISMATCH, f"{_shape_text(a)} and {_shape_text(b)}")
    return None


def _sequence_mismatch(a, b, returned):
    """:func:`mismatch` of two tuple or list shapes: their kinds, lengths, then their items in order."""
    ka, kb = a[0], b[0]
    if ka != kb:
        return (TYPE_MISMATCH, f"{_ARTICLE[ka]} and {_ARTICLE[kb]}")
    if a[1] is None or b[1] is None:
        return None
    if len(a[1]) != len(b[1]):
        if ka == "tuple" and all(s is not None and s[0] == "tensor" for s in a[1] + b[1]):
            return (TUPLE_LENGTHS, "")
        return None
    for x, y in zip(a[1], b[1]):
        inner = mismatch(x, y, returned)
        if inner is not None:
            kind, text = inner
            if kind == TYPE_MISMATCH:
                text = f"{_ARTICLE[ka]} holding {text}"
            return kind, text
    return None


def _shape_text(shape) -> str:
    if shape[0] == "scalar":
        return _ARTICLE[shape[1]]
    return _ARTICLE.get(shape[0], shape[0])


_INTEGER_DTYPES = frozenset({"int8", "int16", "int32", "int64", "uint8", "uint16", "uint32", "uint64", "bool_"})


def _concrete(dtype) -> str | None:
    """The dtype's name where it is known (a name, or what a cast gives)."""
    if isinstance(dtype, str):
        return dtype
    if isinstance(dtype, tuple) and dtype[0] == "cast":
        return dtype[1]
    return None


def _dtype_mismatch(a, b) -> str | None:
    ca, cb = _concrete(a), _concrete(b)
    if ca and cb:
        return f"{_article(ca)} {_dtype_text(ca)} Tensor and {_article(cb)} {_dtype_text(cb)} Tensor" if ca != cb else None
    # `ops.cast(x, int32)` against `x * 2`: the cast exists because x has another dtype.
    for cast, other in ((a, b), (b, a)):
        if isinstance(cast, tuple) and cast[0] == "cast" and isinstance(other, tuple) and other[0] == "of" \
                and cast[2] == other:
            return f"a Tensor with the dtype of `{other[1]}` and the same Tensor cast to {_dtype_text(cast[1])}"
    return None


def _article(dtype: str) -> str:
    return "an" if dtype.startswith(("int", "uint")) else "a"


def _dtype_text(name: str) -> str:
    return "bool" if name == "bool_" else name


# -- lists whose length a branch decides ----------------------------------------------------------------------

_LENGTH_CHANGES = {"append": 1, "insert": 1, "pop": -1, "remove": -1}


def length_change(statements, name: str) -> int | None:
    """How many elements ``statements`` add to the list ``name`` (``append`` +1, ``pop`` -1 ...); None where the
    count cannot be told (a loop around a change, ``extend`` of a sequence of unknown length, a new binding)."""
    total = 0
    for statement in statements:
        for node in _walk_statement(statement):
            if isinstance(node, (nodes.Assign, nodes.AugAssign, nodes.AnnAssign, nodes.Delete)) and any(
                    isinstance(t, (nodes.AssignName, nodes.DelName)) and t.name == name
                    for t in node.nodes_of_class((nodes.AssignName, nodes.DelName))):
                return None
            if not (isinstance(node, nodes.Call) and isinstance(node.func, nodes.Attribute)
                    and isinstance(node.func.expr, nodes.Name) and node.func.expr.name == name):
                continue
            method = node.func.attrname
            if method == "extend":
                added = node.args[0] if node.args else None
                if not isinstance(added, (nodes.List, nodes.Tuple)) or _inside_loop(node, statement):
                    return None
                total += len(added.elts)
            elif method in _LENGTH_CHANGES:
                if _inside_loop(node, statement):
                    return None
                total += _LENGTH_CHANGES[method]
            elif method == "clear":
                return None
    return total


def resized_unevenly(if_node: nodes.If) -> set[str]:
    """The lists an ``if``'s branches change by different numbers of elements."""
    names = {node.func.expr.name for node in if_node.nodes_of_class(nodes.Call)
             if isinstance(node.func, nodes.Attribute) and isinstance(node.func.expr, nodes.Name)
             and node.func.attrname in set(_LENGTH_CHANGES) | {"extend", "clear"}}
    uneven = set()
    for name in names:
        then, other = length_change(if_node.body, name), length_change(if_node.orelse, name)
        if then is not None and other is not None and then != other:
            uneven.add(name)
    return uneven


def _walk_statement(statement):
    """The nodes of a statement, not entering functions or classes defined in it."""
    stack = [statement]
    while stack:
        node = stack.pop()
        yield node
        if node is not statement and isinstance(node, (nodes.FunctionDef, nodes.ClassDef, nodes.Lambda)):
            continue
        stack.extend(reversed(list(node.get_children())))


def _inside_loop(node, statement) -> bool:
    current = node.parent
    while current is not None and current is not statement.parent:
        if isinstance(current, (nodes.For, nodes.While, nodes.ListComp, nodes.GeneratorExp)):
            return True
        current = current.parent
    return False


def in_condition(node) -> bool:
    """``node`` (an `and`/`or`) is, or is inside a `not`/`and`/`or` of, the test of an `if`, a `while` or a
    conditional expression."""
    child, parent = node, node.parent
    while isinstance(parent, nodes.BoolOp) or (isinstance(parent, nodes.UnaryOp) and parent.op == "not"):
        child, parent = parent, parent.parent
    return isinstance(parent, (nodes.If, nodes.While, nodes.IfExp)) and child is parent.test


def condition_operands_mismatch(values, node: nodes.BoolOp) -> str | None:
    """What cannot join (as :func:`mismatch`'s text: "a Tensor and a bool") where ``node``, an `and`/`or` in a
    condition (:func:`in_condition`), makes graph mode join two of its operands; None where it compiles.

    Measured with MindSpore 2.10 at both levels: the operands are compiled left to right. One that type inference
    decides (a shape, a constant) is folded: it ends the test when it decides it, else it drops out
    (`if x.shape[0] > 2 and x.sum() > 1:` compiles). The first run-time operand becomes a branch whose value
    joins each later operand, as a value `and`/`or` does: a Tensor with a Python value (`x.sum() > 1 and
    x.shape[0] > 2`), a counter a Tensor `while` carries with a Tensor (`while i < 5 and x.sum() > 1:`) stop with
    "Cannot join the return values of different branches"; two bool Tensors join. (`and None` compiles at the
    lax level only: not told here.)"""
    shapes = values.shapes
    first = None
    for operand in node.values:
        if first is None:
            carried = _carried_by_tensor_while(values, operand)
            if values.decided_while_compiling(operand) and not carried:
                if _decides(values.value(operand), node.op):
                    return None  # the test ends here: nothing after it is compiled
                continue
            if not (values.value(operand).var or carried):
                return None  # of unknown kind: whether it folds is not known
            first = shapes.expr_shape(operand)
            if first is None:
                return None
            continue
        other = shapes.expr_shape(operand)
        if other is None or "none" in (first[0], other[0]):
            continue
        verdict = mismatch(first, other, returned=False)
        if verdict is not None and verdict[0] == TYPE_MISMATCH:
            return verdict[1]
    return None


def _carried_by_tensor_while(values, operand) -> bool:
    """``operand`` reads, inside (or in the test of) a `while` on a Tensor condition, a Python number the loop
    changes: a counter the compiled loop carries as a run-time scalar, whatever the analysis knows of its kind (measured:
    `while i < 5 and x.sum() > 1:` with `i += 1` in the body does not fold `i < 5`)."""
    names = {name.name for name in operand.nodes_of_class(nodes.Name)
             if values.value(name).kinds and values.value(name).kinds <= _SCALAR_KINDS}  # a Tensor's shape stays
    if not names:
        return False
    for loop in values.cfg.loops.values():
        if isinstance(loop.node, nodes.While) and loop.node.parent_of(operand) \
                and names & values.cfg.loop_modified(loop) and values.tensor_origin(loop.node.test) is not None:
            return True
    return False


def _decides(value: Value, op: str) -> bool:
    """A decided operand of ``op`` that ends the test: a known false for `and`, a known true for `or`."""
    return value.known and isinstance(value.const, (bool, int, str, type(None))) and bool(value.const) == (op == "or")
