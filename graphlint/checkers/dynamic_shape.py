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

from graphlint.analysis import api, ranks
from graphlint.analysis.kinds import TENSOR, UNKNOWN
from graphlint.analysis.provenance import locally_bound
from graphlint.analysis.tree import graph_nodes
from graphlint.catalogue import dynamic_shape as rules
from graphlint.runner import Checker

# The rule each value-dependent Primitive class (mindspore.ops.X, called on an instance) is reported by.
PRIMITIVES = {
    **{name: rules.MASKED_SELECT for name in api.MASKED_SELECT_PRIMITIVES},
    **{name: rules.NONZERO_INDICES for name in api.NONZERO_PRIMITIVES},
    **{name: rules.UNIQUE_VALUES for name in api.UNIQUE_PRIMITIVES},
}


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
        if node.ctx == Context.Store:
            self._masked_assignment(graph, values, node)
            return
        if node.ctx != Context.Load or _is_augassign_target(node):
            return
        base = values.value(node.value)
        if not (base.may_be(TENSOR) and base.var):
            return
        parts = node.slice.elts if isinstance(node.slice, nodes.Tuple) else [node.slice]
        for part in parts:
            if isinstance(part, nodes.Slice):
                for bound in (part.lower, part.upper, part.step):
                    if bound is None:
                        continue
                    if values.from_tensor(bound, numeric=True):
                        self.report(rules.TENSOR_BOUNDED_SLICE, node, graph, expr=bound.as_string())
                        return
                    assumption = values.tensor_assumption(bound)
                    if assumption:
                        self.report(rules.TENSOR_BOUNDED_SLICE, node, graph, expr=bound.as_string(),
                                    assumes=assumption)
                        return
            elif _is_boolean_tensor(part, values, graph, set()):
                self.report(rules.BOOLEAN_MASK_INDEX, node, graph)
                return

    def _masked_assignment(self, graph, values, target: nodes.Subscript) -> None:
        """MASKED_ASSIGNMENT_OF_MASKED_VALUE: ``t[mask] = v[m]``, ``m`` a boolean Tensor, ``t`` of rank 2 or more."""
        assign = target.parent
        if isinstance(assign, nodes.AugAssign) and assign.target is target:
            self._masked_augmented_assignment(graph, values, assign)
            return
        if not (isinstance(assign, nodes.Assign) and assign.targets == [target]):
            return
        value = assign.value
        if not (isinstance(value, nodes.Subscript) and _is_boolean_tensor(value.slice, values, graph, set())
                and _is_boolean_tensor(target.slice, values, graph, set())):
            return
        rank = ranks.rank_of(values, target.value)
        if rank is not None and rank >= api.MASKED_ASSIGNMENT_FAILS_FROM_RANK:
            self.report(rules.MASKED_ASSIGNMENT_OF_MASKED_VALUE, assign, graph, target=target.as_string(),
                        value=value.as_string(), rank=str(rank), mask=target.slice.as_string())

    def _masked_augmented_assignment(self, graph, values, statement: nodes.AugAssign) -> None:
        """MASKED_AUGMENTED_ASSIGNMENT: ``t[mask] += v``, ``t`` a Tensor and ``mask`` a boolean Tensor."""
        target = statement.target
        if not (values.value(target.value).is_tensor and _is_boolean_tensor(target.slice, values, graph, set())):
            return
        tensor, mask = target.value.as_string(), target.slice.as_string()
        self.report(rules.MASKED_AUGMENTED_ASSIGNMENT, statement, graph, target=target.as_string(), op=statement.op,
                    value=statement.value.as_string(), tensor=tensor, mask=mask, binop=statement.op[:-1])

    # -- calls ----------------------------------------------------------------------
    def _scalar_of_data_shaped(self, graph, values, call: nodes.Call) -> None:
        """SCALAR_OF_DATA_SHAPED_TENSOR: `t.item()` / `int(t)` of a Tensor whose shape the data decides."""
        scalar_of = _scalar_taken_from(call, values)
        if scalar_of is not None and values.value(scalar_of).data_shaped and values.value(scalar_of).is_tensor:
            self.report(rules.SCALAR_OF_DATA_SHAPED_TENSOR, call, graph, call=_call_text(call),
                        expr=scalar_of.as_string())

    def _check_call(self, graph, values, call: nodes.Call) -> None:
        func = call.func
        self._scalar_of_data_shaped(graph, values, call)
        primitive = _primitive(call, graph, values)
        if primitive is not None:
            name = primitive.rsplit(".", 1)[-1]
            if name in PRIMITIVES:
                self.report(PRIMITIVES[name], call, graph, func=f"ops.{name}")
            elif name in api.CREATION_PRIMITIVES:
                size = _runtime_size(call, values, api.CREATION_PRIMITIVES[name], ())
                if size is not None:
                    self.report(rules.TENSOR_VALUED_SIZE, call, graph, func=f"ops.{name}", assumes=size)
            return
        qualified = None
        if not locally_bound(func, values):
            qualified = graph.info.imports.qualify(func)
        if qualified is not None:
            if not qualified.startswith(api.OPS_NAMESPACES):
                return
            # Rendered only for a finding: as_string() walks the whole callee, so calling it on
            # every link of a long chain `x.a().b()...` costs quadratic time.
            written = func.as_string()
            name = qualified.rsplit(".", 1)[-1]
            if name in api.MASKED_SELECT_OPS:
                self.report(rules.MASKED_SELECT, call, graph, func=written)
            elif name in api.NONZERO_OPS:
                self.report(rules.NONZERO_INDICES, call, graph, func=written)
            elif name in api.UNIQUE_OPS:
                self.report(rules.UNIQUE_VALUES, call, graph, func=written)
            elif name in api.CREATION_OPS:
                positions, keywords = api.CREATION_OPS[name]
                size = _runtime_size(call, values, positions, keywords)
                if size is not None:
                    self.report(rules.TENSOR_VALUED_SIZE, call, graph, func=written, assumes=size)
            return
        if not isinstance(func, nodes.Attribute):
            return
        method = func.attrname
        if method not in api.MASKED_SELECT_OPS | api.NONZERO_OPS | api.UNIQUE_OPS and method not in api.CREATION_METHODS:
            return
        receiver = values.value(func.expr)
        if not receiver.var or not (receiver.may_be(TENSOR) or receiver.may_be(UNKNOWN)):
            return
        if method in api.MASKED_SELECT_OPS:
            self.report(rules.MASKED_SELECT, call, graph, func=f"{func.as_string()}")
        elif method in api.NONZERO_OPS:
            self.report(rules.NONZERO_INDICES, call, graph, func=func.as_string() + "()")
        elif method in api.UNIQUE_OPS:
            self.report(rules.UNIQUE_VALUES, call, graph, func=func.as_string() + "()")
        elif receiver.may_be(TENSOR):
            size = _runtime_size(call, values, api.CREATION_METHODS[method], ("size",))
            if size is not None:
                self.report(rules.TENSOR_VALUED_SIZE, call, graph, func=func.as_string(), assumes=size)


