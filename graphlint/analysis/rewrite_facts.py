"""What a rewrite that merges values must know: do two values select element-wise into what either gives?

The select form of a Tensor `if` (`ops.where(cond, a, b)`, what AutoGraph's if_exp converter writes as
`tf.where` for element-wise conditions) computes both values and picks one. It gives what the `if` gives only
when both are Tensors of the same dtype and the same shape: `ops.where` broadcasts shapes and promotes dtypes
(an int32 branch against a float32 one comes back float32 on both paths; a 0-d Tensor against an (n, m) one
comes back (n, m)). MindSpore's own join under a Tensor condition is stricter about dtypes and looser about
shapes (:mod:`graphlint.analysis.joins`), so a merge is accepted here only when the shapes and dtypes are
*proven* equal, or equal under a stated assumption ("`x` is a floating-point Tensor").

Dtypes (a concrete name such as ``"float32"``; ``("of", root)``: the dtype of a root value; ``("float", d)``:
``d`` if floating, else float32, what `x * 0.5` or `x / y` give) and shapes (``("like", root)``: the shape of a
root value; ``("0d",)``; ``("keepdims", s)``: a reduction of a value of shape ``s`` with its axes kept, which
broadcasts back to ``s``) are followed through element-wise arithmetic, comparisons, casts, element-wise ops
and full reductions. A *root* is a parameter, a Parameter attribute, or a definition whose value is not
followed (a sub-Cell's output): two values computed from the same roots the same element-wise way agree.

Also here: which assignments cannot raise (a `try` around them has nothing to catch), which calls only compute (so evaluating a branch that is not taken changes nothing), which are
costly (a sub-Cell), and which expressions are *total* (cannot produce inf/NaN where the input is finite: the
unselected branch of `ops.where` still flows into gradients, so `ops.where(c, ops.sqrt(x), 0)` differentiates
to NaN where `x < 0`).
"""

from __future__ import annotations

from dataclasses import dataclass, field

from astroid import nodes

from graphlint.analysis import api, shape_algebra, signatures
from graphlint.analysis.joins import mismatch
from graphlint.analysis.kinds import BOOL, CELL, FLOAT, INT, LIST, NONE, TENSOR, TUPLE
from graphlint.analysis.provenance import locally_bound, side_effect
from graphlint.analysis.random_draws import drawn_by
from graphlint.analysis.scope import function_reference
from graphlint.analysis.tree import literal, nodes_of_class

FLOAT_DTYPES = frozenset({"float16", "float32", "float64", "bfloat16"})

# Element-wise ops (``mindspore.ops.<name>``) that keep shape and dtype, and are total on finite input.
TOTAL_ELEMENTWISE_OPS = frozenset({"relu", "relu6", "abs", "neg", "tanh", "sigmoid", "maximum", "minimum",
                                   "clip_by_value", "clamp", "clip", "zeros_like", "ones_like", "stop_gradient",
                                   "identity", "square", "sign", "floor", "ceil", "round", "hardtanh", "where",
                                   "select", "softsign", "hardsigmoid", "hardswish", "silu", "gelu", "erf",
                                   "full_like"})  # full_like(t, number): t's shape and dtype
# ... that keep shape and dtype but may give inf/NaN for some finite inputs.
PARTIAL_ELEMENTWISE_OPS = frozenset({"exp", "log", "sqrt", "rsqrt", "reciprocal", "pow", "log1p", "expm1", "div",
                                     "tan", "atan2", "softplus", "elu", "mish", "acos", "asin"})
TOTAL_METHODS = frozenset({"abs", "clip", "clamp", "neg", "tanh", "sigmoid", "relu", "square", "floor", "ceil",
                           "round", "sign"})
PARTIAL_METHODS = frozenset({"exp", "log", "sqrt", "rsqrt", "reciprocal", "pow"})
# Full reductions (no axis): a 0-d Tensor; "mean" of an integer Tensor is a float.
REDUCTIONS = frozenset({"sum", "mean", "max", "min", "prod", "amax", "amin", "all", "any", "norm"})
# Tensor methods whose reduction over an axis is one Tensor of the full reduction's dtype (`x.max(axis)` and
# `ops.max(x, axis)` also give indices in some releases, so they stay out); with `keepdims=True` the result
# broadcasts back to the input's shape.
AXIS_REDUCTION_METHODS = {"sum": "sum", "mean": "mean", "var": "mean", "std": "mean", "prod": "prod",
                          "amax": "max", "amin": "min", "all": "all", "any": "any"}
AXIS_REDUCTION_OPS = {"reduce_sum": "sum", "reduce_mean": "mean", "reduce_max": "max", "reduce_min": "min",
                      "reduce_prod": "prod", "mean": "mean", "sum": "sum", "amax": "max", "amin": "min",
                      "var": "mean", "std": "mean"}
_KEEPDIMS = ("keepdims", "keep_dims", "keepdim")
REDUCTION_OPS = {"reduce_sum": "sum", "reduce_mean": "mean", "reduce_max": "max", "reduce_min": "min",
                 "reduce_prod": "prod", "sum": "sum", "mean": "mean", "amax": "max", "amin": "min", "prod": "prod",
                 "all": "all", "any": "any"}
BOOL_REDUCTIONS = frozenset({"all", "any"})
JOINING_OPS = frozenset({"concat", "cat", "stack", "hstack", "vstack"})  # (a tuple of Tensors, joined)
# operations whose result's shape shape_algebra computes, by the name of the function or Tensor method (mint's
# `transpose(x, d0, d1)` and `swapaxes` swap two axes; ops' and a Tensor's `transpose` take a permutation)
SHAPE_FORMS = {"reshape": "reshape", "view": "reshape", "transpose": "permute", "permute": "permute",
               "swapaxes": "swap", "swapdims": "swap", "squeeze": "squeeze", "unsqueeze": "unsqueeze",
               "expand_dims": "unsqueeze", "flatten": "flatten", "stack": "stack", "concat": "concat",
               "cat": "concat", "matmul": "matmul", "bmm": "matmul", "mean": "reduce", "sum": "reduce",
               "amax": "reduce", "amin": "reduce", "prod": "reduce", "ones": "dims", "zeros": "dims",
               "rand": "dims", "randn": "dims", "empty": "dims"}
# Primitives that are an arithmetic operator on two operands (`self.mul(attn, self.scale)`)
PRIMITIVE_ARITHMETIC = {"mindspore.ops.Mul": "*", "mindspore.ops.Add": "+", "mindspore.ops.Sub": "-",
                        "mindspore.ops.RealDiv": "/", "mindspore.ops.Div": "/"}
DIM_ARITHMETIC = frozenset({"+", "-", "*", "//"})  # (`c // self.num_heads` in a shape)
# Primitives (made without arguments: they take none that change the shape) that compute as these functions
PRIMITIVE_SHAPE_FORMS = {"mindspore.ops.Reshape": "reshape", "mindspore.ops.Transpose": "transpose",
                         "mindspore.ops.ExpandDims": "expand_dims"}
# what the integer arguments of a measured operation may be (a permutation, a shape, an axis)
INTEGER_ARGUMENTS = frozenset({INT, BOOL, TUPLE, LIST, NONE})
_ARITHMETIC = frozenset({"+", "-", "*", "/", "//", "%", "**"})
# ops / mint functions that are an arithmetic operator on two operands
ARITHMETIC_OPS = {"add": "+", "sub": "-", "subtract": "-", "mul": "*", "multiply": "*", "div": "/", "divide": "/",
                  "true_divide": "/", "floor_divide": "//"}


@dataclass(frozen=True)
class Side:
    """One value a merge takes: an expression, or the value a name holds before a statement (``element``)."""

    expr: nodes.NodeNG | None = None
    name: str = ""
    element: object = None

    @property
    def text(self) -> str:
        return f"`{self.expr.as_string()}`" if self.expr is not None else f"`{self.name}` as it was"


@dataclass
class Merge:
    """Whether values can be selected element-wise: ``problem`` (why not) or the ``assumptions`` it rests on
    (empty: proven)."""

    problem: str = ""
    assumptions: list[str] = field(default_factory=list)

    @property
    def ok(self) -> bool:
        return not self.problem


