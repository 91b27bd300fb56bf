"""What graphlint knows of MindSpore's API (and of the Python around it), in one place.

Every table of names a rule or a rewrite depends on lives here: Tensor attributes and methods, dtypes, the
``ops`` / ``mint`` / ``numpy`` functions with special behaviour, decorators and base classes, the Python
modules the graph compiler evaluates while compiling, measured limits. Checkers and fixers ask these tables (or
the queries of the analysis built on them); none keeps a list of its own.

Hand-made tables were measured with MindSpore 2.10.0 (each claim is proven by a catalogue example that the
test suite compiles). Tables read from MindSpore's own sources by ``scripts/mindspore_tables.py`` live in
:mod:`graphlint.analysis.generated` and carry the version they were read from.
"""

from __future__ import annotations

import enum
import functools
import sys

from graphlint.analysis.generated import (api_measured, creation_dtypes, jit_forbidden, layer_shapes, nn_parameters,
                                          op_dtypes, primitive_outputs, refused_measured)
from graphlint.analysis.generated import builtins as generated_builtins
from graphlint.analysis.kinds import (BOOL, CLASS, DICT, DTYPE, FLOAT, INT, LIST, NONE, NUMPY, OBJECT, STR, TENSOR, TUPLE,
                                      UNKNOWN)


# -- tables derived from generated.api_measured (written by scripts/measure_api_behaviour.py) --------------------
def _probes(families: str | tuple, forms: tuple = ()) -> list:
    """The measured probes of some families (and call forms) that ran: a call MindSpore lacks, or has no CPU
    kernel for, tells nothing about what it returns."""
    families = (families,) if isinstance(families, str) else families
    return [entry for entry in api_measured.MEASURED.values()
            if entry["family"] in families and (not forms or entry["form"] in forms)
            and (entry["pynative_result"] or entry["graph_result"])]


def _names(families: str | tuple, fact, forms: tuple = ()) -> frozenset:
    return frozenset(entry["name"] for entry in _probes(families, forms) if fact(entry))


def _container_methods(owner: str, fact) -> frozenset:
    """Methods of ``owner`` every probe of which has ``fact``."""
    entries = [entry for entry in _probes("container", (owner,))]
    return frozenset(entry["name"] for entry in entries
                     if all(fact(other) for other in entries if other["name"] == entry["name"]))


def _is_tuple(entry) -> bool:
    return entry["pynative_result"].startswith("tuple") or entry["graph_result"].startswith("tuple")


def _in_graph(entry) -> bool:
    return entry["lax"] == entry["strict"] == "fine"


def _falls_back(entry) -> bool:
    return entry["lax"] == "fine" and entry["verdict"] == "falls back"


def _keeps_float16(entry) -> bool:
    return entry["pynative_dtype"] == entry["graph_dtype"] == "float16"


def _result_kind(structure: str) -> str:
    """A measured result structure as a value kind; a Python scalar from a Tensor follows its dtype: UNKNOWN."""
    head = structure.split(" of ")[0]
    return {"list": LIST, "tuple": TUPLE, "ndarray": NUMPY, "Tensor": TENSOR}.get(head, UNKNOWN)


def _const_kind(structure: str) -> str:
    return {"int": INT, "bool": BOOL, "float": FLOAT}.get(structure, UNKNOWN)


def _arguments_of_kind(kind: str) -> dict:
    """{nn layer: (position, keyword)} of the arguments the layer accepts only as a ``kind`` (measured)."""
    return {layer: (position, keyword) for layer, arguments in api_measured.LAYER_INPUT_KINDS.items()
            for keyword, (position, accepted) in arguments.items() if accepted == kind}


# -- how public names are spelt -------------------------------------------------------------------------------
# MindSpore re-exports its internals under short public names: ``mindspore.ops.operations.Shape`` is
# ``ops.Shape``, ``mindspore.nn.layer.basic.Dense`` is ``nn.Dense``, ``mindspore.common.tensor.Tensor`` is
# ``mindspore.Tensor``. Rules speak of the public names: qualified prefix -> how many leading parts to keep.
FLATTENED_PACKAGES = {"mindspore.ops": 2, "mindspore.nn": 2, "mindspore.common": 1}
@functools.lru_cache(maxsize=None)  # (asked of the same few thousand names hundreds of thousands of times)
def canonical(qualified: str) -> str:
    parts = qualified.split(".")
    for prefix, keep in FLATTENED_PACKAGES.items():
        prefix_parts = prefix.split(".")
        if parts[: len(prefix_parts)] == prefix_parts and len(parts) > len(prefix_parts) + 1:
            return ".".join(parts[:keep] + parts[-1:])
    return qualified


# Words whose absence lets a file be skipped without parsing it.
MINDSPORE_WORDS = ("mindspore", "jit", "ms_function", "Cell", "construct")
# Top-level packages never loaded from disk: analysed by name only.
EXTERNAL_PACKAGES = frozenset({"mindspore", "numpy", "scipy", "torch", "jax", "tensorflow"})
# Namespaces of Tensor operations (functions under them compute on Tensors).
OPS_NAMESPACES = ("mindspore.ops.", "mindspore.mint.", "mindspore.numpy.")

# -- graph entries --------------------------------------------------------------------------------------------
JIT_DECORATORS = frozenset({"mindspore.jit", "mindspore.ms_function"})
JIT_CLASS_DECORATORS = frozenset({"mindspore.jit_class"})
# capture modes of mindspore.jit that do not parse the AST: the AST rules do not apply to them.
NON_AST_CAPTURE_MODES = frozenset({"bytecode", "trace"})
CELL_ENTRY_METHODS = ("construct", "bprop")
CELL_BASE = "mindspore.nn.Cell"


class ApiKind(enum.Enum):
    """What a name of MindSpore's operator and layer API is: see :func:`api_kind`."""

    PRIMITIVE = "a Primitive class"
    CELL = "a Cell class"
    FUNCTION = "a function"


