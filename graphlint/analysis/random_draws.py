"""Which calls of graph code draw random numbers, and through what: MindSpore's random ops
(:data:`generated.builtins.RANDOM_FUNCTIONS`), its Dropout layers (``RANDOM_LAYERS``), and project functions,
methods and Cells whose code draws.

Why it matters (measured with MindSpore 2.10, CPU): graph mode makes one random node per call site in the code it
compiles. A random op written twice draws twice; a function, method or Cell that draws and is called twice in one
graph (or once in a loop graph mode unrolls) runs the same node, and every call gets the same numbers, where
PYNATIVE_MODE draws anew."""

from __future__ import annotations

from astroid import nodes

from graphlint.analysis import api, callables
from graphlint.analysis.generated.builtins import RANDOM_FUNCTIONS, RANDOM_LAYERS
from graphlint.analysis.objects import object_classes
from graphlint.analysis.scope import function_reference
from graphlint.analysis.tree import literal, nodes_of_class


def random_api(imports, call: nodes.Call) -> str | None:
    """``ops.randn`` for a call of one of MindSpore's random functions, else None."""
    func = call.func
    qualified = imports.qualify(func) if isinstance(func, (nodes.Name, nodes.Attribute)) else None
    if qualified in RANDOM_FUNCTIONS:
        return qualified.replace("mindspore.", "", 1)
    return None


# Tensor methods named after MindSpore's random functions (`probs.multinomial(1)`, `t.uniform_()`): they draw too
_RANDOM_METHOD_NAMES = frozenset(name.rsplit(".", 1)[1] for name in RANDOM_FUNCTIONS)


def random_tensor_method(values, call: nodes.Call) -> str | None:
    """``Tensor.multinomial`` for a call of a random method on a value the analysis knows for a Tensor, else None."""
    func = call.func
    if isinstance(func, nodes.Attribute) and func.attrname in _RANDOM_METHOD_NAMES and values is not None \
            and values.value(func.expr).is_tensor:
        return f"Tensor.{func.attrname}"
    return None


def drawn_by(analysis, info, call: nodes.Call, cls) -> str | None:
    """What ``call`` draws random numbers with, when it calls a random layer held as an attribute
    (``self.drop(x)``), or a project function, method or Cell whose code does (through any depth of calls):
    the random API, else None."""
    func = call.func
    if isinstance(func, nodes.Attribute) and isinstance(func.expr, nodes.Name) and cls is not None \
            and func.expr.name == "self":
        held = analysis.attribute_instances(cls, func.attrname) or frozenset()
        if any(q.rsplit(".", 1)[-1] in api.NN_CONTAINER_CELLS for q in held if q.startswith("mindspore.")):
            # (`nn.SequentialCell([..., nn.Dropout(p)])`: calling it calls its members)
            members = callables.call_targets(analysis.project, info, func, cls) or []
            held = held | {m for m in members if isinstance(m, str)}
        classes = []
        for qualified in sorted(held):
            if qualified in RANDOM_LAYERS and not _never_drops(analysis, cls, func.attrname):
                return qualified.replace("mindspore.", "", 1)
            resolved = analysis.project.resolve_qualified(qualified)
            if resolved is not None and resolved.kind == "class":
                classes.append(resolved.node)
        # (a Cell the constructor was given: `Predictor(model)`)
        classes += [c for c in object_classes(analysis.project, info, func, cls) if all(c is not k for k in classes)]
        for held_class in classes:
            found = analysis.project.find_method(held_class, "construct")
            drawn = _drawn_in(analysis, found[0], found[1]) if found is not None else None
            if drawn:
                return drawn
    target = function_reference(analysis.project, info, func, cls)
    return _drawn_in(analysis, target[0], target[1]) if target is not None else None


def _never_drops(analysis, cls, attribute: str) -> bool:
    """Every Dropout layer ``self.attribute`` is built as drops nothing: ``p=`` 0 (or ``keep_prob=`` 1), written
    or passed down constructors as a constant (``nn.Dropout(p=drop)``, every ``Mlp`` built with ``drop=0.``); its
    ``construct`` then returns its input and draws nothing."""
    assignments = analysis.attribute_assignments(cls).get(attribute) or ()
    if not assignments:
        return False
    for value, method in assignments:
        if not isinstance(value, nodes.Call) or method.name != "__init__":
            return False
        keywords = {k.arg: k.value for k in value.keywords or ()}
        name, inert = ("p", 0) if "p" in keywords else ("keep_prob", 1) if "keep_prob" in keywords else (None, None)
        if name is None:
            return False
        given = keywords[name]
        written = literal(given)
        if written is not None:
            values = [written[0]]
        elif isinstance(given, nodes.Name):
            values = analysis.constructor_constants(cls, method, given.name)
        else:
            return False
        if not values or any(isinstance(v, bool) or not isinstance(v, (int, float)) or v != inert for v in values):
            return False
    return True


_SEARCHING: set[int] = set()  # functions whose search is under way (recursion in the project stops there)


def _drawn_in(analysis, function: nodes.FunctionDef, owner) -> str | None:
    """What ``function``'s code, or the code it calls, draws with (remembered while its module stands)."""
    if id(function) in _SEARCHING:
        return None

    def search():
        info = analysis.project.info(function.root())
        _SEARCHING.add(id(function))
        try:
            for inner in nodes_of_class(function, nodes.Call):
                drawn = random_api(info.imports, inner) or drawn_by(analysis, info, inner, owner)
                if drawn:
                    return drawn
            return None
        finally:
            _SEARCHING.discard(id(function))

    return analysis.project.memo("random draws", function, search)
