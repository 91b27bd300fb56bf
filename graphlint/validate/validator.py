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
import re
from dataclasses import dataclass, field

from graphlint.analysis.source import package_root_for
from graphlint.validate.compare import outputs_difference
from graphlint.validate.runner import run_job


@dataclass
class EntryRef:
    module_name: str  # dotted, e.g. "examples.model"
    name: str  # "Net" (a Cell class) or "train_step" (a function)
    is_cell: bool
    arity: int  # positional arguments of construct / the function, self excluded
    # the Cell class or function whose rewrite is validated through this entry (it has no inputs of its own)
    through: str = ""

    @property
    def key(self) -> str:
        return f"{self.module_name}:{self.name}"


@dataclass
class Validation:
    ok: bool
    compared: bool  # outputs were compared (not only compiled)
    reason: str
    pending: list = field(default_factory=list)  # blockers GRAPH_MODE failed on (the fix itself is kept)

    def describe(self) -> str:
        return self.reason


@dataclass(frozen=True)
class Blocker:
    """A finding graphlint reported in the rewritten code and does not fix: compiling may fail on it."""

    rule: str  # "E5101"
    symbol: str
    line: int  # in the rewritten text
    place: str  # "net.py:24", as the summary shows it
    errors: tuple = ()  # substrings of MindSpore's message for this rule (from the catalogue)

    def describe(self) -> str:
        return f"{self.rule} at {self.place}" if self.rule else self.place


def blocker_errors(rule) -> tuple:
    """What MindSpore's message says when ``rule``'s construct fails (the catalogue's examples and page)."""
    found = [example.error for example in rule.flagged if example.error]
    if rule.mindspore_error:
        first = rule.mindspore_error.splitlines()[0]
        found.append(first.split(": ", 1)[1] if ": " in first else first)
    return tuple(dict.fromkeys(e.strip() for e in found if e.strip()))


def blocking(run, blockers) -> list:
    """The blockers a failed run is explained by: MindSpore's message shows the rule's error, or points at
    the blocker's line as the statement it stopped at."""
    message = f"{run.summary}\n{run.message}"
    starts = {int(m.group(1)) for m in re.finditer(r"In file [^\n]*?:(\d+)(?:~\d+)?, \d+", message)}
    found = []
    for blocker in blockers:
        if any(error and error in message for error in blocker.errors):
            found.append(blocker)
        elif blocker.line in starts and blocker.errors == ():
            found.append(blocker)
    return found


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
                   timeout: float, memory_mb: int, blockers=(), python: str = "") -> Validation:
    """Run the original (PYNATIVE_MODE) and the rewrite (PYNATIVE_MODE, GRAPH_MODE) in one child process.

    ``blockers``: findings graphlint reported in the rewrite and does not fix. When GRAPH_MODE fails on one of
    them (a `try` only a person can remove), the rewrite is judged by PYNATIVE_MODE alone and kept as *compile
    pending*: ``Validation.pending`` names what blocks compiling. ``python``: the interpreter that runs MindSpore
    ("": this one)."""
    init, factory, inputs = {}, None, declared
    if isinstance(declared, dict):
        # { inputs = [...] or "mod:factory", init = { ... } (Cell keyword arguments), factory = "mod:make_cell" }
        init, factory, inputs = declared.get("init", {}), declared.get("factory"), declared.get("inputs")
        if not isinstance(init, dict):
            return Validation(False, False, f"{entry.key}: init must be a table of keyword arguments")
    if inputs is None or (isinstance(inputs, list) and any(_is_placeholder(str(s)) for s in inputs)):
        return _compile_only(entry, path, after, sys_root, inputs, init, factory, timeout, memory_mb, blockers,
                             python)
    if not isinstance(inputs, (list, str)):
        return Validation(False, False, f"{entry.key}: inputs must be a list of specs or a 'module:factory' string")
    job = _job(entry, path, before, sys_root, ["pynative", "fixed-pynative", "fixed-graph"], inputs, init, factory)
    job["fixed_source"] = after
    if entry.through:
        job["exercises"] = entry.through
    result = run_job(job, timeout=timeout, memory_mb=memory_mb, python=python or None)
    if result.setup_error:
        return Validation(False, False, f"{entry.key}: cannot validate: {result.setup_error}")
    verdict = _pynative_verdict(entry, result)
    if verdict is not None:
        return verdict
    reference, graph = result["pynative"], result["fixed-graph"]
    if not graph.ok:
        blocked = blocking(graph, blockers) or _fails_as_before(job, graph, timeout, memory_mb, python)
        if blocked:
            names = ", ".join(b.describe() for b in blocked)
            # (not "compiles once ... is fixed": nothing proves what follows the first error)
            return Validation(True, True, f"{entry.key}{_through(entry)}: matches the original in PYNATIVE_MODE; "
                                          f"GRAPH_MODE compile pending: compiling stops at {names}, to fix by hand",
                              pending=blocked)
        return Validation(False, True, f"{entry.key}: the rewritten code fails in GRAPH_MODE: {graph.describe()}")
    difference = outputs_difference(reference.outputs, graph.outputs)
    if difference:
        return Validation(False, True, f"{entry.key}: in GRAPH_MODE the rewritten code returns other values "
                                       f"than the original in PYNATIVE_MODE ({difference})")
    return Validation(True, True, f"{entry.key}{_through(entry)}: compiles in GRAPH_MODE and matches the original "
                                  "PYNATIVE_MODE outputs")


