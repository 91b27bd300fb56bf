"""Walking graph code."""

from __future__ import annotations

from astroid import nodes


def graph_nodes(func: nodes.FunctionDef | nodes.Lambda):
    """Every node of a graph function's body (a lambda's expression), in source order, nested functions and
    lambdas included (they are compiled as part of it), decorators and the signature excluded."""
    stack = list(reversed(func.body)) if isinstance(func.body, list) else [func.body]
    while stack:
        node = stack.pop()
        yield node
        stack.extend(reversed(list(node.get_children())))