def api_kind(qualified: str | None, *, direct: bool = False) -> ApiKind | None:
    """What a MindSpore name is, read from its spelling (MindSpore capitalises its classes); the one place that
    reads it so. Under ``mindspore.ops`` a capitalised name is a Primitive class (or an object graph code calls
    later, such as ``ops.WhileLoop``); under ``mindspore.nn`` a Cell class; a lower-case name under the Tensor
    operation namespaces (:data:`OPS_NAMESPACES`: ``ops``, ``mint``, ``numpy``) is a function (the capitalised
    ``mindspore.numpy.PINF`` is a number). None for every other name.

    ``direct``: only a member of ``mindspore.ops`` or ``mindspore.nn`` itself (``mindspore.ops.Cast``, not
    ``mindspore.ops.operations.Cast``), private names and the capitalised names that are not Primitive or Cell
    classes (:data:`OPS_NON_PRIMITIVES`, :data:`NN_NON_CELLS`) left out: what a rule may state as a fact."""
    if not qualified:
        return None
    namespace, _, name = qualified.rpartition(".")
    first = name[:1]
    if direct:
        if namespace == "mindspore.ops":
            if first.islower():
                return ApiKind.FUNCTION
            return ApiKind.PRIMITIVE if first.isupper() and name not in OPS_NON_PRIMITIVES else None
        if namespace == "mindspore.nn" and first.isupper() and name not in NN_NON_CELLS:
            return ApiKind.CELL
        return None
    if first.islower() and qualified.startswith(OPS_NAMESPACES):
        return ApiKind.FUNCTION
    if first.isupper() and qualified.startswith("mindspore.ops."):
        return ApiKind.PRIMITIVE
    if qualified.startswith(LAYER_NAMESPACES) and first.isupper():
        return ApiKind.CELL
    return None


# Cell methods that keep a Tensor as an attribute of the name given (`self.register_buffer("pos", t)`).
BUFFER_REGISTRARS = frozenset({"register_buffer"})
# The namespaces of MindSpore's layer classes: `nn.Dense`, and mint's torch-named ones (`mint.nn.Linear`, Cells too).
LAYER_NAMESPACES = ("mindspore.nn.", "mindspore.mint.nn.")


def is_layer_class_name(qualified: str | None) -> bool:
    """``mindspore.nn.Dense``, ``mindspore.mint.nn.Linear``: a MindSpore layer class (calling one makes a layer)."""
    return bool(qualified) and qualified.startswith(LAYER_NAMESPACES) and qualified.rsplit(".", 1)[-1][:1].isupper()


def is_mindspore_cell_name(qualified: str) -> bool:
    """``mindspore.nn.Cell`` and MindSpore's own Cell classes (``nn.Dense``, ``nn.SequentialCell`` ...): a
    capitalised member of ``mindspore.nn`` itself."""
    return qualified.count(".") == 2 and api_kind(qualified) is ApiKind.CELL


# Capitalised names under mindspore.ops / mindspore.nn that are not Primitive / Cell classes.
OPS_NON_PRIMITIVES = frozenset({
    "AiCPURegOp", "AkgAscendRegOp", "AkgGpuRegOp", "CpuRegOp", "CustomOpBuilder", "CustomRegOp", "DataType",
    "HyperMap", "J", "Map", "MultitypeFuncGraph", "P", "P2POp", "ReduceOp", "SliceGetItem", "TBERegOp", "TCPStore",
    "Tensor"})
NN_NON_CELLS = frozenset({
    "Accuracy", "BleuScore", "ConfusionMatrix", "ConfusionMatrixMetric", "CosineSimilarity", "Dice", "F1", "Fbeta",
    "HausdorffDistance", "Loss", "MAE", "MSE", "MeanSurfaceDistance", "Metric", "OcclusionSensitivity",
    "Perplexity", "Precision", "ROC", "Recall", "RootMeanSquareDistance", "Top1CategoricalAccuracy",
    "Top5CategoricalAccuracy", "TopKCategoricalAccuracy"})
# `x is Class`: these are instance makers for MindSpore, not types (parser.is_supported_create_instance_type).
PRIMITIVE_BASES = frozenset({"mindspore.ops.Primitive", "mindspore.ops.PrimitiveWithInfer",
                             "mindspore.ops.PrimitiveWithCheck", "mindspore.ops.GradOperation"})

# -- Tensors --------------------------------------------------------------------------------------------------
TENSOR_CONSTRUCTORS = frozenset({"mindspore.Tensor", "mindspore.tensor"})
PARAMETER = "mindspore.Parameter"
PARAMETER_MAKERS = frozenset({PARAMETER, "mindspore.ParameterTuple"})
PARAMETER_LISTING_METHODS = frozenset({"get_parameters", "trainable_params"})  # a Cell's Parameters
# Calls that make a Tensor (a constant of the graph when called in graph code).
TENSOR_MAKERS = frozenset({"mindspore.Tensor", "mindspore.tensor", "mindspore.Parameter", "mindspore.COOTensor",
                           "mindspore.CSRTensor", "mindspore.RowTensor"})
# Attributes read while compiling (constants of the graph), with the kind of their value.
TENSOR_CONST_ATTRIBUTES = {"shape": TUPLE, "ndim": INT, "dtype": DTYPE, "size": INT, "itemsize": INT,
                           "nbytes": INT, "strides": TUPLE}
# Attributes that are not values computed by the graph (a superset of the above: device placement too).
TENSOR_METADATA_ATTRIBUTES = frozenset({"shape", "dtype", "ndim", "device", "itemsize", "nbytes", "strides"})
TENSOR_CONST_METHODS = {entry["name"]: _const_kind(entry["graph_result"]) for entry in _probes("shape query")
                        if entry["graph_result"] in ("int", "bool", "float")}
# Methods whose result is a compile-time number (shape queries).
TENSOR_SHAPE_METHODS = frozenset({"size", "dim", "ndimension", "numel", "nelement", "stride", "element_size",
                                  "dtype"})
# Attributes that are views of the same data.
TENSOR_VIEW_ATTRIBUTES = frozenset({"T", "mT", "H", "mH", "real", "imag"})
# Methods that copy a value to the host, and the kind of what they return.
HOST_METHODS = {entry["name"]: _result_kind(entry["pynative_result"]) for entry in _probes("host copy")}
HOST_ARRAY_METHODS = frozenset({"asnumpy", "numpy"})  # -> a NumPy array (the JIT fallback)
# Builtins that turn a Tensor into a Python scalar (TensorToScalar in graph code).
SCALAR_CONVERSIONS = ("int", "float", "bool")
# Tensor methods that, called with no argument, reduce the whole Tensor to one element (whatever its shape was).
FULL_REDUCTIONS = frozenset({"sum", "mean", "max", "min", "amax", "amin", "argmax", "argmin", "prod", "any", "all",
                             "count_nonzero", "norm"})
# Methods that show an object of unknown kind (a Cell's output, say) is a Tensor.
TENSOR_ONLY_METHODS = frozenset({
    "sum", "mean", "max", "min", "amax", "amin", "argmax", "argmin", "prod", "item", "tolist", "asnumpy", "cumsum",
    "count_nonzero", "any", "all", "abs", "astype", "to", "int", "long", "float", "bool", "squeeze", "unsqueeze",
    "view", "reshape", "flatten", "nonzero", "masked_select", "expand_dims", "transpose", "permute", "norm", "clip",
    "clamp", "round", "floor", "ceil"})
