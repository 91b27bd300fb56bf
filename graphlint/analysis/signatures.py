"""Signature facts: a function's positional parameters, what kind of method it is, and how a call binds them.

Every part of graphlint that pairs arguments with parameters asks here, so a ``@classmethod`` helper called as
``self.helper(x)`` binds ``x`` to its second parameter everywhere, as Python does. MindSpore's graph compiler does
not: it calls a class method without its class (:func:`unbound_in_graph`), so such a call fails to compile.
"""

from __future__ import annotations

from astroid import nodes

from graphlint.analysis.tree import nodes_of_class

INSTANCE, STATIC, CLASS, FUNCTION = "instance", "static", "class", "function"


def positional_parameters(func: nodes.FunctionDef | nodes.Lambda) -> list[nodes.AssignName]:
    return list(func.args.posonlyargs or []) + list(func.args.args or [])


def positional_annotations(func: nodes.FunctionDef | nodes.Lambda) -> list:
    return list(func.args.posonlyargs_annotations or []) + list(func.args.annotations or [])


def annotation_of(func: nodes.FunctionDef | nodes.Lambda, name: str):
    """The annotation of parameter ``name`` (positional or keyword-only), or None."""
    pairs = list(zip(positional_parameters(func), positional_annotations(func)))
    pairs += list(zip(func.args.kwonlyargs or [], func.args.kwonlyargs_annotations or []))
    return next((annotation for arg, annotation in pairs if arg.name == name), None)


def _decorator_names(func) -> set[str]:
    found = set()
    for decorator in func.decorators.nodes if getattr(func, "decorators", None) else ():
        if isinstance(decorator, nodes.Name):
            found.add(decorator.name)
        elif isinstance(decorator, nodes.Attribute):
            found.add(decorator.attrname)
    return found


def method_kind(func: nodes.FunctionDef, cls: nodes.ClassDef | None) -> str:
    """``instance``, ``static`` or ``class`` for a method of ``cls``; ``function`` outside a class."""
    if cls is None:
        return FUNCTION
    names = _decorator_names(func)
    if "staticmethod" in names:
        return STATIC
    if "classmethod" in names:
        return CLASS
    return INSTANCE


def implicit_first(func: nodes.FunctionDef, cls: nodes.ClassDef | None) -> bool:
    """Whether the first positional parameter is filled by Python (``self`` or ``cls``), not by the caller."""
    return method_kind(func, cls) in (INSTANCE, CLASS) and bool(positional_parameters(func))


def receiver_name(func: nodes.FunctionDef, cls: nodes.ClassDef | None) -> str | None:
    """The name of ``self`` (or ``cls``), or None for functions and static methods."""
    return positional_parameters(func)[0].name if implicit_first(func, cls) else None


def call_offset(func: nodes.FunctionDef, cls: nodes.ClassDef | None, call: nodes.Call) -> int:
    """How many leading positional parameters a call leaves to Python: 1 for ``obj.method(...)`` and for a class
    method however it is called; 0 for ``Class.method(obj, ...)``, functions and static methods."""
    kind = method_kind(func, cls)
    if kind == CLASS:
        return 1 if positional_parameters(func) else 0
    if kind != INSTANCE or not positional_parameters(func):
        return 0
    target = call.func
    if isinstance(target, nodes.Attribute):
        base = target.expr
        if isinstance(base, nodes.Name) and base.name[:1].isupper():
            return 0  # `Class.method(obj, ...)`: the instance is passed explicitly
        return 1
    # an instance method reached through a held value: a bound method or an instance called (`self.blocks["up"](x)`,
    # `layer(x)` in a loop over Cells)
    return 1 if isinstance(target, (nodes.Subscript, nodes.Name, nodes.Call)) else 0


def argument_for(func: nodes.FunctionDef, cls: nodes.ClassDef | None, call: nodes.Call, name: str):
    """The expression a call passes to parameter ``name`` (positionally or by keyword), or None."""
    names = [a.name for a in positional_parameters(func)]
    offset = call_offset(func, cls, call)
    passed = None
    for index, arg in enumerate(call.args):
        if isinstance(arg, nodes.Starred):
            break
        if index + offset < len(names) and names[index + offset] == name:
            passed = arg
    for keyword in call.keywords or ():
        if keyword.arg == name:
            passed = keyword.value
    return passed


