"""Tree walks that cost O(1) per node, where astroid's recursive generators cost the node's depth."""

from __future__ import annotations

import sys
from array import array
from bisect import bisect_left
from contextlib import contextmanager

from astroid import nodes

# Subtree queries start from statements (functions, classes and loops among them), modules and lambdas; only
# those get an entry in the index (an entry per node costs about 100 bytes: a few hundred MB on mindone). A
# query from an expression walks it.
_QUERIED = (nodes.Module, nodes.Lambda)


class _ModuleIndex:
    """One pre-order walk of a module: its nodes by type, each with where its subtree ends, so that the nodes of
    a class under any statement or scope are a slice (the checkers ask that tens of thousands of times)."""

    __slots__ = ("ends", "by_type", "starts", "_types")

    def __init__(self, module):
        # arrays, not lists of ints: on a large project (mindone, millions of nodes) a list of Python ints
        # costs several times more memory
        ends = array("l")
        by_type: dict[type, tuple[array, list]] = {}
        starts: dict[int, int] = {}  # id -> start, of the nodes subtree queries start from
        open_nodes: list[tuple[int, object]] = []  # (start, iterator of children)
        position = 0

        def enter(node):
            nonlocal position
            start = position
            position += 1
            ends.append(0)
            entry = by_type.get(type(node))
            if entry is None:
                entry = by_type[type(node)] = (array("l"), [])
            entry[0].append(start)
            entry[1].append(node)
            if node.is_statement or isinstance(node, _QUERIED):
                starts[id(node)] = start
            open_nodes.append((start, iter(node.get_children())))

        enter(module)
        while open_nodes:
            start, children = open_nodes[-1]
            child = next(children, None)
            if child is None:
                open_nodes.pop()
                ends[start] = position
            else:
                enter(child)
        self.ends, self.by_type, self.starts = ends, by_type, starts
        self._types: dict = {}

    def of_class(self, node, klass, skip_klass):
        start = self.starts.get(id(node))
        if start is None:
            return None
        end = self.ends[start]
        found = self._slice(start, end, klass)
        if skip_klass is not None and found:
            skipped = [(s, self.ends[s]) for s, _ in self._slice(start + 1, end, skip_klass)]
            if skipped:
                found = [(s, n) for s, n in found if not any(a <= s < b for a, b in skipped)]
        return [n for _, n in found]

    def _slice(self, start, end, klass):
        types = self._types.get(klass)
        if types is None:
            types = self._types[klass] = [t for t in self.by_type if issubclass(t, klass)]
        found = []
        for kind in types:
            positions, members = self.by_type[kind]
            low, high = bisect_left(positions, start), bisect_left(positions, end)
            found.extend(zip(positions[low:high], members[low:high]))
        if len(types) > 1:
            found.sort(key=lambda item: item[0])
        return found


def _index_of(node):
    root = node
    while root.parent is not None:
        root = root.parent
    index = getattr(root, "_graphlint_tree_index", None)
    if index is None and isinstance(root, nodes.Module):
        index = _ModuleIndex(root)
        root._graphlint_tree_index = index
    return index


def nodes_of_class(node, klass, skip_klass=None):
    """``node.nodes_of_class(klass, skip_klass)`` without recursion, in the same order (a list).

    astroid nests one generator per tree level, so every node it yields costs its depth: quadratic time on a
    chain of thousands of calls, operators or `elif`s. Under a parsed module the answer is a slice of the
    module's index; elsewhere (a node built on its own) a walk."""
    index = _index_of(node)
    if index is not None:
        found = index.of_class(node, klass, skip_klass)
        if found is not None:
            return found
    return list(_walk_of_class(node, klass, skip_klass))


def _walk_of_class(node, klass, skip_klass):
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


