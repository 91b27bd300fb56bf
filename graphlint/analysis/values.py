"""Constants and variables, the way MindSpore's graph compiler decides them.

MindSpore evaluates Python at compile time wherever it can: a condition on a
constant (``x.shape``, ``is None``, ``self.training``, a config flag, a Python
scalar argument) selects one branch while compiling, and only conditions on
runtime values (Tensors and what is computed from them) become control flow
in the graph. This module gives every expression of a graph function an
abstract :class:`Value`: which kinds it may be (Tensor, None, int, tuple ...),
whether it is a runtime *variable*, what makes it one (``origin``, quoted in
messages), and which storage a Tensor may share (``alias``).

Unknown things are not variables: rules only fire on values that are
definitely runtime values, so unknown code stays quiet.
"""

from __future__ import annotations

import operator
from dataclasses import replace

from astroid import nodes
from astroid.const import Context

from graphlint.analysis import api, callables, signatures, torch_habits
from graphlint.analysis.cfg import CFG, Definition, Element
from graphlint.analysis.kinds import (
    BOOL,
    CELL,
    CLASS,
    DICT,
    DTYPE,
    FLOAT,
    FUNCTION,
    INT,
    LIST,
    MODULE,
    NONE,
    NUMPY,
    OBJECT,
    RANGE,
    SCALARS,
    SET,
    STR,
    TENSOR,
    TUPLE,
    UNDEFINED,
    UNKNOWN,
)
from graphlint.analysis.lattice import (
    BOTTOM,
    NOTHING,
    Value,
    const,
    entry_of,
    element_value_of,
    join,
    of_python,
    unknown,
    variable,
    widen,
)
from graphlint.analysis.joins import Shapes
from graphlint.analysis.objects import class_body_value, object_classes
from graphlint.analysis.parser_fold import FOLD, NOTHING_KNOWN, ParserFold
from graphlint.analysis.provenance import assumed_tensors, from_tensor_computation, tensor_origin
from graphlint.analysis.tree import is_within, literal, nodes_of_class


BINOPS = {"+": operator.add, "-": operator.sub, "*": operator.mul, "//": operator.floordiv,
          "%": operator.mod, "/": operator.truediv, "**": operator.pow}
_EXACT_INT_OPS = {"+": operator.add, "-": operator.sub, "*": operator.mul, "//": operator.floordiv, "%": operator.mod,
                  "**": operator.pow, "<<": operator.lshift}
COMPARES = {"==": operator.eq, "!=": operator.ne, "<": operator.lt, "<=": operator.le,
            ">": operator.gt, ">=": operator.ge}


def _arg_descr(name: str) -> str:
    return f"the Tensor argument `{name}`"


def parameter_values(func: nodes.FunctionDef, is_method: bool, bound: dict[str, Value] | None) -> dict[str, Value]:
    """Values of a graph entry's parameters, the way MindSpore sees them.

    Positional parameters without a default are Tensors (runtime values);
    parameters with literal defaults and Python-typed annotations are
    constants; ``bound`` (from call sites, for helpers) takes precedence.
    """
    args = func.args
    values: dict[str, Value] = {}
    positional = list(args.posonlyargs or []) + list(args.args or [])
    defaults = list(args.defaults or [])
    first_default = len(positional) - len(defaults)
    annotations = list(args.posonlyargs_annotations or []) + list(args.annotations or [])
    for index, arg in enumerate(positional):
        if index == 0 and is_method:
            values[arg.name] = (bound or {}).get(arg.name) or const(OBJECT)  # (a call may bind the object it is on)
            continue
        default = defaults[index - first_default] if index >= first_default else None
        annotation = annotations[index] if index < len(annotations) else None
        values[arg.name] = _param_value(arg.name, default, annotation, bound)
    for arg, default, annotation in zip(args.kwonlyargs or [], args.kw_defaults or [], args.kwonlyargs_annotations or []):
        values[arg.name] = _param_value(arg.name, default, annotation, bound)
    if args.vararg:
        values[args.vararg] = (bound or {}).get(args.vararg) or variable(TUPLE, f"the arguments `*{args.vararg}`")
    if args.kwarg:
        values[args.kwarg] = (bound or {}).get(args.kwarg) or const(DICT)
    return values


def _param_value(name, default, annotation, bound) -> Value:
    if bound is not None:
        return bound.get(name, unknown())
    annotated = _annotation_kind(annotation)
    if annotated in SCALARS | {STR, TUPLE, LIST, DICT}:
        written = literal(default)
        if written is not None and written[0] is not None:
            return _entry_default(written[0])  # `flag: bool = False`: as without the annotation
        return const(annotated)
    container = _container_annotation(annotation)
    if container is not None:
        # `x: List[Tensor]`, `Tuple[Tensor, ...]`: a container whose items are runtime values, not a Tensor.
        return Value(frozenset({container}), True, f"the argument `{name}`")
    if default is not None:
        written = literal(default)
        if written is not None:
            if written[0] is None:
                # Optional Tensor: `is None` is decided at compile time, but a passed value is a Tensor.
                return Value(frozenset({NONE, TENSOR}), True, f"the argument `{name}`")
            return _entry_default(written[0])
        return unknown()
    return variable(TENSOR, _arg_descr(name), alias=f"the argument `{name}`")


def _entry_default(value) -> Value:
    """A graph entry's parameter whose literal default is ``value``, where nothing says what the callers pass: a
    flag (a bool) is a constant of the graph, but each call may pass either (`inplace_safe=True`), and the compiler
    compiles the branch that call takes; so both branches are graph code. Other literals keep their value."""
    return const(BOOL) if isinstance(value, bool) else of_python(value)



def _container_annotation(annotation) -> str | None:
    """LIST / TUPLE / DICT for a subscripted container annotation (``List[Tensor]``, ``typing.Tuple[...]``)."""
    if not isinstance(annotation, nodes.Subscript):
        return None
    base = annotation.value
    name = base.name if isinstance(base, nodes.Name) else base.attrname if isinstance(base, nodes.Attribute) else None
    return api.CONTAINER_ANNOTATIONS.get(name)


def annotated_python_kind(annotation) -> str | None:
    """The kind of Python value (int, str, list, dict ...) an annotation declares, None for a Tensor or an
    annotation that says nothing of the kind."""
    kind = _annotation_kind(annotation)
    if kind in SCALARS | {STR, TUPLE, LIST, DICT}:
        return kind
    if isinstance(annotation, nodes.Name) and annotation.name in api.CONTAINER_ANNOTATIONS:
        return api.CONTAINER_ANNOTATIONS[annotation.name]
    return _container_annotation(annotation)


def _annotation_kind(annotation) -> str | None:
    if isinstance(annotation, nodes.Name):
        return TENSOR if annotation.name == "Tensor" else api.SCALAR_ANNOTATIONS.get(annotation.name)
    if isinstance(annotation, nodes.Attribute) and annotation.attrname == "Tensor":
        return TENSOR
    return None


# What a value only the interpreter holds gives when graph code computes on it (see _reads_interpreted).
_SHAPELESS = frozenset({TENSOR, UNKNOWN})
_CARRIES_INTERPRETED = (nodes.BinOp, nodes.UnaryOp, nodes.Subscript, nodes.Call)


class _DefinitionValues(dict):
    """Values by definition index; ``missed``: some read found none (a definition later in the round)."""
    missed = False

    def get(self, key, default=None):
        if key in self:
            return dict.__getitem__(self, key)
        self.missed = True
        return default


def _output_of(call: nodes.Call) -> str:
    return f"the output of `{call.func.as_string()}`"


