#!/usr/bin/env python3
"""Measure what MindSpore's Tensor methods, ops / mint functions, nn layers, builtins and container methods do
in graph code, compared with PYNATIVE_MODE.

Each probe is a tiny ``nn.Cell`` whose ``construct(self, x)`` returns the result of one call (x: a float32 Tensor
of shape (2, 3)). It runs with the machinery of ``scripts/measure_refused_apis.py`` (batches of probes in one
child process of :func:`graphlint.validate.runner.run_job`): in PYNATIVE_MODE, in GRAPH_MODE at the default (lax)
syntax level and under ``mindspore.jit(cell, fullgraph=True)`` (strict), each time on two inputs of the same
shape and different values. The results go to ``graphlint/analysis/generated/api_measured.py``, from which
``graphlint/analysis/api.py`` derives the tables its rules use::

    .venv/bin/python scripts/measure_api_behaviour.py            # measure and write
    .venv/bin/python scripts/measure_api_behaviour.py --dry-run  # measure and print only

For every probe the table records the outcome at each level (fine / refused / differs from PYNATIVE, in
structure, dtype, shape or values), the verdict over the levels (refused, falls back, differs, dynamic shape,
fine), whether the output's shape depends on the input's values (PYNATIVE's output shapes differ between the two
inputs), and the structure and dtype of the result in PYNATIVE and in graph code.
"""

from __future__ import annotations

import argparse
import os
import re
import sys
import textwrap
from dataclasses import dataclass

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, ROOT)
sys.path.insert(0, os.path.join(ROOT, "scripts"))

from measure_refused_apis import divergence, message_key, mindspore_version, run_probes  # noqa: E402

OUT = os.path.join(ROOT, "graphlint", "analysis", "generated", "api_measured.py")
# Two inputs of one shape: the second has other values, so an output whose size depends on values (nonzero,
# masked_select, unique ...) changes shape between them.
INPUTS = ("[(Tensor(np.arange(6, dtype=np.float32).reshape(2, 3) - 2),),"
          " (Tensor(np.array([[5, 0, 0], [0, 0, -1]], np.float32)),)]")


@dataclass(frozen=True)
class ApiProbe:
    key: str            # unique: the call as written, e.g. "Tensor:x.max(1)", "ops.split(x, 1, 1)"
    api: str            # what is measured: "mindspore.ops.split", "mindspore.Tensor.max", "builtins.max", "list.pop"
    form: str           # op | mint | method | layer | builtin | list | tuple | dict | str
    body: str           # the body of construct(self, x)
    init: str = ""      # statements run in __init__ (the layer a probe calls)
    family: str = ""    # what the probe stands for in api.py's tables (see FAMILIES)
    argument: tuple = ()  # layer probes: (position, keyword, kind given) of the argument whose kind varies

    @property
    def name(self) -> str:
        return self.api.rsplit(".", 1)[-1]


# What a probe's family says about it: the api.py table that is derived from the probes of that family.
FAMILIES = {
    "tuple result": "TUPLE_RESULT_OPS: some call form returns a tuple of Tensors",
    "positional axis": "PAIRED_ONLY_WITH_DIM: a Tensor method given a positional axis",
    "shape query": "TENSOR_CONST_METHODS: a Tensor method answering from the shape",
    "host copy": "HOST_METHODS: a Tensor method copying to the host",
    "same dtype": "SAME_DTYPE_OPS / SAME_DTYPE_METHODS: called on a float16 Tensor",
    "dtype": "the dtype a cast, reduction or product of a float16 Tensor has (not a table of api.py)",
    "bool result": "BOOL_RESULT_OPS / BOOL_RESULT_METHODS: an element-wise predicate",
    "masked_select": "MASKED_SELECT_OPS: selects by a mask",
    "nonzero": "NONZERO_OPS: indices of non-zero elements",
    "unique": "UNIQUE_OPS (and TUPLE_RESULT_OPS): unique elements",
    "boolean index": "indexing with a boolean mask",
    "layer result": "NN_TUPLE_RESULT_LAYERS: what calling the layer returns",
    "layer state": "NN_TUPLE_STATE_INPUTS (and NN_TUPLE_RESULT_LAYERS): the kind of state the layer is given",
    "container": "the *_METHODS_IN_GRAPH / *_FALLING_BACK tables: a method of a Python container",
    "builtin": "a Python builtin",
}


