"""Graph scope: the functions MindSpore compiles, and the helpers they reach.

Entries are ``construct`` (and ``bprop``) of every ``nn.Cell`` subclass,
functions and methods decorated with ``jit`` / ``ms_function``, functions passed to ``mindspore.jit(fn)``
(and ``construct`` of Cells passed to it), and the methods of
``@jit_class`` classes when graph code calls them (``obj.method(...)``: a jit_class
often has host-only methods too). A function referenced from graph code (called, or
passed as a loop body) is a helper and is graph code too, transitively.
"""

from __future__ import annotations

from collections import deque
from dataclasses import dataclass, field

from astroid import nodes

from graphlint.analysis.api import (CELL_ENTRY_METHODS, EXTERNAL_PACKAGES, JIT_CLASS_DECORATORS, JIT_DECORATORS,
                                    NON_AST_CAPTURE_MODES)
from graphlint.analysis import signatures
from graphlint.analysis.callables import called_functions, instance_classes, is_layer_name
from graphlint.analysis.objects import object_classes
from graphlint.analysis.project import ModuleInfo, Project
from graphlint.analysis.tree import is_within, nodes_of_class


CAPTURE_MODES = NON_AST_CAPTURE_MODES | {"ast"}
UNKNOWN_CAPTURE = "unknown"  # capture_mode given by a run-time value: linted as "ast"


@dataclass(frozen=True)
class Capture:
    """How MindSpore captures an entry: ``mode`` is ``"ast"``, ``"bytecode"``, ``"trace"`` or ``"unknown"``
    (a value known only at run time, linted as ``"ast"``); ``fullgraph``: ``jit(..., fullgraph=True)``."""
    mode: str = "ast"
    fullgraph: bool = False

    @property
    def suffix(self) -> str:
        """What follows the kind in an entry's summary ("" for plain ``ast``: summaries of AST code unchanged)."""
        if self.mode == "ast" and not self.fullgraph:
            return ""
        return "@" + self.mode + ("+fullgraph" if self.fullgraph else "")

    @classmethod
    def of_kind(cls, kind: str) -> tuple[str, "Capture"]:
        """``"jit@trace"`` -> ``("jit", Capture("trace"))``."""
        base, _, suffix = kind.partition("@")
        if not suffix:
            return base, cls()
        mode, _, flag = suffix.partition("+")
        return base, cls(mode, flag == "fullgraph")

    @property
    def profile(self) -> str:
        """The rule profile it is linted with: ``ast``, ``bytecode``, ``bytecode-fullgraph`` or ``trace``
        (``fullgraph`` on ``ast`` is the STRICT syntax level, not a profile of its own)."""
        if self.mode == "bytecode":
            return "bytecode-fullgraph" if self.fullgraph else "bytecode"
        return "trace" if self.mode == "trace" else "ast"


AST_CAPTURE = Capture()


@dataclass(eq=False)
class GraphFunction:
    node: nodes.FunctionDef
    info: ModuleInfo
    cls: nodes.ClassDef | None
    kind: str  # "construct" | "bprop" | "jit" | "jit_class" | "helper"
    entry: str  # display name of the graph entry that reaches it, e.g. "Net.construct"
    via: tuple[str, ...] = ()  # helpers called on the way, entry excluded
    root_of: object = field(default=None, repr=False)  # () -> the GraphFunction of the entry (None: itself)
    own_capture: Capture = AST_CAPTURE  # an entry's capture, read from its kind ("jit@trace")
    entry_path: str = ""  # a helper's: the path of the module that defines the graph entry reaching it

    def __post_init__(self) -> None:
        if "@" in self.kind:
            self.kind, self.own_capture = Capture.of_kind(self.kind)

    @property
    def root(self) -> "GraphFunction":
        """The graph entry that reaches it (itself for entries), built when first asked for: its module may be
        one this process has not loaded."""
        found = self.__dict__.get("_root")
        if found is None:
            found = self.root_of() if self.root_of is not None else None
            found = found if found is not None else self
            self.__dict__["_root"] = found
        return found

    @property
    def name(self) -> str:
        return qualified_display(self.node, self.cls)

    @property
    def is_entry(self) -> bool:
        return self.kind != "helper"

    @property
    def capture(self) -> Capture:
        """How its entry is captured (``jit(capture_mode=..., fullgraph=...)``)."""
        return self.root.own_capture

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


