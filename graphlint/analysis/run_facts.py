"""Facts of the whole run merged from one plain value per module (see :data:`RUN_FACTS`): globals that code
outside graph scope changes, and the recursion limit in force. Each module's value is computed where the module
is parsed (with ``--jobs``, in the process that owns it) and merged, in the run's order, wherever the fact is
asked for (:meth:`graphlint.analysis.engine.Analysis.run_fact`)."""

from __future__ import annotations

from astroid import nodes
from astroid.const import Context

from graphlint.analysis import api
from graphlint.analysis.scope import definition_keys
from graphlint.analysis.tree import nodes_of_class

# kind -> ``per_module(analysis, info)``: a plain value (what processes send each other)
RUN_FACTS: dict = {}
# kind -> ``read_by(analysis, paths, class_names)``: the part of the merged fact that checking the code of the
# modules at ``paths`` (whose classes are named ``class_names``) can read, as ``(plain data, paths)``: the second,
# other modules whose text that part quotes. What the incremental cache compares (see :mod:`.dependencies`).
RUN_FACT_READERS: dict = {}


def register_run_fact(kind: str, per_module, read_by) -> None:
    RUN_FACTS[kind] = per_module
    RUN_FACT_READERS[kind] = read_by


# -- host-side changes of module globals ------------------------------------------------------------
class HostChanges:
    def __init__(self):
        self.rebound: dict[str, str] = {}  # "pkg.mod.NAME" -> where (function), via `global NAME`
        self.mutated: dict[str, str] = {}  # "pkg.mod.NAME" -> where: item/attribute assignment, mutating call


def host_changes(analysis) -> HostChanges:
    """Globals rebound or mutated by code outside graph scope, merged over the modules of the run."""

    def merge(per_module) -> HostChanges:
        found = HostChanges()
        scope = analysis.scope.functions
        for path, functions in per_module:
            for local, rebound, mutated in functions:
                if (path, local) in scope:
                    continue
                for key, where in rebound:
                    found.rebound.setdefault(key, where)
                for key, where in mutated:
                    found.mutated.setdefault(key, where)
        return found

    return analysis.run_fact("host-changes", merge)


def _module_host_changes(analysis, info) -> tuple:
    """``(function key, rebound, mutated)`` for every function of the module that changes globals (graph code
    or not: which functions are graph code is known once every module is read)."""
    keys = definition_keys(info.module)[0]
    found = []
    for func in nodes_of_class(info.module, nodes.FunctionDef):
        changes = HostChanges()
        _scan_function(analysis.project, info, func, func.name, changes)
        if (changes.rebound or changes.mutated) and not _import_time_only(info, func):
            found.append((keys[id(func)], tuple(changes.rebound.items()), tuple(changes.mutated.items())))
    return tuple(found)


def _host_changes_read(analysis, _paths, _class_names):
    # (keyed by global names, not places: edits elsewhere leave it as it is unless they change what it says)
    found = host_changes(analysis)
    return (sorted(found.rebound.items()), sorted(found.mutated.items())), ()


register_run_fact("host-changes", _module_host_changes, _host_changes_read)


def _import_time_only(info, func: nodes.FunctionDef) -> bool:
    """A module-level function that only module-level code calls (``_make_constants()`` at import time)."""
    if not isinstance(func.parent, nodes.Module):
        return False
    called = False
    for node in nodes_of_class(info.module, nodes.Name):
        if node.name != func.name:
            continue
        if not isinstance(node.frame(), nodes.Module):
            return False  # used inside a function or class: may run at any time
        called = called or (isinstance(node.parent, nodes.Call) and node.parent.func is node)
    return called


def _scan_function(project, info, func: nodes.FunctionDef, where: str, found: HostChanges) -> None:
    declared = set()
    for node in nodes_of_class(func, nodes.Global, skip_klass=(nodes.FunctionDef, nodes.ClassDef)):
        declared.update(node.names)
    for name in declared:
        if name in info.assigned and first_write(func, name) is not None:
            found.rebound.setdefault(f"{info.name}.{name}", where)
    local = set(func.locals) - declared
    for node in nodes_of_class(func, (nodes.Subscript, nodes.AssignAttr, nodes.Call),
                               skip_klass=(nodes.FunctionDef, nodes.ClassDef)):
        if isinstance(node, nodes.Subscript):
            if node.ctx not in (Context.Store, Context.Del):
                continue
            base = node.value
        elif isinstance(node, nodes.AssignAttr):
            base = node.expr
            if isinstance(base, nodes.Name) and base.name not in local:
                module = project_module(project, info, base.name)
                if module is not None and node.attrname in module.assigned:
                    # `cfg.SCALE = value` on an imported project module rebinds that module's global.
                    found.rebound.setdefault(f"{module.name}.{node.attrname}", where)
                    continue
        else:
            if not isinstance(node.func, nodes.Attribute) or node.func.attrname not in api.CONTAINER_MUTATORS:
                continue
            base = node.func.expr
        if not isinstance(base, nodes.Name) or base.name in local:
            continue
        data = data_global(project, info, base.name)
        if data is not None:
            found.mutated.setdefault(f"{data[0].name}.{data[1]}", where)


def data_global(project, info, name: str):
    """(ModuleInfo, name, value) of a module-level variable ``name`` of ``info`` (or imported into it)."""
    if name in info.functions or name in info.classes:
        return None
    if name in info.assigned:
        return info, name, info.assigned[name]
    qualified = info.imports.aliases.get(name)
    if qualified is None or "." not in qualified:
        return None
    module_name, attr = qualified.rsplit(".", 1)
    module = project.find_module(module_name)
    if module is None or attr not in module.assigned or attr in module.functions or attr in module.classes:
        return None
    return module, attr, module.assigned[attr]


def project_module(project, info, name: str):
    """The project module that the imported name ``name`` refers to, or None."""
    qualified = info.imports.aliases.get(name)
    if qualified is None:
        return None
    return project.find_module(qualified)


def first_write(frame, name: str):
    """The first node of ``frame`` that binds ``name`` (AssignName / DelName), nested scopes excluded."""
    for node in nodes_of_class(frame, (nodes.AssignName, nodes.DelName),
                               skip_klass=(nodes.FunctionDef, nodes.ClassDef, nodes.Lambda)):
        if node.name == name and node.frame() is frame:
            return node
    return None


# -- the recursion limit ------------------------------------------------------------------------------
def project_limit(analysis) -> int:
    """The recursion limit in force: the largest `mindspore.set_recursion_limit(n)` (or
    `set_context(max_call_depth=n)`) in the project, else MindSpore's default."""

    return analysis.run_fact("recursion-limit", lambda found: max(
        (n for _path, limits in found for n in limits), default=api.DEFAULT_CALL_DEPTH_LIMIT))


def _module_limits(_analysis, info) -> list[int]:
    found = []
    for call in nodes_of_class(info.module, nodes.Call):
        qualified = info.imports.qualify(call.func)
        setter = api.RECURSION_LIMIT_SETTERS.get(qualified)
        if setter is None:
            continue
        position, keyword = setter
        argument = call.args[position] if position is not None and len(call.args) > position else next(
            (k.value for k in call.keywords or () if k.arg == keyword), None)
        if isinstance(argument, nodes.Const) and isinstance(argument.value, int) and argument.value > 0:
            found.append(argument.value)
    return found


register_run_fact("recursion-limit", _module_limits, lambda analysis, _paths, _names: (project_limit(analysis), ()))