def _dedent(text: str) -> str:
    return textwrap.dedent(text).strip("\n")


def op(call: str, family: str, name: str = "", setup: str = "") -> ApiProbe:
    """``ops.split(x, 1, 1)`` -> mindspore.ops.split; ``mint.xxx(...)`` -> mindspore.mint.xxx."""
    namespace, rest = call.split(".", 1)
    name = name or rest.split("(", 1)[0]
    body = (_dedent(setup) + "\n" if setup else "") + f"return {call}"
    return ApiProbe(call, f"mindspore.{namespace}.{name}", "op" if namespace == "ops" else "mint", body,
                    family=family)


def method(call: str, family: str, setup: str = "") -> ApiProbe:
    """``x.max(1)`` -> mindspore.Tensor.max (the receiver may be any expression ending in ``.name(``)."""
    name = re.findall(r"\.(\w+)\(", call)[-1]  # the last call of the chain: ops.abs(h).log() -> log
    body = (_dedent(setup) + "\n" if setup else "") + f"return {call}"
    return ApiProbe("Tensor:" + call, f"mindspore.Tensor.{name}", "method", body, family=family)


def layer(key: str, init: str, body: str, family: str, argument: tuple = ()) -> ApiProbe:
    name = init.split("nn.", 1)[1].split("(", 1)[0]
    return ApiProbe(key, f"mindspore.nn.{name}", "layer", _dedent(body), init=f"self.layer = {init}",
                    family=family, argument=argument)


def hx_probe(key: str, init: str, body: str, kind: str) -> ApiProbe:
    """A recurrent layer called with its state ``hx`` (argument 1) given as a ``tuple`` or as a ``Tensor``."""
    return layer(key, init, body, "layer state", (1, "hx", kind))


def builtin(call: str) -> ApiProbe:
    name = call.split("(", 1)[0]
    return ApiProbe("builtin:" + call, f"builtins.{name}", "builtin", f"return {call}", family="builtin")


def container(owner: str, name: str, body: str, variant: str = "") -> ApiProbe:
    key = f"{owner}.{name}" + (f" ({variant})" if variant else "")
    return ApiProbe(key, f"{owner}.{name}", owner, _dedent(body), family="container")


MATRIX_SETUP = "m = x[:, :2] + ops.eye(2, 2, ms.float32) * 4"  # a well-conditioned 2x2 matrix
FLOAT16_SETUP = "h = x.astype(ms.float16)"
BOOL_PAIR_SETUP = "a = x > 0\nb = x < 2"
SEQUENCE_SETUP = "seq = x.reshape((1, 2, 3))\nstate = ops.zeros((1, 1, 4), ms.float32)"

TUPLE_RESULT_PROBES = [
    op("ops.split(x, 1, 1)", "tuple result"), method("x.split(1, 1)", "tuple result"),
    op("mint.split(x, 1, 1)", "tuple result"),
    op("ops.chunk(x, 3, 1)", "tuple result"), method("x.chunk(3, 1)", "tuple result"),
    op("ops.unbind(x, 0)", "tuple result"), method("x.unbind(0)", "tuple result"),
    op("ops.meshgrid(x[0], x[1])", "tuple result"),
    op("ops.topk(x, 2)", "tuple result"), method("x.topk(2)", "tuple result"),
    op("ops.sort(x)", "tuple result"), method("x.sort()", "tuple result"), op("mint.sort(x)", "tuple result"),
    op("ops.max(x, 1)", "tuple result"), op("mint.max(x, 1)", "tuple result"),
    op("ops.min(x, 1)", "tuple result"), op("mint.min(x, 1)", "tuple result"),
    op("ops.tensor_split(x, 3, 1)", "tuple result"), method("x.tensor_split(3, 1)", "tuple result"),
    op("ops.vsplit(x, 2)", "tuple result"), op("ops.hsplit(x, 3)", "tuple result"),
    op("ops.dsplit(x.reshape((1, 2, 3)), 3)", "tuple result"),
    op("ops.broadcast_tensors(x, x[0])", "tuple result"),
    op("ops.unique_with_pad(x.reshape(-1).astype(ms.int32), 0)", "tuple result"),
    op("ops.median(x, 1)", "tuple result"), method("x.median(1)", "tuple result"),
    op("ops.std_mean(x)", "tuple result"), op("ops.var_mean(x)", "tuple result"),
    op("ops.aminmax(x, axis=1)", "tuple result"), op("ops.frexp(x)", "tuple result"),
    op("ops.svd(m)", "tuple result", setup=MATRIX_SETUP), op("ops.qr(m)", "tuple result", setup=MATRIX_SETUP),
    op("ops.lu_unpack(m, ops.arange(1, 3).astype(ms.int32))", "tuple result", setup=MATRIX_SETUP),
    op("ops.eigh(m)", "tuple result", setup=MATRIX_SETUP), op("ops.histogram(x)", "tuple result"),
    op("ops.eig(m)", "tuple result", setup=MATRIX_SETUP), op("ops.slogdet(m)", "tuple result", setup=MATRIX_SETUP),
    op("mint.histc(x)", "tuple result", name="histc"),
    op("ops.nonzero(x, as_tuple=True)", "tuple result"),
    op("ops.unique_consecutive(x, return_counts=True)", "tuple result"),
    op("ops.mode(x)", "tuple result"),
]

