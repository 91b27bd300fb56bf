"""What a trace (``jit(capture_mode="trace")``) freezes beyond the other families: prints, Cell state, Parameter
updates, NumPy arguments and checks on Tensor values (the last also a graph break under bytecode capture), and
entries whose capture mode is known only at run time."""

from __future__ import annotations

from astroid import nodes

from graphlint.analysis import capture
from graphlint.analysis.scope import UNKNOWN_CAPTURE, unknown_capture_site
from graphlint.analysis.tree import graph_nodes
from graphlint.catalogue import trace as rules
from graphlint.runner import Checker


class TraceChecker(Checker):
    family = "trace"

    def check_function(self, graph) -> None:
        if graph.is_entry and graph.own_capture.mode == UNKNOWN_CAPTURE:
            site = unknown_capture_site(graph.info, graph.node)
            self.report(rules.CAPTURE_MODE_UNKNOWN, site if site is not None else graph.node, graph,
                        anchor=None if site is not None else _definition_line(graph.node), entry=graph.name)
        if graph.capture.profile == "ast":
            return  # (the rules below are of the other captures: the runner keeps those with a severity there)
        values = self.context.values(graph)
        if values is None:
            return
        changed = None
        for node in graph_nodes(graph.node):
            if isinstance(node, nodes.Call):
                if capture.is_builtin_print(node, values):
                    self.report(rules.PRINT_IN_TRACED_FUNCTION, node, graph)
                update = capture.parameter_update(node, graph.info)
                if update is not None:
                    self.report(rules.PARAMETER_UPDATE_IN_TRACED_FUNCTION, node, graph, update=update)
            elif isinstance(node, nodes.Attribute) and graph.cls is not None and _reads_self(node, graph):
                if changed is None:
                    changed = capture.changed_cell_attributes(graph.cls, graph.info.module)
                if node.attrname in capture.CELL_MODE_ATTRIBUTES:
                    self.report(rules.CELL_STATE_IN_TRACED_FUNCTION, node, graph, attr=node.attrname,
                                why="`set_train` changes it")
                elif node.attrname in changed and not _is_call_target(node):
                    self.report(rules.CELL_STATE_IN_TRACED_FUNCTION, node, graph, attr=node.attrname,
                                why="code outside `__init__` changes it")
            elif isinstance(node, nodes.Assert) and values.tensor_origin(node.test) is not None:
                self.report(rules.CHECK_ON_TENSOR_IN_TRACED_FUNCTION, node, graph, statement="assert")
            elif isinstance(node, nodes.Raise) and _under_tensor_condition(node, graph, values):
                self.report(rules.CHECK_ON_TENSOR_IN_TRACED_FUNCTION, node, graph, statement="raise")
        if graph.is_entry:
            for call, argument in capture.numpy_arguments(graph.info, graph.node):
                self.report(rules.NUMPY_ARGUMENT_TO_TRACED_FUNCTION, argument, graph, argument=argument.as_string())


def _definition_line(func: nodes.FunctionDef):
    """Where a finding about a whole function is shown: its ``def`` line (not its decorators or body)."""
    return _Span(func.lineno, func.col_offset, func.lineno, func.col_offset + len("def ") + len(func.name))


class _Span:
    def __init__(self, lineno, col_offset, end_lineno, end_col_offset):
        self.lineno, self.col_offset, self.end_lineno, self.end_col_offset = lineno, col_offset, end_lineno, \
            end_col_offset


def _reads_self(node: nodes.Attribute, graph) -> bool:
    arguments = graph.node.args.args
    return isinstance(node.expr, nodes.Name) and bool(arguments) and node.expr.name == arguments[0].name \
        and not isinstance(node.parent, nodes.AssignAttr)


def _is_call_target(node) -> bool:
    return isinstance(node.parent, nodes.Call) and node.parent.func is node


def _under_tensor_condition(node, graph, values) -> bool:
    current = node.parent
    while current is not None and current is not graph.node:
        if isinstance(current, (nodes.If, nodes.While)) and values.tensor_origin(current.test) is not None:
            return True
        current = current.parent
    return False


CHECKER = TraceChecker
