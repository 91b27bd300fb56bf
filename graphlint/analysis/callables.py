"""The functions graph code calls through values: a lambda or nested function that an attribute, a list, a dict, a
factory's return or a ``functools.partial`` holds, and what MindSpore's parser makes of each.

MindSpore compiles a function object graph code calls from its source: ``inspect.getsourcelines`` gives the lines
from the one the function starts on, and the parser takes the first statement of them. For a lambda that statement
must have the lambda as its value (``f = lambda x: ...``, ``return lambda x: ...``); a lambda written inside a call, a
list, a dict or a conditional expression is refused ("Parse Lambda Function Fail. Node type must be Lambda, but got
Call"). Default values of the parameters are resolved in the function's globals and closure, so a default naming a
local of the enclosing function that the body does not read is refused ("The name ... is not defined"). Both were
measured with MindSpore 2.10 at both syntax levels; the parser's code is ``Parser::ParseFuncGraph`` (parse.cc) and
``Parser.parse`` (parser.py).
"""

from __future__ import annotations

import ast
import inspect
import textwrap
from dataclasses import dataclass

from astroid import nodes

from graphlint.analysis import api, signatures
from graphlint.analysis.objects import _calls_of, constructor_argument, instantiated, object_classes
from graphlint.analysis.project import ModuleInfo, Project, Resolved
from graphlint.analysis.tree import name_lookup, nodes_of_class

MAX_DEPTH = 16  # links followed from the call to a definition
ALL, UNKNOWN_KEY = "all elements", "an unknown element"  # selectors: iteration, a subscript not known
# calls whose elements are their argument's: `list(fns)`, `nn.CellList([...])`
_SEQUENCE_MAKERS = frozenset({"builtins.list", "builtins.tuple", "builtins.dict", "collections.OrderedDict",
                              "mindspore.nn.CellList", "mindspore.nn.SequentialCell", "mindspore.nn.CellDict"})
_DICT_MAKERS = frozenset({"builtins.dict", "collections.OrderedDict"})


@dataclass(frozen=True)
class Reached:
    """A function object a call in graph code may run."""
    node: nodes.NodeNG      # the Lambda or FunctionDef
    certain: bool           # every run of the call runs it (an iterated list), not one of several candidates
    partial: nodes.Call | None  # the ``functools.partial(...)`` call that wrapped it, if one did


def _reach(project: Project, info: ModuleInfo, expr, cls: nodes.ClassDef | None, classes: bool = False) -> dict:
    """What ``expr`` may hold, as the resolver finds it: ``{id(node): Reached}`` for functions and project
    classes' instances, ``("nn", qualified)`` for MindSpore nn layers made, and with ``classes`` ``("class",
    qualified)`` for the classes a name refers to."""
    def compute():
        found: dict = {}
        _Resolver(project, cls, classes).value(info, expr, (), True, None, 0, found)
        return found
    # remembered per expression until its module or one it imports changes, as call_targets is (graph scope, the
    # analysis and the rules ask the same expressions)
    return project.memo("reach classes" if classes else "reach", expr, compute)


def called_functions(project: Project, info: ModuleInfo, callee, cls: nodes.ClassDef | None) -> list[Reached]:
    """The lambdas and functions the call ``callee(...)`` in graph code may run, where a value holds them (graph
    scope and the rules ask it of the same calls: remembered per callee until its module changes)."""
    return project.memo("called functions", callee, lambda: [
        reached for reached in _reach(project, info, callee, cls).values()
        if isinstance(reached.node, (nodes.Lambda, nodes.FunctionDef))])


def classes_referred(project: Project, info: ModuleInfo, expr, cls: nodes.ClassDef | None) -> frozenset[str]:
    """The qualified classes ``expr`` may refer to, as classes (``norm`` after ``if norm is None: norm =
    nn.BatchNorm2d``, or a parameter defaulting to or passed ``nn.LayerNorm``); empty when none is found."""
    return frozenset(key[1] for key in _reach(project, info, expr, cls, classes=True)
                     if isinstance(key, tuple) and key[0] == "class")


def instance_classes(project: Project, info: ModuleInfo, expr, cls: nodes.ClassDef | None) -> list:
    """The project classes whose instances ``expr`` may hold, however they reached it."""
    return [reached.node for reached in _reach(project, info, expr, cls).values()
            if isinstance(reached.node, nodes.ClassDef)]