POSITIONAL_AXIS_PROBES = [
    method("x.max(1)", "positional axis"), method("x.min(1)", "positional axis"),
    method("x.max(dim=1)", "positional axis"), method("x.min(dim=1)", "positional axis"),
    method("x.max(axis=1)", "positional axis"), method("x.max()", "positional axis"),
    method("x.argmax(1)", "positional axis"), method("x.sort(1)", "positional axis"),
    method("x.topk(2, 1)", "positional axis"), method("x.median(0)", "positional axis"),
    method("x.cummax(1)", "positional axis"),
]

SHAPE_QUERY_PROBES = [method(f"x.{name}()", "shape query") for name in ("dim", "ndimension", "numel", "nelement")]

HOST_COPY_PROBES = [method("x[0, 0].item()", "host copy"), method("x.tolist()", "host copy"),
                    method("x.asnumpy()", "host copy"), method("x.numpy()", "host copy")]

SAME_DTYPE_OP_CALLS = [
    "ops.zeros_like(h)", "ops.ones_like(h)", "ops.full_like(h, 2)", "ops.relu(h)", "ops.sigmoid(h)", "ops.tanh(h)",
    "ops.abs(h)", "ops.neg(h)", "ops.exp(h)", "ops.log(ops.abs(h) + 1)", "ops.sqrt(ops.abs(h))", "ops.square(h)",
    "ops.softmax(h)", "ops.transpose(h, (1, 0))", "ops.reshape(h, (3, 2))", "ops.squeeze(h.reshape((1, 2, 3)))",
    "ops.expand_dims(h, 0)", "ops.flatten(h)", "ops.clip_by_value(h, -1.0, 1.0)", "ops.clamp(h, -1, 1)",
    "ops.clip(h, -1, 1)", "ops.stop_gradient(h)", "ops.identity(h)", "ops.flip(h, (0,))", "ops.tile(h, (2, 1))",
    "ops.broadcast_to(h, (2, 2, 3))"]
SAME_DTYPE_METHOD_CALLS = [
    "h.reshape((3, 2))", "h.transpose((1, 0))", "h.squeeze()", "h.expand_dims(0)", "h.view((3, 2))", "h.flatten()",
    "h.copy()", "h.clone()", "h.abs()", "h.exp()", "ops.abs(h).log()", "ops.abs(h).sqrt()", "h.clip(-1, 1)",
    "h.clamp(-1, 1)", "h.permute(1, 0)", "h.swapaxes(0, 1)", "h.tile((2, 1))", "h.broadcast_to((2, 2, 3))"]
