"""What the PyTorch-style call forms measured by scripts/measure_torch_habits.py do in graph code, as the rules,
the fixers, explain-error and docs/pytorch-habits.md ask for it.

The measured table (:mod:`graphlint.analysis.generated.torch_habits`) has one row per form and rank. A call in the
linted code is matched to the rows of the same *call shape* (the method or builtin, how many positional
arguments, which keywords): a verdict is given only when every measured rank of that shape agrees, so nothing
here needs the receiver's rank. The MindSpore spelling is the measured one turned into an edit of the call (a
keyword renamed, a method renamed), given only when every row of the shape was measured to match PYNATIVE_MODE
with the same edit.
"""

from __future__ import annotations

import ast
import functools
import re
import importlib
from dataclasses import dataclass

from graphlint.analysis.api import HOST_METHODS, JIT_FORBIDDEN_CELL_METHODS

# The verdicts a rule reports: the form stops graph compilation (refused, or no CPU kernel for the op it picks).
REFUSED_VERDICTS = ("refused", "no CPU kernel")
# The Python containers whose methods the table measured, by the kind of the receiver.
CONTAINER_KINDS = ("dict", "list", "str", "tuple")
# A measured difference in the result's structure only (`t.max(1)`: the (values, indices) pair in PYNATIVE_MODE, the
# values in graph mode): code written for graph mode uses the values, so only a use as a pair is wrong.
STRUCTURE_ONLY = "output: tuple != tensor"
# A call shape is reported when graph mode refuses it at some measured rank and, at every other, refuses it or
# computes another result: whatever the rank, the form is wrong in graph code.
WRONG_VERDICTS = REFUSED_VERDICTS + ("differs",)


@dataclass(frozen=True)
class CallShape:
    kind: str           # "tensor method", "builtin", "function", or a container's ("dict", "list", "str", "tuple")
    name: str           # split, max, ...
    positional: int     # how many positional arguments
    keywords: tuple     # the keyword names, sorted


@dataclass(frozen=True)
class Habit:
    """What graph mode does with every measured form of one call shape, and how to spell it instead."""
    torch: str          # a measured form of the shape, e.g. "t.split(2, dim=1)"
    verdict: str        # refused, no CPU kernel, falls back, differs
    error: str          # MindSpore's message (first line), as measured
    keyword_renames: tuple = ()  # ((torch keyword, MindSpore keyword), ...): the measured spelling's edit
    method_rename: str = ""      # the MindSpore method name, where the spelling renames the method
    spelling: str = ""           # the measured spelling of ``torch``
    otherwise: str = ""          # the ranks at which graph mode computes another result instead of refusing
    function: str = ""           # the MindSpore function to call instead ("mindspore.ops.diff"), for a function
    receiver_first: bool = False  # the method's receiver becomes the function's first argument (`ops.diag(t)`)

    @property
    def receiver_only(self) -> bool:
        """An in-place method whose result is PYNATIVE_MODE's and only the receiver differs (the probe of
        ``t.mul_(v)`` returns ``(result, t)``: output 1 is ``t``): nothing differs unless ``t`` is read after."""
        return self.verdict == "differs" and self.error.startswith("output[1]") and \
            re.search(r"\.\w+_\(", self.torch) is not None

    @property
    def what(self) -> str:
        if self.otherwise:
            return f"is refused in graph mode, and computes another result at rank {self.otherwise}"
        if self.verdict == "no CPU kernel":
            return "has no CPU kernel in graph mode"
        if self.verdict == "refused":
            return "is refused in graph mode"
        return {"falls back": "falls back to Python in graph mode", "differs": "computes otherwise in graph mode"
                }.get(self.verdict, self.verdict)


@functools.lru_cache(maxsize=1)
def table() -> dict:
    """The measured table, imported on first use: it is large, and a run that asks nothing of it (a warm run
    answered by the result cache, explain-error on another message) need not load it."""
    return importlib.import_module("graphlint.analysis.generated.torch_habits").HABITS