# -- helpers ------------------------------------------------------------------------
def _is_augassign_target(node) -> bool:
    parent = node.parent
    return isinstance(parent, nodes.AugAssign) and parent.target is node


def _primitive(call: nodes.Call, graph, values) -> str | None:
    """``mindspore.ops.X`` when ``call`` calls a primitive instance: ``P.X()(...)``,
    ``_get_cache_prim(P.X)()(...)`` or ``self.attr(...)`` with ``self.attr = P.X(...)`` set outside graph code."""
    func = call.func
    imports = graph.info.imports
    if isinstance(func, nodes.Call):
        return _primitive_class(func, imports)
    if isinstance(func, nodes.Attribute) and graph.cls is not None and values.self_name is not None \
            and isinstance(func.expr, nodes.Name) and func.expr.name == values.self_name:
        assignments = values.analysis.attribute_assignments(graph.cls).get(func.attrname)
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
    if api.api_kind(qualified) is api.ApiKind.PRIMITIVE:
        return qualified
    return None


def _runtime_size(call: nodes.Call, values, positions, keywords) -> str | None:
    """Whether a size argument of ``call`` is a runtime value computed from a Tensor: "" when it is, what that
    assumes when only an entry parameter nothing in the module describes makes it one (see
    :meth:`FunctionValues.tensor_assumption`), None when no size is."""
    args = [a for a in call.args if not isinstance(a, nodes.Starred)]
    chosen = args if positions is None else [args[i] for i in positions if i < len(args)]
    chosen += [k.value for k in call.keywords or () if k.arg in keywords]
    if any(values.from_tensor(arg, numeric=True) for arg in chosen):
        return ""
    return next((assumption for assumption in map(values.tensor_assumption, chosen) if assumption), None)


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
        return _is_boolean_call(expr, values, graph)
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


def _is_boolean_call(expr: nodes.Call, values, graph) -> bool:
    """``ops.logical_*`` and the other ops giving booleans, a cast to bool, a Tensor method giving booleans."""
    func = expr.func
    imports = graph.info.imports
    qualified = None if locally_bound(func, values) else imports.qualify(func)
    if qualified is not None:
        name = qualified.rsplit(".", 1)[-1]
        if qualified.startswith(api.OPS_NAMESPACES) and name in api.BOOL_RESULT_OPS:
            return True
        if qualified.startswith(api.OPS_NAMESPACES) and name == "cast" and len(expr.args) > 1:
            return _is_bool_dtype(expr.args[1], imports)
        return False
    if isinstance(func, nodes.Attribute):
        if func.attrname in api.BOOL_RESULT_METHODS:
            return True
        if func.attrname in ("astype", "to") and expr.args:
            return _is_bool_dtype(expr.args[0], imports)
    return False


def _is_bool_dtype(expr, imports) -> bool:
    """``ms.bool_``, ``mindspore.bool``, ``bool`` or ``"bool"``."""
    if isinstance(expr, nodes.Const):
        return expr.value == "bool"
    if isinstance(expr, nodes.Name) and expr.name == "bool":
        return True
    return imports.qualify(expr) in api.BOOL_DTYPES


CHECKER = DynamicShapeChecker


def _scalar_taken_from(call: nodes.Call, values):
    """The Tensor expression ``t`` of ``t.item()``, ``int(t)``, ``float(t)``; None for other calls."""
    func = call.func
    if isinstance(func, nodes.Attribute) and func.attrname == "item" and not call.args:
        return func.expr
    if isinstance(func, nodes.Name) and func.name in ("int", "float") and len(call.args) == 1 \
            and func.name not in values.cfg.defs_by_name:
        return call.args[0]
    return None


def _call_text(call: nodes.Call) -> str:
    text = call.as_string()
    return text if len(text) <= 50 else text[:47] + "..."