def instances_made(project: Project, info: ModuleInfo, expr, cls: nodes.ClassDef | None) -> frozenset[str]:
    """The qualified classes (the project's, MindSpore's nn layers) whose instances ``expr`` may hold, however
    they reached it (``self.down_sample = down_sample``, the caller passing ``nn.SequentialCell([...])``)."""
    found = _reach(project, info, expr, cls)
    made = {reached.node.qname() for reached in found.values() if isinstance(reached.node, nodes.ClassDef)}
    return frozenset(made | {key[1] for key in found if isinstance(key, tuple) and key[0] == "nn"})


def call_targets(project: Project, info: ModuleInfo, callee, cls: nodes.ClassDef | None) -> list | None:
    """What a call ``callee(...)`` in graph code calls, where every value ``callee`` may hold was followed to its
    making: project classes (their instances), ``("nn", qualified)`` for MindSpore's layers, functions and lambdas;
    a ``nn.SequentialCell`` stands for its members (calling it calls them in turn), and a ``None`` the call cannot
    be reached with is left out. None when some value could not be followed (a path the resolver does not know,
    a parameter nothing passes): then what the call gives is not known."""
    def compute():
        resolver = _Resolver(project, cls, calls=True)
        found: dict = {}
        resolver.value(info, callee, (), True, None, 0, found)
        if resolver.open or not found:
            return None
        return [key[1] if isinstance(key, tuple) and key[0] == "nn" else reached.node
                for key, reached in found.items()]
    return project.memo("call targets", callee, compute)


def may_hold_cell(project: Project, info: ModuleInfo, expr, cls: nodes.ClassDef | None) -> bool:
    """``expr`` may hold a Cell made outside graph code (a project Cell class's instance, or ``nn.Dense(...)``),
    however it reached there: arguments, ``**kwargs`` dicts, factories' returns."""
    found = _reach(project, info, expr, cls)
    return any(isinstance(reached.node, nodes.ClassDef) and project.is_cell(reached.node) for reached in found.values()) \
        or any(isinstance(key, tuple) and key[0] == "nn" for key in found)


