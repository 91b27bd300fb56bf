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

import weakref

from astroid import nodes

from graphlint.analysis.tree import nodes_of_class
from graphlint.analysis.engine import Checker, _called_on_instance
from graphlint.analysis.scope import is_jit_class
from graphlint.analysis.values import DICT, LIST, NONE, NUMPY, SCALARS, STR, TENSOR, TUPLE, UNKNOWN
from graphlint.checkers.walk import graph_nodes

TENSOR_CONSTRUCTORS = {"mindspore.Tensor", "mindspore.tensor"}
# Receivers whose `.asnumpy()` / `.numpy()` is certainly not a Tensor's.
_NOT_TENSOR_KINDS = {NUMPY}
# Kinds of a runtime value that `Tensor(...)` would wrap (a NumPy result is reported as numpy-call-on-tensor).
_WRAPPED_KINDS = {TENSOR, TUPLE, LIST} | SCALARS
_CONTAINER_ANNOTATIONS = {
    "dict": "dict", "Dict": "dict", "Mapping": "dict", "MutableMapping": "dict", "OrderedDict": "dict",
    "tuple": "tuple", "Tuple": "tuple", "list": "list", "List": "list", "Sequence": "tuple",
}
_DICT_METHODS = {"items", "keys", "values", "get"}
# NumPy functions whose arguments are sizes / shapes / bounds / dtypes.
NUMPY_SIZE_FUNCTIONS = {"zeros", "ones", "empty", "full", "arange", "linspace", "logspace", "geomspace", "eye",
                        "identity", "tri", "indices", "ndindex", "tril_indices", "triu_indices",
                        "finfo", "iinfo", "dtype", "result_type", "promote_types", "can_cast", "issubdtype"}