# Casts, reductions and products of the same float16 Tensor: what dtype they give, for comparison.
DTYPE_OP_CALLS = ["ops.cast(h, ms.float32)", "ops.mean(h)", "ops.matmul(h, h.T)"]
DTYPE_METHOD_CALLS = ["h.float()", "h.sum()", "h.mean()"]
SAME_DTYPE_PROBES = ([op(call, "same dtype", setup=FLOAT16_SETUP) for call in SAME_DTYPE_OP_CALLS]
                     + [method(call, "same dtype", setup=FLOAT16_SETUP) for call in SAME_DTYPE_METHOD_CALLS]
                     + [op(call, "dtype", setup=FLOAT16_SETUP) for call in DTYPE_OP_CALLS]
                     + [method(call, "dtype", setup=FLOAT16_SETUP) for call in DTYPE_METHOD_CALLS])

BINARY_PREDICATES = ("eq", "ne", "gt", "ge", "lt", "le", "greater", "greater_equal", "less", "less_equal", "equal",
                     "not_equal", "isclose")
UNARY_PREDICATES = ("isnan", "isinf", "isfinite", "isneginf", "isposinf", "isreal", "signbit")
BOOL_TENSOR_PREDICATES = ("logical_and", "logical_or", "logical_xor", "bitwise_and", "bitwise_or", "bitwise_xor")
BOOL_RESULT_PROBES = (
    [op(f"ops.{name}(x, x * 0.5)", "bool result") for name in BINARY_PREDICATES]
    + [method(f"x.{name}(x * 0.5)", "bool result") for name in BINARY_PREDICATES]
    + [op(f"ops.{name}(x)", "bool result") for name in UNARY_PREDICATES]
    + [method(f"x.{name}()", "bool result") for name in UNARY_PREDICATES]
    + [op(f"ops.{name}(a, b)", "bool result", setup=BOOL_PAIR_SETUP) for name in BOOL_TENSOR_PREDICATES]
    + [method(f"a.{name}(b)", "bool result", setup=BOOL_PAIR_SETUP) for name in BOOL_TENSOR_PREDICATES]
    + [op("ops.logical_not(a)", "bool result", setup=BOOL_PAIR_SETUP),
       method("a.logical_not()", "bool result", setup=BOOL_PAIR_SETUP),
       method("x.bool()", "bool result")]
)

DYNAMIC_SHAPE_PROBES = [
    op("ops.masked_select(x, x > 0)", "masked_select"), method("x.masked_select(x > 0)", "masked_select"),
    op("mint.masked_select(x, x > 0)", "masked_select"),
    op("ops.nonzero(x)", "nonzero"), method("x.nonzero()", "nonzero"), op("mint.nonzero(x)", "nonzero"),
    op("ops.argwhere(x)", "nonzero"),
    ApiProbe("numpy.flatnonzero(x)", "mindspore.numpy.flatnonzero", "op", "return ms.numpy.flatnonzero(x)",
             family="nonzero"), op("ops.unique(x)", "unique"), method("x.unique()", "unique"),
    op("mint.unique(x)", "unique"), op("ops.unique_consecutive(x)", "unique"),
    op("mint.unique_consecutive(x)", "unique"),
    ApiProbe("x[x > 0]", "Tensor.__getitem__", "method", "return x[x > 0]", family="boolean index"),
    op("ops.masked_fill(x, x > 0, 0.0)", "masked_select"),  # same shape as x: the contrast
]

