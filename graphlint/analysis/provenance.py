"""Where a run-time value comes from: is it computed from a Tensor, or only maybe a Python number?

The value analysis marks every plain parameter of a graph entry as a run-time value (the inputs of a top-level
graph are Tensors), but an outer Cell may pass Python numbers to a sub-Cell; ops applied to constants only are
folded while compiling. Checkers that must not fire on Python numbers ask here.
"""

from __future__ import annotations

from astroid import nodes

from graphlint.analysis import api, signatures
from graphlint.analysis.kinds import NONE, TENSOR
from graphlint.analysis.tree import nodes_of_class

# Where a runtime value comes from (see from_tensor_computation).
TENSOR_SOURCE, PARAMETER_SOURCE, FOLDED_SOURCE = "tensor", "parameter", "folded"


def from_tensor_computation(expr, values, analysis, numeric: bool = False) -> bool:
    """Whether ``expr`` is a runtime value that comes from a Tensor: an op or a Tensor method
    applied to one, a Parameter, a Cell's output, a Tensor argument of the graph ...

    The value analysis takes every plain parameter of a graph entry for a Tensor: right for
    the inputs of a top-level graph, but an outer Cell may pass Python numbers
    (``self.pos(B, H, W)``). With ``numeric`` (the value is read as a number: a size, a slice
    bound, a ``math`` argument) such a parameter does not count on its own; calling a Tensor
    method on it (``x.sum()``) shows it is a Tensor. Parameters of ``jit_class`` methods never
    count on their own. Ops on constants only (``ops.ones((2, 3))``, ``mnp.arange(n)`` with a
    constant ``n``) are folded while compiling and do not count either.
    """
    found = value_sources(expr, values, analysis)
    return TENSOR_SOURCE in found or (not numeric and PARAMETER_SOURCE in found)


def assumed_tensors(expr, values, analysis) -> list[str]:
    """The entry parameters that alone make ``expr`` a runtime value, read as numbers, when nothing in the module
    says what they are: ``expr`` is computed from a Tensor only if they are Tensors. Empty when a Tensor source
    is certain, or ``expr`` is no runtime value."""
    found = value_sources(expr, values, analysis)
    if TENSOR_SOURCE in found:
        return []
    prefix = PARAMETER_SOURCE + ":"
    return sorted(source[len(prefix):] for source in found if source.startswith(prefix))


def value_sources(expr, values, analysis, depth: int = 0, seen: frozenset = frozenset()) -> frozenset:
    """What makes ``expr`` a runtime value: a subset of TENSOR_SOURCE, PARAMETER_SOURCE (a plain
    parameter of a graph entry, maybe a Python number) and FOLDED_SOURCE (an op on constants)."""
    if depth > 40 or not values.value(expr).var:
        return frozenset()

    def sources(e) -> frozenset:
        return value_sources(e, values, analysis, depth + 1, seen) if e is not None else frozenset()

    def union(parts) -> frozenset:
        return frozenset().union(*[sources(p) for p in parts])

    if isinstance(expr, nodes.Name):
        if expr.name in seen:
            return frozenset()
        element = values.cfg.element_of(expr)
        if element is None:
            return frozenset()
        seen = seen | {expr.name}
        stored = [sources(value) for value in _item_stores_before(expr, values)]
        return frozenset().union(*[_definition_sources(d, values, analysis, depth, seen)
                                   for d in values.cfg.reaching(element, expr.name)], *stored)
    if isinstance(expr, nodes.Attribute):
        base = expr.expr
        if isinstance(base, nodes.Name) and base.name == values.self_name:
            return frozenset({TENSOR_SOURCE})  # a Parameter / Tensor attribute
        if expr.attrname in api.TENSOR_METADATA_ATTRIBUTES or (
                values.value(base).may_be(TENSOR) and expr.attrname not in api.TENSOR_VIEW_ATTRIBUTES):
            return frozenset()  # x.shape, x.device, ...: not a value computed in the graph
        return sources(base)
    if isinstance(expr, nodes.Subscript):
        found = sources(expr.value)
        if PARAMETER_SOURCE in found and isinstance(expr.slice, nodes.Tuple):
            found = (found - {PARAMETER_SOURCE}) | {TENSOR_SOURCE}  # x[0, 0]: only a Tensor takes that
        return found | (sources(expr.slice) if not isinstance(expr.slice, nodes.Slice) else frozenset())
    if isinstance(expr, nodes.Call):
        return _call_sources(expr, values, analysis, depth, seen)
    if isinstance(expr, nodes.Lambda):
        return frozenset()
    return union(expr.get_children())


