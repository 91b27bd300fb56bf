"""`numpy.<fn>(t)` / `math.<fn>(t)` on a Tensor in graph code -> the matching `ops.<fn>(t)`.

``OPS_EQUIVALENTS`` is the whole table: a function is rewritten only if it is listed there, only with the
positional arguments and keywords listed for it, and the ``ops`` spelling comes from the module's imports
(``from mindspore import ops`` is added when needed). tests/test_fixers_fallback.py runs every entry with
MindSpore: the original call on a Tensor in PYNATIVE_MODE against the rewritten call in PYNATIVE_MODE and
GRAPH_MODE, comparing values, dtypes and shapes.

NumPy (on float32 Tensors the results match exactly in dtype and shape, and in value within 1e-4):
  exp log sqrt sin cos tan tanh sinh cosh square log1p expm1 log2 log10 exp2 sign reciprocal floor ceil
  round abs isnan isinf isfinite logical_not -> the ops function of the same name;
  absolute -> abs, negative -> neg, arctan -> atan;
  maximum minimum logical_and logical_or matmul (two arguments), where (three), power -> pow,
  clip -> clamp (``a_min=``/``a_max=`` -> ``min=``/``max=``), reshape (two arguments),
  concatenate -> cat and stack (``axis=``), cumsum (``axis`` required), argmax (``axis=`` -> ``dim=``,
  ``keepdims=`` -> ``keepdim=``).
math (a 1-element Tensor; the result becomes a 0-d float32 Tensor instead of a Python float):
  sqrt exp log (one argument) sin cos tan tanh atan log2 log10 log1p expm1 pow, fabs -> abs.

Left out, measured with MindSpore 2.10 (``NOT_REWRITTEN`` gives the reason in the refusal):
  NumPy reductions (sum mean max min amax amin prod std var all any) raise TypeError on a Tensor in both
  modes: NumPy calls the Tensor's own method with ``out=None``, which MindSpore rejects; there is no
  behaviour to keep. ``argmin``: ops returns int32 where NumPy returns int64. ``dot``: ``ops.matmul`` is
  ``np.dot`` only up to 2-D. ``math.floor``/``math.ceil`` return a Python int (a size, an index), ops a
  float Tensor.

Unsafe: NumPy returns an ndarray and ``math`` a Python float, the rewrite a Tensor; on integer Tensors
NumPy computes in float64 (``np.sqrt`` of int32 is float64, ``ops.sqrt`` float32) and some ops reject the
dtype (``ops.exp``/``ops.floor`` of int32 raise TypeError); ``math`` rejects a Tensor of several elements
that ops computes element-wise.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import libcst as cst
from astroid import nodes

from graphlint.catalogue.model import FixSafety
from graphlint.fixers.base import Fixer


@dataclass(frozen=True)
class OpsEquivalent:
    """``ops.<name>``, taking the first ``positional`` arguments as they are and ``keywords`` renamed."""

    name: str
    positional: int = 1
    required: int = 1  # arguments the call must pass (positional or keyword): `np.where(c)` is another function
    keywords: dict = field(default_factory=dict)  # NumPy keyword -> ops keyword
    axis_none_differs: bool = False  # `axis=None` means "flatten" in NumPy but is not accepted by ops


def _same(*names: str, prefix: str = "numpy") -> dict:
    return {f"{prefix}.{name}": OpsEquivalent(name) for name in names}


def _binary(*names: str) -> dict:
    return {f"numpy.{name}": OpsEquivalent(name, positional=2, required=2) for name in names}


_AXIS = {"axis": "axis"}

OPS_EQUIVALENTS: dict[str, OpsEquivalent] = {
    **_same("exp", "log", "sqrt", "sin", "cos", "tan", "tanh", "sinh", "cosh", "square", "log1p", "expm1",
            "log2", "log10", "exp2", "sign", "reciprocal", "floor", "ceil", "round", "abs", "isnan", "isinf",
            "isfinite", "logical_not"),
    "numpy.absolute": OpsEquivalent("abs"),
    "numpy.negative": OpsEquivalent("neg"),
    "numpy.arctan": OpsEquivalent("atan"),
    **_binary("maximum", "minimum", "logical_and", "logical_or", "matmul"),
    "numpy.power": OpsEquivalent("pow", positional=2, required=2),
    "numpy.where": OpsEquivalent("where", positional=3, required=3),
    "numpy.clip": OpsEquivalent("clamp", positional=3, required=3, keywords={"a_min": "min", "a_max": "max"}),
    "numpy.reshape": OpsEquivalent("reshape", positional=2, required=2),
    "numpy.concatenate": OpsEquivalent("cat", positional=2, keywords=_AXIS, axis_none_differs=True),
    "numpy.stack": OpsEquivalent("stack", positional=2, keywords=_AXIS, axis_none_differs=True),
    "numpy.cumsum": OpsEquivalent("cumsum", positional=2, required=2, keywords=_AXIS, axis_none_differs=True),
    "numpy.argmax": OpsEquivalent("argmax", positional=2, keywords={"axis": "dim", "keepdims": "keepdim"}),
    **_same("sqrt", "exp", "log", "sin", "cos", "tan", "tanh", "atan", "log2", "log10", "log1p", "expm1",
            prefix="math"),
    "math.fabs": OpsEquivalent("abs"),
    "math.pow": OpsEquivalent("pow", positional=2, required=2),
}

_REDUCTION = ("`{func}` on a Tensor raises TypeError in MindSpore 2.10 (NumPy calls the Tensor's own method "
              "with `out=None`); write the ops reduction by hand")
NOT_REWRITTEN: dict[str, str] = {
    **{f"numpy.{name}": _REDUCTION for name in
       ("sum", "mean", "max", "min", "amax", "amin", "prod", "std", "var", "all", "any")},
    "numpy.argmin": "`ops.argmin` returns int32 where `{func}` returns int64",
    "numpy.dot": "`ops.matmul` is `{func}` only for 1-D and 2-D inputs",
    "math.floor": "`{func}` returns a Python int (a size or an index), `ops.floor` a float Tensor",
    "math.ceil": "`{func}` returns a Python int (a size or an index), `ops.ceil` a float Tensor",
}


class NumpyMathToOps(Fixer):
    symbols = ("numpy-call-on-tensor", "math-call-on-tensor")
    safety = FixSafety.UNSAFE
    description = "`np.<fn>(t)` / `math.<fn>(t)` -> `ops.<fn>(t)`"

    def plan(self, finding, context):
        call = finding.node
        if not isinstance(call, nodes.Call) or finding.graph is None:
            return None
        qualified = finding.graph.info.imports.qualify(call.func)
        func = call.func.as_string()
        host = _host_array_argument(call)
        if host:
            return self.refuse(finding, f"`{func}` gets the NumPy array `{host}`, not a Tensor: keep the value a "
                                        "Tensor (no `.asnumpy()`) and compute it with ops by hand")
        if qualified in NOT_REWRITTEN:
            return self.refuse(finding, NOT_REWRITTEN[qualified].format(func=func))
        equivalent = OPS_EQUIVALENTS.get(qualified)
        if equivalent is None:
            return None  # no ops function known to match: the rule's advice stands
        problem = _argument_problem(call, equivalent, func)
        if problem:
            return self.refuse(finding, problem)
        node = context.find(call)
        if not isinstance(node, cst.Call):
            return self.refuse(finding, f"the `{func}(...)` call was not found")
        ops, ops_import = context.spelling("mindspore.ops", ("mindspore", "ops", None))
        if ops_import is not None and _name_taken(call, ops.split(".")[0]):
            return self.refuse(finding, f"`{ops}` is already a name here: import `mindspore.ops` and rewrite by hand")
        target = f"{ops}.{equivalent.name}"
        replacements = [(node.func, cst.parse_expression(target).with_changes(lpar=node.func.lpar,
                                                                              rpar=node.func.rpar))]
        for argument in node.args:
            if argument.keyword is not None and equivalent.keywords[argument.keyword.value] != argument.keyword.value:
                replacements.append((argument.keyword, cst.Name(equivalent.keywords[argument.keyword.value])))
        return self.edit(finding, replacements, imports=[ops_import] if ops_import else [],
                         description=f"`{func}(...)` -> `{target}(...)`")


def _argument_problem(call: nodes.Call, equivalent: OpsEquivalent, func: str) -> str:
    if any(isinstance(argument, nodes.Starred) for argument in call.args) \
            or any(keyword.arg is None for keyword in call.keywords or ()):
        return f"`*args`/`**kwargs` in `{func}(...)` cannot be matched to `ops.{equivalent.name}`"
    if len(call.args) > equivalent.positional:
        return f"`{func}` with {len(call.args)} positional arguments has no `ops.{equivalent.name}` counterpart"
    for keyword in call.keywords or ():
        if keyword.arg not in equivalent.keywords:
            return f"`{keyword.arg}=` of `{func}` has no counterpart in `ops.{equivalent.name}`"
    if len(call.args) + len(call.keywords or ()) < equivalent.required:
        return f"`{func}` with fewer than {equivalent.required} arguments is not `ops.{equivalent.name}`"
    if equivalent.axis_none_differs:
        axis = [k.value for k in call.keywords or () if k.arg == "axis"] + call.args[1:2]
        if any(isinstance(value, nodes.Const) and value.value is None for value in axis):
            return f"`axis=None` flattens in `{func}`; `ops.{equivalent.name}` needs an axis"
    return ""


def _host_array_argument(call: nodes.Call) -> str:
    """The text of an argument that is already a NumPy array (`t.asnumpy()`), where ops would reject it."""
    for argument in list(call.args) + [keyword.value for keyword in call.keywords or ()]:
        if isinstance(argument, nodes.Call) and isinstance(argument.func, nodes.Attribute) \
                and argument.func.attrname in ("asnumpy", "numpy") and not argument.args:
            return argument.as_string()
    return ""


def _name_taken(call: nodes.Call, name: str) -> bool:
    """``name`` is bound in the function or the module, so an added ``from mindspore import ops`` would clash."""
    return name in call.scope().locals or name in call.root().locals


FIXERS = (NumpyMathToOps(),)
