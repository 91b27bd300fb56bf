"""Port mode's child side: compile a model, and each of its parts, to find every blocker in one process.

Runs inside :mod:`graphlint.validate.child` (it imports MindSpore). A GRAPH_MODE compile stops at its first
error, so one compile of a model shows one blocker. To show the others, the model is first run in PYNATIVE_MODE
while the first call of every function of the model's own file is recorded (its arguments and, for a method,
its Cell, and its locals after each line); the whole model is then compiled again and again, each error's
statement cut and replaced by what that run computed there (:func:`compile_rounds`); and each recorded part is
compiled on the arguments it was called with, with the parts it calls replaced by stand-ins that return what they
returned in that run. Each part's first error is then its own.

Every compile is made twice: at MindSpore's default (lax) level in GRAPH_MODE, and with
``mindspore.jit(..., fullgraph=True)`` (STRICT, what MindIR export needs) when lax passes.
"""

from __future__ import annotations

import os
import sys
import time
import types

import mindspore as ms
from mindspore import Parameter, Tensor, nn

from graphlint.analysis.error_location import traceback_frames
from graphlint.validate import cuts

MAX_PARTS = 40
MAX_UNAIDED = 12  # compiles of a part without stand-ins, per probe (each builds the model afresh)
MAX_LINES = 20000  # lines recorded of one call of a function (a loop's lines are recorded at each step)
MAX_RUNS = 8  # calls of one function whose lines are recorded
MAX_ROUNDS = 16  # compiles of the whole model with the blockers met so far cut, over both levels
ROUNDS_SECONDS = 150.0  # and the time they may take together


class _Recorder:
    """``sys.setprofile`` hook: the first call of each function defined in ``filename`` or in another file of the
    project under ``root`` (installed packages excluded)."""

    def __init__(self, filename: str, root: str = ""):
        self.filename = filename
        self.root = os.path.join(os.path.abspath(root), "") if root else ""
        self.calls: dict = {}  # code object -> (function name, qualified name, first line, self or None, args)
        self.returns: dict = {}  # code object -> the value its first call returned
        self.functions: dict = {}  # code object -> the module-level function it is the code of (None: a method)
        self.files: dict = {}  # code object -> its file
        self.counts: dict = {}  # code object -> how many times it was called
        self.runs: dict = {}  # code object -> [(line, its locals then)] of each of its first MAX_RUNS calls (0: return)
        self.all_returns: dict = {}  # code object -> what each of those calls returned
        self.result = None  # what the recorded call returned

    def trace(self, frame, event, arg):
        """``sys.settrace`` hook: the locals at each line of the first calls of each function of the project, so that
        a cut (:mod:`graphlint.validate.cuts`) can put in what a statement computed, and tell whether every call
        computed values of the same types and shapes there."""
        code = frame.f_code
        if event != "call" or code.co_name.startswith("<") or not self._project(code.co_filename):
            return None
        self.counts[code] = self.counts.get(code, 0) + 1
        if self.counts[code] > MAX_RUNS:
            return None
        records = []
        self.runs.setdefault(code, []).append(records)

        def each_line(frame, event, arg):
            if len(records) < MAX_LINES and event in ("line", "return"):
                records.append((frame.f_lineno if event == "line" else 0, _copied(dict(frame.f_locals))))
            if event == "return":
                self.all_returns.setdefault(code, []).append(arg)
            return each_line

        return each_line

    def calls_in(self, filename: str, entry) -> cuts.Calls:
        """What the run recorded of the functions of ``filename``, for cuts; ``entry``: the entry's own function."""
        found = cuts.Calls()
        for code, runs in self.runs.items():
            if code.co_filename == filename:
                found.lines[code.co_firstlineno] = runs[0]
                found.runs[code.co_firstlineno] = runs
                found.all_returns[code.co_firstlineno] = self.all_returns.get(code, [])
                if code in self.all_returns:
                    found.returns[code.co_firstlineno] = self.all_returns[code][0]
        inner = getattr(entry, "__wrapped__", entry)
        inner = getattr(inner, "__func__", inner)
        found.entry = getattr(getattr(inner, "__code__", None), "co_firstlineno", 0)
        return found

    def _project(self, filename: str) -> bool:
        if filename == self.filename:
            return True
        return bool(self.root) and filename.startswith(self.root) and "site-packages" not in filename

    def __call__(self, frame, event, arg):
        code = frame.f_code
        if not self._project(code.co_filename):
            return
        if event == "call" and code not in self.calls and len(self.calls) < MAX_PARTS:
            names = code.co_varnames[:code.co_argcount]
            values = [frame.f_locals.get(name) for name in names]
            owner = values[0] if names and names[0] == "self" else None
            args = values[1:] if owner is not None else values
            qualname = getattr(code, "co_qualname", code.co_name)
            if code.co_flags & 0x0C or code.co_kwonlyargcount:  # *args, **kwargs, keyword-only: not replayable
                return
            self.calls[code] = (code.co_name, qualname, code.co_firstlineno, owner, _copied(tuple(args)))
            function = frame.f_globals.get(code.co_name) if owner is None else None
            inner = getattr(function, "__wrapped__", function)  # (a @jit function's own code)
            self.functions[code] = function if getattr(inner, "__code__", None) is code else None
            self.files[code] = code.co_filename
        elif event == "return" and code in self.calls and code not in self.returns:
            self.returns[code] = arg


