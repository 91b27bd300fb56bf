"""What bytecode capture (``jit(capture_mode="bytecode")``, PIJit) keeps from the first call, never captures or
refuses beyond the other families: Tensors of host arrays, calls into PIJit's skip list, ``next()``, Cells
created in the function, and the Python release it runs on."""

from __future__ import annotations

from astroid import nodes

from graphlint.analysis import api, capture
from graphlint.analysis.generated import pijit_skip
from graphlint.analysis.kinds import TENSOR
from graphlint.analysis.tree import graph_nodes
from graphlint.catalogue import bytecode as rules
from graphlint.runner import Checker


class BytecodeChecker(Checker):
    family = "bytecode"

    def check_function(self, graph) -> None:
        if not graph.capture.profile.startswith("bytecode"):
            return
        values = self.context.values(graph)
        if values is None:
            return
        info = graph.info
        self._check_release(graph, values)
        for node in graph_nodes(graph.node):
            if not isinstance(node, nodes.Call):
                continue
            source = capture.tensor_of_host_data(info, graph.node, node)
            if source is not None:
                self.report(rules.HOST_ARRAY_FROZEN, node, graph, source=source)
                continue
            if capture.is_builtin_next(node, values):
                self.report(rules.NEXT_ON_ITERATOR, node, graph)
                continue
            if not isinstance(node.func, (nodes.Name, nodes.Attribute)):
                continue
            qualified = info.imports.qualify(node.func)
            module = capture.skip_list_module(qualified)
            if module is not None and not self._reported_elsewhere(graph, values, node, qualified):
                self.report(rules.SKIP_LIST_CALL, node, graph, call=f"{node.func.as_string()}(...)", module=module)
                continue
            cell = self._cell_class(info, node, qualified)
            if cell is not None:
                self.report(rules.CELL_CREATED, node, graph, cell=cell)

    def _check_release(self, graph, values) -> None:
        release = capture.python_release()
        if release >= tuple(pijit_skip.UNSUPPORTED_FROM_PYTHON):
            if not graph.is_entry:
                return
            self.report(rules.UNSUPPORTED_PYTHON, graph.node, graph, anchor=_definition_line(graph.node),
                        python=f"{release[0]}.{release[1]}", entry=graph.name)
        elif release == (3, 11):
            found = capture.eager_fallback_construct(graph.node, values, entry=graph.is_entry)
            if found is not None:
                node, label = found
                self.report(rules.EAGER_FALLBACK, node, graph, construct=label)

    @staticmethod
    def _reported_elsewhere(graph, values, call, qualified: str) -> bool:
        """Calls another rule reports under bytecode capture: NumPy on a Tensor or on its data (W5502), or the
        NumPy draw of a host array (E6401); ``os.environ`` reads (measured: kept from the first call, not a
        break) and logging belong to the divergence family."""
        if qualified in api.ENVIRON_CALLS or qualified.startswith("logging.") or qualified.startswith("warnings."):
            return True
        if not qualified.startswith("numpy."):
            return False
        arguments = list(call.args) + [k.value for k in call.keywords or ()]
        if any(values.value(a).may_be(TENSOR) or capture.host_array(graph.info, graph.node, a) is not None
               for a in arguments):
            return True
        parent = call.parent
        while isinstance(parent, (nodes.Attribute, nodes.Call, nodes.BinOp)):
            if isinstance(parent, nodes.Call) and capture.tensor_of_host_data(graph.info, graph.node, parent):
                return True
            parent = parent.parent
        return False

    def _cell_class(self, info, call, qualified) -> str | None:
        if qualified is not None and api.is_mindspore_cell_name(qualified):
            return call.func.as_string()
        resolved = self.context.project.resolve_expr(info, call.func)
        if resolved is not None and resolved.kind == "class" and self.context.project.is_cell(resolved.node):
            return call.func.as_string()
        return None


def _definition_line(func: nodes.FunctionDef):
    """Where a finding about a whole function is shown: ``def name`` (not its decorators or body)."""
    position = func.position
    if position is not None:
        return _Span(position.lineno, position.col_offset, position.end_lineno, position.end_col_offset)
    return _Span(func.fromlineno, func.col_offset, func.fromlineno, func.col_offset + len("def ") + len(func.name))


class _Span:
    def __init__(self, lineno, col_offset, end_lineno, end_col_offset):
        self.lineno, self.col_offset, self.end_lineno, self.end_col_offset = lineno, col_offset, end_lineno, \
            end_col_offset


CHECKER = BytecodeChecker
