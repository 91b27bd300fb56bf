"""Graph scope: the functions MindSpore compiles, and the helpers they reach.

Entries are ``construct`` (and ``bprop``) of every ``nn.Cell`` subclass,
functions and methods decorated with ``jit`` / ``ms_function`` (AST capture
mode), functions passed to ``mindspore.jit(fn)``, and the methods of
``@jit_class`` classes when graph code calls them (``obj.method(...)``: a jit_class
often has host-only methods too). A function referenced from graph code (called, or
passed as a loop body) is a helper and is graph code too, transitively.
"""

from __future__ import annotations

from collections import deque
from dataclasses import dataclass

from astroid import nodes

from graphlint.analysis.api import CELL_ENTRY_METHODS, JIT_CLASS_DECORATORS, JIT_DECORATORS, NON_AST_CAPTURE_MODES
from graphlint.analysis.project import ModuleInfo, Project
from graphlint.analysis.tree import nodes_of_class


@dataclass
class GraphFunction:
    node: nodes.FunctionDef
    info: ModuleInfo
    cls: nodes.ClassDef | None
    kind: str  # "construct" | "bprop" | "jit" | "jit_class" | "helper"
    entry: str  # display name of the graph entry that reaches it, e.g. "Net.construct"
    via: tuple[str, ...] = ()  # helpers called on the way, entry excluded
    root: "GraphFunction | None" = None  # the graph entry that reaches it (itself for entries)

    def __post_init__(self) -> None:
        if self.root is None:
            self.root = self

    @property
    def name(self) -> str:
        return qualified_display(self.node, self.cls)

    @property
    def is_entry(self) -> bool:
        return self.kind != "helper"

    def reached_note(self) -> str:
        """Appended to messages of findings inside helpers."""
        if self.is_entry:
            return ""
        note = f" (in helper `{self.name}`, reached from `{self.entry}`"
        if len(self.via) > 1:
            note += " via " + " -> ".join(f"`{name}`" for name in self.via[:-1])
        return note + ")"


def qualified_display(func: nodes.FunctionDef, cls: nodes.ClassDef | None) -> str:
    return f"{cls.name}.{func.name}" if cls is not None else func.name


def _decorator_qualified(info: ModuleInfo, decorator) -> tuple[str | None, nodes.Call | None]:
    call = decorator if isinstance(decorator, nodes.Call) else None
    target = decorator.func if call is not None else decorator
    return info.imports.qualify(target), call


def _capture_mode(call: nodes.Call | None) -> str | None:
    if call is None or not call.keywords:
        return None
    for keyword in call.keywords:
        if keyword.arg == "capture_mode" and isinstance(keyword.value, nodes.Const):
            return keyword.value.value
    return None


def is_jit_decorated(info: ModuleInfo, func: nodes.FunctionDef) -> bool:
    for decorator in func.decorators.nodes if func.decorators else ():
        qualified, call = _decorator_qualified(info, decorator)
        if qualified in JIT_DECORATORS and _capture_mode(call) not in NON_AST_CAPTURE_MODES:
            return True
    return False


def is_jit_class(info: ModuleInfo, cls: nodes.ClassDef) -> bool:
    for decorator in cls.decorators.nodes if cls.decorators else ():
        qualified, _ = _decorator_qualified(info, decorator)
        if qualified in JIT_CLASS_DECORATORS:
            return True
    return False


def _enclosing_class(node) -> nodes.ClassDef | None:
    scope = node.parent.frame() if node.parent is not None else None
    return scope if isinstance(scope, nodes.ClassDef) else None


def _class_of(node) -> nodes.ClassDef | None:
    """The nearest class enclosing ``node``."""
    current = node.parent
    while current is not None and not isinstance(current, nodes.ClassDef):
        current = current.parent
    return current


