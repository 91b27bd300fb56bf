"""The one analysis: facts about a run's graph code, shared by the CLI, the Pylint plugin, the fixers and the
language server. It knows MindSpore, never the rules: the rule runner (:mod:`graphlint.runner`) asks it.

Facts are computed lazily and cached. When a module changes (:meth:`Analysis.replace_module`), only the facts
of that module, of the modules that import it, and of the helpers their code calls are recomputed: the
per-function references that graph scope is discovered from are kept for every other function, so re-linting
one file of a large project costs that file, not the project.
"""

from __future__ import annotations

import ast

import hashlib
import os
from dataclasses import replace

from astroid import nodes

from graphlint.analysis import api, callables, host, signatures
from graphlint.analysis.kinds import BOOL, CELL, CLASS, FLOAT, FUNCTION, INT, MODULE, OBJECT, TENSOR, TUPLE, UNKNOWN
from graphlint.analysis.objects import class_body_value, constructor_argument, dataclass_fields
from graphlint.analysis.project import ModuleInfo, Project
from graphlint.analysis import boundary  # noqa: F401 - registers its fact of the run (inner Cells)
from graphlint.analysis.run_facts import RUN_FACTS, register_run_fact
from graphlint.analysis.scope import (GraphFunction, KeyedScope, RunSummary, ScopeIndex, definition_keys, enclosing_class,
                                      function_reference, graph_functions_in, node_at, reference_of)
from graphlint.analysis.tree import literal, nodes_of_class
from graphlint.analysis.lattice import Value, const, join, of_python, unknown, variable
from graphlint.analysis.values import FunctionValues, parameter_values


