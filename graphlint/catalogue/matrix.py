"""The coverage matrix: every construct graphlint knows, in every context graph code is written in.

A construct is a few statements computing ``y`` from ``x`` (a float32 Tensor of shape (2, 3) holding 0..5); a
context places them in graph code: ``construct`` of a Cell, a ``@jit`` function, a helper a Cell calls (a method
or a module function), a ``@jit_class`` method, under a constant condition, under a Tensor condition, inside a
loop. Each cell is a complete program that the test suite compiles with MindSpore (PYNATIVE_MODE as the
reference, GRAPH_MODE at the lax level, ``jit(fullgraph=True)`` for strict, and MindIR export where a construct
is about export) and lints: a cell that fails at a level must get an error-level finding at that level, a cell
that compiles none. The measured outcomes are kept in ``matrix_measured.json`` (``python
scripts/measure_matrix.py`` refreshes them: measuring runs MindSpore, which the catalogue never imports) and
docs/coverage.md is generated from them.
"""

from __future__ import annotations

import json
import os
import textwrap
from dataclasses import dataclass, field

from graphlint.catalogue.model import EXAMPLE_HEADER

MEASURED_PATH = os.path.join(os.path.dirname(os.path.abspath(__file__)), "matrix_measured.json")
INPUTS = "(Tensor(np.arange(6, dtype=np.float32).reshape(2, 3)),)"


@dataclass(frozen=True)
class Construct:
    key: str
    title: str
    body: str  # statements that bind `y`; `x` is the input Tensor, `self` the Cell (in Cell contexts)
    init: str = ""  # statements of `__init__` (self.* set-up)
    init_args: str = ""  # parameters of `__init__` after self, e.g. "n_steps=800"
    module: str = ""  # module-level set-up
    uses_self: bool = False  # needs the Cell (`self.*`): not placed in `@jit` functions or module helpers
    export: bool = False  # also exported to MindIR and run (the construct is about export)
    contexts: tuple[str, ...] = ()  # only these contexts (default: all that fit)

    def __post_init__(self):
        for name in ("body", "init", "module"):
            object.__setattr__(self, name, textwrap.dedent(getattr(self, name)).strip("\n"))


CONTEXTS = ("construct", "jit", "helper", "method_helper", "jit_class", "const_if", "tensor_if", "loop")


def _indent(text: str, spaces: int) -> str:
    return textwrap.indent(text, " " * spaces) if text else ""


@dataclass(frozen=True)
class Cell:
    construct: Construct
    context: str
    source: str
    entry: str
    runs: tuple[str, ...] = field(default=("pynative", "graph", "strict"))

    @property
    def key(self) -> str:
        return f"{self.construct.key}@{self.context}"

    def job(self) -> dict:
        return {"source": self.source, "entry": self.entry, "inputs": INPUTS, "runs": list(self.runs),
                "module_name": "matrix_" + "".join(c if c.isalnum() else "_" for c in self.key)}


def _init_block(construct: Construct, extra: str = "") -> str:
    signature = f"self, {construct.init_args}" if construct.init_args else "self"
    lines = [f"def __init__({signature}):", "    super().__init__()"]
    for part in (construct.init, extra):
        if part:
            lines += _indent(part, 4).splitlines()
    return _indent("\n".join(lines), 4)


def build(construct: Construct, context: str) -> Cell | None:
    """The program of one matrix cell, or None where the construct does not fit the context."""
    body = construct.body
    module = construct.module + "\n\n" if construct.module else ""
    runs = ("pynative", "graph", "strict") + (("mindir",) if construct.export else ())
    if construct.contexts and context not in construct.contexts:
        return None
    if construct.uses_self and context in ("jit", "helper", "jit_class"):
        return None
    if context in ("construct", "const_if", "tensor_if", "loop"):
        if context == "construct":
            inner = body
        elif context == "const_if":
            inner = "if self.flag:\n" + _indent(body, 4) + "\nelse:\n    y = x"
        elif context == "tensor_if":
            inner = "if x.sum() > 0:\n" + _indent(body, 4) + "\nelse:\n    y = x"
        else:
            inner = "y = x\nfor _ in range(2):\n" + _indent(body, 4)
        extra = "self.flag = True" if context == "const_if" else ""
        source = (f"{module}class Net(nn.Cell):\n{_init_block(construct, extra)}\n\n"
                  f"    def construct(self, x):\n{_indent(inner, 8)}\n        return y\n")
    elif context == "jit":
        source = f"{module}@ms.jit\ndef net(x):\n{_indent(body, 4)}\n    return y\n"
        return Cell(construct, context, EXAMPLE_HEADER + "\n" + source, "net", runs)
    elif context == "helper":
        source = (f"{module}def helper(x):\n{_indent(body, 4)}\n    return y\n\n\n"
                  "class Net(nn.Cell):\n    def construct(self, x):\n        return helper(x)\n")
    elif context == "method_helper":
        source = (f"{module}class Net(nn.Cell):\n{_init_block(construct)}\n\n"
                  f"    def compute(self, x):\n{_indent(body, 8)}\n        return y\n\n"
                  "    def construct(self, x):\n        return self.compute(x)\n")
    elif context == "jit_class":
        source = (f"{module}@ms.jit_class\nclass Helper:\n    def run(self, x):\n{_indent(body, 8)}\n"
                  "        return y\n\n\nclass Net(nn.Cell):\n    def __init__(self):\n        super().__init__()\n"
                  "        self.helper = Helper()\n\n    def construct(self, x):\n        return self.helper.run(x)\n")
    else:
        raise ValueError(context)
    return Cell(construct, context, EXAMPLE_HEADER + "\n" + source, "Net", runs)


def cells() -> list[Cell]:
    from graphlint.catalogue.constructs import CONSTRUCTS  # cycle: constructs imports Construct from here

    found = []
    for construct in CONSTRUCTS:
        for context in CONTEXTS:
            cell = build(construct, context)
            if cell is not None:
                found.append(cell)
    return found


def load_measured() -> dict:
    try:
        with open(MEASURED_PATH, encoding="utf-8") as handle:
            return json.load(handle)
    except (OSError, ValueError):
        return {}