LSTM = "nn.LSTM(3, 4, batch_first=True)"
GRU = "nn.GRU(3, 4, batch_first=True)"
RNN = "nn.RNN(3, 4, batch_first=True)"
LAYER_PROBES = [
    hx_probe("nn.LSTM(seq, (h, c))", LSTM, SEQUENCE_SETUP + "\nreturn self.layer(seq, (state, state))", "tuple"),
    hx_probe("nn.LSTM(seq, h)", LSTM, SEQUENCE_SETUP + "\nreturn self.layer(seq, state)", "Tensor"),
    layer("nn.LSTM(seq)", LSTM, SEQUENCE_SETUP + "\nreturn self.layer(seq)", "layer result"),
    hx_probe("nn.GRU(seq, h)", GRU, SEQUENCE_SETUP + "\nreturn self.layer(seq, state)", "Tensor"),
    hx_probe("nn.GRU(seq, (h,))", GRU, SEQUENCE_SETUP + "\nreturn self.layer(seq, (state,))", "tuple"),
    layer("nn.GRU(seq)", GRU, SEQUENCE_SETUP + "\nreturn self.layer(seq)", "layer result"),
    hx_probe("nn.RNN(seq, h)", RNN, SEQUENCE_SETUP + "\nreturn self.layer(seq, state)", "Tensor"),
    hx_probe("nn.RNN(seq, (h,))", RNN, SEQUENCE_SETUP + "\nreturn self.layer(seq, (state,))", "tuple"),
    layer("nn.RNN(seq)", RNN, SEQUENCE_SETUP + "\nreturn self.layer(seq)", "layer result"),
    hx_probe("nn.LSTMCell(x, (h, c))", "nn.LSTMCell(3, 4)",
             "state = ops.zeros((2, 4), ms.float32)\nreturn self.layer(x, (state, state))", "tuple"),
    hx_probe("nn.LSTMCell(x, h)", "nn.LSTMCell(3, 4)",
             "state = ops.zeros((2, 4), ms.float32)\nreturn self.layer(x, state)", "Tensor"),
    hx_probe("nn.GRUCell(x, h)", "nn.GRUCell(3, 4)",
             "state = ops.zeros((2, 4), ms.float32)\nreturn self.layer(x, state)", "Tensor"),
    hx_probe("nn.GRUCell(x, (h,))", "nn.GRUCell(3, 4)",
             "state = ops.zeros((2, 4), ms.float32)\nreturn self.layer(x, (state,))", "tuple"),
    hx_probe("nn.RNNCell(x, (h,))", "nn.RNNCell(3, 4)",
             "state = ops.zeros((2, 4), ms.float32)\nreturn self.layer(x, (state,))", "tuple"),
    hx_probe("nn.RNNCell(x, h)", "nn.RNNCell(3, 4)",
             "state = ops.zeros((2, 4), ms.float32)\nreturn self.layer(x, state)", "Tensor"),
    layer("nn.MultiheadAttention(q, k, v)", "nn.MultiheadAttention(3, 1)",
          "seq = x.reshape((2, 1, 3))\nreturn self.layer(seq, seq, seq)", "layer result"),
    layer("nn.Dense(x)", "nn.Dense(3, 4)", "return self.layer(x)", "layer result"),
    layer("nn.Conv1d(x)", "nn.Conv1d(2, 4, 1)", "return self.layer(x.reshape((1, 2, 3)))", "layer result"),
    layer("nn.LayerNorm(x)", "nn.LayerNorm((3,))", "return self.layer(x)", "layer result"),
    layer("nn.BatchNorm1d(x)", "nn.BatchNorm1d(3)", "return self.layer(x)", "layer result"),
    layer("nn.Embedding(ids)", "nn.Embedding(8, 4)", "return self.layer(ops.abs(x).astype(ms.int32))",
          "layer result"),
    layer("nn.Dropout(x)", "nn.Dropout(p=0.5)", "return self.layer(x)", "layer result"),
    layer("nn.Softmax(x)", "nn.Softmax()", "return self.layer(x)", "layer result"),
    layer("nn.Flatten(x)", "nn.Flatten()", "return self.layer(x)", "layer result"),
    layer("nn.TransformerEncoderLayer(x)", "nn.TransformerEncoderLayer(4, 1, 8, dropout=0.0)",
          "return self.layer(ops.concat((x, x[:, :1]), 1).reshape((2, 1, 4)))", "layer result"),
]

BUILTIN_PROBES = [builtin(call) for call in (
    "len(x)", "len(x.shape)", "abs(x)", "abs(-3)", "max(x[0, 0], x[0, 1])", "max(x[0])", "max(1, 3)",
    "min(x[0])", "sum(x)", "sum((1, 2, 3))", "round(x)", "round(2.567, 1)", "pow(x, 2)", "divmod(7, 2)",
    "int(x[0, 0])", "float(x[0, 0])", "bool(x.sum() > 0)", "int(2.5)", "tuple(x)", "list(x)", "list((1, 2))",
    "tuple(zip(x, x))", "tuple(enumerate(x))", "tuple(range(x.shape[0]))", "tuple(reversed((1, 2, 3)))",
    "tuple(sorted((3, 1, 2)))", "tuple(sorted(x[0]))", "all(x[0] > 0)", "any(x[0] > 0)", "all((True, False))",
    "isinstance(x, Tensor)", "str(3)", "str(x)", "type(x) == Tensor", "id(x) > 0", "len('abc')",
    "tuple(map(lambda v: v * 2, (1, 2)))", "tuple(filter(lambda v: v > 1, (1, 2, 3)))", "getattr(x, 'shape')",
    "hasattr(x, 'shape')")]