# ops functions and Tensor methods some call form of which returns a tuple of Tensors (measured), and names
# MindSpore 2.10 does not have (`ops.frexp`, `ops.eigh` ...: their probes fail with AttributeError), kept for code
# written against other releases.
TUPLE_RESULT_OPS_NOT_IN_MINDSPORE = frozenset({"broadcast_tensors", "mode", "frexp", "eigh", "histogram"})
TUPLE_RESULT_OPS = _names(("tuple result", "unique"), _is_tuple) | TUPLE_RESULT_OPS_NOT_IN_MINDSPORE
# `Tensor.max` / `Tensor.min` with a positional axis: (values, indices) in PYNATIVE_MODE, the values only in graph
# code (both levels); with `dim=` a pair in both, with `axis=` the values in both (measured).
PAIRED_ONLY_WITH_DIM = _names("positional axis", lambda entry: entry["lax"] == "differs: structure", ("method",))
# Functions whose result is a compile-time constant even for Tensor arguments.
CONST_FUNCTIONS = {
    "mindspore.ops.shape": TUPLE, "mindspore.ops.rank": INT, "mindspore.ops.dtype": DTYPE,
    "mindspore.ops.size": INT, "mindspore.ops.is_tensor": BOOL, "mindspore.ops.isconstant": BOOL,
    "mindspore.ops.typeof": OBJECT, "mindspore.ops.tuple_len": INT, "mindspore.ops.get_shape": TUPLE,
    "mindspore.ops.is_sequence_shape_unknown": BOOL, "mindspore.ops.is_sequence_value_unknown": BOOL,
}
CONST_PRIMITIVES = {"Shape": TUPLE, "Rank": INT, "DType": DTYPE, "Size": INT}
# Ops the graph compiler folds into a constant Tensor of the graph (measured: `acc = ops.ones_like(x);
# acc += x` returns x+1, then 2x+1), unlike ops.zeros_like, ops.ones, ops.full.
CONSTANT_FOLDED_OPS = frozenset({"mindspore.ops.ones_like"})
# ops whose arguments are sizes: a parameter passed to them is not shown to be a Tensor.
SIZE_TAKING_OPS = frozenset({"arange", "range", "zeros", "ones", "empty", "full", "fill", "linspace", "logspace",
                             "eye", "rand", "randn", "randint", "Tensor", "tensor"})
# Augmented operators measured to update a Tensor in place in graph code (`**=` does not).
INPLACE_AUGMENTED_OPERATORS = frozenset({"+=", "-=", "*=", "/=", "//="})

# -- dtypes ---------------------------------------------------------------------------------------------------
DTYPE_NAMES = frozenset({"float16", "float32", "float64", "int8", "int16", "int32", "int64", "uint8", "uint16",
                         "uint32", "uint64", "bool_", "bfloat16", "complex64", "complex128"})
DTYPE_ALIASES = {"float_": "float32", "half": "float16", "single": "float32", "double": "float64",
                 "int_": "int64", "long": "int64", "short": "int16", "bool": "bool_"}
# Names under `mindspore.` that are dtypes (constants of the graph).
DTYPE_CONSTANTS = DTYPE_NAMES | frozenset({"float_", "int_", "number"})
BOOL_DTYPES = frozenset({"mindspore.bool_", "mindspore.bool"})
# ops whose result has the dtype of their first Tensor argument, and Tensor methods likewise (measured on a float16
# Tensor; `Tensor.clone` has no CPU kernel in 2.10 and stays as typed).
SAME_DTYPE_OPS = _names("same dtype", _keeps_float16, ("op", "mint"))
SAME_DTYPE_METHODS = _names("same dtype", _keeps_float16, ("method",)) | {"clone"}
# Tensor methods that cast, and the dtype they cast to.
CASTING_METHODS = {"float": "float32", "int": "int32", "bool": "bool_"}
CAST_OPS = frozenset({"mindspore.ops.cast", "mindspore.ops.Cast"})
CAST_METHODS = frozenset({"astype", "to"})
# Element-wise predicates: their result is a bool Tensor (measured; bitwise_* on bool Tensors).
BOOL_RESULT_OPS = _names("bool result", lambda entry: entry["pynative_dtype"] == "bool", ("op", "mint"))
BOOL_RESULT_METHODS = _names("bool result", lambda entry: entry["pynative_dtype"] == "bool", ("method",))

# -- dynamic shapes -------------------------------------------------------------------------------------------
# Function names (last part, under OPS_NAMESPACES) and Tensor methods whose output size depends on values.
# (measured: the output's shape differs between two inputs of one shape; `mindspore.numpy.flatnonzero` is not in
# MindSpore 2.10 and stays as typed)
MASKED_SELECT_OPS = _names("masked_select", lambda entry: entry["dynamic_shape"])
NONZERO_OPS = _names("nonzero", lambda entry: entry["dynamic_shape"]) | {"flatnonzero"}
UNIQUE_OPS = _names("unique", lambda entry: entry["dynamic_shape"])
# `t[mask] = v[m]` with a masked (data-length) value fails from this rank of `t` up; rank 1 compiles (measured).
MASKED_ASSIGNMENT_FAILS_FROM_RANK = 2
MASKED_SELECT_PRIMITIVES = frozenset({"MaskedSelect"})
NONZERO_PRIMITIVES = frozenset({"NonZero", "NonZeroExt", "Argwhere"})
UNIQUE_PRIMITIVES = frozenset({"Unique", "UniqueConsecutive"})
# Creation ops: which positional arguments (None: all) / keywords give the size of the result.
CREATION_OPS = {
    "arange": (None, ("start", "end", "step")),
    "range": (None, ("start", "end", "step", "limit", "delta")),
    "zeros": (None, ("size", "shape")),
    "ones": (None, ("size", "shape")),
    "empty": (None, ("size", "shape")),
    "full": ((0,), ("size", "shape")),
    "fill": ((1,), ("shape", "size")),
    "linspace": ((2,), ("steps", "num")),
    "logspace": ((2,), ("steps", "num")),
    "eye": ((0, 1), ("n", "m", "N", "M")),
    "rand": (None, ("size", "shape")),
    "randn": (None, ("size", "shape")),
    "randint": ((2,), ("size", "shape")),
}
CREATION_METHODS = {"new_zeros": (0,), "new_ones": (0,), "new_empty": (0,), "new_full": (0,)}
CREATION_PRIMITIVES = {"Zeros": (0,), "Ones": (0,), "Range": (0, 1, 2), "Fill": (1,), "Eye": (0, 1)}

