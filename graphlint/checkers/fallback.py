"""JIT fallback: Python that only the interpreter can run inside graph code.

Every rule here is about a *runtime value* (a Tensor, or something computed
from one) reaching Python that the graph compiler cannot translate: NumPy or
``math`` called on it, ``Tensor(t)``, ``type(t)``, formatting it into a string,
a Python object built from it. Calls on compile-time constants
(``np.sqrt(2.0)``, ``math.sqrt(x.shape[-1])``, ``Tensor(np.ones(shape))``) are
folded while compiling and stay quiet: the value analysis decides which is
which (``Value.var``), and unknown values are not runtime values.

Two rules concern only the boundary of the top-level graph: a dict returned by
it (W5507) and a dict/tuple/list argument of it (W5509).
"""

from __future__ import annotations

from astroid import nodes

from graphlint.analysis import api, callables, signatures
from graphlint.analysis.boundary import is_top_level
from graphlint.analysis.kinds import CELL, DICT, LIST, NONE, NUMPY, OBJECT, SCALARS, STR, TENSOR, TUPLE, UNKNOWN
from graphlint.analysis.provenance import from_tensor_computation, locally_bound
from graphlint.analysis.scope import is_jit_class
from graphlint.analysis.tree import graph_nodes, nodes_of_class
from graphlint.catalogue import fallback as rules
from graphlint.runner import Checker

# Kinds of a runtime value that `Tensor(...)` would wrap (a NumPy result is reported as numpy-call-on-tensor).
_WRAPPED_KINDS = {TENSOR, TUPLE, LIST} | SCALARS