class TensorFacts:
    """Dtypes and shapes of the Tensors of one graph function, for rewrites (memoised)."""

    def __init__(self, values):
        self.values = values
        self._dtypes: dict[int, object] = {}
        self._shapes: dict[int, object] = {}
        # Loop-carried names (`x = blk(x)` over a CellList): their definitions read what is being found. As the
        # compiler's join at a loop head, the fact of the other definitions is assumed for them and checked
        # once the outermost question is answered; an assumption that fails is not made again.
        self._cycle = False  # a question met one it is answering
        self._active = 0
        self._assumed: list = []  # (definition, tag, fact assumed)
        self._refused: set = set()  # (definition index, tag): assumptions that failed
        self._tentative: list = []  # (memo, key) found from a value being found

    # -- merging -----------------------------------------------------------------------------------------
    def merge(self, sides: list[Side], returned: bool = False) -> Merge:
        """Can ``ops.where`` select among ``sides`` (nested for more than two) and give what each path gives?"""
        result = Merge()
        for side in sides:
            value = self._value(side)
            if value is None or not value.kinds:
                return Merge(f"cannot tell what {side.text} is")
            if not value.is_tensor:
                kinds = "/".join(sorted(value.kinds))
                if value.kinds <= {INT, FLOAT, BOOL}:
                    return Merge(f"{side.text} is a Python {kinds}, not a Tensor: `ops.where` would return a Tensor")
                return Merge(f"{side.text} is not known to be a Tensor ({kinds})")
        first = sides[0]
        for other in sides[1:]:
            verdict = mismatch(self._join_shape(first), self._join_shape(other), returned)
            if verdict is not None:
                kind, text = verdict
                return Merge(f"the branches join {text or kind}: the checkers report this join")
            problem, assumption = self._same_dtype(first, other)
            if problem:
                return Merge(problem)
            if assumption and assumption not in result.assumptions:
                result.assumptions.append(assumption)
            problem = self._same_shape(first, other)
            if problem:
                return Merge(problem)
        return result

    def condition_problem(self, test) -> str:
        """Why ``ops.where`` cannot take ``test`` as its condition ("" if it can): every operand of its
        ``and``/``or``/``not`` must be a Tensor. A builtin such as ``all(t > 0)`` gives a Python bool in
        PYNATIVE_MODE (only graph mode's fallback makes it a Tensor), and ``ops.where`` refuses a bool."""
        if isinstance(test, nodes.BoolOp):
            return next(filter(None, (self.condition_problem(v) for v in test.values)), "")
        if isinstance(test, nodes.UnaryOp) and test.op == "not":
            return self.condition_problem(test.operand)
        value = self.values.value(test)
        if value is not None and value.is_tensor:
            return ""
        text = test.as_string()
        text = text if len(text) <= 40 else text[:37] + "..."
        if isinstance(test, nodes.Call) and isinstance(test.func, nodes.Name) and test.func.name in BOOL_REDUCTIONS:
            return (f"the condition `{text}` is a Python bool in PYNATIVE_MODE (the builtin `{test.func.name}`): "
                    f"`ops.where` needs a Tensor condition; use `ops.{test.func.name}` or `.{test.func.name}()`")
        return f"the condition `{text}` is not known to be a Tensor: `ops.where` needs one"

    def condition_is_scalar(self, expr) -> bool:
        """The condition is a 0-d Tensor (so `ops.where` does not broadcast it into the result)."""
        return self.shape(expr) == ("0d",)

    def _value(self, side: Side):
        if side.expr is not None:
            return self.values.value(side.expr)
        return self.values.name_at(side.element, side.name)

    def _join_shape(self, side: Side):
        shapes = self.values.shapes
        if side.expr is not None:
            return shapes.expr_shape(side.expr)
        return shapes.definitions_shape(self.values.cfg.reaching(side.element, side.name))

    def side_dtype(self, side: Side):
        return self.dtype(side.expr) if side.expr is not None else self._name_dtype(side.name, side.element, 0)

    def side_shape(self, side: Side):
        return self.shape_fact(side.expr) if side.expr is not None else self._name_shape(side.name, side.element, 0)

    def _same_dtype(self, a: Side, b: Side) -> tuple[str, str]:
        da, db = _normal(self.side_dtype(a)), _normal(self.side_dtype(b))
        if da is None or db is None:
            unknown = a if da is None else b
            return f"cannot tell the dtype of {unknown.text}", ""
        if da == db:
            return "", ""
        if isinstance(da, str) and isinstance(db, str):
            return f"{a.text} is {_dtype_text(da)} and {b.text} is {_dtype_text(db)}: `ops.where` would promote", ""
        for x, y in ((da, db), (db, da)):
            if isinstance(x, tuple) and x[0] == "float" and _normal(x[1]) == y and not isinstance(y, str):
                return "", f"{_root_text(y, self.values)} is a floating-point Tensor"
        return f"cannot tell that {a.text} and {b.text} have the same dtype", ""

    def _same_shape(self, a: Side, b: Side) -> str:
        sa, sb = self.side_shape(a), self.side_shape(b)
        if sa is None or sb is None:
            unknown = a if sa is None else b
            return f"cannot tell the shape of {unknown.text}"
        if sa != sb or _has_choice(sa):  # (one of several shapes: two such may be chosen differently)
            return f"cannot tell that {a.text} and {b.text} have the same shape: `ops.where` would broadcast"
        return ""

    # -- dtypes ------------------------------------------------------------------------------------------
    def dtype(self, expr, depth: int = 0):
        return self._memoised(self._dtypes, self._dtype, expr, depth)

    def _memoised(self, memo: dict, compute, expr, depth):
        key = id(expr)
        if key in memo:
            if memo[key] is _FINDING:
                self._cycle = True
                return None
            return memo[key]
        memo[key] = _FINDING
        outer_cycle, self._cycle = self._cycle, False
        self._active += 1
        try:
            found = compute(expr, depth) if depth < 24 else None
        finally:
            self._active -= 1
        in_cycle = self._cycle
        self._cycle = outer_cycle or in_cycle
        memo[key] = found
        if in_cycle and self._active:
            # found from a value still being found: kept for this question only, found again after it
            self._tentative.append((memo, key))
            return found
        if not self._active:
            for kept, tentative_key in self._tentative:
                if tentative_key != key or kept is not memo:
                    kept.pop(tentative_key, None)
            self._tentative = []
        while not self._active and self._assumed:
            assumed, self._assumed = self._assumed, []
            self._active += 1  # (checking an assumption is part of this question)
            try:
                failed = [(d, tag) for d, tag, fact in assumed
                          if self._definition_fact(d, 0, tag, self.dtype if tag == "of" else self.shape_fact) != fact]
            finally:
                self._active -= 1
            if failed:
                self._refused.update((d.index, tag) for d, tag in failed)
                self._assumed, self._tentative = [], []
                self._dtypes.clear()
                self._shapes.clear()
                return self._memoised(memo, compute, expr, depth)
        return found

    def _dtype(self, expr, depth):
        values = self.values
        if isinstance(expr, nodes.Name):
            return self._name_dtype(expr.name, values.cfg.element_of(expr), depth)
        value = values.value(expr)
        if not value.is_tensor:
            return None
        if isinstance(expr, nodes.Attribute):
            if not self._is_self_attribute(expr):
                return None
            return self._attribute_dtype(expr.attrname) or ("of", ("attr", expr.as_string()))
        if isinstance(expr, nodes.Compare):
            return "bool_"
        if isinstance(expr, nodes.UnaryOp):
            if expr.op == "not":
                return "bool_" if self.dtype(expr.operand, depth + 1) == "bool_" else None
            return self.dtype(expr.operand, depth + 1) if expr.op in ("-", "+", "~") else None
        if isinstance(expr, nodes.BoolOp):
            return "bool_" if all(self.dtype(v, depth + 1) == "bool_" for v in expr.values) else None
        if isinstance(expr, nodes.BinOp):
            return self._binop_dtype(expr, depth)
        if isinstance(expr, nodes.IfExp):
            a, b = self.dtype(expr.body, depth + 1), self.dtype(expr.orelse, depth + 1)
            if a is None or b is None:
                return None
            # (`self.se(x) if self.se is not None else x`: decided per instance; on a run-time condition, a select
            # of two Tensors that must share a dtype)
            return a if a == b else _either({a, b})
        if isinstance(expr, nodes.Subscript):
            if values.value(expr.value).is_tensor:
                return self.dtype(expr.value, depth + 1)
            return self._element_fact(expr.value, depth, self.dtype)
        if isinstance(expr, nodes.Call):
            return self._call_dtype(expr, depth)
        return None

    def _element_fact(self, container, depth, of):
        """The dtype or shape (``of``) every element of a tuple, list or dict shares (``items[0]``, ``weights[2]``
        of ``{i: x * i for i in range(3)}``): the one fact of its displayed elements, a comprehension's element,
        what ``append`` adds; a slice of it has its elements. None when they differ, are not all seen, or there are
        none."""
        found = self._elements_fact(container, depth, of, frozenset())
        return None if found is _NO_ELEMENTS else found

    def _elements_fact(self, container, depth, of, seen: frozenset):
        if depth > 24:
            return None
        if isinstance(container, (nodes.List, nodes.Tuple)):
            elements = list(container.elts)
        elif isinstance(container, nodes.Dict):
            elements = [value for _key, value in container.items]
        elif isinstance(container, (nodes.ListComp, nodes.GeneratorExp)):
            elements = [container.elt]
        elif isinstance(container, nodes.DictComp):
            elements = [container.value]
        elif isinstance(container, nodes.Subscript) and isinstance(container.slice, nodes.Slice):
            return self._elements_fact(container.value, depth + 1, of, seen)
        elif isinstance(container, nodes.Name) and id(container) not in seen:
            return self._name_element_fact(container, depth, of, seen | {id(container)})
        else:
            return None
        if not elements:
            return _NO_ELEMENTS  # (`parts = []`: what is appended to it decides)
        if any(isinstance(e, (nodes.Starred, nodes.DictUnpack)) for e in elements):
            return None
        facts = {of(element, depth + 1) for element in elements}
        return facts.pop() if len(facts) == 1 and None not in facts else None

    def _name_element_fact(self, name: nodes.Name, depth, of, seen):
        """:meth:`_element_fact` of a name: what its assignments hold and what is appended to it."""
        values = self.values
        element = values.cfg.element_of(name)
        definitions = values.cfg.reaching(element, name.name) if element is not None else []
        if not definitions or any(d.kind != "assign" or d.value is None or not isinstance(d.node, nodes.AssignName)
                                  or not isinstance(d.node.parent, nodes.Assign) for d in definitions):
            return None
        facts = {self._elements_fact(d.value, depth + 1, of, seen) for d in definitions}
        for call in nodes_of_class(values.func, nodes.Call):  # (`parts.append(x * i)`: what it adds)
            func = call.func
            if isinstance(func, nodes.Attribute) and isinstance(func.expr, nodes.Name) \
                    and func.expr.name == name.name and func.attrname in ("append", "insert", "extend"):
                if func.attrname != "append" or len(call.args) != 1:
                    return None
                facts.add(of(call.args[0], depth + 1))
        if facts == {_NO_ELEMENTS}:
            return _NO_ELEMENTS
        facts.discard(_NO_ELEMENTS)
        return facts.pop() if len(facts) == 1 and None not in facts else None

    def _attribute_dtype(self, name: str) -> str | None:
        """The dtype of the Parameter ``self.name`` where ``__init__`` states it (``Parameter(Tensor(a, ms.float32))``,
        ``Parameter(initializer(init, shape, ms.float16))``; None set on other paths gives nothing), or float32 for
        one the MindSpore layer the class subclasses makes, unless its constructor is given a dtype."""
        values = self.values
        cls = values.cls
        if cls is None:
            return None
        analysis = values.analysis
        assignments = analysis.attribute_assignments(cls).get(name)
        if not assignments:
            layer = analysis.project.inherited_layer(cls)
            if not api.layer_makes_parameter(layer, name):
                return None
            return None if _layer_given_dtype(cls) else "float32"
        found = set()
        for value, method in assignments:
            if method.name != "__init__":
                return None
            info = analysis.project.info(method.root())
            for made in (value.body, value.orelse) if isinstance(value, nodes.IfExp) else (value,):
                if not (isinstance(made, nodes.Const) and made.value is None):
                    found.add(self._parameter_dtype(made, info))
        return found.pop() if len(found) == 1 and None not in found else None

    def _parameter_dtype(self, value, info) -> str | None:
        if not (isinstance(value, nodes.Call) and info.imports.qualify(value.func) == api.PARAMETER and value.args):
            return None
        made = value.args[0]
        if not isinstance(made, nodes.Call):
            return None
        qualified = info.imports.qualify(made.func) or ""
        position = 1 if qualified in api.TENSOR_CONSTRUCTORS else 2 if qualified.endswith(".initializer") else None
        if position is None:
            return None
        stated = made.args[position] if len(made.args) > position else \
            next((k.value for k in made.keywords or () if k.arg == "dtype"), None)
        if stated is None:
            return "float32" if position == 2 else None  # (initializer's default; a Tensor of a NumPy array varies)
        qualified = info.imports.qualify(stated)
        dtype = api.DTYPE_ALIASES.get(qualified.rsplit(".", 1)[-1], qualified.rsplit(".", 1)[-1]) \
            if qualified and qualified.startswith("mindspore.") else None
        return dtype if dtype in api.DTYPE_NAMES else None

    def _name_dtype(self, name, element, depth):
        return self._name_fact(name, element, depth, "of", self.dtype)

    def _name_fact(self, name, element, depth, tag: str, of_expression):
        """The dtype (``tag`` "of") or shape ("like") of ``name`` where ``element`` reads it: what its one
        assignment computes (``of_expression``), else that of the root value it is (a parameter, a definition
        not followed, or the definitions that reach it together)."""
        if element is None:
            return None
        definitions = self.values.reaching(element, name)  # (not those of branches type inference drops)
        if not definitions:
            return None
        if len(definitions) > 1:
            # the definitions that reach the read: one fact when each gives the same (the compiler's join)
            facts, carried = set(), []
            outer_cycle = self._cycle
            for definition in definitions:
                self._cycle = False
                fact = self._definition_fact(definition, depth, tag, of_expression)
                if self._cycle and (definition.index, tag) not in self._refused:
                    carried.append(definition)  # (reads the name's own value around a loop)
                else:
                    facts.add(fact)
            self._cycle = outer_cycle or bool(carried)
            if len(facts) == 1 and None not in facts:
                fact = facts.pop()
                self._assumed.extend((definition, tag, fact) for definition in carried)
                return fact
            if tag == "of" and not carried and None not in facts and len(facts) <= 4 \
                    and not any((d.index, tag) in self._refused for d in definitions):
                # (`if self.gamma is not None: y = self.gamma * y`: decided while compiling each instance, so
                # one of these; in a context where they are one dtype, that one. Not a loop's carry, whose
                # assumption failed: its steps join.)
                return ("either",) + tuple(sorted(facts, key=repr))
            return (tag, ("defs", frozenset(d.index for d in definitions)))
        return self._definition_fact(definitions[0], depth, tag, of_expression)

    def _definition_fact(self, definition, depth, tag: str, of_expression):
        if depth > 24:
            return None
        if definition.kind == "param":
            return (tag, ("param", definition.name))
        if definition.kind == "assign" and definition.value is not None and isinstance(definition.node, nodes.AssignName) \
                and isinstance(definition.node.parent, nodes.Assign):
            found = of_expression(definition.value, depth + 1)
            if found is not None:
                return found
        if definition.kind == "assign" and isinstance(definition.node, nodes.AssignName) \
                and isinstance(definition.node.parent, nodes.Tuple):
            found = self._unpacked_fact(definition, depth, tag)
            if found is not None:
                return found
        if definition.kind == "augassign" and isinstance(definition.node, nodes.AssignName) \
                and isinstance(definition.node.parent, nodes.AugAssign):
            found = self._augmented_fact(definition, depth, tag, of_expression)
            if found is not None:
                return found
        value = self.values.def_values.get(definition.index)
        return (tag, ("def", definition.index)) if value is not None and value.is_tensor else None

    def _augmented_fact(self, definition, depth, tag: str, of_expression):
        """``out += identity``: the fact of the name before it, when the operand keeps it (a Tensor of the same
        fact, or a Python int; a Python float keeps a floating dtype)."""
        statement = definition.node.parent
        if statement.op not in ("+=", "-=", "*="):
            return None
        before = self._name_fact(definition.name, definition.element, depth + 1, tag, of_expression)
        if before is None or before[1:2] and isinstance(before, tuple) and before[0] == tag \
                and before[1][0] in ("defs", "def"):
            return None
        operand = self.values.value(statement.value)
        if operand.is_tensor:
            return before if of_expression(statement.value, depth + 1) == before else None
        if operand.is_(INT) or tag == "like" and operand.kinds and operand.kinds <= {INT, FLOAT, BOOL}:
            return before
        return None

    def _binop_dtype(self, expr, depth):
        if expr.op == "@":  # (two Tensors of one dtype: that dtype, as `matmul`'s measured rule)
            found = {self.dtype(expr.left, depth + 1), self.dtype(expr.right, depth + 1)}
            return found.pop() if len(found) == 1 else None
        return self._arithmetic_dtype(expr.left, expr.op, expr.right, depth)

    def _arithmetic_dtype(self, left_expr, op: str, right_expr, depth):
        """The dtype of ``left op right`` (``a * b``, ``ops.mul(a, b)``)."""
        values = self.values
        left, right = values.value(left_expr), values.value(right_expr)
        if op not in _ARITHMETIC and op not in ("&", "|", "^"):
            return None
        if left.is_tensor and right.is_tensor:
            a, b = _normal(self.dtype(left_expr, depth + 1)), _normal(self.dtype(right_expr, depth + 1))
            if a is None or b is None:
                return None
            if a != b:
                # a float Tensor with one of the dtype it is computed from: float either way (the floating one
                # wins over an integer, and is that same dtype for a floating one)
                for x, y in ((a, b), (b, a)):
                    if isinstance(x, tuple) and x[0] == "float" and x[1] == y:
                        return x
                a = _normal(("promote", a, b))  # (MindSpore's implicit conversion of two Tensors)
                if a is None:
                    return None
            return _normal(("float", a)) if op == "/" else a
        tensor, other = (left_expr, right) if left.is_tensor else (right_expr, left) if right.is_tensor else (None, None)
        if tensor is None:
            return None
        base = self.dtype(tensor, depth + 1)
        if base is None:
            return None
        if other.is_(FLOAT) or op == "/":
            return _normal(("float", base))
        if other.is_(INT) or other.is_(BOOL):
            return None if base == "bool_" else base
        return None

    def _call_dtype(self, expr, depth, each: bool = False):
        """The dtype of what a call gives; ``each``: of each item of the tuple it gives (measured rules only)."""
        values = self.values
        func = expr.func
        qualified = self._qualified(func)
        args = expr.args
        if each:
            return self._measured_call_dtype(expr, qualified, depth, each=True)
        if qualified in api.CAST_OPS and len(args) >= 2:
            return self._dtype_constant(args[1])
        if isinstance(func, nodes.Call) and self._qualified(func.func) in api.CAST_OPS and len(args) >= 2:
            return self._dtype_constant(args[1])
        if qualified in api.CREATION_DEFAULT_DTYPES:
            return self._created_dtype(qualified, expr)
        op = qualified.rsplit(".", 1)[-1] if qualified and qualified.startswith(api.OPS_NAMESPACES) else None
        if op is not None:
            return self._op_dtype(op, expr, depth) or self._measured_call_dtype(expr, qualified, depth)
        if isinstance(func, nodes.Attribute) and qualified is None and values.value(func.expr).is_tensor:
            return self._method_dtype(func.attrname, expr, depth) or self._measured_call_dtype(expr, None, depth)
        if qualified in api.TENSOR_CONSTRUCTORS:
            return self._constructed_dtype(expr)
        primitive = self._primitive_called(expr)
        if primitive in PRIMITIVE_ARITHMETIC and len(args) == 2 and not expr.keywords:
            return self._arithmetic_dtype(args[0], PRIMITIVE_ARITHMETIC[primitive], args[1], depth)
        if primitive is not None:
            return self._primitive_result_fact(expr, None, depth, "dtype") or \
                self._measured_call_dtype(expr, None, depth)
        return self._cell_call_fact(expr, depth, "dtype") or self._function_call_fact(expr, depth, "dtype") \
            or self._folded_elements_fact(expr, depth, self.dtype)

    def _measured_call_dtype(self, call, qualified, depth, each: bool = False):
        """The dtype of a call (of each item it gives, ``each``) of an ``ops``/``mint`` function, a Tensor method
        or a Primitive instance whose rule was measured (generated.op_dtypes)."""
        func = call.func
        if qualified is not None and qualified.startswith(api.OPS_NAMESPACES):
            return self._measured_dtype(api.measured_dtype_rule("function", qualified), list(call.args), call, depth,
                                        each)
        if isinstance(func, nodes.Attribute) and qualified is None and self.values.value(func.expr).is_tensor:
            return self._measured_dtype(api.measured_dtype_rule("method", func.attrname), [func.expr, *call.args],
                                        call, depth, each)
        primitive = self._primitive_called(call)
        if primitive is not None:
            return self._measured_dtype(api.measured_dtype_rule("primitive", primitive), list(call.args), call,
                                        depth, each)
        return None

    def _measured_dtype(self, measured, inputs: list, call, depth, each: bool = False):
        """The dtype of a call of an operation whose rule was measured: ``inputs`` (the receiver first, for a
        method) in the form measured, Tensors then integer arguments, all positional."""
        if measured is None or call.keywords or any(isinstance(a, nodes.Starred) for a in inputs):
            return None
        rule, tensors, extras = measured
        if rule.startswith("each ") != each:
            return None
        rule = rule.removeprefix("each ")
        if len(inputs) < tensors + extras:  # (more integer arguments, an axis, do not change the dtype)
            return None
        values = self.values
        if not all(values.value(a).is_tensor for a in inputs[:tensors]) or \
                not all(values.value(a).kinds and values.value(a).kinds <= INTEGER_ARGUMENTS for a in inputs[tensors:]):
            return None
        if rule not in ("like", "floating"):
            return rule
        found = {self.dtype(a, depth + 1) for a in inputs[:tensors]}
        if None in found:
            return None
        # (inputs of several dtypes do not type-check: where the call compiles they are one, a stated one if any)
        stated = {f for f in found if isinstance(f, str)}
        base = stated.pop() if len(stated) == 1 else _either(found) if not stated else None
        if base is None:
            return None
        return base if rule == "like" else _normal(("float", base))

    def _constructed_dtype(self, call):
        """``Tensor(x, ms.float16)``, ``Tensor(1.0)``: the dtype passed, else that of a Python constant."""
        args = call.args
        dtype_arg = args[1] if len(args) > 1 else next((k.value for k in call.keywords or () if k.arg == "dtype"),
                                                       None)
        if dtype_arg is not None:
            return self._dtype_constant(dtype_arg)
        if args and isinstance(args[0], nodes.Const):
            constant = args[0].value
            return "bool_" if isinstance(constant, bool) else "int64" if isinstance(constant, int) else \
                "float32" if isinstance(constant, float) else None
        return None

    def _created_dtype(self, function: str, call):
        """``ops.ones(shape)``, ``mint.zeros(2, 3)``, ``np.ones(shape, ms.float16)``: the dtype passed, else the one
        measured without it."""
        stated = next((k.value for k in call.keywords or () if k.arg == "dtype"), None)
        if stated is None and len(call.args) == 2 and not function.startswith("mindspore.mint."):
            stated = call.args[1]  # (`ops.ones(shape, dtype)`: mint takes the sizes as varargs)
        if stated is not None:
            return self._dtype_constant(stated)
        if len(call.args) > 1 and not function.startswith("mindspore.mint.") or call.keywords:
            return None
        return api.CREATION_DEFAULT_DTYPES[function]

    # -- through Primitives ----------------------------------------------------------------------------
    def _primitive_result_fact(self, call, item, depth, what: str):
        """The dtype or shape of a Primitive instance's result (``self.layer_norm(x, g, b)``, ``ops.Softmax()(x)``;
        ``item`` of a tuple result, None for a Tensor) where its documentation gives it an input's."""
        primitive = self._primitive_called(call)
        position = api.primitive_result_input(primitive, item, what) if primitive else None
        args = call.args
        if position is None or position >= len(args) or any(isinstance(a, nodes.Starred) for a in args[:position + 1]):
            return None
        return (self.dtype if what == "dtype" else self.shape_fact)(args[position], depth + 1)

    def _primitive_called(self, call) -> str | None:
        """``mindspore.ops.LayerNorm`` for a call of an instance of it (:meth:`FunctionValues.primitive_called`),
        one made in place only when the class is a Primitive."""
        primitive = self.values.primitive_called(call)
        if isinstance(call.func, nodes.Call):
            return primitive if api.api_kind(primitive) is api.ApiKind.PRIMITIVE else None
        return primitive

    def _unpacked_fact(self, definition, depth, tag: str):
        """``y, _, _ = self.layer_norm(x, g, b)``: the fact of the tuple's item the name is bound to."""
        target = definition.node.parent
        statement = target.parent
        if not isinstance(target, nodes.Tuple) or not isinstance(statement, nodes.Assign) \
                or any(isinstance(e, nodes.Starred) for e in target.elts):
            return None
        if isinstance(statement.value, (nodes.Tuple, nodes.List)) and len(statement.value.elts) == len(target.elts):
            # (`q, k = self.q_norm(q), self.k_norm(k)`: each name the fact of its own expression)
            item = statement.value.elts[target.elts.index(definition.node)]
            return self.dtype(item, depth + 1) if tag == "of" else self.shape_fact(item, depth + 1)
        if not isinstance(statement.value, nodes.Call):
            return None
        return self._primitive_result_fact(statement.value, target.elts.index(definition.node), depth,
                                           "dtype" if tag == "of" else "shape") or \
            (self._call_dtype(statement.value, depth + 1, each=True) if tag == "of" else None)

    # -- through Cells ---------------------------------------------------------------------------------
    def _cell_call_fact(self, call, depth, what: str):
        """The dtype or shape of what a call of a Cell gives, in this function's terms: for a project Cell, the
        fact of its ``construct``'s returns with its parameters replaced by this call's arguments (each call
        its own context, as the compiler specialises ``construct`` per call); for a MindSpore layer, the
        measured result: what ``Identity`` is given, else the input's dtype (float32 in, float32 out: a layer's
        Parameters must match its input for it to compile; integer ids to ``Embedding``, float32 out) and no
        shape. None when the Cells disagree."""
        targets = self.values.cell_targets(call)
        if not targets:
            return None
        facts = set()
        for target in targets:
            fact = self._layer_fact(target, call, depth, what) if isinstance(target, str) else \
                self._construct_fact(target, call, depth, what)
            if fact is None:
                return None
            facts.add(fact)
        # (`DropPath(p) if p > 0 else nn.Identity()`: each instance compiles its own, so one of theirs)
        return _either(facts)

    def _layer_fact(self, layer: str, call, depth, what: str):
        name = layer.rsplit(".", 1)[-1]
        if len(call.args) != 1 or call.keywords or isinstance(call.args[0], nodes.Starred):
            return None
        of = self.dtype if what == "dtype" else self.shape_fact
        if name == "Identity" or what == "shape" and name in api.SHAPE_KEEPING_LAYERS:
            return of(call.args[0], depth + 1)
        if what == "shape" and name in api.LAYER_CONSTRUCTORS:
            return self._constructed_layer_shape(name, call, depth)
        if what != "dtype" or api.api_kind(layer) is not api.ApiKind.CELL or name in api.NN_CONTAINER_CELLS \
                or name in api.NN_TUPLE_RESULT_LAYERS:
            return None
        if name in api.NN_INDEX_INPUT_LAYERS:
            return "float32"  # (integer ids in, its float32 table's rows out)
        return self.dtype(call.args[0], depth + 1)

    def _constructed_layer_shape(self, name: str, call, depth):
        """The shape a convolution, pooling, Dense or Flatten layer held on ``self`` gives, from its one
        construction in the class (``self.conv = nn.Conv2d(c, 64, 3, stride=2, pad_mode="pad", padding=1)``): the
        literal arguments it is made with, and else the output size and window its weight's shape has
        (``self.conv.weight``, the instance's own where the call runs)."""
        base = self.shape_fact(call.args[0], depth + 1)
        bound = self._layer_construction(name, call.func)
        if base is None or bound is None:
            return None
        if name == "Flatten":
            start, end = bound.get("start_dim"), bound.get("end_dim")
            return ("flatten", base, start, end) if isinstance(start, int) and isinstance(end, int) else None
        weight = ("like", ("attr", f"{call.func.as_string()}.weight"))
        out = bound.get("out_channels")
        out = out if isinstance(out, int) else ("dim", weight, 0)
        if name == "Dense":
            return ("dense", base, out)
        spatial = 2 if name.endswith("2d") else 1
        kernel = bound.get("kernel_size")
        if name.startswith("Conv"):
            if bound.get("data_format", "NCHW") != "NCHW":
                return None  # (groups change the weight's input axis only)
            kernel = kernel if kernel is not None else tuple(("dim", weight, 2 + i) for i in range(spatial))
        fields = (kernel, bound.get("stride"), bound.get("pad_mode"), bound.get("padding"),
                  bound.get("dilation", 1), bool(bound.get("ceil_mode", False)))
        if any(f is None for f in fields):
            return None
        return ("window", base, spatial, out if name.startswith("Conv") else None, *fields)

    def _layer_construction(self, name: str, held) -> dict | None:
        """``{parameter: value}`` of the one construction of the layer ``self.<attr>`` (``held``) holds: a
        literal or arithmetic of them, the literal default where none is passed; None for a value not known."""
        values = self.values
        if not self._is_held_cell(held):
            return None
        made = [value for value, _method in values.analysis.attribute_assignments(values.cls).get(
            held.attrname, ()) if isinstance(value, nodes.Call)]
        if len(made) != 1 or any(isinstance(a, nodes.Starred) for a in made[0].args):
            return None
        construction = made[0]
        if self._qualified(construction.func) != f"mindspore.nn.{name}":
            return None
        signature = api.LAYER_CONSTRUCTORS[name]
        given = dict(zip((p for p, _ in signature), construction.args))
        given.update({k.arg: k.value for k in construction.keywords or () if k.arg})
        bound = {}
        for parameter, default in signature:
            bound[parameter] = self._construction_value(given[parameter]) if parameter in given else default
        return bound

    def _construction_value(self, expr, depth: int = 0):
        """A constructor argument's value: a literal, or arithmetic of literal ints. (A constructor parameter stays
        unknown: the constructions the analysis sees are not all of them when the class is handed on as a value,
        `ResNet(BasicBlock, ...)` building `block(c, stride=s)`.)"""
        written = literal(expr)
        if written is not None:
            found = written[0]
            return tuple(found) if isinstance(found, list) else found
        if depth > 4 or not (isinstance(expr, nodes.BinOp) and expr.op in DIM_ARITHMETIC):
            return None
        a, b = (self._construction_value(e, depth + 1) for e in (expr.left, expr.right))
        return shape_algebra.dimension(("arith", expr.op, a, b))

    def _folded_elements_fact(self, call, depth, of):
        """``sum(x * i for i in range(3))``, ``max(losses)``: the builtin folds Tensors that share one dtype and
        shape into one of them (``sum`` adds them to 0, a Python int)."""
        func = call.func
        if not (isinstance(func, nodes.Name) and func.name in ("sum", "max", "min") and len(call.args) == 1
                and not call.keywords and func.name not in self.values.cfg.defs_by_name):
            return None
        return self._element_fact(call.args[0], depth, of)

    def _function_call_fact(self, call, depth, what: str):
        """The dtype or shape of what a call of a project function or method gives (``scale(x)``,
        ``self.combine(x, y)``, a function nested in graph code): its returns' fact with its parameters replaced
        by this call's arguments, as the compiler specialises the function for each call."""
        values = self.values
        target = function_reference(values.analysis.project, values.info, call.func, values.cls)
        if target is None or target[0].name == "__init__":
            return None
        return self._returned_fact(target[0], target[1], call, depth, what)

    def _construct_fact(self, cls, call, depth, what: str):
        found = self.values.analysis.project.find_method(cls, "construct")
        return self._returned_fact(found[0], found[1], call, depth, what) if found is not None else None

    def _returned_fact(self, func, owner, call, depth, what: str):
        """What ``func``'s returns (a method of ``owner``, or a function) have in common, in the caller's terms."""
        analysis = self.values.analysis
        graph = analysis.graph_of(func)
        if graph is None or id(graph.node) in _SPECIALISING:
            return None
        _SPECIALISING.add(id(graph.node))
        try:
            callee_values = analysis.values(graph)
            if callee_values is None or not callee_values.cfg.returns:
                return None
            callee = tensor_facts(callee_values)
            of = callee.dtype if what == "dtype" else callee.shape_fact
            facts = {of(element.node.value) if element.node.value is not None else None
                     for element in callee_values.cfg.returns}
        finally:
            _SPECIALISING.discard(id(graph.node))
        if None in facts or not facts:
            return None
        # (returns of different facts: the one of them each call compiles, `return x` or `return x * mask`)
        return self._in_caller_terms(facts.pop() if len(facts) == 1 else _either(facts), graph.node, owner, call,
                                     depth, what)

    def _in_caller_terms(self, fact, func, owner, call, depth, what: str):
        """A fact of ``func`` (relative to its parameters) for this call: its parameters are the call's
        arguments."""
        if fact is None or isinstance(fact, str) or fact == ("0d",):
            return fact
        if fact[0] == "float" and len(fact) == 2:
            inner = self._in_caller_terms(fact[1], func, owner, call, depth, what)
            return _normal(("float", inner)) if inner is not None else None
        if fact[0] == "keepdims" and len(fact) == 2:
            inner = self._in_caller_terms(fact[1], func, owner, call, depth, what)
            return ("keepdims", inner) if inner is not None else None
        if fact[0] in ("promote", "either", "broadcast"):
            return self._combined_in_caller_terms(fact, func, owner, call, depth, what)
        if fact[0] in ("of", "like") and isinstance(fact[1], tuple) and fact[1][0] == "param":
            argument = signatures.argument_for(func, owner, call, fact[1][1])
            if argument is None:
                return None
            return self.dtype(argument, depth + 1) if what == "dtype" else self.shape_fact(argument, depth + 1)
        if fact[0] == "like" and isinstance(fact[1], tuple) and fact[1][0] == "attr" and what == "shape":
            return self._attribute_in_caller_terms(fact[1][1], func, call)
        if what == "shape" and fact[0] in shape_algebra.OPERATION_NAMES:
            return self._operation_in_caller_terms(fact, func, owner, call, depth)
        return None

    def _attribute_in_caller_terms(self, name: str, func, call):
        """``self.conv.weight`` of the Cell ``self.block(x)`` calls: ``self.block.conv.weight`` here."""
        receiver = signatures.receiver_name(func, None) if func.is_method() else None
        held = call.func
        if receiver is None or not name.startswith(f"{receiver}.") or not self._is_held_cell(held):
            return None
        return ("like", ("attr", f"{held.as_string()}{name[len(receiver):]}"))

    def _is_held_cell(self, func) -> bool:
        """``func`` is ``self.<attribute>`` of this function's own Cell."""
        return isinstance(func, nodes.Attribute) and isinstance(func.expr, nodes.Name) \
            and func.expr.name == self.values.self_name and self.values.cls is not None

    def _operation_in_caller_terms(self, fact, func, owner, call, depth):
        """A shape the callee computes (``("window", ("like", ("param", "x")), ...)``), each shape in it in the
        caller's terms; the other fields (axes, sizes, dims of its own shapes) as they are."""
        parts = [fact[0]]
        for part in fact[1:]:
            if _is_shape_fact(part):
                part = self._in_caller_terms(part, func, owner, call, depth, "shape")
            elif isinstance(part, tuple) and part[:1] in (("dim",), ("arith",)):
                part = self._dim_in_caller_terms(part, func, owner, call, depth)
            elif isinstance(part, tuple) and any(isinstance(p, tuple) and p[:1] in (("dim",), ("arith",))
                                                 for p in part):
                part = tuple(self._dim_in_caller_terms(p, func, owner, call, depth) for p in part)
                part = None if None in part else part
            if part is None:
                return None
            parts.append(part)
        return tuple(parts)

    def _dim_in_caller_terms(self, dim, func, owner, call, depth):
        if not isinstance(dim, tuple):
            return dim
        if dim[0] == "dim":
            base = self._in_caller_terms(dim[1], func, owner, call, depth, "shape")
            return ("dim", base, dim[2]) if base is not None else None
        if dim[0] == "arith":
            a, b = (self._dim_in_caller_terms(d, func, owner, call, depth) for d in dim[2:])
            return ("arith", dim[1], a, b) if a is not None and b is not None else None
        return dim

    def _combined_in_caller_terms(self, fact, func, owner, call, depth, what: str):
        """A promotion, broadcast or choice of facts of ``func``, each in the caller's terms."""
        found = [self._in_caller_terms(f, func, owner, call, depth, what) for f in fact[1:]]
        if None in found:
            return None
        if fact[0] == "promote":
            return _normal(("promote",) + tuple(found))
        if fact[0] == "broadcast":
            return _broadcast_of(set(found))
        distinct = set(found)
        return distinct.pop() if len(distinct) == 1 else _either(distinct)

    def _op_dtype(self, op: str, expr, depth):
        """The dtype of an ``ops`` / ``mint`` / ``numpy`` function's result."""
        args = expr.args
        if op in api.BOOL_RESULT_OPS:
            return "bool_"
        if op in ("where", "select") and len(args) == 3:
            return self._selected_dtype(args[1:], depth)
        if op in ("maximum", "minimum") and len(args) == 2:
            return self._maximum_dtype(args, depth)
        if op in ARITHMETIC_OPS and len(args) == 2 and not expr.keywords:
            return self._arithmetic_dtype(args[0], ARITHMETIC_OPS[op], args[1], depth)
        if op in JOINING_OPS and args:
            return self._joined_dtype(args[0], depth)
        if op in REDUCTION_OPS and _full_reduction(expr, first_arg=True):
            return self._reduction_dtype(REDUCTION_OPS[op], args[0], depth)
        if op in AXIS_REDUCTION_OPS and args:
            return self._reduction_dtype(AXIS_REDUCTION_OPS[op], args[0], depth)
        if op == "full_like" and (len(args) != 2 or expr.keywords):
            return None  # a dtype= of its own
        if (op in TOTAL_ELEMENTWISE_OPS or op in PARTIAL_ELEMENTWISE_OPS or op in api.SAME_DTYPE_OPS) and args:
            return self._elementwise_dtype(op, args[0], depth)
        return None

    def _selected_dtype(self, choices, depth):
        """``ops.where(c, a, b)``: ``a`` and ``b`` of one dtype, or a Tensor and a Python number (as ``x * 1.0``)."""
        if not all(self.values.value(a).is_tensor for a in choices):
            return self._maximum_dtype(choices, depth)
        a, b = self.dtype(choices[0], depth + 1), self.dtype(choices[1], depth + 1)
        return a if a is not None and _normal(a) == _normal(b) else None

    def _elementwise_dtype(self, op: str, operand, depth):
        base = self.dtype(operand, depth + 1)
        if op in ("exp", "log", "sqrt", "rsqrt", "reciprocal", "sigmoid", "tanh", "log1p", "expm1", "gelu", "silu",
                  "erf", "softplus"):
            return _normal(("float", base)) if base is not None else None
        return base

    def _joined_dtype(self, tensors, depth):
        """``ops.concat((a, b))``: Tensors of one dtype joined have that dtype."""
        if not isinstance(tensors, (nodes.Tuple, nodes.List)) or not tensors.elts:
            return None
        found = {_normal(self.dtype(element, depth + 1)) for element in tensors.elts}
        return found.pop() if len(found) == 1 and None not in found else None

    def _method_dtype(self, method: str, expr, depth):
        """The dtype of a Tensor method's result."""
        args, receiver = expr.args, expr.func.expr
        if method in api.CAST_METHODS and args:
            return self._dtype_constant(args[0])
        if method in api.CASTING_METHODS:
            return api.CASTING_METHODS[method]
        if method in REDUCTIONS and _full_reduction(expr, first_arg=False):
            return self._reduction_dtype(method, receiver, depth)
        if method in AXIS_REDUCTION_METHODS:
            return self._reduction_dtype(AXIS_REDUCTION_METHODS[method], receiver, depth)
        if method in TOTAL_METHODS or method in PARTIAL_METHODS or method in api.SAME_DTYPE_METHODS:
            base = self.dtype(receiver, depth + 1)
            if method in ("exp", "log", "sqrt", "rsqrt", "reciprocal", "sigmoid", "tanh"):
                return _normal(("float", base)) if base is not None else None
            return base
        return None

    def _maximum_dtype(self, args, depth):
        """``ops.maximum(a, b)``: two Tensors of one dtype, or a Tensor and a Python number (as ``a * 1.0``)."""
        values = self.values
        tensors = [a for a in args if values.value(a).is_tensor]
        if len(tensors) == 2:
            a, b = self.dtype(args[0], depth + 1), self.dtype(args[1], depth + 1)
            return a if a is not None and _normal(a) == _normal(b) else None
        if len(tensors) != 1:
            return None
        other = values.value(args[1] if tensors[0] is args[0] else args[0])
        base = self.dtype(tensors[0], depth + 1)
        if base is None or base == "bool_":
            return None
        if other.is_(FLOAT):
            return _normal(("float", base))
        return base if other.is_(INT) else None

    def _reduction_dtype(self, kind, operand, depth):
        base = self.dtype(operand, depth + 1)
        if kind in BOOL_REDUCTIONS:
            return "bool_"
        if base is None or base == "bool_":
            return None
        return _normal(("float", base)) if kind in ("mean", "norm") else base

    def _dtype_constant(self, expr):
        """The dtype ``expr`` names: ``ms.float16``, or ``t.dtype`` of a Tensor (that Tensor's dtype fact)."""
        if isinstance(expr, nodes.Attribute) and expr.attrname == "dtype" and self.values.value(expr.expr).is_tensor:
            return self.dtype(expr.expr)
        qualified = self.values.imports.qualify(expr)
        if not qualified or not qualified.startswith("mindspore."):
            return None
        dtype = qualified.rsplit(".", 1)[-1]
        dtype = api.DTYPE_ALIASES.get(dtype, dtype)
        return dtype if dtype in api.DTYPE_NAMES else None

    # -- shapes ------------------------------------------------------------------------------------------
    def shape(self, expr, depth: int = 0):
        """The shape fact of ``expr`` where it is one shape, not a choice of several: what a rewrite may rely on
        (two choices alike may be chosen differently)."""
        found = self.shape_fact(expr, depth)
        return None if _has_choice(found) else found

    def shape_fact(self, expr, depth: int = 0):
        """The shape fact of ``expr``, a choice of several included (``("either", ...)``)."""
        return self._memoised(self._shapes, self._shape, expr, depth)

    def _shape(self, expr, depth):
        values = self.values
        if isinstance(expr, nodes.Name):
            return self._name_shape(expr.name, values.cfg.element_of(expr), depth)
        value = values.value(expr)
        if not value.is_tensor:
            return None
        if isinstance(expr, nodes.Attribute):
            return ("like", ("attr", expr.as_string())) if self._is_self_attribute(expr) else None
        if isinstance(expr, nodes.UnaryOp):
            return self.shape_fact(expr.operand, depth + 1) if expr.op in ("-", "+", "~", "not") else None
        if isinstance(expr, nodes.BinOp):
            if expr.op == "@":
                return self._joined_shape("matmul", [expr.left, expr.right], depth)
            return self._broadcast([expr.left, expr.right], depth)
        if isinstance(expr, nodes.Subscript) and values.value(expr.value).is_tensor:
            return self._indexed_shape(expr, depth)
        if isinstance(expr, nodes.Compare):
            return self._broadcast([expr.left] + [right for _, right in expr.ops], depth)
        if isinstance(expr, nodes.IfExp):
            a, b = self.shape_fact(expr.body, depth + 1), self.shape_fact(expr.orelse, depth + 1)
            return None if a is None or b is None else _either((a, b))
        if isinstance(expr, nodes.BoolOp):
            shapes = {self.shape_fact(v, depth + 1) for v in expr.values}
            return shapes.pop() if len(shapes) == 1 else None
        if isinstance(expr, nodes.Subscript) and not values.value(expr.value).is_tensor:
            return self._element_fact(expr.value, depth, self.shape_fact)
        if isinstance(expr, nodes.Call):
            return self._call_shape(expr, depth)
        return None

    def _name_shape(self, name, element, depth):
        return self._name_fact(name, element, depth, "like", self.shape_fact)

    def _broadcast(self, operands, depth):
        """The shape of an element-wise op of ``operands``: Python numbers and 0-d Tensors broadcast away, and so
        does a reduction of ``s`` with its axes kept, against ``s`` itself. Operands of other shapes give
        ``("broadcast", a, b, ...)``: their broadcast, known where theirs are (a call with one shape for both is
        that shape)."""
        shapes = set()
        kept = set()
        zero_d = False
        for operand in operands:
            value = self.values.value(operand)
            if not value.is_tensor:
                if value.kinds and value.kinds <= {INT, FLOAT, BOOL}:
                    continue
                return None
            shape = self.shape_fact(operand, depth + 1)
            if shape is None:
                return None
            if shape == ("0d",):
                zero_d = True
            elif shape[0] == "keepdims":
                kept.add(shape)
            else:
                shapes.add(shape)
        if kept:
            if not shapes:
                # two reductions of `s` may keep different axes: only one of them is known to keep its shape
                return kept.pop() if len(kept) == 1 else None
            return shapes.pop() if len(shapes) == 1 and kept == {("keepdims", next(iter(shapes)))} else None
        if not shapes:
            return ("0d",) if zero_d else None
        return _broadcast_of(shapes)

    def _call_shape(self, expr, depth):
        values = self.values
        func = expr.func
        qualified = self._qualified(func)
        args = expr.args
        if qualified in api.CAST_OPS and args:
            return self.shape_fact(args[0], depth + 1)
        if isinstance(func, nodes.Call) and self._qualified(func.func) in api.CAST_OPS and args:
            return self.shape_fact(args[0], depth + 1)
        op = qualified.rsplit(".", 1)[-1] if qualified and qualified.startswith(api.OPS_NAMESPACES) else None
        if op is not None:
            return self._op_shape(op, expr, depth) or self._computed_shape(qualified, [*args], expr, depth)
        if isinstance(func, nodes.Attribute) and qualified is None and values.value(func.expr).is_tensor:
            return self._method_shape(func.attrname, expr, depth) or \
                self._computed_shape(f"method.{func.attrname}", [func.expr, *args], expr, depth)
        if qualified in api.TENSOR_CONSTRUCTORS and args and isinstance(args[0], nodes.Const) \
                and isinstance(args[0].value, (int, float, bool)):
            return ("0d",)
        primitive = self._primitive_called(expr)
        if primitive is not None:
            return self._primitive_result_fact(expr, None, depth, "shape") or \
                self._computed_shape(PRIMITIVE_SHAPE_FORMS.get(primitive, ""), [*args], expr, depth)
        return self._cell_call_fact(expr, depth, "shape") or self._function_call_fact(expr, depth, "shape") \
            or self._folded_elements_fact(expr, depth, self.shape_fact)

    # -- shapes operations compute (shape_algebra) ---------------------------------------------------------
    def _computed_shape(self, name: str, inputs: list, call, depth):
        """The shape fact of a call that reshapes, permutes, joins, multiplies, reduces or makes a Tensor:
        ``name`` qualified (``mindspore.ops.reshape``), ``method.view`` for a Tensor method (``inputs`` then
        starts with the receiver), the Tensor inputs first."""
        short = name.rsplit(".", 1)[-1]
        form = SHAPE_FORMS.get(short)
        if form is None or any(isinstance(a, nodes.Starred) for a in inputs) or call.keywords and form not in (
                "stack", "concat", "reduce", "flatten", "dims"):
            return None
        if name in api.CREATION_DEFAULT_DTYPES:
            return self._created_shape(inputs, call)
        if form == "matmul":
            return self._joined_shape("matmul", inputs, depth) if len(inputs) == 2 else None
        if form in ("stack", "concat"):
            return self._stacked_shape(form, inputs, call, depth)
        if not inputs:
            return None
        base = self.shape_fact(inputs[0], depth + 1)
        rest = inputs[1:]
        if base is None:
            return None
        if form == "reduce":
            return self._reduced_shape(base, rest, call, name.startswith("method."))
        if form == "flatten":
            return self._flattened_shape(base, rest, call, name)
        return self._rearranged_shape(form, name, base, rest, depth)

    def _created_shape(self, inputs: list, call):
        """``ops.ones((2, 3), ms.float16)``, ``mint.zeros(2, 3)``: the shape given."""
        if any(k.arg != "dtype" for k in call.keywords or ()):
            return None
        given = inputs[:1] if inputs and isinstance(self._constant(inputs[0]) or inputs[0], (tuple, nodes.Tuple,
                                                                                               nodes.List)) \
            else [a for a in inputs if not self._dtype_constant(a)]
        return self._dims_fact(self._shape_arguments(given))

    def _rearranged_shape(self, form: str, name: str, base, rest: list, depth):
        """A reshape, a permutation, a swap of two axes, a squeeze or unsqueeze of ``base``."""
        constants = [self._constant(a) for a in rest]
        short = name.rsplit(".", 1)[-1]
        if form == "reshape":
            if len(rest) == 1 and isinstance(rest[0], nodes.Attribute) and rest[0].attrname == "shape" \
                    and self.values.value(rest[0].expr).is_tensor:
                return self.shape_fact(rest[0].expr, depth + 1)  # (`y.reshape(x.shape)`: x's shape, or no compile)
            dims = self._shape_arguments(rest)
            return ("reshape", base, *dims) if dims and None not in dims else None
        if form == "swap" or short == "transpose" and name.startswith("mindspore.mint."):
            return ("swap", base, *constants) if len(constants) == 2 and None not in constants else None
        if form == "permute":
            perm = constants[0] if len(constants) == 1 and isinstance(constants[0], tuple) else tuple(constants)
            return ("permute", base, perm) if perm and None not in perm else None
        if form in ("squeeze", "unsqueeze"):
            if form == "squeeze" and not constants:
                return ("squeeze", base, None)
            return (form, base, constants[0]) if len(constants) == 1 and isinstance(constants[0], int) else None
        return None

    def _constant(self, expr):
        """An int or a tuple of ints the analysis knows ``expr`` to be, else None."""
        value = self.values.value(expr)
        if not value.known:
            return None
        found = value.const
        if isinstance(found, list):
            found = tuple(found)
        if isinstance(found, int) and not isinstance(found, bool):
            return found
        if isinstance(found, tuple) and all(isinstance(d, int) and not isinstance(d, bool) for d in found):
            return found
        return None

    def _shape_arguments(self, args: list) -> list | None:
        """The dims a shape is given by: one tuple or list (a literal, or one the analysis knows), or the
        dims one by one (``x.view(b, -1)``); each an int or ``("dim", fact, axis)``."""
        if len(args) == 1 and isinstance(args[0], (nodes.Tuple, nodes.List)):
            return [self._dim_fact(e) for e in args[0].elts]
        if len(args) == 1:
            found = self._constant(args[0])
            if isinstance(found, tuple):
                return list(found)
            if isinstance(args[0], nodes.Attribute) and args[0].attrname == "shape" \
                    and self.values.value(args[0].expr).is_tensor:
                base = self.shape_fact(args[0].expr)
                rank = _rank(base)
                return [("dim", base, axis) for axis in range(rank)] if rank is not None else None
        return [self._dim_fact(a) for a in args] if args else None

    def _dim_fact(self, expr, depth: int = 0):
        """One dimension: an int the analysis knows, ``x.shape[i]``, or a name bound to one (``b, n, c = x.shape``)."""
        found = self._constant(expr)
        if isinstance(found, int):
            return found
        if depth > 4:
            return None
        if isinstance(expr, nodes.Subscript) and isinstance(expr.value, nodes.Attribute) \
                and expr.value.attrname == "shape" and self.values.value(expr.value.expr).is_tensor:
            index = self._constant(expr.slice)
            base = self.shape_fact(expr.value.expr)
            return ("dim", base, index) if isinstance(index, int) and base is not None else None
        if isinstance(expr, nodes.BinOp) and expr.op in DIM_ARITHMETIC:
            a, b = self._dim_fact(expr.left, depth + 1), self._dim_fact(expr.right, depth + 1)
            return ("arith", expr.op, a, b) if a is not None and b is not None else None
        return self._name_dim_fact(expr, depth) if isinstance(expr, nodes.Name) else None

    def _name_dim_fact(self, expr: nodes.Name, depth: int):
        """A name's one definition as a dimension: ``n = x.shape[1]``, or ``b, n, c = x.shape``."""
        element = self.values.cfg.element_of(expr)
        definitions = self.values.reaching(element, expr.name) if element is not None else []
        if len(definitions) != 1 or definitions[0].kind != "assign":
            return None
        target = definitions[0].node
        statement = target.parent
        if isinstance(statement, nodes.Assign) and definitions[0].value is not None:
            return self._dim_fact(definitions[0].value, depth + 1)
        if isinstance(statement, nodes.Tuple) and isinstance(statement.parent, nodes.Assign) \
                and isinstance(statement.parent.value, nodes.Attribute) and statement.parent.value.attrname == "shape" \
                and not any(isinstance(e, nodes.Starred) for e in statement.elts) \
                and self.values.value(statement.parent.value.expr).is_tensor:
            base = self.shape_fact(statement.parent.value.expr)
            return ("dim", base, statement.elts.index(target)) if base is not None else None
        return None

    @staticmethod
    def _dims_fact(dims):
        return ("dims", *dims) if dims and None not in dims else None

    def _joined_shape(self, tag: str, operands: list, depth):
        shapes = [self.shape_fact(o, depth + 1) for o in operands]
        return (tag, *shapes) if None not in shapes else None

    def _stacked_shape(self, form: str, inputs: list, call, depth):
        """``ops.stack((a, b), axis)``, ``ops.concat([a, b], 1)``: the Tensors written in the call."""
        if not inputs or not isinstance(inputs[0], (nodes.Tuple, nodes.List)):
            return None
        axis_expr = inputs[1] if len(inputs) > 1 else next(
            (k.value for k in call.keywords or () if k.arg in ("axis", "dim")), None)
        axis = self._constant(axis_expr) if axis_expr is not None else 0
        if not isinstance(axis, int) or any(k.arg not in ("axis", "dim") for k in call.keywords or ()):
            return None
        shapes = [self.shape_fact(e, depth + 1) for e in inputs[0].elts]
        return (form, axis, *shapes) if shapes and None not in shapes else None

    def _reduced_shape(self, base, rest: list, call, method: bool):
        """``x.mean(axis)``, ``ops.sum(x, (1, 2), keepdims=True)``: the axes the analysis knows."""
        keywords = {k.arg: k.value for k in call.keywords or ()}
        axis_expr = rest[0] if rest else keywords.get("axis", keywords.get("dim"))
        keep_expr = rest[1] if len(rest) > 1 else next((keywords[k] for k in _KEEPDIMS if k in keywords), None)
        if len(rest) > 2 or set(keywords) - {"axis", "dim", *_KEEPDIMS}:
            return None
        axes = self._constant(axis_expr) if axis_expr is not None else None
        if axis_expr is not None and axes is None:
            return None
        keep = self.values.value(keep_expr) if keep_expr is not None else None
        if keep is not None and not (keep.known and isinstance(keep.const, bool)):
            return None
        axes = (axes,) if isinstance(axes, int) else axes
        return ("reduce", base, axes, bool(keep.const) if keep is not None else False)

    def _flattened_shape(self, base, rest: list, call, name: str):
        """``x.flatten(1)``, ``mint.flatten(x, 1, -1)``, ``ops.flatten(x)`` (which starts at axis 1)."""
        keywords = {k.arg: k.value for k in call.keywords or ()}
        if set(keywords) - {"start_dim", "end_dim"} or len(rest) > 2:
            return None
        start_default = 1 if name == "mindspore.ops.flatten" else 0
        bounds = [rest[0] if rest else keywords.get("start_dim"), rest[1] if len(rest) > 1 else keywords.get("end_dim")]
        start, end = (self._constant(b) if b is not None else d for b, d in zip(bounds, (start_default, -1)))
        return ("flatten", base, start, end) if isinstance(start, int) and isinstance(end, int) else None

    def _indexed_shape(self, expr, depth):
        """``x[0]``, ``x[:, 1:3]``, ``x[..., None]``: each index an int, a slice or None the analysis knows."""
        base = self.shape_fact(expr.value, depth + 1)
        index = expr.slice
        parts = index.elts if isinstance(index, nodes.Tuple) else [index]
        items = []
        for part in parts:
            if isinstance(part, nodes.Slice):
                bounds = [self._constant(b) if b is not None else None for b in (part.lower, part.upper, part.step)]
                if any(b is None and given is not None for b, given in zip(bounds, (part.lower, part.upper, part.step))):
                    return None
                items.append(("slice", *bounds))
            elif isinstance(part, nodes.Const) and part.value is None:
                items.append("new")
            elif isinstance(part, nodes.Const) and part.value is Ellipsis:
                items.append("...")
            else:
                found = self._constant(part)
                if not isinstance(found, int) or self.values.value(part).is_tensor:
                    return None
                items.append(found)
        return ("index", base, *items) if base is not None else None

    def _op_shape(self, op: str, expr, depth):
        """The shape of an ``ops`` / ``mint`` / ``numpy`` function's result."""
        args = expr.args
        if op in ("where", "select") and len(args) == 3:
            return self._broadcast(list(args), depth)
        if op in ("maximum", "minimum") and len(args) == 2 or op in ARITHMETIC_OPS and len(args) == 2:
            return self._broadcast(list(args), depth)
        if op in REDUCTION_OPS and _full_reduction(expr, first_arg=True):
            return ("0d",)
        if op in AXIS_REDUCTION_OPS and args and _keeps_dims(expr):
            return _kept(self.shape_fact(args[0], depth + 1))
        if (op in TOTAL_ELEMENTWISE_OPS or op in PARTIAL_ELEMENTWISE_OPS or op in api.BOOL_RESULT_OPS
                or op in ("softmax", "log_softmax", "stop_gradient")) and args and not expr.keywords \
                and (len(args) == 1 or op in ("clip_by_value", "clamp", "clip", "full_like")):
            return self.shape_fact(args[0], depth + 1)
        return None

    def _method_shape(self, method: str, expr, depth):
        """The shape of a Tensor method's result."""
        args, receiver = expr.args, expr.func.expr
        if method in api.CAST_METHODS or method in api.CASTING_METHODS or method in ("copy", "clone"):
            return self.shape_fact(receiver, depth + 1)
        if method in REDUCTIONS and _full_reduction(expr, first_arg=False):
            return ("0d",)
        if method in AXIS_REDUCTION_METHODS and _keeps_dims(expr):
            return _kept(self.shape_fact(receiver, depth + 1))
        if (method in TOTAL_METHODS or method in PARTIAL_METHODS) and (not args or method in ("clip", "clamp")):
            return self.shape_fact(receiver, depth + 1)
        return None

    # -- what evaluating an expression costs ---------------------------------------------------------------
    def effects(self, expr) -> tuple[str, str]:
        """``(refusal, cost)`` of evaluating ``expr`` where it would not have run: a call that may have a side
        effect (a helper, `print`, an assign op) or draws random numbers (a Dropout) refuses; another sub-Cell call
        costs (its text is ``cost``)."""
        for call in nodes_of_class(expr, nodes.Call, skip_klass=nodes.Lambda):  # a lambda's body does not run here
            found = side_effect(self.values, call)
            if found is None or found is not call:
                continue
            if self._is_cell_call(call):
                values = self.values
                drawn = drawn_by(values.analysis, values.info, call, values.cls)
                if drawn:  # (run where the branch would not, it moves the random stream: later draws differ)
                    return f"`{call.as_string()}` draws random numbers ({drawn})", ""
                return "", call.as_string()
            return f"`{call.as_string()}` may have side effects", ""
        return "", ""

    def _is_cell_call(self, call) -> bool:
        func = call.func
        if not (isinstance(func, nodes.Attribute) and isinstance(func.expr, nodes.Name)
                and func.expr.name == self.values.self_name):
            return False
        return self.values.value(func).is_(CELL)

    def partial(self, expr) -> str:
        """The first operation of ``expr`` that may give inf/NaN on finite input (or "" if none): division
        by a Tensor, `exp`, `log`, `sqrt`, `**` ..., a sub-Cell or a helper (not known)."""
        stack = [expr]
        while stack:
            node = stack.pop()
            if isinstance(node, nodes.BinOp):
                if node.op in ("/", "//", "%") and not _nonzero_constant(node.right, self.values):
                    return node.as_string()
                if node.op == "**" and not (isinstance(node.right, nodes.Const) and isinstance(node.right.value, int)
                                            and node.right.value >= 0):
                    return node.as_string()
            elif isinstance(node, nodes.Call):
                if self._partial_call(node):
                    return node.as_string()
            elif isinstance(node, (nodes.Lambda, nodes.ListComp, nodes.GeneratorExp, nodes.DictComp)):
                return node.as_string()
            stack.extend(node.get_children())
        return ""

    def _partial_call(self, node: nodes.Call) -> bool:
        """A call that may give inf/NaN on finite input: not a total elementwise op, a reduction, a comparison, a
        cast or a Tensor constructor (a sub-Cell, a helper: not known)."""
        func = node.func
        qualified = self._qualified(func)
        op = qualified.rsplit(".", 1)[-1] if qualified and qualified.startswith(api.OPS_NAMESPACES) else None
        if op is not None:
            return op not in TOTAL_ELEMENTWISE_OPS and op not in REDUCTION_OPS and op not in api.BOOL_RESULT_OPS \
                and qualified not in api.CAST_OPS
        if isinstance(func, nodes.Attribute) and qualified is None and self.values.value(func.expr).is_tensor:
            return func.attrname not in TOTAL_METHODS and func.attrname not in REDUCTIONS and \
                func.attrname not in api.CAST_METHODS and func.attrname not in api.CASTING_METHODS
        return qualified not in api.TENSOR_CONSTRUCTORS

    def _qualified(self, func):
        if locally_bound(func, self.values):
            return None
        return self.values.imports.qualify(func)

    def _is_self_attribute(self, expr) -> bool:
        return isinstance(expr.expr, nodes.Name) and expr.expr.name == self.values.self_name \
            and self.values.value(expr).is_(TENSOR)


