"""Objects graph code holds: the project classes whose instances an attribute, a module global or an ``__init__``
argument holds.

MindSpore compiles every method graph code calls, whatever holds the object: a plain Python class kept as
``self.sched = Scheduler()`` (``self.sched.step(x, t)`` compiles ``Scheduler.step``), a sub-Cell's method other
than ``construct`` (``self.model.generate(x)``), an instance made at module level, or one passed to ``__init__``.
Graph scope (:mod:`graphlint.analysis.scope`) follows these calls, and the values of an object's attributes are
read from its class's ``__init__`` (:meth:`graphlint.analysis.engine.Analysis.self_attribute`).
"""

from __future__ import annotations

from astroid import nodes

from graphlint.analysis import signatures
from graphlint.analysis.api import JIT_CLASS_DECORATORS
from graphlint.analysis.project import ModuleInfo, Project
from graphlint.analysis.tree import name_lookup, nodes_of_class

MAX_CHAIN = 4  # links of ``self.a.b.c`` followed through held objects


def instantiated(project: Project, info: ModuleInfo, expr, depth: int = 0) -> nodes.ClassDef | None:
    """The project class ``expr`` makes an instance of: ``Cls(...)``, or a name bound once, in the function or
    module that reads it, to such a call."""
    if isinstance(expr, nodes.Name):
        expr = _one_assigned_value(expr)
    if not (isinstance(expr, nodes.Call) and isinstance(expr.func, (nodes.Name, nodes.Attribute))):
        return None
    resolved = project.resolve_expr(info, expr.func)
    if resolved is not None and resolved.kind == "function" and depth < 2:
        # a factory (`model = build_model()`): the one class its returns make
        made = {id(c): c for r in nodes_of_class(resolved.node, nodes.Return) if r.value is not None
                and r.scope() is resolved.node
                for c in [instantiated(project, resolved.info, r.value, depth + 1)]}
        return next(iter(made.values())) if len(made) == 1 and None not in [*made.values()] else None
    return resolved.node if resolved is not None and resolved.kind == "class" else None


def _one_assigned_value(name: nodes.Name):
    """The value of the one plain assignment that binds ``name`` where it is read, else None."""
    try:
        _scope, bindings = name_lookup(name)
    except Exception:  # noqa: BLE001 - astroid's lookup on odd trees
        return None
    if len(bindings) != 1 or not isinstance(bindings[0], nodes.AssignName):
        return None
    assign = bindings[0].parent
    if isinstance(assign, nodes.Assign) and len(assign.targets) == 1 and assign.targets[0] is bindings[0]:
        return assign.value
    return None


def held_classes(project: Project, cls: nodes.ClassDef, name: str) -> tuple[nodes.ClassDef, ...]:
    """The project classes ``self.name`` of an instance of ``cls`` holds instances of: ``self.name = Cls(...)``
    (either side of ``A(...) if c else B(...)``), or ``self.name = arg`` in ``__init__`` where the instantiations of
    ``cls`` in its own module pass ``Cls(...)`` (or a name bound once to one)."""
    found = project.memo("held " + name, cls, lambda: _held_classes(project, cls, name))
    if any(project.by_node.get(id(held.root())) is None for held in found):  # (a module replaced since)
        project.forget_memos({id(cls.root())})
        found = project.memo("held " + name, cls, lambda: _held_classes(project, cls, name))
    return found


def _held_classes(project: Project, cls: nodes.ClassDef, name: str) -> tuple[nodes.ClassDef, ...]:
    found: list[nodes.ClassDef] = []
    for value, method in project.attribute_assignments(cls).get(name, ()):
        info = project.info(method.root())
        for made in (value.body, value.orelse) if isinstance(value, nodes.IfExp) else (value,):
            if isinstance(made, nodes.Name) and method.name == "__init__" \
                    and made.name in {a.name for a in signatures.positional_parameters(method)[1:]}:
                candidates = _passed_to_init(project, cls, method, made.name)
            else:
                candidates = [instantiated(project, info, made)]
            found.extend(held for held in candidates if held is not None and all(held is not f for f in found))
    return tuple(found)