def _keyword(call: nodes.Call | None, name: str):
    for keyword in (call.keywords or ()) if call is not None else ():
        if keyword.arg == name:
            return keyword.value
    return None


def capture_of(call: nodes.Call | None) -> Capture:
    """The capture a ``jit`` call or decorator asks for (``None``: a bare ``@jit``). A ``capture_mode`` that is
    not a literal MindSpore knows is unknown until run time."""
    mode = _keyword(call, "capture_mode")
    if mode is None:
        name = "ast"
    elif isinstance(mode, nodes.Const) and mode.value in CAPTURE_MODES:
        name = mode.value
    else:
        name = UNKNOWN_CAPTURE
    fullgraph = _keyword(call, "fullgraph")
    return Capture(name, isinstance(fullgraph, nodes.Const) and fullgraph.value is True)


def jit_decorator(info: ModuleInfo, func: nodes.FunctionDef):
    """The ``@jit`` / ``@jit(...)`` decorator of ``func`` (None if it has none)."""
    for decorator in func.decorators.nodes if func.decorators else ():
        qualified, _call = _decorator_qualified(info, decorator)
        if qualified in JIT_DECORATORS:
            return decorator
    return None


def jit_capture(info: ModuleInfo, func: nodes.FunctionDef) -> Capture | None:
    """How ``@jit(...)`` on ``func`` captures it (None: not decorated)."""
    decorator = jit_decorator(info, func)
    if decorator is None:
        return None
    return capture_of(decorator if isinstance(decorator, nodes.Call) else None)


def unknown_capture_site(info: ModuleInfo, func: nodes.FunctionDef):
    """Where an entry's ``capture_mode`` is given by a run-time value: its decorator's keyword, else None."""
    decorator = jit_decorator(info, func)
    if isinstance(decorator, nodes.Call) and capture_of(decorator).mode == UNKNOWN_CAPTURE:
        return _keyword(decorator, "capture_mode")
    return None


def is_jit_class(info: ModuleInfo, cls: nodes.ClassDef) -> bool:
    for decorator in cls.decorators.nodes if cls.decorators else ():
        qualified, _ = _decorator_qualified(info, decorator)
        if qualified in JIT_CLASS_DECORATORS:
            return True
    return False


def enclosing_class(node) -> nodes.ClassDef | None:
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
        capture = jit_capture(info, func)
        if capture is not None:
            cls = enclosing_class(func)
            entries.append(GraphFunction(func, info, cls, "jit" + capture.suffix, qualified_display(func, cls)))
    for call in nodes_of_class(info.module, nodes.Call):
        # mindspore.jit(fn) / ms_function(fn): fn is compiled; jit(net) compiles net.construct.
        if info.imports.qualify(call.func) not in JIT_DECORATORS or not call.args:
            continue
        capture = capture_of(call)
        target = function_reference(project, info, call.args[0], _class_of(call))
        if target is not None:
            func, cls, where = target
            entries.append(GraphFunction(func, where, cls, "jit" + capture.suffix, qualified_display(func, cls)))
            continue
        if not capture.suffix:
            continue  # (a Cell jitted at the AST default is already an entry)
        cell = _jitted_cell(project, info, call.args[0])
        if cell is not None:
            cls, where = cell
            for method in cls.body:
                if isinstance(method, nodes.FunctionDef) and method.name == "construct":
                    entries.append(GraphFunction(method, where, cls, "construct" + capture.suffix,
                                                 qualified_display(method, cls)))
    return entries