class FallbackChecker(Checker):
    family = "fallback"

    def check_function(self, graph) -> None:
        values = self.context.values(graph)
        top_level = is_top_level(self.context.analysis, graph)
        if top_level:
            self._check_container_inputs(graph, values)
        if graph.is_entry:
            for call, argument in self.context.analysis.self_containing_arguments(graph):
                self.report(rules.SELF_CONTAINING_GRAPH_INPUT, argument, graph, name=argument.as_string())
        if values is None:
            return
        for node in graph_nodes(graph.node):
            if isinstance(node, nodes.Call):
                self._check_call(graph, values, node)
            elif isinstance(node, nodes.BinOp) and node.op == "%":
                if values.value(node.left).is_(STR) and self._runtime(node.right, values) \
                        and not _message_of_compile_time_raise(node, values):
                    self.report(rules.TENSOR_TO_STRING, node, graph, how="%-formatting")
            elif isinstance(node, nodes.Const) and isinstance(node.value, bytes):
                self.report(rules.BYTES_LITERAL_IN_GRAPH, node, graph, literal=_short(node))
            elif isinstance(node, nodes.JoinedStr):
                self._check_f_string(graph, values, node)
            elif isinstance(node, nodes.Return) and top_level and node.value is not None:
                self._check_top_level_return(graph, values, node)

    def _check_f_string(self, graph, values, node: nodes.JoinedStr) -> None:
        """CELL_FORMATTED_AS_STRING / TENSOR_TO_STRING: an f-string of a Cell or a runtime value."""
        cell = next((part.value for part in node.values if isinstance(part, nodes.FormattedValue)
                     and values.value(part.value).is_(CELL)), None)
        if cell is not None:
            self.report(rules.CELL_FORMATTED_AS_STRING, node, graph, cell=_short(cell), how="an f-string")
        elif any(isinstance(part, nodes.FormattedValue) and self._runtime(part.value, values)
                 for part in node.values) and not _only_raised(node, graph.node):
            self.report(rules.TENSOR_TO_STRING, node, graph, how="an f-string")

    def _check_top_level_return(self, graph, values, node: nodes.Return) -> None:
        """DICT_OUTPUT_FROM_GRAPH / HOST_OBJECT_RETURNED: what the top-level graph returns."""
        if _returns_dict(node.value, values, graph):
            self.report(rules.DICT_OUTPUT_FROM_GRAPH, node, graph, anchor=node.value)
            for built in self._dicts_returned_by_callee(graph, node.value):
                self.report(rules.DICT_OUTPUT_FROM_GRAPH, built, self.context.analysis.graph_of(built.frame()) or
                            graph, anchor=built)
        if isinstance(node.value, nodes.Tuple) and len(node.value.elts) > 1:
            for element in node.value.elts:
                if values.value(element).is_(NONE):
                    self.report(rules.NONE_IN_GRAPH_OUTPUT, element, graph, expr=_short(element))
        for part in _returned_parts(node.value, values):
            view = values.value(part).host_type
            if view:
                self.report(rules.DICT_VIEW_OUTPUT_FROM_GRAPH, part, graph, expr=_short(part), view=view)
                continue
            if isinstance(part, nodes.Call) and isinstance(part.func, nodes.Attribute) and \
                    part.func.attrname in api.HOST_ARRAY_METHODS:
                continue  # `return t.asnumpy()`: asnumpy-in-graph says it
            if values.value(part).is_(NUMPY) or (isinstance(part, nodes.Call) and (
                    graph.info.imports.qualify(part.func) or "").startswith("numpy.")):
                self.report(rules.HOST_OBJECT_RETURNED, part, graph, expr=_short(part), how="returns")

    def _dicts_returned_by_callee(self, graph, expr) -> list:
        """Where the dicts the graph returns are made, when that is not the `return` itself (`return
        self.model.visualize(x)`, `masks = {}` filled in a loop and returned by a method it calls): there the user
        changes them."""
        if isinstance(expr, (nodes.Dict, nodes.DictComp)):
            return []
        return [made for made in callables.dict_makings(self.context.project, graph.info, expr, graph.cls)
                if made is not expr]

    def _runtime(self, expr, values, numeric: bool = False) -> bool:
        return from_tensor_computation(expr, values, self.context.analysis, numeric=numeric)

    def _runtime_argument(self, call: nodes.Call, values, numeric: bool = False) -> bool:
        return any(self._runtime(arg.value if isinstance(arg, nodes.Starred) else arg, values, numeric)
                   for arg in list(call.args) + [k.value for k in call.keywords or ()])

    # -- calls ------------------------------------------------------------------
    def _check_call(self, graph, values, call: nodes.Call) -> None:
        """Ask each rule about ``call`` in turn; the first whose kind of call it is (reported or not) ends it."""
        local = locally_bound(call.func, values)
        qualified = None if local else graph.info.imports.qualify(call.func)
        self._printed_host_objects(graph, values, call, local)
        for check in (self._host_array_call, self._numpy_or_math_call, self._tensor_constructor_call,
                      self._builtin_of_runtime_value, self._str_format_call):
            if check(graph, values, call, local, qualified):
                return
        self._fallback_value_into_layer(graph, values, call)
        cls_name = self._plain_class(graph, call.func, local)
        if cls_name is not None and self._runtime_argument(call, values) \
                and not isinstance(call.statement(), nodes.Raise):
            cell = next((argument for argument in _arguments(call) if values.value(argument).is_(CELL)), None)
            if cell is not None and self._calls_what_it_holds(graph, call.func):
                made = call.func.as_string() if isinstance(call.func, nodes.Subscript) else cls_name
                self.report(rules.CELL_CALLED_BY_INTERPRETED_OBJECT, call, graph, cls=made, cell=_short(cell))
            else:
                self.report(rules.PYTHON_OBJECT_FROM_TENSOR, call, graph, cls=cls_name)

    def _calls_what_it_holds(self, graph, func) -> bool:
        """A method of the class ``func`` names (or of one of a registry's classes) calls one of the instance's
        attributes (``self.func(y)``), not a method of its own."""
        resolved = self.context.project.resolve_expr(graph.info, func) if not isinstance(func, nodes.Subscript) \
            else None
        classes = [resolved.node] if resolved is not None and resolved.kind == "class" else \
            self._registry_classes(graph, func)
        for cls in classes:
            own = {method.name for method in cls.mymethods()}
            if any(isinstance(call.func, nodes.Attribute) and isinstance(call.func.expr, nodes.Name)
                   and call.func.expr.name == "self" and call.func.attrname not in own
                   for method in cls.mymethods() for call in nodes_of_class(method, nodes.Call)):
                return True
        return False

    def _registry_classes(self, graph, func) -> list:
        """The classes of a module-level dict of classes indexed to make an instance (``SOLVERS[method](...)``):
        every value of the dict display is a project class; empty otherwise."""
        if not (isinstance(func, nodes.Subscript) and isinstance(func.value, nodes.Name)):
            return []
        assigned = graph.info.assigned.get(func.value.name)
        if not isinstance(assigned, nodes.Dict) or not assigned.items:
            return []
        found = []
        for _key, value in assigned.items:
            resolved = self.context.project.resolve_expr(graph.info, value) \
                if isinstance(value, (nodes.Name, nodes.Attribute)) else None
            if resolved is None or resolved.kind != "class":
                return []
            found.append(resolved.node)
        return found

    def _fallback_value_into_layer(self, graph, values, call: nodes.Call) -> None:
        """FALLBACK_VALUE_INTO_LAYER: ``self.layer(v)``, ``self.layer`` an nn layer or a project Cell, ``v`` an
        interpreted object made from Tensors, or what graph code read back from one."""
        func = call.func
        if isinstance(func, nodes.Subscript) and isinstance(func.value, nodes.Attribute) \
                and isinstance(func.value.expr, nodes.Name) and func.value.expr.name == values.self_name:
            if not values.cell_targets(call):  # (`self.blocks[i](x)`: an element of a CellList of Cells)
                return
        elif not (isinstance(func, nodes.Attribute) and isinstance(func.expr, nodes.Name)
                  and func.expr.name == values.self_name and graph.cls is not None):
            return
        else:
            held = self.context.analysis.attribute_instances(graph.cls, func.attrname) or frozenset()
            project = self.context.project
            if not held or not all(q.startswith("mindspore.nn.") or _project_cell(project, q) for q in held):
                return
        for argument in _arguments(call):
            value = values.value(argument)
            if value.interpreted and value.var and value.kinds <= {OBJECT, UNKNOWN, TENSOR}:
                # reported where the function takes the value out of the object: where the fix goes
                taken = values.interpreted_read(argument)
                constructed = isinstance(taken, nodes.Call) and \
                    graph.info.imports.qualify(taken.func) in api.TENSOR_CONSTRUCTORS
                self.report(rules.FALLBACK_VALUE_INTO_LAYER, taken, graph, arg=_short(taken),
                            layer=f"{func.as_string()}", at="" if taken.lineno == call.lineno else
                            f" (line {call.lineno})", made=value.origin or "made in the interpreter",
                            advice="convert with `.astype(dtype)`, not `Tensor(...)`" if constructed else
                            "pass the Tensors themselves (a tuple), not the object")
                return

    def _printed_host_objects(self, graph, values, call: nodes.Call, local: bool) -> None:
        """HOST_OBJECT_RETURNED: ``print(array)`` of a NumPy value."""
        func = call.func
        if isinstance(func, nodes.Name) and func.name == "print" and not local:
            for argument in _arguments(call):
                if values.value(argument).is_(NUMPY):
                    self.report(rules.HOST_OBJECT_RETURNED, argument, graph, expr=_short(argument), how="prints")

    def _host_array_call(self, graph, values, call: nodes.Call, local: bool, qualified: str | None) -> bool:
        """ASNUMPY_IN_GRAPH: ``Tensor.asnumpy()`` / ``Tensor.numpy()``."""
        func = call.func
        if not (isinstance(func, nodes.Attribute) and func.attrname in api.HOST_ARRAY_METHODS
                and not call.args and not call.keywords and qualified is None):
            return False
        receiver = values.value(func.expr)
        if receiver.kinds and not receiver.kinds & {NUMPY} and \
                (receiver.may_be(TENSOR) or (receiver.may_be(UNKNOWN) and receiver.var)):
            self.report(rules.ASNUMPY_IN_GRAPH, call, graph, method=func.attrname)
        return True

    def _numpy_or_math_call(self, graph, values, call: nodes.Call, local: bool, qualified: str | None) -> bool:
        """NUMPY_CALL_ON_TENSOR / MATH_CALL_ON_TENSOR: a NumPy or ``math`` function of a runtime value."""
        top = qualified.split(".")[0] if qualified is not None else None
        if top not in ("numpy", "math"):
            return False
        # Shape-taking NumPy functions and `math` read their arguments as numbers: an
        # unannotated entry parameter there is rather a Python number than a Tensor.
        numeric = top == "math" or qualified.rsplit(".", 1)[-1] in api.NUMPY_SIZE_FUNCTIONS \
            or qualified.startswith("numpy.random.")
        runtime = [argument for argument in _arguments(call) if self._runtime(argument, values, numeric)]
        if runtime:
            symbol = rules.NUMPY_CALL_ON_TENSOR if top == "numpy" else rules.MATH_CALL_ON_TENSOR
            # what the function is called on, as the analysis knows it: `np.mean(x.asnumpy())` takes a host copy
            host_copy = all(values.value(argument).is_(NUMPY) for argument in runtime)
            self.report(symbol, call, graph, func=call.func.as_string(),
                        operand="a NumPy copy of a Tensor" if host_copy else "a Tensor")
        return True

    def _tensor_constructor_call(self, graph, values, call: nodes.Call, local: bool, qualified: str | None) -> bool:
        """TENSOR_CONSTRUCTOR_ON_TENSOR: ``Tensor(t)`` of a runtime value."""
        if qualified not in api.TENSOR_CONSTRUCTORS:
            return False
        data = _first_argument(call, "input_data", "data")
        if data is not None:
            value = values.value(data)
            if value.kinds & _WRAPPED_KINDS and not value.kinds & {NUMPY} and self._runtime(data, values):
                self.report(rules.TENSOR_CONSTRUCTOR_ON_TENSOR, call, graph)
        return True

    def _builtin_of_runtime_value(self, graph, values, call: nodes.Call, local: bool, qualified: str | None) -> bool:
        """TYPE_OF_GRAPH_VALUE / TENSOR_TO_STRING: ``type(t)``, ``str(t)``, ``repr(t)`` of a runtime value."""
        func = call.func
        if not (isinstance(func, nodes.Name) and not local and len(call.args) == 1 and not call.keywords
                and func.name in ("type", "str", "repr")):
            return False
        if self._runtime(call.args[0], values) and not _message_of_compile_time_raise(call, values):
            if func.name == "type":
                self.report(rules.TYPE_OF_GRAPH_VALUE, call, graph)
            else:
                self.report(rules.TENSOR_TO_STRING, call, graph, how=f"{func.name}()")
        return True

    def _str_format_call(self, graph, values, call: nodes.Call, local: bool, qualified: str | None) -> bool:
        """CELL_FORMATTED_AS_STRING / TENSOR_TO_STRING: ``"...".format(...)`` of a Cell or a runtime value."""
        func = call.func
        if not (isinstance(func, nodes.Attribute) and func.attrname == "format" and values.value(func.expr).is_(STR)):
            return False
        cell = next((a for a in _arguments(call) if values.value(a).is_(CELL)), None)
        if cell is not None:
            self.report(rules.CELL_FORMATTED_AS_STRING, call, graph, cell=_short(cell), how="str.format")
        elif self._runtime_argument(call, values) and not _message_of_compile_time_raise(call, values):
            self.report(rules.TENSOR_TO_STRING, call, graph, how="str.format")
        return True

    def _plain_class(self, graph, func, local: bool) -> str | None:
        """The name of a project class (not a Cell, not a ``jit_class``) or namedtuple that ``func`` names (the
        names of a registry's classes, ``SOLVERS[method]``, joined with "or")."""
        project = self.context.project
        registry = self._registry_classes(graph, func) if not local else []
        if registry and not any(project.is_cell(cls) or _is_jit_class(project, cls) or _is_exception(project, cls)
                                for cls in registry):
            return " or ".join(cls.name for cls in registry)
        if local or not isinstance(func, (nodes.Name, nodes.Attribute)):
            return None
        resolved = project.resolve_expr(graph.info, func)
        if resolved is not None and resolved.kind == "class":
            cls = resolved.node
            if project.is_cell(cls) or _is_jit_class(project, cls) or _is_exception(project, cls):
                return None
            return cls.name
        if isinstance(func, nodes.Name):
            assigned = graph.info.assigned.get(func.name)
            if func.name not in graph.info.functions and func.name not in graph.info.classes \
                    and isinstance(assigned, nodes.Call):
                maker = graph.info.imports.qualify(assigned.func)
                if maker in ("collections.namedtuple", "typing.NamedTuple"):
                    return func.name
        return None

    # -- the top-level graph's boundary -----------------------------------------
    def _check_container_inputs(self, graph, values) -> None:
        """CONTAINER_GRAPH_INPUT: a parameter of the top-level graph that callers pass a dict (or a tuple or list,
        by its annotation)."""
        candidates = _container_candidates(graph)
        if not candidates:
            return
        evidence = {name: kind for name, (_, kind) in candidates.items() if kind}
        if values is not None:
            evidence.update(_dict_uses(graph.node, values, set(candidates) - set(evidence)))
        for name, (arg, _) in candidates.items():
            if name in evidence:
                self.report(rules.CONTAINER_GRAPH_INPUT, arg, graph, parameter=name,
                            kind=f"a {evidence[name]}", entry=graph.name)