class _Resolver:
    def __init__(self, project: Project, cls: nodes.ClassDef | None, classes: bool = False, calls: bool = False):
        self.project = project
        self.cls = cls
        self.seen: set = set()
        self.classes = classes  # also record the classes a name refers to (``norm = nn.BatchNorm2d``)
        # resolving what a call calls: a SequentialCell is its members, and a value not followed is recorded
        self.calls = calls
        self.open = False  # some value was not followed to its making

    def value(self, info, expr, selectors: tuple, certain: bool, partial, depth: int, found: dict) -> None:
        """Add to ``found`` what ``expr`` holds after ``selectors`` (outermost first) pick elements of it."""
        key = (id(expr), selectors)
        if depth > MAX_DEPTH:
            self.open = True
            return
        if key in self.seen or expr is None:
            return
        self.seen.add(key)
        if isinstance(expr, (nodes.Lambda, nodes.FunctionDef)) and not isinstance(expr, nodes.AsyncFunctionDef):
            if not selectors:
                previous = found.get(id(expr))
                found[id(expr)] = Reached(expr, certain or bool(previous and previous.certain), partial)
            return
        if isinstance(expr, (nodes.List, nodes.Tuple, nodes.Set, nodes.Dict, nodes.ListComp, nodes.SetComp,
                             nodes.GeneratorExp)):
            if selectors:
                self._elements(info, expr, selectors, certain, partial, depth, found)
            return
        if isinstance(expr, (nodes.IfExp, nodes.BoolOp)):  # one of the operands, not known which
            for operand in (expr.body, expr.orelse) if isinstance(expr, nodes.IfExp) else expr.values:
                self.value(info, operand, selectors, False, partial, depth + 1, found)
            return
        if isinstance(expr, nodes.Subscript):
            self.value(info, expr.value, (_selector(expr.slice),) + selectors, certain, partial, depth + 1, found)
            return
        if self.classes and not selectors and isinstance(expr, (nodes.Name, nodes.Attribute)):
            qualified = _class_named(self.project, info, expr)
            if qualified is not None:
                found.setdefault(("class", qualified), Reached(expr, certain, None))
                return
        handler = {nodes.Call: self._call, nodes.Name: self._name, nodes.Attribute: self._attribute}.get(type(expr))
        if handler is not None:
            handler(info, expr, selectors, certain, partial, depth, found)
        elif not (isinstance(expr, nodes.Const) and expr.value is None and not selectors):
            self.open = True  # (a `None` is never what a reached call calls)

    def _elements(self, info, display, selectors, certain, partial, depth, found) -> None:
        """The elements of a display (or comprehension) the first selector picks."""
        if not isinstance(display, (nodes.List, nodes.Tuple, nodes.Set, nodes.Dict)):
            self.value(info, display.elt, selectors[1:], False, partial, depth + 1, found)
            return
        if isinstance(display, nodes.Dict):
            elements = [value for _key, value in display.items]
            keys = [_constant(key) for key, _value in display.items]
        else:
            elements, keys = list(display.elts), list(range(len(display.elts)))
        chosen = _chosen(selectors[0], keys)
        each = certain and (chosen is not None or selectors[0] == ALL)
        for index, element in enumerate(elements):
            if chosen is None or index in chosen:
                self.value(info, element, selectors[1:], each, partial, depth + 1, found)

    def _call(self, info, call: nodes.Call, selectors, certain, partial, depth, found) -> None:
        qualified = info.imports.qualify(call.func) if isinstance(call.func, (nodes.Name, nodes.Attribute)) else None
        if qualified == "functools.partial" and call.args and not selectors:
            self.value(info, call.args[0], (), certain, call, depth + 1, found)
            return
        if self.calls and not selectors and qualified == "mindspore.nn.SequentialCell":
            self._sequential_members(info, call, certain, partial, depth, found)
            return
        if qualified in _SEQUENCE_MAKERS and (len(call.args) == 1 or not call.args and not call.keywords):
            self._sequence(info, call, qualified, selectors, certain, partial, depth, found)
            return
        if qualified == "builtins.dict" and selectors and not call.args:  # `dict(wte=..., ln_f=...)`
            self._keyword_items(info, call, selectors, certain, partial, depth, found)
            return
        resolved = self.project.resolve_expr(info, call.func) if isinstance(call.func, (nodes.Name, nodes.Attribute)) \
            else None
        if resolved is None:
            resolved = self._own_method(info, call.func)
        if not selectors and (resolved is not None and resolved.kind == "class"):
            found.setdefault(id(resolved.node), Reached(resolved.node, certain, None))  # an instance of it
            return
        if not selectors and (is_layer_name(qualified) or self.calls and resolved is None
                              and isinstance(call.func, (nodes.Name, nodes.Attribute))):
            self._made_by_class_name(info, call, certain, depth, found, qualified)
            return
        self._factory_returns(resolved, selectors, certain, partial, depth, found)

    def _own_method(self, info, func) -> Resolved | None:
        """``self._make_layer(...)``: the method of the class the call is made in (what it returns is followed as a
        factory's return)."""
        if not (isinstance(func, nodes.Attribute) and isinstance(func.expr, nodes.Name)):
            return None
        frame = func.frame()
        cls = frame.parent.frame() if isinstance(frame, nodes.FunctionDef) and isinstance(frame.parent, nodes.ClassDef) \
            else None
        if cls is None or func.expr.name != signatures.receiver_name(frame, cls):
            return None
        found = self.project.find_method(cls, func.attrname)
        return Resolved("function", found[0], self.project.info(found[0].root()) or info) if found is not None else None

    def _sequence(self, info, call: nodes.Call, qualified: str, selectors, certain, partial, depth, found) -> None:
        """``list(xs)``, ``nn.CellList(cells)``: the elements of its argument; held as a whole (no selector, not a
        call), an ``nn`` container is an instance of it."""
        if not selectors and not self.calls and is_layer_name(qualified):
            found.setdefault(("nn", qualified), Reached(call, certain, None))
            return
        pairs = call.args[0] if call.args and qualified in _DICT_MAKERS and selectors else None
        if isinstance(pairs, (nodes.List, nodes.Tuple)):  # `OrderedDict([("norm", nn.BatchNorm2d(c)), ...])`
            for pair in pairs.elts:
                if not (isinstance(pair, nodes.Tuple) and len(pair.elts) == 2):
                    self.open = True
                    continue
                self.value(info, pair.elts[1], selectors[1:], False, partial, depth + 1, found)
            return
        if call.args:  # (empty: what `append` adds is found where it is added)
            self.value(info, call.args[0], selectors, certain, partial, depth + 1, found)

    def _keyword_items(self, info, call: nodes.Call, selectors, certain, partial, depth, found) -> None:
        """The items of `dict(key=value, ...)` the first selector picks."""
        chosen = _chosen(selectors[0], [keyword.arg for keyword in call.keywords])
        for index, keyword in enumerate(call.keywords):
            if keyword.arg is None:
                self.open = True
            elif chosen is None or index in chosen:
                self.value(info, keyword.value, selectors[1:], certain and chosen is not None, partial, depth + 1,
                           found)

    def _factory_returns(self, resolved, selectors, certain, partial, depth, found) -> None:
        """What a project function called there returns (a factory's layer, a closure)."""
        if resolved is None or resolved.kind != "function":
            self.open = True
            return
        for returned in nodes_of_class(resolved.node, nodes.Return):
            if returned.value is not None and returned.scope() is resolved.node:
                self.value(resolved.info, returned.value, selectors, certain, partial, depth + 1, found)

    def _sequential_members(self, info, call: nodes.Call, certain, partial, depth, found) -> None:
        """Calling a ``SequentialCell`` calls its members: ``SequentialCell(layers)``, ``(*layers)``, ``(a, b)``."""
        for argument in call.args:
            starred = isinstance(argument, nodes.Starred)
            member = argument.value if starred else argument
            listed = starred or not isinstance(member, nodes.Call) or \
                info.imports.qualify(member.func) != "mindspore.nn.SequentialCell"
            self.value(info, member, (ALL,) if listed and (starred or len(call.args) == 1) else (), certain,
                       partial, depth + 1, found)
        if not call.args or call.keywords:
            self.open = True

    def _made_by_class_name(self, info, call: nodes.Call, certain, depth, found, qualified=None) -> None:
        """``nn.Dense(...)``: an instance of the layer; ``norm_layer(dim)`` with the class a parameter or a local:
        an instance of each class it may be."""
        if is_layer_name(qualified):
            found.setdefault(("nn", qualified), Reached(call, certain, None))
            return
        named: dict = {}
        _Resolver(self.project, self.cls, classes=True).value(info, call.func, (), certain, None, depth + 1, named)
        for key in named:
            if not (isinstance(key, tuple) and key[0] == "class"):
                self.open = True
            elif api.is_layer_class_name(key[1]):
                found.setdefault(("nn", key[1]), Reached(call, False, None))
            else:
                made = self.project.resolve_qualified(key[1])
                if made is None or made.kind != "class":
                    self.open = True
                else:
                    found.setdefault(id(made.node), Reached(made.node, False, None))
        self.open = self.open or not named

    def _name(self, info, name: nodes.Name, selectors, certain, partial, depth, found) -> None:
        frame = name.frame()
        try:
            _scope, bindings = name_lookup(name)
        except Exception:  # noqa: BLE001 - astroid's lookup on odd trees
            return
        if not bindings:
            self.open = True
        for binding in bindings:
            if self.project.by_node.get(id(binding.root())) is None:
                self.open = True
                continue  # (a builtin, or a module outside the project)
            if isinstance(binding, nodes.FunctionDef):
                self.value(info, binding, selectors, certain, partial, depth + 1, found)
            elif isinstance(binding, nodes.AssignName):
                self._binding(info, binding, selectors, certain and len(bindings) == 1, partial, depth, found)
            elif isinstance(binding, nodes.Arguments) and binding.kwarg == name.name:  # (astroid binds `**kwargs`
                self._parameter(info, binding.parent, name.name, selectors, partial, depth, found)  # to Arguments)
            else:
                self.open = True
        if selectors:  # elements added in place: `fns.append(lambda ...)`
            scope = frame if isinstance(frame, nodes.FunctionDef) else info.module
            named = lambda target: isinstance(target, nodes.Name) and target.name == name.name  # noqa: E731
            if self.calls and _unfollowed_additions(scope, name.name, named):
                self.open = True
            for added in _added_elements(scope, named):
                self.value(info, added, selectors[1:], certain and selectors[0] == ALL, partial, depth + 1, found)

    def _binding(self, info, binding: nodes.AssignName, selectors, certain, partial, depth, found) -> None:
        parent = binding.parent
        index_path: tuple = ()
        while isinstance(parent, (nodes.Tuple, nodes.List)):  # `embed, dim = factory(...)`
            index_path = (parent.elts.index(binding if not index_path else child),) + index_path
            child, parent = parent, parent.parent
        if index_path and not isinstance(parent, (nodes.Assign, nodes.For, nodes.Comprehension)):
            self.open = True
            return
        picked = tuple(index_path) + selectors
        if not isinstance(parent, (nodes.Assign, nodes.For, nodes.Comprehension, nodes.Arguments)):
            self.open = True  # (`with ... as x`, an augmented assignment, a walrus: not followed)
        if isinstance(parent, nodes.Assign):
            self.value(info, parent.value, picked, certain, partial, depth + 1, found)
        elif isinstance(parent, (nodes.For, nodes.Comprehension)):
            self.value(info, parent.iter, (ALL,) + picked, certain, partial, depth + 1, found)
        elif isinstance(parent, nodes.Arguments):
            self._parameter(info, binding.frame(), binding.name, selectors, partial, depth, found, certain)

    def _parameter(self, info, function, parameter: str, selectors, partial, depth, found, certain=False) -> None:
        """A parameter: what the calls of its function in the project pass (positionally, by keyword, or inside a
        ``**dict`` they spread), else its default. ``**kwargs`` itself holds the keywords the calls pass by name."""
        if isinstance(function, nodes.Lambda):  # (its calls are not followed: its default, or unknown)
            default = signatures.default_of(function, parameter)
            if default is not None:
                self.value(info, default, selectors, False, partial, depth + 1, found)
            return
        if not isinstance(function, nodes.FunctionDef):
            return
        passed = self._passed(info, function, parameter, selectors, partial, depth, found)
        default = signatures.default_of(function, parameter)
        declared = _declared_classes(signatures.annotation_of(function, parameter)) if self.classes and not selectors \
            else []
        for name in declared:  # (`block: Type[Union[BasicBlock, Bottleneck]]`: the classes its author allows)
            self.value(info, name, selectors, False, partial, depth + 1, found)
        if default is not None:
            self.value(info, default, selectors, certain and not passed, partial, depth + 1, found)
        elif not passed and not declared:
            self.open = True

    def _passed(self, info, function, parameter: str, selectors, partial, depth, found) -> int:
        """Follow what each call of ``function`` passes to ``parameter``; how many calls pass something."""
        owner = function.parent.frame() if isinstance(function.parent, nodes.ClassDef) else None
        keyword_dict = function.args.kwarg == parameter
        passed = 0
        for call in _calls_of_function(self.project, function, owner):
            call_info = self.project.info(call.root()) or info
            if keyword_dict:
                if not selectors:
                    continue
                for keyword in call.keywords or ():
                    if keyword.arg is not None and (selectors[0] == keyword.arg or selectors[0] in (ALL, UNKNOWN_KEY)):
                        passed += 1
                        self.value(call_info, keyword.value, selectors[1:], False, partial, depth + 1, found)
                    elif keyword.arg is None:
                        passed += 1
                        self.value(call_info, keyword.value, selectors, False, partial, depth + 1, found)
                continue
            if call_info.imports.qualify(call.func) == "functools.partial":
                argument = _bound_by_partial(function, call, parameter)
            elif function.name == "__init__" and owner:
                argument = constructor_argument(function, call, parameter)
            else:
                argument = signatures.argument_for(function, owner, call, parameter)
            if argument is not None:
                passed += 1
                self.value(call_info, argument, selectors, False, partial, depth + 1, found)
            else:
                for keyword in call.keywords or ():
                    if keyword.arg is None:  # `f(**options)`: the parameter's key of the spread dict
                        passed += 1
                        self.value(call_info, keyword.value, (parameter,) + selectors, False, partial, depth + 1,
                                   found)
        return passed

    def _attribute(self, info, attribute: nodes.Attribute, selectors, certain, partial, depth, found) -> None:
        frame = attribute.frame()
        cls = frame.parent.frame() if isinstance(frame, nodes.FunctionDef) and isinstance(frame.parent, nodes.ClassDef) \
            else self.cls  # (the class of the method the expression is in: values flow across methods)
        owners = object_classes(self.project, info, attribute.expr, cls)
        if not owners and depth < MAX_DEPTH:  # (`m = self.model; m.rssm`: what the receiver holds, followed)
            held: dict = {}
            _Resolver(self.project, cls).value(info, attribute.expr, (), certain, None, depth + 1, held)
            owners = [reached.node for reached in held.values() if isinstance(reached.node, nodes.ClassDef)]
        if not owners:
            self.open = True
        for owner in owners:
            assignments = self.project.attribute_assignments(owner).get(attribute.attrname, ())
            if not assignments and not selectors:
                self.open = True  # (a method, a class attribute, an attribute set outside the class)
            for value, method in assignments:
                self.value(self.project.info(method.root()) or info, value, selectors,
                           certain and len(assignments) == 1, partial, depth + 1, found)
            if selectors:
                for method in owner.mymethods():
                    receiver = signatures.receiver_name(method, owner)
                    for added in _added_elements(method, lambda target, r=receiver: isinstance(target, nodes.Attribute)
                                                 and target.attrname == attribute.attrname
                                                 and isinstance(target.expr, nodes.Name) and target.expr.name == r):
                        self.value(self.project.info(method.root()) or info, added, selectors[1:],
                                   certain and selectors[0] == ALL, partial, depth + 1, found)