class Analysis:
    """Facts about a whole run, computed lazily and cached."""

    def __init__(self, project: Project):
        self.project = project
        self.index = ScopeIndex(project)
        self._scope: KeyedScope | None = None
        self._graphs: dict[tuple, GraphFunction] = {}  # key -> its GraphFunction, for the current scope
        self._values: dict[int, FunctionValues] = {}
        self._in_progress: set[int] = set()
        self._attributes: dict[tuple[int, str], Value] = {}
        self._specialised: dict[tuple, Value] = {}
        self._specialising: set[int] = set()
        self._module_facts: dict[tuple[str, int], tuple[object, object]] = {}
        self._project_facts: dict[str, object] = {}
        self._keyed_nodes: dict[int, nodes.NodeNG] = {}
        self._class_facts: dict[tuple[str, int], tuple] = {}
        self._attribute_sources: dict[tuple[int, str], list] = {}
        # What checked modules' graph code passes to the helpers it calls, ``{(helper key, caller key, where):
        # {parameter: Value}, or None where the reference is no call}`` (see :meth:`arguments_passed_in`): a call
        # it holds binds the helper's parameters without reading the caller (a process of a bounded run inherits
        # what those before it found). None: not kept.
        self.passed_arguments: dict | None = None
        self.shared: RunSummary | None = None  # the run's summary, when other processes parsed some of it
        self.version = 0  # counts changes of the project: facts of the whole run are valid for one version

    # -- scope ----------------------------------------------------------------------------------------
    @property
    def scope(self) -> KeyedScope:
        """Every graph function of the run, as keys (:class:`graphlint.analysis.scope.KeyedScope`)."""
        if self._scope is None:
            self._graphs = {}
            self._scope = self.index.discover(self.shared)
        return self._scope

    def graph_functions(self, info: ModuleInfo) -> list[GraphFunction]:
        """The graph functions defined in a module, outermost first, in source order."""
        own = {}
        for key in self.scope.by_path.get(info.path, ()):
            graph = self._graph(key)
            if graph is not None and graph.node.root() is info.module:
                own[id(graph.node)] = graph
        return graph_functions_in(own, info)

    def graph_of(self, func: nodes.FunctionDef) -> GraphFunction | None:
        local = definition_keys(func.root())[0].get(id(func))
        if local is None:
            return None
        info = self.project.by_node.get(id(func.root()))
        if info is None:
            return None
        return self._graph((info.path, local)) if (info.path, local) in self.scope.functions else None

    def _graph(self, key) -> GraphFunction | None:
        """The :class:`GraphFunction` of a key of the scope, built once per discovery."""
        graph = self._graphs.get(key)
        if graph is None:
            found = self.scope.functions.get(key)
            node = self.index.node_of(key) if found is not None else None
            if node is None:
                return None
            root_of = (lambda root=found.root: self._graph(root)) if found.root != key else None
            graph = GraphFunction(node, self.project.info(node.root()), enclosing_class(node), found.kind,
                                  found.entry, found.via, root_of,
                                  entry_path=found.root[0] if root_of is not None else "")
            self._graphs[key] = graph
        return graph

    def references(self, func: nodes.FunctionDef) -> list:
        """Where graph code references ``func``: ``[(GraphFunction, node)]``."""
        graph = self.graph_of(func)
        if graph is None:
            return []
        found = []
        for caller_key, where in self.scope.references.get(self.index.key(func), ()):
            caller = self._graph(caller_key)
            node = node_at(caller.node, where) if caller is not None else None
            if node is not None:
                found.append((caller, node))
        return found

    def callees(self, graph: GraphFunction) -> list[GraphFunction]:
        """The graph functions ``graph``'s body references (calls, or passes as a value), in source order."""
        by_caller = self.project_fact("references-by-caller", self.scope.references_by_caller)
        found = []
        for key, _where in sorted(by_caller.get(self.index.key(graph.node), ()), key=lambda item: item[1]):
            callee = self._graph(key)
            if callee is not None and all(callee is not other for other in found):
                found.append(callee)
        return found

    # -- changes --------------------------------------------------------------------------------------
    def replace_module(self, path: str, module: nodes.Module | None) -> ModuleInfo | None:
        """Put ``module`` in place of the module at ``path`` (add it if new; remove it when ``module`` is None),
        and forget the facts it may change (see :meth:`replace_modules`)."""
        return self.replace_modules([(path, module)])[0]

    def replace_modules(self, changes: list[tuple[str, nodes.Module | None]]) -> list[ModuleInfo | None]:
        """:meth:`replace_module` for several modules at once: the facts of the whole run (graph scope, project
        facts) are forgotten once for all of them, not once per module (``--fix`` changes many files a round).

        What other modules read of a module is its *interface*: everything but the bodies of its graph
        functions (whose attribute writes count, though). When only graph-function bodies changed (what
        ``--fix`` does), the modules that import it keep their facts; the callers of its graph functions (their
        return values) and the helpers it calls (their parameters) are analysed again."""
        affected: set[int] = set()
        replaced = []
        for path, module in changes:
            old = self.project.by_path.get(self.project.normalise(path))
            graph_names = self.graph_function_names(old) if old is not None else set()
            if old is not None:
                affected |= self.call_neighbours(old)
            info = self.project.replace(path, module) if module is not None else None
            if module is None and old is not None:
                self.project.forget(path)
            changed_interface = old is None or info is None or \
                _interface(old.module, graph_names) != _interface(info.module, graph_names)
            for current in (old, info):
                if current is None:
                    continue
                affected.add(id(current.module))
                if changed_interface:
                    affected |= {id(other.module) for other in self.project.importers(current)}
                    if self.index.defines_jit_class(current):
                        affected |= {id(other.module) for other in self.project.modules}  # any code may call it
            replaced.append(info)
        self._forget(affected)
        if self.shared is not None:  # (the summary the scope is discovered from, see share) speaks for the new texts
            self.shared.refresh(self.summarise([info for info in replaced if info is not None]),
                                [self.project.normalise(path) for path, module in changes if module is None])
        return replaced

    def interface_digest(self, info: ModuleInfo, graph_names=None) -> str:
        """A digest of what other modules can read of ``info`` (see :meth:`replace_modules`), its graph functions
        being those of the current scope or, given, those named ``graph_names``."""
        names = self.graph_function_names(info) if graph_names is None else set(graph_names)
        text = _interface(info.module, names)
        return hashlib.sha256(text.encode("utf-8", "surrogateescape")).hexdigest()[:32]

    def graph_function_names(self, info: ModuleInfo) -> set[str]:
        """The display names of the module's graph functions (``replace_modules`` asks before a change: the scope
        is cheap to rediscover, references are cached per function)."""
        return {self.scope.functions[key].display for key in self.scope.by_path.get(info.path, ())}

    def call_neighbours(self, info: ModuleInfo) -> set[int]:
        """ids of the modules whose values depend on the graph code of ``info``: the modules of the graph
        functions that call its graph functions (transitively: return values flow up), and of the helpers that
        code calls (transitively: parameters flow down)."""
        return {id(self.project.by_path[path].module) for path in self.call_neighbour_paths(info.path)
                if path in self.project.by_path}

    def call_neighbour_paths(self, path: str) -> set[str]:
        """The paths of :meth:`call_neighbours` of the module at ``path``, loaded or not (``--fix --jobs``
        groups modules by them before each process has parsed its share: the run's summary answers)."""
        scope = self.scope
        own = list(scope.by_path.get(path, ()))
        paths: set[str] = set()
        pending, callers = list(own), set()
        while pending:  # callers, upwards
            key = pending.pop()
            for caller, _where in scope.references.get(key, ()):
                if caller not in callers:
                    callers.add(caller)
                    paths.add(caller[0])
                    pending.append(caller)
        # (the callers themselves, not a pass over the whole scope: once per changed module, that was quadratic)
        pending = own + [key for key in callers if key in scope.functions]
        seen: set = set()
        while pending:  # callees, downwards
            key = pending.pop()
            summary = (self.shared.functions.get(key) if self.shared is not None else None) or \
                self.index.summary_of(key)
            for _where, target, _display in summary.edges if summary is not None else ():
                if target in seen:
                    continue
                seen.add(target)
                paths.add(target[0])
                if target in scope.functions:
                    pending.append(target)
        return paths

    def _forget(self, affected: set[int]) -> None:
        self.version += 1
        self._scope = None
        self._graphs = {}
        self._project_facts.clear()
        self.index.forget(affected)
        self.project.forget_memos(affected)

        def stale(node) -> bool:
            return node is None or id(node.root()) in affected

        self._values = {k: v for k, v in self._values.items() if not stale(v.func)}
        self._attributes = {k: v for k, v in self._attributes.items() if not stale(self._keyed_nodes.get(k[0]))}
        self._specialised = {k: v for k, v in self._specialised.items() if not stale(self._keyed_nodes.get(k[0]))}
        self._module_facts = {k: v for k, v in self._module_facts.items() if k[1] not in affected}
        self._class_facts = {k: v for k, v in self._class_facts.items() if id(v[0].root()) not in affected}
        self._keyed_nodes = {k: n for k, n in self._keyed_nodes.items() if not stale(n)}
        self._attribute_sources = {k: v for k, v in self._attribute_sources.items() if k[0] in self._keyed_nodes}
        if self.passed_arguments is not None:
            self.passed_arguments = {}

    def _key(self, node) -> int:
        """``id(node)`` as a cache key; the node is kept so that its module can be told when it changes (and
        so that the id is not reused by another node while the entry lives)."""
        self._keyed_nodes[id(node)] = node
        return id(node)

    # -- facts per module and per run -------------------------------------------------------------------
    def module_fact(self, kind: str, info: ModuleInfo, compute, *, scope_dependent: bool = False):
        """``compute(info)``, cached per module until it (or a module it imports) changes. A fact that depends
        on which of the module's functions are graph code is recomputed when that set changes."""
        key = (kind, id(info.module))
        stamp = frozenset(id(g.node) for g in self.graph_functions(info)) if scope_dependent else None
        cached = self._module_facts.get(key)
        if cached is not None and cached[0] == stamp:
            return cached[1]
        value = compute(info)
        self._module_facts[key] = (stamp, value)
        return value

    def run_modules(self) -> list[ModuleInfo]:
        """The modules of the run, in order (not those loaded from disk for what they define: which ones are
        depends on what was checked before, in which process)."""
        return [info for info in self.project.modules if not info.from_disk]

    def run_fact(self, kind: str, merge):
        """``merge([(module path, value)])`` over the value of fact ``kind`` (see :data:`RUN_FACTS`) of every
        module of the run, in order; cached until the project changes."""

        def compute():
            if self.shared is not None:
                values = self.shared.facts.get(kind, {})
                return merge([(path, values[path]) for path in self.shared.order if path in values])
            return merge([(info.path, self.run_fact_of(kind, info)) for info in self.run_modules()])

        return self.project_fact(kind, compute)

    def run_fact_of(self, kind: str, info: ModuleInfo):
        """One module's value of fact ``kind`` of the run, cached like any fact of the module."""
        return self.module_fact(kind, info, lambda i: RUN_FACTS[kind](self, i))

    def summarise(self, infos, unparsed=()) -> RunSummary:
        """What ``infos`` (modules this process parsed) and ``unparsed`` (paths of run files this process checked
        the syntax of) give the rest of the run (see :meth:`share`)."""
        part = RunSummary([info.path for info in infos], {}, {}, {kind: {} for kind in RUN_FACTS})
        known = self.project.unparsed_strings
        part.unparsed_strings = {path: known[path] for path in unparsed if path in known}
        for info in infos:
            part.scopes[info.path] = self.index.module_scope(info)
            part.functions.update(self.index.summaries(info))
            for kind in RUN_FACTS:
                part.facts[kind][info.path] = self.run_fact_of(kind, info)
        return part

    def share(self, summary: RunSummary, scope: KeyedScope | None = None) -> None:
        """Discover scope and the facts of the run from ``summary`` (every module's, gathered by
        :meth:`RunSummary.gather`) instead of from the modules this process loaded; ``scope``: the scope another
        process discovered from the same summary, if any."""
        self.shared = summary
        self.project.unparsed_strings.update(summary.unparsed_strings)
        self._scope = scope
        self._graphs = {}
        self._project_facts.clear()

    def project_fact(self, kind: str, compute):
        """``compute()``, cached until the project changes (for facts merged from :meth:`module_fact`)."""
        if kind not in self._project_facts:
            self._project_facts[kind] = compute()
        return self._project_facts[kind]

    # -- values -----------------------------------------------------------------------------------------
    def values(self, graph: GraphFunction) -> FunctionValues | None:
        key = id(graph.node)
        found = self._values.get(key)
        if found is not None:
            return found
        if key in self._in_progress:
            return None
        self._in_progress.add(key)
        try:
            bound = self._bound_parameters(graph) if not graph.is_entry else \
                self._held_cell_binding(graph) or self._entry_binding(graph)
            found = FunctionValues(self, graph, bound)
            self._key(graph.node)
            self._values[key] = found
        finally:
            self._in_progress.discard(key)
        return found

    def _bound_parameters(self, graph: GraphFunction) -> dict[str, Value] | None:
        """A helper's parameters, joined over the graph code that calls it: what each call passes, as a checked
        module handed it on (:attr:`passed_arguments`), else read from the caller."""
        if self.graph_of(graph.node) is None:
            return None
        key = self.index.key(graph.node)
        passed_in = self.passed_arguments if self.passed_arguments is not None else {}
        called = False
        handed_on = False  # referenced without a call (`fn = helper`): called where the analysis cannot see
        per_param: dict[str, list[Value]] = {}
        for caller_key, where in self.scope.references.get(key, ()):
            binding = passed_in.get((key, caller_key, where), False)
            if binding is None:  # (no call)
                handed_on = True
                continue
            if binding is not False:
                called = True
                caller = self._graphs.get(caller_key)
                if caller is not None and id(caller.node) in self._in_progress:
                    continue  # (a caller being solved counts for nothing, as when it is read: values() is None)
            else:
                caller = self._graph(caller_key)
                call = self._call_at(caller, where)
                if call is None:
                    handed_on = caller is not None
                    continue
                called = True
                caller_values = self.values(caller)
                if caller_values is None:
                    continue
                binding = self._call_binding(graph, call, caller_values)
            for name, value in binding.items():
                per_param.setdefault(name, []).append(value)
        if handed_on:  # what the unseen calls pass is unknown, not the entry assumption (Tensors)
            for parameter in signatures.positional_parameters(graph.node) + list(graph.node.args.kwonlyargs or ()):
                per_param.setdefault(parameter.name, []).append(unknown())
        elif not called:
            return None
        bound = {name: join(*values) for name, values in per_param.items()}
        receiver = signatures.receiver_name(graph.node, graph.cls)
        if receiver is not None:
            bound[receiver] = const(OBJECT)
        return bound

    def _held_cell_binding(self, graph: GraphFunction) -> dict[str, Value] | None:
        """The ``construct`` of a Cell that is never a graph of its own (another Cell holds it, and no host code
        of its module calls it): what an entry's parameters are taken to be, widened by the constants the graph
        code that calls it passes (``self.prompt_encoder(points=p, boxes=None, masks=None)``: ``masks`` a Tensor,
        or None), as the compiler specialises it for each call. Only literals are taken from the calls: reading a
        caller's values here would solve the caller while this Cell is being solved. None where no call passes
        one."""
        if graph.kind != "construct" or graph.cls is None or boundary.is_top_level(self, graph):
            return None
        calls = self.project_fact("held cell calls", self._held_cell_calls).get(id(graph.cls))
        passed: dict[str, list[Value]] = {}
        names = [a.name for a in signatures.positional_parameters(graph.node)][1:]  # (self is implicit)
        for _caller, call in calls or ():
            pairs = list(zip(names, call.args)) + [(k.arg, k.value) for k in call.keywords or () if k.arg]
            if any(isinstance(arg, nodes.Starred) for arg in call.args):
                continue
            for name, arg in pairs:
                written = literal(arg)
                if written is not None:
                    passed.setdefault(name, []).append(of_python(written[0]))
        if not passed:
            return None
        entry = self._entry_binding(graph) or parameter_values(graph.node, True, None)
        return {name: join(value, *passed[name]) if name in passed else value for name, value in entry.items()}

    def _held_cell_calls(self) -> dict[int, list]:
        """``id(class) -> [(caller graph, call)]``: the calls in graph code of a Cell held on ``self``, directly or
        through what it holds (``self.prompt_encoder(...)``, ``self.model.prompt_encoder(...)``)."""
        found: dict[int, list] = {}
        for info in self.project.modules:
            for caller in self.graph_functions(info):
                if caller.cls is None:
                    continue
                receiver = signatures.receiver_name(caller.node, caller.cls)
                for call in nodes_of_class(caller.node, nodes.Call):
                    for cls in self._held_classes(caller.cls, call.func, receiver):
                        found.setdefault(id(cls), []).append((caller, call))
        return found

    def _held_classes(self, cls: nodes.ClassDef, func, receiver: str | None) -> list:
        """The project classes ``self.a.b`` (``func``) holds instances of, following ``__init__``'s assignments."""
        if isinstance(func, nodes.Name):
            return [cls] if receiver is not None and func.name == receiver else []
        if not isinstance(func, nodes.Attribute):
            return []
        held = []
        for owner in self._held_classes(cls, func.expr, receiver):
            for qualified in self.attribute_instances(owner, func.attrname) or ():
                resolved = self.project.resolve_qualified(qualified) if not qualified.startswith("mindspore.") \
                    else None
                if resolved is not None and resolved.kind == "class":
                    held.append(resolved.node)
        return held

    def _entry_binding(self, graph: GraphFunction) -> dict[str, Value] | None:
        """A graph entry's parameters as the calls of its own module pass them (:mod:`host`); for a sub-Cell's
        ``construct``, the parameters no call of its holders passes keep their literal default. None without
        such calls."""
        defaults = parameter_values(graph.node, signatures.receiver_name(graph.node, graph.cls) is not None, None)
        calls = self.entry_calls(graph)
        if calls:
            return host.bind_entry(self.project, graph.info, graph.node, graph.cls, calls, defaults)
        unpassed = self._never_passed(graph) if graph.kind == "construct" else None
        if not unpassed:
            return None
        literal = {name: _literal_value(_default_of(graph.node, name)) for name in unpassed}
        return {**defaults, **{name: value for name, value in literal.items() if not value.var}}

    def _never_passed(self, graph: GraphFunction) -> set[str]:
        """The parameters with a default of a Cell's ``construct`` that no call passes, when every instance of the
        Cell is a sub-Cell of a class in its own module (``self.attn = Attn()``) and every use of it there is a
        call (``self.attn(x)``) whose arguments can be counted; empty otherwise."""
        cls, info = graph.cls, graph.info
        instantiations = self._instantiations(cls) if cls is not None else []
        if not instantiations:
            return set()
        names = [a.name for a in signatures.positional_parameters(graph.node)][1:]  # (self is implicit)
        with_default = set(names[len(names) - len(graph.node.args.defaults or []):])
        with_default |= {a.name for a, d in zip(graph.node.args.kwonlyargs or [], graph.node.args.kw_defaults or [])
                         if d is not None}
        passed: set[str] = set()
        for path, where, _at, _arguments in instantiations:
            if path != info.path:
                return set()  # (an instance made in another module may be called there)
            found = _sub_cell_passes(_call_in(info.module, where), names)
            if found is None:
                return set()
            passed |= found
        return with_default - passed

    def entry_calls(self, graph: GraphFunction) -> list[nodes.Call]:
        """The calls of a graph entry in its own module (:func:`host.entry_calls`)."""
        return self.module_fact("entry calls", graph.info,
                                lambda info: host.entry_calls(self.project, info)).get(id(graph.node), [])

    def passed_as_tensor(self, graph: GraphFunction, name: str) -> bool:
        """Every call of the entry in its module passes a Tensor as parameter ``name``."""
        known = self.module_fact("passed tensors", graph.info, lambda info: {})  # filled per entry, once
        key = id(graph.node)
        if key not in known:
            calls = self.entry_calls(graph)
            known[key] = host.passed_tensors(self.project, graph.info, graph.node, graph.cls, calls) if calls else set()
        return name in known[key]

    def parameters_undescribed(self, graph: GraphFunction) -> bool:
        """Nothing in the run says what the entry's parameters are: no call of its module, and (a Cell's
        ``construct``) no instantiation anywhere that another Cell could call it through (``self.pos(B, H, W)``
        passes numbers). Findings that rest on such a parameter being a Tensor say so."""
        if self.entry_calls(graph):
            return False
        return graph.cls is None or not self._instantiations(graph.cls)

    def self_containing_arguments(self, graph: GraphFunction) -> list[tuple[nodes.Call, nodes.NodeNG]]:
        """(call, argument) where the module passes an entry a list or dict that holds itself."""
        return [(call, argument) for call in self.entry_calls(graph)
                for argument in list(call.args) + [k.value for k in call.keywords or () if k.arg is not None]
                if host.holds_itself(argument)]  # (`**d` passes d's items, not d)

    def outer_value(self, graph: GraphFunction, name: str) -> Value:
        """A name a graph function reads but does not bind: a closure over a host function's variable, else a
        module global."""
        found = host.closure_value(self.project, graph.info, graph.node, name,
                                   lambda func: isinstance(func, nodes.FunctionDef) and self.graph_of(func) is not None)
        return found if found is not None else self.global_value(graph.info, name)

    def arguments_passed_in(self, info: ModuleInfo) -> dict:
        """What the graph code of ``info`` passes to the graph functions it references (see
        :attr:`passed_arguments`): for a process that checked ``info`` to hand to those that check the helpers."""
        passed: dict = {}
        for caller_key in self.scope.by_path.get(info.path, ()):
            called = self._calls_of().get(caller_key)
            caller = self._graph(caller_key) if called else None
            if caller is None or caller.node.root() is not info.module:
                continue
            caller_values = self.values(caller)
            for helper_key, where in called:
                call = self._call_at(caller, where)
                helper = self._graph(helper_key) if call is not None else None
                passed[(helper_key, caller_key, where)] = (
                    self._call_binding(helper, call, caller_values)
                    if helper is not None and caller_values is not None else None)
        return passed

    @staticmethod
    def _call_at(caller: GraphFunction | None, where) -> nodes.Call | None:
        """The call whose callee is the reference at ``where`` in ``caller`` (None: the reference is no call)."""
        node = node_at(caller.node, where) if caller is not None else None
        parent = node.parent if node is not None else None
        return parent if isinstance(parent, nodes.Call) and parent.func is node else None

    def _calls_of(self) -> dict:
        """:meth:`KeyedScope.references_by_caller`, once per scope."""
        return self.project_fact("references by caller", self.scope.references_by_caller)

    def _call_binding(self, graph: GraphFunction, call: nodes.Call, caller_values: FunctionValues) -> dict[str, Value]:
        """The values one call passes to a helper's parameters (``self`` / ``cls`` excluded)."""
        func = graph.node
        names = [a.name for a in signatures.positional_parameters(func)]
        defaults = parameter_values(func, signatures.receiver_name(func, graph.cls) is not None, None)
        offset = signatures.call_offset(func, graph.cls, call)
        binding: dict[str, Value] = {}
        extra: list[Value] | None = []  # what `*args` receives (None: a starred argument, not counted)
        for index, arg in enumerate(call.args):
            if isinstance(arg, nodes.Starred):
                extra = None
                break
            position = index + offset
            if position < len(names):
                binding[names[position]] = caller_values.value(arg)
            else:
                extra.append(caller_values.value(arg))
        if func.args.vararg and extra is not None:
            binding[func.args.vararg] = Value(frozenset({TUPLE}), any(v.var for v in extra),
                                              next((v.origin for v in extra if v.var), ""), tuple(extra))
        spread = extra is None  # `*args` at the call: which parameters it fills is not known here
        for keyword in call.keywords or ():
            if keyword.arg is not None:
                binding[keyword.arg] = caller_values.value(keyword.value)
            else:
                spread = True  # `**kwargs` at the call: any parameter may come from it, not only the default
        for name in names[offset:] + [a.name for a in func.args.kwonlyargs or []]:
            if name not in binding:
                default = defaults.get(name)
                written = literal(_default_of(func, name))
                if not spread and written is not None:
                    # (the call passes nothing there: the parameter is its literal default, None included, not
                    # the "Tensor or None" an entry's caller may pass)
                    binding[name] = of_python(written[0])
                else:
                    binding[name] = default if default is not None and not default.var and not spread else unknown()
        return binding

    def call_summary_for(self, caller: FunctionValues, call: nodes.Call, owner: Value | None = None) -> Value | None:
        """What one call to a project helper returns, with the helper's parameters bound to this call's
        arguments; None on recursion.

        Never the helper's own values (bound over all its callers): the caller asking is still being solved,
        so those would be computed without its arguments, and kept, and what the helper's findings are would
        depend on which function happened to be checked first (`--jobs` gave other findings than one process)."""
        target = function_reference(self.project, caller.info, call.func, caller.cls)
        if target is None:
            return None
        return self.summary_of_call(caller, call, target[0], owner)

    def summary_of_call(self, caller: FunctionValues, call: nodes.Call, func: nodes.FunctionDef,
                        owner: Value | None = None) -> Value | None:
        """What ``func`` returns for ``call`` (a held Cell's ``construct`` for ``self.g(z, flag=True)``), its
        parameters bound to the call's arguments; None on recursion or where ``func`` is no graph code."""
        graph = self.graph_of(func)
        if graph is None or id(func) in self._specialising:
            return None
        binding = self._call_binding(graph, call, caller)
        receiver = signatures.receiver_name(func, graph.cls)
        if receiver is not None:
            binding[receiver] = _receiver_value(owner)
        key = (id(func),) + tuple(sorted((name, v.var, v.kinds, v.origin, v.interpreted)
                                         for name, v in binding.items()))
        if key in self._specialised:
            return self._specialised[key]
        self._specialising.add(id(func))
        try:
            summary = _returned(FunctionValues(self, graph, binding))
        finally:
            self._specialising.discard(id(func))
        self._key(func)
        self._specialised[key] = summary
        return summary

    # -- names outside the function -------------------------------------------------------------------
    def global_value(self, info: ModuleInfo, name: str) -> Value:
        if name in info.functions:
            return const(FUNCTION)
        if name in info.classes:
            return const(CLASS)
        if name in info.imports.aliases:
            return const(MODULE)
        value = info.assigned.get(name)
        if isinstance(value, nodes.Call) and info.imports.qualify(value.func) == api.PARAMETER:
            return host.host_value(self.project, info, value)
        if value is not None:
            if isinstance(value, nodes.Call) and info.imports.qualify(value.func) in api.TENSOR_CONSTRUCTORS:
                # A module-level Tensor read by graph code is a constant Tensor of the graph.
                return variable(TENSOR, f"the module-level Tensor `{name}`",
                                alias=f"the module-level constant Tensor `{name}`")
            return _literal_value(value)
        if name in ("True", "False"):
            return of_python(name == "True")
        if name == "None":
            return of_python(None)
        return unknown()

    def self_attribute(self, cls: nodes.ClassDef, name: str) -> Value:
        key = (id(cls), name)
        if key not in self._attributes:
            self._key(cls)
            self._attributes[key] = self._attribute_value(cls, name)
        return self._attributes[key]

    def class_fact(self, kind: str, cls: nodes.ClassDef, compute):
        """``compute(project, cls)``, cached while none of the modules of the class and its project bases
        changed (such facts may hold their nodes)."""
        key = (kind, id(cls))
        cached = self._class_facts.get(key)
        if cached is not None and cached[0] is cls and all(self.project.by_node.get(id(module)) is info
                                                           for module, info in cached[1]):
            return cached[2]
        result = compute(self.project, cls)
        modules = tuple((klass.root(), self.project.info(klass.root())) for klass in self.project.mro(cls))
        self._class_facts[key] = (cls, modules, result)
        return result

    def attribute_assignments(self, cls: nodes.ClassDef) -> dict:
        """``self.NAME = value`` anywhere in the class or its project bases (subclass first)."""
        return self.class_fact("attribute-assignments", cls, lambda project, klass: project.attribute_assignments(klass))

    def method_result(self, cls: nodes.ClassDef, name: str) -> Value:
        """What ``self.name(...)`` returns when the method is graph code (a helper construct calls too, such as
        `init_hidden`): the join over its returns; unknown otherwise."""
        found = self._method_returns(cls, name)
        return found if found is not None else unknown()

    def cell_output(self, qualified: str) -> Value | None:
        """What the construct of the project Cell class ``qualified`` returns, or None (not a project Cell, or
        being solved)."""
        resolved = self.project.resolve_qualified(qualified)
        if resolved is None or resolved.kind != "class" or not self.project.is_cell(resolved.node):
            return None
        return self._method_returns(resolved.node, "construct")

    def _method_returns(self, cls: nodes.ClassDef, name: str) -> Value | None:
        """The join of what method ``name`` of ``cls`` returns, when it is graph code (None otherwise, or while
        it is being solved)."""
        found = self.project.find_method(cls, name)
        graph = self.graph_of(found[0]) if found is not None else None
        values = self.values(graph) if graph is not None else None
        return _returned(values) if values is not None else None

    def attribute_instance_of(self, cls: nodes.ClassDef, name: str) -> str | None:
        """The qualified class (``mindspore.nn.LSTM``, ``mindspore.ops.Cast``) every ``self.name = ...`` of the
        class makes an instance of in ``__init__``, or None."""
        found = self.attribute_instances(cls, name)
        return next(iter(found)) if found is not None and len(found) == 1 else None

    def attribute_instances(self, cls: nodes.ClassDef, name: str) -> frozenset[str] | None:
        """The qualified classes ``self.name`` holds an instance of, from its ``__init__`` assignments:
        ``Cls(...)``, ``A(...) if c else B(...)``, and ``layer(...)`` with ``layer`` an ``__init__`` parameter whose
        default class no instantiation overrides (``norm_layer=nn.LayerNorm``). None when one is anything else.
        Remembered per class and name, as the resolutions it is made of are (the rules ask it of every call)."""
        return self.project.memo(f"attribute instances {name}", cls, lambda: self._attribute_instances(cls, name))

    def _attribute_instances(self, cls: nodes.ClassDef, name: str) -> frozenset[str] | None:
        found: set[str] = set()
        assignments = self.attribute_assignments(cls).get(name, ())
        if not assignments:  # (`self.layer_norm` of an nn.LayerNorm subclass: the Primitive the layer made)
            inherited = api.layer_primitive(self.project.inherited_layer(cls), name)
            return frozenset({inherited}) if inherited is not None else None
        for value, method in assignments:
            if method.name != "__init__":
                return None
            made = [value.body, value.orelse] if isinstance(value, nodes.IfExp) else [value]
            for call in made:
                qualified = self._class_called(cls, method, call) if isinstance(call, nodes.Call) else None
                if qualified is None and isinstance(call, nodes.Name):
                    # an argument of `__init__` (`self.down_sample = down_sample`): what the constructions pass
                    passed = callables.instances_made(self.project, self.project.info(method.root()), call, cls)
                    if passed:
                        found.update(passed)
                        continue
                if qualified is None:
                    return None
                found.add(qualified)
        return frozenset(found) or None

    def _class_called(self, cls: nodes.ClassDef, init: nodes.FunctionDef, call: nodes.Call) -> str | None:
        info = self.project.info(init.root())
        func = call.func
        if isinstance(func, nodes.Name) and func.name in {a.name for a in signatures.positional_parameters(init)}:
            # what the parameter may be where it is called: its default, a class the body puts there
            # (`if norm is None: norm = nn.BatchNorm2d`), what the instantiations pass
            referred = callables.classes_referred(self.project, info, func, cls)
            if len(referred) == 1:
                return next(iter(referred))
            if self._init_parameter_passed(cls, init, func.name):
                return None
            func = _default_of(init, func.name)  # (the class the parameter defaults to)
            if not isinstance(func, (nodes.Name, nodes.Attribute)):
                return None
        qualified = info.imports.qualify(func)
        if qualified is None:  # a class of the module itself (or of the function around it)
            resolved = self.project.resolve_expr(info, func)
            if resolved is None or resolved.kind != "class":
                return None
            qualified = resolved.node.qname()
        return qualified

    def _init_parameter_passed(self, cls: nodes.ClassDef, init: nodes.FunctionDef, parameter: str) -> bool:
        """Some instantiation of ``cls`` passes ``parameter`` (or arguments that cannot be counted)."""
        positional = [a.name for a in signatures.positional_parameters(init)][1:]
        return any(_instantiation_argument(passed, positional, parameter) is not None
                   for _path, _where, _at, passed in self._instantiations(cls))

    def attribute_primitive(self, cls: nodes.ClassDef, name: str) -> str | None:
        """``mindspore.ops.Cast`` when the attribute holds an instance of that one Primitive class
        (``self.cast = ops.Cast()``), else None."""
        qualified = self.attribute_instance_of(cls, name)
        if api.api_kind(qualified) is api.ApiKind.PRIMITIVE:
            return qualified
        return None

    def _attribute_value(self, cls: nodes.ClassDef, name: str) -> Value:
        if name == "training":
            return const(BOOL)
        assignments = self.attribute_assignments(cls).get(name)
        if not assignments:
            if self.project.find_method(cls, name) is not None:
                return const(FUNCTION)
            inherited = self._layer_attribute(cls, name)
            return inherited if inherited is not None else self._class_body_attribute(cls, name)
        info = self.project.info(cls.root())
        results = []
        for value, method in assignments:
            if method.name == "__init__" or self.graph_of(method) is None:
                results.append(self._init_value(value, info, name, method, cls))
        if not results:
            return unknown()
        return join(*results)

    def _layer_attribute(self, cls: nodes.ClassDef, name: str) -> Value | None:
        """``self.gamma`` in a subclass of ``nn.LayerNorm``: a Parameter the MindSpore layer's constructor makes
        (read from MindSpore's sources: generated.nn_parameters). None for any other name."""
        layer = self.project.inherited_layer(cls)
        if not api.layer_makes_parameter(layer, name):
            return None
        return variable(TENSOR, f"the Parameter `self.{name}`", alias=f"the Parameter `self.{name}`")

    def _made_by_class_argument(self, call: nodes.Call, info: ModuleInfo, cls) -> Value:
        """``base_encoder(num_classes=dim)`` with the class an argument (``MoCo(TinyConvNet)``): a Cell when every
        class the name may be is one, an object when none is; unknown otherwise."""
        if not isinstance(call.func, nodes.Name):
            return unknown()
        kinds = set()
        for qualified in callables.classes_referred(self.project, info, call.func, cls):
            if qualified.startswith("mindspore."):
                kinds.add(CELL if api.api_kind(qualified) is api.ApiKind.CELL else None)
                continue
            resolved = self.project.resolve_qualified(qualified)
            kinds.add((CELL if self.project.is_cell(resolved.node) else OBJECT)
                      if resolved is not None and resolved.kind == "class" else None)
        return const(next(iter(kinds))) if len(kinds) == 1 and None not in kinds else unknown()

    def _class_body_attribute(self, cls: nodes.ClassDef, name: str) -> Value:
        """``self.name`` that no method assigns: the class body's value (``clip_sample = False``); for a dataclass
        field, joined with what the run's instantiations pass for it (``Config(clip=True)``)."""
        found = class_body_value(self.project, cls, name)
        if found is None:
            return unknown()
        expr, klass = found
        values = [self._init_value(expr, self.project.info(klass.root()), name)]
        fields = dataclass_fields(self.project, klass)
        for _path, _where, _at, arguments in self._instantiations(cls) if fields and name in fields else ():
            passed = _instantiation_argument(arguments, fields, name)
            if passed is not None:
                values.append(of_python(passed[0]) if isinstance(passed, tuple) else unknown())
        return join(*values)

    def _init_value(self, expr, info: ModuleInfo, name: str, method=None, cls=None) -> Value:
        """The value of ``self.name = expr`` set outside graph code (usually in ``__init__``)."""
        if expr is None:
            return unknown()
        if isinstance(expr, nodes.Const):
            return of_python(expr.value)
        if isinstance(expr, nodes.IfExp):
            return join(self._init_value(expr.body, info, name), self._init_value(expr.orelse, info, name))
        if isinstance(expr, (nodes.Tuple, nodes.List)):
            items = tuple(self._init_value(e, info, name) for e in expr.elts)
            kind = "tuple" if isinstance(expr, nodes.Tuple) else "list"
            return Value(frozenset({kind}), False, "", items)
        if isinstance(expr, nodes.Call):
            qualified = info.imports.qualify(expr.func)
            if qualified == api.PARAMETER:
                return replace(variable(TENSOR, f"the Parameter `self.{name}`", alias=f"the Parameter `self.{name}`"),
                               parameter=host.parameter_name(expr))
            kind = api.api_kind(qualified)
            if qualified in api.TENSOR_CONSTRUCTORS or kind is api.ApiKind.FUNCTION:
                return variable(TENSOR, f"the Tensor attribute `self.{name}`", alias=f"the Tensor attribute `self.{name}`")
            if kind is api.ApiKind.CELL:
                return const(CELL)
            resolved = self.project.resolve_expr(info, expr.func)
            if resolved is not None and resolved.kind == "class":
                return const(CELL) if self.project.is_cell(resolved.node) else const(OBJECT)
            return self._made_by_class_argument(expr, info, cls)
        if isinstance(expr, nodes.Name) and expr.name == "None":
            return of_python(None)
        if isinstance(expr, nodes.Name) and method is not None and method.name == "__init__":
            return self._init_name_value(cls, method, expr.name, name)
        if isinstance(expr, nodes.BinOp):
            return _scalar_arithmetic(expr.op, self._init_value(expr.left, info, name, method, cls),
                                      self._init_value(expr.right, info, name, method, cls))
        return unknown()

    def _init_name_value(self, cls, init: nodes.FunctionDef, parameter: str, attribute: str) -> Value:
        """``self.attribute = parameter`` in ``__init__``: what the constructions pass, a Cell where each passes
        one, else the parameter's declared scalar type."""
        value = self._init_argument(cls, init, parameter, attribute)
        if value.kinds <= {UNKNOWN} and cls is not None and self._holds_cells(cls, attribute):
            return const(CELL)  # (`self.func = func`, every construction passing a Cell)
        if value.kinds <= {UNKNOWN}:
            return _declared_scalar(init, parameter) or value
        return value

    def _holds_cells(self, cls: nodes.ClassDef, name: str) -> bool:
        """Every instance ``self.name`` holds, as the constructions show, is a Cell (MindSpore's or the
        project's)."""
        held = self.attribute_instances(cls, name)
        if not held:
            return False
        for qualified in held:
            if qualified.startswith("mindspore."):
                if api.api_kind(qualified) is not api.ApiKind.CELL:
                    return False
                continue
            resolved = self.project.resolve_qualified(qualified)
            if resolved is None or resolved.kind != "class" or not self.project.is_cell(resolved.node):
                return False
        return True

    def _init_argument(self, cls, init: nodes.FunctionDef, parameter: str, attribute: str) -> Value:
        """``self.attr = parameter`` in ``__init__``: the parameter's literal default, and the literal arguments
        the project passes where it creates the class (``Net(n_steps=1000)``). One value when they agree."""
        alternatives = self.init_argument_values(cls, init, parameter)
        if not alternatives:
            return unknown()
        self._attribute_sources[(id(cls), attribute)] = alternatives
        return join(*(of_python(value) for value, _ in alternatives))

    def attribute_alternatives(self, cls: nodes.ClassDef, name: str) -> list[tuple[object, str]]:
        """The Python values ``self.name`` may hold when it comes from an ``__init__`` argument, each with where
        it comes from ("the default n_steps=800", "n_steps=1000 in `Net(n_steps=1000)` at model.py:40")."""
        self.self_attribute(cls, name)
        return self._attribute_sources.get((id(cls), name), [])

    def init_argument_values(self, cls, init: nodes.FunctionDef, parameter: str) -> list[tuple[object, str]]:
        found: list[tuple[object, str]] = []
        default = _default_of(init, parameter)
        written = literal(default)
        if written is not None and isinstance(written[0], (int, float, bool, str)):
            found.append((written[0], f"the default {parameter}={written[0]!r}"))
        elif default is not None:
            return []  # a default graphlint cannot read: the value is unknown
        positional = [a.name for a in signatures.positional_parameters(init)][1:]
        for path, call_at, where, arguments in self._instantiations(cls):
            passed = _instantiation_argument(arguments, positional, parameter)
            if passed is None:
                continue
            if passed is STARRED:
                return []
            if passed is NOT_CONSTANT:
                return []  # some instantiation passes a value graphlint cannot read
            found.append((passed[0], f"{parameter}={passed[0]!r} in `{self._call_text(path, call_at)}` at {where}"))
        return found

    def constructor_constants(self, cls: nodes.ClassDef, init: nodes.FunctionDef, parameter: str,
                              depth: int = 0) -> list | None:
        """The Python constants ``init``'s ``parameter`` may be, over the run: its literal default where a
        construction passes nothing, each literal passed, and what a construction inside another class's
        ``__init__`` passes on from its own parameter (``Mlp(drop=drop)`` in ``Block``, built with ``drop=0.``),
        followed there. None when some construction passes a value that is not followed."""
        if depth > 4:
            return None
        found = []
        default = _default_of(init, parameter)
        written = literal(default)
        if default is not None and written is None:
            return None
        positional = [a.name for a in signatures.positional_parameters(init)][1:]
        for path, call_at, _where, arguments in self._instantiations(cls):
            passed = _instantiation_argument(arguments, positional, parameter)
            if passed is None:
                if written is None:
                    return None
                found.append(written[0])
            elif passed is STARRED:
                return None
            elif passed is NOT_CONSTANT:
                more = self._passed_on(path, call_at, positional, parameter, depth)
                if more is None:
                    return None
                found.extend(more)
            else:
                found.append(passed[0])
        return found if found or written is None else [written[0]]

    def _passed_on(self, path: str, call_at, positional: list, parameter: str, depth: int) -> list | None:
        """What a construction passes as ``parameter`` when it is a parameter of the ``__init__`` around it."""
        info = self.project.module_at(path)
        call = _call_in(info.module, call_at) if info is not None else None
        if call is None:
            return None
        argument = next((k.value for k in call.keywords or () if k.arg == parameter), None)
        if argument is None and parameter in positional and positional.index(parameter) < len(call.args):
            argument = call.args[positional.index(parameter)]
        frame = call.frame()
        outer = frame.parent.frame() if isinstance(frame, nodes.FunctionDef) and frame.name == "__init__" else None
        if not (isinstance(argument, nodes.Name) and isinstance(outer, nodes.ClassDef)
                and argument.name in {a.name for a in signatures.positional_parameters(frame)}):
            return None
        return self.constructor_constants(outer, frame, argument.name, depth + 1)

    def gathered_parameters(self, cls: nodes.ClassDef, name: str) -> tuple[str, frozenset[str]] | None:
        """``self.name = ParameterTuple(source.get_parameters())`` (or ``trainable_params()``) in ``__init__``, where
        ``source`` is a Cell the class does not hold as a sub-Cell (an ``__init__`` argument, or a local instance):
        (``source``, the literal names its class gives its Parameters). MindSpore prefixes a Parameter's name with
        the attribute path only when its Cell becomes a sub-Cell, so these keep the bare names. None otherwise, or
        when the instantiations in the class's module do not all pass instances of one project Cell class."""
        assignments = self.attribute_assignments(cls).get(name, ())
        if len(assignments) != 1 or assignments[0][1].name != "__init__":
            return None
        value, init = assignments[0]
        info = self.project.info(init.root())
        if not (isinstance(value, nodes.Call) and len(value.args) == 1
                and api.canonical(info.imports.qualify(value.func) or "") == "mindspore.ParameterTuple"):
            return None
        gathered = _parameter_listing(value.args[0])
        if gathered is None:
            return None
        source = gathered.func.expr.name
        if any(isinstance(held, nodes.Name) and held.name == source
               for found in self.attribute_assignments(cls).values() for held, _method in found):
            return None  # held as a sub-Cell too: its Parameters take the attribute's prefix
        source_class = self._instance_class_of(cls, init, gathered.func.expr)
        if source_class is None:
            return None
        names = frozenset(host.parameter_name(made) for found in self.attribute_assignments(source_class).values()
                          for made, method in found
                          if method.name == "__init__" and isinstance(made, nodes.Call)
                          and self.project.info(method.root()).imports.qualify(made.func) == api.PARAMETER
                          and host.parameter_name(made))
        return (source, names) if names else None

    def _instance_class_of(self, cls, init: nodes.FunctionDef, source: nodes.Name) -> nodes.ClassDef | None:
        """The project Cell class ``source`` (in ``__init__``) is an instance of: a local ``Inner()``, or an argument
        every instantiation of ``cls`` in its own module passes an instance of that one class."""
        info = self.project.info(init.root())
        if source.name not in {a.name for a in signatures.positional_parameters(init)}:
            return host.instance_class(self.project, info, source)
        found = set()
        for path, where, _at, _arguments in self._instantiations(cls):
            if path != info.path:
                return None  # (an instantiation elsewhere: what it passes is another module's text)
            call = _call_in(info.module, where)
            passed = constructor_argument(init, call, source.name) if call is not None else None
            found.add(host.instance_class(self.project, info, passed) if passed is not None else None)
        if len(found) != 1 or None in found:
            return None
        source_class = found.pop()
        return source_class if self.project.is_cell(source_class) else None

    def _instantiations(self, cls: nodes.ClassDef) -> list[tuple]:
        """Calls of ``cls`` anywhere in the run: ``(module path, where in it, "file:line", arguments)``, the
        arguments as :func:`_passed_constants` gives them."""
        return self.all_instantiations().get((cls.root().file or "", cls.qname()), [])

    def all_instantiations(self) -> dict:
        """``{(file, class qname): [(module path, where, "file:line", arguments)]}`` over the run."""

        def merge(per_module):
            found: dict = {}
            for path, calls_by_class in per_module:
                for class_key, calls in calls_by_class.items():
                    found.setdefault(class_key, []).extend((path,) + call for call in calls)
            return found

        return self.run_fact("instantiations", merge)

    def _call_text(self, path: str, where) -> str:
        """The source of the call at ``where`` in the module at ``path``, on one line."""
        info = self.project.module_at(path)
        call = _call_in(info.module, where) if info is not None else None
        return _one_line(call.as_string()) if call is not None else ""