# -- loops ----------------------------------------------------------------------------------------------------
# Unrolling: MindSpore's default call-depth limit and the margins measured by bisecting trip counts.
DEFAULT_CALL_DEPTH_LIMIT = 1000
CALL_DEPTH_MARGIN = 4  # measured: depth >= 996 fails, <= 993 compiles with the default limit 1000
# Calls that raise the limit: qualified name -> (position, keyword) of the new limit.
RECURSION_LIMIT_SETTERS = {"mindspore.set_recursion_limit": (0, "recursion_limit"),
                           "mindspore.set_context": (None, "max_call_depth"),
                           "mindspore.context.set_context": (None, "max_call_depth")}
COMPREHENSION_EXTRA_DEPTH = 8  # fitted: a list comprehension summed with `sum` fails at 494 elements, 493 compile
# ops (and Tensor methods) that change the shape of what they return relative to their input, by how.
SHAPE_CHANGING_OPS = {
    "mindspore.ops.concat": "concat", "mindspore.ops.cat": "concat", "mindspore.ops.Concat": "concat",
    "mindspore.ops.stack": "stack", "mindspore.ops.Stack": "stack",
    "mindspore.ops.tile": "tile", "mindspore.ops.Tile": "tile",
    "mindspore.ops.expand_dims": "expand", "mindspore.ops.unsqueeze": "expand",
    "mindspore.ops.ExpandDims": "expand",
    "mindspore.numpy.concatenate": "concat", "mindspore.numpy.stack": "stack", "mindspore.numpy.tile": "tile",
    "mindspore.numpy.expand_dims": "expand",
}
SHAPE_CHANGING_METHODS = {"expand_dims": "expand", "unsqueeze": "expand", "tile": "tile"}
# Functional loops: the primitives, and (positional index, keyword) of each argument.
FUNCTIONAL_LOOP_PRIMITIVES = ("WhileLoop", "ForiLoop", "Scan")
FUNCTIONAL_LOOP_ARGUMENTS = {
    "WhileLoop": {"cond": (0, "cond_func"), "body": (1, "loop_func"), "init": (2, "init_val")},
    "ForiLoop": {"lower": (0, "lower"), "upper": (1, "upper"), "body": (2, "loop_func"), "init": (3, "init_val"),
                 "unroll": (4, "unroll")},
    "Scan": {"body": (0, "loop_func"), "init": (1, "init"), "xs": (2, "xs"), "length": (3, "length"),
             "unroll": (4, "unroll")},
}
MAP_PRIMITIVES = frozenset({"mindspore.ops.Map", "mindspore.ops.HyperMap"})
ASSIGN_OPS = frozenset({"mindspore.ops.assign", "mindspore.ops.assign_add", "mindspore.ops.assign_sub",
                        "mindspore.ops.Assign", "mindspore.ops.AssignAdd", "mindspore.ops.AssignSub"})
PRINT_OPS = frozenset({"mindspore.ops.print_", "mindspore.ops.Print"})
# nn Cells that hold weights (a Parameter in a ForiLoop/Scan body breaks its arity check).
WEIGHTED_CELLS = frozenset({
    "Dense", "Linear", "Conv1d", "Conv2d", "Conv3d", "Conv1dTranspose", "Conv2dTranspose", "Conv3dTranspose",
    "BatchNorm1d", "BatchNorm2d", "BatchNorm3d", "LayerNorm", "GroupNorm", "InstanceNorm1d", "InstanceNorm2d",
    "InstanceNorm3d", "Embedding", "EmbeddingLookup", "LSTM", "GRU", "RNN", "LSTMCell", "GRUCell", "RNNCell",
    "PReLU", "MultiheadAttention", "Transformer", "TransformerEncoder", "TransformerDecoder",
    "TransformerEncoderLayer", "TransformerDecoderLayer", "BiDense", "Bilinear"})

# -- Python builtins as the graph compiler evaluates them -------------------------------------------------------
# Builtins whose result is a compile-time constant, with its kind.
# What `isinstance(value, C)` tests, for the classes graph code tests against: the kinds of value that pass.
ISINSTANCE_KINDS = {"Tensor": frozenset({TENSOR}), "Parameter": None, "list": frozenset({LIST}),
                    "tuple": frozenset({TUPLE}), "dict": frozenset({DICT}), "str": frozenset({STR}),
                    "int": frozenset({INT, BOOL}), "float": frozenset({FLOAT}), "bool": frozenset({BOOL})}
BUILTIN_CONSTANT_RESULTS = {"len": INT, "isinstance": BOOL, "issubclass": BOOL, "hasattr": BOOL, "callable": BOOL,
                            "type": CLASS, "id": INT, "getattr": UNKNOWN, "repr": STR, "str": STR}
# Numeric builtins: a Tensor argument makes the result a runtime value.
BUILTIN_NUMERIC_RESULTS = {"int": INT, "float": FLOAT, "bool": BOOL, "abs": UNKNOWN, "round": UNKNOWN,
                           "min": UNKNOWN, "max": UNKNOWN, "sum": UNKNOWN, "pow": UNKNOWN, "divmod": TUPLE}
# Builtins whose result is made of their arguments (a runtime argument gives a runtime result).
PASS_THROUGH_BUILTINS = frozenset({"int", "float", "bool", "abs", "round", "min", "max", "sum", "len", "tuple",
                                   "list", "zip", "enumerate", "reversed", "sorted", "range", "divmod", "pow"})
ITERATOR_BUILTINS = frozenset({"zip", "enumerate", "reversed", "sorted", "map", "filter", "iter"})
# Methods of Python containers that read (not mutate) them.
CONTAINER_READ_METHODS = frozenset({"get", "items", "keys", "values", "index", "count", "pop", "copy", "setdefault"})
DICT_METHODS = frozenset({"items", "keys", "values", "get"})
# Methods that mutate a Python container in place.
CONTAINER_MUTATORS = frozenset({"append", "extend", "insert", "pop", "remove", "clear", "update", "setdefault",
                                "popitem", "add", "discard", "sort", "reverse", "appendleft", "extendleft", "popleft"})
CONTAINER_BUILTINS = frozenset({"list", "dict", "set"})
CONTAINER_FACTORIES = frozenset({"collections.OrderedDict", "collections.defaultdict", "collections.deque",
                                 "collections.Counter"})
PLAIN_VALUE_BUILTINS = frozenset({"list", "dict", "set", "tuple", "int", "float", "bool", "str", "len", "min", "max",
                                  "abs", "round", "sum"})
