"""Statements and expressions that MindSpore's graph parser rejects.

Most of these are rejected when MindSpore *parses* a graph function, for its
whole body, so they are reported wherever they appear in a graph-reached
function, even in a branch that never runs: ``try``, ``del``, ``import``,
``yield``, nested ``class``, ``nonlocal``, ``:=``, ``match``, ``async def``,
loop ``else``, sets (also as a default argument value) and comprehensions with
several ``for`` clauses. ``with`` is compiled only for ``@jit_class``
instances; ``eval`` runs in an empty namespace; ``is`` accepts only some right
operands. Those three need name resolution and the value analysis, and stay
quiet when the answer is unknown.
"""

from __future__ import annotations

import ast
import builtins

from astroid import nodes

from graphlint.analysis import api, signatures
from graphlint.analysis.boundary import is_top_level
from graphlint.analysis.kinds import CELL, FLOAT, LIST, TENSOR, TUPLE
from graphlint.catalogue import statements as rules
from graphlint.runner import Checker

_BUILTIN_NAMES = frozenset(dir(builtins))
# Calls that make a Tensor or a Parameter.
_TENSOR_OR_PARAMETER = api.TENSOR_CONSTRUCTORS | {api.PARAMETER}
_LOOP_KEYWORDS = {nodes.For: "for", nodes.While: "while"}
_INHERITED_SCOPE = nodes.NodeNG.scope
_COMPREHENSION_KINDS = {nodes.ListComp: "list comprehension", nodes.DictComp: "dict comprehension",
                        nodes.GeneratorExp: "generator expression"}

# Verdicts of the context-manager resolution.
_OK, _BAD, _UNSURE = "ok", "bad", "unsure"