_FINDING = object()  # a fact being found (a question that meets it again is part of a cycle)
_NO_ELEMENTS = ("no elements",)  # an empty display: its elements are what is added to it later
_SPECIALISING: set = set()  # the constructs whose facts are being found (a Cell that calls itself gets none)


def _layer_given_dtype(cls: nodes.ClassDef) -> bool:
    """``super().__init__(..., dtype=ms.float16)``: the layer's Parameters take the dtype it is given."""
    for call in nodes_of_class(cls, nodes.Call):
        func = call.func
        if isinstance(func, nodes.Attribute) and func.attrname == "__init__" and isinstance(func.expr, nodes.Call) \
                and any(k.arg in ("dtype", "param_init_type") for k in call.keywords or ()):
            return True
    return False


def _either(facts) -> tuple:
    """One of several dtype facts (nested choices flattened): ``("either", a, b, ...)``, or the one fact."""
    flat = set()
    for fact in facts:
        flat.update(fact[1:] if isinstance(fact, tuple) and fact[:1] == ("either",) else (fact,))
    return flat.pop() if len(flat) == 1 else ("either",) + tuple(sorted(flat, key=repr))


def _is_shape_fact(part) -> bool:
    """``part`` of a shape operation is a shape (not an axis, a size or a dimension)."""
    return isinstance(part, tuple) and bool(part) and isinstance(part[0], str) and (
        part[0] in ("like", "of", "0d", "keepdims", "broadcast", "either") or part[0] in shape_algebra.OPERATION_NAMES)