class FallbackChecker(Checker):
    family = "fallback"

    def check_function(self, graph) -> None:
        values = self.context.values(graph)
        top_level = is_top_level(self.context.analysis, graph)
        if top_level:
            self._check_container_inputs(graph, values)
        if values is None:
            return
        for node in graph_nodes(graph.node):
            if isinstance(node, nodes.Call):
                self._check_call(graph, values, node)
            elif isinstance(node, nodes.BinOp) and node.op == "%":
                if values.value(node.left).is_(STR) and self._runtime(node.right, values) \
                        and not _message_of_compile_time_raise(node, values):
                    self.report("tensor-to-string", node, graph, how="%-formatting")
            elif isinstance(node, nodes.JoinedStr):
                if any(isinstance(part, nodes.FormattedValue) and self._runtime(part.value, values)
                       for part in node.values) and not _only_raised(node, graph.node):
                    self.report("tensor-to-string", node, graph, how="an f-string")
            elif isinstance(node, nodes.Return) and top_level and node.value is not None:
                if _returns_dict(node.value, values, graph):
                    self.report("dict-output-from-graph", node, graph, anchor=node.value)

    def _runtime(self, expr, values, numeric: bool = False) -> bool:
        return from_tensor_computation(expr, values, self.context.analysis, numeric=numeric)

    def _runtime_argument(self, call: nodes.Call, values, numeric: bool = False) -> bool:
        return any(self._runtime(arg.value if isinstance(arg, nodes.Starred) else arg, values, numeric)
                   for arg in list(call.args) + [k.value for k in call.keywords or ()])

    # -- calls ------------------------------------------------------------------
    def _check_call(self, graph, values, call: nodes.Call) -> None:
        func = call.func
        imports = graph.info.imports
        local = _locally_bound(func, values)
        qualified = None if local else imports.qualify(func)
        # Tensor.asnumpy() / Tensor.numpy()
        if isinstance(func, nodes.Attribute) and func.attrname in ("asnumpy", "numpy") \
                and not call.args and not call.keywords and qualified is None:
            receiver = values.value(func.expr)
            if receiver.kinds and not receiver.kinds & _NOT_TENSOR_KINDS and \
                    (receiver.may_be(TENSOR) or (receiver.may_be(UNKNOWN) and receiver.var)):
                self.report("asnumpy-in-graph", call, graph, method=func.attrname)
            return
        if qualified is not None:
            top = qualified.split(".")[0]
            if top in ("numpy", "math"):
                # Shape-taking NumPy functions and `math` read their arguments as numbers: an
                # unannotated entry parameter there is rather a Python number than a Tensor.
                numeric = top == "math" or qualified.rsplit(".", 1)[-1] in NUMPY_SIZE_FUNCTIONS \
                    or qualified.startswith("numpy.random.")
                if self._runtime_argument(call, values, numeric):
                    symbol = "numpy-call-on-tensor" if top == "numpy" else "math-call-on-tensor"
                    self.report(symbol, call, graph, func=func.as_string())
                return
            if qualified in TENSOR_CONSTRUCTORS:
                data = _first_argument(call, "input_data", "data")
                if data is not None:
                    value = values.value(data)
                    if value.kinds & _WRAPPED_KINDS and not value.kinds & {NUMPY} and self._runtime(data, values):
                        self.report("tensor-constructor-on-tensor", call, graph)
                return
        if isinstance(func, nodes.Name) and not local and len(call.args) == 1 and not call.keywords:
            if func.name == "type":
                if self._runtime(call.args[0], values) and not _message_of_compile_time_raise(call, values):
                    self.report("type-of-graph-value", call, graph)
                return
            if func.name in ("str", "repr"):
                if self._runtime(call.args[0], values) and not _message_of_compile_time_raise(call, values):
                    self.report("tensor-to-string", call, graph, how=f"{func.name}()")
                return
        if isinstance(func, nodes.Attribute) and func.attrname == "format" and values.value(func.expr).is_(STR):
            if self._runtime_argument(call, values) and not _message_of_compile_time_raise(call, values):
                self.report("tensor-to-string", call, graph, how="str.format")
            return
        cls_name = self._plain_class(graph, func, local)
        if cls_name is not None and self._runtime_argument(call, values) \
                and not isinstance(call.statement(), nodes.Raise):
            self.report("python-object-from-tensor", call, graph, cls=cls_name)

    def _plain_class(self, graph, func, local: bool) -> str | None:
        """The name of a project class (not a Cell, not a ``jit_class``) or namedtuple that ``func`` names."""
        if local or not isinstance(func, (nodes.Name, nodes.Attribute)):
            return None
        project = self.context.project
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
        func = graph.node
        args = func.args
        positional = list(args.posonlyargs or []) + list(args.args or [])
        annotations = list(args.posonlyargs_annotations or []) + list(args.annotations or [])
        defaults = [None] * (len(positional) - len(args.defaults or [])) + list(args.defaults or [])
        skip_first = graph.cls is not None and positional and not _is_static(func)
        candidates = {}
        # A parameter with a literal default (`cfg={"k": 1}`) is a setting, usually not passed at all.
        for index, arg in enumerate(positional):
            if (index == 0 and skip_first) or not _none_or_missing(defaults[index]):
                continue
            annotation = annotations[index] if index < len(annotations) else None
            candidates[arg.name] = (arg, _container_annotation(annotation))
        for arg, annotation, default in zip(args.kwonlyargs or [], args.kwonlyargs_annotations or [],
                                            args.kw_defaults or []):
            if _none_or_missing(default):
                candidates[arg.name] = (arg, _container_annotation(annotation))
        if not candidates:
            return
        evidence = {name: kind for name, (_, kind) in candidates.items() if kind}
        if values is not None:
            for node in graph_nodes(func):
                if not isinstance(node, nodes.Name) or node.name not in candidates or node.name in evidence:
                    continue
                if not _is_parameter_use(node, values):
                    continue
                parent = node.parent
                if isinstance(parent, nodes.Subscript) and parent.value is node \
                        and isinstance(parent.slice, nodes.Const) and isinstance(parent.slice.value, str):
                    evidence[node.name] = "dict"
                elif isinstance(parent, nodes.Attribute) and parent.expr is node \
                        and parent.attrname in _DICT_METHODS and isinstance(parent.parent, nodes.Call) \
                        and parent.parent.func is parent:
                    evidence[node.name] = "dict"
        for name, (arg, _) in candidates.items():
            if name in evidence:
                self.report("container-graph-input", arg, graph,
                            data={"parameter": name, "kind": evidence[name]})


