"""The one analysis: graph scope, values and findings, shared by the CLI, the Pylint plugin and the fixers."""

from __future__ import annotations

from dataclasses import dataclass, field

from astroid import nodes

from graphlint.analysis.project import ModuleInfo, Project
from graphlint.analysis.scope import GraphFunction, discover, graph_functions_in
from graphlint.analysis.values import (BOOL, CELL, CLASS, FUNCTION, MODULE, NONE, OBJECT, TENSOR, FunctionValues,
                                       Value, const, join, of_python, parameter_values, unknown, variable)
from graphlint.catalogue import BY_NAME, RULES, Rule, Severity
from graphlint.config import Config


@dataclass
class Finding:
    rule: Rule
    path: str
    line: int
    column: int  # 1-based
    end_line: int
    end_column: int  # 1-based, exclusive
    args: dict = field(default_factory=dict)
    note: str = ""  # "(in helper `f`, reached from Net.construct)"
    node: nodes.NodeNG | None = field(default=None, repr=False, compare=False)
    data: dict = field(default_factory=dict, repr=False, compare=False)  # for fixers
    severity: Severity = Severity.WARNING
    graph: GraphFunction | None = field(default=None, repr=False, compare=False)  # where it was found

    @property
    def message(self) -> str:
        try:
            text = self.rule.message.format(**self.args)
        except (KeyError, IndexError, ValueError):
            text = self.rule.message
        return text + self.note

    @property
    def sort_key(self):
        return (self.path, self.line, self.column, self.rule.id)