def _copied(value):
    """The arguments as they were at the call: the run goes on to append to and pop from the lists it passed.
    Containers are copied; what they hold is not (a Cell copied would hold Parameters of the same names)."""
    if type(value) in (list, tuple):  # (not a named tuple: its constructor takes fields)
        return type(value)(_copied(item) for item in value)
    if type(value) is dict:
        return {key: _copied(item) for key, item in value.items()}
    return value


def record(call, inputs, filename: str, root: str = "") -> _Recorder:
    """Run ``call(*inputs)`` (PYNATIVE_MODE) and record the first call of each function of ``filename`` (and of
    the project's other files, under ``root``)."""
    recorder = _Recorder(filename, root)
    sys.setprofile(recorder)
    sys.settrace(recorder.trace)
    try:
        recorder.result = call(*inputs)
    finally:
        sys.settrace(None)
        sys.setprofile(None)
    return recorder


_STAND_INS = [0]


def stand_in(value):
    """A Cell whose construct returns ``value``: what a part called returned in PYNATIVE_MODE. Its Tensors are
    Parameters: a Tensor attribute would be a constant, and conditions on it would be decided while compiling."""
    def variable(item):
        if isinstance(item, Tensor) and not isinstance(item, Parameter):
            _STAND_INS[0] += 1
            return Parameter(item.copy(), name=f"graphlint_recorded_{_STAND_INS[0]}", requires_grad=False)
        if isinstance(item, (tuple, list)):
            return type(item)(variable(i) for i in item)
        return item

    held = variable(value)

    class Recorded(nn.Cell):
        def __init__(self):
            super().__init__()
            self.value = held

        def construct(self, *args):
            return self.value

    return Recorded()


def _callable_part(owner, name: str, function):
    """The part as something to compile: a Cell (its construct), a bound method, or a module function."""
    if owner is None:
        return function if callable(function) else None
    if name == "construct" and isinstance(owner, nn.Cell):
        return owner
    function = getattr(type(owner), name, None)
    function = getattr(function, "__wrapped__", function)
    return types.MethodType(function, owner) if callable(function) else None


class _Isolated:
    """While active, what the compiled part calls that is itself a recorded part (its sub-Cells, its Cell's other
    methods, module functions its module's globals name) is replaced by a stand-in returning what that call
    returned, so the part's own first error shows."""

    def __init__(self, owner, recorder: _Recorder, compiled, namespace: dict):
        self.owner, self.recorder, self.compiled, self.namespace = owner, recorder, compiled, namespace
        self.swapped: list = []

    def __enter__(self):
        functions = {id(f): code for code, f in self.recorder.functions.items()
                     if f is not None and code is not self.compiled and code in self.recorder.returns}
        for name, value in list(self.namespace.items()):
            code = functions.get(id(value))
            if code is not None:
                self.namespace[name] = stand_in(self.recorder.returns[code])
                self.swapped.append(("global", name, value))
        owner = self.owner
        if not isinstance(owner, nn.Cell):
            return self
        by_cell = {id(o): code for code, (n, _, _, o, _) in self.recorder.calls.items() if n == "construct"}
        for name, cell in list(owner._cells.items()):  # noqa: SLF001 - MindSpore keeps sub-Cells there
            code = by_cell.get(id(cell))
            if code is not None and code in self.recorder.returns:
                owner._cells[name] = stand_in(self.recorder.returns[code])  # noqa: SLF001
                self.swapped.append(("cell", name, cell))
        for code, (name, _, _, other, _) in self.recorder.calls.items():
            if other is owner and name != "construct" and code is not self.compiled and code in self.recorder.returns:
                object.__setattr__(owner, name, stand_in(self.recorder.returns[code]))
                self.swapped.append(("method", name, None))
        return self

    def __exit__(self, *exc):
        for kind, name, value in reversed(self.swapped):
            if kind == "global":
                self.namespace[name] = value
            elif kind == "cell":
                self.owner._cells[name] = value  # noqa: SLF001
            else:
                object.__delattr__(self.owner, name)
        return False