class StatementsChecker(Checker):
    family = "statements"

    def check_function(self, graph) -> None:
        func = graph.node
        if isinstance(func, nodes.AsyncFunctionDef):
            # An `async def` helper reached from graph code: the whole function cannot be parsed.
            self.report(rules.ASYNC_IN_GRAPH, func, graph, anchor=_header_anchor(func), name=func.name)
            return
        self._values = None
        self._values_done = False
        self._scopes: dict[int, nodes.NodeNG] = {}
        self._reported_generators: set[int] = set()
        for default in _defaults(func.args):
            for node in _walk(default):
                self._check_node(graph, node)
        for node in _walk_body(func):
            self._check_node(graph, node)
        self._check_in_function_returning_none(graph)

    def _check_in_function_returning_none(self, graph) -> None:
        """CHECK_IN_FUNCTION_RETURNING_NONE: a called graph function whose output holds None, with an `assert` on a
        Tensor or a `raise` / a call statement on one branch of a Tensor `if`."""
        func = graph.node
        if graph.kind not in ("helper", "construct") or isinstance(func, nodes.Lambda):
            return
        returned = _none_returned(func)
        if not returned:
            return
        checks = [node for node in _walk_body(func) if isinstance(node, (nodes.If, nodes.Assert))
                  and node.scope() is func and (isinstance(node, nodes.Assert) or _branch_effect(node))]
        if not checks or graph.kind == "construct" and is_top_level(self.context.analysis, graph):
            return
        values = self._graph_values(graph)
        if values is None:
            return
        for check in checks:
            origin = values.tensor_origin(check.test)
            if origin:
                effect = "asserts" if isinstance(check, nodes.Assert) else _branch_effect(check)
                self.report(rules.CHECK_IN_FUNCTION_RETURNING_NONE, check, graph, name=func.name,
                            line=str(check.lineno), origin=origin, effect=effect, returned=returned)
                return

    def _scope(self, node) -> nodes.NodeNG:
        """``node.scope()``, remembered for every node on the way up.

        astroid climbs parent by parent to the scope, so asking from each of N comparisons nested
        in one expression (a chain of conditional expressions) would cost quadratic time."""
        climbed = []
        current = node
        # Nodes that inherit NodeNG.scope have their parent's scope; scopes and a few others decide it.
        while current is not None and type(current).scope is _INHERITED_SCOPE and id(current) not in self._scopes:
            climbed.append(current)
            current = current.parent
        if current is None:
            return node.scope()  # astroid's error for a detached node
        found = self._scopes[id(current)] if id(current) in self._scopes else current.scope()
        for passed in climbed:
            self._scopes[id(passed)] = found
        return found

    def _graph_values(self, graph):
        if not self._values_done:
            self._values_done = True
            self._values = self.context.values(graph)
        return self._values

    # -- dispatch ----------------------------------------------------------------
    def _check_node(self, graph, node) -> None:
        if isinstance(node, nodes.Try) or type(node).__name__ == "TryStar":
            self.report(rules.TRY_IN_GRAPH, node, graph, anchor=_keyword_anchor(node, "try"))
        elif isinstance(node, nodes.Delete):
            self.report(rules.DEL_IN_GRAPH, node, graph)
        elif isinstance(node, (nodes.Import, nodes.ImportFrom)):
            self.report(rules.IMPORT_IN_GRAPH, node, graph, statement=_one_line(node.as_string()))
        elif isinstance(node, (nodes.Yield, nodes.YieldFrom)):
            self._check_yield(graph, node)
        elif isinstance(node, nodes.ClassDef):
            self.report(rules.CLASS_DEF_IN_GRAPH, node, graph, anchor=_header_anchor(node), name=node.name)
        elif isinstance(node, nodes.AsyncFunctionDef):
            self.report(rules.ASYNC_IN_GRAPH, node, graph, anchor=_header_anchor(node), name=node.name)
        elif isinstance(node, nodes.With):
            self._check_with(graph, node)
        elif isinstance(node, nodes.Nonlocal):
            self.report(rules.NONLOCAL_IN_GRAPH, node, graph, names=", ".join(node.names))
        elif isinstance(node, nodes.NamedExpr):
            self.report(rules.WALRUS_IN_GRAPH, node, graph, target=node.target.as_string())
        elif isinstance(node, nodes.Match):
            self.report(rules.MATCH_IN_GRAPH, node, graph, anchor=_keyword_anchor(node, "match"))
        elif isinstance(node, (nodes.For, nodes.While)):
            if node.orelse:
                loop = _LOOP_KEYWORDS[type(node)]
                self.report(rules.LOOP_ELSE_IN_GRAPH, node, graph, anchor=_keyword_anchor(node, loop), loop=loop)
        elif isinstance(node, nodes.Set):
            self.report(rules.SET_IN_GRAPH, node, graph, what="a set literal")
        elif isinstance(node, nodes.SetComp):
            self.report(rules.SET_IN_GRAPH, node, graph, what="a set comprehension")
        elif isinstance(node, tuple(_COMPREHENSION_KINDS)):
            if len(node.generators) >= 2:
                self.report(rules.MULTI_FOR_COMPREHENSION, node, graph, kind=_COMPREHENSION_KINDS[type(node)])
        elif isinstance(node, nodes.Call):
            self._check_eval(graph, node)
            self._check_classmethod_call(graph, node)
        elif isinstance(node, nodes.Compare):
            self._check_identity(graph, node)

    # -- yield -------------------------------------------------------------------
    def _check_yield(self, graph, node) -> None:
        function = node.frame()
        if not isinstance(function, nodes.FunctionDef) or id(function) in self._reported_generators:
            return
        self._reported_generators.add(id(function))
        info = self.context.project.info(function.root())
        if any(info.imports.qualify(d) in api.CONTEXTMANAGER_DECORATORS
               for d in (function.decorators.nodes if function.decorators else ())):
            return  # used as a `with` manager: reported there (unsupported-context-manager)
        self.report(rules.GENERATOR_IN_GRAPH, node, graph, function=function.name)

    # -- with --------------------------------------------------------------------
    def _check_with(self, graph, node: nodes.With) -> None:
        for expr, _ in node.items:
            if self._manager_verdict(graph, expr, node) == _BAD:
                self.report(rules.UNSUPPORTED_CONTEXT_MANAGER, expr, graph, manager=_one_line(expr.as_string()))

    def _manager_verdict(self, graph, expr, where) -> str:
        """Whether the object a `with` item evaluates to is a @jit_class instance."""
        info = graph.info
        if isinstance(expr, nodes.Call):
            return self._made_by(graph, info, expr.func, where, 0)
        if isinstance(expr, nodes.Attribute) and isinstance(expr.expr, nodes.Name) and graph.cls is not None \
                and expr.expr.name == _self_name(graph) and where.frame() is graph.node:
            return self._self_attribute_verdict(graph, expr.attrname)
        if isinstance(expr, nodes.Name):
            if _bound_in_function(graph, expr.name, where):
                return self._local_verdict(graph, expr, where)
            value = info.assigned.get(expr.name)
            if isinstance(value, nodes.Call):
                return self._made_by(graph, info, value.func, None, 0)
        return _UNSURE

    def _made_by(self, graph, info, func, where, depth) -> str:
        """The verdict for the object made by calling ``func`` (a class, or a function returning a manager)."""
        if depth > 4:
            return _UNSURE
        if isinstance(func, nodes.Name) and where is not None and _bound_in_function(graph, func.name, where):
            return _UNSURE
        if isinstance(func, nodes.Name) and func.name == "open" and func.name not in info.functions \
                and func.name not in info.classes and func.name not in info.imports.aliases \
                and func.name not in info.assigned:
            return _BAD
        qualified = info.imports.qualify(func)
        if qualified is not None:
            top = qualified.split(".")[0]
            if qualified in api.REJECTED_CONTEXT_MANAGERS or qualified in api.JIT_FORBIDDEN_CONTEXT_MANAGERS:
                return _BAD
            if top in api.STDLIB_MODULES or top in api.FOREIGN_PACKAGES:
                return _BAD
        resolved = self.context.project.resolve_expr(info, func)
        if resolved is None:
            return _UNSURE
        if resolved.kind == "class":
            return self._class_verdict(resolved.node)
        if resolved.kind == "function":
            decorators = resolved.node.decorators.nodes if resolved.node.decorators else ()
            if any(resolved.info.imports.qualify(d) in api.CONTEXTMANAGER_DECORATORS for d in decorators):
                return _BAD
        return _UNSURE

    def _class_verdict(self, cls: nodes.ClassDef) -> str:
        """OK when the class or a base is a @jit_class; BAD only when the whole hierarchy is known and none is."""
        project = self.context.project
        for klass in project.mro(cls):
            info = project.info(klass.root())
            for decorator in klass.decorators.nodes if klass.decorators else ():
                target = decorator.func if isinstance(decorator, nodes.Call) else decorator
                qualified = info.imports.qualify(target)
                if qualified in api.JIT_CLASS_DECORATORS:
                    return _OK
                if qualified not in api.HARMLESS_CLASS_DECORATORS:
                    return _UNSURE  # a project decorator might apply jit_class
            if "__ms_class__" in klass.locals:
                return _UNSURE
            if klass.keywords:  # metaclass=...
                return _UNSURE
            resolved_bases = {id(base) for base, _ in project.base_classes(klass)}
            for base in klass.bases:
                if isinstance(base, nodes.Name) and base.name == "object":
                    continue
                found = project.resolve_expr(info, base)
                if found is not None and found.kind == "class" and id(found.node) in resolved_bases:
                    continue
                qualified = info.imports.qualify(base)
                if qualified is not None and (qualified.split(".")[0] in api.STDLIB_MODULES | api.FOREIGN_PACKAGES
                                              or api.is_mindspore_cell_name(qualified)):
                    continue
                return _UNSURE
        return _BAD

    def _self_attribute_verdict(self, graph, name: str) -> str:
        assignments = self.context.analysis.attribute_assignments(graph.cls).get(name)
        if not assignments:
            return _UNSURE
        verdicts = set()
        for value, method in assignments:
            if not isinstance(value, nodes.Call):
                return _UNSURE
            info = self.context.project.info(method.root())
            verdicts.add(self._made_by(graph, info, value.func, None, 0))
        return _BAD if verdicts == {_BAD} else _UNSURE

    def _local_verdict(self, graph, name: nodes.Name, where) -> str:
        if where.frame() is not graph.node:
            return _UNSURE
        values = self._graph_values(graph)
        if values is None:
            return _UNSURE
        element = values.cfg.element_of(where)
        if element is None:
            return _UNSURE
        definitions = values.cfg.reaching(element, name.name)
        if not definitions:
            return _UNSURE
        verdicts = set()
        for definition in definitions:
            if definition.kind != "assign" or not isinstance(definition.value, nodes.Call):
                return _UNSURE
            verdicts.add(self._made_by(graph, graph.info, definition.value.func, definition.value, 0))
        return _BAD if verdicts == {_BAD} else _UNSURE

    # -- eval ----------------------------------------------------------------------
    def _check_eval(self, graph, call: nodes.Call) -> None:
        func = call.func
        if not (isinstance(func, nodes.Name) and func.name == "eval"):
            return
        info = graph.info
        if _bound_in_function(graph, "eval", call) or "eval" in info.functions or "eval" in info.imports.aliases \
                or "eval" in info.assigned:
            return
        if not call.args or isinstance(call.args[0], nodes.Starred) or call.kwargs or call.starargs:
            return
        namespaces = list(call.args[1:]) + [k.value for k in call.keywords or () if k.arg in ("globals", "locals")]
        if any(k.arg not in ("globals", "locals") for k in call.keywords or ()):
            return
        for namespace in namespaces:
            if not (isinstance(namespace, nodes.Call) and isinstance(namespace.func, nodes.Name)
                    and namespace.func.name in ("globals", "locals") and not namespace.args):
                return  # an explicit namespace (dict literal, variable): MindSpore uses it
        text = self._constant_text(graph, call.args[0])
        if text is None:
            return
        if _free_names(text):
            self.report(rules.EVAL_WITHOUT_NAMESPACE, call, graph)

    def _constant_text(self, graph, expr) -> str | None:
        if isinstance(expr, nodes.Const):
            return expr.value if isinstance(expr.value, str) else None
        if self._scope(expr) is not graph.node:
            return None
        values = self._graph_values(graph)
        if values is None:
            return None
        value = values.value(expr)
        if value.known and not value.var and isinstance(value.const, str):
            return value.const
        return None

    # -- class methods -------------------------------------------------------------
    def _check_classmethod_call(self, graph, call: nodes.Call) -> None:
        """A call of a ``@classmethod``: graph code passes the arguments without the class (see signatures)."""
        if not isinstance(call.func, nodes.Attribute):
            return
        self_name = signatures.instance_name(graph.node, graph.cls)
        if self_name is not None and self_name in _nested_bound(call, graph.node):
            self_name = None  # rebound by a nested function or lambda: not the instance
        found = signatures.called_method(self.context.project, graph.info, graph.cls, self_name, call)
        if found is None or not signatures.unbound_in_graph(*found):
            return
        method, owner = found
        self.report(rules.CLASSMETHOD_CALL_IN_GRAPH, call, graph, call=_one_line(call.func.as_string() + "(...)"),
                    method=f"{owner.name}.{method.name}")

    # -- is / is not ---------------------------------------------------------------
    def _check_identity(self, graph, node: nodes.Compare) -> None:
        left = node.left
        for op, right in node.ops:
            if op in ("is", "is not"):
                kind = self._unsupported_right(graph, right)
                if kind is not None:
                    self.report(rules.IS_UNSUPPORTED_OPERAND, node, graph, kind=kind, right=_one_line(right.as_string()),
                                payload=rules.UnsupportedIdentity(kind, kind.endswith(" class")))
                elif self._both_tensors(graph, left, right):
                    self.report(rules.TENSOR_IDENTITY_COMPARISON, node, graph, left=_one_line(left.as_string()),
                                right=_one_line(right.as_string()), op=op)
            left = right

    def _unsupported_right(self, graph, right) -> str | None:
        """What the right operand of `is` is, when MindSpore rejects it; None when fine or unknown."""
        if isinstance(right, nodes.Const):
            if right.value is Ellipsis:
                return "Ellipsis"
            if isinstance(right.value, float):
                return "a float"
            return None
        if isinstance(right, nodes.Tuple):
            return "a tuple"
        if isinstance(right, nodes.List):
            return "a list"
        if isinstance(right, nodes.Dict):
            return "a dict"
        if isinstance(right, nodes.UnaryOp) and right.op in ("-", "+") and isinstance(right.operand, nodes.Const) \
                and isinstance(right.operand.value, float):
            return "a float"
        if not isinstance(right, (nodes.Name, nodes.Attribute)):
            return None
        base = right
        while isinstance(base, nodes.Attribute):
            base = base.expr
        if not isinstance(base, nodes.Name):
            return None
        if not _bound_in_function(graph, base.name, right):
            kind = self._global_kind(graph, right)
            return kind or None
        if self._scope(right) is not graph.node:
            return None
        values = self._graph_values(graph)
        if values is None:
            return None
        value = values.value(right)
        if value.is_(FLOAT):
            return "a float"
        if value.is_(TUPLE):
            return "a tuple"
        if value.is_(LIST):
            return "a list"
        if value.is_(CELL):
            return "a Cell instance"
        return None

    def _global_kind(self, graph, expr) -> str | None:
        """Kind of a module-level / imported name: a failing kind, "" for fine, None for not decided here."""
        info = graph.info
        project = self.context.project
        qualified = info.imports.qualify(expr)
        if qualified is not None:
            kind = api.api_kind(qualified, direct=True)
            if kind is not None:
                return kind.value  # "a function", "a Cell class", "a Primitive class"
            if qualified in ("math.pi", "math.e", "math.inf", "math.tau", "numpy.pi", "numpy.e", "numpy.inf"):
                return "a float"
        resolved = project.resolve_expr(info, expr)
        if resolved is not None:
            if resolved.kind == "function":
                return "a function"
            if resolved.kind == "class":
                return self._instance_making_class(resolved.node)
            return None
        if isinstance(expr, nodes.Attribute):
            owner = project.resolve_expr(info, expr.expr)
            if owner is not None and owner.kind == "class" and _is_enum_member(project, owner.node, expr.attrname):
                return "an enum member"
            return None
        if isinstance(expr, nodes.Name):
            value = info.assigned.get(expr.name)
            if isinstance(value, nodes.Call) and info.imports.qualify(value.func) in _TENSOR_OR_PARAMETER:
                return "a constant Tensor"
            if isinstance(value, nodes.Const) and isinstance(value.value, float):
                return "a float"
            if isinstance(value, nodes.Tuple):
                return "a tuple"
            if isinstance(value, nodes.List):
                return "a list"
        return None

    def _instance_making_class(self, cls: nodes.ClassDef) -> str | None:
        """MindSpore turns Cell, Primitive and @jit_class classes into instance makers, not types."""
        project = self.context.project
        if project.is_cell(cls):
            return "a Cell class"
        for klass in project.mro(cls):
            info = project.info(klass.root())
            for decorator in klass.decorators.nodes if klass.decorators else ():
                target = decorator.func if isinstance(decorator, nodes.Call) else decorator
                if info.imports.qualify(target) in api.JIT_CLASS_DECORATORS:
                    return "a @jit_class class"
            for base in klass.bases:
                if info.imports.qualify(base) in api.PRIMITIVE_BASES:
                    return "a Primitive class"
        return None

    def _both_tensors(self, graph, left, right) -> bool:
        if self._scope(left) is not graph.node or self._scope(right) is not graph.node:
            return False
        values = self._graph_values(graph)
        if values is None:
            return False
        a, b = values.value(left), values.value(right)
        return a.is_(TENSOR) and a.var and b.is_(TENSOR) and b.var