@functools.lru_cache(maxsize=None)  # (the table's texts, parsed on every call matched against their rows)
def _call_of(text: str):
    try:
        node = ast.parse(text.strip(), mode="eval").body
    except SyntaxError:
        return None
    return node if isinstance(node, ast.Call) else None


def shape_of_text(kind: str, text: str, name: str = "") -> CallShape | None:
    """The call shape of a measured form's torch text (``t.split(2, dim=1)``, ``max(..., key=...)``); a builtin
    form may wrap its call (``tuple(zip(a, b, strict=True))``): ``name`` is the builtin's."""
    call = _call_of(text)
    if kind == "builtin" and name:
        try:
            tree = ast.parse(text.strip(), mode="eval")
        except SyntaxError:
            return None
        call = next((node for node in ast.walk(tree) if isinstance(node, ast.Call)
                     and isinstance(node.func, ast.Name) and node.func.id == name), None)
    if call is None:
        return None
    if kind in CONTAINER_KINDS and isinstance(call.func, ast.Attribute):
        # (a container method's keywords are any names: `kwargs.update(context=c)` is the form `d.update(c=3)`)
        return CallShape(kind, call.func.attr, len(call.args), ("**",) if call.keywords else ())
    if kind == "tensor method" and isinstance(call.func, ast.Attribute):
        name = call.func.attr
    elif kind == "builtin" and isinstance(call.func, ast.Name):
        name = call.func.id
    elif kind != "function" or not name:  # a function's shape is named by its qualified name (``name``)
        return None
    return CallShape(kind, name, len(call.args), tuple(sorted(k.arg or "**" for k in call.keywords)))


def _entry_shape(entry: dict) -> CallShape | None:
    name = entry["api"] if entry["kind"] == "function" else entry["api"].rsplit(".", 1)[-1]
    return shape_of_text(entry["kind"], entry["torch"], name)


def _module_function(func) -> str:
    """``ops.diff`` -> "mindspore.ops.diff" (the measured forms call MindSpore's namespaces by these names)."""
    if isinstance(func, ast.Attribute) and isinstance(func.value, ast.Name) and func.value.id in ("ops", "mint"):
        return f"mindspore.{func.value.id}.{func.attr}"
    return ""


def _edit(torch: str, spelling: str) -> tuple | None:
    """(keyword renames, method rename, function, receiver first) turning the torch call into the spelling (the
    function: the qualified name of another MindSpore function to call; receiver first: a method call becomes that
    function's call on the receiver, ``t.diag()`` -> ``ops.diag(t)``), or None if it is another edit."""
    before, after = _call_of(torch), _call_of(spelling)
    if before is None or after is None or not isinstance(before.func, ast.Attribute) or \
            not isinstance(after.func, ast.Attribute):
        return None
    function, receiver_first = "", False
    before_args = [ast.dump(a) for a in before.args]
    after_args = [ast.dump(a) for a in after.args]
    if ast.dump(before.func.value) != ast.dump(after.func.value):
        function = _module_function(after.func)
        if function and not _module_function(before.func) and after_args[:1] == [ast.dump(before.func.value)]:
            receiver_first, after_args = True, after_args[1:]
        elif not (function and _module_function(before.func)):
            return None
    if before_args != after_args or len(before.keywords) != len(after.keywords):
        return None
    renames = []
    for old, new in zip(before.keywords, after.keywords):
        if ast.dump(old.value) != ast.dump(new.value):
            return None
        if old.arg != new.arg:
            renames.append((old.arg, new.arg))
    method = after.func.attr if after.func.attr != before.func.attr and not function else ""
    return tuple(renames), method, function, receiver_first


@functools.lru_cache(maxsize=1)
def _by_shape() -> dict:
    shapes: dict = {}
    for entry in table().values():
        shape = _entry_shape(entry)
        if shape is not None and entry["verdict"] != "pynative fails":
            shapes.setdefault(shape, []).append(entry)
    return shapes


@functools.lru_cache(maxsize=1)
def _measured_names() -> frozenset:
    return frozenset((shape.kind, shape.name) for shape in _by_shape())


