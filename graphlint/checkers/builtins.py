"""Python builtins and containers on what graph code does not support (see the catalogue family)."""

from __future__ import annotations

from astroid import nodes
from astroid.const import Context

from graphlint.analysis import api, signatures
from graphlint.analysis.kinds import CELL, DICT, FUNCTION, LIST, STR, TENSOR, TUPLE
from graphlint.analysis.tree import graph_nodes
from graphlint.catalogue import builtins as rules
from graphlint.runner import Checker

# The methods that exist on each type and compile only by JIT fallback (others are graph methods, or do not
# exist: then the value is not what the analysis took it for, and nothing is said).
_FALLING_BACK = {STR: api.STR_METHODS - api.STR_METHODS_IN_GRAPH, LIST: api.LIST_METHODS_FALLING_BACK,
                 DICT: api.DICT_METHODS_FALLING_BACK}


class BuiltinsChecker(Checker):
    family = "builtins"

    def check_function(self, graph) -> None:
        values = self.context.values(graph)
        if values is None:
            return
        if graph.is_entry:
            self._arguments(graph, values)
        for node in graph_nodes(graph.node):
            if isinstance(node, nodes.Call):
                self._call(graph, values, node)
            elif isinstance(node, nodes.Subscript) and node.ctx == Context.Load:
                self._subscript(graph, values, node)
            elif isinstance(node, nodes.Dict):
                for key, _ in node.items:
                    if not isinstance(key, nodes.DictUnpack) and values.from_tensor(key):
                        self.report(rules.RUNTIME_DICT_KEY, key, graph, key=_short(key))
            elif isinstance(node, nodes.Const) and type(node.value) is int and \
                    not api.INT64_MIN <= node.value <= api.INT64_MAX:
                self.report(rules.INTEGER_BEYOND_INT64, node, graph, value=_short(node))
            elif isinstance(node, nodes.BinOp) and node.op in ("**", "*", "<<", "+", "-"):
                self._overflow(graph, values, node)

    def _arguments(self, graph, values) -> None:
        """An entry's arguments as its module's calls pass them: an int beyond int64 is refused before compiling."""
        for argument in signatures.positional_parameters(graph.node):
            value = values.params.get(argument.name)
            if value is not None and value.known and type(value.const) is int and \
                    not api.INT64_MIN <= value.const <= api.INT64_MAX:
                self.report(rules.INTEGER_BEYOND_INT64, argument, graph,
                            value=f"{value.const} (passed as `{argument.name}`)")

    # -- calls ------------------------------------------------------------------------------------------
    def _call(self, graph, values, call: nodes.Call) -> None:
        func = call.func
        if isinstance(func, nodes.Name) and _is_builtin(func, values, graph):
            name = func.name
            arguments = list(call.args) + [k.value for k in call.keywords or ()]
            if name in api.NESTED_TENSOR_REDUCTIONS and _holds_nested_tensors(values, arguments):
                self.report(rules.BUILTIN_OVER_NESTED_TENSORS, call, graph, func=name)
            elif name in api.FALLBACK_BUILTINS and name not in _REPORTED_ELSEWHERE and \
                    any(values.from_tensor(a) for a in arguments):
                self.report(rules.BUILTIN_FALLS_BACK, call, graph, func=name)
            elif name == "len" and len(call.args) == 1 and values.value(call.args[0]).is_(STR):
                self.report(rules.CONTAINER_METHOD_FALLS_BACK, call, graph, method="len()", kind="str")
            return
        if not isinstance(func, nodes.Attribute) or graph.info.imports.qualify(func) is not None:
            return
        receiver = values.value(func.expr)
        kind = next((k for k in (STR, LIST, DICT) if receiver.is_(k)), None)
        if kind is None:
            return
        method = func.attrname
        if kind == LIST and method in api.LIST_MUTATIONS_LOST:
            self.report(rules.LIST_MUTATION_LOST, call, graph, method=method)
        elif method in _FALLING_BACK[kind]:
            self.report(rules.CONTAINER_METHOD_FALLS_BACK, call, graph, method=f"{kind}.{method}", kind=kind)

    # -- subscripts ---------------------------------------------------------------------------------------
    def _subscript(self, graph, values, node: nodes.Subscript) -> None:
        if isinstance(node.slice, nodes.Slice):
            return
        base = values.value(node.value)
        index = node.slice
        if base.is_(DICT):
            if values.from_tensor(index):
                self.report(rules.RUNTIME_DICT_KEY, index, graph, key=_short(index))
            return
        kind = TUPLE if base.is_(TUPLE) else LIST if base.is_(LIST) else None
        if kind is None or not values.value(index).is_tensor or not values.value(index).var:
            return
        if base.items is not None and base.items and all(item.kinds <= {FUNCTION, CELL} for item in base.items):
            return  # a switch between functions or Cells is what STRICT supports
        self.report(rules.SEQUENCE_INDEXED_BY_TENSOR, node, graph, kind=kind)

    # -- integer arithmetic ----------------------------------------------------------------------------------
    def _overflow(self, graph, values, node: nodes.BinOp) -> None:
        if isinstance(node.parent, nodes.BinOp):
            return  # reported at the outermost operation
        result = _fold(node)
        if isinstance(result, int) and not isinstance(result, bool) and not api.INT64_MIN <= result <= api.INT64_MAX:
            self.report(rules.INTEGER_OVERFLOWS_INT64, node, graph, expr=_short(node), value=_short_number(result))


# Reported by other rules (type-of-graph-value, tensor-to-string, python-object-from-tensor ...).
_REPORTED_ELSEWHERE = frozenset({"type", "str", "repr", "dict", "set", "slice", "complex", "reversed", "format"})


def _fold(node):
    """The Python value of integer arithmetic on literals (None when it is not that)."""
    if isinstance(node, nodes.Const) and type(node.value) is int:
        return node.value
    if isinstance(node, nodes.UnaryOp) and node.op == "-":
        inner = _fold(node.operand)
        return -inner if inner is not None else None
    if isinstance(node, nodes.BinOp):
        left, right = _fold(node.left), _fold(node.right)
        if left is None or right is None:
            return None
        try:
            if node.op == "**":
                return left ** right if 0 <= right <= 4096 else None
            if node.op == "<<":
                return left << right if 0 <= right <= 4096 else None
            return {"*": left * right, "+": left + right, "-": left - right}.get(node.op)
        except (OverflowError, ValueError):
            return None
    return None


def _holds_nested_tensors(values, arguments) -> bool:
    """A sequence of sequences (one argument) or several sequences whose items include run-time Tensors."""
    def tensor_inside(value) -> bool:
        return value.items is not None and any(item.may_be(TENSOR) and item.var for item in value.items)

    if len(arguments) == 1:
        outer = values.value(arguments[0])
        return outer.items is not None and any(item.kinds <= {TUPLE, LIST} and tensor_inside(item)
                                               for item in outer.items)
    sequences = [values.value(a) for a in arguments]
    return len(sequences) > 1 and any(v.kinds <= {TUPLE, LIST} and tensor_inside(v) for v in sequences)


def _is_builtin(func: nodes.Name, values, graph) -> bool:
    name = func.name
    info = graph.info
    return not (name in values.cfg.defs_by_name or name in info.functions or name in info.classes
                or name in info.imports.aliases or name in info.assigned)


def _short(node, limit: int = 60) -> str:
    text = node.as_string()
    return text if len(text) <= limit else text[: limit - 3] + "..."


def _short_number(value: int) -> str:
    text = str(value)
    return text if len(text) <= 30 else f"{text[:6]}...({len(text)} digits)"


CHECKER = BuiltinsChecker
