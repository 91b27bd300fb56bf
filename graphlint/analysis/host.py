"""Values of host code: what a script or a test hands to graph code.

Graph code is compiled with what its caller passes: MindSpore folds a Python scalar argument into the graph
(``Net()(10)`` compiles ``if x > 0`` away), keys every Parameter on its ``name=``, and refuses an int outside
int64 before it compiles anything. Those values are written in host code: the call of a Cell instance or a
``@jit`` function, and the variables a nested graph function closes over. This module reads them, as far as
plain reading goes (literals, constant arithmetic, ``Tensor(...)``, ``Parameter(..., name=...)``, a name with
one assignment), and says unknown otherwise.

Call sites are looked for in the module of the graph entry only: its findings then depend on its own text (the
result cache and ``--jobs`` rely on that), and an entry called from another module keeps the usual assumption
(a positional argument is a Tensor).
"""

from __future__ import annotations

import operator

from astroid import nodes
from astroid.const import Context

from graphlint.analysis import api, callables, signatures
from graphlint.analysis.kinds import CELL, CLASS, FUNCTION, LIST, NONE, TENSOR, TUPLE, UNKNOWN
from graphlint.analysis.project import ModuleInfo, Project, outer_binding
from graphlint.analysis.tree import name_lookup, nodes_of_class
from graphlint.analysis.lattice import NOTHING, Value, const, join, of_python, unknown, variable
from graphlint.analysis.values import BINOPS

# integer arithmetic: the value analysis' operators, with the bit operators host code uses for sizes and flags
_FOLDED = {**{op: fn for op, fn in BINOPS.items() if op != "/"}, "<<": operator.lshift, ">>": operator.rshift,
           "&": operator.and_, "|": operator.or_, "^": operator.xor}
_MAX_DEPTH = 8
_MUTATORS = frozenset({"append", "extend", "insert", "update", "setdefault", "pop", "remove", "clear"})


def parameter_name(call: nodes.Call) -> str:
    """The literal ``name=`` of ``Parameter(data, name)``, or ``""``."""
    for keyword in call.keywords or ():
        if keyword.arg == "name" and isinstance(keyword.value, nodes.Const) and isinstance(keyword.value.value, str):
            return keyword.value.value
    if len(call.args) >= 2 and isinstance(call.args[1], nodes.Const) and isinstance(call.args[1].value, str):
        return call.args[1].value
    return ""


def host_value(project: Project, info: ModuleInfo, expr, depth: int = 0) -> Value:
    """The value ``expr`` (in host code) has, as graph code receiving it sees it."""
    if depth > _MAX_DEPTH or expr is None:
        return unknown()
    if isinstance(expr, nodes.Const):
        return of_python(expr.value)
    if isinstance(expr, (nodes.Tuple, nodes.List)):
        return _sequence_value(project, info, expr, depth)
    if isinstance(expr, nodes.UnaryOp) and expr.op in ("-", "+"):
        operand = host_value(project, info, expr.operand, depth + 1)
        if operand.known and isinstance(operand.const, (int, float)) and not isinstance(operand.const, bool):
            return of_python(-operand.const if expr.op == "-" else operand.const)
        return unknown()
    if isinstance(expr, nodes.BinOp) and expr.op in _FOLDED:
        return _folded_value(project, info, expr, depth)
    if isinstance(expr, nodes.Call):
        return _call_value(project, info, expr)
    if isinstance(expr, nodes.Name):
        binding = _single_binding(expr)
        if isinstance(binding, nodes.ClassDef):
            return const(CLASS)
        if isinstance(binding, (nodes.FunctionDef, nodes.Lambda)):
            return const(FUNCTION)
        if isinstance(binding, nodes.AssignName) and isinstance(binding.parent, nodes.Assign):
            return host_value(project, info, binding.parent.value, depth + 1)
        return unknown()
    return unknown()


def _sequence_value(project: Project, info: ModuleInfo, expr, depth: int) -> Value:
    """A tuple or list display: its items' values (a tuple of constants is a constant)."""
    if any(isinstance(e, nodes.Starred) for e in expr.elts):
        return unknown()
    items = tuple(host_value(project, info, e, depth + 1) for e in expr.elts)
    kind = TUPLE if isinstance(expr, nodes.Tuple) else LIST
    known = tuple(v.const for v in items) if all(v.known for v in items) else NOTHING
    var = any(v.var for v in items)
    return Value(frozenset({kind}), var, next((v.origin for v in items if v.var), ""), items,
                 known if kind == TUPLE else NOTHING)