def _namespace(owner, function) -> dict:
    """The module globals the part's code reads names from."""
    if owner is not None:
        module = sys.modules.get(type(owner).__module__)
        return vars(module) if module is not None else {}
    inner = getattr(function, "__wrapped__", function)
    return getattr(inner, "__globals__", {})


def _place_of(root, target):
    """Where ``target`` (a Cell, or a plain object a Cell holds as an attribute) sits under ``root``: (the Cell's
    path in ``root.cells_and_names()``, the attribute or ""); None when it is not found there."""
    if not isinstance(root, nn.Cell):
        return None
    for path, cell in root.cells_and_names():
        if cell is target:
            return path, ""
        for attribute, value in vars(cell).items():
            if value is target:
                return path, attribute
    return None


def _at(root, place):
    path, attribute = place
    cell = dict(root.cells_and_names()).get(path)
    if cell is None:
        return None
    return getattr(cell, attribute, None) if attribute else cell


def compile_unaided(recorder: _Recorder, root, fresh_root, parts: list, error_record, captured,
                    deadline: float = float("inf")) -> bool:
    """For each part whose compile with stand-ins failed, compile it again as the user's code is: nothing stands in,
    the part is taken from a model built afresh (``fresh_root()``: the same seed, the same factory) at the place
    it has in the recorded one, and called on the arguments the PYNATIVE_MODE run passed it. Its result goes in the
    level's record as ``"unaided"``. Returns whether :data:`MAX_UNAIDED` or ``deadline`` (``time.monotonic()``)
    stopped it before the last part."""
    done = 0
    codes = {qualname: code for code, (_, qualname, _, _, _) in recorder.calls.items()}
    for entry in parts:
        for level, run in entry["runs"].items():
            code = codes.get(entry["name"])
            if run.get("status") != "error" or code is None:
                continue
            name, _, _, owner, args = recorder.calls[code]
            place = _place_of(root, owner) if owner is not None else None
            if owner is root or (owner is not None and place is None):
                continue  # (the entry itself: its whole compile is that compile; an object not found afresh)
            if done >= MAX_UNAIDED or time.monotonic() > deadline:
                return True
            done += 1
            ms.set_context(jit_syntax_level=ms.LAX, mode=ms.GRAPH_MODE if level == "graph" else ms.PYNATIVE_MODE)
            log = captured()
            try:
                with log:
                    part = _callable_part(_at(fresh_root(), place) if place else None, name,
                                          recorder.functions.get(code))
                    if level == "graph":
                        compiled = part if isinstance(part, nn.Cell) else ms.jit(part)
                    else:
                        compiled = ms.jit(part, fullgraph=True)
                    compiled(*args)
                run["unaided"] = {"status": "ok"}
            except BaseException as exc:  # user code may raise anything
                run["unaided"] = {**error_record(exc), "stderr": log.text}
    ms.set_context(mode=ms.PYNATIVE_MODE)
    return False


def compile_parts(recorder: _Recorder, error_record, captured, deadline: float = float("inf")) -> list[dict]:
    """Compile each recorded part alone, lax then STRICT; one record per part, in the order they were first
    called, up to ``deadline`` (``time.monotonic()``). ``captured()``: a context that keeps what a compile writes
    on stderr (``.text``)."""
    parts = []
    for code, (name, qualname, line, owner, args) in recorder.calls.items():
        if time.monotonic() > deadline:
            break
        part = _callable_part(owner, name, recorder.functions.get(code))
        if part is None:
            continue
        entry = {"name": qualname, "line": line, "file": recorder.files[code], "runs": {}}
        for level in ("graph", "strict"):
            ms.set_context(jit_syntax_level=ms.LAX)
            log = captured()
            try:
                with log, _Isolated(owner, recorder, code, _namespace(owner, recorder.functions.get(code))):
                    if level == "graph":
                        ms.set_context(mode=ms.GRAPH_MODE)
                        compiled = part if isinstance(part, ms.nn.Cell) else ms.jit(part)
                    else:
                        ms.set_context(mode=ms.PYNATIVE_MODE)
                        compiled = ms.jit(part, fullgraph=True)
                    compiled(*args)
                entry["runs"][level] = {"status": "ok"}
            except BaseException as exc:  # user code may raise anything
                entry["runs"][level] = {**error_record(exc), "stderr": log.text}
                break  # STRICT is only asked of what compiles lax
        parts.append(entry)
    ms.set_context(mode=ms.PYNATIVE_MODE)
    return parts