# -- helpers ----------------------------------------------------------------------
def _container_candidates(graph) -> dict:
    """``{name: (argument, container kind its annotation gives or None)}`` of the parameters of a top-level graph
    that callers pass (a parameter with a literal default, ``cfg={"k": 1}``, is a setting, usually not passed)."""
    func = graph.node
    args = func.args
    positional = signatures.positional_parameters(func)
    annotations = signatures.positional_annotations(func)
    defaults = [None] * (len(positional) - len(args.defaults or [])) + list(args.defaults or [])
    skip_first = signatures.implicit_first(func, graph.cls)
    candidates = {}
    for index, arg in enumerate(positional):
        if (index == 0 and skip_first) or not _none_or_missing(defaults[index]):
            continue
        annotation = annotations[index] if index < len(annotations) else None
        candidates[arg.name] = (arg, _container_annotation(annotation))
    for arg, annotation, default in zip(args.kwonlyargs or [], args.kwonlyargs_annotations or [],
                                        args.kw_defaults or []):
        if _none_or_missing(default):
            candidates[arg.name] = (arg, _container_annotation(annotation))
    return candidates


def _dict_uses(func, values, names: set) -> dict:
    """``{name: "dict"}`` for the parameters among ``names`` that ``func`` uses as a dict (``p["key"]``,
    ``p.items()``)."""
    found = {}
    for node in graph_nodes(func):
        if not isinstance(node, nodes.Name) or node.name not in names or node.name in found:
            continue
        if not _is_parameter_use(node, values):
            continue
        parent = node.parent
        if isinstance(parent, nodes.Subscript) and parent.value is node \
                and isinstance(parent.slice, nodes.Const) and isinstance(parent.slice.value, str):
            found[node.name] = "dict"
        elif isinstance(parent, nodes.Attribute) and parent.expr is node \
                and parent.attrname in api.DICT_METHODS and isinstance(parent.parent, nodes.Call) \
                and parent.parent.func is parent:
            found[node.name] = "dict"
    return found


