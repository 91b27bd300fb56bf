"""Port mode: after ``--fix --unsafe-fixes --validate``, everything that still blocks compiling, from one run.

A GRAPH_MODE compile stops at its first error, so a user porting a model meets its blockers one compile at a
time. For each entry with declared example inputs (``[tool.graphlint.validate.inputs]``) in the files of the
run, the fixed text is compiled by MindSpore whole and in parts (:mod:`graphlint.validate.parts`: every sub-Cell
and helper on the arguments a PYNATIVE_MODE run gave it, with what it calls replaced by what that call
returned), at the default (lax) level and then STRICT. Each compile error is read with ``explain-error``'s tables
and tied to what graphlint reported at that line. The report lists the confirmed blockers in the order the
compiler meets them (the whole model's first, then each part in the order it was first called; lax before
STRICT), then what graphlint reports that no compile reached, because each compile stopped before it.
"""

from __future__ import annotations

import os
import re
from dataclasses import dataclass, field

from graphlint.analysis.source import module_name_for
from graphlint.catalogue.model import Severity
from graphlint.explain_error import explain
from graphlint.run.cache import default_folder
from graphlint.validate.validator import probe_parts, sys_root_for

LEVELS = {"graph": "lax", "strict": "STRICT"}


@dataclass
class Blocker:
    """A compile error MindSpore raised, where it points in the user's file."""

    level: str  # "lax" or "STRICT"
    path: str
    line: int
    message: str  # the compiler's message, first line
    part: str  # the part whose compile raised it ("Translator.construct")
    finding: object = None  # graphlint's finding at that line, of a rule that predicts the message
    rule: object = None  # the rule that predicts the message (the finding's, or explain-error's best guess)
    log: str = ""  # the compile's whole error, as explain-error reads it

    def place(self) -> str:
        return f"{self.path}:{self.line}"


@dataclass
class EntryPort:
    key: str  # "module:Entry"
    path: str
    compiles: dict = field(default_factory=dict)  # "lax"/"STRICT" -> whether the whole entry compiled
    blockers: list[Blocker] = field(default_factory=list)
    behind: list = field(default_factory=list)  # findings of errors no compile reached
    not_probed: str = ""  # why the entry could not be compiled
    logs: str = ""  # the folder holding each failed compile's log


def port_entries(fix_report, config, wrote: bool = True) -> list[EntryPort]:
    """Probe every declared entry of the run's files, on the text ``--fix`` left (or would leave)."""
    texts = {path: source.text for path, source in fix_report.lint.sources.items()}
    texts.update({outcome.path: outcome.after for outcome in fix_report.files if outcome.after})
    changed = {outcome.path for outcome in fix_report.files if outcome.after and outcome.after != outcome.before}
    modules = {module_name_for(path): path for path in texts}
    entries = []
    for key, declared in sorted(config.validate_inputs.items()):
        path = modules.get(key.split(":", 1)[0])
        if path is None:
            continue
        entry = EntryPort(key, path)
        others = {name: (os.path.abspath(other), texts[other]) for name, other in modules.items()
                  if other != path and other in changed}
        record, why = probe_parts(key, path, texts[path], sys_root_for(path), declared, config.validate_timeout,
                                  config.validate_memory_mb, others, config.validate_python)
        if not record:
            entry.not_probed = why
        else:
            folder = os.path.join(default_folder(config), "port", key.replace(":", "."))
            _keep_logs(record, folder, path, texts[path], path not in changed or wrote)
            entry.logs = folder
            _read_probe(entry, record, fix_report.remaining)
        entries.append(entry)
    return entries


def _keep_logs(record: dict, folder: str, path: str, text: str, on_disk: bool) -> None:
    """Write each failed compile's error to a log of its own in ``folder`` (emptied first), and note its path in
    the compile's record (``"log"``). The compiled copy of the entry's module is named in MindSpore's message by a
    temporary path: the log names the user's file when it holds the compiled text (``on_disk``), else a copy of
    that text kept beside the logs, so that ``graphlint explain-error LOG`` finds the line it points at."""
    os.makedirs(folder, exist_ok=True)
    for name in os.listdir(folder):
        if name.endswith(".log") or name.endswith(".py"):
            os.remove(os.path.join(folder, name))
    shown = os.path.abspath(path)
    if not on_disk:
        shown = os.path.join(folder, os.path.basename(path))
        with open(shown, "w", encoding="utf-8") as handle:
            handle.write(text)
    compiled = record.get("file", "")
    runs = [(f"whole-{level}", run) for level, run in record.get("whole", {}).items()]
    runs += [(f"{part['name']}-{level}", run) for part in record.get("parts", [])
             for level, run in part["runs"].items()]
    number = 0
    for name, run in runs:
        if run.get("status") != "error":
            continue
        number += 1
        log = os.path.join(folder, f"{number:02d}-{re.sub(r'[^A-Za-z0-9_.-]+', '_', name)}.log")
        message = f"{run.get('error_type', '')}: {run.get('message', '') or run.get('summary', '')}"
        with open(log, "w", encoding="utf-8") as handle:
            handle.write(message.replace(compiled, shown) if compiled else message)
        run["log"] = log


def _read_probe(entry: EntryPort, record: dict, findings: list) -> None:
    compiled_file = record.get("file", "")
    whole = record.get("whole", {})
    entry.compiles = {LEVELS[level]: run.get("status") == "ok" for level, run in whole.items()}
    name = entry.key.split(":", 1)[1]
    for level in ("graph", "strict"):
        found = [_blocker(LEVELS[level], part["name"], part["runs"][level], entry.path, compiled_file, findings)
                 for part in record.get("parts", []) if part["runs"].get(level, {}).get("status") == "error"]
        if whole.get(level, {}).get("status") == "error":
            first = _blocker(LEVELS[level], f"{name} (whole)", whole[level], entry.path, compiled_file, findings)
            found = _whole_first(first, found, entry.blockers)
        for blocker in found:
            if not any(_same(blocker, other) for other in entry.blockers):
                entry.blockers.append(blocker)
    entry.behind = _behind(entry, record, findings)