class FunctionValues:
    """Abstract values for every expression of one graph function."""

    MAX_ROUNDS = 12

    def __init__(self, analysis, graph, bound: dict[str, Value] | None = None):
        self.analysis = analysis  # graphlint.analysis.engine.Analysis: class/helper lookups
        self.graph = graph
        self.func = graph.node
        self.info = graph.info
        self.cls = graph.cls
        self.imports = graph.info.imports
        self.cfg = CFG(self.func)
        self.self_name = signatures.receiver_name(self.func, self.cls)  # `self` (or `cls` of a classmethod)
        self.params = parameter_values(self.func, self.self_name is not None, bound)
        self.def_values: dict[int, Value] = {}
        self._cache: dict[int, Value] = {}
        self._chain_roots: dict[int, nodes.Name | None] = {}
        # the Cells each call calls: facts of the source, not of the values being solved (asked on every round)
        self._cell_targets: dict[int, list | None] = {}
        self._in_place_names: set | None = None  # (see _changed_in_place)
        self._shapes = self._fold = None
        self._comprehension_bound: frozenset[str] | None = None
        # reaching definitions without the branches type inference does not compile, and the blocks it does
        self._reaching_in: dict[int, int] | None = None
        self._live_blocks: set[int] | None = None
        self._solve()
        self._solve_without_dead_branches()

    # -- queries built on the values --------------------------------------------------------------------
    def decided_while_compiling(self, test) -> bool:
        """``test`` is a Python value of known kind that MindSpore's type inference computes (a shape, `arg is
        None`, a constant), so only one branch of an `if` on it is typed; not a run-time value, nor one of
        unknown kind (measured: a name set to None before such an `if` compiles, before a Tensor one it does
        not join)."""
        value = self.value(test)
        return bool(value.kinds) and not value.var and not value.kinds & {TENSOR, UNKNOWN}

    def steps_decided_at_run_time(self, loop) -> str:
        """How a loop's number of steps depends on the run ("" when compiling decides it, and graph mode unrolls a
        `for`): a `while` on a Tensor condition, or a `for` over `range(...)` of a Python number only the run knows
        (`int(t)`, `t.item()`; a Tensor bound is range-of-tensor), or over a list the interpreter makes (`t.tolist()`),
        which graph mode compiles as a loop."""
        if isinstance(loop, nodes.While):
            origin = self.tensor_origin(loop.test)
            if origin:
                return f"depends on {origin}"
            # (a method of an object made in graph code, `state.all_finished()`: the interpreter answers it when the
            # graph runs)
            interpreted = next((value.origin for node in (loop.test, *loop.test.nodes_of_class((nodes.Call, nodes.Name)))
                                if (value := self.value(node)).var and value.interpreted and value.origin), "")
            return f"depends on {interpreted}, which the interpreter computes when the graph runs" if interpreted \
                else ""
        call = loop.iter
        iterated = self.value(call)
        if iterated.interpreted and iterated.var and not iterated.kinds & {TENSOR}:
            # (a list the JIT fallback makes when the graph runs, `t.tolist()`: compiled as a loop, not unrolled)
            return f"is the length of `{call.as_string()}`, a list the interpreter makes when the graph runs"
        if not (isinstance(call, nodes.Call) and isinstance(call.func, nodes.Name) and call.func.name == "range"
                and call.func.name not in self.cfg.defs_by_name):
            return ""
        for argument in call.args:
            value = self.value(argument)
            if value.var and value.kinds & {INT, FLOAT} and TENSOR not in value.kinds:
                return f"is `{argument.as_string()}`, a Python number only the run knows"
        return ""

    def in_branch_the_parser_drops(self, node) -> bool:
        """``node`` sits in a branch of an ``if`` that MindSpore's parser itself decides the other way (a bool
        ``self.flag`` and the other conditions of :mod:`parser_fold`): the parser's own checks never see it."""

        child, parent = node, node.parent
        while parent is not None:
            if isinstance(parent, nodes.If) and child is not parent.test:
                status, value = self.parser_fold.status(parent.test)
                if status == FOLD and value is not NOTHING_KNOWN and (child in parent.body) != bool(value):
                    return True
            if parent is self.func or isinstance(parent, (nodes.FunctionDef, nodes.Lambda)):
                return False
            child, parent = parent, parent.parent
        return False

    def in_dead_branch(self, node) -> bool:
        """``node`` sits in a branch of an ``if`` whose condition type inference decides the other way (an
        `isinstance` of a value of known kind, a constant): MindSpore never compiles it."""
        child, parent = node, node.parent
        while parent is not None:
            if isinstance(parent, nodes.If) and child is not parent.test:
                taken = self._folded(parent.test)
                if taken is not None and (child in parent.body) != taken:
                    return True
            if child.is_statement and self._after_folded_exit(child):
                return True
            if parent is self.func or isinstance(parent, (nodes.FunctionDef, nodes.Lambda)):
                return False
            child, parent = parent, parent.parent
        return False

    def _folded(self, test) -> bool | None:
        """The branch type inference takes for an ``if`` on ``test``, when it decides it."""
        value = self.value(test)
        if value.known and not value.var and isinstance(value.const, (bool, int, str, type(None))):
            return bool(value.const)
        return None

    def _after_folded_exit(self, statement) -> bool:
        """An earlier ``if`` of the same block takes, by a decided condition, a branch that returns or raises
        (`if not return_dict: return (...)`): nothing after it is compiled."""
        previous = statement.previous_sibling()
        while previous is not None:
            if isinstance(previous, nodes.If):
                taken = self._folded(previous.test)
                branch = previous.body if taken else previous.orelse if taken is not None else None
                if branch and isinstance(branch[-1], (nodes.Return, nodes.Raise)):
                    return True
            previous = previous.previous_sibling()
        return False

    def tensor_origin(self, test) -> str | None:
        """What makes ``test`` a Tensor value decided when the graph runs, or None (see provenance)."""
        return tensor_origin(self, test)

    def from_tensor(self, expr, numeric: bool = False) -> bool:
        """``expr`` is computed from a Tensor (not only maybe a Python number; see provenance)."""
        return from_tensor_computation(expr, self, self.analysis, numeric=numeric)

    def _changed_in_place(self, expr) -> bool:
        """``expr`` is a name the function writes items of, or changes with a method (`d["k"] = v`, `d.update(...)`):
        the entries its value was made with may no longer hold."""
        if not isinstance(expr, nodes.Name):
            return True
        changed = self._in_place_names
        if changed is None:
            changed = set()
            for node in self.func.nodes_of_class((nodes.Subscript, nodes.Call)):
                if isinstance(node, nodes.Subscript) and node.ctx in (Context.Store, Context.Del) \
                        and isinstance(node.value, nodes.Name):
                    changed.add(node.value.name)
                elif isinstance(node, nodes.Call) and isinstance(node.func, nodes.Attribute) \
                        and isinstance(node.func.expr, nodes.Name) and node.func.attrname in _DICT_CHANGERS:
                    changed.add(node.func.expr.name)
            self._in_place_names = changed
        return expr.name in changed

    def computed_in_graph(self, expr) -> bool:
        """``expr`` is a value this graph computes (an op's result, a subscript, a local name bound only to such),
        not one it receives (an argument, an attribute of the Cell)."""
        if isinstance(expr, nodes.Name):
            element = self.cfg.element_of(expr)
            definitions = self.cfg.reaching(element, expr.name) if element is not None else ()
            return bool(definitions) and all(
                d.kind == "assign" and d.value is not None and self.computed_in_graph(d.value) for d in definitions)
        return isinstance(expr, (nodes.Subscript, nodes.Call, nodes.BinOp))

    def tensor_assumption(self, expr) -> str:
        """What would make ``expr`` (read as a number) computed from a Tensor when nothing in the module says:
        "`n` is a Tensor", "`h`, `w` are Tensors"; "" when it is known either way."""
        names = assumed_tensors(expr, self, self.analysis)
        if not names:
            return ""
        listed = ", ".join(f"`{name}`" for name in names)
        return f"{listed} is a Tensor" if len(names) == 1 else f"{listed} are Tensors"

    @property
    def shapes(self):
        """Kinds, tuple lengths and dtypes of values, as type inference joins them (:mod:`joins`)."""
        if self._shapes is None:

            self._shapes = Shapes(self)
        return self._shapes

    @property
    def parser_fold(self):
        """Which conditions MindSpore's parser folds while parsing (:mod:`parser_fold`)."""
        if self._fold is None:

            self._fold = ParserFold(self)
        return self._fold

    # -- fixpoint -----------------------------------------------------------
    def _solve(self) -> None:
        definitions = self.cfg.definitions
        self.def_values = _DefinitionValues()
        for _ in range(self.MAX_ROUNDS):
            self._cache = {}
            changed = False
            self.def_values.missed = False
            for definition in definitions:
                new = self._definition_value(definition)
                old = dict.get(self.def_values, definition.index, BOTTOM)  # (not a read of the round)
                merged = widen(old, new) if not old.bottom else new
                if merged != old:
                    self.def_values[definition.index] = merged
                    changed = True
            if not changed or not self.def_values.missed:
                # (a round that read no definition before it had a value, a loop's back edge, would give the
                # same values again: its inputs are those it ended with)
                break
        self._cache = {}

    def _solve_without_dead_branches(self) -> None:
        """Solve again where an ``if`` is decided while compiling (`isinstance` of a value of known kind, a
        constant): type inference compiles only the branch taken, so after the ``if`` a name holds what that
        branch gives, not the join of both (`if isinstance(x, Tensor): x = Wrapper(x)`). A test decided on the
        values of a solve with every branch stays decided once the dead ones are left out (the values only get
        narrower), so this only ever removes edges."""
        dead: frozenset = frozenset()
        for _ in range(3):
            found = frozenset(self._dead_edges())
            if found <= dead:
                return
            dead |= found
            previous = self._reaching_in
            self._reaching_in, self._live_blocks = self.cfg.reaching_in_without(dead)
            if self.cfg.same_reaching(self._reaching_in, self._live_blocks, previous):
                continue  # (the edges left out change no definition that live code reads: the values stand)
            self._solve()

    def compiled(self, block) -> bool:
        """The CFG block is not in a branch the solve left out as never compiled."""
        return self._live_blocks is None or block.id in self._live_blocks

    def _dead_edges(self):
        for region in self.cfg.ifs.values():
            taken = self._folded(region.node.test)
            if taken is not None:
                yield region.test.block.id, (region.else_entry if taken else region.then_entry).id

    def _augmented(self, definition: Definition, element) -> Value:
        """``x op= v``: the operator's value, the interpreter's where an operand is (as ``eval`` makes a BinOp's)."""
        node = definition.value
        current = self.name_at(element, definition.name)
        operand = self.eval(node.value, element)
        result = self._binop(current, operand, node.op.rstrip("="))
        carrier = next((v for v in (current, operand) if v.var and v.interpreted and not v.kinds & SCALARS), None)
        if carrier is not None and result.var and not result.interpreted and result.kinds \
                and result.kinds <= _SHAPELESS:
            return replace(result, interpreted=True, origin=carrier.origin)
        return result

    def _definition_value(self, definition: Definition) -> Value:
        element = definition.element
        kind = definition.kind
        if kind == "param":
            return self.params.get(definition.name, unknown())
        if kind == "def":
            return const(FUNCTION if isinstance(definition.node, nodes.FunctionDef) else CLASS)
        if kind == "import":
            return const(MODULE)
        if kind == "del":
            return const(UNDEFINED)
        if kind == "except":
            return const(OBJECT)
        if kind == "augassign":
            return self._augmented(definition, element)
        if kind == "mutate":
            return self._resized(definition.value, self.name_at(element, definition.name), element)
        if kind == "for":
            return self._iteration_value(element.node, definition)
        if kind == "with":
            return unknown()
        if definition.value is not None:
            return self.eval(definition.value, element)
        # `a, b = f(x)`: take the element when the right side's length is known.
        statement = element.node
        rhs = getattr(statement, "value", None)
        if rhs is None:
            return unknown()
        whole = self.eval(rhs, element)
        position = _target_position(statement, definition.node)
        if whole.items is not None and position is not None and position < len(whole.items):
            return whole.items[position]
        if whole.is_tensor:
            return replace(whole, alias="", const=NOTHING)
        if whole.each is not None and whole.kinds <= {TUPLE, LIST}:
            return whole.each  # `q, k, v = x.split(d, -1)`: each a Tensor
        return unknown(whole.var, whole.origin)

    def _resized(self, call: nodes.Call, before: Value, element) -> Value:
        """What ``xs.append(v)`` (``extend``, ``insert``, ``pop``, ``remove``, ``clear``) makes of the list ``xs``
        held: its items where their number is known, else what each element may be."""
        if not before.kinds <= {LIST} or not before.kinds:
            return before  # not (known to be) a list: another object's method
        method = call.func.attrname
        args = [self.eval(a, element) for a in call.args]
        added = _added_items(method, args)
        items = _resized_items(call, method, before.items, added)
        each = None
        if items is None:
            parts = [element_value_of(before)] + list(added or ())
            if method == "extend" and args:
                parts.append(element_value_of(args[0]))
            parts = [p for p in parts if p is not None]
            each = join(*parts) if parts else None
        var = before.var or any(a.var for a in args)
        origin = before.origin or next((a.origin for a in args if a.var), "")
        return Value(frozenset({LIST}), var, origin, items, each=each)

    def _iteration_value(self, loop: nodes.For, definition: Definition) -> Value:
        element = self.cfg.element_of(loop.iter)
        iterable = self.eval(loop.iter, element)
        return self._target_value(loop.iter, iterable, loop.target, definition.node, element)

    # -- queries ------------------------------------------------------------
    def name_at(self, element: Element | None, name: str) -> Value:
        if element is not None and name in self.cfg.defs_by_name:
            definitions = self.reaching(element, name)
            if not definitions:
                return const(UNDEFINED)
            return join(*(self.def_values.get(d.index, BOTTOM) for d in definitions))
        return self.analysis.outer_value(self.graph, name)

    def reaching(self, element: Element, name: str) -> list:
        """The definitions of ``name`` that reach ``element`` on the paths type inference compiles (in a branch
        never compiled, what every edge brings: its findings are the parser's)."""
        if not self._live_blocks or element.block.id not in self._live_blocks:
            return self.cfg.reaching(element, name)
        return self.cfg.definitions_in(self._reaching_in.get(element.index, 0), name)

    def value(self, expr) -> Value:
        """The value of any expression in this function."""
        return self.eval(expr, self.cfg.element_of(expr))

    def exact_int(self, expr, depth: int = 0) -> int | None:
        """The exact Python int that integer arithmetic on int literals gives (``2 ** 70 % 7``), following a name to
        its one reaching `name = <arithmetic>` assignment; None when it is not that. Unlike :meth:`value` (which
        folds only what stays below 10**12), any size that Python computes at once: exponents and shifts up to
        4096, results up to 65536 bits."""
        if depth > 16:
            return None
        if isinstance(expr, nodes.Const):
            return expr.value if type(expr.value) is int else None
        if isinstance(expr, nodes.UnaryOp) and expr.op in ("-", "+"):
            inner = self.exact_int(expr.operand, depth + 1)
            return None if inner is None else (-inner if expr.op == "-" else inner)
        if isinstance(expr, nodes.Name):
            element = self.cfg.element_of(expr)
            definitions = self.cfg.reaching(element, expr.name) if element is not None else []
            if len(definitions) != 1 or definitions[0].kind != "assign" or definitions[0].value is None \
                    or not isinstance(definitions[0].node, nodes.AssignName) \
                    or not isinstance(definitions[0].node.parent, nodes.Assign):
                return None
            return self.exact_int(definitions[0].value, depth + 1)
        if isinstance(expr, nodes.BinOp) and expr.op in _EXACT_INT_OPS:
            return _exact_binop(expr.op, self.exact_int(expr.left, depth + 1), self.exact_int(expr.right, depth + 1))
        return None

    def eval(self, expr, element: Element | None) -> Value:
        key = id(expr)
        cached = self._cache.get(key)
        if cached is not None:
            return cached
        self._cache[key] = unknown()  # recursion guard
        result = self._eval(expr, element)
        if result.var and not result.interpreted and result.kinds and result.kinds <= _SHAPELESS \
                and isinstance(expr, _CARRIES_INTERPRETED):
            made = self._reads_interpreted(expr, element)
            if made is not None:
                result = replace(result, interpreted=True, origin=made)
        self._cache[key] = result
        return result

    def _reads_interpreted(self, expr, element) -> str | None:
        """``expr`` computes on a value only the interpreter holds (arithmetic, an index, a Tensor method or a
        MindSpore function of it): what it gives has no shape type inference knows either (measured with MindSpore
        2.10: `d["a"] * 1`, `ops.relu(d["a"])`, `d["a"].reshape(1, 2)` and `d["a"][:, :]` of `d = dict(a=x * 2)`
        all fail in `nn.Dense`, as `d["a"]` does). Gives where that value was made, else None."""
        keyed = isinstance(expr, nodes.Subscript) and isinstance(expr.slice, nodes.Const) \
            and isinstance(expr.slice.value, str)
        for operand in self._computed_on(expr):
            value = self.eval(operand, element)
            if value.var and value.interpreted and not value.kinds & SCALARS:
                return value.origin
            if keyed and value.var and value.interpreted_as(DICT):
                return value.origin  # (a key: of the dict, where the value may also be a tuple)
            if value.var and value.kinds == {NUMPY}:
                # (a NumPy array of run-time values is the interpreter's too: `Tensor.from_numpy(a)` of one, measured)
                shown = operand.as_string()
                return f"the NumPy array `{shown if len(shown) <= 40 else shown[:37] + '...'}`"
        return None

    def _computed_on(self, expr) -> list:
        """The operands an operation computes on: both sides of arithmetic, what is indexed, the Tensor a method is
        called on, the arguments of a MindSpore function (none for anything else)."""
        if isinstance(expr, nodes.BinOp):
            return [expr.left, expr.right]
        if isinstance(expr, nodes.UnaryOp):
            return [expr.operand]
        if isinstance(expr, nodes.Subscript):
            return [expr.value]
        if not isinstance(expr, nodes.Call):
            return []
        func = expr.func
        if isinstance(func, nodes.Attribute) and _rooted_at(func.expr, self.self_name):
            return []  # (`self.layer(v)`, `self.helper(v)`: a Cell or method call, not an operation on `v`)
        if isinstance(func, nodes.Attribute) and self.imports.qualify(func) is None:
            # the Tensor, and what it is given: `t.to(x.device)` gives the interpreter's Tensor too (measured: its
            # dtype is lost, and `nn.Dense` of it fails at the lax level)
            return [func.expr] + list(expr.args) + [keyword.value for keyword in expr.keywords or ()]
        if (self.imports.qualify(func) or "").startswith("mindspore.") and isinstance(func, (nodes.Name, nodes.Attribute)):
            return list(expr.args) + [keyword.value for keyword in expr.keywords or ()]
        return []

    def interpreted_read(self, expr):
        """Where this function takes the interpreted value ``expr`` holds out of what the interpreter built (`d["h"]`
        of a `dict(...)`, `out.logits` of a dataclass, a Cell output indexed by key), following names to their one
        definition and operations (arithmetic, indexing, Tensor methods, MindSpore functions) to the operand that
        carries it: the expression to report, where the fix goes. ``expr`` itself where it is taken there."""
        for _ in range(32):
            if isinstance(expr, nodes.Name):
                element = self.cfg.element_of(expr)
                definitions = self.reaching(element, expr.name) if element is not None else []
                # (several, a loop's: the first in the source, where the value enters the loop)
                first = min(definitions, key=lambda d: d.index) if definitions else None
                for _ in range(8):  # `x *= m`: the operand that carries it, or `x` as it was before
                    if first is None or first.kind != "augassign" or first.value is None \
                            or self.value(first.value.value).interpreted:
                        break
                    earlier = [d for d in self.reaching(first.element, expr.name) if d.index < first.index]
                    first = min(earlier, key=lambda d: d.index) if earlier else None
                if first is not None and first.kind == "augassign" and first.value is not None:
                    expr = first.value.value
                    continue
                if first is None or first.value is None or first.kind != "assign" \
                        or not self.value(first.value).interpreted:
                    return expr
                expr = first.value
                continue
            carrier = next((operand for operand in self._computed_on(expr)
                            if self.value(operand).interpreted and self.value(operand).kinds <= _SHAPELESS), None)
            if carrier is None:
                return expr
            expr = carrier
        return expr

    # -- expressions ----------------------------------------------------------
    def _eval(self, expr, element) -> Value:
        if isinstance(expr, nodes.Const):
            return of_python(expr.value)
        if isinstance(expr, nodes.Name):
            bound = self._comprehension_binding(expr, element) if expr.name in self._comprehension_names() else None
            return bound if bound is not None else self.name_at(element, expr.name)
        if isinstance(expr, (nodes.Tuple, nodes.List)):
            return self._sequence_display(expr, element)
        if isinstance(expr, nodes.Attribute):
            return self._attribute(expr, element)
        if isinstance(expr, nodes.Call):
            return self._call(expr, element)
        if isinstance(expr, nodes.BinOp):
            return self._binop(self.eval(expr.left, element), self.eval(expr.right, element), expr.op)
        if isinstance(expr, nodes.BoolOp):
            return self._boolop(expr, element)
        if isinstance(expr, nodes.UnaryOp):
            return self._unaryop(expr, element)
        if isinstance(expr, nodes.Compare):
            return self._compare(expr, element)
        if isinstance(expr, nodes.IfExp):
            return self._ifexp(expr, element)
        if isinstance(expr, nodes.Subscript):
            return self._subscript(expr, element)
        if isinstance(expr, (nodes.NamedExpr, nodes.Starred, nodes.FormattedValue)):
            return self.eval(expr.value, element)
        if isinstance(expr, nodes.Lambda):
            return const(FUNCTION)
        return self._built(expr, element)

    def _comprehension_names(self) -> frozenset[str]:
        """The names some comprehension of the function binds (most names are none's: no walk up for them)."""
        if self._comprehension_bound is None:
            self._comprehension_bound = frozenset(
                target.name for comprehension in nodes_of_class(self.func, nodes.Comprehension)
                for target in nodes_of_class(comprehension.target, nodes.AssignName))
        return self._comprehension_bound

    def _comprehension_binding(self, name: nodes.Name, element) -> Value | None:
        """The value of a name a comprehension binds (``c`` in ``[f(c) for i, c in enumerate(xs)]``): an element
        of what its generator iterates, as a ``for`` loop's target. None for a name no comprehension binds."""
        path = [name]
        node = name.parent
        while node is not None and node is not self.func:
            if isinstance(node, (nodes.ListComp, nodes.SetComp, nodes.DictComp, nodes.GeneratorExp)):
                generators = list(node.generators)
                child = path[-1]
                visible = generators
                if child in generators:
                    index = generators.index(child)
                    within_iter = len(path) > 1 and path[-2] is child.iter
                    # A generator's iterable sees only the generators before it (the first: none, it is
                    # evaluated outside the comprehension); its conditions see its own target too.
                    visible = generators[:index] if within_iter else generators[:index + 1]
                for generator in reversed(visible):
                    target = _bound_target(generator.target, name.name)
                    if target is not None:
                        iterable = self.eval(generator.iter, element)
                        return self._target_value(generator.iter, iterable, generator.target, target, element)
            path.append(node)
            node = node.parent
        return None

    def _target_value(self, iter_expr, iterable: Value, target, bound, element) -> Value:
        """What an iteration over ``iterable`` binds to ``bound`` (a name in ``target``, at any depth: `for i, (a,
        b) in enumerate(zip(xs, ys))`)."""
        return _bound_in(target, bound, self._loop_element(iter_expr, iterable, element))

    def _loop_element(self, iter_expr, iterable: Value, element) -> Value:
        """One element of what a loop iterates: for `zip(a, b)` the tuple of an element of each, for
        `enumerate(xs)` an int and an element of ``xs`` (graph mode unrolls both into such tuples)."""
        if isinstance(iter_expr, nodes.Call) and isinstance(iter_expr.func, nodes.Name) and not iter_expr.keywords \
                and iter_expr.func.name in ("zip", "enumerate") and iter_expr.args \
                and not any(isinstance(a, nodes.Starred) for a in iter_expr.args) \
                and iter_expr.func.name not in self.cfg.defs_by_name:
            parts = [self._loop_element(a, self.eval(a, element), element) for a in iter_expr.args]
            if iter_expr.func.name == "enumerate":
                parts = [const(INT), parts[0]]
            return Value(frozenset({TUPLE}), any(p.var for p in parts), next((p.origin for p in parts if p.var), ""),
                         tuple(parts))
        return const(INT) if iterable.is_(RANGE) else _iterated(iterable)

    def _dict_entries(self, expr, element) -> tuple | None:
        """((key, value), ...) of a dict display whose keys are all str or int constants; None otherwise."""
        if isinstance(expr, nodes.Dict) and all(isinstance(k, nodes.Const) and isinstance(k.value, (str, int))
                                                for k, _ in expr.items):
            return tuple((k.value, self.eval(v, element)) for k, v in expr.items)
        return None

    def _built(self, expr, element) -> Value:
        """A dict or set display, an f-string, a comprehension: a runtime value when what it is built from is."""
        if isinstance(expr, (nodes.Dict, nodes.Set)):
            parts = [self.eval(c, element) for c in expr.get_children()]
            var = any(v.var for v in parts)
            return Value(frozenset({DICT if isinstance(expr, nodes.Dict) else SET}), var,
                         next((v.origin for v in parts if v.var), ""), entries=self._dict_entries(expr, element))
        if isinstance(expr, nodes.JoinedStr):
            parts = [self.eval(v, element) for v in expr.values]
            return Value(frozenset({STR}), any(p.var for p in parts), next((p.origin for p in parts if p.var), ""))
        if isinstance(expr, (nodes.ListComp, nodes.GeneratorExp, nodes.SetComp, nodes.DictComp)):
            inner = [self.eval(g.iter, element) for g in expr.generators]
            var = any(v.var or v.may_be(TENSOR) for v in inner)
            kind = {nodes.ListComp: LIST, nodes.GeneratorExp: OBJECT, nodes.SetComp: SET, nodes.DictComp: DICT}[type(expr)]
            # built in the interpreter when what it iterates is (`.tolist()`, `itertools.groupby(...)` of run-time
            # values: the JIT fallback runs them)
            interpreted = any(v.interpreted or (v.var and isinstance(g.iter, nodes.Call) and (
                self.imports.qualify(g.iter.func) or "").startswith(_INTERPRETED_MODULES))
                for g, v in zip(expr.generators, inner))
            made = Value(frozenset({kind}), var, next((v.origin for v in inner if v.var), ""), interpreted=interpreted)
            if isinstance(expr, (nodes.ListComp, nodes.GeneratorExp)):  # (what each element is: `rows[1]`)
                made = replace(made, each=self.eval(expr.elt, element))
            elif isinstance(expr, nodes.DictComp):  # (what each value is: `weights[2]`)
                made = replace(made, each=self.eval(expr.value, element))
            return made
        return unknown()

    def _sequence_display(self, expr, element) -> Value:
        """A tuple or list display: its items (none known past a `*`); a tuple of constants is a constant."""
        items = tuple(self.eval(e, element) for e in expr.elts)
        if any(isinstance(e, nodes.Starred) for e in expr.elts):
            items = None
        kind = TUPLE if isinstance(expr, nodes.Tuple) else LIST
        parts = items or ()
        var = any(v.var for v in parts)
        origin = next((v.origin for v in parts if v.var), "")
        known = tuple(v.const for v in parts) if items is not None and all(v.known for v in parts) else NOTHING
        return Value(frozenset({kind}), var, origin, items, known if kind == TUPLE else NOTHING)

    def _boolop(self, expr: nodes.BoolOp, element) -> Value:
        """`a and b` / `a or b`: its operands joined, folded when all are constants."""
        parts = [self.eval(v, element) for v in expr.values]
        result = join(*parts)
        known = NOTHING
        if all(p.known for p in parts):
            try:
                current = parts[0].const
                for part in parts[1:]:
                    current = (current and part.const) if expr.op == "and" else (current or part.const)
                known = current
            except Exception:  # noqa: BLE001
                known = NOTHING
        return replace(result, const=known, alias="")

    def _unaryop(self, expr: nodes.UnaryOp, element) -> Value:
        operand = self.eval(expr.operand, element)
        if expr.op == "not":
            if operand.var:
                return Value(frozenset({TENSOR if operand.may_be(TENSOR) else BOOL}), True, operand.origin)
            return const(BOOL, (not operand.const) if operand.known else NOTHING)
        known = NOTHING
        if operand.known and isinstance(operand.const, (int, float)) and not isinstance(operand.const, bool):
            known = -operand.const if expr.op == "-" else operand.const if expr.op == "+" else NOTHING
        return replace(operand, const=known, alias="", items=None)

    def _ifexp(self, expr: nodes.IfExp, element) -> Value:
        """`a if c else b`: the side a constant test picks, else both joined (a runtime value under a runtime
        test)."""
        test = self.eval(expr.test, element)
        if test.known and not test.var:
            return self.eval(expr.body if test.const else expr.orelse, element)
        result = join(self.eval(expr.body, element), self.eval(expr.orelse, element))
        if test.var:
            result = replace(result, var=True, origin=result.origin or test.origin)
        return result

    def _attribute(self, expr: nodes.Attribute, element) -> Value:
        base = expr.expr
        if isinstance(base, nodes.Name) and base.name == self.self_name and self.cls is not None:
            receiver = self.name_at(element, base.name)
            if _field_of_interpreted(receiver):  # (a method of an object the JIT fallback made: its fields)
                return Value(frozenset({UNKNOWN}), True, receiver.origin, interpreted=True)
            if receiver.kinds <= {OBJECT}:
                return self._own_attribute(expr)
        held = self._held_attribute(expr, element) or self._layer_parameter(expr)
        if held is not None:
            return held
        root = self._chain_root(expr)
        qualified = self.imports.qualify(expr) if root is not None and root.name in self.imports.aliases else None
        if qualified is not None and not (isinstance(base, nodes.Name) and base.name in self.cfg.defs_by_name):
            return _qualified_constant(qualified)
        owner = self.eval(base, element)
        name = expr.attrname
        if owner.may_be(TENSOR) and not owner.kinds - {TENSOR, NONE}:
            return _tensor_attribute(expr, owner, name)
        if owner.var and name in ("shape", "ndim", "dtype") and not owner.kinds - {TENSOR, NONE, UNKNOWN}:
            # A runtime value with a shape is a Tensor (a Cell's or a helper's output, say): its
            # shape, rank and dtype are compile-time constants like any Tensor's.
            return _metadata(name)
        if _field_of_interpreted(owner):
            return Value(frozenset({UNKNOWN}), True, owner.origin, interpreted=True)
        if owner.is_(CLASS):
            return self._class_attribute(base, name)
        if owner.is_(CELL) or owner.is_(OBJECT) or owner.is_(MODULE):
            return unknown()
        return unknown(owner.var, owner.origin)

    def _class_attribute(self, base, name: str) -> Value:
        """``Scale.factor`` of a project class: the literal its body sets (read while compiling: a constant)."""
        resolved = self.analysis.project.resolve_expr(self.info, base) \
            if isinstance(base, (nodes.Name, nodes.Attribute)) else None
        found = class_body_value(self.analysis.project, resolved.node, name) \
            if resolved is not None and resolved.kind == "class" else None
        written = literal(found[0]) if found is not None else None
        return of_python(written[0]) if written is not None else unknown()

    def _own_attribute(self, expr: nodes.Attribute) -> Value:
        """``self.attr`` of the function's own Cell or object: what the class holds there, read back after a write
        of graph code's, and not None under an ``is not None`` test of it."""
        held = self.analysis.self_attribute(self.cls, expr.attrname)
        held = self._read_back(expr, held) or held
        return _not_none(held) if NONE in held.kinds and _guarded_not_none(expr, self.func) else held

    def _read_back(self, read: nodes.Attribute, held: Value) -> Value | None:
        """``self.attr`` read after this function rewrote an attribute ``__init__`` made: what the JIT fallback wrote
        (the lax level) is read back as an object only the interpreter holds (measured: a Tensor attribute rewritten
        in `construct`, then given to a layer, fails with "negative dimensions are not allowed"; alone it runs; one
        that graph code itself created first reads back as it was written). None otherwise."""
        if not held.kinds & {TENSOR, UNKNOWN} or held.kinds & {CELL}:
            return None
        written = self._written_before(read)
        if written is None or not any(method.name == "__init__" for _value, method in
                                      self.analysis.project.attribute_assignments(self.cls).get(read.attrname, ())):
            return None
        return Value((held.kinds - {NONE}) or frozenset({UNKNOWN}), True, f"`self.{read.attrname}` written at line "
                     f"{written}", interpreted=True)

    def _written_before(self, read: nodes.Attribute) -> int | None:
        """The line of a statement of this function, before the one that reads ``self.attr``, that assigns it."""
        reading = read.statement().lineno
        for target in nodes_of_class(self.func, nodes.AssignAttr):
            if target.attrname == read.attrname and isinstance(target.expr, nodes.Name) \
                    and target.expr.name == self.self_name and target.statement().lineno < reading \
                    and target.scope() is self.func:
                return target.statement().lineno
        return None

    def _layer_parameter(self, expr: nodes.Attribute) -> Value | None:
        """``self.embedding.embedding_table``, ``self.fc.weight``: a Parameter the MindSpore layer held by the
        attribute makes (read from MindSpore's sources: generated.nn_parameters)."""
        base = expr.expr
        if not (isinstance(base, nodes.Attribute) and isinstance(base.expr, nodes.Name)
                and base.expr.name == self.self_name and self.cls is not None):
            return None
        layers = self.analysis.attribute_instances(self.cls, base.attrname)
        if not layers or len(layers) != 1:
            return None
        layer = next(iter(layers))
        if not layer.startswith("mindspore."):
            resolved = self.analysis.project.resolve_qualified(layer)
            layer = self.analysis.project.mindspore_layer_base(resolved.node) \
                if resolved is not None and resolved.kind == "class" else None
        if not api.layer_makes_parameter(layer, expr.attrname):
            return None
        text = expr.as_string()
        return variable(TENSOR, f"the Parameter `{text}`", alias=f"the Parameter `{text}`")

    def _held_attribute(self, expr: nodes.Attribute, element) -> Value | None:
        """An attribute of an object graph code holds (``self.sched.num_steps``, ``SCHEDULER.num_steps``): what the
        object's class sets it to outside graph code, when the object is an instance of one project class."""
        root = self._chain_root(expr)
        if root is None or (root.name in self.cfg.defs_by_name and root.name != self.self_name):
            return None
        if root.name == self.self_name and not self.name_at(element, root.name).kinds <= {OBJECT}:
            return None
        project = self.analysis.project
        # (the classes of what a chain holds, else of what the constructions pass: `self.model = model`)
        held = object_classes(project, self.info, expr.expr, self.cls) or \
            callables.instance_classes(project, self.info, expr.expr, self.cls)
        return self.analysis.self_attribute(held[0], expr.attrname) if len(held) == 1 else None

    def _chain_root(self, expr: nodes.Attribute) -> nodes.Name | None:
        """The Name an attribute chain ``a.b.c`` starts from (None for ``f().b.c``).

        Memoized: every link of a chain asks, and ``qualify`` walking down from each link
        costs quadratic time on a chain like ``self.a.a.a...`` that is no import anyway."""
        walked = []
        while isinstance(expr, nodes.Attribute) and id(expr) not in self._chain_roots:
            walked.append(expr)
            expr = expr.expr
        if isinstance(expr, nodes.Attribute):
            root = self._chain_roots[id(expr)]
        else:
            root = expr if isinstance(expr, nodes.Name) else None
        for link in walked:
            self._chain_roots[id(link)] = root
        return root

    def _call(self, expr: nodes.Call, element) -> Value:
        func = expr.func
        args = [self.eval(a, element) for a in expr.args]
        args += [self.eval(k.value, element) for k in expr.keywords or ()]
        var_args = [a for a in args if a.var]
        any_var = bool(var_args)
        origin = var_args[0].origin if var_args else ""
        primitive = self._primitive_call(expr, any_var, origin)
        if primitive is not None:
            return primitive
        qualified = None
        if not (isinstance(func, nodes.Name) and func.name in self.cfg.defs_by_name):
            qualified = self.imports.qualify(func)
        if qualified is not None:
            return self._qualified_call(qualified, expr, args, any_var, origin)
        if isinstance(func, nodes.Name):
            builtin = self._builtin_call(func.name, expr, args, any_var, origin, element)
            if builtin is not None:
                return builtin
            if func.name not in self.cfg.defs_by_name:
                # A Cell class defined in an enclosing function (a test, a factory): imports cannot name it.
                resolved = self.analysis.project.resolve_expr(self.info, func)
                if resolved is not None and resolved.kind == "class" and self.analysis.project.is_cell(resolved.node):
                    return const(CELL)
        made = self._interpreted_instance(expr, args)
        if made is not None:
            return made
        layer = self._held_call(expr, element)
        if layer is not None:
            return layer
        owner = None
        if isinstance(func, nodes.Attribute):
            method = self._method_call(expr, element, any_var, origin)
            if isinstance(method, Value):
                return method
            any_var, origin = method
            owner = self.eval(func.expr, element)
        summary = self._helper_summary(expr, owner)
        if summary is not None:
            return summary
        return unknown(any_var, origin)

    def primitive_called(self, call: nodes.Call) -> str | None:
        """What ``call`` calls an instance of, qualified: a Primitive held by the Cell (``self.layer_norm``, made in
        ``__init__`` or by the MindSpore layer the class subclasses), or what is made in place (``ops.ReLU()(x)``);
        None for another call."""
        func = call.func
        if isinstance(func, nodes.Attribute) and self.cls is not None and isinstance(func.expr, nodes.Name) \
                and func.expr.name == self.self_name:
            return self.analysis.attribute_primitive(self.cls, func.attrname)
        return self.imports.qualify(func.func) if isinstance(func, nodes.Call) else None

    def _primitive_call(self, expr: nodes.Call, any_var: bool, origin: str) -> Value | None:
        """Primitive instances called directly: ops.Shape()(x), P.ReLU()(x); or held by the Cell: self.cast(x, t).
        None for any other call."""
        primitive = self.primitive_called(expr)
        if not (isinstance(expr.func, nodes.Call) or primitive is not None):
            return None
        name = primitive.rsplit(".", 1)[-1] if primitive else ""
        if primitive and primitive.startswith("mindspore.ops.") and name in api.CONST_PRIMITIVES:
            return const(api.CONST_PRIMITIVES[name])
        if primitive and primitive.startswith("mindspore.ops.") and name in api.TUPLE_RESULT_PRIMITIVES:
            made = variable(TUPLE, origin or f"the tuple computed at line {expr.lineno}")
            if name in api.TENSOR_TUPLE_RESULT_PRIMITIVES:  # (`y, _, _ = self.layer_norm(x, g, b)`: each a Tensor)
                made = replace(made, each=variable(TENSOR, origin or f"a Tensor computed at line {expr.lineno}"))
            return made
        if primitive and primitive.startswith("mindspore.ops."):
            return variable(TENSOR, origin or f"the Tensor computed at line {expr.lineno}")
        return unknown(any_var, origin)

    def _method_call(self, expr: nodes.Call, element, any_var: bool, origin: str):
        """A method call ``owner.method(...)``: its value when the owner decides it (a Tensor, a Cell, a tuple or
        list), else ``(any_var, origin)`` for what a helper call would give (a method of a runtime value returns
        a runtime value)."""
        func = expr.func
        owner_expr = func.expr
        owner = self.eval(owner_expr, element)
        method = func.attrname
        if owner.may_be(TENSOR) and not owner.kinds - {TENSOR, NONE}:
            return _tensor_method(expr, method, owner, any_var, origin)
        if method in api.HOST_METHODS and (owner.may_be(UNKNOWN) or owner.may_be(NUMPY)) \
                and not owner.kinds - {UNKNOWN, NUMPY, TENSOR}:
            # a Tensor (or array) the analysis cannot see: `.item()`/`.tolist()` give host values all the same
            return _host_copy(api.HOST_METHODS[method], owner.var or any_var, owner.origin or origin)
        if owner.is_(CELL):
            if method in api.CELL_PARAMETER_ACCESSORS:  # (refused in graph code, but what they give is known)
                parameter = variable(TENSOR, f"a Parameter of `{owner_expr.as_string()}`",
                                     alias=f"the Parameter of `{owner_expr.as_string()}`")
                return replace(const(LIST), each=parameter)
            # a method of a project Cell (`self.encoder.forward_masks(x)`): graph code compiles it, and it gives
            # what it returns for these arguments
            summary = self._helper_summary(expr)
            if summary is not None:
                return summary
            if any_var:
                return unknown(True, origin)
            return unknown()
        container = self._container_method(expr, owner, any_var, origin)
        if container is not None:
            return container
        if owner.var and not (isinstance(owner_expr, nodes.Name) and owner_expr.name == self.self_name):
            return True, origin or owner.origin
        return any_var, origin

    def _container_method(self, expr: nodes.Call, owner: Value, any_var: bool, origin: str) -> Value | None:
        """A dict's views, ``dict.fromkeys``, a sequence's ``index``/``count``; None for other calls."""
        method, owner_expr = expr.func.attrname, expr.func.expr
        if owner.is_(DICT) and method in ("keys", "items", "values") and not expr.args:
            # a graph dict's keys are constants of compilation (a run-time key is refused where the dict is made);
            # graph mode makes the view a list (PYNATIVE_MODE keeps the view: measured, it leaves a graph so)
            key, item = unknown(), unknown(owner.var, owner.origin)
            each = {"keys": key, "values": item}.get(method) or Value(frozenset({TUPLE}), False, "", (key, item))
            return Value(frozenset({LIST}), False, "", each=each, host_type=f"dict_{method}")
        if isinstance(owner_expr, nodes.Name) and owner_expr.name == "dict" and method == "fromkeys" \
                and "dict" not in self.cfg.defs_by_name:
            return Value(frozenset({DICT}), any_var, origin)
        if owner.kinds <= {TUPLE, LIST} and owner.kinds and method in ("index", "count"):
            return Value(frozenset({INT}), owner.var or any_var, owner.origin or origin)
        return None

    def _interpreted_instance(self, call: nodes.Call, args: list) -> Value | None:
        """``Out(logits, prob)``: an instance of a plain class or dataclass (not a Cell, not a ``jit_class``) made
        in graph code from run-time Tensors. Only the interpreter can hold it (JIT fallback); what graph code reads
        back from it has lost its static shape."""
        if not any(a.var and a.may_be(TENSOR) for a in args) or not isinstance(call.func, (nodes.Name, nodes.Attribute)):
            return None
        project = self.analysis.project
        resolved = project.resolve_expr(self.info, call.func)
        if resolved is None or resolved.kind != "class" or project.is_cell(resolved.node) \
                or any(_decorator_name(d) in {q.rsplit(".", 1)[-1] for q in api.JIT_CLASS_DECORATORS}
                       for d in (resolved.node.decorators.nodes if resolved.node.decorators else ())):
            return None
        return Value(frozenset({OBJECT}), True, f"the `{resolved.node.name}` object made at line {call.lineno}",
                     interpreted=True)

    def cell_targets(self, call: nodes.Call) -> list | None:
        """The Cells a call calls, however they reached the callee (``__init__``'s assignments, a factory's
        return, a class parameter, a `SequentialCell`'s members, a `CellList` iterated): MindSpore's layers by
        qualified name, the project's Cell classes (one that only subclasses a MindSpore layer, by that layer's
        name). None when the callee may be anything else."""
        key = id(call)
        if key not in self._cell_targets:
            # (the same in every call context of the function: remembered on the project, per class)
            self._cell_targets[key] = self.analysis.project.memo(
                "cell targets" if self.cls is None else f"cell targets {id(self.cls)}", call,
                lambda: self._find_cell_targets(call))
        return self._cell_targets[key]

    def _find_cell_targets(self, call: nodes.Call) -> list | None:
        func = call.func
        project = self.analysis.project
        if isinstance(func, nodes.Attribute) and self.cls is not None and isinstance(func.expr, nodes.Name) \
                and func.expr.name == self.self_name:
            layers = self.analysis.attribute_instances(self.cls, func.attrname)
            if layers:
                found = [layer if layer.startswith("mindspore.") else project.resolve_qualified(layer)
                         for layer in sorted(layers)]
                targets = _cells_only(project, [f if isinstance(f, str) else f.node if f is not None and
                                                f.kind == "class" else None for f in found])
                if targets is not None and not any(isinstance(t, str) and t.rsplit(".", 1)[-1] in
                                                   api.NN_CONTAINER_CELLS for t in targets):
                    return targets  # (a container stands for its members: the resolver finds them)
        if isinstance(func, nodes.Name) and func.name == self.self_name and self.cls is not None \
                and project.is_cell(self.cls):
            return [self.cls]  # (`self(x)` in a helper: graph code refuses it, PYNATIVE_MODE runs construct)
        if not isinstance(func, (nodes.Name, nodes.Attribute, nodes.Subscript)):
            return None  # (a Subscript: `self.blocks[i](x)`, an element of a CellList)
        return _cells_only(project, callables.call_targets(project, self.info, func, self.cls))

    def _held_call(self, call: nodes.Call, element) -> Value | None:
        """A call of a Cell however it reached the callee (``self.conv(x)``, ``DropPath(p) if p else nn.Identity()``,
        a `SequentialCell`, a `CellList` iterated ...): the join of what each Cell it may be gives; None when one of
        them is not a Cell whose output is known (a function: its summary answers)."""
        targets = self.cell_targets(call)
        if not targets:
            return None
        outputs = []
        for target in targets:
            output = self._layer_output(target if isinstance(target, str) else target.qname(), call, element)
            if output is None:
                return None
            outputs.append(output)
        return join(*outputs)

    def _layer_output(self, layer: str, call: nodes.Call, element) -> Value | None:
        if not layer.startswith("mindspore."):
            return self._project_cell_output(layer, call, element)
        if not api.is_layer_class_name(layer):
            return None
        name = layer.rsplit(".", 1)[-1]
        if name == "Identity" and len(call.args) == 1 and not call.keywords:
            passed = self.eval(call.args[0], element)
            return passed if passed.kinds and UNKNOWN not in passed.kinds else None
        if api.api_kind(layer) is not api.ApiKind.CELL or name in api.NN_CONTAINER_CELLS:
            return None
        kind = TUPLE if name in api.NN_TUPLE_RESULT_LAYERS else TENSOR
        return variable(kind, _output_of(call))

    def _project_cell_output(self, layer: str, call: nodes.Call, element) -> Value | None:
        """What a project Cell called gives: for a call passing a Python constant (`return_latents=True`), what its
        construct returns for that call (the compiler specialises on it, and the branches it decides); else what it
        returns with its arguments taken as Tensors."""
        if any(self.eval(a, element).known for a in [*call.args, *(k.value for k in call.keywords or ())]
               if not isinstance(a, nodes.Starred)):
            resolved = self.analysis.project.resolve_qualified(layer)
            construct = self.analysis.project.find_method(resolved.node, "construct") \
                if resolved is not None and resolved.kind == "class" else None
            summary = self.analysis.summary_of_call(self, call, construct[0]) if construct is not None else None
            if summary is not None and summary.kinds and UNKNOWN not in summary.kinds:
                return replace(summary, alias="", parameter="")
        output = self.analysis.cell_output(layer)
        if output is None or not output.kinds or UNKNOWN in output.kinds:
            return None
        return replace(output, var=True, origin=output.origin or _output_of(call), alias="", parameter="")

    def _helper_summary(self, expr: nodes.Call, owner: Value | None = None) -> Value | None:
        """What a call to a project helper returns, with this call's arguments bound (and ``owner``, the value of
        the object a method is called on); None when it calls none (or the helper is being solved)."""
        summary = self.analysis.call_summary_for(self, expr, owner)
        return replace(summary, alias="") if summary is not None else None

    def _qualified_call(self, qualified: str, expr, args, any_var, origin) -> Value:
        top = qualified.split(".")[0]
        name = qualified.rsplit(".", 1)[-1]
        line_origin = f"the Tensor created at line {expr.lineno}"
        if qualified in api.CONST_FUNCTIONS:
            return const(api.CONST_FUNCTIONS[qualified])
        built = self._built_by_fallback(qualified, expr, args)
        if built is not None:
            return built
        if qualified in api.TENSOR_MAKERS:
            return variable(TENSOR, origin or line_origin, alias=f"the constant Tensor created at line {expr.lineno}")
        if qualified in api.CONSTANT_FOLDED_OPS:
            return variable(TENSOR, origin or line_origin,
                            alias=f"the constant Tensor `{name}` folds to at line {expr.lineno}")
        if qualified == "mindspore.mutable":
            inner = args[0] if args else unknown()
            return replace(inner, var=True, origin=f"the mutable value at line {expr.lineno}", const=NOTHING)
        kind = api.api_kind(qualified)
        if qualified.startswith("mindspore.ops.") or qualified.startswith("mindspore.numpy.") or \
                _mint_function(qualified, name):
            if kind is api.ApiKind.PRIMITIVE:
                return const(OBJECT)  # a primitive or functional-loop object: called later
            if name in api.TUPLE_RESULT_OPS:
                return _tensors(origin or line_origin)
            return variable(TENSOR, origin or line_origin)
        if kind is api.ApiKind.CELL:
            return const(CELL)
        if qualified in ("mindspore.float32", "mindspore.int32"):
            return const(DTYPE)
        if top == "numpy" and qualified.count(".") == 1 and name in api.NUMPY_ARRAY_MAKERS:
            return Value(frozenset({NUMPY}), any_var, origin)
        if top in api.HOST_MODULES:
            if any_var:
                return unknown(True, origin)
            return unknown()
        return self._project_call(qualified, expr, any_var, origin)

    @staticmethod
    def _built_by_fallback(qualified: str, expr, args) -> Value | None:
        """`Tensor(t)` of a run-time Tensor or NumPy array, no dtype: the lax level builds it in the interpreter
        (JIT fallback), and what it gives has no shape or dtype type inference knows (measured with MindSpore 2.10:
        `nn.LayerNorm` of it, or of a graph Tensor multiplied by it, fails with "negative dimensions are not
        allowed"; alone or in arithmetic it runs). With a dtype the outcome varied between runs (`nn.LayerNorm` of
        it ran, and once failed with a kernel error), so that form is not taken for the interpreter's. A copy of an
        object the interpreter holds (`dataclasses.replace(state, ...)`) is made there too."""
        if qualified in _OBJECT_COPIES and args and args[0].var and args[0].interpreted_as(OBJECT):
            # (`dataclasses.replace(state, ...)` of an object the interpreter holds: it makes another there)
            return Value(frozenset({OBJECT}), True, args[0].origin, interpreted=True)
        if not (qualified in api.TENSOR_CONSTRUCTORS and len(expr.args) == 1 and not expr.keywords
                and not isinstance(expr.args[0], nodes.Starred) and args[0].var and args[0].kinds & {TENSOR, NUMPY}):
            return None
        shown = expr.as_string()
        return Value(frozenset({TENSOR}), True, f"`{shown if len(shown) <= 40 else shown[:37] + '...'}` at line "
                     f"{expr.lineno}", interpreted=True)

    def _project_call(self, qualified: str, expr, any_var: bool, origin: str) -> Value:
        """A call of a project class or function named by its import: a Cell, or a helper's summary."""
        resolved = self.analysis.project.resolve_qualified(qualified)
        if resolved is not None and resolved.kind == "class" and self.analysis.project.is_cell(resolved.node):
            return const(CELL)
        if resolved is not None and resolved.kind == "function":
            # An imported project helper (`from .utils import helper`): its summary, like a local one's.
            summary = self._helper_summary(expr)
            if summary is not None:
                return summary
        return unknown(any_var, origin)

    def _builtin_call(self, name, expr, args, any_var, origin, element) -> Value | None:
        if name == "isinstance" and len(expr.args) == 2 and args:
            return const(BOOL, _isinstance_result(args[0], expr.args[1]))
        if name in api.BUILTIN_CONSTANT_RESULTS:
            if name == "len" and args and args[0].items is not None:
                return const(INT, len(args[0].items))
            if name == "len" and args and args[0].var and not args[0].may_be(TENSOR) and args[0].items is None:
                return const(INT)
            return const(api.BUILTIN_CONSTANT_RESULTS[name])
        if name in api.BUILTIN_NUMERIC_RESULTS:
            return _numeric_builtin(name, args, any_var, origin)
        if name == "range":
            return _range_value(args, any_var, origin)
        if name in ("tuple", "list"):
            inner = args[0] if args else const(TUPLE, ())
            kind = TUPLE if name == "tuple" else LIST
            return Value(frozenset({kind}), inner.var, inner.origin, inner.items)
        if name in api.ITERATOR_BUILTINS:
            return Value(frozenset({OBJECT}), any_var, origin)
        if name == "dict":
            # (with a run-time value the JIT fallback builds it: an object only the interpreter holds, measured)
            return Value(frozenset({DICT}), any_var, f"`dict(...)` at line {expr.lineno}" if any_var else origin,
                         interpreted=any_var)
        if name == "print":
            return const(NONE, None)
        if name == "super":
            return const(OBJECT)
        return None

    def _binop(self, left: Value, right: Value, op: str) -> Value:
        var = left.var or right.var
        origin = left.origin if left.var else right.origin
        if left.may_be(TENSOR) or right.may_be(TENSOR):
            if var or left.is_tensor or right.is_tensor:
                return variable(TENSOR, origin or left.origin or right.origin)
        sequence = _sequence_binop(left, right, op)
        if sequence is not None:
            return sequence
        if (left.is_(NUMPY) or right.is_(NUMPY)) and not (left.kinds | right.kinds) - SCALARS - {NUMPY}:
            return Value(frozenset({NUMPY}), var, origin)  # arithmetic on an ndarray (and numbers) is one
        known = _folded(left, right, op) if not var else NOTHING
        if known is not NOTHING:
            return of_python(known) if isinstance(known, (int, float, str, bool)) else const(UNKNOWN)
        plain = SCALARS | {STR, TUPLE, LIST}
        if left.bottom or right.bottom or (left.kinds | right.kinds) - plain:
            return Value(frozenset({UNKNOWN}), var, origin)  # an operand of unknown kind: so is the result
        return Value(left.kinds | right.kinds, var, origin)

    def _compare(self, expr: nodes.Compare, element) -> Value:
        left = self.eval(expr.left, element)
        values = [left] + [self.eval(right, element) for _, right in expr.ops]
        operators = [op for op, _ in expr.ops]
        if all(op in ("is", "is not") for op in operators):
            # Identity is decided while compiling: `x is None` is a constant even for a Tensor x.
            return const(BOOL, _identity_result(operators, values))
        var_values = [v for v in values if v.var]
        if var_values and all(op in ("==", "!=") for op in operators) and any(
                v.is_(STR) and v.known for v in values):
            # `arg == "train"`: the other side is a Python string (a Tensor cannot equal a str), so the
            # argument is a compile-time constant, not the Tensor a bare positional parameter is assumed to be.
            return const(BOOL)
        if var_values:
            kind = TENSOR if any(v.may_be(TENSOR) for v in values) else BOOL
            return Value(frozenset({kind}), True, var_values[0].origin)
        known = NOTHING
        if all(v.known for v in values) and all(op in COMPARES for op in operators):
            try:
                known = all(COMPARES[op](a.const, b.const) for op, a, b in zip(operators, values, values[1:]))
            except Exception:  # noqa: BLE001
                known = NOTHING
        return const(BOOL, known)

    def _subscript(self, expr: nodes.Subscript, element) -> Value:
        base = self.eval(expr.value, element)
        index = self.eval(expr.slice, element) if not isinstance(expr.slice, nodes.Slice) else None
        if base.may_be(TENSOR) and not base.kinds - {TENSOR, NONE}:
            origin = base.origin or (index.origin if index is not None and index.var else "")
            # A slice is a new Tensor in graph code: `y = x[0]; y += 1` leaves x unchanged in GRAPH_MODE
            # (measured, MindSpore 2.10), unlike `y = x; y += 1`. So it shares no storage: no alias.
            # (the data decides the first axis only: an integer there picks one row, of a known shape)
            data_shaped = base.data_shaped and not _first_index_is_int(expr.slice) \
                or self._selects_by_data(expr.slice, element)
            return replace(variable(TENSOR, origin), sliced_to=self._runtime_slice(expr, base, element),
                           data_shaped=data_shaped)
        if base.kinds <= {UNKNOWN} and base.var and not isinstance(expr.slice, nodes.Slice) \
                and _mask_expression(expr.slice, self.cfg):
            # indexed by a boolean mask: a Tensor (or an array) graph code could not see, rows the data selects
            return replace(variable(TENSOR, base.origin), data_shaped=True)
        if base.items is not None:
            return _item_of(expr, base, index)
        entry = self._entry_read(expr, base, index)
        if entry is not None:
            return entry
        element = self._element_read(expr, base)
        if element is not None:
            return element
        if base.is_(TUPLE) and not base.var:
            return const(INT) if index is not None else const(TUPLE)
        return unknown(base.var or (index is not None and index.var), base.origin or (index.origin if index else ""))

    def _element_read(self, expr: nodes.Subscript, base: Value) -> Value | None:
        """An element of a sequence (a slice of it: the sequence) or a value of a dict comprehension, whichever
        index, where the container says what each of its elements is."""
        if base.each is not None and base.kinds <= {TUPLE, LIST}:
            return replace(base, const=NOTHING) if isinstance(expr.slice, nodes.Slice) else base.each
        if base.each is not None and base.kinds == {DICT} and not self._changed_in_place(expr.value):
            return base.each  # (a dict comprehension's value, whichever key)
        return None

    def _entry_read(self, expr: nodes.Subscript, base: Value, index: Value | None) -> Value | None:
        """``d["mask"]`` of a dict with constant keys the function does not change in place: that key's value."""
        if base.entries is None or index is None or not index.known or self._changed_in_place(expr.value):
            return None
        return entry_of(base, index.const)

    def _selects_by_data(self, index, element) -> bool:
        """An index whose selection the data decides: a boolean mask (a comparison of Tensors, `~`/`&`/`|` of
        masks, a name bound to one), or an index Tensor of data-decided length."""
        parts = index.elts if isinstance(index, nodes.Tuple) else [index]
        for part in parts:
            if isinstance(part, nodes.Slice):
                continue
            value = self.eval(part, element)
            if not value.may_be(TENSOR):
                continue
            if value.data_shaped or _mask_expression(part, self.cfg):
                return True
        return False

    def _runtime_slice(self, expr: nodes.Subscript, base: Value, element) -> str:
        """``expr`` as text when it slices a Tensor this graph computed to a length only known at run time (a bound
        computed in this graph, not a parameter merely assumed to be a Tensor), else ""."""
        if not (isinstance(expr.slice, nodes.Slice) and base.var and self.computed_in_graph(expr.value)):
            return ""
        for bound in (expr.slice.lower, expr.slice.upper):
            value = self.eval(bound, element) if bound is not None else None
            if value is not None and value.var and value.kinds and value.kinds <= {INT, TENSOR} \
                    and self.computed_in_graph(bound):
                return expr.as_string()
        return ""