def _declared_classes(annotation) -> list:
    """The class names a ``Type[X]`` / ``Type[Union[X, Y]]`` / ``type[X]`` annotation names (empty otherwise)."""
    if not isinstance(annotation, nodes.Subscript):
        return []
    base = annotation.value
    name = base.name if isinstance(base, nodes.Name) else base.attrname if isinstance(base, nodes.Attribute) else ""
    if name not in ("Type", "type"):
        return []
    inner = annotation.slice
    if isinstance(inner, nodes.Subscript):  # Union[X, Y]
        union = inner.value
        union_name = union.name if isinstance(union, nodes.Name) else union.attrname \
            if isinstance(union, nodes.Attribute) else ""
        if union_name != "Union":
            return []
        inner = inner.slice
    named = inner.elts if isinstance(inner, nodes.Tuple) else [inner]
    return [n for n in named if isinstance(n, (nodes.Name, nodes.Attribute))]


def is_layer_name(qualified: str | None) -> bool:
    """``mindspore.nn.Dense``: a MindSpore layer class (calling one makes a layer)."""
    return api.is_layer_class_name(qualified)


def _class_named(project: Project, info: ModuleInfo, expr) -> str | None:
    """The qualified name of the class ``expr`` names (an import of MindSpore's, or a class of the project)."""
    qualified = info.imports.qualify(expr)
    if qualified is not None and qualified.startswith("mindspore."):
        return qualified if qualified.rsplit(".", 1)[-1][:1].isupper() else None
    resolved = project.resolve_expr(info, expr)  # (a class of the module, or imported from the project: `Mlp`)
    return resolved.node.qname() if resolved is not None and resolved.kind == "class" else None


