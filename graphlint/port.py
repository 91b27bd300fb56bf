"""Port mode: after ``--fix --unsafe-fixes --validate``, everything that still blocks compiling, from one run.

A GRAPH_MODE compile stops at its first error, so a user porting a model meets its blockers one compile at a
time. For each entry with declared example inputs (``[tool.graphlint.validate.inputs]``) in the files of the
run, the fixed text is run once in PYNATIVE_MODE while every function of the project it calls is recorded, then
compiled by MindSpore (:mod:`graphlint.validate.parts`), at the default (lax) level and at STRICT:

* the whole model, built afresh as the user builds it (nothing the PYNATIVE_MODE run changed is read): its error
  is a blocker confirmed by compiling; then again and again, with the statement of each error met so far cut
  from a scratch copy and replaced by what the PYNATIVE_MODE run computed there (:mod:`graphlint.validate.cuts`),
  until it compiles: each new error is a blocker confirmed by compiling the model with those values. When the
  first compile passes, its outputs are compared with PYNATIVE_MODE's;
* when the compiles needed cuts, each part alone (a sub-Cell, a method, a helper) on the arguments that run
  passed it, with what it calls standing in as what that call returned: its error only suggests a blocker;
* each part that failed so, again with nothing standing in, taken from a model built afresh: its error is a
  blocker confirmed by compiling (the user's code, on real recorded values).

A rule is named for a blocker only when graphlint reports it on that line and the rule's messages (the
catalogue's, the error inventory's) include the compiler's; else the line says "no rule yet". Errors about
graphlint's own stand-ins are never shown. Each failed compile's log is kept (``.graphlint_cache/port/``) for
``graphlint explain-error``.
"""

from __future__ import annotations

import os
import re
from dataclasses import dataclass, field

from graphlint.analysis.error_location import without_object_addresses
from graphlint.analysis.generated import error_inventory
from graphlint.analysis.source import module_name_for
from graphlint.catalogue.model import DIVERGES, Severity
from graphlint.explain_error import explain
from graphlint.run.cache import default_folder
from graphlint.validate.compare import leaf_differences
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
    finding: object = None  # graphlint's finding at that line, of a rule whose messages include this one
    rule: object = None  # the finding's rule (None: no rule yet)
    log: str = ""  # the compile's whole error, as explain-error reads it
    error_type: str = ""  # the exception's class ("ValueError")
    unnamed: str = ""  # without a rule: what explain-error says of the message
    at_def: bool = False  # a part's error MindSpore placed at the part's def line only

    def place(self) -> str:
        return f"{self.path}:{self.line}"


@dataclass
class EntryPort:
    key: str  # "module:Entry"
    path: str
    compiles: dict = field(default_factory=dict)  # "lax"/"STRICT" -> whether the whole entry compiled
    blockers: list[Blocker] = field(default_factory=list)  # confirmed by compiling the model (no stand-ins)
    suggested: list[Blocker] = field(default_factory=list)  # a part alone, with stand-ins, fails there
    differs: dict = field(default_factory=dict)  # "lax"/"STRICT" -> the outputs that differ from PYNATIVE_MODE's
    behind: list = field(default_factory=list)  # findings of errors no compile reached
    diverging: list = field(default_factory=list)  # findings of rules that claim other results, where outputs differ
    not_probed: str = ""  # why the entry could not be compiled
    logs: str = ""  # the folder holding each failed compile's log
    stopped: bool = False  # the compiles of parts without stand-ins stopped at their bound
    rounds_stopped: dict = field(default_factory=dict)  # "lax"/"STRICT" -> why the compiles with cuts stopped early
    timed_out: float = 0.0  # the probe was stopped at validate-timeout (seconds): the compiles it finished


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
        remaining = [f for f in fix_report.remaining if _level(f) and os.path.abspath(f.path) == os.path.abspath(path)]
        # (for an error MindSpore names no line for: each finding's line, with what its rule is known to quote)
        predicted = [(f.line, _quoted_pieces(f.rule)) for f in remaining]
        record, why = probe_parts(key, path, texts[path], sys_root_for(path), declared, config.validate_timeout,
                                  config.validate_memory_mb, others, config.validate_python,
                                  [f.line for f in remaining], predicted)
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
    runs = [(f"whole-{level}-{number}", run) for level, found in record.get("whole", {}).items()
            for number, run in enumerate(found.get("rounds", []), 1)]
    for part in record.get("parts", []):
        for level, run in part["runs"].items():
            runs.append((f"{part['name']}-{level}", run))
            if "unaided" in run:
                runs.append((f"{part['name']}-{level}-unaided", run["unaided"]))
    number = 0
    for name, run in runs:
        if run.get("status") != "error":
            continue
        number += 1
        log = os.path.join(folder, f"{number:02d}-{re.sub(r'[^A-Za-z0-9_.-]+', '_', name)}.log")
        message = _log_text(run)
        compiled = run.get("file") or record.get("file", "")
        with open(log, "w", encoding="utf-8") as handle:
            handle.write(message.replace(compiled, shown) if compiled else message)
        run["log"] = log