def _pynative_verdict(entry: EntryRef, result) -> Validation | None:
    """The verdict when PYNATIVE_MODE already decides it (the original or the rewrite fails, their outputs differ,
    the entry validated through does not call what was rewritten); None when GRAPH_MODE is to judge."""
    reference, pynative = result["pynative"], result["fixed-pynative"]
    hint = _constructor_hint({"error_type": reference.error_type, "summary": reference.summary}, entry.name)
    if hint:
        return Validation(False, False, f"{entry.key}: cannot validate: {hint}")
    if not reference.ok:
        return Validation(False, False, f"{entry.key}: the original code does not run in PYNATIVE_MODE: "
                                        f"{reference.describe()}")
    if not pynative.ok:
        return Validation(False, True, f"{entry.key}: the rewritten code fails in PYNATIVE_MODE: {pynative.describe()}")
    if entry.through and not pynative.record.get("exercised"):
        return Validation(False, False, f"cannot validate: {entry.through} has no declared inputs and {entry.key}, "
                                        "declared in its module, does not call it")
    difference = outputs_difference(reference.outputs, pynative.outputs)
    if difference:
        return Validation(False, True, f"{entry.key}: in PYNATIVE_MODE the rewritten code returns other values "
                                       f"than the original ({difference})")
    return None


def _compile_only(entry: EntryRef, path: str, after: str, sys_root: str, inputs, init, factory, timeout: float,
                  memory_mb: int, blockers, python: str = "") -> Validation:
    """No runnable inputs: a Cell is compiled from placeholders (declared, or guessed float32 of any rank)."""
    if not entry.is_cell:
        return Validation(False, False, f"no example inputs declared for {entry.key} "
                                        "(add them under [tool.graphlint.validate.inputs])")
    placeholders = inputs if inputs is not None else ["float32[*]"] * entry.arity
    job = _job(entry, path, after, sys_root, ["compile"], None, init, factory)
    job["placeholders"] = placeholders
    result = run_job(job, timeout=timeout, memory_mb=memory_mb, python=python or None)
    if result.setup_error:
        return Validation(False, False, f"{entry.key}: cannot validate: {result.setup_error}")
    run = result["compile"]
    hint = _constructor_hint({"error_type": run.error_type, "summary": run.summary}, entry.name)
    if hint:
        return Validation(False, False, f"{entry.key}: cannot validate: {hint}")
    if not run.ok:
        blocked = blocking(run, blockers)
        if blocked:
            return Validation(False, False, f"{entry.key}: cannot validate: compiling stops at "
                                            f"{', '.join(b.describe() for b in blocked)} and no example inputs "
                                            "are declared to compare PYNATIVE_MODE outputs")
        return Validation(False, False, f"{entry.key}: the rewritten code does not compile in GRAPH_MODE "
                                        f"from placeholders {placeholders}: {run.describe()}")
    note = "declared placeholders" if inputs is not None else "guessed float32 placeholders"
    return Validation(True, False, f"{entry.key}: compiles in GRAPH_MODE from {note}; outputs not compared "
                                   "(declare example inputs to compare them)")