class Analysis:
    """Facts about a whole run, computed lazily and cached."""

    def __init__(self, project: Project, config: Config | None = None):
        self.project = project
        self.config = config or Config()
        self._scope: dict[int, GraphFunction] | None = None
        self._references: dict[int, list] = {}
        self._values: dict[int, FunctionValues] = {}
        self._in_progress: set[int] = set()
        self._attributes: dict[tuple[int, str], Value] = {}
        self._summaries: dict[int, Value] = {}
        self._specialised: dict[tuple, Value] = {}
        self._specialising: set[int] = set()

    # -- scope --------------------------------------------------------------
    @property
    def scope(self) -> dict[int, GraphFunction]:
        if self._scope is None:
            self._references = {}
            self._scope = discover(self.project, None, self._references)
        return self._scope

    def invalidate(self) -> None:
        self._scope = None
        self._values.clear()
        self._attributes.clear()
        self._summaries.clear()
        self._specialised.clear()

    def graph_functions(self, info: ModuleInfo) -> list[GraphFunction]:
        return graph_functions_in(self.scope, info)

    def graph_of(self, func: nodes.FunctionDef) -> GraphFunction | None:
        return self.scope.get(id(func))

    def references(self, func: nodes.FunctionDef) -> list:
        """Where graph code references ``func``: ``[(GraphFunction, node)]``."""
        _ = self.scope  # discovers them
        return self._references.get(id(func), [])

    # -- values ---------------------------------------------------------------
    def values(self, graph: GraphFunction) -> FunctionValues | None:
        key = id(graph.node)
        found = self._values.get(key)
        if found is not None:
            return found
        if key in self._in_progress:
            return None
        self._in_progress.add(key)
        try:
            bound = self._bound_parameters(graph) if not graph.is_entry else None
            found = FunctionValues(self, graph, bound)
            self._values[key] = found
        finally:
            self._in_progress.discard(key)
        return found

    def _bound_parameters(self, graph: GraphFunction) -> dict[str, Value] | None:
        """A helper's parameters, joined over the graph code that calls it."""
        calls = []
        for caller, node in self._references.get(id(graph.node), []):
            parent = node.parent
            if isinstance(parent, nodes.Call) and parent.func is node:
                calls.append((caller, parent))
        if not calls:
            return None
        per_param: dict[str, list[Value]] = {}
        for caller, call in calls:
            caller_values = self.values(caller)
            if caller_values is None:
                continue
            for name, value in self._call_binding(graph, call, caller_values).items():
                per_param.setdefault(name, []).append(value)
        bound = {name: join(*values) for name, values in per_param.items()}
        positional = list(graph.node.args.posonlyargs or []) + list(graph.node.args.args or [])
        if graph.cls is not None and positional and not _is_static(graph.node):
            bound[positional[0].name] = const(OBJECT)
        return bound

    def _call_binding(self, graph: GraphFunction, call: nodes.Call, caller_values: FunctionValues) -> dict[str, Value]:
        """The values one call passes to a helper's parameters (the instance parameter excluded)."""
        func = graph.node
        positional = list(func.args.posonlyargs or []) + list(func.args.args or [])
        is_method = graph.cls is not None and positional and not _is_static(func)
        names = [a.name for a in positional]
        defaults = parameter_values(func, bool(is_method), None)
        offset = 1 if is_method and _called_on_instance(call) else 0
        binding: dict[str, Value] = {}
        for index, arg in enumerate(call.args):
            if isinstance(arg, nodes.Starred):
                break
            position = index + offset
            if position < len(names):
                binding[names[position]] = caller_values.value(arg)
        for keyword in call.keywords or ():
            if keyword.arg is not None:
                binding[keyword.arg] = caller_values.value(keyword.value)
        for name in names[offset:] + [a.name for a in func.args.kwonlyargs or []]:
            if name not in binding:
                default = defaults.get(name)
                binding[name] = default if default is not None and not default.var else unknown()
        return binding

    def call_summary(self, caller: FunctionValues, call: nodes.Call) -> Value | None:
        """What a call to a project helper returns, from the helper's return statements."""
        from graphlint.analysis.scope import _function_reference

        target = _function_reference(self.project, caller.info, call.func, caller.cls)
        if target is None:
            return None
        func = target[0]
        key = id(func)
        if key in self._summaries:
            return self._summaries[key]
        graph = self.graph_of(func)
        if graph is None:
            return None
        values = self.values(graph)
        if values is None:
            return None
        summary = _returned(values)
        self._summaries[key] = summary
        return summary

    def call_summary_for(self, caller: FunctionValues, call: nodes.Call) -> Value | None:
        """What one call to a project helper returns, with the helper's parameters bound to this
        call's arguments. The joined summary cannot see the arguments of a caller that is still
        being solved (its parameters are unknown there); this one can. None on recursion."""
        from graphlint.analysis.scope import _function_reference

        target = _function_reference(self.project, caller.info, call.func, caller.cls)
        if target is None:
            return None
        func = target[0]
        graph = self.graph_of(func)
        if graph is None or id(func) in self._specialising:
            return None
        binding = self._call_binding(graph, call, caller)
        key = (id(func),) + tuple(sorted((name, v.var, v.kinds, v.origin) for name, v in binding.items()))
        if key in self._specialised:
            return self._specialised[key]
        positional = list(func.args.posonlyargs or []) + list(func.args.args or [])
        if graph.cls is not None and positional and not _is_static(func):
            binding[positional[0].name] = const(OBJECT)
        self._specialising.add(id(func))
        try:
            summary = _returned(FunctionValues(self, graph, binding))
        finally:
            self._specialising.discard(id(func))
        self._specialised[key] = summary
        return summary

    # -- names outside the function -------------------------------------------
    def global_value(self, info: ModuleInfo, name: str) -> Value:
        if name in info.functions:
            return const(FUNCTION)
        if name in info.classes:
            return const(CLASS)
        if name in info.imports.aliases:
            return const(MODULE)
        value = info.assigned.get(name)
        if value is not None:
            if isinstance(value, nodes.Call) and info.imports.qualify(value.func) in ("mindspore.Tensor", "mindspore.tensor"):
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
            self._attributes[key] = self._attribute_value(cls, name)
        return self._attributes[key]

    def _attribute_value(self, cls: nodes.ClassDef, name: str) -> Value:
        if name == "training":
            return const(BOOL)
        assignments = self.project.attribute_assignments(cls).get(name)
        if not assignments:
            if self.project.find_method(cls, name) is not None:
                return const(FUNCTION)
            return unknown()
        info = self.project.info(cls.root())
        results = []
        for value, method in assignments:
            if method.name == "__init__" or self.graph_of(method) is None:
                results.append(self._init_value(value, info, name))
        if not results:
            return unknown()
        return join(*results)

    def _init_value(self, expr, info: ModuleInfo, name: str) -> Value:
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
            if qualified == "mindspore.Parameter":
                return variable(TENSOR, f"the Parameter `self.{name}`", alias=f"the Parameter `self.{name}`")
            if qualified in ("mindspore.Tensor", "mindspore.tensor") or (
                    qualified and (qualified.startswith("mindspore.ops.") or qualified.startswith("mindspore.numpy."))
                    and qualified.rsplit(".", 1)[-1][:1].islower()):
                return variable(TENSOR, f"the Tensor attribute `self.{name}`", alias=f"the Tensor attribute `self.{name}`")
            if qualified and qualified.startswith("mindspore.nn.") and qualified.rsplit(".", 1)[-1][:1].isupper():
                return const(CELL)
            resolved = self.project.resolve_expr(info, expr.func)
            if resolved is not None and resolved.kind == "class":
                return const(CELL) if self.project.is_cell(resolved.node) else const(OBJECT)
            return unknown()
        if isinstance(expr, nodes.Name) and expr.name == "None":
            return of_python(None)
        return unknown()