def _first_index_is_int(index) -> bool:
    """``r[0]``, ``r[0, 0]``: the first axis indexed by an integer constant."""
    first = index.elts[0] if isinstance(index, nodes.Tuple) and index.elts else index
    return isinstance(first, nodes.Const) and type(first.value) is int


_DICT_CHANGERS = frozenset({"update", "setdefault", "pop", "popitem", "clear"})


def _cells_only(project, targets: list | None) -> list | None:
    """``targets`` when each is a MindSpore layer's name or a project Cell class (one that only subclasses a
    MindSpore layer stands for that layer), else None."""
    if not targets:
        return None
    cells = []
    for target in targets:
        if isinstance(target, str) and api.is_layer_class_name(target):
            cells.append(target)
        elif isinstance(target, nodes.ClassDef) and project.is_cell(target):
            cells.append(project.mindspore_layer_base(target) or target)
        else:
            return None
    return cells


def _added_items(method: str, args: list) -> tuple | None:
    """The values a list method adds (None: how many is not known)."""
    if method == "append" and len(args) == 1:
        return (args[0],)
    if method == "insert" and len(args) == 2:
        return (args[1],)
    if method == "extend" and len(args) == 1:
        return args[0].items
    return ()


def _resized_items(call, method: str, items, added):
    """The items a list has after ``call`` (None where their number is not known)."""
    if method == "clear":
        return ()
    if method in ("pop", "remove"):
        return items[:-1] if items and method == "pop" and not call.args else None
    if added is None or items is None:
        return None
    if method == "insert":
        position = call.args[0].value if isinstance(call.args[0], nodes.Const) else None
        if not isinstance(position, int) or isinstance(position, bool) or position < 0:
            return None
        return items[:position] + added + items[position:]
    return items + added