def _returned_parts(expr, values, depth: int = 0):
    """The returned expression, or the elements of a returned tuple (also one built earlier: `y = (a, b)`)."""
    if isinstance(expr, nodes.Tuple):
        return [part for element in expr.elts for part in _returned_parts(element, values, depth + 1)]
    if isinstance(expr, nodes.Name) and depth < 4:
        element = values.cfg.element_of(expr)
        definitions = values.cfg.reaching(element, expr.name) if element is not None else []
        if len(definitions) == 1 and definitions[0].kind == "assign" \
                and isinstance(definitions[0].value, nodes.Tuple) \
                and isinstance(definitions[0].node, nodes.AssignName) \
                and isinstance(definitions[0].node.parent, nodes.Assign):
            return _returned_parts(definitions[0].value, values, depth + 1)
    return [expr]


def _short(node, limit: int = 60) -> str:
    text = node.as_string()
    return text if len(text) <= limit else text[: limit - 3] + "..."


def _first_argument(call: nodes.Call, *keywords: str):
    if call.args:
        first = call.args[0]
        return None if isinstance(first, nodes.Starred) else first
    for keyword in call.keywords or ():
        if keyword.arg in keywords:
            return keyword.value
    return None


def _message_of_compile_time_raise(node, values) -> bool:
    """``node`` is part of a ``raise`` or ``assert`` statement that runs only where a compile-time
    condition selects it (``if not isinstance(x, Tensor): raise TypeError(f"... {type(x)}")``):
    the graph compiler drops it, or fails on the condition anyway. Under a runtime condition the
    message is built in the graph (measured, MindSpore 2.10: ``str(x)`` there fails STRICT)."""
    statement = node.statement()
    if isinstance(statement, nodes.Assert):
        return not values.value(statement.test).var
    if not isinstance(statement, nodes.Raise):
        return False
    child, parent = statement, statement.parent
    while parent is not None and not isinstance(parent, (nodes.FunctionDef, nodes.Lambda)):
        if isinstance(parent, (nodes.If, nodes.While)) and child is not parent.test \
                and values.value(parent.test).var:
            return False
        child, parent = parent, parent.parent
    return True