def _calls_of_function(project: Project, function: nodes.FunctionDef, owner: nodes.ClassDef | None) -> list:
    """The calls, in the function's module, of a module function (by name) or of a method (on ``self`` in its
    class), or of the class (for ``__init__``)."""
    info = project.by_node.get(id(function.root()))
    if info is None:
        return []
    if owner is not None and function.name == "__init__":
        return list(_calls_of(project, info).get(id(owner), ())) + _class_parameter_calls(project, info).get(id(owner), [])

    def compute():
        by_function: dict[int, list] = {}
        for call in nodes_of_class(info.module, nodes.Call):
            func = call.func
            target = None
            if isinstance(func, (nodes.Name, nodes.Attribute)) and call.args and \
                    info.imports.qualify(func) == "functools.partial":  # (binds arguments as a call does)
                func = call.args[0]
            if isinstance(func, nodes.Name):
                resolved = project.resolve_expr(info, func)
                target = resolved.node if resolved is not None and resolved.kind == "function" else None
            elif isinstance(func, nodes.Attribute) and isinstance(func.expr, nodes.Name):
                frame = call.frame()
                klass = frame.parent.frame() if isinstance(frame, nodes.FunctionDef) and isinstance(
                    frame.parent, nodes.ClassDef) else None
                if klass is not None and signatures.receiver_name(frame, klass) == func.expr.name:
                    method = project.find_method(klass, func.attrname)
                    target = method[0] if method is not None else None
            if target is not None:
                by_function.setdefault(id(target), []).append(call)
        return by_function

    return project.memo("calls by function", info.module, compute).get(id(function), [])


