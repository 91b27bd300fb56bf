"""Python builtins and containers on what graph code does not support (see the catalogue family)."""

from __future__ import annotations

from astroid import nodes
from astroid.const import Context

from graphlint.analysis import api, python_on_runtime, signatures, torch_habits
from graphlint.analysis.kinds import CELL, DICT, FUNCTION, LIST, STR, TENSOR, TUPLE
from graphlint.analysis.tree import graph_nodes
from graphlint.catalogue import builtins as rules
from graphlint.runner import Checker

# The methods that exist on each type and compile only by JIT fallback (others are graph methods, or do not
# exist: then the value is not what the analysis took it for, and nothing is said).
_FALLING_BACK = {STR: api.STR_METHODS - api.STR_METHODS_IN_GRAPH, LIST: api.LIST_METHODS_FALLING_BACK,
                 DICT: api.DICT_METHODS_FALLING_BACK}


class BuiltinsChecker(Checker):
    family = "builtins"

    def check_function(self, graph) -> None:
        values = self.context.values(graph)
        if values is None:
            return
        if graph.is_entry:
            self._arguments(graph, values)
        for node in graph_nodes(graph.node):
            if isinstance(node, nodes.Call):
                self._call(graph, values, node)
            elif isinstance(node, nodes.Subscript) and node.ctx == Context.Load:
                self._subscript(graph, values, node)
            elif isinstance(node, nodes.Subscript) and node.ctx == Context.Store:
                self._runtime_dict_key(graph, values, node.value, node.slice)  # `counts[k] = 1`
            elif isinstance(node, nodes.Dict):
                for key, value in node.items:
                    if isinstance(key, nodes.DictUnpack):
                        self.report(rules.DICT_UNPACKING_IN_DISPLAY, value, graph, unpacked=_short(value))
                    elif values.from_tensor(key):
                        self.report(rules.RUNTIME_DICT_KEY, key, graph, key=_short(key))
            elif isinstance(node, nodes.Const) and type(node.value) is int and \
                    not api.INT64_MIN <= node.value <= api.INT64_MAX:
                self.report(rules.INTEGER_BEYOND_INT64, node, graph, value=_short(node))
            elif isinstance(node, nodes.BinOp) and node.op in ("**", "*", "<<", "+", "-"):
                self._overflow(graph, values, node)
            elif isinstance(node, (nodes.For, nodes.Comprehension)) and values.value(node.iter).is_(STR):
                # iterating a str asks for its length, which STRICT refuses like len() (measured)
                self.report(rules.CONTAINER_METHOD_FALLS_BACK, node.iter, graph, method="for ... in", kind="str")

    def _arguments(self, graph, values) -> None:
        """An entry's arguments as its module's calls pass them: an int beyond int64 is refused before compiling."""
        for argument in signatures.positional_parameters(graph.node):
            value = values.params.get(argument.name)
            if value is not None and value.known and type(value.const) is int and \
                    not api.INT64_MIN <= value.const <= api.INT64_MAX:
                self.report(rules.INTEGER_BEYOND_INT64, argument, graph,
                            value=f"{value.const} (passed as `{argument.name}`)")

    # -- calls ------------------------------------------------------------------------------------------
    def _call(self, graph, values, call: nodes.Call) -> None:
        func = call.func
        if isinstance(func, nodes.Attribute) and func.attrname == "get" and call.args \
                and self._runtime_dict_key(graph, values, func.expr, call.args[0]):
            return  # `counts.get(k, 0)`: a read like `counts[k]`
        if self._python_call_on_run_time_value(graph, values, call):
            return
        if isinstance(func, nodes.Name) and _is_builtin(func, values, graph):
            self._builtin_call(graph, values, call, func.name)
            return
        if not isinstance(func, nodes.Attribute) or graph.info.imports.qualify(func) is not None:
            return
        receiver = values.value(func.expr)
        if self._index_of_constant_tensor(graph, values, call, receiver):
            return
        self._container_method(graph, values, call, receiver)

    def _python_call_on_run_time_value(self, graph, values, call: nodes.Call) -> bool:
        """PYTHON_CALL_FAILS_ON_RUN_TIME_VALUE / PYTHON_CALL_FALLS_BACK_ON_RUN_TIME_VALUE: a builtin, a standard
        library function or a str/list method given a run-time Python value, as the measured table says. True when
        the call fails at every level (no other rule of this family speaks of it then)."""
        func = call.func
        builtin = func.name if isinstance(func, nodes.Name) and _is_builtin(func, values, graph) else None
        if builtin is not None and all(k.arg for k in call.keywords or ()) and torch_habits.habit(
                torch_habits.CallShape("builtin", builtin, len(call.args),
                                       tuple(sorted(k.arg for k in call.keywords or ())))) is not None:
            return False  # refused whatever the values (`max(..., key=...)`): torch-habit-refused reports it
        found = python_on_runtime.call_outcome(values, graph.info.imports, call, builtin)
        if found is None:
            return False
        what = python_on_runtime.ARGUMENT_WORDS.get(found.argument, "a run-time value")
        if found.outcome == python_on_runtime.FATAL:
            self.report(rules.PYTHON_CALL_FAILS_ON_RUN_TIME_VALUE, call, graph, call=_short(call), what=what,
                        error=found.error[:140])
            return True
        # the same fallback of a Tensor argument is builtin-falls-back, math-call-on-tensor or
        # container-method-falls-back
        name = found.callable
        if (name in api.FALLBACK_BUILTINS or name.startswith(("math.", "str."))) and \
                any(values.from_tensor(argument) for argument in call.args):
            return False
        self.report(rules.PYTHON_CALL_FALLS_BACK_ON_RUN_TIME_VALUE, call, graph, call=_short(call), what=what)
        return False

    def _builtin_call(self, graph, values, call: nodes.Call, name: str) -> None:
        """REVERSED_* (see :meth:`_reversed`), BUILTIN_OVER_NESTED_TENSORS, BUILTIN_FALLS_BACK and `len()` of a str
        (CONTAINER_METHOD_FALLS_BACK): a call of a Python builtin."""
        arguments = list(call.args) + [k.value for k in call.keywords or ()]
        if name == "reversed" and len(call.args) == 1 and not call.keywords:
            self._reversed(graph, values, call)
        elif name in api.NESTED_TENSOR_REDUCTIONS and _holds_nested_tensors(values, arguments):
            self.report(rules.BUILTIN_OVER_NESTED_TENSORS, call, graph, func=name)
        elif name in api.FALLBACK_BUILTINS and name not in _REPORTED_ELSEWHERE and \
                any(values.from_tensor(a) for a in arguments):
            self.report(rules.BUILTIN_FALLS_BACK, call, graph, func=name, what="a value computed from a Tensor",
                        instead=_INSTEAD.get(name, "use ops (`ops.all`, `ops.any`, `ops.sort`)"))
        elif name == "len" and len(call.args) == 1 and values.value(call.args[0]).is_(STR):
            self.report(rules.CONTAINER_METHOD_FALLS_BACK, call, graph, method="len()", kind="str")

    def _index_of_constant_tensor(self, graph, values, call: nodes.Call, receiver) -> bool:
        """INDEX_OF_CONSTANT_TENSOR: ``seq.index(t)`` of a Tensor made in graph code, in a sequence of constants."""
        func = call.func
        if func.attrname == "index" and call.args and receiver.kinds and receiver.kinds <= {LIST, TUPLE} \
                and receiver.items is not None and all(i.known and not i.var for i in receiver.items):
            sought = values.value(call.args[0])
            if sought.is_tensor and sought.alias.startswith("the constant Tensor"):
                self.report(rules.INDEX_OF_CONSTANT_TENSOR, call, graph, call=_short(call),
                            tensor=_short(call.args[0]))
                return True
        return False

    def _container_method(self, graph, values, call: nodes.Call, receiver) -> None:
        """LIST_MUTATION_LOST / DICT_POP_IN_GRAPH / CONTAINER_METHOD_FALLS_BACK: a method of a str, list or dict."""
        func = call.func
        kind = next((k for k in (STR, LIST, DICT) if receiver.is_(k)), None)
        if kind is None:
            return
        method = func.attrname
        graph_list = not receiver.interpreted  # (a list the fallback made is Python's own: its methods are too)
        if graph_list and kind == LIST and method == "pop" and not isinstance(call.parent, nodes.Expr) and not (
                isinstance(call.parent, (nodes.Assign, nodes.AnnAssign, nodes.AugAssign))
                and call.parent.value is call):
            self.report(rules.POP_INSIDE_EXPRESSION, call, graph, call=_short(call))
            return
        if graph_list and kind in (LIST, DICT) and method in api.IN_PLACE_CONTAINER_METHODS[kind] and \
                not isinstance(call.parent, nodes.Expr):
            self.report(rules.MUTATION_RESULT_USED, call, graph, call=_short(call), method=method)
            return
        if kind == LIST and method in api.LIST_MUTATIONS_LOST:
            self.report(rules.LIST_MUTATION_LOST, call, graph, method=method)
        elif kind == DICT and method in api.DICT_METHODS_REFUSED:
            self.report(rules.DICT_POP_IN_GRAPH, call, graph, method=method,
                        assumes=_keyword_assumed_passed(graph, values, func.expr, call))
        elif method in _FALLING_BACK[kind]:
            self.report(rules.CONTAINER_METHOD_FALLS_BACK, call, graph, method=f"{kind}.{method}", kind=kind)

    # -- reversed() ----------------------------------------------------------------------------------------
    def _reversed(self, graph, values, call: nodes.Call) -> None:
        """``reversed(seq)`` runs by JIT fallback (see api.LIST_GROWING_METHODS for what was measured): of Cells it
        fails; when its argument reads a run-time value STRICT rejects it, and some uses break the lax level too."""
        argument = call.args[0]
        seq = _short(argument)
        cells = self._cell_sequence(graph, values, argument)
        if cells is not None:
            self.report(rules.REVERSED_CELL_SEQUENCE, call, graph, seq=seq, what=cells)
            return
        runtime = self._runtime_name_read(graph, values, argument)
        if runtime is None:
            return
        problem = _reversed_breaks(values, call)
        if problem is not None:
            self.report(rules.REVERSED_ITERATION_BREAKS, call, graph, seq=seq, problem=problem)
        else:
            self.report(rules.BUILTIN_FALLS_BACK, call, graph, func="reversed",
                        what=f"an expression that reads the run-time value `{runtime}`",
                        instead=f"iterate a slice (`{seq}[::-1]`) or a descending `range(...)`")

    def _cell_sequence(self, graph, values, expr) -> str | None:
        """What ``expr`` is when it is a sequence of Cells that ``reversed`` cannot take: "a CellList", "a list of
        Cells", "a tuple of Cells"; else None."""
        value = values.value(expr)
        if value.items and all(item.is_(CELL) for item in value.items) and (value.is_(LIST) or value.is_(TUPLE)):
            return f"a {'list' if value.is_(LIST) else 'tuple'} of Cells"
        if value.is_(CELL) and graph.cls is not None and isinstance(expr, nodes.Attribute) \
                and isinstance(expr.expr, nodes.Name) and expr.expr.name == values.self_name \
                and self.context.analysis.attribute_instance_of(graph.cls, expr.attrname) in api.REVERSED_CELL_SEQUENCES:
            return "a CellList"
        return None

    def _runtime_name_read(self, graph, values, expr) -> str | None:
        """The first variable (a name, or ``self.attr``) that ``expr`` reads and that is a run-time value: MindSpore's
        fallback needs all of them constant at STRICT. An entry's unannotated argument read as a whole is skipped
        (it may be a list: the top graph's list arguments are constants), unless read as a Tensor (``x.shape``)."""
        for node in _reads(expr, values.self_name):
            if not values.value(node).var:
                continue
            if isinstance(node, nodes.Name) and graph.is_entry and _assumed_argument(graph, values, node) \
                    and not (isinstance(node.parent, nodes.Attribute) and node.parent.attrname in api.TENSOR_METADATA_ATTRIBUTES):
                continue
            return node.as_string()
        return None

    # -- subscripts ---------------------------------------------------------------------------------------
    def _runtime_dict_key(self, graph, values, container, key) -> bool:
        """RUNTIME_DICT_KEY: a graph dict read, written or asked for with a key computed from a Tensor (True when
        ``container`` is a dict, reported or not)."""
        if isinstance(key, nodes.Slice) or not values.value(container).is_(DICT):
            return False
        if values.from_tensor(key):
            self.report(rules.RUNTIME_DICT_KEY, key, graph, key=_short(key))
        return True

    def _subscript(self, graph, values, node: nodes.Subscript) -> None:
        if isinstance(node.slice, nodes.Slice):
            return
        base = values.value(node.value)
        index = node.slice
        if self._runtime_dict_key(graph, values, node.value, index):
            return
        kind = TUPLE if base.is_(TUPLE) else LIST if base.is_(LIST) else None
        found = python_on_runtime.subscript_outcome(values, node)
        if found is not None and found.outcome == python_on_runtime.FALLS_BACK:
            self.report(rules.PYTHON_CALL_FALLS_BACK_ON_RUN_TIME_VALUE, node, graph, call=_short(node),
                        what=python_on_runtime.ARGUMENT_WORDS[found.argument])
            return
        if kind is None or not values.value(index).is_tensor or not values.value(index).var:
            return
        if base.items is not None and base.items and all(item.kinds <= {FUNCTION, CELL} for item in base.items):
            return  # a switch between functions or Cells is what STRICT supports
        self.report(rules.SEQUENCE_INDEXED_BY_TENSOR, node, graph, kind=kind)

    # -- integer arithmetic ----------------------------------------------------------------------------------
    def _overflow(self, graph, values, node: nodes.BinOp) -> None:
        if isinstance(node.parent, nodes.BinOp):
            return  # reported at the outermost operation
        result = _fold(node)
        if isinstance(result, int) and not isinstance(result, bool) and not api.INT64_MIN <= result <= api.INT64_MAX:
            self.report(rules.INTEGER_OVERFLOWS_INT64, node, graph, expr=_short(node), value=_short_number(result))