def _jitted_cell(project: Project, info: ModuleInfo, expr):
    """The Cell class of ``jit(Net(...), ...)`` or ``jit(net, ...)`` where ``net = Net(...)`` in the same scope:
    ``(ClassDef, module)``, else None."""
    if isinstance(expr, nodes.Name):
        frame = expr.frame()
        assigned = [node.parent.value for node in nodes_of_class(frame, nodes.AssignName)
                    if node.name == expr.name and isinstance(node.parent, nodes.Assign)]
        expr = assigned[-1] if len(assigned) == 1 else None
    if not isinstance(expr, nodes.Call):
        return None
    resolved = project.resolve_expr(info, expr.func)
    if resolved is None or resolved.kind != "class" or not project.is_cell(resolved.node):
        return None
    return resolved.node, resolved.info


def function_reference(project: Project, info: ModuleInfo, expr, cls: nodes.ClassDef | None):
    """A reference to a project function or method: (FunctionDef, owning class, module) or None (graph scope, the
    analysis and the rules ask it of the same expressions: remembered per expression until its module or one it
    imports changes, and asked again where the module of what it found has been replaced since)."""
    kind = "function reference" if cls is None else f"function reference {id(cls)}"
    found = project.memo(kind, expr, lambda: _function_reference(project, info, expr, cls))
    if found is not None and project.by_node.get(id(found[2].module)) is not found[2]:
        project.forget_memos({id(expr.root())})
        found = project.memo(kind, expr, lambda: _function_reference(project, info, expr, cls))
    return found


def _function_reference(project: Project, info: ModuleInfo, expr, cls: nodes.ClassDef | None):
    if _names_external(info, expr):
        return None  # (`ops.relu`, `np.exp`, `nn.Dense`: never a project function)
    if isinstance(expr, nodes.Attribute) and isinstance(expr.expr, nodes.Name) and expr.expr.name == "self" and cls is not None:
        found = project.find_method(cls, expr.attrname)
        if found is not None:
            method, owner = found
            return method, owner, project.info(owner.root())
        return _called_object(project, info, expr, cls)
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
        owner = enclosing_class(resolved.node)
        return resolved.node, owner, resolved.info
    if isinstance(expr, nodes.Attribute):
        return _method_reference(project, info, expr, cls) or _called_object(project, info, expr, cls)
    if isinstance(expr, nodes.Name):
        return _called_object(project, info, expr, cls)
    return None


def _names_external(info: ModuleInfo, expr) -> bool:
    """``expr`` is an attribute chain on a module-level import of MindSpore, NumPy, ... (not rebound locally)."""
    root = expr
    while isinstance(root, nodes.Attribute):
        root = root.expr
    if not isinstance(root, nodes.Name) or root is expr:
        return False
    qualified = info.imports.aliases.get(root.name)
    if qualified is None or qualified.split(".")[0] not in EXTERNAL_PACKAGES:
        return False
    frame = root.frame()
    return not (isinstance(frame, (nodes.FunctionDef, nodes.Lambda)) and root.name in frame.locals)


def _called_object(project: Project, info: ModuleInfo, expr, cls: nodes.ClassDef | None):
    """The ``__call__`` a call of a held object runs (``self.search(x)``, where ``self.search = Search()``, a
    plain class): MindSpore compiles it as it compiles any method graph code calls. A Cell's ``__call__`` is
    MindSpore's own (its ``construct`` is found as a sub-Cell's)."""
    if not (isinstance(expr.parent, nodes.Call) and expr.parent.func is expr):
        return None
    for held in object_classes(project, info, expr, cls):
        found = project.find_method(held, "__call__")
        if found is not None and project.info(found[1].root()) is not None:
            return found[0], found[1], project.info(found[1].root())
    return None