# -- helpers ---------------------------------------------------------------------------
def _walk(node):
    """A subtree, not entering class bodies, nested `async def`s or annotations."""
    stack = [node]
    while stack:
        current = stack.pop()
        yield current
        if isinstance(current, (nodes.ClassDef, nodes.AsyncFunctionDef)):
            continue  # reported as a whole
        skip = _annotation_ids(current)
        stack.extend(reversed([c for c in current.get_children() if id(c) not in skip]))


def _walk_body(func):
    for statement in func.body:
        yield from _walk(statement)


def _annotation_ids(node) -> set[int]:
    """Annotations are not evaluated (nor parsed) by MindSpore."""
    found = []
    if isinstance(node, nodes.AnnAssign):
        found.append(node.annotation)
    elif isinstance(node, nodes.Arguments):
        for group in (node.annotations, node.posonlyargs_annotations, node.kwonlyargs_annotations):
            found.extend(group or ())
        found += [node.varargannotation, node.kwargannotation]
    elif isinstance(node, nodes.FunctionDef):
        found.append(node.returns)
    return {id(a) for a in found if a is not None}


def _defaults(arguments: nodes.Arguments):
    for default in list(arguments.defaults or []) + list(arguments.kw_defaults or []):
        if default is not None:
            yield default


def _self_name(graph) -> str | None:
    positional = list(graph.node.args.posonlyargs or []) + list(graph.node.args.args or [])
    return positional[0].name if positional else None


