"""The rank (number of dimensions) of a Tensor expression in graph code, where the code decides it: creation ops
given a shape display, `view`/`reshape`/`tile`/`unsqueeze`/`permute`, reductions over one axis, indexing with
numbers and slices, element-wise arithmetic, what a method of the Cell's own returns. None where the analysis
cannot tell (an argument, a sub-Cell's output, an op not modelled): rules that need a rank stay quiet then."""

from __future__ import annotations

from astroid import nodes

from graphlint.analysis import signatures
from graphlint.analysis.kinds import TENSOR
from graphlint.analysis.tree import nodes_of_class

MAX_DEPTH = 12
# ops functions that make a Tensor of the shape given as their first argument (a tuple or list display).
_CREATION = frozenset({"ones", "zeros", "full", "rand", "randn", "empty", "randint", "normal", "uniform"})
# Tensor methods and ops functions that keep their input's rank.
_SAME_RANK = frozenset({
    "float", "int", "long", "half", "bool", "double", "astype", "to", "abs", "exp", "log", "sqrt", "sigmoid",
    "relu", "tanh", "clamp", "clip", "masked_fill", "neg", "square", "pow", "contiguous", "clone", "copy",
    "softmax", "log_softmax", "transpose", "swapaxes", "cumsum", "sort", "flip", "detach",
    "where", "sin", "cos", "floor", "ceil", "round", "reciprocal", "rsqrt", "exp2", "cast",
})
_REDUCTIONS = frozenset({"sum", "mean", "max", "min", "prod", "argmax", "argmin", "amax", "amin", "norm", "std",
                         "var", "all", "any", "logsumexp"})
# results that are a (values, indices) pair of the input's rank
_PAIRED = frozenset({"sort", "topk"})


def rank_of(values, expr, depth: int = 0) -> int | None:
    if depth > MAX_DEPTH or expr is None:
        return None
    value = values.value(expr)
    if not value.is_(TENSOR):
        return 0 if value.kinds and TENSOR not in value.kinds and value.kinds <= {"int", "float", "bool"} else None
    if isinstance(expr, nodes.Name):
        return _name_rank(values, expr, depth)
    if isinstance(expr, nodes.Call):
        return _call_rank(values, expr, depth)
    if isinstance(expr, nodes.BinOp):
        return _widest(values, (expr.left, expr.right), depth)
    if isinstance(expr, nodes.Compare):
        return _widest(values, [expr.left] + [right for _, right in expr.ops], depth)
    if isinstance(expr, nodes.UnaryOp):
        return rank_of(values, expr.operand, depth + 1)
    if isinstance(expr, nodes.Subscript):
        return _subscript_rank(values, expr, depth)
    return None


def _widest(values, operands, depth: int) -> int | None:
    ranks = [rank_of(values, operand, depth + 1) for operand in operands]
    return None if any(r is None for r in ranks) else max(ranks)


def _name_rank(values, expr: nodes.Name, depth: int) -> int | None:
    element = values.cfg.element_of(expr)
    if element is None:
        return None
    definitions = values.cfg.reaching(element, expr.name)
    ranks = set()
    for definition in definitions:
        if definition.kind != "assign" or definition.value is None or isinstance(definition.element.node, nodes.For):
            return None
        target = definition.node
        if not (isinstance(target, nodes.AssignName) and isinstance(target.parent, nodes.Assign)):
            return None  # unpacked from a tuple: not modelled
        ranks.add(rank_of(values, definition.value, depth + 1))
    return ranks.pop() if len(ranks) == 1 else None


def _display_length(node) -> int | None:
    if isinstance(node, (nodes.Tuple, nodes.List)) and not any(isinstance(e, nodes.Starred) for e in node.elts):
        return len(node.elts)
    return None


def _axis_argument(call: nodes.Call):
    for keyword in call.keywords or ():
        if keyword.arg in ("dim", "axis"):
            return keyword.value
    return call.args[0] if call.args else None


def _keeps_dims(call: nodes.Call) -> bool:
    return any(k.arg in ("keepdim", "keepdims", "keep_dims") and isinstance(k.value, nodes.Const) and k.value.value
               for k in call.keywords or ())