def _method_reference(project: Project, info: ModuleInfo, expr: nodes.Attribute, cls: nodes.ClassDef | None):
    """``Class.method``, or a method of an object graph code holds (``self.sched.step``, ``self.model.generate``,
    ``SCHEDULER.step``: MindSpore compiles it, whatever its class): as :func:`function_reference` gives it."""
    owner = project.resolve_expr(info, expr.expr)
    classes = (owner.node,) if owner is not None and owner.kind == "class" else ()
    if not classes:
        classes = object_classes(project, info, expr.expr, cls)
    if not classes and isinstance(expr.parent, nodes.Call) and expr.parent.func is expr:
        # an object a constructor was given (`self.prior = prior`, the caller passing `CodePrior()`)
        classes = tuple(instance_classes(project, info, expr.expr, cls))
    for held in classes:
        found = project.find_method(held, expr.attrname)
        if found is not None and (owner is not None or found[0].name != "__init__"):
            return found[0], found[1], project.info(found[1].root())
    return None


def _referenced_functions(project: Project, graph: GraphFunction):
    """Project functions referenced from a graph function's body (calls and function values)."""
    cls = graph.cls
    looked_up: dict[int, object] = {}  # id(node) -> its function_reference, for the calls through values below
    for node in nodes_of_class(graph.node, (nodes.Name, nodes.Attribute)):
        if isinstance(node, nodes.Name) and node.name in _local_names(graph.node):
            nested = _nested_function(node, graph.node)
            if nested is not None:
                yield node, (nested, enclosing_class(nested), graph.info)
            continue
        # Only the outermost part of an attribute chain is looked at (a.b.c, not a.b).
        if isinstance(node.parent, nodes.Attribute) and node.parent.expr is node:
            continue
        target = looked_up[id(node)] = function_reference(project, graph.info, node, cls)
        if target is not None:
            yield node, target
    yield from _functions_held_by_values(project, graph, looked_up)
    yield from _constructors_run(project, graph)


def _constructors_run(project: Project, graph: GraphFunction):
    """``__init__`` of a plain project class graph code makes an instance of (`CorrBlock(fmap1, fmap2)` in
    `construct`): the lax level runs it in the interpreter, and once it is made graph-compatible (a `jit_class`, or
    functions) MindSpore compiles it, so what stands in its way is reported with the rest."""
    for call in nodes_of_class(graph.node, nodes.Call):
        if not isinstance(call.func, (nodes.Name, nodes.Attribute)):
            continue
        resolved = project.resolve_expr(graph.info, call.func)
        if resolved is None or resolved.kind != "class" or project.is_cell(resolved.node):
            continue
        found = project.find_method(resolved.node, "__init__")
        info = project.by_node.get(id(found[1].root())) if found is not None else None
        if info is not None:
            yield call.func, (found[0], found[1], info)


def _functions_held_by_values(project: Project, graph: GraphFunction, looked_up: dict):
    """Functions graph code calls through a value (a factory's closure, a dict or list of functions, a
    ``functools.partial``, a function passed as an argument): MindSpore compiles them as any function graph code
    calls. For a lambda (not a graph function here), the functions its body calls. ``looked_up``: the
    :func:`function_reference` of each name and outermost attribute of the body, where it was asked already."""
    for call in nodes_of_class(graph.node, nodes.Call):
        func = call.func
        if not isinstance(func, (nodes.Name, nodes.Attribute, nodes.Subscript)):
            continue
        if not isinstance(func, nodes.Subscript) and not (isinstance(func, nodes.Name) and func.name in
                                                          _local_names(graph.node)) \
                and ((looked_up[id(func)] if id(func) in looked_up else
                      function_reference(project, graph.info, func, graph.cls)) is not None
                     or graph.info.imports.qualify(func) is not None):
            continue
        if _holds_instances_only(project, graph, func):
            continue  # (`self.conv(x)`: a layer made in `__init__` holds no function)
        for reached in called_functions(project, graph.info, func, graph.cls):
            node = reached.node
            info = project.by_node.get(id(node.root()))
            if info is None or is_within(node, graph.node):
                continue
            if isinstance(node, nodes.FunctionDef):
                yield func, (node, enclosing_class(node), info)
                continue
            owner = enclosing_class(node)
            for inner in nodes_of_class(node.body, (nodes.Name, nodes.Attribute)):
                if isinstance(inner.parent, nodes.Attribute) and inner.parent.expr is inner:
                    continue
                target = function_reference(project, info, inner, owner)
                if target is None and isinstance(inner, nodes.Attribute) and isinstance(inner.parent, nodes.Call) \
                        and inner.parent.func is inner:  # `lambda x, eo=embedder: eo.embed(x)`
                    for held in instance_classes(project, info, inner.expr, owner):
                        method = project.find_method(held, inner.attrname)
                        info_of = project.by_node.get(id(method[1].root())) if method is not None else None
                        if info_of is not None:
                            target = method[0], method[1], info_of
                if target is not None:
                    yield func, target