def _instantiation_argument(passed: tuple, positional: list[str], parameter: str):
    """What one instantiation, as :func:`_passed_constants` records it, passes to ``__init__``'s ``parameter``:
    ``(value,)``, NOT_CONSTANT, STARRED (``*a`` / ``**k``: it cannot be told), or None (nothing)."""
    arguments, keywords = passed
    found = None
    for index, argument in enumerate(arguments):
        if argument is STARRED:
            return STARRED
        if index < len(positional) and positional[index] == parameter:
            found = argument
    for name, argument in keywords:
        if name is None:
            return STARRED
        if name == parameter:
            found = argument
    return found


def _parameter_listing(expr) -> nodes.Call | None:
    """``cell.get_parameters()`` / ``cell.trainable_params()`` on a name, through ``list(...)`` / ``tuple(...)``."""
    while isinstance(expr, nodes.Call) and isinstance(expr.func, nodes.Name) \
            and expr.func.name in ("list", "tuple") and len(expr.args) == 1:
        expr = expr.args[0]
    if isinstance(expr, nodes.Call) and isinstance(expr.func, nodes.Attribute) \
            and expr.func.attrname in api.PARAMETER_LISTING_METHODS and isinstance(expr.func.expr, nodes.Name):
        return expr
    return None


def _sub_cell_passes(call, names: list) -> set[str] | None:
    """The parameters (of ``names``, positional first) that the calls of a sub-Cell pass, where ``call`` makes it
    (``self.attn = Attn()``) and every use of it in its class is a call whose arguments can be counted; None
    otherwise."""
    target = call.parent.targets[0] if call is not None and isinstance(call.parent, nodes.Assign) \
        and len(call.parent.targets) == 1 else None
    holder = enclosing_class(call.parent.frame()) if target is not None else None
    if not (isinstance(target, nodes.AssignAttr) and isinstance(target.expr, nodes.Name)
            and target.expr.name == "self" and holder is not None):
        return None
    passed: set[str] = set()
    for use in nodes_of_class(holder, nodes.Attribute):
        if not (use.attrname == target.attrname and isinstance(use.expr, nodes.Name) and use.expr.name == "self"
                and not isinstance(use, nodes.AssignAttr)):
            continue
        called = _construct_call(use)
        if called is _OTHER_METHOD:
            continue
        if called is None or any(isinstance(a, nodes.Starred) for a in called.args) \
                or any(k.arg is None for k in called.keywords or ()):
            return None  # handed on, or arguments that cannot be counted
        passed |= set(names[:len(called.args)]) | {k.arg for k in called.keywords or ()}
    return passed