# -- helpers ----------------------------------------------------------------------
_CONTAINER_METHODS = {"get", "items", "keys", "values", "index", "count", "pop", "copy", "setdefault"}
_PASS_THROUGH_BUILTINS = {"int", "float", "bool", "abs", "round", "min", "max", "sum", "len", "tuple", "list",
                          "zip", "enumerate", "reversed", "sorted", "range", "divmod", "pow"}
_OPS_PREFIXES = ("mindspore.ops.", "mindspore.numpy.", "mindspore.mint.", "mindspore.Tensor", "mindspore.tensor")
# Ops whose arguments are sizes: a parameter passed to them is not shown to be a Tensor.
_SIZE_OPS = {"arange", "range", "zeros", "ones", "empty", "full", "fill", "linspace", "logspace", "eye", "rand",
             "randn", "randint", "Tensor", "tensor"}
_TENSOR_VIEWS = {"T", "mT", "H", "mH", "real", "imag"}
_CONSTANT_ATTRIBUTES = {"shape", "dtype", "ndim", "device", "itemsize", "nbytes", "strides"}
_SHAPE_METHODS = {"size", "dim", "ndimension", "numel", "nelement", "stride", "element_size", "dtype"}
# Methods that show an object of unknown kind (a Cell's output, say) is a Tensor.
_TENSOR_METHODS = {"sum", "mean", "max", "min", "amax", "amin", "argmax", "argmin", "prod", "item", "tolist",
                   "asnumpy", "cumsum", "count_nonzero", "any", "all", "abs", "astype", "to", "int", "long", "float",
                   "bool", "squeeze", "unsqueeze", "view", "reshape", "flatten", "nonzero", "masked_select",
                   "expand_dims", "transpose", "permute", "norm", "clip", "clamp", "round", "floor", "ceil"}
_EXTERNAL_TOPS = {"mindspore", "numpy", "math", "builtins", "functools", "operator", "itertools", "typing"}

# Where a runtime value comes from (see from_tensor_computation).
TENSOR_SOURCE, PARAMETER_SOURCE, FOLDED_SOURCE = "tensor", "parameter", "folded"


def from_tensor_computation(expr, values, analysis, numeric: bool = False) -> bool:
    """Whether ``expr`` is a runtime value that comes from a Tensor: an op or a Tensor method
    applied to one, a Parameter, a Cell's output, a Tensor argument of the graph ...

    The value analysis takes every plain parameter of a graph entry for a Tensor: right for
    the inputs of a top-level graph, but an outer Cell may pass Python numbers
    (``self.pos(B, H, W)``). With ``numeric`` (the value is read as a number: a size, a slice
    bound, a ``math`` argument) such a parameter does not count on its own; calling a Tensor
    method on it (``x.sum()``) shows it is a Tensor. Parameters of ``jit_class`` methods never
    count on their own. Ops on constants only (``ops.ones((2, 3))``, ``mnp.arange(n)`` with a
    constant ``n``) are folded while compiling and do not count either.
    """
    found = value_sources(expr, values, analysis)
    return TENSOR_SOURCE in found or (not numeric and PARAMETER_SOURCE in found)