# Annotations of containers (the name of the subscripted type) and what they are.
CONTAINER_ANNOTATIONS = {"List": LIST, "list": LIST, "Sequence": LIST, "MutableSequence": LIST, "Tuple": TUPLE,
                         "tuple": TUPLE, "Dict": DICT, "dict": DICT, "Mapping": DICT, "MutableMapping": DICT}
# Graph-input annotations: what a top-level graph receives for them.
GRAPH_INPUT_CONTAINER_ANNOTATIONS = {
    "dict": "dict", "Dict": "dict", "Mapping": "dict", "MutableMapping": "dict", "OrderedDict": "dict",
    "tuple": "tuple", "Tuple": "tuple", "list": "list", "List": "list", "Sequence": "tuple",
}
SCALAR_ANNOTATIONS = {"int": INT, "float": FLOAT, "bool": BOOL, "str": STR, "tuple": TUPLE, "list": LIST,
                      "dict": DICT}

# -- modules the graph compiler runs while compiling (frozen into the graph) ------------------------------------
HOST_MODULES = frozenset({"numpy", "math", "random", "time", "os"})
# Packages whose functions return what they are given, for provenance (they do not make Tensors).
VALUE_PRESERVING_PACKAGES = frozenset({"mindspore", "numpy", "math", "builtins", "functools", "operator",
                                       "itertools", "typing"})
RANDOM_MODULES = ("random.", "numpy.random.")
RANDOM_NON_DRAWS = frozenset({"seed", "getstate", "setstate", "get_state", "set_state"})
CLOCKS = frozenset({
    "time.time", "time.time_ns", "time.perf_counter", "time.perf_counter_ns", "time.monotonic",
    "time.monotonic_ns", "time.process_time", "time.process_time_ns", "time.thread_time",
    "time.thread_time_ns", "time.localtime", "time.gmtime", "time.ctime", "time.asctime", "time.strftime",
    "datetime.datetime.now", "datetime.datetime.utcnow", "datetime.datetime.today", "datetime.date.today",
})
ENVIRON_CALLS = frozenset({"os.getenv", "os.getenvb", "os.environ.get", "os.environb.get"})
ENVIRON = frozenset({"os.environ", "os.environb"})
# (not `warning_once` / `info_once`: they log once in PYNATIVE_MODE too, as graph code does while compiling)
LOG_METHODS = frozenset({"debug", "info", "warning", "warn", "error", "exception", "critical", "fatal", "log"})
WARNING_CALLS = frozenset({"warnings.warn", "warnings.warn_explicit"})
LOGGER_NAMES = frozenset({"logger", "_logger", "log", "_log"})
LOGGER_FACTORIES = ("getLogger", "get_logger")
LOGGING_MODULES = ("logging",)  # mindspore.log is refused outright (jit_forbidden), not run at compile time
MATH_CONSTANTS = frozenset({"math.pi", "numpy.pi", "math.e", "numpy.e", "math.inf", "numpy.inf"})
# NumPy functions whose arguments are sizes / shapes / bounds / dtypes.
NUMPY_SIZE_FUNCTIONS = frozenset({
    "zeros", "ones", "empty", "full", "arange", "linspace", "logspace", "geomspace", "eye", "identity", "tri",
    "indices", "ndindex", "tril_indices", "triu_indices", "finfo", "iinfo", "dtype", "result_type", "promote_types",
    "can_cast", "issubdtype"})

# NumPy functions whose result is an `ndarray` whatever they are given (in graph code: a host object, which
# STRICT rejects as "Illegal type in the graph ... numpy.ndarray").
NUMPY_ARRAY_MAKERS = frozenset({
    "array", "asarray", "ascontiguousarray", "copy", "zeros", "ones", "empty", "full", "zeros_like", "ones_like",
    "empty_like", "full_like", "arange", "linspace", "logspace", "geomspace", "eye", "identity", "tri", "tril",
    "triu", "diag", "stack", "vstack", "hstack", "concatenate", "reshape", "transpose", "tile", "repeat",
    "frombuffer", "fromiter", "meshgrid"})

# What calling an instance of an `nn` layer gives in graph code: a Tensor, except these (measured: a tuple) and the
# containers, whose result is whatever their members give.
NN_TUPLE_RESULT_LAYERS = _names(("layer result", "layer state"), _is_tuple)
# nn layer -> the attributes it sets to Parameters (read from MindSpore's sources)
NN_LAYER_PARAMETERS = nn_parameters.NN_LAYER_PARAMETERS


def layer_makes_parameter(layer: str | None, name: str) -> bool:
    """The MindSpore layer ``layer`` (qualified, ``mindspore.nn.Dense``) sets ``self.name`` to a Parameter in its
    constructor (generated.nn_parameters)."""
    return layer is not None and name in NN_LAYER_PARAMETERS.get(layer.rsplit(".", 1)[-1], ())


def layer_primitive(layer: str | None, name: str) -> str | None:
    """``mindspore.ops.LayerNorm`` when the MindSpore layer ``layer`` sets ``self.name`` to an instance of that
    Primitive in its constructor (generated.nn_parameters), else None."""
    made = nn_parameters.NN_LAYER_PRIMITIVES.get(layer.rsplit(".", 1)[-1], {}).get(name) if layer else None
    return f"mindspore.ops.{made}" if made else None


# Primitive classes whose instances return a tuple (generated.primitive_outputs, from their documentation)
# Tensor-making functions -> the dtype they give without a dtype argument (generated.creation_dtypes, measured)
CREATION_DEFAULT_DTYPES = creation_dtypes.CREATION_DEFAULT_DTYPES


def measured_dtype_rule(kind: str, name: str) -> tuple | None:
    """``(rule, Tensor inputs, integer arguments)`` of an operation's result dtype, measured
    (generated.op_dtypes): ``kind`` "function" (``mindspore.ops.bmm``), "primitive" (``mindspore.ops.BatchMatMul``,
    an instance whose constructor arguments cannot change the dtype) or "method" (``matmul``)."""
    if kind == "function":
        return op_dtypes.FUNCTION_DTYPES.get(name)
    if kind == "method":
        return op_dtypes.METHOD_DTYPES.get(name)
    found = op_dtypes.PRIMITIVE_DTYPES.get(name)
    return found[:3] if found is not None and not found[3] else None
TUPLE_RESULT_PRIMITIVES = primitive_outputs.TUPLE_RESULT_PRIMITIVES
TENSOR_TUPLE_RESULT_PRIMITIVES = primitive_outputs.TENSOR_TUPLE_RESULT_PRIMITIVES


