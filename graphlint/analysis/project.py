"""The files of one run, and name resolution across them without importing anything.

A ``Project`` knows every module of the run (the CLI registers them; the
Pylint plugin takes them from astroid's cache, where Pylint has put every
file it will check). Imports of other project modules that are not in the
run are found on disk below the run's package roots and parsed on demand.
MindSpore itself is never loaded: names from it are recognised by their
qualified spelling (:mod:`graphlint.analysis.names`).
"""

from __future__ import annotations

import os
from dataclasses import dataclass, field

from astroid import nodes

from graphlint.analysis import api
from graphlint.analysis.names import ImportTable
from graphlint.analysis.source import SourceProblem, load, package_root_for
from graphlint.analysis.tree import nodes_of_class

EXTERNAL_TOPS = api.EXTERNAL_PACKAGES


class StarImportTable(ImportTable):
    """The import table of a module with ``from M import *``: the names M exports are added when the table is first
    read (M may be a module of the run that is not parsed yet when this one is added), and again after M changes.

    Explicit imports win over star names (and the module's own classes, functions and assignments are not taken
    from a star: the project resolves them first)."""

    def __init__(self, module: nodes.Module, stars: list[str]):
        self._expand = None  # () -> the star names; set by the project
        self._merged: dict[str, str] | None = None
        self._expanding = False
        self.own_aliases: dict[str, str] = {}
        self.stars = stars  # absolute names of the modules star-imported, in order
        super().__init__(module)

    @property
    def aliases(self) -> dict[str, str]:
        if self._expand is None or self._expanding:
            return self.own_aliases
        if self._merged is None:
            self._expanding = True  # a star cycle (a imports * from b, b from a) sees the names found so far
            try:
                self._merged = {**self._expand(), **self.own_aliases}
            finally:
                self._expanding = False
        return self._merged

    @aliases.setter
    def aliases(self, value: dict[str, str]) -> None:
        self.own_aliases = value

    def attach(self, expand) -> None:
        self._expand, self._merged = expand, None

    def reset(self) -> None:
        """Read the star-imported modules again when next asked (one of them changed)."""
        self._merged = None


def _star_bases(module: nodes.Module, imports: ImportTable) -> list[str]:
    """The absolute names of the modules a module star-imports (``from X import *``, at module level), in order."""
    return [imports.absolute_from(node) for node in _module_level_statements(module)
            if isinstance(node, nodes.ImportFrom) and any(name == "*" for name, _ in node.names)]


def _own_imports(info: "ModuleInfo") -> dict[str, str]:
    """A module's explicit imports (without the names its star imports bring; reading those may load modules)."""
    imports = info.imports
    return imports.own_aliases if isinstance(imports, StarImportTable) else imports.aliases


def _dunder_all(module: nodes.Module) -> list[str] | None:
    """The names of a module-level ``__all__`` made of string literals (``=`` and ``+=``), or None."""
    names = None
    for node in _module_level_statements(module):
        if isinstance(node, nodes.Assign) and any(isinstance(t, nodes.AssignName) and t.name == "__all__"
                                                  for t in node.targets):
            names = _literal_strings(node.value)
        elif isinstance(node, nodes.AugAssign) and isinstance(node.target, nodes.AssignName) \
                and node.target.name == "__all__" and names is not None:
            more = _literal_strings(node.value)
            names = names + more if more is not None else None
        elif isinstance(node, nodes.AnnAssign) and isinstance(node.target, nodes.AssignName) \
                and node.target.name == "__all__" and node.value is not None:
            names = _literal_strings(node.value)
    return names


def _literal_strings(node) -> list[str] | None:
    if isinstance(node, (nodes.List, nodes.Tuple)) and all(
            isinstance(e, nodes.Const) and isinstance(e.value, str) for e in node.elts):
        return [e.value for e in node.elts]
    return None