def _class_parameter_calls(project: Project, info: ModuleInfo) -> dict[int, list]:
    """``{id(class): [calls]}``: calls of the module that make a project class's instance through a name holding
    the class (``block(channels, stride=2)`` with ``block`` a parameter given ``BasicBlock``)."""
    if id(info.module) in _FINDING_CLASS_PARAMETER_CALLS:
        return {}  # (asked again while resolving one of the module's own names: those calls are not needed)

    def compute():
        found: dict[int, list] = {}
        _FINDING_CLASS_PARAMETER_CALLS.add(id(info.module))
        try:
            for call in nodes_of_class(info.module, nodes.Call):
                _add_class_parameter_call(project, info, call, found)
        finally:
            _FINDING_CLASS_PARAMETER_CALLS.discard(id(info.module))
        return found

    return project.memo("class parameter calls", info.module, compute)


_FINDING_CLASS_PARAMETER_CALLS: set = set()


def _add_class_parameter_call(project: Project, info: ModuleInfo, call: nodes.Call, found: dict) -> None:
    func = call.func
    if not isinstance(func, nodes.Name):
        return
    frame = call.frame()
    if not (isinstance(frame, nodes.FunctionDef) and any(a.name == func.name for a in frame.args.arguments or ())):
        return
    for qualified in classes_referred(project, info, func, None):
        made = project.resolve_qualified(qualified)
        if made is not None and made.kind == "class":
            found.setdefault(id(made.node), []).append(call)