def _item_stores_before(name: nodes.Name, values) -> list:
    """The values stored into items of the object ``name`` holds before it is read (``tensor[i, :h] = img``
    writes ``img`` into a Tensor built from constants: it holds run-time values after it), in source order."""
    stored = []
    for assign in nodes_of_class(values.func, nodes.Assign, skip_klass=(nodes.FunctionDef, nodes.Lambda)):
        if assign.lineno < name.lineno and any(
                isinstance(target, nodes.Subscript) and isinstance(target.value, nodes.Name)
                and target.value.name == name.name for target in assign.targets):
            stored.append(assign.value)
    return stored


def _call_sources(expr: nodes.Call, values, analysis, depth: int, seen: frozenset) -> frozenset:
    """:func:`value_sources` of a call: what its arguments are made of for an op, a pass-through builtin or a
    value-preserving package; its receiver's for a container read; a Tensor for a Tensor method, a Cell or a
    helper."""
    def sources(e) -> frozenset:
        return value_sources(e, values, analysis, depth + 1, seen) if e is not None else frozenset()

    def union(parts) -> frozenset:
        return frozenset().union(*[sources(p) for p in parts])

    func = expr.func
    arguments = [a.value if isinstance(a, nodes.Starred) else a for a in expr.args] + \
        [k.value for k in expr.keywords or ()]
    if isinstance(func, nodes.Name) and func.name in api.PASS_THROUGH_BUILTINS \
            and func.name not in values.cfg.defs_by_name:
        return union(arguments)
    qualified = None if locally_bound(func, values) else values.imports.qualify(func)
    if qualified is not None and qualified.startswith(api.OPS_NAMESPACES + tuple(api.TENSOR_CONSTRUCTORS)):
        found = union(arguments)
        if not found:
            return frozenset({FOLDED_SOURCE})
        if PARAMETER_SOURCE in found and qualified.rsplit(".", 1)[-1] not in api.SIZE_TAKING_OPS:
            found = (found - {PARAMETER_SOURCE}) | {TENSOR_SOURCE}  # an op's input: a Tensor
        return found
    if qualified is not None and qualified.split(".")[0] in api.VALUE_PRESERVING_PACKAGES:
        return union(arguments)  # mindspore.dtype_to_nptype(...), numpy, math ...: what they are given
    receiver_value = values.value(func.expr) if isinstance(func, nodes.Attribute) else None
    if receiver_value is not None and receiver_value.var:
        receiver = sources(func.expr)
        if func.attrname in api.CONTAINER_READ_METHODS:
            return receiver
        if func.attrname in api.TENSOR_SHAPE_METHODS:
            return frozenset()  # x.size(0), x.dim(): compile-time numbers
        if receiver == frozenset({FOLDED_SOURCE}):
            return receiver | union(arguments)
        if receiver_value.kinds - {NONE} == {TENSOR} or func.attrname in api.TENSOR_ONLY_METHODS:
            return frozenset({TENSOR_SOURCE})  # a Tensor method: its receiver is a Tensor
        return frozenset()  # a method of some object (`cache.get_seq_length()`): unknown
    return frozenset({TENSOR_SOURCE})  # a Cell or a helper returning a runtime value


def _definition_sources(definition, values, analysis, depth, seen) -> frozenset:
    def sources(e) -> frozenset:
        return value_sources(e, values, analysis, depth + 1, seen) if e is not None else frozenset()

    kind = definition.kind
    if kind == "param":
        return _parameter_sources(definition.name, values, analysis, depth)
    if kind in ("assign", "walrus"):
        if definition.value is not None:
            return sources(definition.value)
        return sources(getattr(definition.element.node, "value", None))
    if kind == "augassign":
        return sources(definition.value.value) | sources(definition.value.target)
    if kind == "mutate":  # `xs.append(v)`: what xs held, and v
        return sources(definition.value.func.expr) | frozenset().union(*(sources(a) for a in definition.value.args))
    if kind == "for":
        return sources(getattr(definition.element.node, "iter", None))
    return frozenset()