def _holds_instances_only(project: Project, graph: GraphFunction, func) -> bool:
    """``func`` is ``self.name`` and every assignment of ``self.name`` in the class makes an instance of a class
    (the project's, or a MindSpore layer's): the attribute holds no lambda or function."""
    cls = graph.cls
    if cls is None or not (isinstance(func, nodes.Attribute) and isinstance(func.expr, nodes.Name)
                           and func.expr.name == signatures.receiver_name(graph.node, cls)):
        return False
    assignments = project.attribute_assignments(cls).get(func.attrname)
    if not assignments:
        return False
    for value, method in assignments:
        if not (isinstance(value, nodes.Call) and isinstance(value.func, (nodes.Name, nodes.Attribute))):
            return False
        info = project.info(method.root())
        resolved = project.resolve_expr(info, value.func)
        if resolved is not None and resolved.kind == "class":
            continue
        if resolved is not None or not is_layer_name(info.imports.qualify(value.func)):
            return False
    return True


def _nested_function(name: nodes.Name, func: nodes.FunctionDef) -> nodes.FunctionDef | None:
    """The function defined inside ``func`` that ``name`` (a local name of ``func``) refers to, when that is the only
    thing the name is bound to: MindSpore compiles a nested function graph code calls as a graph of its own."""
    bindings = func.locals.get(name.name, ())
    if len(bindings) != 1 or not isinstance(bindings[0], nodes.FunctionDef) \
            or isinstance(bindings[0], nodes.AsyncFunctionDef) or bindings[0] is func:
        return None
    nested = bindings[0]
    if name.scope() is not func:  # (a name in a scope nested deeper may be bound there)
        try:
            _scope, found = name.lookup(name.name)
        except Exception:  # noqa: BLE001 - astroid's lookup on odd trees
            return None
        if list(found) != [nested]:
            return None
    return nested


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


# -- keys: a definition named by its module and its place among the module's definitions --------------------
# A key is plain data: it names the same function in every process and across edits of other functions' bodies,
# so that graph scope can be discovered from what each module's owner computed (``--jobs``) and rebuilt as nodes.
FunctionKey = tuple  # (module path, "Net.construct" or "Net.construct#2" for a second definition of that name)
Reference = tuple  # (lineno, col_offset, end_lineno, end_col_offset) of a Name or outermost Attribute