def _bound_in_function(graph, name: str, where) -> bool:
    """``name`` is a local of the graph function or of a function/lambda between it and ``where``."""
    return name in graph.node.locals or name in _nested_bound(where, graph.node)


def _nested_bound(node, outer) -> set[str]:
    """Names bound by scopes (nested functions, lambdas, comprehensions) between ``node`` and ``outer``."""
    names: set[str] = set()
    current = node.parent
    while current is not None and current is not outer:
        if isinstance(current, (nodes.FunctionDef, nodes.Lambda, nodes.ListComp, nodes.SetComp, nodes.DictComp,
                                nodes.GeneratorExp)):
            names.update(current.locals)
        current = current.parent
    return names


def _is_enum_member(project, cls: nodes.ClassDef, attr: str) -> bool:
    """``attr`` is a member of a plain ``enum.Enum`` (no int/str mixin: those members may convert)."""
    info = project.info(cls.root())
    if len(cls.bases) != 1 or info.imports.qualify(cls.bases[0]) not in api.ENUM_BASES:
        return False
    for statement in cls.body:
        if isinstance(statement, nodes.Assign) and any(
                isinstance(t, nodes.AssignName) and t.name == attr for t in statement.targets):
            return True
    return False


def _free_names(text: str) -> set[str]:
    """Names an eval() text reads that are neither builtins nor bound inside the text."""
    try:
        tree = ast.parse(text.strip(), mode="eval")
    except (SyntaxError, ValueError):
        return set()
    bound: set[str] = set()
    used: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Name):
            (bound if isinstance(node.ctx, ast.Store) else used).add(node.id)
        elif isinstance(node, ast.arg):
            bound.add(node.arg)
    return {name for name in used - bound if name not in _BUILTIN_NAMES}


