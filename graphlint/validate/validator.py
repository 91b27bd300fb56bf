"""Validate a rewrite: the fixed code compiles in GRAPH_MODE and returns what the original returns.

For each changed graph entry (a Cell class or a jit function) the original
module runs in PYNATIVE_MODE and the rewritten module runs in PYNATIVE_MODE
and GRAPH_MODE, each in a child process with a timeout and a memory limit.
Outputs are compared (structure, shapes, dtypes, values within tolerance).

Example inputs come from ``[tool.graphlint.validate.inputs]``, keyed by
``"package.module:Entry"``:

* a list of specs, one per argument: ``"float32[2,3]"`` (seeded random
  values), ``"int:4"``, ``"float:0.5"``, ``"bool:true"``: run and compare;
* a list with placeholder dimensions (``"float32[?,3]"``, ``"float32[*]"``):
  compile only, from dynamic-shape placeholders; outputs are not compared;
* a string ``"package.module:function"``: a factory returning the argument
  tuple (runs and compares);
* a table ``{ inputs = <one of the above>, init = { dim = 8 } }``: keyword
  arguments for the Cell's constructor (or ``factory = "module:make_cell"``).

Every run seeds Python, NumPy and MindSpore identically before building the
entry, so randomly initialised weights are equal across runs.

Without an entry, a Cell is compiled from dynamic-rank float32 placeholders
(one per positional argument of ``construct``), and the report says that
outputs were not compared.
"""

from __future__ import annotations

import os
from dataclasses import dataclass

from graphlint.validate.compare import outputs_difference
from graphlint.validate.runner import run_job


@dataclass
class EntryRef:
    module_name: str  # dotted, e.g. "examples.model"
    name: str  # "Net" (a Cell class) or "train_step" (a function)
    is_cell: bool
    arity: int  # positional arguments of construct / the function, self excluded

    @property
    def key(self) -> str:
        return f"{self.module_name}:{self.name}"


@dataclass
class Validation:
    ok: bool
    compared: bool  # outputs were compared (not only compiled)
    reason: str

    def describe(self) -> str:
        return self.reason


def _job(entry: EntryRef, path: str, text: str, sys_root: str, runs: list[str], inputs, init=None,
         factory=None) -> dict:
    job = {"source": text, "module_name": entry.module_name, "filename": path,
           "entry": entry.name, "runs": runs, "sys_path": [sys_root], "calls": 1,
           "ignore_drive": True, "init": init or {}}
    if factory:
        job["factory"] = factory
    if isinstance(inputs, str):
        job["inputs_factory"] = inputs
    elif isinstance(inputs, list):
        job["inputs_specs"] = inputs
    return job


def _is_placeholder(spec: str) -> bool:
    return "?" in spec or "*" in spec or "None" in spec or "-1" in spec


def validate_entry(entry: EntryRef, path: str, before: str, after: str, sys_root: str, declared,
                   timeout: float, memory_mb: int) -> Validation:
    init, factory, inputs = {}, None, declared
    if isinstance(declared, dict):
        # { inputs = [...] or "mod:factory", init = { ... } (Cell keyword arguments), factory = "mod:make_cell" }
        init, factory, inputs = declared.get("init", {}), declared.get("factory"), declared.get("inputs")
        if not isinstance(init, dict):
            return Validation(False, False, f"{entry.key}: init must be a table of keyword arguments")
    if inputs is None or (isinstance(inputs, list) and any(_is_placeholder(str(s)) for s in inputs)):
        if not entry.is_cell:
            return Validation(False, False, f"no example inputs declared for {entry.key} "
                                            "(add them under [tool.graphlint.validate.inputs])")
        placeholders = inputs if inputs is not None else ["float32[*]"] * entry.arity
        job = _job(entry, path, after, sys_root, ["compile"], None, init, factory)
        job["placeholders"] = placeholders
        result = run_job(job, timeout=timeout, memory_mb=memory_mb)
        run = result["compile"]
        if not run.ok:
            return Validation(False, False, f"{entry.key}: the rewritten code does not compile in GRAPH_MODE "
                                            f"from placeholders {placeholders}: {run.describe()}")
        note = "declared placeholders" if inputs is not None else "guessed float32 placeholders"
        return Validation(True, False, f"{entry.key}: compiles in GRAPH_MODE from {note}; outputs not compared "
                                       "(declare example inputs to compare them)")
    if not isinstance(inputs, (list, str)):
        return Validation(False, False, f"{entry.key}: inputs must be a list of specs or a 'module:factory' string")
    original = run_job(_job(entry, path, before, sys_root, ["pynative"], inputs, init, factory),
                       timeout=timeout, memory_mb=memory_mb)
    reference = original["pynative"]
    if not reference.ok:
        return Validation(False, False, f"{entry.key}: the original code does not run in PYNATIVE_MODE: "
                                        f"{reference.describe()}")
    fixed = run_job(_job(entry, path, after, sys_root, ["pynative", "graph"], inputs, init, factory),
                    timeout=timeout, memory_mb=memory_mb)
    for mode, label in (("pynative", "PYNATIVE_MODE"), ("graph", "GRAPH_MODE")):
        run = fixed[mode]
        if not run.ok:
            return Validation(False, True, f"{entry.key}: the rewritten code fails in {label}: {run.describe()}")
        difference = outputs_difference(reference.outputs, run.outputs)
        if difference:
            return Validation(False, True, f"{entry.key}: in {label} the rewritten code returns other values "
                                           f"than the original in PYNATIVE_MODE ({difference})")
    return Validation(True, True, f"{entry.key}: compiles in GRAPH_MODE and matches the original "
                                  "PYNATIVE_MODE outputs")


def sys_root_for(path: str) -> str:
    from graphlint.analysis.source import package_root_for

    return package_root_for(os.path.abspath(path))