def _folded_value(project: Project, info: ModuleInfo, expr: nodes.BinOp, depth: int) -> Value:
    """An int operation of two int constants, folded (no huge numbers built while linting)."""
    left = host_value(project, info, expr.left, depth + 1)
    right = host_value(project, info, expr.right, depth + 1)
    if not (left.known and right.known and all(isinstance(v.const, int) and not isinstance(v.const, bool)
                                               for v in (left, right))):
        return unknown()
    if expr.op in ("<<", "**") and abs(right.const) > 4096:
        return unknown()
    try:
        return of_python(_FOLDED[expr.op](left.const, right.const))
    except (ArithmeticError, ValueError):
        return unknown()


def _call_value(project: Project, info: ModuleInfo, call: nodes.Call) -> Value:
    qualified = info.imports.qualify(call.func)
    line = call.lineno
    if qualified == api.PARAMETER:
        name = parameter_name(call)
        shown = f"the Parameter `{name}` created at line {line}" if name else f"the Parameter created at line {line}"
        return Value(frozenset({TENSOR}), True, shown, None, NOTHING, shown, name)
    if qualified in api.TENSOR_MAKERS:
        return variable(TENSOR, f"the Tensor created at line {line}")
    cls = instantiated_class(project, info, call)
    if cls is not None and project.is_cell(cls):
        return const(CELL)
    return unknown()


def instantiated_class(project: Project, info: ModuleInfo, call: nodes.Call) -> nodes.ClassDef | None:
    """The project class ``call`` creates an instance of, if it is one."""
    if not isinstance(call.func, (nodes.Name, nodes.Attribute)):
        return None
    resolved = project.resolve_expr(info, call.func)
    return resolved.node if resolved is not None and resolved.kind == "class" else None


def instance_class(project: Project, info: ModuleInfo, expr) -> nodes.ClassDef | None:
    """The project class whose instance ``expr`` is: ``Inner()``, or a name bound once to such a call."""
    if isinstance(expr, nodes.Name):
        binding = _single_binding(expr)
        expr = binding.parent.value if isinstance(binding, nodes.AssignName) else None
    return instantiated_class(project, info, expr) if isinstance(expr, nodes.Call) else None


def _single_binding(name: nodes.Name):
    """The one node that binds ``name`` where it is read (an AssignName, a ClassDef, ...), or None when there
    are several (a loop, two branches, ``+=``) or none."""
    try:
        _scope, bindings = name_lookup(name)
    except Exception:  # noqa: BLE001 - astroid's lookup on odd trees
        return None
    if len(bindings) != 1:
        return None
    binding = bindings[0]
    if isinstance(binding, nodes.AssignName):
        parent = binding.parent
        if not (isinstance(parent, nodes.Assign) and len(parent.targets) == 1 and parent.targets[0] is binding):
            return None
        if _rebound_later(binding):
            return None
    return binding


def _rebound_later(binding: nodes.AssignName) -> bool:
    """The name is also changed in place in its scope (``a[k] = v``, ``a.append(a)``): the value its one
    assignment gives is not the value read."""
    name = binding.name
    for node in nodes_of_class(binding.scope(), (nodes.Subscript, nodes.Call)):
        if isinstance(node, nodes.Subscript):
            if node.ctx == Context.Store and isinstance(node.value, nodes.Name) and node.value.name == name \
                    and _same_variable(node.value, binding):
                return True
        elif isinstance(node.func, nodes.Attribute) and isinstance(node.func.expr, nodes.Name) \
                and node.func.expr.name == name and node.func.attrname in _MUTATORS \
                and _same_variable(node.func.expr, binding):
            return True
    return False


def _same_variable(name: nodes.Name, binding: nodes.AssignName) -> bool:
    """``name`` reads the variable ``binding`` binds (not a local of the same name in a function inside)."""
    scope = name.scope()
    return scope is binding.scope() or name.name not in scope.locals