def _bound_target(target, name: str):
    """The AssignName of ``name`` in a comprehension's target (``c`` in ``i, c``), or None."""
    for node in target.nodes_of_class(nodes.AssignName):
        if node.name == name:
            return node
    return None


def _tensor_method(expr: nodes.Call, method: str, owner: Value, any_var: bool, origin: str) -> Value:
    """What ``t.method(...)`` gives, ``t`` a Tensor."""
    if method in api.TENSOR_CONST_METHODS:
        if owner.data_shaped and method in api.TENSOR_SHAPE_METHODS:  # `numel()` of a masked read
            return Value(frozenset({api.TENSOR_CONST_METHODS[method]}), True, owner.origin or origin)
        return const(api.TENSOR_CONST_METHODS[method])
    if method in api.MASKED_SELECT_OPS | api.NONZERO_OPS | api.UNIQUE_OPS:
        return replace(variable(TENSOR, owner.origin or origin), data_shaped=True)
    if method in api.HOST_METHODS:
        return _host_copy(api.HOST_METHODS[method], owner.var or any_var, owner.origin or origin)
    if method in api.TUPLE_RESULT_OPS and not (method in api.PAIRED_ONLY_WITH_DIM and not any(
            k.arg == "dim" for k in expr.keywords or ())):
        # Tensor.max()/min() give (values, indices) in graph code only with `dim=` (see the table).
        return _tensors(owner.origin or origin)
    reduced = method in api.FULL_REDUCTIONS and not expr.args and not expr.keywords  # (one element: a known shape)
    return replace(variable(TENSOR, owner.origin or origin), data_shaped=owner.data_shaped and not reduced)