def value_sources(expr, values, analysis, depth: int = 0, seen: frozenset = frozenset()) -> frozenset:
    """What makes ``expr`` a runtime value: a subset of TENSOR_SOURCE, PARAMETER_SOURCE (a plain
    parameter of a graph entry, maybe a Python number) and FOLDED_SOURCE (an op on constants)."""
    if depth > 40 or not values.value(expr).var:
        return frozenset()

    def sources(e) -> frozenset:
        return value_sources(e, values, analysis, depth + 1, seen) if e is not None else frozenset()

    def union(parts) -> frozenset:
        return frozenset().union(*[sources(p) for p in parts])

    if isinstance(expr, nodes.Name):
        if expr.name in seen:
            return frozenset()
        element = values.cfg.element_of(expr)
        if element is None:
            return frozenset()
        seen = seen | {expr.name}
        return frozenset().union(*[_definition_sources(d, values, analysis, depth, seen)
                                   for d in values.cfg.reaching(element, expr.name)])
    if isinstance(expr, nodes.Attribute):
        base = expr.expr
        if isinstance(base, nodes.Name) and base.name == values.self_name:
            return frozenset({TENSOR_SOURCE})  # a Parameter / Tensor attribute
        if expr.attrname in _CONSTANT_ATTRIBUTES or (
                values.value(base).may_be(TENSOR) and expr.attrname not in _TENSOR_VIEWS):
            return frozenset()  # x.shape, x.device, ...: not a value computed in the graph
        return sources(base)
    if isinstance(expr, nodes.Subscript):
        found = sources(expr.value)
        if PARAMETER_SOURCE in found and isinstance(expr.slice, nodes.Tuple):
            found = (found - {PARAMETER_SOURCE}) | {TENSOR_SOURCE}  # x[0, 0]: only a Tensor takes that
        return found | (sources(expr.slice) if not isinstance(expr.slice, nodes.Slice) else frozenset())
    if isinstance(expr, nodes.Call):
        func = expr.func
        arguments = [a.value if isinstance(a, nodes.Starred) else a for a in expr.args] + \
            [k.value for k in expr.keywords or ()]
        if isinstance(func, nodes.Name) and func.name in _PASS_THROUGH_BUILTINS \
                and func.name not in values.cfg.defs_by_name:
            return union(arguments)
        qualified = None if _locally_bound(func, values) else values.imports.qualify(func)
        if qualified is not None and qualified.startswith(_OPS_PREFIXES):
            found = union(arguments)
            if not found:
                return frozenset({FOLDED_SOURCE})
            if PARAMETER_SOURCE in found and qualified.rsplit(".", 1)[-1] not in _SIZE_OPS:
                found = (found - {PARAMETER_SOURCE}) | {TENSOR_SOURCE}  # an op's input: a Tensor
            return found
        if qualified is not None and qualified.split(".")[0] in _EXTERNAL_TOPS:
            return union(arguments)  # mindspore.dtype_to_nptype(...), numpy, math ...: what they are given
        receiver_value = values.value(func.expr) if isinstance(func, nodes.Attribute) else None
        if receiver_value is not None and receiver_value.var:
            receiver = sources(func.expr)
            if func.attrname in _CONTAINER_METHODS:
                return receiver
            if func.attrname in _SHAPE_METHODS:
                return frozenset()  # x.size(0), x.dim(): compile-time numbers
            if receiver == frozenset({FOLDED_SOURCE}):
                return receiver | union(arguments)
            if receiver_value.kinds - {NONE} == {TENSOR} or func.attrname in _TENSOR_METHODS:
                return frozenset({TENSOR_SOURCE})  # a Tensor method: its receiver is a Tensor
            return frozenset()  # a method of some object (`cache.get_seq_length()`): unknown
        return frozenset({TENSOR_SOURCE})  # a Cell or a helper returning a runtime value
    if isinstance(expr, nodes.Lambda):
        return frozenset()
    return union(expr.get_children())


def _definition_sources(definition, values, analysis, depth, seen) -> frozenset:
    def sources(e) -> frozenset:
        return value_sources(e, values, analysis, depth + 1, seen) if e is not None else frozenset()

    kind = definition.kind
    if kind == "param":
        return _parameter_sources(definition.name, values, analysis, depth)
    if kind in ("assign", "walrus"):
        if definition.value is not None:
            return sources(definition.value)
        return sources(getattr(definition.element.node, "value", None))
    if kind == "augassign":
        return sources(definition.value.value) | sources(definition.value.target)
    if kind == "for":
        return sources(getattr(definition.element.node, "iter", None))
    return frozenset()


def _parameter_sources(name: str, values, analysis, depth: int) -> frozenset:
    graph = values.graph
    func = graph.node
    args = func.args
    every = list(args.posonlyargs or []) + list(args.args or []) + list(args.kwonlyargs or [])
    annotations = list(args.posonlyargs_annotations or []) + list(args.annotations or []) + \
        list(args.kwonlyargs_annotations or [])
    for arg, annotation in zip(every, annotations):
        if arg.name == name and annotation is not None and "Tensor" in annotation.as_string():
            return frozenset({TENSOR_SOURCE})
    if graph.is_entry:
        return frozenset() if graph.kind == "jit_class" else frozenset({PARAMETER_SOURCE})
    # A helper's parameter: what its callers pass.
    positional = [a.name for a in list(args.posonlyargs or []) + list(args.args or [])]
    found = frozenset()
    for caller, node in analysis.references(func):
        call = node.parent
        if not (isinstance(call, nodes.Call) and call.func is node):
            continue
        caller_values = analysis.values(caller)
        if caller_values is None:
            continue
        offset = 1 if graph.cls is not None and positional and not _is_static(func) \
            and _called_on_instance(call) else 0
        passed = None
        for index, arg in enumerate(call.args):
            if isinstance(arg, nodes.Starred):
                break
            if index + offset < len(positional) and positional[index + offset] == name:
                passed = arg
        for keyword in call.keywords or ():
            if keyword.arg == name:
                passed = keyword.value
        if passed is not None:
            found |= value_sources(passed, caller_values, analysis, depth + 1)
    return found