@dataclass
class ModuleInfo:
    module: nodes.Module
    path: str
    name: str
    imports: ImportTable
    functions: dict[str, nodes.FunctionDef] = field(default_factory=dict)
    classes: dict[str, nodes.ClassDef] = field(default_factory=dict)
    assigned: dict[str, nodes.NodeNG] = field(default_factory=dict)  # module-level NAME = value
    from_disk: bool = False  # loaded when graph code needed something it defines, not a file of the run

    @classmethod
    def build(cls, module: nodes.Module, path: str) -> "ModuleInfo":
        imports = ImportTable(module)
        stars = _star_bases(module, imports)
        if stars:
            imports = StarImportTable(module, stars)
        info = cls(module=module, path=path, name=module.name or "", imports=imports)
        for node in _module_level_statements(module):
            if isinstance(node, nodes.FunctionDef):
                info.functions.setdefault(node.name, node)
            elif isinstance(node, nodes.ClassDef):
                info.classes.setdefault(node.name, node)
            elif isinstance(node, nodes.Assign):
                for target in node.targets:
                    if isinstance(target, nodes.AssignName):
                        info.assigned[target.name] = node.value
            elif isinstance(node, nodes.AnnAssign) and node.value is not None:
                if isinstance(node.target, nodes.AssignName):
                    info.assigned[node.target.name] = node.value
        return info


def _import_targets(info: ModuleInfo) -> set[str]:
    """The modules (and imported names) ``info`` imports explicitly, and the modules it star-imports."""
    targets = set(_own_imports(info).values())
    if isinstance(info.imports, StarImportTable):
        targets.update(info.imports.stars)
    return targets


def _module_level_statements(module: nodes.Module):
    """Module body, looking inside module-level if/try blocks (version switches, optional imports)."""
    stack = list(reversed(module.body))
    while stack:
        node = stack.pop()
        yield node
        if isinstance(node, (nodes.If, nodes.Try)):
            children = list(node.body) + list(getattr(node, "orelse", []))
            for handler in getattr(node, "handlers", []):
                children.extend(handler.body)
            children.extend(getattr(node, "finalbody", []))
            stack.extend(reversed(children))


def enclosing_definition(name: nodes.Name):
    """What ``name`` is bound to in a function that encloses it (Python's lexical scoping; class bodies are
    skipped, as Python skips them): the ClassDef or FunctionDef of a local ``class``/``def``, another binding
    node (an assignment, a parameter) when the function binds the name otherwise, or None when no enclosing
    function binds it (a module-level name). Classes and helpers defined inside a test or a factory function are
    found this way; two tests that each define a ``Net`` do not see each other's."""
    scope = name.scope()
    if isinstance(scope, nodes.FunctionDef) and name.name in scope.locals and _binds_before_use(scope, name):
        return _one_binding(scope.locals[name.name])
    return outer_binding(scope, name.name)


def outer_binding(scope, name: str):
    """What binds ``name`` in the functions that enclose ``scope`` (not ``scope`` itself), as
    :func:`enclosing_definition` says it; None when none does."""
    scope = scope.parent.scope() if scope.parent is not None else None
    while scope is not None and not isinstance(scope, nodes.Module):
        if isinstance(scope, (nodes.FunctionDef, nodes.Lambda)) and name in scope.locals:
            return _one_binding(scope.locals[name])
        scope = scope.parent.scope() if scope.parent is not None else None
    return None


def _binds_before_use(scope, name: nodes.Name) -> bool:
    """A function's own local binding of ``name`` is a class or def (a plain local variable is the value
    analysis' business, not a project object)."""
    return any(isinstance(b, (nodes.ClassDef, nodes.FunctionDef)) for b in scope.locals[name.name])


def _one_binding(bindings):
    """The class or def among a function's bindings of one name when it is the only one, else the first
    other binding (the name is a variable there)."""
    defs = [b for b in bindings if isinstance(b, (nodes.ClassDef, nodes.FunctionDef))]
    if len(defs) == 1 and len(bindings) == 1:
        return defs[0]
    others = [b for b in bindings if not isinstance(b, (nodes.ClassDef, nodes.FunctionDef))]
    return (others or defs or [None])[0]