def _item_of(expr: nodes.Subscript, base: Value, index: Value | None) -> Value:
    """``seq[i]`` or ``seq[a:b]`` of a tuple or list whose items are known."""
    if index is not None and index.known and isinstance(index.const, int) and not isinstance(index.const, bool):
        if -len(base.items) <= index.const < len(base.items):
            return base.items[index.const]
    if isinstance(expr.slice, nodes.Slice):
        return Value(base.kinds, base.var, base.origin, each=element_value_of(base))
    if not base.items:
        return unknown()
    if index is not None and index.var:  # which element only the run decides
        return replace(join(*base.items), var=True, const=NOTHING, origin=base.origin or index.origin)
    return join(*base.items)


def _not_none(value: Value) -> Value:
    return replace(value, kinds=value.kinds - {NONE}) if value.kinds - {NONE} else value


def _guarded_not_none(read: nodes.Attribute, func) -> bool:
    """``self.gamma_ * x`` under ``if self.gamma_ is not None:`` (or in the ``else`` of ``is None``, an ``IfExp``
    alike): each Cell instance is compiled with its own attribute, so the test is decided while compiling and the
    read never sees None."""
    text = read.as_string()
    child, node = read, read.parent
    while node is not None and node is not func:
        if isinstance(node, (nodes.If, nodes.IfExp)) and child is not node.test:
            test = node.test
            if isinstance(test, nodes.Compare) and len(test.ops) == 1 and test.left.as_string() == text \
                    and isinstance(test.ops[0][1], nodes.Const) and test.ops[0][1].value is None:
                operator = test.ops[0][0]
                in_body = child in node.body if isinstance(node, nodes.If) else child is node.body
                if (operator == "is not") == in_body and operator in ("is", "is not"):
                    return True
        child, node = node, node.parent
    return False