CONTAINER_PROBES = [
    container("list", "append", "values = [1, 2]\nvalues.append(3)\nreturn values"),
    container("list", "append", "values = []\nvalues.append(x)\nvalues.append(x * 2)\nreturn values", "Tensor"),
    container("list", "extend", "values = [1]\nvalues.extend((2, 3))\nreturn values"),
    container("list", "insert", "values = [1, 3]\nvalues.insert(1, 2)\nreturn values"),
    container("list", "pop", "values = [1, 2, 3]\nlast = values.pop()\nreturn values, last"),
    container("list", "remove", "values = [1, 2, 3]\nvalues.remove(2)\nreturn values"),
    container("list", "index", "values = [4, 5, 6]\nreturn values.index(5)"),
    container("list", "count", "values = [1, 1, 2]\nreturn values.count(1)"),
    container("list", "reverse", "values = [1, 2, 3]\nvalues.reverse()\nreturn values"),
    container("list", "clear", "values = [1, 2]\nvalues.clear()\nreturn len(values)"),
    container("list", "sort", "values = [3, 1, 2]\nvalues.sort()\nreturn values"),
    container("list", "copy", "values = [1, 2]\nother = values.copy()\nreturn other"),
    container("tuple", "index", "values = (4, 5, 6)\nreturn values.index(6)"),
    container("tuple", "count", "values = (1, 1, 2)\nreturn values.count(1)"),
    container("dict", "keys", "table = {'a': 1, 'b': 2}\nreturn tuple(table.keys())"),
    container("dict", "values", "table = {'a': 1, 'b': 2}\nreturn tuple(table.values())"),
    container("dict", "items", "table = {'a': 1, 'b': 2}\nreturn tuple(table.items())"),
    container("dict", "get", "table = {'a': x}\nreturn table.get('a'), table.get('b', 0)"),
    container("dict", "update", "table = {'a': 1}\ntable.update({'b': 2})\nreturn table['b']"),
    container("dict", "pop", "table = {'a': 1, 'b': 2}\nvalue = table.pop('a')\nreturn value"),
    container("dict", "pop", "table = {'a': x, 'b': x * 2}\nvalue = table.pop('a')\nreturn value + table['b']",
              "Tensor"),
    container("dict", "setdefault", "table = {'a': 1}\nvalue = table.setdefault('b', 2)\nreturn value"),
    container("dict", "popitem", "table = {'a': 1, 'b': 2}\nitem = table.popitem()\nreturn item"),
    container("dict", "clear", "table = {'a': 1}\ntable.clear()\nreturn len(table)"),
    container("dict", "copy", "table = {'a': 1}\nother = table.copy()\nreturn other['a']"),
    container("dict", "fromkeys", "table = dict.fromkeys(('a', 'b'), 0)\nreturn table['b']"),
    container("dict", "has_key", "table = {'a': 1}\nreturn table.has_key('a')"),
    container("str", "lower", "return 'ABC'.lower()"),
    container("str", "upper", "return 'abc'.upper()"),
    container("str", "format", "return '{}-{}'.format(1, 2)"),
    container("str", "join", "return '-'.join(('a', 'b'))"),
    container("str", "split", "return len('a-b'.split('-'))"),
    container("str", "replace", "return 'abc'.replace('b', 'x')"),
    container("str", "startswith", "return 'abc'.startswith('a')"),
    container("str", "strip", "return ' a '.strip()"),
    container("str", "find", "return 'abc'.find('c')"),
]

PROBES = (TUPLE_RESULT_PROBES + POSITIONAL_AXIS_PROBES + SHAPE_QUERY_PROBES + HOST_COPY_PROBES + SAME_DTYPE_PROBES
          + BOOL_RESULT_PROBES + DYNAMIC_SHAPE_PROBES + LAYER_PROBES + BUILTIN_PROBES + CONTAINER_PROBES)