def find_entries(project: Project, info: ModuleInfo) -> list[GraphFunction]:
    entries: list[GraphFunction] = []
    for cls in nodes_of_class(info.module, nodes.ClassDef):
        if project.is_cell(cls):
            for method in cls.body:
                if isinstance(method, nodes.FunctionDef) and method.name in CELL_ENTRY_METHODS:
                    entries.append(GraphFunction(method, info, cls, method.name, qualified_display(method, cls)))
    for func in nodes_of_class(info.module, nodes.FunctionDef):
        if is_jit_decorated(info, func):
            cls = _enclosing_class(func)
            entries.append(GraphFunction(func, info, cls, "jit", qualified_display(func, cls)))
    for call in nodes_of_class(info.module, nodes.Call):
        # mindspore.jit(fn) / ms_function(fn): fn is compiled.
        if info.imports.qualify(call.func) not in JIT_DECORATORS or not call.args:
            continue
        if _capture_mode(call) in NON_AST_CAPTURE_MODES:
            continue
        target = function_reference(project, info, call.args[0], _class_of(call))
        if target is not None:
            func, cls, where = target
            entries.append(GraphFunction(func, where, cls, "jit", qualified_display(func, cls)))
    return entries


def function_reference(project: Project, info: ModuleInfo, expr, cls: nodes.ClassDef | None):
    """A reference to a project function or method: (FunctionDef, owning class, module) or None."""
    if isinstance(expr, nodes.Attribute) and isinstance(expr.expr, nodes.Name) and expr.expr.name == "self" and cls is not None:
        found = project.find_method(cls, expr.attrname)
        if found is not None:
            method, owner = found
            return method, owner, project.info(owner.root())
        return None
    if isinstance(expr, nodes.Call) and isinstance(expr.func, nodes.Name) and expr.func.name == "super":
        return None
    if isinstance(expr, nodes.Attribute) and isinstance(expr.expr, nodes.Call) \
            and isinstance(expr.expr.func, nodes.Name) and expr.expr.func.name == "super" and cls is not None:
        for klass in project.mro(cls)[1:]:
            for node in klass.body:
                if isinstance(node, nodes.FunctionDef) and node.name == expr.attrname:
                    return node, klass, project.info(klass.root())
        return None
    resolved = project.resolve_expr(info, expr)
    if resolved is not None and resolved.kind == "function":
        owner = _enclosing_class(resolved.node)
        return resolved.node, owner, resolved.info
    if isinstance(expr, nodes.Attribute):
        owner = project.resolve_expr(info, expr.expr)
        if owner is not None and owner.kind == "class":
            found = project.find_method(owner.node, expr.attrname)
            if found is not None:
                return found[0], found[1], project.info(found[1].root())
    return None


def _referenced_functions(project: Project, graph: GraphFunction):
    """Project functions referenced from a graph function's body (calls and function values)."""
    cls = graph.cls
    for node in nodes_of_class(graph.node, (nodes.Name, nodes.Attribute)):
        if isinstance(node, nodes.Name) and node.name in _local_names(graph.node):
            continue
        # Only the outermost part of an attribute chain is looked at (a.b.c, not a.b).
        if isinstance(node.parent, nodes.Attribute) and node.parent.expr is node:
            continue
        target = function_reference(project, graph.info, node, cls)
        if target is not None:
            yield node, target


def _local_names(func: nodes.FunctionDef) -> frozenset[str]:
    cached = getattr(func, "_graphlint_locals", None)
    if cached is None:
        cached = frozenset(func.locals)
        try:
            func._graphlint_locals = cached
        except AttributeError:  # pragma: no cover - slots
            pass
    return cached


def _jit_class_methods_in(info: ModuleInfo) -> dict[str, list]:
    """Method name -> the methods of that name in the module's ``@jit_class`` classes."""
    found: dict[str, list] = {}
    for cls in nodes_of_class(info.module, nodes.ClassDef):
        if is_jit_class(info, cls):
            for method in cls.body:
                if isinstance(method, nodes.FunctionDef) and method.name != "__init__":
                    found.setdefault(method.name, []).append((method, cls, info))
    return found


def _called_attributes(graph: GraphFunction) -> list[tuple[nodes.Attribute, str]]:
    """``obj.name(...)`` calls in a graph function: where a jit_class method may be called."""
    return [(call.func, call.func.attrname) for call in nodes_of_class(graph.node, nodes.Call)
            if isinstance(call.func, nodes.Attribute)]