def _bound_by_partial(function: nodes.FunctionDef, partial_call: nodes.Call, parameter: str):
    """What ``functools.partial(function, ...)`` binds to ``parameter`` (None: nothing)."""
    names = [a.name for a in signatures.positional_parameters(function)]
    for index, argument in enumerate(partial_call.args[1:]):
        if isinstance(argument, nodes.Starred):
            break
        if index < len(names) and names[index] == parameter:
            return argument
    return next((k.value for k in partial_call.keywords or () if k.arg == parameter), None)


def _added_elements(scope, is_target) -> list:
    """The values ``target.append(v)`` / ``insert(i, v)`` add, and the elements ``extend([...])`` adds, in
    ``scope`` (not in functions nested in it)."""
    added = []
    for assign in nodes_of_class(scope, nodes.Assign):  # `layers["conv0"] = nn.Conv2d(...)`
        if assign.scope() is scope and any(isinstance(target, nodes.Subscript) and is_target(target.value)
                                           for target in assign.targets):
            added.append(assign.value)
    for call in nodes_of_class(scope, nodes.Call):
        func = call.func
        if not (isinstance(func, nodes.Attribute) and is_target(func.expr)) or call.scope() is not scope:
            continue
        if func.attrname == "append" and len(call.args) == 1:
            added.append(call.args[0])
        elif func.attrname == "insert" and len(call.args) == 2:
            added.append(call.args[1])
        elif func.attrname == "extend" and len(call.args) == 1 and isinstance(call.args[0], (nodes.List, nodes.Tuple)):
            added.extend(call.args[0].elts)
    return added


def _unfollowed_additions(scope, name: str, is_target) -> bool:
    """Elements added to ``name`` in ``scope`` in a way :func:`_added_elements` does not follow: ``extend`` of a
    non-display, ``+=``."""
    for call in nodes_of_class(scope, nodes.Call):
        func = call.func
        if isinstance(func, nodes.Attribute) and is_target(func.expr) and func.attrname == "extend" \
                and not (len(call.args) == 1 and isinstance(call.args[0], (nodes.List, nodes.Tuple))):
            return True
    return any(isinstance(augmented.target, nodes.AssignName) and augmented.target.name == name
               for augmented in nodes_of_class(scope, nodes.AugAssign))


def _constant(node):
    return node.value if isinstance(node, nodes.Const) else UNKNOWN_KEY


def _selector(index):
    return index.value if isinstance(index, nodes.Const) else UNKNOWN_KEY


def _chosen(selector, keys: list) -> set | None:
    """The positions a selector picks among ``keys`` (None: any of them, not known which)."""
    if selector in (ALL, UNKNOWN_KEY):
        return None if selector == UNKNOWN_KEY else set(range(len(keys)))
    if isinstance(selector, int) and all(isinstance(k, int) for k in keys) and keys == list(range(len(keys))):
        return {selector % len(keys)} if keys and -len(keys) <= selector < len(keys) else set()
    return {index for index, key in enumerate(keys) if key == selector}


# -- what MindSpore's parser makes of a function object -------------------------------------------------------------

def lambda_statement_kind(module: nodes.Module, lambda_node: nodes.Lambda) -> str | None:
    """The AST node type MindSpore finds where it expects the lambda ("Call", "Dict", "IfExp", ...), "SyntaxError" when
    the lines it takes do not parse, or None when it finds the lambda (or the source is not at hand). A lambda on a
    ``def`` line is another refusal (E6003's) and gives None here."""
    text = getattr(module, "graphlint_text", None)
    if text is None or lambda_node.lineno is None:
        return None
    lines = text.splitlines(keepends=True)
    try:
        block = inspect.getblock(lines[lambda_node.lineno - 1:])
    except Exception:  # noqa: BLE001 - tokenizer errors on odd text: MindSpore would fail there too, unknown how
        return None
    source = textwrap.dedent("".join(block))
    if source.startswith("def "):
        return None
    try:
        tree = ast.parse(source)
    except SyntaxError:
        return "SyntaxError"
    if not tree.body:
        return None
    value = getattr(tree.body[0], "value", None)
    if isinstance(value, ast.Lambda):
        return None
    return type(value).__name__ if value is not None else type(tree.body[0]).__name__


