"""Example-input specs of ``[tool.graphlint.validate.inputs]``, checked without importing MindSpore.

A spec is ``"<dtype>[<dims>]"`` (``"float32[2,3]"``; ``?``, ``None`` or ``-1`` for a dynamic dimension,
``"float32[*]"`` for a dynamic rank, ``"int32[]"`` for a 0-d Tensor) or a Python scalar (``"int:5"``,
``"float:0.5"``, ``"bool:true"``). An entry is a list of specs (one per argument of ``construct`` or of the
function), a ``"module:factory"`` string, or a table ``{ inputs = ..., init = { ... }, factory = "..." }``.
"""

from __future__ import annotations

import ast
import os

# spec dtype -> NumPy / MindSpore name (graphlint.validate.child builds the Tensors)
DTYPES = {
    "float16": "float16", "float32": "float32", "float64": "float64",
    "int8": "int8", "int16": "int16", "int32": "int32", "int64": "int64",
    "uint8": "uint8", "bool": "bool_",
}
SCALARS = ("int", "float", "bool")
DYNAMIC = ("?", "None", "-1")


def spec_problem(spec) -> str:
    """Why ``spec`` is not a valid input spec ("" if it is)."""
    if not isinstance(spec, str):
        return f"{spec!r} is not a string spec"
    text = spec.strip()
    kind, colon, value = text.partition(":")
    if colon:
        if kind not in SCALARS:
            return f"{spec!r}: unknown scalar kind {kind!r} (one of {', '.join(SCALARS)})"
        try:
            {"int": int, "float": float}.get(kind, _boolean)(value.strip())
        except ValueError:
            return f"{spec!r}: {value.strip()!r} is not a {kind}"
        return ""
    dtype, bracket, rest = text.partition("[")
    dtype = dtype.strip()
    if dtype not in DTYPES:
        return f"{spec!r}: unknown dtype {dtype!r} (one of {', '.join(DTYPES)})"
    if not bracket or not rest.endswith("]"):
        return f"{spec!r}: the shape goes in brackets, e.g. {dtype}[2,3]"
    dims = [d.strip() for d in rest[:-1].split(",") if d.strip()]
    if dims == ["*"]:
        return ""
    for dim in dims:
        if dim in DYNAMIC:
            continue
        if not dim.isdigit():
            return f"{spec!r}: dimension {dim!r} is not a size (a number, ? for a dynamic one, * for any rank)"
    return ""


def _boolean(text: str) -> bool:
    if text.lower() not in ("true", "false"):
        raise ValueError(text)
    return text.lower() == "true"


def entry_problem(key: str, declared, base_dir: str = "") -> str:
    """Why the declared inputs of ``key`` ("module:Entry") are wrong ("" if they look right). With ``base_dir``
    the entry's module is looked up there: a list of specs must match the entry's positional arguments."""
    if not isinstance(key, str) or key.count(":") != 1 or not all(key.split(":")):
        return f"{key!r}: the key names the entry as \"module:Entry\" (e.g. \"model:Net\")"
    inputs = declared
    if isinstance(declared, dict):
        unknown = sorted(set(declared) - {"inputs", "init", "factory"})
        if unknown:
            return f"{key!r}: unknown key {unknown[0]!r} (inputs, init, factory)"
        if "init" in declared and not isinstance(declared["init"], dict):
            return f"{key!r}: init must be a table of keyword arguments"
        if "factory" in declared and not _dotted(declared["factory"]):
            return f"{key!r}: factory must be a \"module:function\" string"
        inputs = declared.get("inputs")
        if inputs is None:
            return ""
    if isinstance(inputs, str):
        return "" if _dotted(inputs) else f"{key!r}: inputs must be a list of specs or a \"module:factory\" string"
    if not isinstance(inputs, list):
        return f"{key!r}: inputs must be a list of specs or a \"module:factory\" string"
    for spec in inputs:
        problem = spec_problem(spec)
        if problem:
            return f"{key!r}: {problem}"
    if base_dir and not (isinstance(declared, dict) and declared.get("factory")):
        arity = entry_arity(key, base_dir)
        if arity is not None:
            low, high = arity
            if not low <= len(inputs) <= (high if high is not None else len(inputs)):
                expected = f"{low}" if low == high else f"{low} to {high}" if high is not None else f"at least {low}"
                return (f"{key!r}: {len(inputs)} input{'s' if len(inputs) != 1 else ''} declared, but "
                        f"{key.split(':')[1]} takes {expected}")
    return ""


def _dotted(text) -> bool:
    return isinstance(text, str) and text.count(":") == 1 and all(part.strip() for part in text.split(":"))


def entry_arity(key: str, base_dir: str) -> tuple[int, int | None] | None:
    """(required, most) positional arguments of the entry (``construct`` of a Cell class, or a function), read
    from its module under ``base_dir``; None when the module or the entry is not found there."""
    module, name = key.split(":")
    relative = module.replace(".", os.sep) + ".py"
    for folder in (base_dir, os.path.join(base_dir, "src")):
        path = os.path.join(folder, relative)
        if os.path.isfile(path):
            break
    else:
        return None
    try:
        with open(path, encoding="utf-8") as handle:
            tree = ast.parse(handle.read())
    except (OSError, SyntaxError, ValueError, UnicodeDecodeError):
        return None
    for node in tree.body:
        if isinstance(node, ast.ClassDef) and node.name == name:
            for item in node.body:
                if isinstance(item, ast.FunctionDef) and item.name == "construct":
                    return _arity(item.args, skip=1)
            return None
        if isinstance(node, ast.FunctionDef) and node.name == name:
            return _arity(node.args, skip=0)
    return None


def _arity(arguments: ast.arguments, skip: int) -> tuple[int, int | None]:
    positional = list(arguments.posonlyargs) + list(arguments.args)
    positional = positional[skip:]
    required = len(positional) - len(arguments.defaults)
    return max(required, 0), None if arguments.vararg is not None else len(positional)