def measured(kind: str, name: str) -> bool:
    """The table has a form of this kind and name (most calls of graph code have none: nothing more to ask)."""
    return (kind, name) in _measured_names()


@functools.lru_cache(maxsize=1)
def _varargs_shapes() -> dict:
    """``{method: the call shape of its measured varargs form}`` for the methods PyTorch gives a ``*size``
    parameter (the generator measured their sizes as a tuple too)."""
    sized = {entry["api"].rsplit(".", 1)[-1] for entry in table().values()
             if entry["variant"] in ("sizes as a tuple", "sizes as a list")}
    found = {}
    for entry in table().values():
        name = entry["api"].rsplit(".", 1)[-1]
        if entry["kind"] == "tensor method" and name in sized and entry["variant"] == "plain":
            shape = _entry_shape(entry)
            if shape is not None and shape.positional >= 2 and not shape.keywords:
                found.setdefault(name, shape)
    return found


@functools.lru_cache(maxsize=None)
def _positional_constants(text: str) -> tuple | None:
    call = _call_of(text)
    try:
        return tuple(ast.literal_eval(arg) for arg in call.args) if call is not None else None
    except ValueError:
        return None


def literal_kind(value) -> str:
    """The kind of a literal argument, as forms are told apart: a number, a sequence of them, something else."""
    if isinstance(value, bool):
        return "bool"
    if isinstance(value, (int, float)):
        return "number"
    if isinstance(value, (list, tuple)):
        return "sequence"
    return "other"


def _same_argument_kinds(row: dict, kinds: tuple | None) -> bool:
    """The row was measured with positional arguments of the call's kinds (`split(2, dim=1)` says nothing of
    `split([2, 3], dim=1)`: another kernel); True where either side is not known."""
    if kinds is None:
        return True
    measured = _positional_constants(row["torch"])
    if measured is None or len(measured) != len(kinds):
        return True
    return all(kind is None or kind == literal_kind(value) for kind, value in zip(kinds, measured))


ARITY_MESSAGE = "infer.function_arguments_number"  # "The parameters number of the function is 2, but ..."


def _rows(shape: CallShape, constants: tuple | None, kinds: tuple | None, rank: int | None,
          literals: tuple | None) -> list:
    """The measured rows that apply to a call: its shape, its arguments' kinds, the receiver's rank where the
    analysis knows it, and the literal arguments it passes where a form was measured with literals there."""
    rows = [row for row in _by_shape().get(shape, ()) if _same_argument_kinds(row, kinds)]
    if not rows and shape.kind == "tensor method" and shape.positional >= 2 and not shape.keywords:
        # PyTorch's `*size` methods take any number of sizes (`mask.expand(n, a, b)`): the form measured with
        # another count of them binds the same overload
        measured = _varargs_shapes().get(shape.name)
        rows = list(_by_shape().get(measured, ())) if measured is not None else []
        kinds = None
    if rank is not None:
        at_rank = [row for row in rows if row["rank"] in (None, rank)]
        # (a form refused for its count of arguments is refused at every rank: `t.expand(b, -1, h, w)`)
        rows = at_rank if at_rank or not rows or not all(
            row.get("message_key") == ARITY_MESSAGE for row in rows) else rows
    if literals is not None:
        rows = [row for row in rows if _literals_agree(row, literals)]
    if any(row["variant"] == "two dims" for row in rows):
        rows = [row for row in rows if constants is not None and _positional_constants(row["torch"]) == constants]
    return rows


def _literals_agree(row: dict, literals: tuple) -> bool:
    """The row's literal positional arguments equal the call's where both have one (``mint.diff(t, 1)``: the 1)."""
    call = _call_of(row["torch"])
    if call is None or len(call.args) != len(literals):
        return True
    for argument, literal in zip(call.args, literals):
        try:
            measured = ast.literal_eval(argument)
        except ValueError:
            continue
        if literal is not _UNKNOWN and measured != literal:
            return False
    return True


_UNKNOWN = object()  # a call's argument that is not a constant, in ``literals``


def literals_of(constants: list) -> tuple:
    """The call's positional arguments for :func:`habit`'s ``literals``: each constant, or unknown."""
    return tuple(_UNKNOWN if constant is None else constant for constant in constants)