def _has_choice(fact) -> bool:
    """``fact`` is, or is made of, a choice of several (``("either", ...)``)."""
    return isinstance(fact, tuple) and (fact[:1] == ("either",) or any(_has_choice(f) for f in fact[1:]))


def _broadcast_of(shapes: set):
    """One shape fact for the broadcast of ``shapes`` (nested broadcasts flattened, 0-d ones dropped)."""
    flat = set()
    for shape in shapes:
        flat.update(shape[1:] if shape[0] == "broadcast" else (shape,))
    flat.discard(("0d",))
    if not flat:
        return ("0d",)
    return flat.pop() if len(flat) == 1 else ("broadcast",) + tuple(sorted(flat, key=repr))


def tensor_facts(values) -> TensorFacts:
    """The (memoised) facts of one function's values."""
    facts = getattr(values, "_rewrite_facts", None)
    if facts is None:
        facts = TensorFacts(values)
        values._rewrite_facts = facts  # noqa: SLF001 - a memo that lives as long as the values
    return facts


def assignments_raise_nothing(body, values) -> bool:
    """Every statement of ``body`` (a `try` body, say) is ``name = <expr>`` where ``expr`` cannot raise: `+`, `-`,
    `*` and unary `-` of Tensors (the function's parameters as they came in, or names an earlier statement of
    ``body`` assigned) and Python numbers, two Tensors only of one proven shape (no broadcast to fail; dtypes
    promote)."""
    facts = tensor_facts(values)
    earlier: set[int] = set()

    def safe(expr) -> bool:
        if isinstance(expr, nodes.Const):
            return type(expr.value) in (int, float)
        if isinstance(expr, nodes.Name):
            element = values.cfg.element_of(expr)
            reaching = values.cfg.reaching(element, expr.name) if element is not None else []
            return bool(reaching) and values.value(expr).is_tensor \
                and all(d.kind == "param" or id(d.node) in earlier for d in reaching)
        if isinstance(expr, nodes.UnaryOp):
            return expr.op == "-" and safe(expr.operand)
        if not (isinstance(expr, nodes.BinOp) and expr.op in ("+", "-", "*") and safe(expr.left) and safe(expr.right)):
            return False
        sides = [side for side in (expr.left, expr.right) if values.value(side).is_tensor]
        return len(sides) < 2 or (facts.shape(sides[0]) is not None and facts.shape(sides[0]) == facts.shape(sides[1]))

    for statement in body:
        if not (isinstance(statement, nodes.Assign) and len(statement.targets) == 1
                and isinstance(statement.targets[0], nodes.AssignName) and safe(statement.value)):
            return False
        earlier.add(id(statement.targets[0]))
    return bool(body)


