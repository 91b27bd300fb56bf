"""Parameters entering one graph under the same name (see the catalogue family)."""

from __future__ import annotations

from astroid import nodes

from graphlint.analysis import api, host, signatures
from graphlint.analysis.tree import graph_nodes
from graphlint.catalogue import parameters as rules
from graphlint.runner import Checker


class ParametersChecker(Checker):
    family = "parameters"

    def check_function(self, graph) -> None:
        if graph.kind == "construct" and graph.cls is not None:
            self._cell(graph)
        if graph.is_entry:
            self._entering(graph)

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

    def _entering(self, graph) -> None:
        """Parameters a graph entry receives from outside its Cell: its arguments (as the module's calls pass
        them), and the names it reads that hold Parameters (module globals, a host function's variables), each
        compared with the others and with the Cell's own Parameters."""
        values = self.context.values(graph)
        if values is None:
            return
        own = {value.parameter for value in self._attribute_parameters(graph, values)}
        entering = []
        for argument in signatures.positional_parameters(graph.node):
            value = values.params.get(argument.name)
            if value is not None and value.parameter:
                entering.append((argument, value.parameter, argument.name))
        seen = set()
        for node in graph_nodes(graph.node):
            if isinstance(node, nodes.Name) and node.name not in seen and node.name not in values.cfg.defs_by_name \
                    and node.name not in values.params:
                seen.add(node.name)
                value = values.value(node)
                if value.parameter:
                    entering.append((node, value.parameter, node.name))
        entering += self._gathered(graph, values)
        first: dict[str, tuple] = {}
        for node, name, holder in entering:
            if name in own:
                self.report(rules.DUPLICATE_PARAMETER_NAME_IN_JIT, node, graph, name=name, holder=holder,
                            other=f"the Cell's own Parameter {name!r}")
            elif name in first and first[name][1] != holder:
                self.report(rules.DUPLICATE_PARAMETER_NAME_IN_JIT, node, graph, name=name, holder=holder,
                            other=f"`{first[name][1]}` (line {first[name][0].lineno})")
            else:
                first.setdefault(name, (node, holder))

    def _gathered(self, graph, values) -> list[tuple]:
        """(the first read of ``self.attr``, a Parameter's name, where it comes from) for each attribute the graph
        reads that gathers the Parameters of a Cell the class does not hold (``ParameterTuple(net.get_parameters())``
        of an ``__init__`` argument): those Parameters enter the graph under their bare names."""
        if graph.cls is None or values.self_name is None:
            return []
        found, seen = [], set()
        for node in graph_nodes(graph.node):
            if not (isinstance(node, nodes.Attribute) and isinstance(node.expr, nodes.Name)
                    and node.expr.name == values.self_name) or node.attrname in seen:
                continue
            seen.add(node.attrname)
            gathered = self.context.analysis.gathered_parameters(graph.cls, node.attrname)
            if gathered is not None:
                _source, names = gathered
                found += [(node, name, f"self.{node.attrname}") for name in sorted(names)]
        return found

    def _attribute_parameters(self, graph, values):
        if graph.cls is None or not self.context.project.is_cell(graph.cls):
            return []
        found = []
        for attr in self.context.analysis.attribute_assignments(graph.cls):
            value = self.context.analysis.self_attribute(graph.cls, attr)
            if value.parameter:
                found.append(value)
        return found

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
    return (host.parameter_name(call) or None) if call is not None else None


CHECKER = ParametersChecker