# -- reading the records -----------------------------------------------------------------------------------------
def structure(record: dict) -> str:
    """The result's structure as the child saw it ("Tensor", "tuple of 2", "int", ...); '' if the run failed."""
    return record.get("kind", "") if record.get("status") == "ok" else ""


def dtype(encoded) -> str:
    """A Tensor's dtype, the dtypes of a sequence's items ("(float32, int64)"), or a Python scalar's type."""
    if not isinstance(encoded, dict):
        return ""
    if encoded.get("t") == "tensor":
        return encoded["dtype"]
    if encoded.get("t") in ("tuple", "list"):
        return "(" + ", ".join(dtype(item) for item in encoded["items"]) + ")"
    return encoded.get("t", "")


def shapes(encoded):
    """The shapes of the Tensors in an output (nested like it), for comparing two runs."""
    if not isinstance(encoded, dict):
        return None
    if encoded.get("t") == "tensor":
        return tuple(encoded["shape"])
    if encoded.get("t") in ("tuple", "list"):
        return tuple(shapes(item) for item in encoded["items"])
    return encoded.get("t")


def difference_kind(record: dict, reference: dict) -> str:
    """In what a run's result differs from PYNATIVE_MODE's: structure, dtype, shape or values ('' if equal)."""
    if not divergence(record, reference):
        return ""
    if structure(record).split(" of ")[0].replace("list", "tuple") != \
            structure(reference).split(" of ")[0].replace("list", "tuple") \
            or structure(record).split(" of ")[1:] != structure(reference).split(" of ")[1:]:
        return "structure"
    if dtype(record["out"]) != dtype(reference["out"]):
        return "dtype"
    if shapes(record["out"]) != shapes(reference["out"]):
        return "shape"
    return "values"


def level_outcome(record: dict, reference: dict) -> str:
    if record.get("status") in ("crashed", "timeout"):
        return record["status"]
    if record.get("status") != "ok":
        return "refused"
    kind = difference_kind(record, reference)
    return f"differs: {kind}" if kind else "fine"


def dynamic_shape(record: dict) -> bool:
    """PYNATIVE_MODE's output shapes differ between the two inputs (same shape, other values)."""
    if record.get("status") != "ok" or not record.get("more"):
        return False
    return any(shapes(other) != shapes(record["out"]) for other in record["more"])


def verdict(pynative: dict, lax: str, strict: str, dynamic: bool) -> str:
    if pynative.get("status") != "ok":
        return "pynative fails"
    if lax != "fine" and not lax.startswith("differs"):
        return "refused"
    if strict != "fine" and not strict.startswith("differs"):
        return "falls back"
    if lax.startswith("differs") or strict.startswith("differs"):
        return "differs"
    return "dynamic shape" if dynamic else "fine"


def entry_of(probe: ApiProbe, records: dict) -> dict:
    pyn, lax, strict = records["pynative"], records["lax"], records["strict"]
    lax_outcome, strict_outcome = level_outcome(lax, pyn), level_outcome(strict, pyn)
    dynamic = dynamic_shape(pyn)
    failing = next((r for r in (pyn, lax, strict) if r.get("status") != "ok"), {})
    error = failing.get("error", "")
    graph = lax if lax.get("status") == "ok" else strict
    return {
        "api": probe.api,
        "name": probe.name,
        "form": probe.form,
        "family": probe.family,
        "argument": probe.argument,
        "lax": lax_outcome,
        "strict": strict_outcome,
        "verdict": verdict(pyn, lax_outcome, strict_outcome, dynamic),
        "dynamic_shape": dynamic,
        "pynative_result": structure(pyn),
        "pynative_dtype": dtype(pyn.get("out")) if pyn.get("status") == "ok" else "",
        "graph_result": structure(graph),
        "graph_dtype": dtype(graph.get("out")) if graph.get("status") == "ok" else "",
        "difference": divergence(lax, pyn) or divergence(strict, pyn),
        "error": f"{failing.get('type', '')}: {error}"[:300] if error else "",
        "message_key": message_key(failing.get("message", error)) if error else "",
        "source": probe.body,
        "init": probe.init,
    }