def _parameter_sources(name: str, values, analysis, depth: int) -> frozenset:
    graph = values.graph
    func = graph.node
    args = func.args
    every = list(args.posonlyargs or []) + list(args.args or []) + list(args.kwonlyargs or [])
    annotations = list(args.posonlyargs_annotations or []) + list(args.annotations or []) + \
        list(args.kwonlyargs_annotations or [])
    for arg, annotation in zip(every, annotations):
        if arg.name == name and annotation is not None and "Tensor" in annotation.as_string():
            return frozenset({TENSOR_SOURCE})
    if graph.is_entry:
        if graph.kind == "jit_class":
            return frozenset()
        # (the module's own calls may say it: `Net()(x, Tensor(3))`)
        if analysis.passed_as_tensor(graph, name):
            return frozenset({TENSOR_SOURCE})
        if analysis.parameters_undescribed(graph):
            return frozenset({PARAMETER_SOURCE, f"{PARAMETER_SOURCE}:{name}"})  # (which one: see assumed_tensors)
        return frozenset({PARAMETER_SOURCE})
    # A helper's parameter: what its callers pass.
    found = frozenset()
    for caller, node in analysis.references(func):
        call = node.parent
        if not (isinstance(call, nodes.Call) and call.func is node):
            continue
        caller_values = analysis.values(caller)
        if caller_values is None:
            continue
        passed = signatures.argument_for(func, graph.cls, call, name)
        if passed is not None:
            found |= value_sources(passed, caller_values, analysis, depth + 1)
    return found


def locally_bound(func, values) -> bool:
    """``func`` (or the base of its attribute chain) is a name bound inside the function."""
    base = func
    while isinstance(base, nodes.Attribute):
        base = base.expr
    return isinstance(base, nodes.Name) and base.name in values.cfg.defs_by_name


def tensor_origin(values, test) -> str | None:
    """What makes ``test`` a run-time value decided only when the graph runs (its origin), or None.

    The condition must be a runtime value, and its runtime-ness must come from something known to be a
    Tensor: following the runtime parts of the condition down to their leaves must reach a definite Tensor
    (``x`` in ``x.sum() > 0``, a Parameter, ``ops.rand(())``). Values that are runtime only because their kind
    is unknown (a sub-Cell's output) or maybe-None (``if not return_dict`` on an argument defaulting to None)
    give None."""
    if not values.value(test).var:
        return None
    return _grounded(values, test, 0)


def _grounded(values, expr, depth) -> str | None:
    value = values.value(expr)
    if not value.var or depth > 30:
        return None
    children = [c for c in expr.get_children()
                if not isinstance(c, (nodes.Lambda, nodes.ListComp, nodes.GeneratorExp, nodes.DictComp,
                                      nodes.SetComp, nodes.Keyword)) and values.value(c).var]
    children += [k.value for k in getattr(expr, "keywords", None) or () if values.value(k.value).var]
    if not children:
        return (value.origin or "a Tensor value") if value.is_tensor else None
    for child in children:
        found = _grounded(values, child, depth + 1)
        if found is not None:
            return found
    return None


def side_effect(values, expr) -> nodes.Call | None:
    """A call in ``expr`` that may have a side effect (or be costly to run when its value is not needed): a
    helper, a builtin or a method of ``self``. Tensor operations (``ops``/``mint``/``numpy`` functions, NumPy
    and ``math``) and methods of values compute without one. None when there is no such call."""
    for call in nodes_of_class(expr, nodes.Call):
        func = call.func
        qualified = None if locally_bound(func, values) else values.imports.qualify(func)
        if qualified is not None:
            if qualified.startswith(api.OPS_NAMESPACES) and qualified not in api.ASSIGN_OPS | api.PRINT_OPS:
                continue
            if qualified.split(".")[0] in ("numpy", "math"):
                continue
            return call
        if isinstance(func, nodes.Attribute):
            root = func
            while isinstance(root, nodes.Attribute):
                root = root.expr
            if not (isinstance(root, nodes.Name) and root.name == values.self_name):
                continue  # a method of a value (a Tensor's)
        return call
    return None