def definition_keys(module: nodes.Module) -> tuple[dict[int, str], dict[str, nodes.NodeNG]]:
    """(``id(def) -> local key``, ``local key -> def``) for every function and class of ``module``."""
    cached = getattr(module, "_graphlint_keys", None)
    if cached is not None:
        return cached
    by_id: dict[int, str] = {}
    by_key: dict[str, nodes.NodeNG] = {}
    for node in nodes_of_class(module, (nodes.FunctionDef, nodes.ClassDef)):
        names = [node.name]
        current = node.parent
        while current is not None and not isinstance(current, nodes.Module):
            if isinstance(current, (nodes.FunctionDef, nodes.ClassDef)):
                names.append(current.name)
            current = current.parent
        local = ".".join(reversed(names))
        if local in by_key:
            number = 2
            while f"{local}#{number}" in by_key:
                number += 1
            local = f"{local}#{number}"
        by_id[id(node)] = local
        by_key[local] = node
    module._graphlint_keys = (by_id, by_key)
    return by_id, by_key


def reference_of(node) -> Reference:
    return (node.lineno, node.col_offset, node.end_lineno, node.end_col_offset)


def node_at(func: nodes.FunctionDef, where: Reference):
    """The Name or outermost Attribute of ``func`` at ``where`` (see :func:`reference_of`)."""
    for node in nodes_of_class(func, (nodes.Name, nodes.Attribute)):
        if reference_of(node) == where and not (isinstance(node.parent, nodes.Attribute) and node.parent.expr is node):
            return node
    return None


@dataclass(frozen=True)
class FunctionSummary:
    """What graph scope reads of one function: the project functions it references (``(where, key, display)``)
    and the attributes it calls (``(where, name)``, where a ``@jit_class`` method may be called)."""
    edges: tuple
    calls: tuple


@dataclass(frozen=True)
class ModuleScope:
    """What graph scope reads of one module as a whole: its entries (``(key, kind, display)``, in order) and
    the methods of its ``@jit_class`` classes (``name -> [(key, display)]``)."""
    entries: tuple
    jit_class_methods: dict


@dataclass(frozen=True)
class ScopeEntry:
    key: FunctionKey
    kind: str
    entry: str
    via: tuple
    root: FunctionKey
    display: str


@dataclass
class KeyedScope:
    """Every graph function of a run as plain data: ``functions`` by key, ``references`` (key -> ``[(caller
    key, where)]``, the places in graph code that reference it), the keys defined in each module, and the
    :class:`FunctionSummary` of each function reached (what a later run may reuse: see :mod:`graphlint.run.cache`)."""
    functions: dict
    references: dict
    by_path: dict
    summaries: dict = field(default_factory=dict)

    def references_by_caller(self) -> dict:
        """``{caller key: [(referenced key, where)]}``: :attr:`references` the other way round."""
        by_caller: dict = {}
        for key, references in self.references.items():
            for caller_key, where in references:
                by_caller.setdefault(caller_key, []).append((key, where))
        return by_caller


def discover_keyed(module_scopes, function_summary) -> KeyedScope:
    """Graph scope from plain data: ``module_scopes``, the :class:`ModuleScope` of every module whose entries
    count, in order; ``function_summary(key)``, the :class:`FunctionSummary` of a function reached."""
    found: dict = {}
    references: dict = {}
    summaries: dict = {}
    queue: deque = deque()
    methods: dict[str, list] = {}
    module_scopes = list(module_scopes)
    captured = {}  # key -> the kind of the first entry of it with a capture of its own ("jit@trace")
    for module in module_scopes:
        for key, kind, _display in module.entries:
            if "@" in kind:
                captured.setdefault(key, kind)
        for name, targets in module.jit_class_methods.items():
            methods.setdefault(name, []).extend(targets)
    # AST entries first: a helper that both an AST and a traced entry reach keeps its AST findings.
    for plain in (True, False):
        for module in module_scopes:
            for key, kind, display in module.entries:
                if (key in captured) == plain or key in found:
                    continue
                found[key] = ScopeEntry(key, captured.get(key, kind), display, (), key, display)
                queue.append(key)
        _reach(found, references, summaries, queue, methods, function_summary)
    by_path: dict = {}
    for key in found:
        by_path.setdefault(key[0], []).append(key)
    return KeyedScope(found, references, by_path, summaries)