def _locally_bound(func, values) -> bool:
    """``func`` (or the base of its attribute chain) is a name bound inside the function."""
    base = func
    while isinstance(base, nodes.Attribute):
        base = base.expr
    return isinstance(base, nodes.Name) and base.name in values.cfg.defs_by_name


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
    if isinstance(expr, (nodes.Dict, nodes.DictComp)):
        return True
    if isinstance(expr, nodes.Call) and isinstance(expr.func, nodes.Name) and expr.func.name == "dict" \
            and expr.func.name not in values.cfg.defs_by_name and expr.func.name not in graph.info.functions:
        return True
    if isinstance(expr, nodes.Name):
        return values.value(expr).is_(DICT)
    return False


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
    kind = _CONTAINER_ANNOTATIONS.get(name)
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


def _is_static(func: nodes.FunctionDef) -> bool:
    return any(isinstance(d, nodes.Name) and d.name in ("staticmethod", "classmethod")
               for d in (func.decorators.nodes if func.decorators else ()))


def _is_jit_class(project, cls: nodes.ClassDef) -> bool:
    return is_jit_class(project.info(cls.root()), cls)


def _is_exception(project, cls: nodes.ClassDef) -> bool:
    for klass in project.mro(cls):
        for base in klass.bases:
            name = _annotation_name(base) or ""
            if name.endswith(("Exception", "Error", "Warning")):
                return True
    return False


# -- which graph entries are top level ----------------------------------------------
_INNER_CELLS: "weakref.WeakKeyDictionary" = weakref.WeakKeyDictionary()


def is_top_level(analysis, graph) -> bool:
    """Whether ``graph`` is compiled (or exported) as a graph of its own, as far as the project shows.

    A ``@jit`` function called from graph code is inlined into it. The ``construct`` of a Cell
    that the project builds as a component of another Cell runs inside that Cell's graph:
    created in a Cell's code (``self.head = Head()``), passed to a Cell's constructor
    (``nn.SequentialCell([Block()])``, ``Outer(backbone=b)``), created by a function that a
    Cell calls, or built from its name by a builder (``"Head"`` in a list of names).
    """
    if graph.kind not in ("construct", "jit"):
        return False
    if graph.kind == "jit":
        for _caller, node in analysis.references(graph.node):
            parent = node.parent
            if isinstance(parent, nodes.Call) and parent.func is node:
                return False
        return True
    if graph.cls is None:
        return True
    inner_ids, inner_names = _inner_cells(analysis)
    return id(graph.cls) not in inner_ids and graph.cls.name not in inner_names