def measure(probes, log=print, batch_size: int = 40) -> dict:
    raw = run_probes(probes, log, batch_size=batch_size, inputs=INPUTS)
    return {probe.key: entry_of(probe, raw[index]) for index, probe in enumerate(probes)}


def layer_input_kinds(measured: dict) -> dict:
    """layer -> {keyword: (position, kind)}: the one kind of the argument (tuple or Tensor) with which the layer
    runs, where the probes gave it both and the other was refused."""
    runs: dict = {}
    for entry in measured.values():
        if entry["family"] == "layer state":
            position, keyword, given = entry["argument"]
            ran = entry["verdict"] not in ("pynative fails", "refused")
            runs.setdefault(entry["api"], {}).setdefault((position, keyword), {})[given] = ran
    kinds: dict = {}
    for layer_name, arguments in runs.items():
        for (position, keyword), by_kind in arguments.items():
            accepted = [kind for kind, ran in by_kind.items() if ran]
            if len(by_kind) > 1 and len(accepted) == 1:
                kinds.setdefault(layer_name, {})[keyword] = (position, accepted[0])
    return kinds


def render(measured: dict, version: str) -> str:
    from mindspore_tables import render_module

    doc = ("What Tensor methods, ops / mint functions, nn layers, builtins and container methods do in graph code,\n"
           "MEASURED by compiling one small nn.Cell per call form and comparing its results with PYNATIVE_MODE.\n"
           "graphlint/analysis/api.py derives its API tables from MEASURED.")
    return render_module(version, doc, [
        ("MEASURED", measured,
         "probe key -> what running it did. 'source' is the body of construct(self, x) (x: float32 Tensor (2, 3),\n"
         "run on two inputs of other values), 'init' what __init__ sets up. 'lax' is GRAPH_MODE at the default\n"
         "syntax level, 'strict' mindspore.jit(cell, fullgraph=True): 'fine' (PYNATIVE_MODE's result), 'refused',\n"
         "'differs: structure|dtype|shape|values', 'crashed', 'timeout'. 'verdict': 'refused' (lax fails),\n"
         "'falls back' (lax runs, strict fails), 'differs', 'dynamic shape' (the output's shape depends on the\n"
         "input's values: 'dynamic_shape'), 'fine', 'pynative fails'. '*_result' is the result's structure\n"
         "('Tensor', 'tuple of 2', 'int', 'ndarray' ...) and '*_dtype' its dtype(s), in PYNATIVE_MODE and in graph\n"
         "code (lax, else strict). 'family' names the api.py table the probe stands for (FAMILIES); layer\n"
         "probes that vary one argument's kind give its (position, keyword) in 'argument'."),
        ("LAYER_INPUT_KINDS", layer_input_kinds(measured),
         "nn layer -> {argument keyword: (position, the kind it must be)}, from the 'layer state' probes: the\n"
         "layer ran with that kind and was refused (in PYNATIVE_MODE too) with the other."),
        ("FAMILIES", FAMILIES, "family -> what its probes stand for."),
    ], script="scripts/measure_api_behaviour.py", how=" (measured by compiling, not read from sources)")


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--dry-run", action="store_true", help="print the results, do not write the table")
    parser.add_argument("--only", nargs="*", default=None, help="measure only probes whose key contains one of these")
    args = parser.parse_args(argv)
    probes = PROBES
    keys = [p.key for p in PROBES]
    duplicates = sorted({k for k in keys if keys.count(k) > 1})
    if duplicates:
        parser.error(f"probe keys must be unique: {duplicates}")
    if args.only:
        probes = [p for p in PROBES if any(word in p.key for word in args.only)]
    measured = measure(probes)
    for key, entry in measured.items():
        print(f"{entry['verdict']:14} lax={entry['lax']:18} strict={entry['strict']:18} {key:40} "
              f"{entry['pynative_result']}/{entry['pynative_dtype']} -> {entry['graph_result']}/{entry['graph_dtype']}"
              f"{'  DYN' if entry['dynamic_shape'] else ''}  {entry['error'][:100]}")
    if args.dry_run or args.only:
        return 0
    with open(OUT, "w", encoding="utf-8") as handle:
        handle.write(render(measured, mindspore_version()))
    print(f"wrote {os.path.relpath(OUT, ROOT)}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