def _read_probe(entry: EntryPort, record: dict, findings: list) -> None:
    compiled_file = record.get("file", "")
    whole = {level: found.get("rounds", []) for level, found in record.get("whole", {}).items()}
    # (a level compiles when its first compile, with nothing cut, passed)
    entry.compiles = {LEVELS[level]: bool(rounds) and rounds[0].get("status") == "ok" and not rounds[0]["cuts"]
                      for level, rounds in whole.items()}
    reference = record.get("pynative", {}).get("outputs")
    for level, rounds in whole.items():
        run = rounds[0] if rounds else {}
        if entry.compiles[LEVELS[level]] and reference and run.get("outputs"):
            entry.differs[LEVELS[level]] = leaf_differences(reference[0], run["outputs"][0])
    name = entry.key.split(":", 1)[1]
    # (an error of the whole model MindSpore names no line for is named by the one finding that predicts it in the
    # code the PYNATIVE_MODE run called)
    called = _called(entry, record)
    ran = [f for f in findings if (os.path.abspath(f.path), _qualified(f)) in called]
    for level in ("graph", "strict"):
        unaided, alone = _parts_failing(LEVELS[level], level, record, entry.path, compiled_file, findings)
        for run in whole.get(level, []):
            if run.get("status") != "error" or run.get("on_cut") or _artifact(run):
                continue
            _add_round(entry, _blocker(LEVELS[level], f"{name} (whole)", run, entry.path, run.get("file", ""),
                                       ran), run, unaided + alone)
        stopped = record.get("whole", {}).get(level, {}).get("stopped", "")
        if stopped and whole.get(level) and whole[level][-1].get("status") == "error":
            entry.rounds_stopped[LEVELS[level]] = stopped
        for blocker in unaided:
            # (a part named only at its def line, failing as a compile of the model did at its call: that error)
            if not any(_same(blocker, other) or (blocker.at_def and blocker.message == other.message)
                       for other in entry.blockers):
                entry.blockers.append(blocker)
        for blocker in alone:
            if not any(_same(blocker, other) for other in entry.blockers + entry.suggested):
                entry.suggested.append(blocker)
    entry.stopped = bool(record.get("unaided_stopped"))
    entry.timed_out = float(record.get("timed_out", 0.0))  # (set by the runner, to validate-timeout)
    # (the entry's own construct compiled alone is the model's compile: its error is one the rounds placed)
    entry.suggested = [b for b in entry.suggested if not any(_same(b, other) for other in entry.blockers) and not (
        b.part == f"{name}.construct" and any(b.message == other.message for other in entry.blockers))]
    entry.behind = _behind(entry, record, findings)
    entry.diverging = _diverging(entry, record, findings)