def _call_rank(values, call: nodes.Call, depth: int) -> int | None:
    func = call.func
    qualified = values.imports.qualify(func) if isinstance(func, (nodes.Name, nodes.Attribute)) else None
    if qualified is not None and qualified.startswith("mindspore."):
        return _function_rank(values, call, qualified.rsplit(".", 1)[-1], depth)
    if isinstance(func, nodes.Attribute) and values.value(func.expr).is_(TENSOR):
        return _method_rank(values, call, func.expr, func.attrname, depth)
    return _returned_rank(values, call, depth)


def _returned_rank(values, call: nodes.Call, depth: int) -> int | None:
    """A call of a method of the Cell's own (``self.transpose_for_scores(x)``): the rank every `return` of that
    graph function gives, where each gives one it decides itself (`x.permute(0, 2, 1, 3)`)."""
    found = signatures.called_method(values.analysis.project, values.info, values.cls, values.self_name, call)
    graph = values.analysis.graph_of(found[0]) if found is not None else None
    callee = values.analysis.values(graph) if graph is not None else None
    if callee is None or callee is values:
        return None
    returned = {rank_of(callee, node.value, depth + 1) for node in nodes_of_class(graph.node, nodes.Return)
                if node.frame() is graph.node and node.value is not None}
    return returned.pop() if len(returned) == 1 else None


def _function_rank(values, call: nodes.Call, name: str, depth: int) -> int | None:
    """``ops.name(...)``."""
    if name in _CREATION and call.args:
        shape = call.args[0] if name != "randint" else (call.args[2] if len(call.args) > 2 else None)
        return _display_length(shape)
    if name == "arange":
        return 1
    if name in _SAME_RANK and call.args:
        return rank_of(values, call.args[0], depth + 1)
    return None


def _method_rank(values, call: nodes.Call, receiver, method: str, depth: int) -> int | None:
    """``t.method(...)``, ``t`` a Tensor."""
    if method in ("view", "reshape", "permute"):  # (the shape, or the permutation, names every axis)
        return _axes_named(call, method != "permute")
    inner = rank_of(values, receiver, depth + 1)
    if method == "tile" and call.args:
        length = _display_length(call.args[0])
        return None if inner is None or length is None else max(inner, length)
    if method in ("unsqueeze", "expand_dims"):
        return None if inner is None else inner + 1
    if method in _SAME_RANK or method in _PAIRED:
        return inner
    if method in _REDUCTIONS:
        axis = _axis_argument(call)
        if inner is None or axis is None or _keeps_dims(call):
            return inner if axis is not None and _keeps_dims(call) else None
        if isinstance(axis, nodes.Const) and isinstance(axis.value, int):
            return inner - 1
        return None
    return None


def _axes_named(call: nodes.Call, number_is_one_axis: bool) -> int | None:
    """How many axes ``t.view(2, -1)`` / ``t.view((2, -1))`` / ``t.permute(0, 2, 1)`` names."""
    if len(call.args) == 1:
        if isinstance(call.args[0], nodes.Const):
            return 1 if number_is_one_axis else None
        return _display_length(call.args[0])
    return len(call.args) if call.args and not any(isinstance(a, nodes.Starred) for a in call.args) else None


def _subscript_rank(values, expr: nodes.Subscript, depth: int) -> int | None:
    base = expr.value
    if isinstance(base, nodes.Call) and isinstance(base.func, nodes.Attribute) and base.func.attrname in _PAIRED \
            and isinstance(expr.slice, nodes.Const) and expr.slice.value in (0, 1):
        return rank_of(values, base.func.expr, depth + 1)  # (values, indices) of a sort or topk
    inner = rank_of(values, base, depth + 1)
    if inner is None:
        return None
    parts = expr.slice.elts if isinstance(expr.slice, nodes.Tuple) else [expr.slice]
    rank = inner
    for part in parts:
        if isinstance(part, nodes.Slice):
            continue
        if isinstance(part, nodes.Const) and part.value is None:
            rank += 1
        elif isinstance(part, nodes.Const) and isinstance(part.value, int) and not isinstance(part.value, bool):
            rank -= 1
        else:
            return None  # a Tensor index, an Ellipsis, a run-time number: not modelled
    return rank