def called_parameter(func: nodes.FunctionDef, call: nodes.Call, passed: list):
    """(parameter, argument): the parameter of ``func`` to which ``call`` gives one of the ``passed`` expressions and
    which the body calls by name (``predictor(x)``), not rebound there first; None when there is none."""
    for parameter in [a.name for a in positional_parameters(func)] + [a.name for a in func.args.kwonlyargs or ()]:
        argument = argument_for(func, None, call, parameter)
        if argument is None or all(argument is not p for p in passed) or len(func.locals.get(parameter, ())) > 1:
            continue  # (not one of them, or bound again in the body: it may hold something else when called)
        if any(isinstance(inner.func, nodes.Name) and inner.func.name == parameter
               for inner in nodes_of_class(func, nodes.Call)):
            return parameter, argument
    return None


def instance_name(func: nodes.FunctionDef, cls: nodes.ClassDef | None) -> str | None:
    """The name of ``self`` in an instance method, else None (``cls`` of a class method is not an instance)."""
    return positional_parameters(func)[0].name if method_kind(func, cls) == INSTANCE and \
        positional_parameters(func) else None


def unbound_in_graph(func: nodes.FunctionDef, cls: nodes.ClassDef | None) -> bool:
    """A method that MindSpore's graph compiler calls without binding its first parameter: a ``@classmethod``.

    Called from graph code, through an instance (``self.f(x, y)``, ``self.sub.f(x, y)``), ``type(self).f``,
    ``self.__class__.f`` or the class itself (``Net.f(x, y)``), of a Cell or of a plain class, the arguments fill
    the parameters from ``cls`` on and compiling stops at every syntax level: "The parameters number of the function
    is 3, but the number of provided arguments is 2" (keyword arguments: "Miss argument input for parameter:x").
    Static methods and instance methods are bound as in Python. Measured with MindSpore 2.10 (CPU)."""
    return method_kind(func, cls) == CLASS and bool(positional_parameters(func))


def called_method(project, info, cls: nodes.ClassDef | None, self_name: str | None,
                  call: nodes.Call) -> tuple[nodes.FunctionDef, nodes.ClassDef] | None:
    """The project method (and the class defining it) that ``call`` calls, for the receivers graph code uses:
    ``self.m(...)``, ``type(self).m(...)``, ``self.__class__.m(...)``, ``self.attr.m(...)`` (``attr`` made in
    ``__init__`` as an instance of one project class) and ``Class.m(...)``; None when it is not known.
    ``cls`` is the class of the calling method and ``self_name`` its instance parameter."""
    func = call.func
    if not isinstance(func, nodes.Attribute):
        return None
    owner = _receiver_class(project, info, cls, self_name, func.expr)
    return project.find_method(owner, func.attrname) if owner is not None else None


def _receiver_class(project, info, cls, self_name, expr) -> nodes.ClassDef | None:
    def is_self(node) -> bool:
        return self_name is not None and isinstance(node, nodes.Name) and node.name == self_name

    if cls is not None and self_name is not None:
        if is_self(expr):
            return cls
        if isinstance(expr, nodes.Call) and isinstance(expr.func, nodes.Name) and expr.func.name == "type" \
                and len(expr.args) == 1 and not expr.keywords and is_self(expr.args[0]) \
                and "type" not in info.imports.aliases and "type" not in info.classes \
                and "type" not in info.functions:
            return cls
        if isinstance(expr, nodes.Attribute) and is_self(expr.expr):
            if expr.attrname == "__class__":
                return cls
            return _attribute_class(project, cls, expr.attrname)
    if isinstance(expr, (nodes.Name, nodes.Attribute)):
        resolved = project.resolve_expr(info, expr)
        if resolved is not None and resolved.kind == "class":
            return resolved.node
    return None


def _attribute_class(project, cls: nodes.ClassDef, name: str) -> nodes.ClassDef | None:
    """The one project class whose instance every assignment of ``self.name`` in ``__init__`` makes."""
    found = None
    for value, method in project.attribute_assignments(cls).get(name, ()):
        if method.name != "__init__" or not isinstance(value, nodes.Call):
            return None
        resolved = project.resolve_expr(project.info(method.root()), value.func)
        if resolved is None or resolved.kind != "class" or (found is not None and resolved.node is not found):
            return None
        found = resolved.node
    return found


def default_of(func: nodes.FunctionDef | nodes.Lambda, name: str):
    """The default expression of parameter ``name`` (None: no default, or no such parameter)."""
    args = func.args
    positional = positional_parameters(func)
    defaults = list(args.defaults or [])
    first = len(positional) - len(defaults)
    for index, arg in enumerate(positional):
        if arg.name == name and index >= first:
            return defaults[index - first]
    for arg, default in zip(args.kwonlyargs or [], args.kw_defaults or []):
        if arg.name == name:
            return default
    return None
