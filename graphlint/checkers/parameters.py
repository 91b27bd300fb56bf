"""Parameters entering one graph under the same name (see the catalogue family)."""

from __future__ import annotations

from astroid import nodes

from graphlint.analysis import api
from graphlint.analysis.tree import graph_nodes
from graphlint.catalogue import parameters as rules
from graphlint.runner import Checker


class ParametersChecker(Checker):
    family = "parameters"

    def check_function(self, graph) -> None:
        if graph.kind == "construct" and graph.cls is not None:
            self._cell(graph)
        elif graph.kind == "jit" and graph.cls is None:
            self._jit(graph)

    def _cell(self, graph) -> None:
        """Parameters named by hand that the Cell holds directly, in the order ``__init__`` makes them."""
        info = graph.info
        made = []
        for attr, assignments in self.context.analysis.attribute_assignments(graph.cls).items():
            for value, method in assignments:
                if method.name != "__init__":
                    continue
                where = self.context.project.info(method.root())
                call = _parameter_call(where, value)
                if call is None and isinstance(value, nodes.Name):
                    call = _parameter_call(where, where.assigned.get(value.name))
                name = _literal_name(call)
                if name is not None:
                    made.append((call, name, attr))
        self._report_repeats(graph, sorted(made, key=lambda m: (m[0].root().file or "", m[0].lineno)),
                             rules.DUPLICATE_PARAMETER_NAME, info)

    def _jit(self, graph) -> None:
        info = graph.info
        values = self.context.values(graph)
        seen, made = set(), []
        for node in graph_nodes(graph.node):
            if isinstance(node, nodes.Name) and node.name not in seen and \
                    (values is None or node.name not in values.cfg.defs_by_name):
                seen.add(node.name)
                call = _parameter_call(info, info.assigned.get(node.name))
                name = _literal_name(call)
                if name is not None:
                    made.append((call, name, node.name))
        self._report_repeats(graph, sorted(made, key=lambda m: m[0].lineno), rules.DUPLICATE_PARAMETER_NAME_IN_JIT,
                             info)

    def _report_repeats(self, graph, made, rule, info) -> None:
        """``made``: (Parameter call, its name, the attribute or global holding it). One holder assigned in two
        branches (`if ...: self.w = Parameter(...) else: self.w = Parameter(...)`) holds one Parameter."""
        first: dict[str, tuple[nodes.Call, str]] = {}
        for call, name, holder in made:
            if name in first and first[name][1] != holder:
                self.report(rule, call, graph, name=name, first=first[name][0].lineno)
            else:
                first.setdefault(name, (call, holder))


def _parameter_call(info, value) -> nodes.Call | None:
    if isinstance(value, nodes.Call) and info.imports.qualify(value.func) == api.PARAMETER:
        return value
    return None


def _literal_name(call: nodes.Call | None) -> str | None:
    if call is None:
        return None
    for keyword in call.keywords or ():
        if keyword.arg == "name" and isinstance(keyword.value, nodes.Const) and isinstance(keyword.value.value, str):
            return keyword.value.value
    if len(call.args) >= 2 and isinstance(call.args[1], nodes.Const) and isinstance(call.args[1].value, str):
        return call.args[1].value
    return None


CHECKER = ParametersChecker