def _full_reduction(call, first_arg: bool) -> bool:
    """``x.sum()`` / ``ops.sum(x)``: no axis, no keepdims."""
    positional = call.args[1:] if first_arg else call.args
    if first_arg and not call.args:
        return False
    if positional:
        return False
    return not any(k.arg in ("axis", "dim", "keepdims", "keep_dims", "keepdim") for k in call.keywords or ())


def _keeps_dims(call) -> bool:
    """``keepdims=True`` (any of its spellings) among the keywords."""
    return any(k.arg in _KEEPDIMS and isinstance(k.value, nodes.Const) and k.value.value is True
               for k in call.keywords or ())


def _rank(fact) -> int | None:
    """The rank a shape fact has whatever its roots are, where its form gives it."""
    if fact == ("0d",):
        return 0
    if isinstance(fact, tuple) and fact[:1] in (("dims",), ("reshape",)):
        return len(fact) - 1 if fact[0] == "dims" else len(fact) - 2
    return None


def _kept(shape):
    return ("keepdims", shape) if shape is not None and shape[0] != "keepdims" else None


def _nonzero_constant(expr, values) -> bool:
    value = values.value(expr)
    return value.known and isinstance(value.const, (int, float)) and not isinstance(value.const, bool) \
        and value.const != 0