_FOLLOWING: set = set()  # (class, parameter) pairs being resolved: objects passed around in a cycle stop there


def _passed_to_init(project: Project, cls: nodes.ClassDef, init: nodes.FunctionDef, parameter: str) -> list:
    """The project classes whose instances the calls of ``cls`` in its own module pass as ``parameter``: a new
    instance, or an object the caller holds (``Layer(self.store)``, ``self.store = Store()``)."""
    info = project.info(cls.root())
    found = []
    key = (id(cls), parameter)
    if key in _FOLLOWING:
        return found
    _FOLLOWING.add(key)
    try:
        for call in _calls_of(project, info).get(id(cls), ()):
            passed = constructor_argument(init, call, parameter)
            if passed is None:
                continue
            made = instantiated(project, info, passed)
            if made is not None:
                found.append(made)
            else:
                caller = passed.frame()
                owner = caller.parent.frame() if isinstance(caller, nodes.FunctionDef) and isinstance(
                    caller.parent, nodes.ClassDef) else None
                if isinstance(passed, nodes.Attribute):
                    found.extend(object_classes(project, info, passed, owner, depth=1))
                elif isinstance(passed, nodes.Name) and owner is not None and caller.name == "__init__" \
                        and passed.name in {a.name for a in signatures.positional_parameters(caller)[1:]}:
                    # handed on from the holder's own constructor argument (`GATConv(..., store=store)`)
                    found.extend(_passed_to_init(project, owner, caller, passed.name))
    finally:
        _FOLLOWING.discard(key)
    return found


def constructor_argument(init: nodes.FunctionDef, call: nodes.Call, parameter: str):
    """What ``Class(...)`` passes to ``parameter`` of its ``__init__`` (None: nothing, or cannot be told)."""
    positional = [a.name for a in signatures.positional_parameters(init)][1:]  # (self is implicit)
    for index, argument in enumerate(call.args):
        if isinstance(argument, nodes.Starred):
            return None
        if index < len(positional) and positional[index] == parameter:
            return argument
    return next((keyword.value for keyword in call.keywords or () if keyword.arg == parameter), None)


def _calls_of(project: Project, info: ModuleInfo) -> dict[int, list[nodes.Call]]:
    """``{id(class): [calls]}``: the calls of the module that make instances of project classes."""

    def compute():
        found: dict[int, list] = {}
        for call in nodes_of_class(info.module, nodes.Call):
            made = instantiated(project, info, call) if isinstance(call.func, (nodes.Name, nodes.Attribute)) else None
            if made is not None:
                found.setdefault(id(made), []).append(call)
        return found

    return project.memo("instantiations", info.module, compute)


def object_classes(project: Project, info: ModuleInfo, expr, cls: nodes.ClassDef | None,
                   depth: int = 0) -> tuple[nodes.ClassDef, ...]:
    """The project classes an object graph code reads may be an instance of: ``self`` (``cls``), what an attribute
    chain from it holds (``self.sched``, ``self.model.decoder``), or a module global made by a class call
    (``SCHEDULER = Scheduler()``). Graph scope, the analysis and the rules ask it of the same expressions: remembered
    per expression until its module or one it imports changes (or a module a class found is in is replaced)."""
    if depth:
        return _object_classes(project, info, expr, cls, depth)
    kind = "object classes" if cls is None else f"object classes {id(cls)}"
    found = project.memo(kind, expr, lambda: _object_classes(project, info, expr, cls, 0))
    if any(project.by_node.get(id(held.root())) is None for held in found):
        project.forget_memos({id(expr.root())})
        found = project.memo(kind, expr, lambda: _object_classes(project, info, expr, cls, 0))
    return found