def compile_rounds(text: str, calls: cuts.Calls, compile_whole, reported: frozenset = frozenset(),
                   seconds: float = ROUNDS_SECONDS, progress=None, predicted=()) -> dict:
    """Compile the whole model lax, then STRICT, again and again: after each error, the statement it points at is cut
    (:mod:`graphlint.validate.cuts`) from a scratch copy of ``text`` and the model compiled again, until it compiles,
    nothing can be cut, or :data:`MAX_ROUNDS` / :data:`ROUNDS_SECONDS` is reached. STRICT starts from lax's cuts.
    ``compile_whole(level, text, stand_ins, number)`` builds and compiles the model from that text, returning the
    compile's record with the file it compiled (``"file"``). Returns ``{level: {"rounds": [...], "stopped": why}}``;
    each error round notes the cut made after it (``"cut"``), how many cuts were in place (``"cuts"``) and whether
    each was exact (``"exact"``), and the line of the entry's file it is reported at (``"at"``: the innermost of the
    compiler's frames there that graphlint reports an error at, else the innermost). ``reported``: those lines;
    ``predicted``: ``(line, pieces of messages its rule quotes)`` of those findings, for an error the compiler
    names no line for."""
    whole, made, number, started = {}, [], 0, time.monotonic()
    for level in ("graph", "strict"):
        rounds, stopped = [], ""
        while True:
            if number >= MAX_ROUNDS or time.monotonic() - started > seconds:
                stopped = f"the bound of {MAX_ROUNDS} compiles or {seconds:.0f} s was reached"
                break
            number += 1
            stand_ins = {cut.name: stand_in(cut.value) for cut in made if cut.name}
            run = compile_whole(level, cuts.apply(text, made), stand_ins, number)
            run["cuts"], run["exact"] = len(made), all(cut.exact for cut in made)
            rounds.append(run)
            if progress is not None:  # (what is known so far, kept should the process be stopped)
                progress({**whole, level: {"rounds": rounds, "stopped": "the time validate-timeout allows ran out"}})
            if run.get("status") != "error":
                break
            stopped = _next_cut(run, text, calls, made, reported, predicted or ())
            if stopped:
                break
        whole[level] = {"rounds": rounds, "stopped": stopped}
    return whole


def _next_cut(run: dict, text: str, calls: cuts.Calls, made: list, reported: frozenset, predicted) -> str:
    """Cut a statement the compiler's frames name for ``run``'s error (appended to ``made``), the innermost one
    where an exact cut can be made (see :class:`cuts.Cut`); for an error with no line, the statement of the one
    finding whose rule predicts the message; or why the compiles stop there."""
    frames = traceback_frames(f"{run.get('message', '')}\n{run.get('stderr', '')}")
    if not frames:
        line = _predicted_line(run, predicted)
        if not line or cuts.covered(made, line) is not None:
            return "the compiler names no line"
        cut = cuts.plan(text, line, calls)
        if isinstance(cut, str):
            return f"the compiler names no line, and line {line}, where graphlint predicts the error, cannot be " \
                   f"cut: {cut}"
        run["cut"] = {"line": cut.line, "first": cut.first, "last": cut.last, "what": cut.what, "exact": cut.exact,
                      "predicted": True}
        made.append(cut)
        return ""
    own = [f for f in frames if os.path.basename(f.path) == os.path.basename(run.get("file", ""))]
    if not own:
        return f"the error is in {frames[-1].path}, outside the entry's file"
    innermost = own[-1].line
    at = next((f.line for f in reversed(own) if f.line in reported), innermost)
    run["at"] = at
    earlier = cuts.covered(made, innermost)
    if earlier is not None:
        # The compile fails again inside a cut (a branch join names the assignment cut in one branch): not a new
        # blocker; cut wider around the line first met there.
        run["on_cut"] = True
        depth = max(cut.depth for cut in made if cut.line == earlier.line) + 1
        cut = cuts.plan(text, earlier.line, calls, depth)
        if isinstance(cut, str):
            return f"line {earlier.line} cannot be cut: {cut}"
    else:
        lines = [at] + [f.line for f in reversed(own) if f.line != at]
        planned = [cuts.plan(text, line, calls) for line in lines]
        made_cuts = [c for c in planned if isinstance(c, cuts.Cut)]
        cut = next((c for c in made_cuts if c.exact), made_cuts[0] if made_cuts else planned[0])
        if isinstance(cut, str):
            return f"line {at} cannot be cut: {cut}"
    run["cut"] = {"line": cut.line, "first": cut.first, "last": cut.last, "what": cut.what, "exact": cut.exact}
    made.append(cut)
    return ""


def _predicted_line(run: dict, predicted) -> int:
    """The line of the one finding whose rule quotes ``run``'s error (its message, its examples' errors); 0 when
    none or several do."""
    text = f"{run.get('error_type', '')}: {run.get('message', '')}\n{run.get('stderr', '')}"
    lines = {line for line, pieces in predicted if any(piece in text for piece in pieces)}
    return lines.pop() if len(lines) == 1 else 0