def _quoted_pieces(rule) -> list:
    """The pieces of MindSpore's messages a rule is known to produce (its message, its examples' errors)."""
    return [piece for piece in [rule.mindspore_error.split(": ", 1)[-1][:60]] +
            [example.error for example in rule.flagged if example.error] if piece and not piece.startswith("(")]


def _add_round(entry: EntryPort, first: Blocker, run: dict, parts_failing: list) -> None:
    """A compile of the whole model's error: a confirmed blocker, unless cuts were in place and it names no line or
    one of them was not exact (the cut model's, maybe not the user's: only suggested)."""
    # A sub-Cell's parse error names only the line that calls it: the part that fails with the same error
    # shows its own line (unless that is only the part's def line).
    same = [b for b in parts_failing if b.error_type == first.error_type and b.message == first.message
            and (b.line == first.line or not first.finding) and not b.at_def]
    blocker = same[0] if same else first
    if not same and first.finding is None and any(
            b.message == first.message and b.error_type == first.error_type for b in entry.blockers):
        return  # (a STRICT compile stopping where the lax one did, named only at the call of the part that holds it)
    if any(_same(blocker, other) for other in entry.blockers):
        return
    if run.get("cuts") and (not blocker.line or not run.get("exact", True)):
        if not any(_same(blocker, other) for other in entry.suggested):
            entry.suggested.append(blocker)
        return
    entry.blockers.append(blocker)


# graphlint's own objects, as MindSpore names them: a message about them is about the stand-ins, not the model
_ARTIFACT = re.compile(r"Namespace:graphlint|<Recorded::|'Recorded'")


def _parts_failing(level: str, key: str, record: dict, path: str, compiled_file: str, findings: list) -> tuple:
    """(the parts' errors compiling them without stand-ins confirmed, the errors only a compile with stand-ins
    showed), in the order the parts were first called. A part whose compile without stand-ins passes failed
    only because of its stand-ins: it is left out."""
    confirmed, suggested = [], []
    for part in record.get("parts", []):
        run = part["runs"].get(key, {})
        if run.get("status") != "error":
            continue
        unaided = run.get("unaided")
        if unaided is not None and unaided.get("status") == "error" and not _artifact(unaided):
            blocker = _blocker(level, part["name"], unaided, path, compiled_file, findings)
            blocker.at_def = blocker.line == part.get("line")
            confirmed.append(blocker)
        if (unaided is None or unaided.get("status") == "error") and not _artifact(run):
            blocker = _blocker(level, part["name"], run, path, compiled_file, findings)
            blocker.at_def = blocker.line == part.get("line")
            suggested.append(blocker)
    return confirmed, suggested


def _artifact(run: dict) -> bool:
    """An error of a compile with stand-ins that is about the stand-ins (an attribute the caller reads from a
    sub-Cell replaced by one, a keyword argument its construct does not take)."""
    text = f"{run.get('summary', '')}\n{run.get('message', '')}"
    return bool(_ARTIFACT.search(f"{text}\n{run.get('stderr', '')}")) or "unexpected keyword argument" in text \
        or "graphlint_recorded" in run.get("summary", "")  # (a stand-in's value is named in the message itself)


def _behind(entry: EntryPort, record: dict, findings: list) -> list:
    """graphlint's errors that no compile error was tied to, in the parts the PYNATIVE_MODE run called, at a level
    whose compile of the whole model stopped before them (a level that compiled reached them all), or that the
    probe had no time to compile."""
    confirmed = {id(b.finding) for b in entry.blockers + entry.suggested if b.finding is not None}
    places = {(os.path.abspath(b.path), b.line) for b in entry.blockers + entry.suggested}
    called = _called(entry, record)
    failed = {level for level, ok in entry.compiles.items() if not ok}
    if entry.timed_out:  # (a level the probe had no time to compile checked nothing: its errors still stand)
        failed |= {"lax", "STRICT"} - set(entry.compiles)
    return [f for f in findings if id(f) not in confirmed and (os.path.abspath(f.path), f.line) not in places
            and _level(f) in failed and (os.path.abspath(f.path), _qualified(f)) in called]