def holds_itself(expr) -> bool:
    """``expr`` is a name of a list or dict that its scope puts into itself, directly (``a.append(a)``,
    ``a += [a]``, ``d[k] = d``) or through another (``a[0] = b; b[0] = a``): MindSpore cannot convert such an
    object for a graph ("Detect recursion when converting python object")."""
    if not isinstance(expr, nodes.Name):
        return False
    scope = expr.scope()
    holds: dict[str, set[str]] = {}  # container name -> names put into it
    for node in nodes_of_class(scope, (nodes.Call, nodes.AugAssign, nodes.Assign)):
        for container, item in _insertions(node):
            # (only names bound once: after `a = [b]; a = [1]` the list read as `a` is another object)
            if all(len([b for b in scope.locals.get(n, ()) if not isinstance(b.parent, nodes.AugAssign)]) == 1
                   for n in (container, item)):
                holds.setdefault(container, set()).add(item)
    seen, todo = set(), list(holds.get(expr.name, ()))
    while todo:
        name = todo.pop()
        if name == expr.name:
            return True
        if name not in seen:
            seen.add(name)
            todo.extend(holds.get(name, ()))
    return False


def _insertions(node):
    """(container name, inserted name) pairs of one statement or call."""
    if isinstance(node, nodes.Call):
        func = node.func
        if isinstance(func, nodes.Attribute) and isinstance(func.expr, nodes.Name) and \
                func.attrname in ("append", "extend", "insert", "update", "setdefault"):
            for argument in node.args:
                for item in _names_in(argument):
                    yield func.expr.name, item
    elif isinstance(node, nodes.AugAssign):
        if isinstance(node.target, nodes.AssignName) and isinstance(node.value, (nodes.List, nodes.Tuple)):
            for item in _names_in(node.value):
                yield node.target.name, item
    else:
        for target in node.targets:
            if isinstance(target, nodes.Subscript) and isinstance(target.value, nodes.Name):
                for item in _names_in(node.value):
                    yield target.value.name, item
            elif isinstance(target, nodes.AssignName) and isinstance(node.value, (nodes.List, nodes.Tuple, nodes.Dict)):
                for item in _names_in(node.value):  # `b = [3, a]`: b holds a
                    yield target.name, item


def _names_in(node) -> list[str]:
    """The name itself, or the names a list, tuple or dict display holds."""
    if isinstance(node, nodes.Name):
        return [node.name]
    if isinstance(node, (nodes.List, nodes.Tuple)):
        return [e.name for e in node.elts if isinstance(e, nodes.Name)]
    if isinstance(node, nodes.Dict):
        return [value.name for _key, value in node.items if isinstance(value, nodes.Name)]
    return []


def closure_value(project: Project, info: ModuleInfo, func: nodes.FunctionDef, name: str, is_graph) -> Value | None:
    """The value of ``name`` read in ``func`` and bound by a host function that encloses it (a Parameter or a
    constant a test function made before defining a ``@jit`` function); None when no enclosing function binds it
    (a module-level name). ``is_graph(function)``: functions of graph code bind graph values, not host ones."""
    found = outer_binding(func, name)
    if found is None:
        return None
    scope = found.scope() if not isinstance(found, (nodes.ClassDef, nodes.FunctionDef)) else found.parent.scope()
    if is_graph(scope):
        return unknown()
    if isinstance(found, nodes.ClassDef):
        return const(CLASS)
    if isinstance(found, nodes.FunctionDef):
        return const(FUNCTION)
    if isinstance(found, nodes.AssignName) and isinstance(found.parent, nodes.Assign) and \
            len(scope.locals.get(name, ())) == 1 and not _rebound_later(found):
        return host_value(project, info, found.parent.value)
    return unknown()


def entry_calls(project: Project, info: ModuleInfo) -> dict[int, list[nodes.Call]]:
    """``{id(function): [calls]}``: the calls in this module of its ``@jit`` functions (``f(x)``) and of instances
    of its Cells (``Net()(x)``, ``net = Net(); net(x)``), keyed by the called function (``construct``)."""
    found: dict[int, list[nodes.Call]] = {}
    for call in nodes_of_class(info.module, nodes.Call):
        target = _called_entry(project, info, call.func)
        if target is not None:
            found.setdefault(id(target), []).append(call)
    return found


