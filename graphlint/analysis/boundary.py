"""The boundary of a compiled graph: which graph entries MindSpore compiles (or exports) as graphs of their own.

A ``@jit`` function called from graph code is inlined into its caller, and the ``construct`` of a Cell that
another Cell holds runs inside that Cell's graph. Rules about a graph's inputs and outputs (dict outputs,
container inputs) apply only to the top-level graph.
"""

from __future__ import annotations

import ast
import functools
import os

from astroid import nodes

from graphlint.analysis import api, signatures
from graphlint.analysis.run_facts import register_run_fact
from graphlint.analysis.source import python_tree
from graphlint.analysis.tree import nodes_of_class


def is_top_level(analysis, graph) -> bool:
    """Whether ``graph`` is compiled (or exported) as a graph of its own, as far as the project shows.

    A ``@jit`` function called from graph code is inlined into it. The ``construct`` of a Cell
    that the project builds as a component of another Cell runs inside that Cell's graph:
    created in a Cell's code (``self.head = Head()``), passed to a Cell's constructor
    (``nn.SequentialCell([Block()])``, ``Outer(backbone=b)``), created by a function that a
    Cell calls, or built from its name by a builder (``"Head"`` in a list of names).
    """
    if graph.kind not in ("construct", "jit"):
        return False
    if graph.kind == "jit":
        for _caller, node in analysis.references(graph.node):
            parent = node.parent
            if isinstance(parent, nodes.Call) and parent.func is node:
                return False
        return True
    if graph.cls is None:
        return True
    inner_classes, inner_names = _inner_cells(analysis)
    if _class_key(graph.cls) not in inner_classes and graph.cls.name not in inner_names:
        return True
    # Held by another Cell, and also called from host code of its own module: a graph of its own there (the
    # compiler specialises per call; a rule about the graph's outputs holds if it holds in one context).
    return any(not _in_graph_code(analysis, call) for call in analysis.entry_calls(graph))


def _in_graph_code(analysis, call: nodes.Call) -> bool:
    frame = call.frame()
    while isinstance(frame, (nodes.FunctionDef, nodes.Lambda)):
        if isinstance(frame, nodes.FunctionDef) and analysis.graph_of(frame) is not None:
            return True
        frame = frame.parent.frame() if frame.parent is not None else None
    return False


def _class_key(cls: nodes.ClassDef) -> tuple[str, str]:
    """A class by its file and qualified name: stable while other modules are re-parsed (ids are not)."""
    return (cls.root().file or "", cls.qname())


def _inner_cells(analysis) -> tuple[set[tuple[str, str]], set[str]]:
    """The Cell classes (see ``_class_key``) the project builds as components of other Cells, and the identifier-like
    strings of the run (names a builder may instantiate), merged from per-module facts."""

    def merge(per_module):
        inner: set[tuple[str, str]] = set()
        names: set[str] = set()
        for _path, (module_inner, module_names) in per_module:
            inner |= module_inner
            names |= module_names
        # The run's other files (never parsed: they do not mention MindSpore) give their names from the text.
        known = analysis.project.unparsed_strings
        for path in sorted(analysis.project.unparsed):
            found = known.get(path)
            if found is None:
                found = known[path] = _identifier_strings_in_file(path)
            names |= found
        return inner, names

    return analysis.run_fact("inner-cells", merge)