def habit(shape: CallShape, constants: tuple | None = None, kinds: tuple | None = None, rank: int | None = None,
          literals: tuple | None = None) -> Habit | None:
    """The habit of a call shape, when its measured rows are all wrong in graph code, refused at one rank at
    least; None otherwise (the shape was not measured, runs fine somewhere, or its outcome depends on something
    the call does not tell: the rank, where the analysis does not know it). Where the measured form passes two
    dims (``transpose(dim0, dim1)``), which two decides, so only the rows of the call's own ``constants`` (its
    positional arguments) count."""
    rows = _rows(shape, constants, kinds, rank, literals)
    if not rows:
        return None
    verdicts = {row["verdict"] for row in rows}
    if not verdicts <= set(WRONG_VERDICTS) or not verdicts & set(REFUSED_VERDICTS):
        return None
    first = next(row for row in rows if row["verdict"] in REFUSED_VERDICTS)
    return _habit_of(first, rows)


def differing_habit(shape: CallShape, constants: tuple | None, kinds: tuple | None, rank: int | None,
                    literals: tuple | None = None) -> Habit | None:
    """The habit of a call whose measured rows at the receiver's known rank all compute another result than
    PYNATIVE_MODE (``t.argmax()`` on a matrix: the flat index, where PYNATIVE_MODE reduced the last axis;
    ``t.add_(v)``, which writes ``t`` in graph mode and not in PYNATIVE_MODE on CPU), with the spelling measured
    to match where there is one; None otherwise (the rank not known, where the form passes a dim: at another rank
    it may be fine)."""
    rows = _rows(shape, constants, kinds, rank, literals)
    if rank is None and not rank_free(rows):
        return None
    if not rows or any(row["verdict"] != "differs" for row in rows):
        return None
    if any(row.get("difference", "").startswith(STRUCTURE_ONLY) for row in rows):
        return None  # (values, indices) against the values: how the result is used decides (E5210's)
    return _habit_of(rows[0], rows)


# The variants of forms that pass no dim: the measuring script measures them at one rank, as the rank does not
# change which overload runs (scripts/torch_forms.py).
RANK_FREE_VARIANTS = ("plain", "scalar other")


def rank_free(rows: list) -> bool:
    """The rows are of forms that pass no dim, measured at one rank only: they hold at any rank."""
    return bool(rows) and all(row["variant"] in RANK_FREE_VARIANTS for row in rows) \
        and len({row["rank"] for row in rows}) == 1


def _habit_of(first: dict, rows: list) -> Habit:
    edits = {_edit(row["torch"], row["spelling"]) if row["spelling"] else None for row in rows}
    edit = next(iter(edits)) if len(edits) == 1 else None
    renames, method, function, receiver_first = edit if edit else ((), "", "", False)
    otherwise = sorted({row["rank"] for row in rows if row["verdict"] == "differs" and row["rank"]}) \
        if first["verdict"] != "differs" else []
    # a spelling that is no edit of the call is shown only where every row measured that one spelling
    spelling = first["spelling"] if edit or len({row["spelling"] for row in rows}) == 1 else ""
    return Habit(first["torch"], first["verdict"], first["error"] or first.get("difference", ""), renames, method,
                 spelling, " and ".join(map(str, otherwise)), function, receiver_first)


def kernel_missing_without(shape: CallShape, keyword: str, constants: tuple | None = None) -> Habit | None:
    """The habit of ``shape`` without ``keyword`` (`t.std(dim=0, keepdim=True)` as `t.std(dim=0)`) where every
    measured row of that found no CPU kernel: a flag such as `keepdim` selects no other kernel. Reported without
    a spelling (the measured one does not pass the flag)."""
    narrower = CallShape(shape.kind, shape.name, shape.positional, tuple(k for k in shape.keywords if k != keyword))
    found = habit(narrower, constants)
    if found is None or found.verdict != "no CPU kernel":
        return None
    return Habit(found.torch, found.verdict, found.error)