def _one_line(text: str) -> str:
    text = " ".join(text.split())
    return text if len(text) <= 80 else text[:77] + "..."


def _keyword_anchor(node, keyword: str):
    """Report a compound statement on its keyword (its first line), not on its whole body."""
    return _Span(node.lineno, node.col_offset, node.lineno, node.col_offset + len(keyword))


def _header_anchor(node):
    """``class Name`` / ``async def name``: the keyword(s) and the name, on the first line."""
    prefix = "class " if isinstance(node, nodes.ClassDef) else "async def " if isinstance(
        node, nodes.AsyncFunctionDef) else "def "
    return _Span(node.lineno, node.col_offset, node.lineno, node.col_offset + len(prefix) + len(node.name))


class _Span:
    def __init__(self, lineno, col_offset, end_lineno, end_col_offset):
        self.lineno, self.col_offset, self.end_lineno, self.end_col_offset = lineno, col_offset, end_lineno, end_col_offset


CHECKER = StatementsChecker


def _none_returned(func) -> str:
    """How ``func``'s output holds None, in words ("nothing", "a tuple holding None": `return cost, None`); "" when
    no return of it does."""
    returns = [n for n in _walk_body(func) if isinstance(n, nodes.Return) and n.scope() is func]
    if not returns or not isinstance(func.body[-1], (nodes.Return, nodes.Raise)):
        return "nothing"  # (it may fall off its end)
    for returned in returns:
        if returned.value is None or _is_none(returned.value):
            return "nothing"
        if isinstance(returned.value, nodes.Tuple) and any(_is_none(item) for item in returned.value.elts):
            return "a tuple holding None"
    return ""


def _is_none(node) -> bool:
    return isinstance(node, nodes.Const) and node.value is None


def _branch_effect(branch: nodes.If) -> str:
    """What a branch of ``branch`` does for its effect, in words ("raises", "calls `print(...)`"); "" for none."""
    for statement in branch.body + branch.orelse:
        for node in _walk(statement):
            if isinstance(node, nodes.Raise):
                return "raises"
            if isinstance(node, nodes.Expr) and isinstance(node.value, nodes.Call) and not (
                    isinstance(node.value.func, nodes.Attribute)
                    and node.value.func.attrname in api.CONTAINER_MUTATORS):  # (a local list's: nothing runs)
                return f"calls `{node.value.func.as_string()}(...)`"
    return ""
