"""The kinds of values the value analysis tells apart (what a Python expression may be in graph code)."""

TENSOR, NONE, INT, FLOAT, BOOL, STR = "tensor", "none", "int", "float", "bool", "str"
TUPLE, LIST, DICT, SET = "tuple", "list", "dict", "set"
CELL, OBJECT, DTYPE, FUNCTION, MODULE, CLASS, RANGE, NUMPY = (
    "cell", "object", "dtype", "function", "module", "class", "range", "numpy")
UNKNOWN, UNDEFINED = "unknown", "undefined"
SCALARS = frozenset({INT, FLOAT, BOOL})