def default_names_out_of_reach(function) -> list[str]:
    """Names a parameter default of a nested function or lambda reads that MindSpore cannot resolve: locals of an
    enclosing function that the function's own body does not read (so they are in neither its globals nor its
    closure)."""
    args = function.args
    defaults = [d for d in list(args.defaults or ()) + list(args.kw_defaults or ()) if d is not None]
    if not defaults:
        return []
    enclosing = function.parent.frame() if function.parent is not None else None
    if not isinstance(enclosing, (nodes.FunctionDef, nodes.Lambda)):
        return []
    body = function.body if isinstance(function.body, list) else [function.body]
    read_in_body = {name.name for statement in body for name in nodes_of_class(statement, nodes.Name)}
    out_of_reach = []
    for default in defaults:
        for name in nodes_of_class(default, nodes.Name):
            if name.name in enclosing.locals and name.name not in read_in_body and name.name not in out_of_reach:
                out_of_reach.append(name.name)
    return out_of_reach


def binds_cell(project: Project, partial_call: nodes.Call) -> bool:
    """A ``functools.partial(f, ...)`` binds a Cell among its arguments (``net=nn.Dense(3, 3)``, or a project
    Cell): graph code calling it runs the Cell from interpreted Python, which MindSpore refuses ("Nested
    execution during JIT execution")."""
    info = project.by_node.get(id(partial_call.root()))
    if info is None:
        return False
    bound = list(partial_call.args[1:]) + [keyword.value for keyword in partial_call.keywords or ()]
    for argument in bound:
        made = instantiated(project, info, argument)
        if made is not None and project.is_cell(made):
            return True
        target = argument.func if isinstance(argument, nodes.Call) else None
        qualified = info.imports.qualify(target) if isinstance(target, (nodes.Name, nodes.Attribute)) else None
        if api.is_layer_class_name(qualified):
            return True
    return False


def dict_makings(project: Project, info: ModuleInfo, expr, cls: nodes.ClassDef | None, depth: int = 0) -> list:
    """Where the dicts a value holds are made (a ``{...}`` display or comprehension, ``dict(...)``), followed
    through tuple and list displays, names' assignments in their function, and the returns of the project
    functions and methods a call runs (``return self.encoder.forward_masks(x)``, which returns ``(m, masks)`` with
    ``masks = {}`` filled in a loop): where a user changes the dict."""
    if depth > MAX_DEPTH or expr is None:
        return []
    if isinstance(expr, (nodes.Dict, nodes.DictComp)):
        return [expr]
    if isinstance(expr, (nodes.Tuple, nodes.List)):
        return [made for element in expr.elts for made in dict_makings(project, info, element, cls, depth + 1)]
    if isinstance(expr, nodes.Name):
        try:
            _scope, bindings = name_lookup(expr)
        except Exception:  # noqa: BLE001 - astroid's lookup on odd trees
            return []
        made = [made for binding in bindings if isinstance(binding, nodes.AssignName)
                and isinstance(binding.parent, nodes.Assign)
                for made in dict_makings(project, info, binding.parent.value, cls, depth + 1)]
        return made + [made for added in _appended_to(expr) for made in dict_makings(project, info, added, cls,
                                                                                     depth + 1)]
    if not isinstance(expr, nodes.Call) or not isinstance(expr.func, (nodes.Name, nodes.Attribute)):
        return []
    if info.imports.qualify(expr.func) in _DICT_MAKERS:
        return [expr]
    found = []
    for function, owner in _functions_called(project, info, expr, cls):
        function_info = project.info(function.root()) or info
        for returned in nodes_of_class(function, nodes.Return):
            if returned.scope() is function:
                found.extend(dict_makings(project, function_info, returned.value, owner, depth + 1))
    return found


def _appended_to(name: nodes.Name) -> list:
    """What the function reading ``name`` appends or inserts into the list it names (``outputs.append({...})``)."""
    found = []
    for call in nodes_of_class(name.scope(), nodes.Call):
        func = call.func
        if isinstance(func, nodes.Attribute) and isinstance(func.expr, nodes.Name) and func.expr.name == name.name \
                and func.attrname in ("append", "insert") and call.args:
            found.append(call.args[-1])
    return found


def _functions_called(project: Project, info: ModuleInfo, call: nodes.Call, cls) -> list:
    """``(function, its class)`` for each project function or method ``call`` may run."""
    functions = [(reached.node, cls) for reached in called_functions(project, info, call.func, cls)
                 if isinstance(reached.node, nodes.FunctionDef)]
    if functions or not isinstance(call.func, nodes.Attribute):
        return functions
    owners = object_classes(project, info, call.func.expr, cls) or instance_classes(project, info, call.func.expr, cls)
    for owner in owners:  # (a method of an object the Cell holds: `self.network.forward_masks(x)`)
        method = project.find_method(owner, call.func.attrname)
        if method is not None:
            functions.append((method[0], method[1]))
    return functions