def _diverging(entry: EntryPort, record: dict, findings: list) -> list:
    """graphlint's findings, in the parts the PYNATIVE_MODE run called, of rules whose examples compile and return
    another result at a level whose outputs differed: the places to look at first."""
    levels = {"lax": "lax", "STRICT": "strict"}
    differing = [levels[level] for level, found in entry.differs.items() if found]
    if not differing:
        return []
    called = _called(entry, record)
    return [f for f in findings if (os.path.abspath(f.path), _qualified(f)) in called
            and any(getattr(example, level) == DIVERGES for example in f.rule.flagged for level in differing)]


def _called(entry: EntryPort, record: dict) -> set:
    """(file, qualified name) of each function the PYNATIVE_MODE run called (the entry's own construct too)."""
    compiled = record.get("file", "")
    called = {(os.path.abspath(entry.path if part.get("file") == compiled else part.get("file", "")), part["name"])
              for part in record.get("parts", [])}
    called.update((os.path.abspath(entry.path), name) for name in record.get("called", ()))
    return called


def _level(finding) -> str:
    return "lax" if finding.rule.lax is Severity.ERROR else "STRICT" if finding.rule.strict is Severity.ERROR else ""


def _qualified(finding) -> str:
    """The finding's function as Python names it (``Sampler.construct``), as the recorded parts are named."""
    node = finding.node
    if node is None:
        return ""
    name = node.scope().qname()
    module = node.root().name
    return name[len(module) + 1:] if module and name.startswith(module + ".") else name


def _same(one: Blocker, other: Blocker) -> bool:
    if one.finding is not None and one.finding is other.finding:
        return True
    return one.line == other.line and one.message == other.message


# A line of layout in MindSpore's report (dashes, carets under a quoted line), never the message.
_LAYOUT = re.compile(r"^[\s\-=~^*#|+]*$")
# An exception's class with nothing after it ("RuntimeError: "): its message is on the lines below.
_BARE = re.compile(r"^\s*\w+:\s*$")


def _message(explained, run: dict) -> str:
    candidates = [explained.message, run.get("summary", ""), *run.get("message", "").splitlines()]
    meaningful = list(dict.fromkeys(c.strip().lstrip("- ") for c in candidates
                                    if c and not _LAYOUT.match(c) and not _BARE.match(c)))
    if not meaningful:
        return run.get("error_type", "") or "an error without a message"
    candidate = meaningful[0]
    if candidate.endswith(":") and len(meaningful) > 1:
        candidate = f"{candidate} {meaningful[1]}"  # ("Kernel select failed:" then which kernel)
    return without_object_addresses(candidate)


def _log_text(run: dict) -> str:
    """The compile's error as explain-error reads it: the exception, then what MindSpore wrote on stderr."""
    text = f"{run.get('error_type', '')}: {run.get('message', '') or run.get('summary', '')}"
    return f"{text}\n\n{run['stderr']}" if run.get("stderr") else text


def _blocker(level: str, part: str, run: dict, path: str, compiled_file: str, findings: list) -> Blocker:
    text = _log_text(run)
    explained = explain(text, lint=False)  # (the findings at the line come from the run)
    message = _message(explained, run)
    line = 0
    location = explained.location
    if run.get("at"):
        line = run["at"]  # (a compile of the whole model: the frame the rounds chose, in the entry's module)
    elif location is not None and os.path.basename(location.path) == os.path.basename(compiled_file):
        line = location.line  # (the entry's module, compiled from a copy of the fixed text)
    elif location is not None and os.path.isfile(location.path):
        path, line = _shown(location.path), location.line  # another file of the project
    here = [f for f in findings if os.path.abspath(f.path) == os.path.abspath(path)]
    finding = (_reported(line, explained.rules, here) or _reported_for_attribute(explained.rules, here, message)) \
        if line else _reported_in_part(part, explained.rules, here)
    return Blocker(level, path, line, message, part, finding, finding.rule if finding is not None else None,
                   run.get("log", ""), run.get("error_type", ""), "" if finding is not None else _unnamed(explained))