def _called_entry(project: Project, info: ModuleInfo, func) -> nodes.FunctionDef | None:
    if isinstance(func, nodes.Call):
        cls = instantiated_class(project, info, func)
    elif isinstance(func, nodes.Name):
        binding = _single_binding(func)
        if isinstance(binding, nodes.FunctionDef):
            return binding
        if binding is None and func.name in info.functions:
            return info.functions[func.name]
        if not (isinstance(binding, nodes.AssignName) and isinstance(binding.parent, nodes.Assign)
                and isinstance(binding.parent.value, nodes.Call)):
            return None
        cls = instantiated_class(project, info, binding.parent.value)
        if cls is None:  # `model = build_model(0)`: the Cell a project factory returns
            cls = _one_cell_held(project, info, func)
    elif isinstance(func, nodes.Attribute) and not _in_function_of_class(func):
        cls = _one_cell_held(project, info, func)  # `net.g([z])` in host code: the Cell `net` holds as `g`
    else:
        return None
    if cls is None or not project.is_cell(cls):
        return None
    found = project.find_method(cls, "construct")
    return found[0] if found is not None and found[1] is cls else None


def _one_cell_held(project: Project, info: ModuleInfo, expr):
    """The one project Cell class whose instances ``expr`` may hold, however it got there; else None."""
    made = [c for c in callables.instance_classes(project, info, expr, None) if project.is_cell(c)]
    return made[0] if len(made) == 1 else None


def _in_function_of_class(node) -> bool:
    """``node`` is in a method (`self.g(...)` there is a call inside the class's own code, not the host's)."""
    frame = node.frame()
    return isinstance(frame, nodes.FunctionDef) and isinstance(frame.parent, nodes.ClassDef)


def passed_tensors(project: Project, info: ModuleInfo, func: nodes.FunctionDef, cls, calls: list[nodes.Call]) -> set:
    """The entry's parameters that every one of ``calls`` passes a Tensor (``Net()(x, Tensor(3))``)."""
    bound = bind_entry(project, info, func, cls, calls, {})
    return {name for name, value in bound.items() if value.is_tensor}


def bind_entry(project: Project, info: ModuleInfo, func: nodes.FunctionDef, cls, calls: list[nodes.Call],
               defaults: dict[str, Value]) -> dict[str, Value]:
    """The entry's parameter values given the calls the module makes of it: a parameter every call passes a
    value of a known kind gets the join of those values; the others keep ``defaults`` (a Tensor, for a
    positional parameter). A Tensor stays the default Tensor (its messages name the argument), with the
    Parameter's name when every call passes the same named Parameter."""
    names = [a.name for a in signatures.positional_parameters(func)]
    offset = 1 if signatures.receiver_name(func, cls) is not None else 0
    per_param: dict[str, list[Value]] = {}
    passed_somewhere: set[str] = set()
    for call in calls:
        if any(isinstance(a, nodes.Starred) for a in call.args) or any(k.arg is None for k in call.keywords or ()):
            return dict(defaults)
        passed = {}
        for index, arg in enumerate(call.args):
            if index + offset < len(names):
                passed[names[index + offset]] = host_value(project, info, arg)
        for keyword in call.keywords or ():
            passed[keyword.arg] = host_value(project, info, keyword.value)
        passed_somewhere.update(passed)
        for name in names[offset:]:
            per_param.setdefault(name, []).append(passed.get(name, defaults.get(name, unknown())))
    with_default = {arg.name for arg in signatures.positional_parameters(func)[len(names) - len(func.args.defaults or []):]}
    bound = dict(defaults)
    for name, values in per_param.items():
        if any(UNKNOWN in v.kinds or v.bottom for v in values):
            if name in with_default and name in passed_somewhere:
                bound[name] = unknown()  # a call passes what graphlint cannot tell: the default is not the value
            continue
        joined = join(*values)
        if name in passed_somewhere and joined.may_be(TENSOR) and not joined.kinds - {TENSOR, NONE}:
            # the caller's Tensor, as the entry sees it (in-place writes on it reach the caller in PYNATIVE only)
            bound[name] = Value(joined.kinds, True, f"the Tensor argument `{name}`", None, NOTHING,
                                f"the argument `{name}`", joined.parameter)
        else:
            bound[name] = joined
    return bound