def _metadata(name: str) -> Value:
    """A Tensor's ``shape``, ``ndim``, ``dtype``...: a constant of the graph; a shape's items are ints."""
    found = const(api.TENSOR_CONST_ATTRIBUTES[name])
    return replace(found, each=const(INT)) if found.kinds == {TUPLE} else found


def _tensor_attribute(expr: nodes.Attribute, owner: Value, name: str) -> Value:
    """``t.name``, ``t`` a Tensor: its shape (decided by the data for a data-shaped one), a view, or a method."""
    if owner.data_shaped and name in ("shape", "size"):  # decided by the data: a run-time value
        origin = f"the shape of `{expr.expr.as_string()}`, which the data decides"
        found = Value(frozenset({api.TENSOR_CONST_ATTRIBUTES[name]}), True, origin)
        return replace(found, each=variable(INT, origin)) if name == "shape" else found
    if name in api.TENSOR_CONST_ATTRIBUTES:
        return _metadata(name)
    if name in api.TENSOR_VIEW_ATTRIBUTES:
        return variable(TENSOR, owner.origin, alias=owner.alias)
    if not (isinstance(expr.parent, nodes.Call) and expr.parent.func is expr):
        found = torch_habits.attribute_habit(name)
        if found is not None and found.verdict == "falls back":
            # `x.device`: the interpreter reads it (measured), and what it gives is the interpreter's object
            return Value(frozenset({OBJECT}), True, f"`{expr.as_string()}` at line {expr.lineno}", interpreted=True)
    return Value(frozenset({FUNCTION}), owner.var, owner.origin)


