"""Operations whose output shape depends on tensor values (dynamic shape).

Boolean-mask reads (``x[x > 0]``), masked_select, nonzero/argwhere,
unique/unique_consecutive, slices bounded by a runtime value and creation ops
sized by a runtime value. The value analysis decides what is a runtime value
(``Value.var``); bounds and sizes from ``x.shape``, ``len(x)`` and constants
are compile-time numbers and stay quiet. Boolean-mask *assignment*
(``x[mask] = v``) is lowered to Select and keeps a static shape.
"""

from __future__ import annotations

from astroid import nodes
from astroid.const import Context

from graphlint.analysis.engine import Checker
from graphlint.analysis.values import TENSOR, UNKNOWN
from graphlint.checkers.fallback import from_tensor_computation
from graphlint.checkers.walk import graph_nodes

_OPS = ("mindspore.ops.", "mindspore.mint.", "mindspore.numpy.")

# Functions (last part of the qualified name, under mindspore.ops / mint / numpy) and Tensor methods.
MASKED_SELECT = {"masked_select"}
NONZERO = {"nonzero", "argwhere", "flatnonzero"}
UNIQUE = {"unique", "unique_consecutive"}
# Primitive classes (mindspore.ops.X, called on an instance) per rule.
PRIMITIVES = {
    "MaskedSelect": "masked-select",
    "NonZero": "nonzero-indices", "NonZeroExt": "nonzero-indices", "Argwhere": "nonzero-indices",
    "Unique": "unique-values", "UniqueConsecutive": "unique-values",
}

# Creation ops: which positional arguments (None: all) / keywords give the size.
CREATION = {
    "arange": (None, ("start", "end", "step")),
    "range": (None, ("start", "end", "step", "limit", "delta")),
    "zeros": (None, ("size", "shape")),
    "ones": (None, ("size", "shape")),
    "empty": (None, ("size", "shape")),
    "full": ((0,), ("size", "shape")),
    "fill": ((1,), ("shape", "size")),
    "linspace": ((2,), ("steps", "num")),
    "logspace": ((2,), ("steps", "num")),
    "eye": ((0, 1), ("n", "m", "N", "M")),
    "rand": (None, ("size", "shape")),
    "randn": (None, ("size", "shape")),
    "randint": ((2,), ("size", "shape")),
}
CREATION_METHODS = {"new_zeros": (0,), "new_ones": (0,), "new_empty": (0,), "new_full": (0,)}
CREATION_PRIMITIVES = {"Zeros": (0,), "Ones": (0,), "Range": (0, 1, 2), "Fill": (1,), "Eye": (0, 1)}

_BOOL_FUNCTIONS = {
    "logical_and", "logical_or", "logical_not", "logical_xor", "isnan", "isinf", "isfinite", "isneginf",
    "isposinf", "isclose", "eq", "ne", "gt", "ge", "lt", "le", "greater", "greater_equal", "less",
    "less_equal", "equal", "not_equal", "bitwise_and", "bitwise_or", "bitwise_xor", "isreal", "signbit",
}
_BOOL_METHODS = _BOOL_FUNCTIONS | {"bool"}
_BOOL_DTYPES = {"mindspore.bool_", "mindspore.bool"}


