"""Tree walks that cost O(1) per node, where astroid's recursive generators cost the node's depth."""

from __future__ import annotations


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