def _object_classes(project: Project, info: ModuleInfo, expr, cls: nodes.ClassDef | None,
                    depth: int) -> tuple[nodes.ClassDef, ...]:
    if isinstance(expr, nodes.Name):
        frame = expr.frame()
        if cls is not None and isinstance(frame, nodes.FunctionDef) and signatures.receiver_name(frame, cls) == expr.name:
            return (cls,)
        if isinstance(frame, nodes.FunctionDef) and expr.name in frame.locals:
            # a local bound once to an instance the function makes (`corr_fn = CorrBlock(f1, f2)`)
            made = instantiated(project, info, expr)
            return (made,) if made is not None else ()
        made = instantiated(project, info, info.assigned.get(expr.name)) if expr.name not in info.classes else None
        return (made,) if made is not None else ()
    if isinstance(expr, nodes.Attribute) and depth < MAX_CHAIN:
        found: list = []
        for owner in object_classes(project, info, expr.expr, cls, depth + 1):
            found.extend(held for held in held_classes(project, owner, expr.attrname) if all(held is not f for f in found))
        return tuple(found)
    return ()


def class_body_value(project: Project, cls: nodes.ClassDef, name: str):
    """``(value expression, class)`` of ``name = value`` (or ``name: T = value``) in the body of ``cls`` or its first
    project base that sets it: what ``self.name`` reads where no method assigns it. None when none does."""
    for klass in project.mro(cls):
        for statement in klass.body:
            if isinstance(statement, nodes.Assign) and any(
                    isinstance(target, nodes.AssignName) and target.name == name for target in statement.targets):
                return statement.value, klass
            if isinstance(statement, nodes.AnnAssign) and isinstance(statement.target, nodes.AssignName) \
                    and statement.target.name == name and statement.value is not None:
                return statement.value, klass
    return None


def dataclass_fields(project: Project, cls: nodes.ClassDef) -> list[str] | None:
    """The fields of a ``@dataclass`` class, in the order its generated ``__init__`` takes them; None for another
    class."""
    info = project.info(cls.root())
    decorators = cls.decorators.nodes if cls.decorators else ()
    if not any(info.imports.qualify(d.func if isinstance(d, nodes.Call) else d) == "dataclasses.dataclass"
               for d in decorators):
        return None
    return [statement.target.name for statement in cls.body
            if isinstance(statement, nodes.AnnAssign) and isinstance(statement.target, nodes.AssignName)]


def made_in_function(project: Project, info: ModuleInfo, name: nodes.Name) -> nodes.ClassDef | None:
    """The plain project class (no Cell, no ``jit_class``) whose instance ``name`` holds when the function that
    reads it made it: one of its bindings there is ``name = Cls(...)`` (the others may be None, as in ``params =
    None; if use_cache: params = Params(...)``). MindSpore keeps such an object in its interpreter (an
    ``InterpretedObject``): what graph code writes on it in one step of a loop, the next step does not read
    (measured), and STRICT cannot hold it."""
    function = name.scope()
    made = None
    for assign in nodes_of_class(function, nodes.AssignName):
        if assign.name != name.name or assign.scope() is not function:
            continue
        value = assign.parent.value if isinstance(assign.parent, nodes.Assign) else None
        if isinstance(value, nodes.Const) and value.value is None:
            continue
        cls = instantiated(project, info, value) if isinstance(value, nodes.Call) else None
        if cls is None or project.is_cell(cls) or _jit_class(project.info(cls.root()), cls):
            return None
        made = cls
    return made


def _jit_class(info: ModuleInfo, cls: nodes.ClassDef) -> bool:
    """``@jit_class``: graph code compiles the instance's state (its attributes are graph values)."""
    return any((info.imports.qualify(decorator) or "") in JIT_CLASS_DECORATORS
               for decorator in (cls.decorators.nodes if cls.decorators else ()))