def _mask_expression(expr, cfg, depth: int = 0) -> bool:
    """``expr`` is a boolean mask by its form: a comparison (not `is`/`in`), `~m`, `a & b`, `a | b`, or a name
    whose every reaching definition is one."""
    if depth > 4:
        return False
    if isinstance(expr, nodes.Compare):
        return all(op not in ("is", "is not", "in", "not in") for op, _ in expr.ops)
    if isinstance(expr, nodes.UnaryOp) and expr.op == "~":
        return _mask_expression(expr.operand, cfg, depth + 1)
    if isinstance(expr, nodes.BinOp) and expr.op in ("&", "|"):
        return _mask_expression(expr.left, cfg, depth + 1) or _mask_expression(expr.right, cfg, depth + 1)
    if isinstance(expr, nodes.Name):
        element = cfg.element_of(expr)
        definitions = cfg.reaching(element, expr.name) if element is not None else []
        return bool(definitions) and all(d.kind == "assign" and d.value is not None
                                         and _mask_expression(d.value, cfg, depth + 1) for d in definitions)
    return False


def _decorator_name(decorator) -> str:
    node = decorator.func if isinstance(decorator, nodes.Call) else decorator
    return node.attrname if isinstance(node, nodes.Attribute) else node.name if isinstance(node, nodes.Name) else ""