# Reported by other rules (type-of-graph-value, tensor-to-string, python-object-from-tensor ...).
_REPORTED_ELSEWHERE = frozenset({"type", "str", "repr", "set", "slice", "complex", "format"})
# What to write instead of a builtin that falls back, where it is not an op (measured: a dict display of Tensors
# compiles at both levels, `dict(key=value)` of them only by JIT fallback)
_INSTEAD = {"dict": "write a dict display (`{'key': value}`), which graph code builds itself"}


def _reads(expr, self_name):
    """The names an expression reads, and ``self.attr`` as one read, outside nested scopes."""
    stack = [expr]
    while stack:
        node = stack.pop()
        if isinstance(node, (nodes.Lambda, nodes.ListComp, nodes.SetComp, nodes.DictComp, nodes.GeneratorExp)):
            continue
        if isinstance(node, nodes.Attribute) and isinstance(node.expr, nodes.Name) and node.expr.name == self_name:
            yield node
            continue
        if isinstance(node, nodes.Name):
            yield node
            continue
        stack.extend(reversed(list(node.get_children())))


def _assumed_argument(graph, values, name: nodes.Name) -> bool:
    """``name`` is an entry parameter, unannotated, whose kind the analysis only assumes (a Tensor)."""
    element = values.cfg.element_of(name)
    definitions = values.cfg.reaching(element, name.name) if element is not None else []
    return bool(definitions) and all(d.kind == "param" for d in definitions) \
        and signatures.annotation_of(graph.node, name.name) is None