def primitive_result_input(primitive: str, item: int | None, what: str) -> int | None:
    """The position of the input whose dtype or shape (``what``) the Primitive's result has, as its documentation
    gives it (generated.primitive_outputs): ``item`` of a tuple result, None for a single Tensor."""
    name = primitive.rsplit(".", 1)[-1] if primitive.startswith("mindspore.ops.") else None
    for result, position, stated in primitive_outputs.RESULTS_LIKE_INPUTS.get(name, ()):
        if result == item and what in stated:
            return position
    return None
# nn layers whose measured input is integer ids (their result is float32 rows of their table)
NN_INDEX_INPUT_LAYERS = _names("layer result", lambda entry: "astype(ms.int32)" in entry["source"])
NN_CONTAINER_CELLS = frozenset({"SequentialCell", "CellList", "CellDict", "GraphCell", "Identity"})
# nn layers whose result has their input's shape (generated.layer_shapes, measured); a container's depends on its
# members
SHAPE_KEEPING_LAYERS = frozenset(layer_shapes.SHAPE_KEEPING_LAYERS) - NN_CONTAINER_CELLS
# nn layers whose result's shape their construction gives: {layer: ((parameter, literal default), ...)}
LAYER_CONSTRUCTORS = layer_shapes.CONSTRUCTOR_SIGNATURES
# nn layers that type-check an input as a tuple: {layer: (position in the call, keyword)} (measured: they refuse a
# Tensor there). `nn.LSTM(x, self.hidden)` stops with "For 'LSTM', the 'hx' must be Tuple, but got Tensor" when
# `hidden` is an attribute that graph code also writes (read back as an interpreted object); `nn.GRU` takes a Tensor.
NN_TUPLE_STATE_INPUTS = _arguments_of_kind("tuple")

# -- Cells and attributes ---------------------------------------------------------------------------------------
# Calls that add parameters or sub-cells to a Cell dynamically (attribute facts cannot be read statically).
DYNAMIC_ATTRIBUTE_SETTERS = frozenset({"setattr", "insert_param_to_cell", "insert_child_to_cell", "__setattr__",
                                       "_params_list", "update_parameters_name"})
# Methods that by name set an object up (often called by a subclass or a builder, not from `__init__`).
CONSTRUCTION_METHOD_PREFIXES = ("init", "setup", "build", "reset_parameters", "initialize", "post_init")

# -- context managers and classes in graph code -------------------------------------------------------------------
STDLIB_MODULES = frozenset(getattr(sys, "stdlib_module_names", ())) | {
    "contextlib", "threading", "warnings", "tempfile", "decimal", "os", "io", "socket", "multiprocessing"}
# Third-party packages whose context managers are certainly no @mindspore.jit_class classes.
FOREIGN_PACKAGES = frozenset({"numpy", "torch", "scipy", "jax", "tensorflow", "tqdm"})
# MindSpore's own managers proven to fail in graph code.
REJECTED_CONTEXT_MANAGERS = frozenset({"mindspore._no_grad", "mindspore.common.api._no_grad",
                                       "mindspore.graph.api._no_grad", "mindspore.api._no_grad"})
CONTEXTMANAGER_DECORATORS = frozenset({"contextlib.contextmanager"})
# Managers whose `with` a rewrite can drop: one that does nothing, and MindSpore's no-gradient one (in graph code
# `ops.stop_gradient` on what the block computes has the same effect on gradients).
NULL_CONTEXT_MANAGERS = frozenset({"contextlib.nullcontext"})
NO_GRAD_CONTEXT_MANAGERS = REJECTED_CONTEXT_MANAGERS
# Value kinds `ops.stop_gradient` takes and stops gradients through (measured in both modes: Tensors, tuples, lists
# and dicts of them, None and numbers; a plain object comes back unchanged, its Tensors still tracked).
STOP_GRADIENT_KINDS = frozenset({TENSOR, TUPLE, LIST, DICT, NONE, INT, FLOAT, BOOL})
# Class decorators known not to turn a class into a jit_class.
HARMLESS_CLASS_DECORATORS = frozenset({"dataclasses.dataclass", "functools.total_ordering", "typing.final"})
ENUM_BASES = frozenset({"enum.Enum", "enum.Flag"})


# -- what MindSpore refuses in graph code (from its jit_forbidden registry, read by scripts/mindspore_tables.py) ---
def _jit_forbidden_tables():
    compiles = {entry["api"] for entry in refused_measured.MEASURED.values()
                if entry["kind"] in ("forbidden", "forbidden_module") and entry["verdict"] == "compiles"}
    refused_everywhere = {entry["api"] for entry in refused_measured.MEASURED.values()
                          if entry["kind"] in ("forbidden", "forbidden_module") and entry["verdict"] == "fails"}
    names: dict[str, str] = {}  # canonical public spelling -> the name MindSpore's message quotes
    cell_methods: dict[str, str] = {}  # Cell method -> registered name
    object_methods: dict[str, tuple[str, str]] = {}  # method -> (owner class, registered name)
    for registered, entry in jit_forbidden.FORBIDDEN_METHODS.items():
        if entry["private"] or (registered in compiles and registered not in refused_everywhere):
            continue
        owner = entry["owner"]
        if owner == "Cell":
            cell_methods[entry["name"]] = registered
        elif owner in ("Parameter", "Tensor"):
            object_methods[entry["name"]] = (owner, registered)
        elif not owner:
            for public in entry["public"]:
                names[canonical(public)] = registered
    for public, registered in jit_forbidden.FORBIDDEN_BY_PUBLIC_NAME.items():
        member = jit_forbidden.FORBIDDEN_MODULE_MEMBERS.get(registered)
        if member is not None and not member["name"].startswith("_"):
            names[canonical(public)] = registered
    return names, cell_methods, object_methods


JIT_FORBIDDEN_NAMES, JIT_FORBIDDEN_CELL_METHODS, JIT_FORBIDDEN_OBJECT_METHODS = _jit_forbidden_tables()
# Classes whose constructor MindSpore registers as forbidden: creating one compiles, `with` one fails.
JIT_FORBIDDEN_CONTEXT_MANAGERS = frozenset(
    canonical(public.rsplit(".", 1)[0])
    for entry in jit_forbidden.FORBIDDEN_METHODS.values()
    if entry["name"] == "__init__" for public in entry["public"])
JIT_FORBIDDEN_MODULES = frozenset(jit_forbidden.FORBIDDEN_MODULES)
# Forbidden Cell methods that only read the Cell (a statement whose result nothing uses can go).
CELL_READING_METHODS = frozenset({"buffers", "get_buffer", "get_parameters", "get_sub_cell", "named_buffers",
                                  "state_dict", "trainable_params", "untrainable_params"})