def _inner_cells_of(analysis, info) -> tuple[set[tuple[str, str]], set[str]]:
    project = analysis.project
    inner: set[tuple[str, str]] = set()
    names: set[str] = set()
    called_functions: list = []

    def cell_class(info, func):
        if not isinstance(func, (nodes.Name, nodes.Attribute)):
            return None
        resolved = project.resolve_expr(info, func)
        if resolved is not None and resolved.kind == "class" and project.is_cell(resolved.node):
            return resolved.node
        return None

    def registry_classes(info, func) -> list:
        """``CLASSES[key](...)``: the Cell classes a module-level dict, list or tuple of classes holds."""
        if not (isinstance(func, nodes.Subscript) and isinstance(func.value, nodes.Name)):
            return []
        table = info.assigned.get(func.value.name)
        if isinstance(table, nodes.Dict):
            entries = [value for _key, value in table.items]
        elif isinstance(table, (nodes.List, nodes.Tuple)):
            entries = list(table.elts)
        else:
            return []
        return [cls for cls in (cell_class(info, e) for e in entries) if cls is not None]

    def is_cell_maker(info, func) -> bool:
        if cell_class(info, func) is not None:
            return True
        qualified = info.imports.qualify(func) if isinstance(func, (nodes.Name, nodes.Attribute)) else None
        return bool(qualified and api.is_mindspore_cell_name(qualified))

    def created_in(info, scope, skip=None):
        for call in nodes_of_class(scope, nodes.Call):
            for cls in [cell_class(info, call.func)] + registry_classes(info, call.func):
                if cls is not None and cls is not skip:
                    inner.add(_class_key(cls))

    module = info.module
    names.update(_identifier_strings(module))
    for cls in nodes_of_class(module, nodes.ClassDef):
        if not project.is_cell(cls):
            continue
        created_in(info, cls, skip=cls)
        for call in nodes_of_class(cls, nodes.Call):
            if isinstance(call.func, (nodes.Name, nodes.Attribute)):
                resolved = project.resolve_expr(info, call.func)
                if resolved is not None and resolved.kind == "function":
                    called_functions.append((resolved.info, resolved.node))
    for call in nodes_of_class(module, nodes.Call):
        if not is_cell_maker(info, call.func):
            continue
        for arg in list(call.args) + [k.value for k in call.keywords or ()]:
            for part in _passed_parts(arg):
                if isinstance(part, nodes.Call):
                    cls = cell_class(info, part.func)
                    if cls is not None:
                        inner.add(_class_key(cls))
                elif isinstance(part, nodes.Name):
                    for cls in _cells_bound_to(info, part, cell_class):
                        inner.add(_class_key(cls))
    # A Cell stored into another object (`model.blocks[i] = Block(...)`, `pipe.unet.head = Head()`) is its part.
    for assign in nodes_of_class(module, nodes.Assign):
        if isinstance(assign.value, nodes.Call) and any(isinstance(t, (nodes.Subscript, nodes.AssignAttr))
                                                        for t in assign.targets):
            cls = cell_class(info, assign.value.func)
            if cls is not None:
                inner.add(_class_key(cls))
    # Functions a Cell calls, and the functions they call: the Cells they create are components.
    seen: set[int] = set()
    while called_functions:
        where, func = called_functions.pop()
        if id(func) in seen or len(seen) > 5000:
            continue
        seen.add(id(func))
        created_in(where, func)
        for call in nodes_of_class(func, nodes.Call):
            if isinstance(call.func, (nodes.Name, nodes.Attribute)):
                resolved = project.resolve_expr(where, call.func)
                if resolved is not None and resolved.kind == "function" and id(resolved.node) not in seen:
                    called_functions.append((resolved.info, resolved.node))
    return inner, names


def _inner_cells_read(analysis, paths, class_names):
    def by_module():
        inner, names = _inner_cells(analysis)
        found: dict = {}
        for key in inner:
            found.setdefault(os.path.abspath(key[0]), []).append(key)
        return found, names

    inner, names = analysis.project_fact("inner cells by module", by_module)
    return (sorted(key for path in paths for key in inner.get(path, ())), sorted(names & class_names)), ()


register_run_fact("inner-cells", _inner_cells_of, _inner_cells_read)


def _identifier_strings(module: nodes.Module) -> set[str]:
    """The identifier-like string constants of ``module``, except the entries of ``__all__``.

    An entry of ``__all__`` is a string whose nearest enclosing assignment, call or module is an assignment to
    ``__all__``: the strings come from the module's index, and only the values of ``__all__`` assignments are
    walked (down to the calls in them) for the entries to leave out."""
    values = []
    for assign in nodes_of_class(module, (nodes.Assign, nodes.AugAssign)):
        targets = assign.targets if isinstance(assign, nodes.Assign) else [assign.target]
        if any(isinstance(t, nodes.AssignName) and t.name == "__all__" for t in targets):
            values.append(assign.value)
    entries = _entries(values, lambda node: node.get_children(), nodes.Call)
    return {const.value for const in nodes_of_class(module, nodes.Const)
            if isinstance(const.value, str) and const.value.isidentifier() and id(const) not in entries}


def _entries(values, children, call_type) -> set[int]:
    """ids of the nodes of ``__all__`` values (``values``), not looking into calls."""
    entries: set[int] = set()
    stack = list(values)
    while stack:
        node = stack.pop()
        if isinstance(node, call_type):
            continue
        entries.add(id(node))
        stack.extend(children(node))
    return entries


def _identifier_strings_in_file(path: str) -> frozenset[str]:
    """:func:`_identifier_strings` of a file of the run that was not parsed with astroid (``ast`` is enough
    for its constants, and cheap); nothing if it cannot be read."""
    try:
        stat = os.stat(path)
    except OSError:
        return frozenset()
    return _identifier_strings_in_version(path, stat.st_mtime_ns, stat.st_size)