def targets_of(target, klass):
    """The targets of class ``klass`` (``nodes.AssignAttr``, ``nodes.Subscript``) in an assignment's target, also
    inside tuple and starred targets (``blk.H, blk.W = H, W``)."""
    if isinstance(target, klass):
        yield target
    elif isinstance(target, (nodes.Tuple, nodes.List)):
        for element in target.elts:
            yield from targets_of(element, klass)
    elif isinstance(target, nodes.Starred):
        yield from targets_of(target.value, klass)


def literal(node) -> tuple | None:
    """``(value,)`` for a literal constant, a signed number included (`-1` is a minus applied to `1` in the tree:
    `dim=-1`), else None."""
    if isinstance(node, nodes.Const):
        return (node.value,)
    if isinstance(node, nodes.UnaryOp) and node.op in ("-", "+") and isinstance(node.operand, nodes.Const) \
            and type(node.operand.value) in (int, float):
        return (-node.operand.value if node.op == "-" else node.operand.value,)
    return None


def name_lookup(name: nodes.Name) -> tuple:
    """``name.lookup(name.name)`` (the scope and the nodes that bind the name there), remembered on the node: the
    analyses and the rules ask it of the same names many times. Raises as astroid's lookup does."""
    found = name.__dict__.get("_graphlint_lookup")
    if found is None:
        found = name.__dict__["_graphlint_lookup"] = name.lookup(name.name)
    return found


def enclosing_reads(node) -> list[str]:
    """The names read inside ``node`` (a nested def, lambda or class) that a function around it binds, in the
    order first read: what it would no longer see at module level."""
    found: list[str] = []
    for name in nodes_of_class(node, nodes.Name):
        scope, _assignments = name_lookup(name)
        if isinstance(scope, (nodes.FunctionDef, nodes.Lambda)) and not is_within(scope, node) \
                and name.name not in found:
            found.append(name.name)
    return found


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


_kept_nodes: dict[int, list] | None = None  # id(function) -> its graph_nodes, while a module is checked


@contextmanager
def graph_nodes_kept():
    """Keep the answers of :func:`graph_nodes` within the block (one module's checking: a dozen checkers walk
    each graph function). Kept for the block only: lists for every function of a large project would add a
    tenth to its memory."""
    global _kept_nodes
    previous, _kept_nodes = _kept_nodes, {}
    try:
        yield
    finally:
        _kept_nodes = previous


def graph_nodes(func) -> list:
    """Every node of a graph function's body (a lambda's expression), in source order, nested functions and
    lambdas included (they are compiled as part of it), decorators and the signature excluded."""
    kept = _kept_nodes
    if kept is not None:
        found = kept.get(id(func))
        if found is not None:
            return found
    found = []
    stack = list(reversed(func.body)) if isinstance(func.body, list) else [func.body]
    while stack:
        node = stack.pop()
        found.append(node)
        stack.extend(reversed(list(node.get_children())))
    if kept is not None:
        kept[id(func)] = found  # the function outlives the block: its id is not reused within it
    return found


def read_after(function, call: nodes.Call, name: str) -> bool:
    """``name`` is read after ``call`` in ``function``: later in the source, or anywhere in a loop around the
    call (its next step); not where the call's own statement rebinds it from the result."""
    return bool(reads_after(function, call, name))


def reads_after(function, call: nodes.Call, name: str) -> list:
    """The reads of :func:`read_after` (the ``Name`` nodes)."""
    statement = call.statement()
    if any(isinstance(n, nodes.AssignName) and n.name == name for n in nodes_of_class(statement, nodes.AssignName)):
        return []
    loops = _loops_around(call, function)
    end = statement.tolineno or statement.lineno
    return [node for node in nodes_of_class(function, nodes.Name)
            if node.name == name and node.lineno is not None and not is_within(node, statement)
            and (node.lineno > end or any(is_within(node, inner) for loop in loops for inner in loop.body))]


def _loops_around(node, function) -> list:
    """The `for`/`while` loops of ``function`` that hold ``node``."""
    loops = []
    current = node.parent
    while current is not None and current is not function:
        if isinstance(current, (nodes.For, nodes.While)):
            loops.append(current)
        current = current.parent
    return loops