_OTHER_METHOD = object()


def _construct_call(use: nodes.Attribute):
    """The call of the sub-Cell ``use`` reads (``self.attn(x)``, ``self.attn.construct(x)``); _OTHER_METHOD where
    another of its members is read (``self.encoder.forward_masks(x)``: no call of the Cell); None where the Cell is
    handed on."""
    parent = use.parent
    if isinstance(parent, nodes.Attribute) and parent.expr is use:
        if parent.attrname != "construct":
            return _OTHER_METHOD
        use, parent = parent, parent.parent
    return parent if isinstance(parent, nodes.Call) and parent.func is use else None


def _call_in(module: nodes.Module, where) -> nodes.Call | None:
    """The call of ``module`` at ``where`` (an instantiation's :func:`reference_of`)."""
    return next((call for call in nodes_of_class(module, nodes.Call) if reference_of(call) == where), None)


def _module_instantiations(analysis: Analysis, info: ModuleInfo) -> dict:
    """``{(file, class qname): [(where, "file:line", arguments)]}``: the calls of project classes in a module."""
    found: dict = {}
    name = os.path.basename(info.path)
    for call in nodes_of_class(info.module, nodes.Call):
        if not isinstance(call.func, (nodes.Name, nodes.Attribute)):
            continue
        resolved = analysis.project.resolve_expr(info, call.func)
        if resolved is not None and resolved.kind == "class":
            key = (resolved.node.root().file or "", resolved.node.qname())
            found.setdefault(key, []).append((reference_of(call), f"{name}:{call.lineno}", _passed_constants(call)))
    return found