@functools.lru_cache(maxsize=4096)
def _identifier_strings_in_version(path: str, _mtime_ns: int, _size: int) -> frozenset[str]:
    try:
        with open(path, "rb") as handle:
            tree = ast.parse(handle.read())
    except (OSError, SyntaxError, ValueError, RecursionError, MemoryError):
        return frozenset()
    return identifier_strings_in_tree(tree)


def unparsed_file_strings(text: str, path: str) -> frozenset[str]:
    """The syntax check of a file of the run that is not parsed with astroid, and what the run's facts need of it
    (:func:`identifier_strings_in_tree`), from one parse; SourceProblem when its syntax is wrong."""
    return identifier_strings_in_tree(python_tree(text, path))


def identifier_strings_in_tree(tree: ast.Module) -> frozenset[str]:
    """The identifier-like string constants of an ``ast`` tree, but for those of ``__all__``."""
    values = [node.value for node in ast.walk(tree) if isinstance(node, (ast.Assign, ast.AugAssign)) and any(
        isinstance(t, ast.Name) and t.id == "__all__"
        for t in (node.targets if isinstance(node, ast.Assign) else [node.target]))]
    entries = _entries(values, ast.iter_child_nodes, ast.Call)
    return frozenset(node.value for node in ast.walk(tree)
                     if isinstance(node, ast.Constant) and isinstance(node.value, str) and node.value.isidentifier()
                     and id(node) not in entries)


def _passed_parts(arg):
    """The expressions passed as (or inside a list/tuple/dict literal passed as) an argument."""
    if isinstance(arg, nodes.Starred):
        arg = arg.value
    if isinstance(arg, (nodes.List, nodes.Tuple, nodes.Set)):
        for element in arg.elts:
            yield from _passed_parts(element)
    elif isinstance(arg, nodes.Dict):
        for _key, value in arg.items:
            yield from _passed_parts(value)
    elif isinstance(arg, (nodes.ListComp, nodes.GeneratorExp)):
        yield from _passed_parts(arg.elt)
    else:
        yield arg


def _cells_bound_to(info, name: nodes.Name, cell_class):
    """Cell classes instantiated into ``name`` in the enclosing function (``b = Block(); Outer(b)``)."""
    scope = name.scope()
    for assign in nodes_of_class(scope, nodes.Assign):
        if any(isinstance(t, nodes.AssignName) and t.name == name.name for t in assign.targets) \
                and isinstance(assign.value, nodes.Call):
            cls = cell_class(info, assign.value.func)
            if cls is not None:
                yield cls


def caller_sees_argument_write(analysis, graph, parameter: str) -> bool:
    """Whether a write into the argument ``parameter`` of a sub-Cell's ``construct`` (one held by other Cells,
    not a graph of its own) can be seen: some call of the Cell in the project's graph code passes a name the caller
    reads again after the call (PYNATIVE_MODE wrote into it there; graph code did not), or the calls cannot all be
    found. ``fbank = self.specaug(fbank)`` rebinds the name it passes: the write is never read."""
    if graph.cls is None or graph.kind != "construct" or is_top_level(analysis, graph):
        return True
    calls = _cell_calls(analysis, graph.cls)
    if not calls:
        return True
    for call, values in calls:
        passed = signatures.argument_for(graph.node, graph.cls, call, parameter)
        if passed is None:  # (not found: passed through `*args` or `**kwargs`)
            return True
        if isinstance(passed, nodes.Name) and _read_after(passed, call, values):
            return True
    return False


def _cell_calls(analysis, cls: nodes.ClassDef) -> list:
    """``(call, the caller's values)`` for each call in the project's graph code that may call a ``cls`` Cell."""
    found = []
    for info in analysis.project.modules:
        for caller in analysis.graph_functions(info):
            values = analysis.values(caller)
            if values is None:
                continue
            for call in nodes_of_class(caller.node, nodes.Call):
                if call.frame() is caller.node and cls in (values.cell_targets(call) or ()):
                    found.append((call, values))
    return found


def _read_after(passed: nodes.Name, call: nodes.Call, values) -> bool:
    """The caller reads the name it passed again after the call, without the call's own statement rebinding it."""
    statement = call.statement()
    if isinstance(statement, nodes.Assign) and any(
            isinstance(name, nodes.AssignName) and name.name == passed.name
            for target in statement.targets for name in target.nodes_of_class(nodes.AssignName)):
        return False
    later = [name for name in nodes_of_class(values.func, nodes.Name)
             if name.name == passed.name and name.lineno > statement.tolineno]
    loop = next((parent for parent in call.node_ancestors() if isinstance(parent, (nodes.For, nodes.While))
                 and parent.frame() is values.func), None)
    return bool(later) or loop is not None