# Forbidden functions that only make or read a value (no effect on the Cell, the context or a Parameter): an
# assignment of their result that nothing reads can go.
VALUE_ONLY_CALLS = frozenset({"mindspore.initializer", "mindspore.common.initializer.initializer",
                              "mindspore.get_context", "mindspore.context.get_context"})


def jit_forbidden_name(qualified: str | None) -> str | None:
    """The name MindSpore's error quotes for a forbidden API that ``qualified`` (a canonical name) is, or is an
    attribute of: a registered function or class, or any public member of a module MindSpore forbids whole
    (:data:`JIT_FORBIDDEN_MODULES`) but its constants (``context.GRAPH_MODE`` is read as a constant of the
    graph: it compiles). None for any other name."""
    if qualified is None:
        return None
    parts = qualified.split(".")
    for end in range(len(parts), 1, -1):
        registered = JIT_FORBIDDEN_NAMES.get(".".join(parts[:end]))
        if registered is not None:
            return registered
    for module in sorted(JIT_FORBIDDEN_MODULES):
        member = qualified[len(module) + 1:]
        if qualified.startswith(module + ".") and not member.startswith("_") and not member.isupper():
            return qualified
    return None

# -- builtins and container methods in graph code (measured with MindSpore 2.10; the builtin list is read from
# its parser: generated.builtins.BUILTIN_SUPPORT) ----------------------------------------------------------------
def _fallback_builtins() -> frozenset:
    return frozenset(name for name, (support, _) in generated_builtins.BUILTIN_SUPPORT.items()
                     if support != "supported")


# Builtins the parser does not convert: on run-time values only the JIT fallback runs them (STRICT fails).
FALLBACK_BUILTINS = _fallback_builtins()
# max/min cannot compare Tensors held in nested sequences ("max() cannot support tensor in list or tuple nested").
NESTED_TENSOR_REDUCTIONS = frozenset({"max", "min"})
# str methods graph code runs natively (measured); the other str methods compile only by JIT fallback.
STR_METHODS_IN_GRAPH = _container_methods("str", _in_graph)
# Methods that exist on list/dict and compile only by JIT fallback (measured); str: every str method but the above.
LIST_METHODS_FALLING_BACK = _container_methods("list", _falls_back)
DICT_METHODS_FALLING_BACK = _container_methods("dict", _falls_back)
# Dict methods graph code refuses at the lax level too (measured: `pop` misreads its value or fails).
DICT_METHODS_REFUSED = _container_methods("dict", lambda entry: entry["lax"] == "refused")
STR_METHODS = frozenset(name for name in dir(str) if not name.startswith("_"))
# List methods that GRAPH_MODE (lax) runs on a copy: the list itself is left unchanged (measured: diverges).
LIST_MUTATIONS_LOST = _container_methods("list", lambda entry: entry["lax"].startswith("differs"))
INT64_MIN, INT64_MAX = -2 ** 63, 2 ** 63 - 1
# `reversed(seq)`: the parser does not convert it (generated.builtins: unsupported_external_type), the JIT fallback
# runs it, and STRICT needs every name its argument mentions to be a constant ("the inputs should be constant, but
# found variable 'x'", also for `reversed(range(x.shape[0]))` and `reversed(range(len(items)))`). At the lax level
# a loop over the interpreter's reverse iterator loses what its body adds to a list of the enclosing code (these
# methods, `+=`, `outs = outs + [...]`), a comprehension over it computes wrong values and `enumerate()` of it
# fails; reversed Cells (a CellList, a list or tuple of Cells) fail when the graph runs ("Unsupported element
# type[unknown] to set element data type for KernelTensor"). `seq[::-1]` and `list.reverse()` compile at both
# levels, and so does `reversed(self.layers)` of a SequentialCell. Measured with MindSpore 2.10 (CPU).
LIST_GROWING_METHODS = frozenset({"append", "extend", "insert"})


def two_axis_transpose(first: int, second: int) -> str | None:
    """What graph code does with PyTorch's ``x.transpose(a, b)`` (swap two axes; PYNATIVE_MODE accepts it): it reads
    the two numbers as the whole permutation. Measured with MindSpore 2.10 (CPU), lax and STRICT alike: on a
    Tensor of 3 or more dimensions it fails ("the number of axes must be equal to the dimension of Tensor"); on a
    2-D one ``(0, 1)`` (or ``(-2, -1)``) is the identity where PYNATIVE_MODE swaps, ``(1, 0)`` agrees, and one axis
    named twice (``(-1, 1)``, Autoformer's habit) fails too ("perms should all be unique dim"). ``"fails"`` where
    an axis names a third dimension, ``"fails at every rank"`` for one axis named twice, ``"fails or identity"`` for
    the identity permutation of a 2-D Tensor, None for ``(1, 0)`` and its spellings (right on a 2-D Tensor; the
    rank decides)."""
    if not -2 <= first <= 1 or not -2 <= second <= 1:
        return "fails"
    if first % 2 == second % 2:
        return "fails at every rank"
    if (first % 2, second % 2) == (0, 1):
        return "fails or identity"
    return None


