"""Python's own functions on run-time values in graph code: what the measured table
(:mod:`graphlint.analysis.generated.python_on_runtime`, made by ``scripts/measure_python_on_runtime.py``) says a
call does, read from the abstract values of its arguments, not from its spelling.

Host-side decoding habits (a beam search over ``.item()`` scores, ``max(..., key=...)``, ``"".join`` of looked-up
tokens, ``itertools.groupby``, ``round``, ``math.log``) compile when every argument is a constant: they are
folded. With a run-time argument MindSpore either runs them in the interpreter (JIT fallback: the lax level only)
or refuses them at both levels. The argument kinds the table was measured with:

* ``scalar`` / ``int`` / ``count``: a Python number the graph computes (``t.item()``, ``int(t)``; ``count``: one given
  to a MindSpore op as a size or a count, ``ops.unsorted_segment_sum(x, ids, int(t) + 1)``);
* ``list`` / ``int list``: a list display of such numbers;
* ``tolist`` / ``int tolist``: what ``Tensor.tolist()`` gives (a fallback object);
* ``tensor``: a Tensor (reported by the Tensor rules: ``math-call-on-tensor``, ``builtin-falls-back``).
"""

from __future__ import annotations

from dataclasses import dataclass

from astroid import nodes

from graphlint.analysis.generated.python_on_runtime import FORMS
from graphlint.analysis.kinds import BOOL, DICT, INT, LIST, SCALARS, STR, TENSOR, TUPLE

FATAL, FALLS_BACK = "fatal", "falls back"
_SEVERITY = {"refused": FATAL, "no CPU kernel": FATAL, "falls back": FALLS_BACK}
_FAMILIES = ({"scalar", "int", "count"}, {"list", "int list"}, {"tolist", "int tolist"})
# Keywords that select another measured form of the same callable.
_FORM_KEYWORDS = ("key", "reverse")


@dataclass(frozen=True)
class Outcome:
    """What graph code does with one call: FATAL (refused at both levels) or FALLS_BACK (the lax level only)."""
    outcome: str
    callable: str
    argument: str  # the call's run-time argument kind (a measured form of its family decided the outcome)
    error: str  # MindSpore's message for the measured form


def _table() -> dict:
    found: dict[tuple, dict[str, dict]] = {}
    for entry in FORMS:
        found.setdefault((entry["callable"], entry["keywords"]), {}).setdefault(entry["argument"], entry)
    return found


_BY_CALLABLE = _table()
# The forms measured as calls (the subscripts, f-strings, `%` and loops the table also holds are not calls: no rule reads them).
_NOT_CALLS = frozenset({"range", "list.append", "f-string", "str.__mod__"})
MEASURED_CALLABLES = frozenset(name for name, _ in _BY_CALLABLE if "__" not in name and name not in _NOT_CALLS)
# How a message names each argument kind.
ARGUMENT_WORDS = {"scalar": "a Python number only the run knows (`.item()`)",
                  "int": "a Python int only the run knows (`int(t)`)",
                  "list": "a list of Python numbers only the run knows", "int list": "a list of run-time ints",
                  "tolist": "what `Tensor.tolist()` gives", "int tolist": "what `Tensor.tolist()` gives"}


def argument_kind(values, expr) -> str | None:
    """The measured argument kind of ``expr`` when it is a run-time value, else None."""
    if isinstance(expr, (nodes.GeneratorExp, nodes.ListComp)):
        kinds = [argument_kind(values, generator.iter) for generator in expr.generators]
        if any(kind in ("tolist", "int tolist") for kind in kinds):
            return "tolist"
        return "list" if any(kinds) or values.value(expr.elt).var else None
    value = values.value(expr)
    if not value.var or not value.kinds:
        return None
    if value.is_(TENSOR):
        return "tensor"
    if value.kinds <= {INT, BOOL}:
        return "int"
    if value.kinds <= SCALARS:
        return "scalar"
    if value.kinds <= {LIST, TUPLE}:
        elements = value.items if value.items is not None else ((value.each,) if value.each is not None else ())
        integral = bool(elements) and all(e is not None and e.kinds and e.kinds <= {INT, BOOL} for e in elements)
        if value.interpreted:
            return "int tolist" if integral else "tolist"
        return "int list" if integral else "list"
    if value.is_(DICT):
        return "scalar"  # a dict of run-time values (`sorted(d.items(), key=...)`)
    return None


def keywords_of(call: nodes.Call) -> str:
    names = {keyword.arg for keyword in call.keywords or ()}
    return next((name for name in _FORM_KEYWORDS if name in names), "")


def outcome(callable_name: str, keywords: str, kind: str | None) -> Outcome | None:
    """What the table says a call of ``callable_name`` with a run-time argument of ``kind`` does: the exact form,
    else the least severe measured form of the same family of kinds (a form not measured says nothing)."""
    if kind is None or kind == "tensor":
        return None
    measured = _BY_CALLABLE.get((callable_name, keywords))
    if not measured:
        return None
    entry = measured.get(kind)
    if entry is None:
        family = next((f for f in _FAMILIES if kind in f), {kind})
        candidates = [measured[k] for k in sorted(family) if k in measured]
        if not candidates:
            return None
        entry = min(candidates, key=lambda e: (_SEVERITY.get(e["verdict"]) == FATAL,
                                               _SEVERITY.get(e["verdict"]) == FALLS_BACK))
    severity = _SEVERITY.get(entry["verdict"])
    if severity is None:
        return None
    return Outcome(severity, callable_name, kind, entry["error"])


def call_outcome(values, imports, call: nodes.Call, builtin_name: str | None = None) -> Outcome | None:
    """What graph code does with ``call`` when one of its arguments (or its receiver, for a method) is a run-time
    value; ``builtin_name``: the builtin the call names, where the caller checked it is not shadowed."""
    func = call.func
    arguments = list(call.args) + [keyword.value for keyword in call.keywords or () if keyword.arg not in ("key",)]
    if builtin_name is not None:
        name = builtin_name
    elif isinstance(func, nodes.Attribute) and imports.qualify(func) is None:
        receiver = values.value(func.expr)
        kind = "str" if receiver.is_(STR) else "list" if receiver.is_(LIST) else None
        if kind is None:
            return None
        name = f"{kind}.{func.attrname}"
        if kind == "list":
            arguments = [func.expr] + arguments
    else:
        name = imports.qualify(func) if isinstance(func, (nodes.Name, nodes.Attribute)) else None
        if name is None:
            return None
    if name not in MEASURED_CALLABLES:
        return None
    kinds = [argument_kind(values, argument) for argument in arguments]
    run_time = [kind for kind in kinds if kind is not None and kind != "tensor"]
    if not run_time:
        return None
    return outcome(name, keywords_of(call), run_time[0])


def subscript_outcome(values, subscript: nodes.Subscript) -> Outcome | None:
    """What graph code does with a constant list or tuple indexed by a run-time Python int (``VOCAB[int(t)]``): the
    measured form of its elements' kind (a list of str falls back: no CPU kernel selects a str element)."""
    base = values.value(subscript.value)
    if not (base.is_(LIST) or base.is_(TUPLE)) or not base.items or isinstance(subscript.slice, nodes.Slice):
        return None
    if argument_kind(values, subscript.slice) != "int":
        return None
    if all(item.kinds and item.kinds <= {STR} for item in base.items):
        return outcome("str list.__getitem__", "", "int")
    return outcome("list.__getitem__" if base.is_(LIST) else "tuple.__getitem__", "", "int")