def _only_raised(node: nodes.JoinedStr, func: nodes.FunctionDef) -> bool:
    """The f-string is only an exception or assertion message: the graph compiler formats those
    itself at every level (measured, MindSpore 2.10: ``raise ValueError(f"bad {x}")`` reports the
    Tensor's values under STRICT), unlike ``str(x)``, ``%`` and ``str.format``."""
    statement = node.statement()
    if isinstance(statement, (nodes.Raise, nodes.Assert)):
        return True
    if isinstance(statement, nodes.Assign) and statement.value is node and len(statement.targets) == 1 \
            and isinstance(statement.targets[0], nodes.AssignName):
        name = statement.targets[0].name
        uses = [n for n in nodes_of_class(func, nodes.Name) if n.name == name]
        return bool(uses) and all(isinstance(n.statement(), (nodes.Raise, nodes.Assert)) for n in uses)
    return False


def _returns_dict(expr, values, graph) -> bool:
    """``expr`` (what the graph returns) is a dict, or a tuple or list display holding one (`return loss, {...}`:
    STRICT hands back the inner dict as a tuple too, measured)."""
    if isinstance(expr, (nodes.Tuple, nodes.List)):
        return any(_returns_dict(element, values, graph) for element in expr.elts)
    if isinstance(expr, (nodes.Dict, nodes.DictComp)):
        return True
    if isinstance(expr, nodes.Call) and isinstance(expr.func, nodes.Name) and expr.func.name == "dict" \
            and expr.func.name not in values.cfg.defs_by_name and expr.func.name not in graph.info.functions:
        return True
    if isinstance(expr, (nodes.Name, nodes.Call)):
        return _holds_dict(values.value(expr))
    return False