def _reversed_breaks(values, call: nodes.Call) -> str | None:
    """How a use of ``reversed(run-time seq)`` breaks at the lax level too (measured), or None."""
    holder, inner = call.parent, call
    if isinstance(holder, nodes.Call) and isinstance(holder.func, nodes.Name) and holder.func.name in ("enumerate", "zip") \
            and inner in holder.args:
        if holder.func.name == "enumerate":
            return "in `enumerate()` fails to compile"
        holder, inner = holder.parent, holder
    if isinstance(holder, nodes.Comprehension) and holder.iter is inner:
        return "iterated by a comprehension gives wrong values"
    if isinstance(holder, nodes.For) and holder.iter is inner:
        grown = _grown_container(values, holder)
        if grown is not None:
            return f"iterated by a loop that adds to `{grown}` leaves `{grown}` as it was before the loop"
    return None


def _grown_container(values, loop: nodes.For) -> str | None:
    """A list or tuple of the enclosing code that the loop's body adds to (append/extend/insert, ``+=``, ``a = a +``)."""
    def outer(name: str) -> bool:
        element = values.cfg.element_of(loop.iter)
        return element is not None and bool(values.cfg.reaching(element, name))

    stack = list(loop.body)
    while stack:
        node = stack.pop()
        if isinstance(node, (nodes.FunctionDef, nodes.Lambda, nodes.ClassDef)):
            continue
        stack.extend(node.get_children())
        if isinstance(node, nodes.Call) and isinstance(node.func, nodes.Attribute) \
                and node.func.attrname in api.LIST_GROWING_METHODS and isinstance(node.func.expr, nodes.Name) \
                and values.value(node.func.expr).is_(LIST) and outer(node.func.expr.name):
            return node.func.expr.name
        if isinstance(node, nodes.AugAssign) and node.op == "+=" and isinstance(node.target, nodes.AssignName):
            if any(values.value(node.value).is_(k) for k in (LIST, TUPLE)) and outer(node.target.name):
                return node.target.name
        if isinstance(node, nodes.Assign) and len(node.targets) == 1 and isinstance(node.targets[0], nodes.AssignName) \
                and isinstance(node.value, nodes.BinOp) and node.value.op == "+" \
                and isinstance(node.value.left, nodes.Name) and node.value.left.name == node.targets[0].name \
                and any(values.value(node.value.right).is_(k) for k in (LIST, TUPLE)) and outer(node.targets[0].name):
            return node.targets[0].name
    return None