# A resolved name: what kind of thing, the node, and the module it lives in.
@dataclass(frozen=True)
class Resolved:
    kind: str  # "class" | "function" | "module"
    node: nodes.NodeNG
    info: ModuleInfo


class Project:
    def __init__(self) -> None:
        self.by_name: dict[str, ModuleInfo] = {}
        self._aliases: dict[str, set[str]] = {}  # path -> the other names by_name knows its module by (forget)
        self.by_path: dict[str, ModuleInfo] = {}
        self.by_node: dict[int, ModuleInfo] = {}
        self.roots: set[str] = set()
        self._disk_misses: set[str] = set()
        self._cell_memo: dict[int, tuple[nodes.ClassDef, bool]] = {}
        self._node_memo: dict[tuple, tuple[nodes.NodeNG, object]] = {}  # see memo()
        self._resolve_memo: dict[int, tuple] = {}  # id(expr) -> (expr, info, resolved): see resolve_expr()
        # Who imports what, for finding the modules a change may affect: every prefix of each imported name
        # ("a", "a.b", "a.b.c" for `import a.b.c`) -> the paths of the importing modules, and the exact names.
        self._imports_under: dict[str, set[str]] = {}
        self._imports_exactly: dict[str, set[str]] = {}
        # Files of the run that were not parsed (they never mention MindSpore): graph code may load them
        # later, but facts of the whole run read them from here, so that they do not depend on which
        # modules happen to be loaded when they are computed (in which process, after which checks).
        self.unparsed: set[str] = set()
        # The identifier-like strings of each of those files (see analysis.boundary), once read, or as the result
        # cache kept them for the files that did not change since.
        self.unparsed_strings: dict[str, frozenset] = {}
        # With --jobs each process parses its share of the run: the run's other files that mention MindSpore,
        # by module name (the first of the run with that name, as one process registers them), are parsed from
        # disk when something needs them, as modules of the run.
        self.run_files: set[str] = set()
        self.run_names: dict[str, str] = {}
        # While the processes parse their shares: ``take_run_file(path)`` takes a file of the run that no process
        # has parsed yet into this process's share, parsing it (True), or says another process has it (False).
        self.take_run_file = None
        # ``from X import *``: X's name -> the paths of the modules that star-import it (their star names are read
        # again when X is added, replaced or forgotten).
        self._star_importers: dict[str, set[str]] = {}

    # -- registration -------------------------------------------------
    @staticmethod
    def normalise(path: str | None, module: nodes.Module | None = None) -> str:
        if path:
            return os.path.abspath(path)
        return f"<{module.name if module is not None else ''}>"

    def add(self, module: nodes.Module, path: str | None) -> ModuleInfo:
        existing = self.by_node.get(id(module))
        if existing is not None:
            return existing
        path = self.normalise(path, module)
        info = ModuleInfo.build(module, path)
        self.by_node[id(module)] = info
        self.by_path[path] = info
        if info.name and self.run_names.get(info.name, path) == path:
            self.by_name.setdefault(info.name, info)
        if os.path.isfile(path):
            self.roots.add(package_root_for(path))
        for target in _import_targets(info):
            self._imports_exactly.setdefault(target, set()).add(path)
            parts = target.split(".")
            for end in range(1, len(parts) + 1):
                self._imports_under.setdefault(".".join(parts[:end]), set()).add(path)
        if isinstance(info.imports, StarImportTable):
            for base in info.imports.stars:
                self._star_importers.setdefault(base, set()).add(path)
            info.imports.attach(lambda: self._star_names(info))
        self._stars_changed(info.name)
        return info

    def forget(self, path: str) -> None:
        """Drop a module (one that could not be analysed, or one about to be replaced)."""
        info = self.by_path.pop(self.normalise(path), None)
        if info is not None:
            self.by_node.pop(id(info.module), None)
            if self.by_name.get(info.name) is info:
                del self.by_name[info.name]
                for name in self._aliases.pop(info.path, ()):
                    if self.by_name.get(name) is info:
                        del self.by_name[name]
            for target in _import_targets(info):  # the keys add() put it under
                self._imports_exactly.get(target, set()).discard(info.path)
                parts = target.split(".")
                for end in range(1, len(parts) + 1):
                    self._imports_under.get(".".join(parts[:end]), set()).discard(info.path)
            if isinstance(info.imports, StarImportTable):
                for base in info.imports.stars:
                    self._star_importers.get(base, set()).discard(info.path)
            self._stars_changed(info.name)

    def _alias(self, dotted: str, info: ModuleInfo) -> None:
        self.by_name[dotted] = info
        self._aliases.setdefault(info.path, set()).add(dotted)

    def replace(self, path: str, module: nodes.Module) -> ModuleInfo:
        """Register ``module`` at ``path`` in place of the module there (a new text of the same file)."""
        self.forget(path)
        self._disk_misses.clear()
        return self.add(module, path)

    # -- star imports ---------------------------------------------------------------------------------------
    def _star_names(self, info: ModuleInfo) -> dict[str, str]:
        """Local name -> qualified name of what the star imports of ``info`` bring (a later star wins)."""
        found: dict[str, str] = {}
        for base in info.imports.stars:
            found.update(self.star_exports(base))
        own = info.classes.keys() | info.functions.keys() | info.assigned.keys()
        return {name: qualified for name, qualified in found.items() if name not in own}

    def star_exports(self, dotted: str) -> dict[str, str]:
        """What ``from dotted import *`` binds: name -> qualified name. A project module exports its ``__all__``
        (when it is a literal), else every public name it defines or imports (its own star imports included); a
        MindSpore module the names of its ``__all__`` as measured (:data:`api.STAR_IMPORT_NAMES`)."""
        module = self.find_module(dotted)
        if module is None:
            return {name: f"{dotted}.{name}" for name in api.STAR_IMPORT_NAMES.get(dotted, ())}
        bound = dict(module.imports.aliases)
        for name in (*module.assigned, *module.classes, *module.functions):
            bound[name] = f"{dotted}.{name}"
        listed = _dunder_all(module.module)
        if listed is not None:
            return {name: bound.get(name, f"{dotted}.{name}") for name in listed}
        return {name: qualified for name, qualified in bound.items() if not name.startswith("_")}

    def _stars_changed(self, name: str) -> None:
        """Module ``name`` was added or dropped: the modules that star-import it (directly or through others) read
        their star names again when next asked."""
        pending, seen = [name], set()
        while pending:
            current = pending.pop()
            if not current or current in seen:
                continue
            seen.add(current)
            for path in self._star_importers.get(current, ()):
                other = self.by_path.get(path)
                if other is not None and isinstance(other.imports, StarImportTable):
                    other.imports.reset()
                    pending.append(other.name)

    def importers(self, info: ModuleInfo) -> list[ModuleInfo]:
        """The modules that import ``info`` (or a name in it, or a package holding it), transitively."""
        found: dict[str, ModuleInfo] = {}
        pending = [info]
        while pending:
            current = pending.pop()
            name = current.name
            if not name:
                continue
            paths = set(self._imports_under.get(name, ()))
            parts = name.split(".")
            for end in range(1, len(parts)):
                paths |= self._imports_exactly.get(".".join(parts[:end]), set())
            for path in paths:
                other = self.by_path.get(path)
                if other is not None and other is not info and path not in found:
                    found[path] = other
                    pending.append(other)
        return list(found.values())

    def forget_memos(self, module_ids: set[int]) -> None:
        """Drop what is remembered of the classes of these modules (they changed, or what they import did)."""
        self._cell_memo = {k: v for k, v in self._cell_memo.items() if id(v[0].root()) not in module_ids}
        self._node_memo = {k: v for k, v in self._node_memo.items() if id(v[0].root()) not in module_ids}
        self._resolve_memo = {k: v for k, v in self._resolve_memo.items() if id(v[0].root()) not in module_ids}

    def memo(self, kind: str, node: nodes.NodeNG, compute):
        """``compute()``, remembered for ``node`` (a class, a module) until its module, or one it imports, changes."""
        key = (kind, id(node))
        found = self._node_memo.get(key)
        if found is not None and found[0] is node:
            return found[1]
        value = compute()
        self._node_memo[key] = (node, value)
        return value

    def info(self, module: nodes.Module) -> ModuleInfo:
        return self.by_node.get(id(module)) or self.add(module, module.file)

    @property
    def modules(self) -> list[ModuleInfo]:
        return list(self.by_path.values())

    # -- finding modules ----------------------------------------------
    def find_module(self, dotted: str) -> ModuleInfo | None:
        if not dotted:
            return None
        found = self.by_name.get(dotted)
        if found is not None:
            return found
        path = self.run_names.get(dotted)
        if path is not None:
            return self.module_at(path)
        if dotted.split(".")[0] in EXTERNAL_TOPS or dotted in self._disk_misses:
            return None
        relative = dotted.replace(".", os.sep)
        for root in sorted(self.roots):
            for candidate in (os.path.join(root, relative + ".py"), os.path.join(root, relative, "__init__.py")):
                absolute = os.path.abspath(candidate)
                known = self.by_path.get(absolute)
                if known is None and absolute in self.run_files:
                    # a run file named otherwise (in a folder without __init__.py): loaded as the run's own
                    known = self.module_at(absolute)
                if known is not None:
                    self._alias(dotted, known)
                    return known
                if os.path.isfile(candidate):
                    try:
                        source = load(candidate)
                    except SourceProblem:
                        continue
                    info = self.add(source.module, candidate)
                    info.from_disk = True
                    self._alias(dotted, info)
                    return info
        self._disk_misses.add(dotted)
        return None

    def module_at(self, path: str) -> ModuleInfo | None:
        """The module of the file at ``path``, read from disk when it is not loaded (None if it cannot be)."""
        path = self.normalise(path)
        found = self.by_path.get(path)
        if found is None and self.take_run_file is not None and path in self.run_files and self.take_run_file(path):
            return self.by_path.get(path)  # (None if it could not be parsed: its problem is this process's)
        if found is None and os.path.isfile(path):
            try:
                source = load(path)
            except (SourceProblem, RecursionError):
                return None
            found = self.add(source.module, path)
            found.from_disk = path not in self.run_files
        return found

    # -- resolving names ----------------------------------------------
    def resolve_name(self, info: ModuleInfo, name: str, depth: int = 0) -> Resolved | None:
        if depth > 8:
            return None
        if name in info.classes:
            return Resolved("class", info.classes[name], info)
        if name in info.functions:
            return Resolved("function", info.functions[name], info)
        alias = info.assigned.get(name)
        if isinstance(alias, (nodes.Name, nodes.Attribute)) and not (isinstance(alias, nodes.Name) and alias.name == name):
            return self.resolve_expr_in(info, alias, depth + 1)  # `Block = ResidualBlock`: a class alias
        qualified = info.imports.aliases.get(name)
        if qualified is None:
            return None
        return self.resolve_qualified(qualified, depth + 1)

    def resolve_qualified(self, qualified: str, depth: int = 0) -> Resolved | None:
        """``pkg.mod.Name`` or ``pkg.mod`` to a project class, function or module."""
        if qualified.split(".")[0] in EXTERNAL_TOPS:
            return None
        module = self.find_module(qualified)
        if module is not None:
            return Resolved("module", module.module, module)
        if "." not in qualified:
            return None
        mod_name, attr = qualified.rsplit(".", 1)
        module = self.find_module(mod_name)
        if module is None:
            return None
        return self.resolve_name(module, attr, depth + 1)

    def resolve_expr_in(self, info: ModuleInfo, expr, depth: int) -> Resolved | None:
        """:meth:`resolve_expr` of a module-level expression, with the depth of the resolution it is part of."""
        if depth > 8:
            return None
        if isinstance(expr, nodes.Name):
            return self.resolve_name(info, expr.name, depth)
        owner = self.resolve_expr_in(info, expr.expr, depth + 1) if isinstance(expr, nodes.Attribute) else None
        if owner is not None and owner.kind == "module":
            return self.resolve_name(owner.info, expr.attrname, depth + 1)
        return None

    def resolve_expr(self, info: ModuleInfo, expr) -> Resolved | None:
        """A Name or an attribute chain (``mod.func``, ``pkg.mod.Class``) to a project object."""
        if not isinstance(expr, (nodes.Name, nodes.Attribute)):
            return None
        # remembered per expression (graph scope, the analysis and the rules resolve the same names many times)
        found = self._resolve_memo.get(id(expr))
        if found is not None and found[0] is expr and found[1] is info:
            return found[2]
        resolved = self._resolve_expr(info, expr)
        self._resolve_memo[id(expr)] = (expr, info, resolved)
        return resolved

    def _resolve_expr(self, info: ModuleInfo, expr) -> Resolved | None:
        if isinstance(expr, nodes.Name):
            local = enclosing_definition(expr)
            if local is not None:
                return Resolved("class" if isinstance(local, nodes.ClassDef) else "function", local, info) \
                    if isinstance(local, (nodes.ClassDef, nodes.FunctionDef)) else None
            return self.resolve_name(info, expr.name)
        if isinstance(expr, nodes.Attribute):
            owner = self.resolve_expr(info, expr.expr)
            if owner is not None and owner.kind == "module":
                return self.resolve_name(owner.info, expr.attrname)
        return None

    # -- classes -------------------------------------------------------
    def base_classes(self, cls: nodes.ClassDef) -> list[tuple[nodes.ClassDef, ModuleInfo]]:
        info = self.info(cls.root())
        found = []
        for base in cls.bases:
            resolved = self.resolve_expr(info, base)
            if resolved is not None and resolved.kind == "class" and resolved.node is not cls:
                found.append((resolved.node, resolved.info))
        return found

    def mro(self, cls: nodes.ClassDef) -> list[nodes.ClassDef]:
        """The class and its project bases, depth first (good enough for lookups). Callers only iterate it: it is
        remembered as the other per-class answers are."""
        return self.memo("mro", cls, lambda: self._mro(cls))

    def _mro(self, cls: nodes.ClassDef) -> list[nodes.ClassDef]:
        seen: list[nodes.ClassDef] = []
        stack = [cls]
        while stack:
            current = stack.pop(0)
            if any(current is s for s in seen) or len(seen) > 50:
                continue
            seen.append(current)
            stack.extend(base for base, _ in self.base_classes(current))
        return seen

    def mindspore_layer_base(self, cls: nodes.ClassDef) -> str | None:
        """``mindspore.nn.Dropout`` for a project class that subclasses that layer (directly or through project
        classes) and defines no ``construct`` of its own: calling it runs the layer's. None otherwise."""
        return self.inherited_layer(cls, own_construct=False)

    def inherited_layer(self, cls: nodes.ClassDef, own_construct: bool = True) -> str | None:
        """The MindSpore layer (``mindspore.nn.LayerNorm``) a project class subclasses, directly or through
        project classes: its ``__init__`` sets the layer's attributes. With ``own_construct`` False, None when
        the class (or a project base) defines a ``construct`` of its own."""
        for klass in self.mro(cls):
            if not own_construct and "construct" in klass.locals:
                return None
            info = self.info(klass.root())
            for base in klass.bases:
                qualified = info.imports.qualify(base)
                if api.is_layer_class_name(qualified) and qualified != api.CELL_BASE:
                    return qualified
        return None

    def is_cell(self, cls: nodes.ClassDef) -> bool:
        key = id(cls)
        if key in self._cell_memo:
            return self._cell_memo[key][1]
        self._cell_memo[key] = (cls, False)  # guards against cyclic inheritance
        info = self.info(cls.root())
        result = False
        for base in cls.bases:
            qualified = info.imports.qualify(base)
            if qualified and api.is_mindspore_cell_name(qualified):
                result = True
                break
        if not result:
            result = any(self.is_cell(base) for base, _ in self.base_classes(cls))
        self._cell_memo[key] = (cls, result)
        return result

    def find_method(self, cls: nodes.ClassDef, name: str) -> tuple[nodes.FunctionDef, nodes.ClassDef] | None:
        return self.memo("methods", cls, lambda: self._methods(cls)).get(name)

    def _methods(self, cls: nodes.ClassDef) -> dict[str, tuple[nodes.FunctionDef, nodes.ClassDef]]:
        """Every method name of the class and its project bases, with the definition a lookup finds first."""
        found: dict = {}
        for klass in self.mro(cls):
            for node in klass.body:
                if isinstance(node, nodes.FunctionDef):
                    found.setdefault(node.name, (node, klass))
        return found

    def attribute_assignments(self, cls: nodes.ClassDef) -> dict[str, list[tuple[nodes.NodeNG, nodes.FunctionDef]]]:
        """``self.NAME = value`` anywhere in the class or its project bases (subclass first). Callers read it, never
        change it: it is remembered until the class's module, or one it imports, changes."""
        return self.memo("attribute-assignments", cls, lambda: self._attribute_assignments(cls))

    def _attribute_assignments(self, cls: nodes.ClassDef) -> dict[str, list]:
        found: dict[str, list] = {}
        for klass in self.mro(cls):
            for attr, assignments in self.memo("own attribute-assignments", klass,
                                               lambda k=klass: _own_attribute_assignments(k)).items():
                found.setdefault(attr, []).extend(assignments)
        return found