def _reach(found, references, summaries, queue, methods, function_summary) -> None:
    """Breadth-first from ``queue``: every function the graph functions found reference, as helpers."""
    while queue:
        key = queue.popleft()
        graph = found[key]
        summary = function_summary(key)
        if summary is None:
            continue
        summaries[key] = summary
        reached = list(summary.edges)
        if methods:
            targets_of_edges = {target for _where, target, _display in summary.edges}
            for where, name in summary.calls:
                for target, display in methods.get(name, ()):
                    if target not in targets_of_edges:
                        reached.append((where, target, display))
        for where, target, display in reached:
            references.setdefault(target, []).append((key, where))
            if target in found or target == key:
                continue
            found[target] = ScopeEntry(target, "helper", graph.entry, graph.via + (display,), graph.root, display)
            queue.append(target)


class ScopeIndex:
    """What graph scope is discovered from, as plain data, cached per module and per function.

    The entries a module defines, the project functions a graph function references and the methods it calls
    depend only on that module and what it imports; they are kept until :meth:`forget` is told the module (or
    one it imports) changed, so rediscovering scope after a one-file change walks no unchanged tree."""

    def __init__(self, project: Project):
        self.project = project
        self._modules: dict[int, tuple[ModuleInfo, ModuleScope]] = {}
        self._functions: dict[int, tuple[nodes.FunctionDef, FunctionSummary]] = {}

    def forget(self, module_ids: set[int]) -> None:
        self._modules = {k: v for k, v in self._modules.items() if id(v[0].module) not in module_ids}
        self._functions = {k: v for k, v in self._functions.items() if id(v[0].root()) not in module_ids}

    def key(self, func) -> FunctionKey:
        root = func.root()
        return (self.project.info(root).path, definition_keys(root)[0][id(func)])

    def module_scope(self, info: ModuleInfo) -> ModuleScope:
        cached = self._modules.get(id(info.module))
        if cached is None or cached[0] is not info:
            entries = tuple((self.key(g.node), g.kind + g.own_capture.suffix, g.name)
                            for g in find_entries(self.project, info))
            methods = {name: [(self.key(method), qualified_display(method, cls)) for method, cls, _ in targets]
                       for name, targets in _jit_class_methods_in(info).items()}
            cached = (info, ModuleScope(entries, methods))
            self._modules[id(info.module)] = cached
        return cached[1]

    def defines_jit_class(self, info: ModuleInfo) -> bool:
        # (not from module_scope: its entries would be resolved now, before the caller has set the project up)
        return any(is_jit_class(info, cls) for cls in nodes_of_class(info.module, nodes.ClassDef))

    def function_summary(self, func: nodes.FunctionDef) -> FunctionSummary:
        cached = self._functions.get(id(func))
        if cached is None or cached[0] is not func:
            graph = GraphFunction(func, self.project.info(func.root()), enclosing_class(func), "helper", "")
            edges = tuple((reference_of(node), self.key(target[0]), qualified_display(target[0], target[1]))
                          for node, target in _referenced_functions(self.project, graph))
            calls = tuple((reference_of(node), name) for node, name in _called_attributes(graph))
            cached = (func, FunctionSummary(edges, calls))
            self._functions[id(func)] = cached
        return cached[1]

    def node_of(self, key: FunctionKey):
        """The definition a key names (its module read from disk if this process has not loaded it)."""
        info = self.project.module_at(key[0])
        if info is None:
            return None
        return definition_keys(info.module)[1].get(key[1])

    def summary_of(self, key: FunctionKey) -> FunctionSummary | None:
        func = self.node_of(key)
        return self.function_summary(func) if isinstance(func, nodes.FunctionDef) else None

    def summaries(self, info: ModuleInfo) -> dict:
        """``{key: FunctionSummary}`` of the functions of ``info`` graph scope is likely to reach: its entries, the
        methods of its Cells and ``@jit_class`` classes but ``__init__``, and the module's functions that those
        name. Any other function is summarised where it turns out to be reached (see :meth:`discover`): resolving
        what every function names (model factories, ``__init__``) costs more than the scope itself."""
        found = {}
        named: set[str] = set()
        for cls in nodes_of_class(info.module, nodes.ClassDef):
            if not (self.project.is_cell(cls) or is_jit_class(info, cls)):
                continue
            for method in cls.body:
                if isinstance(method, nodes.FunctionDef) and method.name != "__init__":
                    found[self.key(method)] = self.function_summary(method)
                    named.update(name.name for name in nodes_of_class(method, nodes.Name))
        for name in sorted(named & set(info.functions)):
            func = info.functions[name]
            found[self.key(func)] = self.function_summary(func)
        for key, _kind, _display in self.module_scope(info).entries:
            if key[0] == info.path and key not in found:
                found[key] = self.summary_of(key)
        return found

    def discover(self, shared: "RunSummary | None" = None) -> KeyedScope:
        """Every graph function of the run: from its modules as loaded, or from what the processes that parsed
        them gathered (``shared``)."""
        if shared is None:
            return discover_keyed([self.module_scope(info) for info in self.project.modules if not info.from_disk],
                                  self.summary_of)
        return discover_keyed([shared.scopes[path] for path in shared.order],
                              lambda key: shared.functions.get(key) or self.summary_of(key))