def _whole_first(first: Blocker, found: list, listed: list) -> list:
    """The whole model's error is the one the compiler meets first: the part that raised it goes first. A
    sub-Cell's parse error names only the line that calls it: when a part shows the same message, or it is
    already listed, that line is not listed again."""
    same = [b for b in found if b.message == first.message and (b.line == first.line or not first.finding)]
    if same:
        return same[:1] + [b for b in found if b is not same[0]]
    if first.finding is None and any(b.message == first.message for b in listed):
        return found
    return [first] + found


def _behind(entry: EntryPort, record: dict, findings: list) -> list:
    """graphlint's errors in the probed files that no compile error was tied to."""
    confirmed = {id(b.finding) for b in entry.blockers if b.finding is not None}
    places = {(os.path.abspath(b.path), b.line) for b in entry.blockers}
    files = {os.path.abspath(entry.path)} | {os.path.abspath(part.get("file", "")) for part in record.get("parts", [])}
    return [f for f in findings if id(f) not in confirmed and (os.path.abspath(f.path), f.line) not in places
            and os.path.abspath(f.path) in files and Severity.ERROR in (f.rule.lax, f.rule.strict)]


def _same(one: Blocker, other: Blocker) -> bool:
    if one.finding is not None and one.finding is other.finding:
        return True
    return one.line == other.line and one.message == other.message


def _blocker(level: str, part: str, run: dict, path: str, compiled_file: str, findings: list) -> Blocker:
    text = f"{run.get('error_type', '')}: {run.get('message', '') or run.get('summary', '')}"
    explained = explain(text, lint=False)  # (the findings at the line come from the run)
    message = (explained.message or run.get("summary", "")).strip()
    line = 0
    location = explained.location
    if location is not None and os.path.basename(location.path) == os.path.basename(compiled_file):
        line = location.line  # (the entry's module, compiled from a copy of the fixed text)
    elif location is not None and os.path.isfile(location.path):
        path, line = _shown(location.path), location.line  # another file of the project
    here = [f for f in findings if os.path.abspath(f.path) == os.path.abspath(path)]
    finding = _reported(line, explained.rules, here)
    rule = finding.rule if finding is not None else (explained.rules[0] if explained.rules else None)
    return Blocker(level, path, line, message, part, finding, rule, run.get("log", ""))


def _shown(path: str) -> str:
    relative = os.path.relpath(path)
    return path if relative.startswith("..") else relative


def _reported(line: int, rules: list, findings: list):
    """graphlint's finding for a compile error at ``line``: of a rule that predicts the message, in the same
    function (MindSpore may point at the branch's assignment where graphlint points at its `if`), nearest first;
    else an error reported on that line."""
    if not line:
        return None
    around = [f for f in findings if f.rule in rules and _function_lines(f)[0] <= line <= _function_lines(f)[1]]
    if around:
        return min(around, key=lambda f: abs(f.line - line))
    on_line = [f for f in findings if f.line <= line <= f.end_line and Severity.ERROR in (f.rule.lax, f.rule.strict)]
    return on_line[0] if on_line else None


def _function_lines(finding) -> tuple[int, int]:
    node = finding.node
    if node is None:
        return finding.line, finding.end_line
    scope = node.scope()
    return scope.fromlineno or finding.line, scope.tolineno or finding.end_line


def render(entries: list[EntryPort], wrote: bool) -> str:
    """The report, as ``--fix`` prints it on stderr after its summary."""
    lines = []
    for entry in entries:
        if entry.not_probed:
            lines.append(f"graphlint port: {entry.key}: not compiled: {entry.not_probed}")
            continue
        state = ", ".join(f"{level} {'compiles' if ok else 'fails'}" for level, ok in entry.compiles.items())
        text = "the fixed text" if wrote else "the text --fix would write"
        if not entry.blockers and not entry.behind:
            lines.append(f"graphlint port: {entry.key}: {state} ({text}); nothing left in the way")
            continue
        lines.append(f"graphlint port: {entry.key}: {state} ({text}); "
                     f"{len(entry.blockers)} blocker{'s' if len(entry.blockers) != 1 else ''} confirmed by "
                     "compiling, in the order the compiler meets them:")
        for number, blocker in enumerate(entry.blockers, 1):
            place = blocker.place() if blocker.line else f"{entry.path} ({blocker.part})"
            lines.append(f"  {number}. [{blocker.level}] {place}: {blocker.message}")
            if blocker.rule is not None:
                how = "reported here" if blocker.finding is not None else "predicts this message; not reported here"
                lines.append(f"     {blocker.rule.id} {blocker.rule.symbol} ({how}): {blocker.rule.fix}")
            else:
                lines.append("     no rule predicts this message")
            if blocker.log:
                lines.append(f"     log: {_shown(blocker.log)} (graphlint explain-error reads it)")
        if entry.behind:
            lines.append("  reported by graphlint, not reached by a compile (each stopped at an error before it):")
            for finding in entry.behind:
                level = "lax" if finding.rule.lax is Severity.ERROR else "STRICT"
                lines.append(f"  - [{level}] {finding.path}:{finding.line}: {finding.rule.id} "
                             f"{finding.rule.symbol}: {finding.message}")
    return "\n".join(lines)