def _inner_cells(analysis) -> tuple[set[int], set[str]]:
    scope = analysis.scope  # a new dict after Analysis.invalidate(): the project changed
    cached = _INNER_CELLS.get(analysis)
    if cached is not None and cached[0] is scope:
        return cached[1]
    project = analysis.project
    inner: set[int] = set()
    names: set[str] = set()
    called_functions: list = []

    def cell_class(info, func):
        if not isinstance(func, (nodes.Name, nodes.Attribute)):
            return None
        resolved = project.resolve_expr(info, func)
        if resolved is not None and resolved.kind == "class" and project.is_cell(resolved.node):
            return resolved.node
        return None

    def is_cell_maker(info, func) -> bool:
        if cell_class(info, func) is not None:
            return True
        qualified = info.imports.qualify(func) if isinstance(func, (nodes.Name, nodes.Attribute)) else None
        return bool(qualified and qualified.startswith("mindspore.nn.") and qualified.rsplit(".", 1)[-1][:1].isupper())

    def created_in(info, scope, skip=None):
        for call in nodes_of_class(scope, nodes.Call):
            cls = cell_class(info, call.func)
            if cls is not None and cls is not skip:
                inner.add(id(cls))

    for info in list(project.modules):
        module = info.module
        names.update(_identifier_strings(module))
        for cls in nodes_of_class(module, nodes.ClassDef):
            if not project.is_cell(cls):
                continue
            created_in(info, cls, skip=cls)
            for call in nodes_of_class(cls, nodes.Call):
                if isinstance(call.func, (nodes.Name, nodes.Attribute)):
                    resolved = project.resolve_expr(info, call.func)
                    if resolved is not None and resolved.kind == "function":
                        called_functions.append((resolved.info, resolved.node))
        for call in nodes_of_class(module, nodes.Call):
            if not is_cell_maker(info, call.func):
                continue
            for arg in list(call.args) + [k.value for k in call.keywords or ()]:
                for part in _passed_parts(arg):
                    if isinstance(part, nodes.Call):
                        cls = cell_class(info, part.func)
                        if cls is not None:
                            inner.add(id(cls))
                    elif isinstance(part, nodes.Name):
                        for cls in _cells_bound_to(info, part, cell_class):
                            inner.add(id(cls))
    # Functions a Cell calls, and the functions they call: the Cells they create are components.
    seen: set[int] = set()
    while called_functions:
        info, func = called_functions.pop()
        if id(func) in seen or len(seen) > 5000:
            continue
        seen.add(id(func))
        created_in(info, func)
        for call in nodes_of_class(func, nodes.Call):
            if isinstance(call.func, (nodes.Name, nodes.Attribute)):
                resolved = project.resolve_expr(info, call.func)
                if resolved is not None and resolved.kind == "function" and id(resolved.node) not in seen:
                    called_functions.append((resolved.info, resolved.node))
    found = (inner, names)
    _INNER_CELLS[analysis] = (scope, found)
    return found


def _identifier_strings(module: nodes.Module) -> set[str]:
    """The identifier-like string constants of ``module``, except the entries of ``__all__``.

    An entry of ``__all__`` is a string whose nearest enclosing assignment, call or module is an
    assignment to ``__all__``. That is carried down one walk: looking it up from each string
    would cost the string's depth, quadratic in a long ``"a" + "b" + ...``."""
    found = set()
    stack = [(module, False)]
    while stack:
        node, in_all = stack.pop()
        if isinstance(node, nodes.Const) and isinstance(node.value, str) and node.value.isidentifier() \
                and not in_all:
            found.add(node.value)
        if isinstance(node, nodes.Assign):
            in_all = any(isinstance(t, nodes.AssignName) and t.name == "__all__" for t in node.targets)
        elif isinstance(node, nodes.AugAssign):
            in_all = isinstance(node.target, nodes.AssignName) and node.target.name == "__all__"
        elif isinstance(node, nodes.Call):
            in_all = False
        stack.extend((child, in_all) for child in node.get_children())
    return found


def _passed_parts(arg):
    """The expressions passed as (or inside a list/tuple/dict literal passed as) an argument."""
    if isinstance(arg, nodes.Starred):
        arg = arg.value
    if isinstance(arg, (nodes.List, nodes.Tuple, nodes.Set)):
        for element in arg.elts:
            yield from _passed_parts(element)
    elif isinstance(arg, nodes.Dict):
        for _key, value in arg.items:
            yield from _passed_parts(value)
    elif isinstance(arg, (nodes.ListComp, nodes.GeneratorExp)):
        yield from _passed_parts(arg.elt)
    else:
        yield arg


def _cells_bound_to(info, name: nodes.Name, cell_class):
    """Cell classes instantiated into ``name`` in the enclosing function (``b = Block(); Outer(b)``)."""
    scope = name.scope()
    for assign in nodes_of_class(scope, nodes.Assign):
        if any(isinstance(t, nodes.AssignName) and t.name == name.name for t in assign.targets) \
                and isinstance(assign.value, nodes.Call):
            cls = cell_class(info, assign.value.func)
            if cls is not None:
                yield cls


CHECKER = FallbackChecker