STARRED = "*"  # an argument `*args` or `**kwargs`: what it passes is unknown
NOT_CONSTANT = "?"


def _passed_constants(call: nodes.Call) -> tuple:
    """A call's arguments as plain data: ``((value,) | STARRED | NOT_CONSTANT, ...)`` for the positional ones,
    ``((name or None, (value,) | NOT_CONSTANT), ...)`` for the keywords; values of ``int``, ``float``, ``bool``
    and ``str`` literals only."""

    def constant(node):
        written = literal(node)
        if written is not None and isinstance(written[0], (int, float, bool, str)):
            return written
        display = _module_display(node)
        if display is not None:
            try:
                return (ast.literal_eval(display.as_string()),)
            except (ValueError, SyntaxError, TypeError, MemoryError, RecursionError):
                return NOT_CONSTANT
        return NOT_CONSTANT

    arguments = tuple(STARRED if isinstance(arg, nodes.Starred) else constant(arg) for arg in call.args)
    keywords = tuple((keyword.arg, constant(keyword.value)) for keyword in call.keywords or ())
    return arguments, keywords


def _module_display(node):
    """A dict, list or tuple display passed as an argument, or named by a module global bound once to one
    (``Predictor(model, SEG_CLASSES)``), else None."""
    if isinstance(node, nodes.Name):
        bindings = node.root().locals.get(node.name, [])
        if len(bindings) != 1 or not isinstance(bindings[0], nodes.AssignName) \
                or not isinstance(bindings[0].parent, nodes.Assign) or node.scope() is not node.root() \
                and node.name in node.scope().locals:
            return None
        node = bindings[0].parent.value
    return node if isinstance(node, (nodes.Dict, nodes.List, nodes.Tuple)) else None