def _own_attribute_assignments(klass: nodes.ClassDef) -> dict[str, list]:
    """``self.NAME = value`` in the methods ``klass`` itself defines (remembered per class: a base is shared by
    many subclasses)."""
    found: dict[str, list] = {}
    for method in klass.body:
        if not isinstance(method, nodes.FunctionDef) or not method.args.args:
            continue
        self_name = method.args.args[0].name
        for node in nodes_of_class(method, (nodes.Assign, nodes.AnnAssign, nodes.AugAssign, nodes.Call)):
            if isinstance(node, nodes.Call):
                registered = _registered_buffer(node, self_name)
                if registered is not None:
                    found.setdefault(registered[0], []).append((registered[1], method))
                continue
            targets = node.targets if isinstance(node, nodes.Assign) else [node.target]
            for target in targets:
                for attr, value in _self_attribute_targets(target, node.value, self_name):
                    found.setdefault(attr.attrname, []).append((value, method))
    return found


def _registered_buffer(call: nodes.Call, self_name: str):
    """(name, value) of ``self.register_buffer("name", value)``: MindSpore's Cell keeps the Tensor as an attribute
    of that name, as PyTorch's Module does."""
    func = call.func
    if not (isinstance(func, nodes.Attribute) and func.attrname in api.BUFFER_REGISTRARS
            and isinstance(func.expr, nodes.Name) and func.expr.name == self_name and len(call.args) >= 2
            and isinstance(call.args[0], nodes.Const) and isinstance(call.args[0].value, str)):
        return None
    return call.args[0].value, call.args[1]


def _self_attribute_targets(target, value, self_name: str):
    """(``self.attr`` target, the value assigned to it); tuple targets pair up element-wise."""
    if isinstance(target, nodes.AssignAttr) and isinstance(target.expr, nodes.Name) and target.expr.name == self_name:
        yield target, value
    elif isinstance(target, (nodes.Tuple, nodes.List)):
        values = value.elts if isinstance(value, (nodes.Tuple, nodes.List)) and len(value.elts) == len(target.elts) else None
        for index, element in enumerate(target.elts):
            yield from _self_attribute_targets(element, values[index] if values else None, self_name)