class ScopeIndex:
    """What graph scope is discovered from, cached per module and per function.

    The entries a module defines, the project functions a graph function references and the methods it calls
    depend only on that module and what it imports; they are kept until :meth:`forget` is told the module (or
    one it imports) changed, so rediscovering scope after a one-file change walks no unchanged tree."""

    def __init__(self, project: Project):
        self.project = project
        self._entries: dict[int, tuple[ModuleInfo, list[GraphFunction]]] = {}
        self._jit_methods: dict[int, tuple[ModuleInfo, dict]] = {}
        self._edges: dict[int, tuple[nodes.FunctionDef, list]] = {}
        self._calls: dict[int, tuple[nodes.FunctionDef, list]] = {}

    def forget(self, module_ids: set[int]) -> None:
        self._entries = {k: v for k, v in self._entries.items() if id(v[0].module) not in module_ids}
        self._jit_methods = {k: v for k, v in self._jit_methods.items() if id(v[0].module) not in module_ids}
        self._edges = {k: v for k, v in self._edges.items() if id(v[0].root()) not in module_ids}
        self._calls = {k: v for k, v in self._calls.items() if id(v[0].root()) not in module_ids}

    def entries(self, info: ModuleInfo) -> list[GraphFunction]:
        cached = self._entries.get(id(info.module))
        if cached is None or cached[0] is not info:
            cached = (info, find_entries(self.project, info))
            self._entries[id(info.module)] = cached
        return cached[1]

    def jit_class_methods(self, info: ModuleInfo) -> dict:
        cached = self._jit_methods.get(id(info.module))
        if cached is None or cached[0] is not info:
            cached = (info, _jit_class_methods_in(info))
            self._jit_methods[id(info.module)] = cached
        return cached[1]

    def defines_jit_class(self, info: ModuleInfo) -> bool:
        return bool(self.jit_class_methods(info))

    def edges_of(self, graph: GraphFunction) -> list:
        """``[(node, (FunctionDef, class, module))]``: the project functions ``graph`` references."""
        cached = self._edges.get(id(graph.node))
        if cached is None or cached[0] is not graph.node:
            cached = (graph.node, list(_referenced_functions(self.project, graph)))
            self._edges[id(graph.node)] = cached
        return cached[1]

    def called_attributes(self, graph: GraphFunction) -> list:
        cached = self._calls.get(id(graph.node))
        if cached is None or cached[0] is not graph.node:
            cached = (graph.node, _called_attributes(graph))
            self._calls[id(graph.node)] = cached
        return cached[1]

    def discover(self, references: dict[int, list] | None = None) -> dict[int, GraphFunction]:
        """Every graph function of the project, keyed by ``id(FunctionDef)``.

        ``references``, when given, receives for every graph function the places in graph code that
        reference it: ``id(FunctionDef) -> [(GraphFunction, node)]``."""
        found: dict[int, GraphFunction] = {}
        queue: deque[GraphFunction] = deque()
        methods: dict[str, list] = {}
        for info in self.project.modules:
            for entry in self.entries(info):
                if id(entry.node) not in found or not found[id(entry.node)].is_entry:
                    found[id(entry.node)] = entry
                    queue.append(entry)
            for name, targets in self.jit_class_methods(info).items():
                methods.setdefault(name, []).extend(targets)
        while queue:
            graph = queue.popleft()
            edges = self.edges_of(graph)
            reached = list(edges)
            if methods:
                for node, name in self.called_attributes(graph):
                    for target in methods.get(name, ()):
                        if not any(target[0] is found_func for _, (found_func, _, _) in edges):
                            reached.append((node, target))
            for node, (func, cls, where) in reached:
                if references is not None:
                    references.setdefault(id(func), []).append((graph, node))
                if id(func) in found or func is graph.node:
                    continue
                helper = GraphFunction(func, where, cls, "helper", graph.entry,
                                       graph.via + (qualified_display(func, cls),), graph.root)
                found[id(func)] = helper
                queue.append(helper)
        return found


def discover(project: Project, references: dict[int, list] | None = None) -> dict[int, GraphFunction]:
    """Every graph function of a project (see :meth:`ScopeIndex.discover`)."""
    return ScopeIndex(project).discover(references)


def graph_functions_in(found: dict[int, GraphFunction], info: ModuleInfo) -> list[GraphFunction]:
    """The graph functions defined in one module, outermost first, in source order.

    Functions nested inside another graph function are analysed as part of it.
    """
    own = [g for g in found.values() if g.node.root() is info.module]
    nested = set()
    for graph in own:
        for inner in nodes_of_class(graph.node, nodes.FunctionDef, skip_klass=nodes.ClassDef):
            if inner is not graph.node:
                nested.add(id(inner))
    return sorted((g for g in own if id(g.node) not in nested), key=lambda g: (g.node.lineno, g.node.col_offset))
