"""Tensor-to-Python conversions in graph code: ``.item()``, ``.tolist()``, ``int/float/bool(t)``.

Only receivers and arguments that the value analysis knows to be Tensors
are reported: ``int(x.shape[0])``, ``float(self.ratio * 10)`` and
``len(x.shape)`` convert Python numbers and stay quiet, and so does anything
the analysis does not know.
"""

from __future__ import annotations

from astroid import nodes

from graphlint.analysis import api
from graphlint.analysis.kinds import NONE, NUMPY, TENSOR, UNKNOWN
from graphlint.analysis.tree import graph_nodes
from graphlint.analysis.lattice import Value
from graphlint.catalogue import host_sync as rules
from graphlint.runner import Checker

_METHODS = {"item": rules.TENSOR_ITEM_IN_GRAPH, "tolist": rules.TENSOR_TOLIST_IN_GRAPH}


class HostSyncChecker(Checker):
    family = "host_sync"

    def check_function(self, graph) -> None:
        values = self.context.values(graph)
        if values is None:
            return
        for node in graph_nodes(graph.node):
            if not isinstance(node, nodes.Call) or node.keywords:
                continue
            func = node.func
            if isinstance(func, nodes.Attribute) and func.attrname in _METHODS and not node.args:
                if graph.info.imports.qualify(func) is not None:
                    continue  # a module function such as `np.item`, not a method
                if _receiver_is_tensor(values.value(func.expr)):
                    self.report(_METHODS[func.attrname], node, graph, expr=_short(func.expr))
            elif isinstance(func, nodes.Name) and func.name in api.SCALAR_CONVERSIONS and len(node.args) == 1 \
                    and not isinstance(node.args[0], nodes.Starred) and _is_builtin(func, values, graph):
                if _is_tensor(values.value(node.args[0])):
                    self.report(rules.TENSOR_TO_PYTHON_SCALAR_IN_GRAPH, node, graph, func=func.name,
                                expr=_short(node.args[0]))


def _is_tensor(value: Value) -> bool:
    """Known to be a Tensor (an optional Tensor counts: None has no conversion to report)."""
    return value.may_be(TENSOR) and not value.kinds - {TENSOR, NONE}


def _receiver_is_tensor(value: Value) -> bool:
    """A Tensor, or a runtime value of unknown kind (a Cell's output); never a NumPy array."""
    if NUMPY in value.kinds:
        return False
    return _is_tensor(value) or (value.var and value.may_be(UNKNOWN) and not value.kinds - {TENSOR, NONE, UNKNOWN})


def _is_builtin(func: nodes.Name, values, graph) -> bool:
    name = func.name
    if name in values.cfg.defs_by_name:
        return False
    info = graph.info
    if name in info.functions or name in info.classes or name in info.imports.aliases or name in info.assigned:
        return False
    scope, _ = func.lookup(name)
    return isinstance(scope, nodes.Module) and scope.name == "builtins"


def _short(expr, limit: int = 60) -> str:
    text = expr.as_string()
    return text if len(text) <= limit else text[: limit - 3] + "..."


CHECKER = HostSyncChecker
