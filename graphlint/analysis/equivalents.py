"""NumPy and ``math`` functions and the ``ops`` function that computes the same on a Tensor (measured).

A function is listed only if MindSpore's ``ops`` counterpart matches it, with the positional arguments and
keywords listed for it. tests/test_fixers_fallback.py runs every entry with MindSpore: the original call on a
Tensor in PYNATIVE_MODE against the rewritten call in PYNATIVE_MODE and GRAPH_MODE, comparing values, dtypes and
shapes (MindSpore 2.10).

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
"""

from __future__ import annotations

from dataclasses import dataclass, field


@dataclass(frozen=True)
class OpsEquivalent:
    """``ops.<name>``, taking the first ``positional`` arguments as they are and ``keywords`` renamed."""

    name: str
    positional: int = 1
    required: int = 1  # arguments the call must pass (positional or keyword): `np.where(c)` is another function
    keywords: dict = field(default_factory=dict)  # NumPy keyword -> ops keyword
    axis_none_differs: bool = False  # `axis=None` means "flatten" in NumPy but is not accepted by ops
    operands: int = 1  # the leading arguments that are the data: one of them must be a Tensor, the others
    # Tensors or numbers (`np.maximum(y, 0)`); the arguments after them are options (an axis, a shape, a bound)
    sequence: bool = False  # the data is one list or tuple of Tensors (`np.concatenate((x, y))`)


def _same(*names: str, prefix: str = "numpy") -> dict:
    return {f"{prefix}.{name}": OpsEquivalent(name) for name in names}


def _binary(*names: str) -> dict:
    return {f"numpy.{name}": OpsEquivalent(name, positional=2, required=2, operands=2) for name in names}


_AXIS = {"axis": "axis"}

OPS_EQUIVALENTS: dict[str, OpsEquivalent] = {
    **_same("exp", "log", "sqrt", "sin", "cos", "tan", "tanh", "sinh", "cosh", "square", "log1p", "expm1",
            "log2", "log10", "exp2", "sign", "reciprocal", "floor", "ceil", "round", "abs", "isnan", "isinf",
            "isfinite", "logical_not"),
    "numpy.absolute": OpsEquivalent("abs"),
    "numpy.negative": OpsEquivalent("neg"),
    "numpy.arctan": OpsEquivalent("atan"),
    **_binary("maximum", "minimum", "logical_and", "logical_or", "matmul"),
    "numpy.power": OpsEquivalent("pow", positional=2, required=2, operands=2),
    "numpy.where": OpsEquivalent("where", positional=3, required=3, operands=3),
    "numpy.clip": OpsEquivalent("clamp", positional=3, required=3, keywords={"a_min": "min", "a_max": "max"}),
    "numpy.reshape": OpsEquivalent("reshape", positional=2, required=2),
    "numpy.concatenate": OpsEquivalent("cat", positional=2, keywords=_AXIS, axis_none_differs=True, sequence=True),
    "numpy.stack": OpsEquivalent("stack", positional=2, keywords=_AXIS, axis_none_differs=True, sequence=True),
    "numpy.cumsum": OpsEquivalent("cumsum", positional=2, required=2, keywords=_AXIS, axis_none_differs=True),
    "numpy.argmax": OpsEquivalent("argmax", positional=2, keywords={"axis": "dim", "keepdims": "keepdim"}),
    **_same("sqrt", "exp", "log", "sin", "cos", "tan", "tanh", "atan", "log2", "log10", "log1p", "expm1",
            prefix="math"),
    "math.fabs": OpsEquivalent("abs"),
    "math.pow": OpsEquivalent("pow", positional=2, required=2, operands=2),
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