def falling_habit(shape: CallShape, constants: tuple | None = None) -> Habit | None:
    """The habit of a call shape whose every measured row falls back: GRAPH_MODE's lax run gave PYNATIVE_MODE's
    result, STRICT refused it (``t.stride()``); None otherwise, and for a host copy (``t.numpy()``: the host-sync
    rules report those)."""
    rows = _by_shape().get(shape)
    if not rows or shape.name in HOST_METHODS:
        return None
    if any(row["variant"] == "two dims" for row in rows):
        rows = [row for row in rows if constants is not None and _positional_constants(row["torch"]) == constants]
    if not rows or any(row["verdict"] != "falls back" or row["lax"] != "fine" for row in rows):
        return None
    return Habit(rows[0]["torch"], "falls back", rows[0]["error"])


@functools.lru_cache(maxsize=None)
def _tensor_rows_by_text() -> dict[str, list]:
    """The table's Tensor-method rows by their torch text (`t.device`): asked for every attribute read."""
    found: dict[str, list] = {}
    for row in table().values():
        if row["kind"] == "tensor method":
            found.setdefault(row["torch"], []).append(row)
    return found


@functools.lru_cache(maxsize=None)
def attribute_habit(name: str) -> Habit | None:
    """The measured read of a Tensor attribute PyTorch code uses (`t.device`) that graph mode runs only through the
    lax level's fallback or refuses, at every rank measured; None for one it reads as PYNATIVE_MODE does (`t.T`)."""
    rows = _tensor_rows_by_text().get(f"t.{name}", [])
    if not rows or any(row["verdict"] not in ("falls back",) + REFUSED_VERDICTS for row in rows):
        return None
    if any(row["verdict"] == "falls back" and row["lax"] != "fine" for row in rows):
        return None
    return Habit(rows[0]["torch"], rows[0]["verdict"], rows[0]["error"])


def form_habit(key: str, verdicts: tuple = REFUSED_VERDICTS) -> Habit | None:
    """The habit of one measured form by its key (``nn.CellDict attribute``, ``Cell.set_train``,
    ``habit:mindspore.dtype_to_nptype``), when its verdict is one of ``verdicts``. A form that falls back counts
    only where GRAPH_MODE's lax run gave PYNATIVE_MODE's result (it fails under STRICT, nothing else)."""
    entry = table().get(key)
    if entry is None or entry["verdict"] not in verdicts:
        return None
    if entry["verdict"] == "falls back" and entry["lax"] != "fine":
        return None
    return Habit(entry["torch"], entry["verdict"], entry["error"], spelling=entry["spelling"])


def spelled(call_text: str, found: Habit) -> str:
    """The call as written, with the habit's measured edit applied to the call itself, not to a call inside it
    (keywords renamed, the method renamed: `a.unsqueeze(1).expand(s)` -> `a.unsqueeze(1).broadcast_to(s)`)."""
    try:
        call = ast.parse(call_text.strip(), mode="eval").body
    except SyntaxError:
        return call_text
    if not isinstance(call, ast.Call):
        return call_text
    text = call_text.strip()
    starts = [0]
    for line in text.splitlines(keepends=True):
        starts.append(starts[-1] + len(line))
    at = lambda line, column: starts[line - 1] + column  # noqa: E731 - an offset in ``text``
    edits = []  # (start, end, replacement), as offsets in ``text``
    renames = dict(found.keyword_renames)
    for keyword in call.keywords:
        if keyword.arg in renames:
            start = at(keyword.lineno, keyword.col_offset)
            edits.append((start, start + len(keyword.arg), renames[keyword.arg]))
    if found.function and found.receiver_first and isinstance(call.func, ast.Attribute):
        receiver = ast.get_source_segment(text, call.func.value) or ast.unparse(call.func.value)
        opening = at(call.func.end_lineno, call.func.end_col_offset) + text[
            at(call.func.end_lineno, call.func.end_col_offset):].index("(") + 1
        rest = text[opening:].lstrip()
        edits.append((opening, opening, receiver + ("" if rest.startswith(")") else ", ")))
        edits.append((0, at(call.func.end_lineno, call.func.end_col_offset), found.function.split(".", 1)[1]))
    elif found.function:
        edits.append((0, at(call.func.end_lineno, call.func.end_col_offset), found.function.split(".", 1)[1]))
    elif found.method_rename and isinstance(call.func, ast.Attribute):
        end = at(call.func.end_lineno, call.func.end_col_offset)
        edits.append((end - len(call.func.attr), end, found.method_rename))
    for start, end, replacement in sorted(edits, reverse=True):
        text = text[:start] + replacement + text[end:]
    return text