def _instantiations_read(analysis: Analysis, paths, _class_names):
    # the calls of the classes defined there, and the modules they are in (messages quote a call's text)
    def by_module():
        found: dict = {}
        for key, calls in analysis.all_instantiations().items():
            found.setdefault(os.path.abspath(key[0]), []).append((key, calls))
        return found

    grouped = analysis.project_fact("instantiations by module", by_module)
    found = sorted(item for path in paths for item in grouped.get(path, ()))
    return found, {call[0] for _key, calls in found for call in calls}


register_run_fact("instantiations", _module_instantiations, _instantiations_read)


def _interface(module: nodes.Module, graph_names: set[str]) -> str:
    """What other modules can read of ``module``: its text with the bodies of the named graph functions left
    out (the attributes they assign kept)."""
    known = getattr(module, "graphlint_interface", None)  # (--fix compares each rewrite with the text before it)
    if known is not None and known[0] == graph_names:
        return known[1]
    interface = _interface_text(module, graph_names)
    module.graphlint_interface = (frozenset(graph_names), interface)
    return interface


def _interface_text(module: nodes.Module, graph_names: set[str]) -> str:
    parts = []
    text = getattr(module, "graphlint_text", None)  # set by source.parse; as_string() for other modules
    lines = text.splitlines() if text is not None else None

    def text_of(node) -> str:
        # the statement's own lines: cheaper than as_string(), and stricter (a reformatted line counts)
        first, last = node.fromlineno, node.tolineno
        decorators = getattr(node, "decorators", None)
        if decorators is not None and decorators.lineno:
            first = min(first or decorators.lineno, decorators.lineno)
        if lines is not None and first and last:
            chunk = lines[first - 1:last]
            if not any('"""' in line or "'''" in line or line.endswith("\\") for line in chunk):
                # blank and comment lines say nothing (unless inside a string: then they are kept)
                chunk = [line for line in chunk if line.strip() and not line.lstrip().startswith("#")]
            return "\n".join(chunk)
        return node.as_string()

    stack = [(module, None)]
    while stack:
        node, cls = stack.pop()
        if isinstance(node, nodes.FunctionDef) and \
                (f"{cls.name}.{node.name}" if cls is not None else node.name) in graph_names:
            written = sorted({target.attrname for target in nodes_of_class(node, nodes.AssignAttr)})
            parts.append(f"graph {node.name}({node.args.as_string()}) {written}")
            continue
        if isinstance(node, (nodes.Module, nodes.ClassDef)):
            if isinstance(node, nodes.ClassDef):
                decorators = [d.as_string() for d in node.decorators.nodes] if node.decorators else []
                parts.append(f"class {node.name}({', '.join(b.as_string() for b in node.bases)}) {decorators}")
            for child in reversed(node.body):
                stack.append((child, node if isinstance(node, nodes.ClassDef) else cls))
            continue
        parts.append(text_of(node))
    return "\n".join(parts)