@dataclass
class RunSummary:
    """What the modules of a run give each other, as plain data: gathered from the processes that parsed them
    (``--jobs``), so that each process discovers the same scope and facts while it parses only its share.
    ``order``: the paths of the run's modules, in order; ``scopes``: their :class:`ModuleScope`;
    ``functions``: the :class:`FunctionSummary` of each function scope may reach; ``facts``: kind -> path ->
    the module's value of that fact of the run; ``unparsed_strings``: path -> what the facts need of each run
    file that is not parsed (:attr:`Project.unparsed_strings`), from the process that checked its syntax."""
    order: list
    scopes: dict
    functions: dict
    facts: dict
    unparsed_strings: dict = field(default_factory=dict)

    @classmethod
    def gather(cls, parts: list["RunSummary"], order: list) -> "RunSummary":
        """One summary of the run from those of its processes; ``order``: the run's paths, in order."""
        whole = cls([], {}, {}, {})
        for part in parts:
            whole.scopes.update(part.scopes)
            whole.functions.update(part.functions)
            for kind, values in part.facts.items():
                whole.facts.setdefault(kind, {}).update(values)
            whole.unparsed_strings.update(part.unparsed_strings)
        whole.order = [path for path in order if path in whole.scopes]
        return whole

    def refresh(self, part: "RunSummary", removed=()) -> None:
        """Put what ``part`` (of modules this process parsed again: ``--fix`` rewrote them) says in place of
        what the summary said of them, and drop the modules at ``removed``."""
        stale = set(part.order) | set(removed)
        self.functions = {key: value for key, value in self.functions.items() if key[0] not in stale}
        self.functions.update(part.functions)
        for path in stale:
            self.scopes.pop(path, None)
            for values in self.facts.values():
                values.pop(path, None)
        self.scopes.update(part.scopes)
        for kind, values in part.facts.items():
            self.facts.setdefault(kind, {}).update(values)
        known = set(self.order)
        self.order = [path for path in self.order if path not in removed] + \
            [path for path in part.order if path not in known]


def graph_functions_in(found: dict[int, GraphFunction], info: ModuleInfo) -> list[GraphFunction]:
    """The graph functions defined in one module, outermost first, in source order.

    A function nested inside another graph function is one of them where graph code calls (or passes) it: the
    compiler makes it a graph of its own. The outer function's checks see its body too (a finding is reported once).
    """
    own = [g for g in found.values() if g.node.root() is info.module]
    return sorted(own, key=lambda g: (g.node.lineno, g.node.col_offset))