# MindSpore's implicit conversion between two Tensors' dtypes, by category: bool, then integers, then floats
_CATEGORY = {"bool_": 0, "uint8": 1, "int8": 1, "int16": 1, "int32": 1, "int64": 1, "float16": 2, "bfloat16": 2,
             "float32": 2, "float64": 2}
_WIDTH = {"bool_": 1, "uint8": 8, "int8": 8, "int16": 16, "int32": 32, "int64": 64, "float16": 16, "bfloat16": 16,
          "float32": 32, "float64": 64}


def promoted(a: str, b: str) -> str | None:
    """The dtype of an element-wise op of Tensors of dtypes ``a`` and ``b``: the higher category wins (a float over
    an integer, an integer over bool), within one the wider; float16 with bfloat16 is float32, int8 with uint8
    int16 (measured on all 45 pairs in graph mode: tests/test_dtype_promotion.py). None for dtypes outside the
    table (complex, unsigned wider than 8 bits)."""
    if a == b:
        return a
    if a not in _CATEGORY or b not in _CATEGORY:
        return None
    if _CATEGORY[a] != _CATEGORY[b]:
        return a if _CATEGORY[a] > _CATEGORY[b] else b
    if {a, b} == {"float16", "bfloat16"}:
        return "float32"
    if {a, b} == {"int8", "uint8"}:
        return "int16"
    return a if _WIDTH[a] > _WIDTH[b] else b