class DynamicShapeChecker(Checker):
    family = "dynamic_shape"

    def check_function(self, graph) -> None:
        values = self.context.values(graph)
        if values is None:
            return
        for node in graph_nodes(graph.node):
            if isinstance(node, nodes.Subscript):
                self._check_subscript(graph, values, node)
            elif isinstance(node, nodes.Call):
                self._check_call(graph, values, node)

    # -- indexing -----------------------------------------------------------------
    def _check_subscript(self, graph, values, node: nodes.Subscript) -> None:
        if node.ctx != Context.Load or _is_augassign_target(node):
            return
        base = values.value(node.value)
        if not (base.may_be(TENSOR) and base.var):
            return
        parts = node.slice.elts if isinstance(node.slice, nodes.Tuple) else [node.slice]
        for part in parts:
            if isinstance(part, nodes.Slice):
                for bound in (part.lower, part.upper, part.step):
                    if bound is not None and from_tensor_computation(bound, values, self.context.analysis,
                                                                     numeric=True):
                        self.report("tensor-bounded-slice", node, graph, expr=bound.as_string())
                        return
            elif _is_boolean_tensor(part, values, graph, set()):
                self.report("boolean-mask-index", node, graph)
                return

    # -- calls ----------------------------------------------------------------------
    def _check_call(self, graph, values, call: nodes.Call) -> None:
        func = call.func
        primitive = _primitive(call, graph, values)
        if primitive is not None:
            name = primitive.rsplit(".", 1)[-1]
            if name in PRIMITIVES:
                self.report(PRIMITIVES[name], call, graph, func=f"ops.{name}")
            elif name in CREATION_PRIMITIVES and _sized_by_runtime(
                    call, values, self.context.analysis, CREATION_PRIMITIVES[name], ()):
                self.report("tensor-valued-size", call, graph, func=f"ops.{name}")
            return
        qualified = None
        if not _locally_bound(func, values):
            qualified = graph.info.imports.qualify(func)
        if qualified is not None:
            if not qualified.startswith(_OPS):
                return
            # Rendered only for a finding: as_string() walks the whole callee, so calling it on
            # every link of a long chain `x.a().b()...` costs quadratic time.
            written = func.as_string()
            name = qualified.rsplit(".", 1)[-1]
            if name in MASKED_SELECT:
                self.report("masked-select", call, graph, func=written)
            elif name in NONZERO:
                self.report("nonzero-indices", call, graph, func=written)
            elif name in UNIQUE:
                self.report("unique-values", call, graph, func=written)
            elif name in CREATION:
                positions, keywords = CREATION[name]
                if _sized_by_runtime(call, values, self.context.analysis, positions, keywords):
                    self.report("tensor-valued-size", call, graph, func=written)
            return
        if not isinstance(func, nodes.Attribute):
            return
        method = func.attrname
        if method not in MASKED_SELECT | NONZERO | UNIQUE and method not in CREATION_METHODS:
            return
        receiver = values.value(func.expr)
        if not receiver.var or not (receiver.may_be(TENSOR) or receiver.may_be(UNKNOWN)):
            return
        if method in MASKED_SELECT:
            self.report("masked-select", call, graph, func=f"{func.as_string()}")
        elif method in NONZERO:
            self.report("nonzero-indices", call, graph, func=func.as_string() + "()")
        elif method in UNIQUE:
            self.report("unique-values", call, graph, func=func.as_string() + "()")
        elif receiver.may_be(TENSOR) and _sized_by_runtime(
                call, values, self.context.analysis, CREATION_METHODS[method], ("size",)):
            self.report("tensor-valued-size", call, graph, func=func.as_string())


# -- helpers ------------------------------------------------------------------------
def _is_augassign_target(node) -> bool:
    parent = node.parent
    return isinstance(parent, nodes.AugAssign) and parent.target is node


def _locally_bound(func, values) -> bool:
    base = func
    while isinstance(base, nodes.Attribute):
        base = base.expr
    return isinstance(base, nodes.Name) and base.name in values.cfg.defs_by_name


def _primitive(call: nodes.Call, graph, values) -> str | None:
    """``mindspore.ops.X`` when ``call`` calls a primitive instance: ``P.X()(...)``,
    ``_get_cache_prim(P.X)()(...)`` or ``self.attr(...)`` with ``self.attr = P.X(...)`` set outside graph code."""
    func = call.func
    imports = graph.info.imports
    if isinstance(func, nodes.Call):
        return _primitive_class(func, imports)
    if isinstance(func, nodes.Attribute) and graph.cls is not None and values.self_name is not None \
            and isinstance(func.expr, nodes.Name) and func.expr.name == values.self_name:
        assignments = values.analysis.project.attribute_assignments(graph.cls).get(func.attrname)
        if not assignments:
            return None
        found = set()
        for value, _method in assignments:
            if not isinstance(value, nodes.Call):
                return None
            info = values.analysis.project.info(value.root())
            name = _primitive_class(value, info.imports)
            if name is None:
                return None
            found.add(name)
        return found.pop() if len(found) == 1 else None
    return None