def _fold(node):
    """The Python value of integer arithmetic on literals (None when it is not that)."""
    if isinstance(node, nodes.Const) and type(node.value) is int:
        return node.value
    if isinstance(node, nodes.UnaryOp) and node.op == "-":
        inner = _fold(node.operand)
        return -inner if inner is not None else None
    if isinstance(node, nodes.BinOp):
        left, right = _fold(node.left), _fold(node.right)
        if left is None or right is None:
            return None
        try:
            if node.op == "**":
                return left ** right if 0 <= right <= 4096 else None
            if node.op == "<<":
                return left << right if 0 <= right <= 4096 else None
            return {"*": left * right, "+": left + right, "-": left - right}.get(node.op)
        except (OverflowError, ValueError):
            return None
    return None


def _holds_nested_tensors(values, arguments) -> bool:
    """A sequence of sequences (one argument) or several sequences whose items include run-time Tensors."""
    def tensor_inside(value) -> bool:
        return value.items is not None and any(item.may_be(TENSOR) and item.var for item in value.items)

    if len(arguments) == 1:
        outer = values.value(arguments[0])
        return outer.items is not None and any(item.kinds <= {TUPLE, LIST} and tensor_inside(item)
                                               for item in outer.items)
    sequences = [values.value(a) for a in arguments]
    return len(sequences) > 1 and any(v.kinds <= {TUPLE, LIST} and tensor_inside(v) for v in sequences)


