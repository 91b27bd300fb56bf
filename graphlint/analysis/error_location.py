"""Where a MindSpore compile error points in the user's code: the file and line its report names.

MindSpore writes the place after the message (``# 0 In file net.py:88, 17~41``) and, for errors raised deeper, in a
"The Traceback of Net Construct Code" section. Standard library only: the validation child process, which may run
under another Python than graphlint's, reads it too.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

_LOCATION = re.compile(r"In file (?P<path>.+?):(?P<line>\d+)(?:~(?P<end>\d+))?(?:, (?P<col>\d+)~\d+)?\s*$", re.M)
_CALL_STACK_PLACE = re.compile(r"^In file (?P<path>[^\n]+?):(?P<line>\d+)(?:~(?P<end>\d+))?, \d+~\d+/", re.M)
TRACEBACK = "The Traceback of Net Construct Code"
# A frame in MindSpore's own installed package (mindspore/common/tensor.py, ...), never the user's line.
_MINDSPORE_FILE = re.compile(r"[\\/](?:site|dist)-packages[\\/]mindspore[\\/]")


@dataclass
class Location:
    path: str
    line: int
    end_line: int


def error_location(text: str) -> Location | None:
    """The user's line: the one named right after the message, else the innermost frame of the traceback; a frame
    in MindSpore's own package (``Tensor(...)`` is compiled from mindspore/common/tensor.py) is not the user's."""
    head, _, tail = text.partition(TRACEBACK)
    before_stack = head.split("C++ Call Stack")[0]

    def users(matches):
        return [m for m in matches if not _MINDSPORE_FILE.search(m.group("path"))]

    found = users(_LOCATION.finditer(before_stack))
    if not found and tail:
        found = users(_LOCATION.finditer(tail))[-1:]
    if not found:
        found = users(_LOCATION.finditer(text))[-1:]
    if not found:
        # A kernel's error ("Unsupported op [IndexAddExt] on CPU") names the node only in "The Function Call
        # Stack", innermost first, each place followed by its source: `In file net.py:38, 13~57/    x = .../`.
        found = users(_CALL_STACK_PLACE.finditer(text))[:1]
    if not found:
        return None
    match = found[0]
    line = int(match.group("line"))
    return Location(match.group("path").strip(), line, int(match.group("end") or line))


_FRAME = re.compile(r"^# (?P<depth>\d+) In file (?P<path>.+?):(?P<line>\d+)(?:~(?P<end>\d+))?(?:, \d+~\d+)?\s*$", re.M)


def traceback_frames(text: str) -> list[Location]:
    """The user's frames of the first chain MindSpore lists, outermost first (``# 0`` is the loop or the call,
    ``# 1`` what it ran, ...; the last is the statement the compile stopped at); else the one place
    :func:`error_location` finds, or none."""
    chain = []
    for match in _FRAME.finditer(text):
        if match.group("depth") == "0" and chain:
            break
        chain.append(match)
    users = [Location(m.group("path").strip(), int(m.group("line")), int(m.group("end") or m.group("line")))
             for m in chain if not _MINDSPORE_FILE.search(m.group("path"))]
    if users:
        return users
    found = error_location(text)
    return [found] if found is not None else []


# The address MindSpore puts in an object's name (`<DDIMScheduler::139966931859408>`): another in every compile.
_OBJECT_ID = re.compile(r"::\d+>")


def without_object_addresses(message: str) -> str:
    """``message`` with the addresses of the objects it names left out, so that two compiles' messages compare."""
    return _OBJECT_ID.sub(">", message)