def _fails_as_before(job: dict, graph, timeout: float, memory_mb: int, python: str = "") -> list:
    """When the rewrite fails GRAPH_MODE with an error graphlint did not report, the original compiled: the same
    error there means the rewrite is not its cause (a `try` in a module outside the run), so the fix is judged
    by PYNATIVE_MODE, compile pending on that error."""
    original = run_job({**job, "runs": ["graph"]}, timeout=timeout, memory_mb=memory_mb, python=python or None)["graph"]
    if original.ok or original.error_type != graph.error_type or original.summary != graph.summary:
        return []
    return [Blocker("", "", 0, f"the original's own error ({graph.describe()})")]


def _through(entry: EntryRef) -> str:
    return f" (which calls {entry.through})" if entry.through else ""


def declared_entry(entry: EntryRef | None, declared: dict) -> EntryRef | None:
    """The entry to validate a rewrite of ``entry`` through: itself when it has declared inputs, else an entry of
    its module that has (its outputs then show the rewrite, if it calls it: the child checks that it does)."""
    if entry is None or entry.key in declared:
        return entry
    for key in sorted(declared):
        module_name, name = key.split(":", 1)
        if module_name == entry.module_name and name != entry.name:
            return EntryRef(module_name, name, True, 0, through=entry.name)
    return entry


def sys_root_for(path: str) -> str:
    return package_root_for(os.path.abspath(path))


def probe_parts(entry_key: str, path: str, text: str, sys_root: str, declared, timeout: float,
                memory_mb: int, modules: dict | None = None, python: str = "", reported=(),
                predicted=()) -> tuple[dict, str]:
    """Port mode: compile the entry ``"module:Entry"`` of ``text`` whole and in parts (see
    :mod:`graphlint.validate.parts`). ``modules``: ``{module name: (path, text)}`` of the project's other files
    whose text is not the one on disk (what ``--diff`` would write); ``reported``: the lines of ``path`` graphlint
    reports an error at (a compile error is placed at one of them when the compiler's frames name it);
    ``predicted``: ``(line, [pieces of MindSpore's messages its rule is known to quote])`` of those findings (an
    error the compiler names no line for is cut at the one finding whose rule quotes its message). Returns (the child's record, "") or ({}, why it could not be
    probed)."""
    module_name, name = entry_key.split(":", 1)
    init, factory, inputs = {}, None, declared
    if isinstance(declared, dict):
        init, factory, inputs = declared.get("init", {}), declared.get("factory"), declared.get("inputs")
    if inputs is None or (isinstance(inputs, list) and any(_is_placeholder(str(s)) for s in inputs)):
        return {}, "no runnable example inputs are declared (placeholders only compile; parts need a run)"
    entry = EntryRef(module_name, name, True, 0)
    job = _job(entry, path, text, sys_root, ["parts"], inputs, init, factory)
    if modules:
        job["modules"] = {name: list(found) for name, found in modules.items()}
    job["reported"] = sorted(set(reported))
    job["predicted"] = [[line, list(pieces)] for line, pieces in predicted]
    job["seconds"] = timeout * 0.8  # (the child stops compiling parts then, and reports what it found)
    result = run_job(job, timeout=timeout, memory_mb=memory_mb, python=python or None)
    if result.setup_error:
        return {}, result.setup_error
    run = result["parts"]
    if not run.ok:
        return {}, _constructor_hint({"error_type": run.error_type, "summary": run.summary}, name) or \
            f"the probe did not finish: {run.describe()}"
    pynative = run.record.get("pynative", {})
    if pynative.get("status") != "ok":
        return {}, _constructor_hint(pynative, name) or \
            f"the model does not run in PYNATIVE_MODE: {pynative.get('error_type', '')}: {pynative.get('summary', '')}"
    return run.record, ""


def _constructor_hint(record: dict, name: str) -> str:
    """For a constructor's missing arguments, what to declare (never a placeholder problem)."""
    found = re.search(r"__init__\(\) missing \d+ required positional arguments?: (.+)", record.get("summary", ""))
    if not found or record.get("error_type") != "TypeError":
        return ""
    names = ", ".join(re.findall(r"'(\w+)'", found.group(1)))
    return f"{name}.__init__ needs {names}: declare them as init = {{ ... }} under [tool.graphlint.validate.inputs]"
