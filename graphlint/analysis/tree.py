"""Tree walks that cost O(1) per node, where astroid's recursive generators cost the node's depth."""

from __future__ import annotations

import sys
from contextlib import contextmanager


def nodes_of_class(node, klass, skip_klass=None):
    """``node.nodes_of_class(klass, skip_klass)`` without recursion, in the same order.

    astroid nests one generator per tree level, so every node it yields costs its depth:
    quadratic time on a chain of thousands of calls, operators or `elif`s."""
    if isinstance(node, klass):
        yield node
    pending = [iter(node.get_children())]  # one iterator per open level: children in order, depth-first
    while pending:
        for child in pending[-1]:
            if skip_klass is not None and isinstance(child, skip_klass):
                continue
            if isinstance(child, klass):
                yield child
            pending.append(iter(child.get_children()))
            break
        else:
            pending.pop()


def walk(node):
    """``node`` and every node below it (order not guaranteed), without recursion."""
    stack = [node]
    while stack:
        current = stack.pop()
        yield current
        stack.extend(current.get_children())


def is_within(node, ancestor) -> bool:
    """``node`` is ``ancestor`` or lies below it."""
    current = node
    while current is not None:
        if current is ancestor:
            return True
        current = current.parent
    return False


# astroid walks trees recursively: deeply nested expressions (a 1,000-term sum) need more than Python's default.
RECURSION_LIMIT = 20000


@contextmanager
def deep_recursion(limit: int = RECURSION_LIMIT):
    """Raise Python's recursion limit to at least ``limit`` for the block, and restore it after."""
    previous = sys.getrecursionlimit()
    sys.setrecursionlimit(max(previous, limit))
    try:
        yield
    finally:
        sys.setrecursionlimit(previous)


def graph_nodes(func):
    """Every node of a graph function's body (a lambda's expression), in source order, nested functions and
    lambdas included (they are compiled as part of it), decorators and the signature excluded."""
    stack = list(reversed(func.body)) if isinstance(func.body, list) else [func.body]
    while stack:
        node = stack.pop()
        yield node
        stack.extend(reversed(list(node.get_children())))