SWAP_AXES_METHOD = "swapaxes"  # Tensor.swapaxes(a, b): PyTorch's two-axis transpose, the same in both modes
# Calls that need a sequence whose length is known while compiling: given a list whose length a run-time condition
# decides (an `append` under a Tensor `if`), they fail at both levels, at compile time or when the run takes the
# shorter branch (measured with MindSpore 2.10, CPU: ops.stack, ops.cat; mint.stack has no CPU kernel at all).
STATIC_LENGTH_SEQUENCE_OPS = frozenset({"mindspore.ops.stack", "mindspore.ops.cat", "mindspore.ops.concat"})
REVERSED_CELL_SEQUENCES = frozenset({"mindspore.nn.CellList"})
# What `from <module> import *` binds for MindSpore modules: the names of the module's `__all__` (read from
# MindSpore 2.10). `from mindspore import *` itself fails at import in 2.10 (its `__all__` holds the characters of a
# version string: "No module named 'mindspore.'"), so it has no entry.
STAR_IMPORT_NAMES = {
    "mindspore.nn": frozenset({
    "ASGD", "Accuracy", "AdaFactor", "AdaMax", "AdaSumByDeltaWeightWrapCell", "AdaSumByGradWrapCell", "Adadelta",
    "Adagrad", "Adam", "AdamOffload", "AdamWeightDecay", "AdaptiveAvgPool1d", "AdaptiveAvgPool2d",
    "AdaptiveAvgPool3d", "AdaptiveMaxPool1d", "AdaptiveMaxPool2d", "AdaptiveMaxPool3d", "AvgPool1d", "AvgPool1dExt",
    "AvgPool2d", "AvgPool2dExt", "AvgPool3d", "AvgPool3dExt", "BCELoss", "BCEWithLogitsLoss", "BatchNorm1d",
    "BatchNorm2d", "BatchNorm3d", "BiDense", "BleuScore", "CELU", "CTCLoss", "Cell", "CellDict", "CellList",
    "CentralCrop", "ChannelShuffle", "ClipByNorm", "ConfusionMatrix", "ConfusionMatrixMetric", "ConstantPad1d",
    "ConstantPad2d", "ConstantPad3d", "Conv1d", "Conv1dTranspose", "Conv2d", "Conv2dBnAct", "Conv2dThor",
    "Conv2dTranspose", "Conv3d", "Conv3dTranspose", "CosineDecayLR", "CosineEmbeddingLoss", "CosineSimilarity",
    "CrossEntropyLoss", "Dense", "DenseBnAct", "DenseThor", "DiGamma", "Dice", "DiceLoss", "DistributedGradReducer",
    "Dropout", "Dropout1d", "Dropout2d", "Dropout2dExt", "Dropout3d", "DropoutExt", "DynamicLossScaleUpdateCell",
    "ELU", "Embedding", "EmbeddingExt", "EmbeddingLookup", "EmbeddingLookupThor", "EmbeddingThor",
    "ExponentialDecayLR", "F1", "FTRL", "FastGelu", "Fbeta", "FixedLossScaleUpdateCell", "Flatten", "FocalLoss",
    "ForwardValueAndGrad", "FractionalMaxPool2d", "FractionalMaxPool3d", "GELU", "GLU", "GRU", "GRUCell",
    "GaussianNLLLoss", "GetNextSingleOp", "GradAccumulationCell", "GraphCell", "GroupNorm", "HShrink", "HSigmoid",
    "HSwish", "Hardtanh", "HausdorffDistance", "HingeEmbeddingLoss", "HuberLoss", "IGamma", "Identity",
    "ImageGradients", "InstanceNorm1d", "InstanceNorm2d", "InstanceNorm3d", "InverseDecayLR", "Jvp", "KLDivLoss",
    "L1Loss", "L1LossExt", "L1Regularizer", "LARS", "LBeta", "LGamma", "LPPool1d", "LPPool2d", "LRN", "LSTM",
    "LSTMCell", "Lamb", "LayerNorm", "LayerNormExt", "LazyAdam", "LeakyReLU", "Linear", "LogSigmoid", "LogSoftmax",
    "LogSoftmaxExt", "Loss", "LossBase", "MAE", "MAELoss", "MSE", "MSELoss", "MSSSIM", "MarginRankingLoss",
    "MatDet", "MatInverse", "MatMul", "MatrixDiag", "MatrixDiagPart", "MatrixSetDiag", "MaxPool1d", "MaxPool2d",
    "MaxPool2dExt", "MaxPool3d", "MaxUnpool1d", "MaxUnpool2d", "MaxUnpool3d", "MeanSurfaceDistance", "Metric",
    "MicroBatchInterleaved", "Mish", "Moments", "Momentum", "MultiClassDiceLoss", "MultiFieldEmbeddingLookup",
    "MultiLabelSoftMarginLoss", "MultiMarginLoss", "MultiheadAttention", "MultilabelMarginLoss", "NLLLoss",
    "NaturalExpDecayLR", "Norm", "OcclusionSensitivity", "OneHot", "OptTFTWrapper", "Optimizer", "PReLU",
    "PReLUExt", "PSNR", "Pad", "ParameterUpdate", "Perplexity", "PipelineCell", "PipelineGradReducer",
    "PixelShuffle", "PixelUnshuffle", "PoissonNLLLoss", "PolynomialDecayLR", "Precision", "ProximalAdagrad",
    "RMSELoss", "RMSProp", "RNN", "RNNCell", "ROC", "RReLU", "Range", "ReLU", "ReLU6", "Recall", "ReduceLogSumExp",
    "ReflectionPad1d", "ReflectionPad2d", "ReflectionPad3d", "ReplicationPad1d", "ReplicationPad2d",
    "ReplicationPad3d", "Roll", "RootMeanSquareDistance", "Rprop", "SGD", "SSIM", "SampledSoftmaxLoss", "SeLU",
    "SequentialCell", "SiLU", "Sigmoid", "SmoothL1Loss", "SoftMarginLoss", "SoftShrink", "Softmax", "Softmax2d",
    "SoftmaxCrossEntropyWithLogits", "Softmin", "Softsign", "SparseTensorDenseMatmul", "SparseToDense",
    "SyncBatchNorm", "Tanh", "Tanhshrink", "Threshold", "TimeDistributed", "Top1CategoricalAccuracy",
    "Top5CategoricalAccuracy", "TopKCategoricalAccuracy", "TrainOneStepCell", "TrainOneStepWithLossScaleCell",
    "Transformer", "TransformerDecoder", "TransformerDecoderLayer", "TransformerEncoder", "TransformerEncoderLayer",
    "Tril", "TripletMarginLoss", "TripletMarginWithDistanceLoss", "Triu", "Unflatten", "Unfold", "Upsample",
    "VirtualDatasetCellTriple", "Vjp", "WarmUpLR", "WithEvalCell", "WithGradCell", "WithLossCell", "ZeroPad2d",
    "auc", "cosine_decay_lr", "exponential_decay_lr", "get_activation", "get_metric_fn", "get_metrics",
    "inverse_decay_lr", "names", "natural_exp_decay_lr", "no_init_parameters", "piecewise_constant_lr",
    "polynomial_decay_lr", "rearrange_inputs", "thor", "warmup_lr"}),
}

# In-place methods of a list or a dict whose call graph code turns into a new binding of the receiver only when the
# call is a statement of its own (`values.append(v)`); where its result is used (`r = values.append(v)`) the graph
# keeps the receiver as it was (measured with MindSpore 2.10 by scripts/measure_torch_habits.py: "3 items,
# expected 4"; a statement `values.append(v)` or `d.clear()` changes it).
IN_PLACE_CONTAINER_METHODS = {
    "list": frozenset({"append", "extend", "insert", "reverse", "clear"}),
    "dict": frozenset({"clear", "update"}),
}

# Cell methods that give the Cell's Parameters (a list or generator of them): the elements are Parameters.
CELL_PARAMETER_ACCESSORS = frozenset({"get_parameters", "trainable_params", "untrainable_params"})