def _primitive_class(maker: nodes.Call, imports) -> str | None:
    """The primitive class a call like ``P.X(...)`` / ``_get_cache_prim(P.X)(...)`` instantiates."""
    target = maker.func
    if isinstance(target, nodes.Call) and target.args and isinstance(target.func, (nodes.Name, nodes.Attribute)) \
            and (imports.local_name(target.func) or "").rsplit(".", 1)[-1] == "_get_cache_prim":
        target = target.args[0]
    qualified = imports.qualify(target) if isinstance(target, (nodes.Name, nodes.Attribute)) else None
    if qualified and qualified.startswith("mindspore.ops.") and qualified.rsplit(".", 1)[-1][:1].isupper():
        return qualified
    return None


def _sized_by_runtime(call: nodes.Call, values, analysis, positions, keywords) -> bool:
    """A size argument of ``call`` is a runtime value computed from a Tensor."""
    args = [a for a in call.args if not isinstance(a, nodes.Starred)]
    chosen = args if positions is None else [args[i] for i in positions if i < len(args)]
    chosen += [k.value for k in call.keywords or () if k.arg in keywords]
    return any(from_tensor_computation(arg, values, analysis, numeric=True) for arg in chosen)


def _is_boolean_tensor(expr, values, graph, seen: set) -> bool:
    """``expr`` is a boolean Tensor: a comparison of a runtime value, ``~m``, ``a & b``,
    ``ops.logical_*`` ..., ``.astype(ms.bool_)``, or a local name bound only to such expressions."""
    value = values.value(expr)
    if not (value.var and value.may_be(TENSOR)):
        return False
    if isinstance(expr, nodes.Compare):
        return all(op not in ("is", "is not", "in", "not in") for op, _ in expr.ops)
    if isinstance(expr, nodes.UnaryOp) and expr.op == "~":
        return _is_boolean_tensor(expr.operand, values, graph, seen)
    if isinstance(expr, nodes.BinOp) and expr.op in ("&", "|", "^"):
        return any(_is_boolean_tensor(side, values, graph, seen) for side in (expr.left, expr.right))
    if isinstance(expr, nodes.Call):
        func = expr.func
        imports = graph.info.imports
        qualified = None if _locally_bound(func, values) else imports.qualify(func)
        if qualified is not None:
            name = qualified.rsplit(".", 1)[-1]
            if qualified.startswith(_OPS) and name in _BOOL_FUNCTIONS:
                return True
            if qualified.startswith(_OPS) and name == "cast" and len(expr.args) > 1:
                return _is_bool_dtype(expr.args[1], imports)
            return False
        if isinstance(func, nodes.Attribute):
            if func.attrname in _BOOL_METHODS:
                return True
            if func.attrname in ("astype", "to") and expr.args:
                return _is_bool_dtype(expr.args[0], imports)
        return False
    if isinstance(expr, nodes.Name) and expr.name not in seen:
        element = values.cfg.element_of(expr)
        if element is None:
            return False
        definitions = values.cfg.reaching(element, expr.name)
        if not definitions or any(d.kind not in ("assign", "walrus") or d.value is None for d in definitions):
            return False
        seen = seen | {expr.name}
        return all(_is_boolean_tensor(d.value, values, graph, seen) for d in definitions)
    return False


def _is_bool_dtype(expr, imports) -> bool:
    """``ms.bool_``, ``mindspore.bool``, ``bool`` or ``"bool"``."""
    if isinstance(expr, nodes.Const):
        return expr.value == "bool"
    if isinstance(expr, nodes.Name) and expr.name == "bool":
        return True
    return imports.qualify(expr) in _BOOL_DTYPES


CHECKER = DynamicShapeChecker