def _returned(values: FunctionValues) -> Value:
    """The join of what a function's return statements (and falling off its end) give."""
    returned = []
    for element in values.cfg.returns:
        node = element.node
        returned.append(values.value(node.value) if node.value is not None else of_python(None))
    if values.cfg.exit.pred and any(label == "fallthrough" for _, label in values.cfg.exit.pred):
        returned.append(of_python(None))
    return join(*returned) if returned else of_python(None)


def _literal_value(expr) -> Value:
    if isinstance(expr, nodes.Const):
        return of_python(expr.value)
    if isinstance(expr, (nodes.Tuple, nodes.List)):
        items = tuple(_literal_value(e) for e in expr.elts)
        return Value(frozenset({"tuple" if isinstance(expr, nodes.Tuple) else "list"}), False, "", items)
    return unknown()


def _is_static(func: nodes.FunctionDef) -> bool:
    return any(isinstance(d, nodes.Name) and d.name in ("staticmethod", "classmethod")
               for d in (func.decorators.nodes if func.decorators else ()))


def _called_on_instance(call: nodes.Call) -> bool:
    """``self.f(...)`` / ``obj.f(...)`` pass the instance implicitly; ``Class.f(self, ...)`` does not."""
    func = call.func
    if isinstance(func, nodes.Attribute):
        base = func.expr
        if isinstance(base, nodes.Name) and base.name[:1].isupper():
            return False
        return True
    return False


class ModuleContext:
    """What a checker sees while checking one module."""

    def __init__(self, info: ModuleInfo, analysis: Analysis, config: Config):
        self.info = info
        self.analysis = analysis
        self.config = config
        self.findings: list[Finding] = []
        self._seen: set[tuple] = set()

    @property
    def project(self) -> Project:
        return self.analysis.project

    def values(self, graph: GraphFunction) -> FunctionValues | None:
        return self.analysis.values(graph)

    def report(self, symbol: str, node: nodes.NodeNG, graph: GraphFunction | None = None, *,
               data: dict | None = None, anchor: nodes.NodeNG | None = None, **args) -> Finding | None:
        rule = BY_NAME[symbol]
        if not self.config.enabled(rule):
            return None
        where = anchor or node
        line = getattr(where, "lineno", None) or 1
        column = (getattr(where, "col_offset", None) or 0) + 1
        end_line = getattr(where, "end_lineno", None) or line
        end_column = (getattr(where, "end_col_offset", None) or (column - 1)) + 1
        key = (rule.id, line, column, end_line, end_column)
        if key in self._seen:
            return None
        self._seen.add(key)
        finding = Finding(rule=rule, path=self.info.path, line=line, column=column, end_line=end_line,
                          end_column=end_column, args=args, note=graph.reached_note() if graph else "",
                          node=node, data=data or {}, severity=rule.severity(self.config.syntax_level),
                          graph=graph)
        self.findings.append(finding)
        return finding


class Checker:
    """Base of the family checkers: one per module in graphlint/checkers/."""

    family = ""

    def __init__(self, context: ModuleContext):
        self.context = context

    def report(self, symbol: str, node, graph: GraphFunction | None = None, **kw):
        return self.context.report(symbol, node, graph, **kw)

    def check_function(self, graph: GraphFunction) -> None:  # pragma: no cover - abstract
        raise NotImplementedError


def analyse_module(info: ModuleInfo, analysis: Analysis, config: Config | None = None) -> list[Finding]:
    """All findings of one module, in source order."""
    from graphlint.checkers import CHECKERS

    config = config or analysis.config
    context = ModuleContext(info, analysis, config)
    graphs = analysis.graph_functions(info)
    if graphs:
        for checker_class in CHECKERS:
            if not config.family_enabled(checker_class.family):
                continue
            checker = checker_class(context)
            for graph in graphs:
                checker.check_function(graph)
    return sorted(context.findings, key=lambda f: f.sort_key)


def known_rule_names() -> set[str]:
    return {name for rule in RULES for name in rule.names}
