"""Signature facts: a function's positional parameters, what kind of method it is, and how a call binds them.

Every part of graphlint that pairs arguments with parameters asks here, so a ``@classmethod`` helper called as
``self.helper(x)`` binds ``x`` to its second parameter everywhere, as Python (and MindSpore) do.
"""

from __future__ import annotations

from astroid import nodes

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
    return 0


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


def instance_name(func: nodes.FunctionDef, cls: nodes.ClassDef | None) -> str | None:
    """The name of ``self`` in an instance method, else None (``cls`` of a class method is not an instance)."""
    return positional_parameters(func)[0].name if method_kind(func, cls) == INSTANCE and \
        positional_parameters(func) else None