def _is_builtin(func: nodes.Name, values, graph) -> bool:
    name = func.name
    info = graph.info
    return not (name in values.cfg.defs_by_name or name in info.functions or name in info.classes
                or name in info.imports.aliases or name in info.assigned)


def _short(node, limit: int = 60) -> str:
    text = node.as_string()
    return text if len(text) <= limit else text[: limit - 3] + "..."


def _short_number(value: int) -> str:
    text = str(value)
    return text if len(text) <= 30 else f"{text[:6]}...({len(text)} digits)"


CHECKER = BuiltinsChecker


def _keyword_assumed_passed(graph, values, receiver, call: nodes.Call) -> str:
    """``kwargs.pop("key", ...)`` on the function's own ``**kwargs``: the code around it compiles when no call passes
    ``key`` (a default is returned, or an ``if "key" in kwargs:`` branch is dropped; measured), so the finding rests
    on the key being passed; "" otherwise."""
    kwargs = graph.node.args.kwarg
    if not (kwargs and isinstance(receiver, nodes.Name) and receiver.name == kwargs and call.args
            and all(d.kind == "param" for d in values.cfg.defs_by_name.get(receiver.name, ()))
            and isinstance(call.args[0], nodes.Const)):
        return ""
    return f"`{call.args[0].value}` is passed"