def _normal(dtype):
    """``("float", d)`` with a concrete ``d`` resolved; nested ``("float", ("float", d))`` flattened;
    ``("promote", a, b, ...)`` flattened, its concrete operands promoted into one."""
    if isinstance(dtype, tuple) and dtype[0] == "promote":
        # (associative and commutative: flattened, its concrete operands promoted into one)
        operands = set()
        for operand in dtype[1:]:
            operand = _normal(operand)
            if operand is None:
                return None
            operands.update(operand[1:] if isinstance(operand, tuple) and operand[0] == "promote" else (operand,))
        concrete = None
        for operand in [o for o in operands if isinstance(o, str)]:
            concrete = operand if concrete is None else promoted(concrete, operand)
            if concrete is None:
                return None
        relative = sorted((o for o in operands if not isinstance(o, str)), key=repr)
        if not relative:
            return concrete
        if concrete is None and len(relative) == 1:
            return relative[0]
        return ("promote",) + ((concrete,) if concrete is not None else ()) + tuple(relative)
    if isinstance(dtype, tuple) and dtype[0] == "float":
        inner = _normal(dtype[1])
        if inner is None:
            return None
        if isinstance(inner, str):
            return inner if inner in FLOAT_DTYPES else "float32"
        if isinstance(inner, tuple) and inner[0] == "float":
            return inner
        return ("float", inner)
    return dtype


def _root_text(dtype, values=None) -> str:
    if isinstance(dtype, tuple) and dtype[0] == "of":
        root = dtype[1]
        if root[0] == "param":
            return f"the argument `{root[1]}`"
        if root[0] == "attr":
            return f"`{root[1]}`"
        if values is not None:
            indices = [root[1]] if root[0] == "def" else sorted(root[1])
            names = sorted({values.cfg.definitions[i].name for i in indices})
            if names:
                return " and ".join(f"`{n}`" for n in names)
    return "the value it is computed from"


def _dtype_text(name: str) -> str:
    return "a bool Tensor" if name == "bool_" else f"a {name} Tensor"