# Standard-library modules graph code runs only in the interpreter (see python_on_runtime).
_INTERPRETED_MODULES = ("itertools.", "collections.", "heapq.", "functools.")
# Python's copies of an object, with fields changed or not
_OBJECT_COPIES = frozenset({"dataclasses.replace", "copy.copy", "copy.deepcopy"})


def _host_copy(kind: str, var: bool, origin: str) -> Value:
    """What ``t.item()`` / ``t.tolist()`` / ``t.asnumpy()`` give: a Python scalar of the Tensor's dtype (of a
    kind the dtype decides), a list of such scalars (or of lists, for a Tensor of rank 2 or more), an array."""
    if kind == UNKNOWN:  # `.item()`
        return Value(SCALARS, var, origin if var else "")
    if kind == LIST:
        return Value(frozenset({LIST}), var, origin if var else "",
                     each=Value(SCALARS | {LIST}, var, origin if var else ""), interpreted=True)
    return Value(frozenset({kind}), var, origin if var else "")


def _tensors(origin: str) -> Value:
    """A tuple of run-time Tensors whose length the analysis does not count (``x.split(n)``, ``ops.unique``)."""
    return Value(frozenset({TUPLE}), True, origin, each=variable(TENSOR, origin))


def _iterated(value: Value) -> Value:
    """The value a loop over ``value`` binds: a row of a Tensor, an element of a sequence, else unknown."""
    if value.is_tensor:
        return variable(TENSOR, value.origin)
    if value.is_(DICT):
        return unknown()  # a key: graph code refuses a dict whose keys are run-time values
    found = element_value_of(value)
    return found if found is not None else unknown(value.var, value.origin)


def _numeric_builtin(name: str, args: list, any_var: bool, origin: str) -> Value:
    """`int(...)`, `abs(...)`, `max(...)` ...: a runtime value of their kind (a Tensor for one of a Tensor), or the
    number folded from constant arguments."""
    kind = api.BUILTIN_NUMERIC_RESULTS[name]
    elements = [a.each for a in args if a.each is not None and name in ("sum", "min", "max") and len(args) == 1]
    if elements and elements[0].may_be(TENSOR):  # `sum(x * i for i in range(3))`: of Tensors, a Tensor
        return Value(frozenset({TENSOR}), True, elements[0].origin or origin)
    if any_var:
        tensor_in = any(a.may_be(TENSOR) for a in args)
        if kind == UNKNOWN:
            kind = TENSOR if tensor_in else UNKNOWN
        return Value(frozenset({kind}), True, origin)
    known = NOTHING
    if all(a.known for a in args) and name in ("int", "float", "bool", "abs", "min", "max", "round"):
        try:
            known = __builtins__[name](*(a.const for a in args)) if isinstance(__builtins__, dict) \
                else getattr(__builtins__, name)(*(a.const for a in args))
        except Exception:  # noqa: BLE001
            known = NOTHING
    if kind == UNKNOWN:
        kind = type(known).__name__ if known is not NOTHING and type(known).__name__ in SCALARS else UNKNOWN
    return Value(frozenset({kind}), False, "", None, known)


def _range_value(args: list, any_var: bool, origin: str) -> Value:
    """`range(...)`: its length when its arguments are int constants."""
    if any_var:
        return Value(frozenset({RANGE}), True, origin)
    known = NOTHING
    if args and all(a.known and isinstance(a.const, int) for a in args):
        try:
            known = len(range(*(a.const for a in args)))
        except (TypeError, ValueError):
            known = NOTHING
    return Value(frozenset({RANGE}), False, "", None, known)


def _folded(left: Value, right: Value, op: str) -> object:
    """``left op right`` of two constants (NOTHING when unknown, failing, or beyond 10**12)."""
    if not (left.known and right.known and op in BINOPS):
        return NOTHING
    try:
        known = BINOPS[op](left.const, right.const)
    except Exception:  # noqa: BLE001
        return NOTHING
    return NOTHING if isinstance(known, (int, float)) and abs(known) > 10**12 else known


def _exact_binop(op: str, left: int | None, right: int | None) -> int | None:
    """``left op right`` of two ints, exactly, within :meth:`FunctionValues.exact_int`'s bounds (None beyond)."""
    if left is None or right is None or (op in ("**", "<<") and not 0 <= right <= 4096) \
            or (op == "**" and left.bit_length() * right > 1 << 16) or (op in ("//", "%") and right == 0):
        return None
    result = _EXACT_INT_OPS[op](left, right)
    return result if result.bit_length() <= 1 << 16 else None


def _identity_result(operators: list, values: list) -> object:
    """True / False where `a is None` / `a is not None` is decided by the kinds of the two sides, else NOTHING."""
    if len(operators) != 1:
        return NOTHING
    a, b = values
    if a.is_(NONE) and b.is_(NONE):
        return operators[0] == "is"
    if (a.is_(NONE) and b.kinds and NONE not in b.kinds and UNKNOWN not in b.kinds) or \
            (b.is_(NONE) and a.kinds and NONE not in a.kinds and UNKNOWN not in a.kinds):
        return operators[0] == "is not"
    return NOTHING


def _isinstance_result(value: Value, classes) -> object:
    """True / False where the kind of ``value`` decides ``isinstance(value, classes)`` (type inference folds it:
    the other branch is never compiled), else NOTHING."""
    if len(value.kinds) != 1 or value.kinds & {UNKNOWN, OBJECT, CELL, CLASS, FUNCTION, MODULE, UNDEFINED}:
        return NOTHING
    names = classes.elts if isinstance(classes, nodes.Tuple) else [classes]
    passing = set()
    for name in names:
        text = name.name if isinstance(name, nodes.Name) else name.attrname if isinstance(name, nodes.Attribute) \
            else None
        kinds = api.ISINSTANCE_KINDS.get(text) if text is not None else None
        if kinds is None:
            return NOTHING
        passing |= kinds
    return bool(value.kinds & passing)


def _qualified_constant(qualified: str) -> Value:
    name = qualified.rsplit(".", 1)[-1]
    if qualified.startswith("mindspore.") and name in api.DTYPE_CONSTANTS:
        return const(DTYPE)
    if qualified in api.MATH_CONSTANTS:
        return const(FLOAT)
    return unknown()


def _target_position(statement, target) -> int | None:
    for candidate in getattr(statement, "targets", [getattr(statement, "target", None)]):
        position = _flat_position(candidate, target)
        if position is not None:
            return position
    return None


def _mint_function(qualified: str, name: str) -> bool:
    """A function of `mindspore.mint` (`mint.eye`, `mint.nn.functional.relu`): it computes a Tensor, as `ops`
    functions do; not a class (`mint.nn.Linear`) nor the process-group queries of `mint.distributed`."""
    return qualified.startswith("mindspore.mint.") and not qualified.startswith("mindspore.mint.distributed.") \
        and name[:1].islower()


def _rooted_at(expr, name: str | None) -> bool:
    """``expr`` is the name ``name`` or an attribute chain on it (``self``, ``self.block.attn``)."""
    while isinstance(expr, nodes.Attribute):
        expr = expr.expr
    return name is not None and isinstance(expr, nodes.Name) and expr.name == name


def _field_of_interpreted(owner: Value) -> bool:
    """A field read of ``owner`` reads an object the interpreter holds (also where the value may be a tuple
    instead, or None: neither has fields)."""
    return owner.var and owner.interpreted_as(OBJECT) and owner.kinds <= {OBJECT, TUPLE, NONE}


def _sequence_binop(left: Value, right: Value, op: str) -> Value | None:
    """Tuples concatenated; `[None] * n` (or `n * (0,)`): the same kind of sequence, its items repeated where
    ``n`` is known, else of unknown length with every element one of the items. None for other operands."""
    if left.is_(TUPLE) and right.is_(TUPLE) and op == "+":
        items = left.items + right.items if left.items is not None and right.items is not None else None
        return Value(frozenset({TUPLE}), left.var or right.var, left.origin if left.var else right.origin, items)
    if op != "*":
        return None
    for sequence, count in ((left, right), (right, left)):
        if (sequence.is_(LIST) or sequence.is_(TUPLE)) and sequence.items is not None and count.is_(INT):
            var = sequence.var or count.var
            origin = sequence.origin if sequence.var else count.origin
            times = count.const if count.known and not count.var and isinstance(count.const, int) else None
            if times is not None and 0 <= times * len(sequence.items) <= 4096:
                return Value(sequence.kinds, var, origin, sequence.items * times)
            return Value(sequence.kinds, var, origin, each=join(*sequence.items) if sequence.items else None)
    return None


def _flat_position(target_tuple, target) -> int | None:
    if isinstance(target_tuple, (nodes.Tuple, nodes.List)):
        for index, element in enumerate(target_tuple.elts):
            if element is target:
                return index
    return None


def _bound_in(target, bound, value: Value) -> Value:
    """What unpacking ``value`` into ``target`` binds to the name ``bound`` inside it."""
    if target is bound:
        return value
    if isinstance(target, (nodes.Tuple, nodes.List)):
        for index, part in enumerate(target.elts):
            if part is bound or is_within(bound, part):
                if value.items is not None and len(value.items) == len(target.elts):
                    return _bound_in(part, bound, value.items[index])
                if value.each is not None:
                    return _bound_in(part, bound, value.each)
                break
    return unknown(value.var, value.origin)
