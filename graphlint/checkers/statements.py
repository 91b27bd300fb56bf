"""Statements and expressions that MindSpore's graph parser rejects."""

from __future__ import annotations

from astroid import nodes

from graphlint.analysis.engine import Checker
from graphlint.checkers.walk import graph_nodes


class StatementsChecker(Checker):
    family = "statements"

    def check_function(self, graph) -> None:
        for node in graph_nodes(graph.node):
            if isinstance(node, nodes.Try):
                self.report("try-in-graph", node, graph, anchor=_keyword_anchor(node))


def _keyword_anchor(node):
    """Report a compound statement on its first line only, not on its whole body."""
    return _Span(node.lineno, node.col_offset, node.lineno, node.col_offset + len(node.__class__.__name__.lower()))


class _Span:
    def __init__(self, lineno, col_offset, end_lineno, end_col_offset):
        self.lineno, self.col_offset, self.end_lineno, self.end_col_offset = lineno, col_offset, end_lineno, end_col_offset


CHECKER = StatementsChecker