def _returned(values: FunctionValues) -> Value:
    """The join of what a function's return statements (and falling off its end) give."""
    returned = []
    for element in values.cfg.returns:
        node = element.node
        if values.compiled(element.block):  # (a return in a branch type inference leaves out gives nothing)
            returned.append(values.value(node.value) if node.value is not None else of_python(None))
    if any(label == "fallthrough" and values.compiled(block) for block, label in values.cfg.exit.pred):
        returned.append(of_python(None))
    return join(*returned) if returned else of_python(None)


def _declared_scalar(init: nodes.FunctionDef, parameter: str) -> Value | None:
    """An ``__init__`` parameter's declared Python scalar type (``drop_prob: float = 0.0``) as a constant of the
    graph of that kind: what an instance keeps of it is a Python number when it is compiled. None without one."""
    arguments = init.args
    for arg, annotation in zip(list(arguments.posonlyargs or []) + list(arguments.args or []),
                               list(arguments.posonlyargs_annotations or []) + list(arguments.annotations or [])):
        if arg.name == parameter and isinstance(annotation, nodes.Name) \
                and api.SCALAR_ANNOTATIONS.get(annotation.name) in (INT, FLOAT, BOOL):
            return const(api.SCALAR_ANNOTATIONS[annotation.name])
    return None