def _unnamed(explained) -> str:
    """What explain-error says of a message no finding at its line predicts."""
    if explained.kind and explained.kind != "rule":
        return f"{explained.kind}: {error_inventory.CLASSES[explained.kind]}" + \
            (f" ({explained.note})" if explained.note else "")
    if explained.rules:
        return "graphlint reports nothing here that predicts this message"
    return explained.note or "graphlint has no rule for this message"


def _shown(path: str) -> str:
    relative = os.path.relpath(path)
    return path if relative.startswith("..") else relative


def _reported(line: int, rules: list, findings: list):
    """graphlint's finding for a compile error at ``line``: of a rule whose messages (the catalogue's table of
    MindSpore's messages, the error inventory) include this one, reported on the statement the error points at
    (a branch join's statement spans the branch whose assignment MindSpore names). Nothing else: a finding of
    another kind on the same line is not what the compiler says."""
    if not line:
        return None
    here = [f for f in findings if f.rule in rules and f.line <= line <= _statement_end(f)]
    return min(here, key=lambda f: (line - f.line, rules.index(f.rule))) if here else None


_SELF_ATTRIBUTE = re.compile(r"\bself\.\w+")


def _reported_for_attribute(rules: list, findings: list, message: str):
    """An error MindSpore raises at the call of a helper about an attribute the helper writes ("modify a member
    attribute ... with self.original_size", at `self.set_torch_image(...)`): the first finding, in source order, of
    a rule whose messages include this one that names that attribute where it is written. None without one."""
    named = set(_SELF_ATTRIBUTE.findall(message))
    here = [f for f in findings if f.rule in rules and any(f"`{name}`" in f.message for name in named)]
    return min(here, key=lambda f: f.line) if here else None


def _reported_in_part(part: str, rules: list, findings: list):
    """For an error MindSpore names no line for, raised by compiling one function alone (``odeint``): the one
    finding in that function of a rule whose messages include this one (for the whole model, ``findings`` are those
    in the code its PYNATIVE_MODE run called); None when there is none or more."""
    here = [f for f in findings if f.rule in rules and (_qualified(f) == part or part.endswith(" (whole)"))]
    return here[0] if len(here) == 1 else None


def _statement_end(finding) -> int:
    """The last line a finding covers: its own, or for one reported on an `if` (a branch join, whose assignment in
    a branch is where MindSpore points) the `if`'s branches."""
    node = finding.node
    try:
        statement = node.statement() if node is not None else None
    except Exception:  # noqa: BLE001 - a node outside a statement (a module-level name): its own lines
        statement = None
    branches = getattr(statement, "tolineno", 0) if type(statement).__name__ == "If" else 0
    return max(finding.end_line or finding.line, branches or 0)


def render(entries: list[EntryPort], wrote: bool) -> str:
    """The report, as ``--fix`` prints it on stderr after its summary."""
    lines = []
    for entry in entries:
        lines += _entry_lines(entry, wrote)
    return "\n".join(lines)


