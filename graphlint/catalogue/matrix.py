"""The coverage matrix: every construct graphlint knows, in every context graph code is written in.

A construct is a few statements computing ``y`` from ``x`` (a float32 Tensor of shape (2, 3) holding 0..5); a
context places them in graph code: ``construct`` of a Cell, a ``@jit`` function, a helper a Cell calls (a method
or a module function), a ``@jit_class`` method, under a constant condition, under a Tensor condition, inside a
loop. Each cell is a complete program that the test suite compiles with MindSpore (PYNATIVE_MODE as the
reference, GRAPH_MODE at the lax level, ``jit(fullgraph=True)`` for strict, and MindIR export where a construct
is about export) and lints: a cell that fails at a level must get an error-level finding at that level, a cell
that compiles none. The measured outcomes are kept in ``matrix_measured.json`` (``python -m
graphlint.catalogue.matrix --measure`` refreshes them) and docs/coverage.md is generated from them.
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
    from graphlint.catalogue.constructs import CONSTRUCTS

    found = []
    for construct in CONSTRUCTS:
        for context in CONTEXTS:
            cell = build(construct, context)
            if cell is not None:
                found.append(cell)
    return found


# -- measurements ---------------------------------------------------------------------------------------------
def outcome(reference, run) -> str:
    """"ok", "fails", "diverges" or "crashes" of one run against the PYNATIVE reference."""
    from graphlint.validate.compare import outputs_difference

    if run.status in ("crashed", "timeout"):
        return "crashes"
    if run.status != "ok":
        return "fails"
    if reference.status == "ok" and outputs_difference(reference.outputs, run.outputs):
        return "diverges"
    return "ok"


def measure(selected: list[Cell], log=None) -> dict:
    """Compile the cells; ``{cell key: {"pynative": ..., "lax": ..., "strict": ..., "export": ..., "error": ...}}``."""
    from graphlint.validate.batch import run_programs

    results = run_programs([cell.job() for cell in selected], log=log)
    measured = {}
    for cell, runs in zip(selected, results):
        reference = runs.get("pynative")
        record = {"pynative": "ok" if reference is not None and reference.status == "ok" else "fails"}
        errors = []
        for level, mode in (("lax", "graph"), ("strict", "strict"), ("export", "mindir")):
            if mode in runs:
                record[level] = outcome(reference, runs[mode])
                if runs[mode].status != "ok":
                    errors.append(f"{level}: {runs[mode].error_type}: {runs[mode].summary}"[:200])
        record["error"] = errors[0] if errors else ""
        measured[cell.key] = record
    return measured


def load_measured() -> dict:
    try:
        with open(MEASURED_PATH, encoding="utf-8") as handle:
            return json.load(handle)
    except (OSError, ValueError):
        return {}


def main(argv=None) -> int:
    import argparse
    import sys

    parser = argparse.ArgumentParser(prog="python -m graphlint.catalogue.matrix")
    parser.add_argument("--measure", action="store_true", help="compile every cell and rewrite the measurements")
    parser.add_argument("--only", nargs="*", default=(), help="construct keys to measure")
    args = parser.parse_args(argv)
    selected = [c for c in cells() if not args.only or c.construct.key in args.only]
    if not args.measure:
        print(f"{len(selected)} cells")
        return 0
    measured = load_measured()
    measured.update(measure(selected, log=lambda text: print(text, file=sys.stderr)))
    known = {c.key for c in cells()}
    measured = {k: v for k, v in sorted(measured.items()) if k in known}
    with open(MEASURED_PATH + ".part", "w", encoding="utf-8") as handle:
        json.dump(measured, handle, indent=1, sort_keys=True)
        handle.write("\n")
    os.replace(MEASURED_PATH + ".part", MEASURED_PATH)
    print(f"measured {len(selected)} cells; {len(measured)} in {MEASURED_PATH}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