def _holds_dict(value, depth: int = 0) -> bool:
    """A dict, or a tuple or list whose known items (or each of whose elements) hold one (`return
    self.encoder.forward_masks(x)`, which returns `M_explain, masks`; a list a loop appends dicts to)."""
    if value.is_(DICT):
        return True
    if depth >= 4 or not (value.is_(TUPLE) or value.is_(LIST)):
        return False
    if value.items is None:  # (`outputs.append({...})` in a loop: each element a dict)
        return value.each is not None and _holds_dict(value.each, depth + 1)
    return any(_holds_dict(item, depth + 1) for item in value.items)


def _container_annotation(annotation) -> str | None:
    """"dict"/"tuple"/"list" for an annotation like ``List[Tensor]`` or ``Optional[Dict[str, Tensor]]``:
    a container whose element type names a Tensor (a tuple of ints is a legitimate constant)."""
    if not isinstance(annotation, nodes.Subscript):
        return None
    name = _annotation_name(annotation.value)
    if name in ("Optional", "Union"):
        elements = annotation.slice.elts if isinstance(annotation.slice, nodes.Tuple) else [annotation.slice]
        for element in elements:
            found = _container_annotation(element)
            if found:
                return found
        return None
    kind = api.GRAPH_INPUT_CONTAINER_ANNOTATIONS.get(name)
    if kind and "Tensor" in annotation.slice.as_string():
        return kind
    return None


def _annotation_name(expr) -> str | None:
    if isinstance(expr, nodes.Name):
        return expr.name
    if isinstance(expr, nodes.Attribute):
        return expr.attrname
    return None


def _none_or_missing(default) -> bool:
    return default is None or (isinstance(default, nodes.Const) and default.value is None)


def _is_parameter_use(name: nodes.Name, values) -> bool:
    element = values.cfg.element_of(name)
    if element is None:
        return False
    definitions = values.cfg.reaching(element, name.name)
    return bool(definitions) and all(d.kind == "param" for d in definitions)


def _is_jit_class(project, cls: nodes.ClassDef) -> bool:
    return is_jit_class(project.info(cls.root()), cls)


def _is_exception(project, cls: nodes.ClassDef) -> bool:
    for klass in project.mro(cls):
        for base in klass.bases:
            name = _annotation_name(base) or ""
            if name.endswith(("Exception", "Error", "Warning")):
                return True
    return False


CHECKER = FallbackChecker


def _arguments(call: nodes.Call) -> list:
    return [a.value if isinstance(a, nodes.Starred) else a for a in call.args] + \
        [k.value for k in call.keywords or ()]


def _project_cell(project, qualified: str) -> bool:
    resolved = project.resolve_qualified(qualified)
    return resolved is not None and resolved.kind == "class" and project.is_cell(resolved.node)