# The forms of the table the rule reports by what they are (not by call shape): measured refused, each.
CELL_DICT_ATTRIBUTE = "nn.CellDict attribute"
DTYPE_TO_NPTYPE = "habit:mindspore.dtype_to_nptype"
SPLIT_OF_HOST_SIZES = "habit:split(sizes, axis=0) of host sizes"


def reported(entry: dict) -> bool:
    """Whether a rule on PyTorch habits (E6005 refused, W6006 falling back) reports the measured form ``entry``."""
    if entry["kind"] == "cell method" and entry["verdict"] == "falls back":
        return entry["lax"] == "fine"  # W6006
    if entry["kind"] == "tensor method" and entry["verdict"] == "falls back":
        shape = _entry_shape(entry)
        return shape is not None and falling_habit(shape, _positional_constants(entry["torch"])) is not None
    if entry["verdict"] not in REFUSED_VERDICTS:
        return False
    if entry["kind"] in ("tensor method", "builtin", "function"):
        shape = _entry_shape(entry)
        return shape is not None and habit(shape, _positional_constants(entry["torch"])) is not None
    if entry["kind"] == "cell method":
        return entry["api"].rsplit(".", 1)[-1] not in JIT_FORBIDDEN_CELL_METHODS
    return entry["api"] in ("mindspore.nn.CellDict", "mindspore.dtype_to_nptype")


# -- messages, for explain-error -------------------------------------------------------------------------------
def first_sentence(message: str) -> str:
    """A recorded message's first sentence (MindSpore's advice after it varies), at most 120 characters."""
    message = message.strip()
    end = min([found for found in (message.find(", Please", 30), message.find(". ", 30)) if found > 0] + [120])
    return message[:end]


def _pattern(message: str) -> str:
    """A recorded message as a regex: its numbers and quoted names may be other values in another program."""
    text = re.escape(first_sentence(message))
    text = re.sub(r"\d+", r"\\d+", text)
    # a quoted lower-case name (an attribute, a function) may be another; a class name or a quoted sentence not
    return re.sub(r"'[a-z_][\w\\.]*'", r"'[\\w.]+'", text)


@functools.lru_cache(maxsize=1)
def message_table() -> dict:
    """regex of a recorded message -> the measured entries that raised it (refused, no CPU kernel, falls back)."""
    patterns: dict = {}
    for entry in table().values():
        if entry["error"] and entry["verdict"] not in ("pynative fails", "fine"):
            patterns.setdefault(_pattern(entry["error"]), []).append(entry)
    return patterns


def habits_in(text: str) -> list:
    """The measured entries whose message occurs in ``text`` (a MindSpore log): those of the earliest message,
    the ones whose exact message it quotes (the same quoted names) first."""
    best, found = None, []
    for pattern, entries in message_table().items():
        match = re.search(pattern, text)
        if match is None or (best is not None and match.start() > best):
            continue
        if best is None or match.start() < best:
            best, found = match.start(), []
        found += entries
    return sorted(found, key=lambda entry: entry["error"][:160] not in text)


# -- the nn containers the table measured ----------------------------------------------------------------------
CELL_DICT_CLASSES = frozenset({"mindspore.nn.CellDict", "mindspore.nn.layer.container.CellDict"})
# What a CellDict answers as itself (its dict methods and the Cell attributes a port reads): not an entry.
CELL_DICT_MEMBERS = frozenset({"keys", "values", "items", "update", "pop", "clear", "get", "cells", "name_cells",
                               "training", "cls_name"})