def _entry_lines(entry: EntryPort, wrote: bool) -> list:
    lines = []
    if entry.not_probed:
        return [f"graphlint port: {entry.key}: not compiled: {entry.not_probed}"]
    state = ", ".join(f"{level} {'compiles' if ok else 'fails'}" for level, ok in entry.compiles.items())
    head = f"graphlint port: {entry.key}: {state} ({'the fixed text' if wrote else 'the text --fix would write'})"
    differs = [(level, found) for level, found in entry.differs.items() if found]
    if not entry.blockers and not entry.behind and not differs:
        compared = set(entry.differs) == {level for level, ok in entry.compiles.items() if ok}
        return [f"{head}; nothing left in the way" + (": the outputs are PYNATIVE_MODE's" if compared else
                                                     " (the outputs could not be compared)")]
    if entry.blockers:
        lines.append(f"{head}; {len(entry.blockers)} blocker{'s' if len(entry.blockers) != 1 else ''} confirmed "
                     "by compiling the model (or a part of it with nothing standing in), in the order the "
                     "compiler meets them (each compile after the first with the lines above taking the values "
                     "PYNATIVE_MODE computed there):")
    else:
        lines.append(f"{head}:")
    for number, blocker in enumerate(entry.blockers, 1):
        lines += _blocker_lines(f"{number}.", blocker, entry)
    for level, why in entry.rounds_stopped.items():
        lines.append(f"  [{level}] the compiles of the model stopped there: {why}")
    if entry.timed_out:
        lines.append(f"  (the probe was stopped at validate-timeout ({entry.timed_out:g} s): only the compiles it "
                     "finished are listed; raise validate-timeout under [tool.graphlint.validate] to see more)")
    if entry.stopped:
        lines.append("  (parts were compiled up to the bound of such compiles or of the time validate-timeout "
                     "allows; the others are not listed, and those failing below are only suggested)")
    if entry.suggested:
        lines.append("  compiled alone, with what they call standing in as what it returned in PYNATIVE_MODE, or in "
                     "the model after a cut that could not be exact (values that changed from call to call, an "
                     "object the model built) or with no line named, these fail too (not confirmed):")
        for blocker in entry.suggested:
            lines += _blocker_lines("-", blocker, entry)
    for level, found in differs:
        lines.append(f"  [{level}] the model compiles, and returns other values than in PYNATIVE_MODE on the "
                     f"declared inputs: {'; '.join(found)}")
    lines += _findings_lines(entry)
    if entry.blockers:
        lines.append(f"  each failed compile's log is in {_shown(entry.logs)}/ (graphlint explain-error LOG)")
    return lines


def _findings_lines(entry: EntryPort) -> list:
    """graphlint's findings the report lists: where the outputs differ, and errors no compile was tied to."""
    lines = []
    if entry.diverging:
        lines.append("  reported by graphlint in the code that ran, of rules whose examples compile and compute "
                     "another result than PYNATIVE_MODE:")
        for finding in entry.diverging:
            lines.append(f"  - {finding.path}:{finding.line}: {finding.rule.id} {finding.rule.symbol}: "
                         f"{finding.message}")
    if entry.behind:
        lines.append("  reported by graphlint at a level whose compile failed or did not run before validate-timeout, "
                     "tied to none of the errors above (the compile stopped before it, or one of those errors comes "
                     "from it):")
        for finding in entry.behind:
            lines.append(f"  - [{_level(finding)}] {finding.path}:{finding.line}: {finding.rule.id} "
                         f"{finding.rule.symbol}: {finding.message}")
    return lines


def _blocker_lines(mark: str, blocker: Blocker, entry: EntryPort) -> list:
    place = blocker.place() if blocker.line else f"{entry.path} ({blocker.part})"
    lines = [f"  {mark} [{blocker.level}] {place}: {blocker.message}"]
    if blocker.rule is not None and not blocker.line:
        lines.append(f"     {blocker.rule.id} {blocker.rule.symbol} (reported in {_qualified(blocker.finding)} at line "
                     f"{blocker.finding.line}; MindSpore names no line): {blocker.rule.fix}")
    elif blocker.rule is not None and not blocker.finding.line <= blocker.line <= _statement_end(blocker.finding):
        lines.append(f"     {blocker.rule.id} {blocker.rule.symbol} (reported at line {blocker.finding.line}, where "
                     f"{_qualified(blocker.finding)} writes what the message names): {blocker.rule.fix}")
    elif blocker.rule is not None:
        lines.append(f"     {blocker.rule.id} {blocker.rule.symbol} (reported here): {blocker.rule.fix}")
    else:
        lines.append(f"     no rule yet: {blocker.unnamed}")
    if blocker.log:
        lines.append(f"     log: {_shown(blocker.log)}")
    return lines
