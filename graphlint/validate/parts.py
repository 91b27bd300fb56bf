"""Port mode's child side: compile a model, and each of its parts, to find every blocker in one process.

Runs inside :mod:`graphlint.validate.child` (it imports MindSpore). A GRAPH_MODE compile stops at its first
error, so one compile of a model shows one blocker. To show the others, the model is first run in PYNATIVE_MODE
while the first call of every function of the model's own file is recorded (its arguments and, for a method,
its Cell); then each recorded part is compiled on the arguments it was called with, with the parts it calls
replaced by stand-ins that return what they returned in that run. Each part's first error is then its own.

Every compile is made twice: at MindSpore's default (lax) level in GRAPH_MODE, and with
``mindspore.jit(..., fullgraph=True)`` (STRICT, what MindIR export needs) when lax passes.
"""

from __future__ import annotations

import sys
import types

MAX_PARTS = 40


class _Recorder:
    """``sys.setprofile`` hook: the first call of each function defined in ``filename``."""

    def __init__(self, filename: str):
        self.filename = filename
        self.calls: dict = {}  # code object -> (function name, qualified name, first line, self or None, args)
        self.returns: dict = {}  # code object -> the value its first call returned

    def __call__(self, frame, event, arg):
        code = frame.f_code
        if code.co_filename != self.filename:
            return
        if event == "call" and code not in self.calls and len(self.calls) < MAX_PARTS:
            names = code.co_varnames[:code.co_argcount]
            values = [frame.f_locals.get(name) for name in names]
            owner = values[0] if names and names[0] == "self" else None
            args = values[1:] if owner is not None else values
            qualname = getattr(code, "co_qualname", code.co_name)
            if code.co_flags & 0x0C or code.co_kwonlyargcount:  # *args, **kwargs, keyword-only: not replayable
                return
            self.calls[code] = (code.co_name, qualname, code.co_firstlineno, owner, tuple(args))
        elif event == "return" and code in self.calls and code not in self.returns:
            self.returns[code] = arg


def record(call, inputs, filename: str) -> _Recorder:
    """Run ``call(*inputs)`` (PYNATIVE_MODE) and record the first call of each function of ``filename``."""
    recorder = _Recorder(filename)
    sys.setprofile(recorder)
    try:
        call(*inputs)
    finally:
        sys.setprofile(None)
    return recorder


def _stand_in(value):
    """A Cell whose construct returns ``value``: what a part called returned in PYNATIVE_MODE."""
    from mindspore import nn

    class Recorded(nn.Cell):
        def __init__(self):
            super().__init__()
            self.value = value

        def construct(self, *args):
            return self.value

    return Recorded()


def _callable_part(owner, name: str, module):
    """The part as something to compile: a Cell (its construct), a bound method, or a module function."""
    from mindspore import nn

    if owner is None:
        return getattr(module, name, None)
    if name == "construct" and isinstance(owner, nn.Cell):
        return owner
    function = getattr(type(owner), name, None)
    function = getattr(function, "__wrapped__", function)
    return types.MethodType(function, owner) if callable(function) else None


class _Isolated:
    """While active, the sub-Cells and sibling methods of ``owner`` that are recorded parts (other than the one
    compiled) are replaced by stand-ins returning what they returned, so the part's own first error shows."""

    def __init__(self, owner, recorder: _Recorder, compiled):
        self.owner, self.recorder, self.compiled = owner, recorder, compiled
        self.swapped: list = []

    def __enter__(self):
        from mindspore import nn

        owner = self.owner
        if not isinstance(owner, nn.Cell):
            return self
        by_cell = {id(o): code for code, (n, _, _, o, _) in self.recorder.calls.items() if n == "construct"}
        for name, cell in list(owner._cells.items()):  # noqa: SLF001 - MindSpore keeps sub-Cells there
            code = by_cell.get(id(cell))
            if code is not None and code in self.recorder.returns:
                owner._cells[name] = _stand_in(self.recorder.returns[code])  # noqa: SLF001
                self.swapped.append(("cell", name, cell))
        for code, (name, _, _, other, _) in self.recorder.calls.items():
            if other is owner and name != "construct" and code is not self.compiled and code in self.recorder.returns:
                object.__setattr__(owner, name, _stand_in(self.recorder.returns[code]))
                self.swapped.append(("method", name, None))
        return self

    def __exit__(self, *exc):
        for kind, name, cell in reversed(self.swapped):
            if kind == "cell":
                self.owner._cells[name] = cell  # noqa: SLF001
            else:
                object.__delattr__(self.owner, name)
        return False


def compile_parts(module, recorder: _Recorder, error_record) -> list[dict]:
    """Compile each recorded part alone, lax then STRICT; one record per part, in the order they were first
    called."""
    import mindspore as ms

    parts = []
    for code, (name, qualname, line, owner, args) in recorder.calls.items():
        part = _callable_part(owner, name, module)
        if part is None:
            continue
        entry = {"name": qualname, "line": line, "runs": {}}
        for level in ("graph", "strict"):
            ms.set_context(jit_syntax_level=ms.LAX)
            try:
                with _Isolated(owner, recorder, code):
                    if level == "graph":
                        ms.set_context(mode=ms.GRAPH_MODE)
                        compiled = part if isinstance(part, ms.nn.Cell) else ms.jit(part)
                    else:
                        ms.set_context(mode=ms.PYNATIVE_MODE)
                        compiled = ms.jit(part, fullgraph=True)
                    compiled(*args)
                entry["runs"][level] = {"status": "ok"}
            except BaseException as exc:  # user code may raise anything
                entry["runs"][level] = error_record(exc)
                break  # STRICT is only asked of what compiles lax
        parts.append(entry)
    ms.set_context(mode=ms.PYNATIVE_MODE)
    return parts