def _scalar_arithmetic(op: str, left: Value, right: Value) -> Value:
    """``1.0 - drop_prob`` of two Python numbers set in ``__init__``: a number of the kind Python gives."""
    numbers = {INT, FLOAT, BOOL}
    if not (left.kinds and right.kinds and left.kinds <= numbers and right.kinds <= numbers) or left.var or right.var:
        return unknown()
    return const(FLOAT if FLOAT in left.kinds | right.kinds or op == "/" else INT)


def _default_of(func: nodes.FunctionDef, name: str):
    """The default expression of parameter ``name`` (None when it has none)."""
    positional = signatures.positional_parameters(func)
    defaults = list(func.args.defaults or [])
    first = len(positional) - len(defaults)
    for index, arg in enumerate(positional):
        if arg.name == name:
            return defaults[index - first] if index >= first else None
    for arg, default in zip(func.args.kwonlyargs or [], func.args.kw_defaults or []):
        if arg.name == name:
            return default
    return None


def _one_line(text: str, limit: int = 60) -> str:
    text = " ".join(text.split())
    return text if len(text) <= limit else text[: limit - 3] + "..."


def _literal_value(expr) -> Value:
    written = literal(expr)
    if written is not None:
        return of_python(written[0])
    if isinstance(expr, (nodes.Tuple, nodes.List)):
        items = tuple(_literal_value(e) for e in expr.elts)
        return Value(frozenset({"tuple" if isinstance(expr, nodes.Tuple) else "list"}), False, "", items)
    return unknown()


def _receiver_value(owner: Value | None) -> Value:
    """``self`` in a method called as ``obj.method(...)``, ``owner`` the value of ``obj``: an object the JIT fallback
    made at run time (a dataclass built from Tensors in graph code) where ``obj`` is one, so the method reads its
    fields as the interpreter's; else an object of the graph."""
    if owner is not None and owner.var and owner.interpreted_as(OBJECT):
        return Value(frozenset({OBJECT}), True, owner.origin, interpreted=True)
    return const(OBJECT)
