"""``graphlint --fix``: plan, apply, re-lint and repeat; validate; write atomically or show a diff."""

from __future__ import annotations

import difflib
import os
from dataclasses import dataclass, field

from graphlint import collector
from graphlint.analysis.source import SourceProblem
from graphlint.catalogue.model import Severity
from graphlint.config import Config
from graphlint.files import WriteRefused, unified_diff, write_atomic
from graphlint.fixers import fixers_for
from graphlint.fixers.base import Edit, apply_edits, edit_tree
from graphlint.fixers.planner import (CannotPlan, Verdict, fix_availability, open_module, plan_fix,
                                      rewrite_problem)
from graphlint.results import LintResult
from graphlint.runner import Finding
from graphlint.validate.validator import (Blocker, EntryRef, blocker_errors, declared_entry, sys_root_for,
                                          validate_entry)

MAX_ROUNDS = 8


@dataclass
class Applied:
    path: str
    line: int
    rule: str
    symbol: str
    description: str
    validation: str = ""
    blocked_by: list = field(default_factory=list)  # "E5101 at net.py:24": what GRAPH_MODE still fails on
    entry: object = field(default=None, repr=False, compare=False)  # the validated Cell or jit function
    safety: str = ""  # the applied rewrite's own applicability: "safe" or "unsafe"
    origin: tuple | None = field(default=None, repr=False, compare=False)  # see FileFix.renumber


@dataclass
class Refused:
    path: str
    line: int
    rule: str
    symbol: str
    reason: str
    suggestion: str = ""  # display-only fixes: the rewrite, as a unified diff, for the author to apply
    suggested: str = ""  # ... and the whole file as it would read with that rewrite
    column: int = 0
    needs_unsafe: bool = False  # not a refusal: an unsafe fix, withheld without --unsafe-fixes
    origin: tuple | None = field(default=None, repr=False, compare=False)  # see FileFix.renumber


@dataclass
class FileFix:
    path: str
    before: str
    after: str
    applied: list[Applied] = field(default_factory=list)
    refused: list[Refused] = field(default_factory=list)
    written: bool = False
    error: str = ""  # why --fix could not write the fixed text (then `applied` is empty: see not_applied)
    not_applied: list[Applied] = field(default_factory=list)  # the fixes of a file that could not be written
    tree: object = field(default=None, repr=False, compare=False)  # libcst tree of `after`, if the rounds made one

    @property
    def changed(self) -> bool:
        return self.after != self.before

    def __getstate__(self):  # sent from --jobs workers
        state = dict(self.__dict__)
        state["tree"] = None  # libcst trees stay in the process that made them
        return state

    def renumber(self, target: str) -> None:
        """Give every applied and refused item its line in ``target`` (the file as the user will have it): each
        was found in the text of its own round (its ``origin``: that text and the line in it), which later
        rounds changed. The origin is held by the item itself, not in a table keyed by ``id(item)``: a refusal
        replaced by a later round's is freed, and its id, reused by a new item, must not give that item the
        freed one's origin (a fix reported at another `if`'s line, varying with the heap from run to run)."""
        maps: dict[str, dict] = {}
        for item in self.applied + self.refused:
            if item.origin is None:
                continue
            source, line = item.origin
            if source == target:
                item.line = line
                continue
            if source not in maps:
                maps[source] = _line_map(source, target)
            item.line = _mapped(maps[source], line, target)


@dataclass
class FixReport:
    lint: LintResult
    files: list[FileFix] = field(default_factory=list)
    remaining: list[Finding] = field(default_factory=list)
    remaining_fixes: dict | None = None  # id(finding left) -> fix safety, when asked (fix_paths' fix_markers)

    @property
    def applied(self) -> list[Applied]:
        return [a for f in self.files for a in f.applied]

    @property
    def refused(self) -> list[Refused]:
        return [r for f in self.files for r in f.refused]

    @property
    def pending(self) -> list[Applied]:
        """Fixes kept on their PYNATIVE_MODE verdict while GRAPH_MODE fails on a finding graphlint cannot fix
        (each names what blocks compiling and where: ``blocked_by``)."""
        return [a for a in self.applied if a.blocked_by]


def _round_keys(findings: list[Finding], text: str) -> dict[int, tuple]:
    """``id(finding) -> key`` identifying each finding across rounds, while earlier fixes move lines: its
    rule, its function, its line's text, how many identical lines precede and follow it in that function
    (three identical loops stay three; once the first of two identical `if`s is rewritten, the second is not
    taken for the first), and its order among the findings of its rule on its line (`np.exp(np.sqrt(x))`)."""
    lines = text.splitlines()
    keys: dict[int, tuple] = {}
    on_line: dict[tuple[str, int], int] = {}
    for finding in sorted(findings, key=lambda f: (f.line, f.column)):
        slot = (finding.rule.symbol, finding.line)
        ordinal = on_line.get(slot, 0)
        on_line[slot] = ordinal + 1
        line = lines[finding.line - 1].strip() if 0 < finding.line <= len(lines) else ""
        function = finding.graph.node if finding.graph is not None else None
        first = getattr(function, "lineno", None) or 1
        last = getattr(function, "end_lineno", None) or len(lines)
        owner = finding.graph.name if finding.graph is not None else ""
        before = sum(1 for other in lines[first - 1:finding.line - 1] if other.strip() == line)
        after = sum(1 for other in lines[finding.line:last] if other.strip() == line)
        keys[id(finding)] = (finding.rule.symbol, owner, line, before, after, ordinal)
    return keys


def fix_findings(session, findings, config: Config, unsafe: bool, validate: bool,
                 write: bool) -> tuple[dict, list]:
    """Fix the files of ``findings`` (found and re-linted in ``session``), writing the fixed ones if ``write``:
    ``({path: (FileFix, findings left)}, the findings of files no fixer could touch)``."""
    by_path: dict[str, list[Finding]] = {}
    for finding in findings:
        by_path.setdefault(finding.path, []).append(finding)
    runs, untouched = {}, []
    for path, found in by_path.items():
        if path not in session.sources or not any(fixers_for(f.rule) for f in found):
            untouched.extend(found)
            continue
        runs[path] = _fix_file(session, path, found, config, unsafe, validate)
    results = _run_in_rounds(runs, session)
    unwritten = []
    for path, (outcome, _left) in results.items():
        if outcome.changed and write:
            try:
                write_atomic(session.sources[path], outcome.after)
                outcome.written = True
            except WriteRefused as exc:
                outcome.error = str(exc)
            except OSError as exc:
                outcome.error = f"not fixed: cannot write it: {exc.strerror or exc}"
            if outcome.error:
                unwritten.append(path)
        # lines as in the file on disk: the fixed text once written, else (--diff, a failed write) the original
        outcome.renumber(outcome.after if outcome.written else outcome.before)
    if unwritten:
        _keep_unwritten(session, results, unwritten, by_path)
    return results, untouched


def _keep_unwritten(session, results: dict, paths: list, found: dict) -> None:
    """Files --fix could not write are as they were: their fixes were not applied (``not_applied`` holds them,
    ``after`` is the text on disk), the session is given their text back (what other files and the fix markers
    read), and the findings left are those of that text."""
    relinted = session.update_many([(path, results[path][0].before) for path in paths])
    for path, outcome in zip(paths, relinted):
        fixed = results[path][0]
        fixed.not_applied, fixed.applied = fixed.applied, []
        fixed.after, fixed.tree = fixed.before, None
        left = found[path] if isinstance(outcome, SourceProblem) else outcome[0]
        results[path] = (fixed, left)


def remaining_fixes(session, untouched, results: dict) -> dict:
    """Fix availability (``{id(finding): safety}``) of the findings --fix left, in the files as it left them:
    ``untouched`` (the findings of files no fixer touched) and those of ``results`` (see :func:`fix_findings`)."""
    by_path: dict[str, list] = {}
    for finding in untouched:
        by_path.setdefault(finding.path, []).append(finding)
    for path, (_outcome, left) in results.items():
        by_path.setdefault(path, []).extend(left)
    fixes = {}
    for path, found in by_path.items():
        source = session.sources.get(path)
        if source is None or source.module is None:
            continue
        info = session.project.info(source.module)
        outcome = results.get(path, (None,))[0]
        tree = outcome.tree if outcome is not None and outcome.after == source.text else None
        fixes.update(fix_availability(session.analysis, info, found, source.text, tree))
    return fixes


def fix_file(session, path, findings, config: Config, *, unsafe: bool = False, validate: bool = False):
    """Fix one file of ``session`` as ``--fix`` does, re-linting it in the session between rounds:
    ``(FileFix, findings left)`` (the language server's fix-all)."""
    return _run_in_rounds({path: _fix_file(session, path, findings, config, unsafe, validate)}, session)[path]


def _run_in_rounds(runs: dict, session) -> dict:
    """Drive every file's fixing (:func:`_fix_file`) a round at a time: each round's fixed texts are re-linted
    together (one change of the run for all of them), so the cost of a round does not grow with the files
    fixed in it times the size of the project."""
    results: dict = {}
    replies = {path: None for path in runs}
    while replies:
        requests = []
        for path, reply in replies.items():
            try:
                requests.append(runs[path].send(reply))
            except StopIteration as stop:
                results[path] = stop.value
            collector.settle()  # (a file's plans and trees are kept until its rounds end)
        replies = {}
        if requests:
            for (path, _text), outcome in zip(requests, session.update_many(requests)):
                replies[path] = outcome
    return results


def _fix_file(session, path, findings, config, unsafe, validate):
    """Fix one file of ``session`` round by round (a generator: it yields ``(path, fixed text)`` to be re-linted
    and is sent ``(findings, info)`` or the :class:`SourceProblem`; it returns ``(FileFix, findings left)``)."""
    source = session.sources[path]
    text = original = source.text
    outcome = FileFix(path=path, before=original, after=original)
    settled: set[tuple] = set()  # keys (see _round_keys) of findings refused or applied: not retried
    waiting: dict[tuple, Refused] = {}  # refusals put off to the next round, reported if it never decides them
    analysis, info = session.analysis, session.analysis.project.info(source.module)
    round_text = text
    tree = None  # the libcst tree of `text`, once a round has one (parsed, or what its edits produced)

    def note_origins():  # what this round added refers to the text the round started from
        for item in outcome.applied + outcome.refused:
            if item.origin is None:
                item.origin = (round_text, item.line)

    for round_number in range(MAX_ROUNDS):
        note_origins()
        round_text = text
        keys = _round_keys(findings, text)
        if not any(keys[id(f)] not in settled and fixers_for(f.rule) for f in findings):
            break  # every finding left was planned before (or has no fixer): no need to parse the text again
        try:
            context = open_module(text, analysis, info, findings, tree)
            tree = context.tree
        except CannotPlan as exc:  # leave the file
            outcome.refused.extend(Refused(path, f.line, f.rule.id, f.rule.symbol, str(exc), column=f.column)
                                   for f in findings if fixers_for(f.rule))
            break
        edits, refusals = _plan_round(path, text, findings, keys, settled, context, unsafe, round_number == 0)
        _settle_refusals(refusals, edits, settled, waiting, outcome, text)
        if not edits:
            break
        try:
            edited, applied, _deferred = edit_tree(context, edits)
            new_text = context.code_of(edited)
        except Exception as exc:  # noqa: BLE001 - a bad edit must not stop the run for other files
            _refuse_edits(path, edits, f"internal error applying the fix: {type(exc).__name__}: {exc}", settled,
                          keys, outcome)
            continue
        problem = rewrite_problem(context, new_text)
        if problem:
            _refuse_edits(path, applied, f"the rewrite would not parse ({problem}); left as is", settled, keys,
                          outcome)
            continue
        validations, blocked = {}, {}
        if validate:
            generated = new_text
            new_text, applied, validations, blocked = _validated(session, path, text, context, applied, config,
                                                                 outcome, settled, keys)
            if new_text != generated:  # validation dropped edits: the next round parses what it kept
                edited = None
        _record_applied(path, applied, validations, blocked, config, settled, keys, outcome)
        if new_text == text:
            break
        text, tree = new_text, edited
        relinted = yield (path, text)
        if isinstance(relinted, SourceProblem):  # pragma: no cover - guarded by parse_problem
            outcome.error = f"re-linting the fixed text failed: {relinted}"
            text, tree = outcome.before, None
            break
        findings, info = relinted
    note_origins()
    outcome.after, outcome.tree = text, tree
    _finish(session, path, outcome, findings, config, validate, waiting, settled)
    return outcome, findings


def _plan_round(path, text, findings, keys, settled, context, unsafe, first_round):
    """Ask the planner about every finding not settled yet: ``(the edits to apply, the refusals as
    (key, finding, Refused, whether the fixer itself refused))``."""
    edits: list[Edit] = []
    refusals: list[tuple[tuple, Finding, Refused, bool]] = []
    for finding in findings:
        key = keys[id(finding)]
        if key in settled:
            continue
        plan = plan_fix(finding, context, unsafe=unsafe, suggest=first_round)
        if plan is None:  # no fixer has anything to offer for this finding
            continue
        if plan.verdict is Verdict.SILENT:
            settled.add(key)  # a suggestion that cannot be made is simply not offered
            continue
        if plan.applies:
            edits.append(plan.edit)
            continue
        suggested = plan.suggestion
        refusals.append((key, finding, Refused(
            path, finding.line, finding.rule.id, finding.rule.symbol, plan.reason,
            unified_diff(path, text, suggested) if suggested else "", suggested, finding.column,
            plan.verdict is Verdict.NEEDS_UNSAFE), plan.verdict is Verdict.REFUSED))
    return edits, refusals


def _settle_refusals(refusals, edits, settled, waiting, outcome, text) -> None:
    """Report the round's refusals, but put off to the next round those a fix in the same statement or function
    may yet settle."""
    for key, finding, refused, by_fixer in refusals:
        if by_fixer and (_encloses_an_edit(finding, edits) or _shares_a_function(finding, edits)):
            # A fix inside it, or in its function, lands first and may settle what the fixer could not
            # tell (a dtype the first of two Tensor `if`s makes provable): plan it again on the new text.
            waiting[key] = refused
            refused.origin = (text, refused.line)
            continue
        settled.add(key)
        waiting.pop(key, None)
        outcome.refused.append(refused)


def _refuse_edits(path, edits, reason: str, settled, keys, outcome) -> None:
    """Refuse every edit of the round for one reason (the edits could not be applied together)."""
    for edit in edits:
        settled.add(keys[id(edit.finding)])
        outcome.refused.append(Refused(path, edit.finding.line, edit.finding.rule.id, edit.finding.rule.symbol,
                                       reason, column=edit.finding.column))


def _record_applied(path, applied, validations, blocked, config, settled, keys, outcome) -> None:
    for edit in applied:
        settled.add(keys[id(edit.finding)])
        outcome.applied.append(Applied(path, edit.finding.line, edit.finding.rule.id, edit.finding.rule.symbol,
                                       edit.description or edit.fixer.description,
                                       validations.get(id(edit), ""), list(blocked.get(id(edit), ())),
                                       declared_entry(_entry_for(edit.finding), config.validate_inputs)
                                       if id(edit) in blocked else None,
                                       edit.applicability.value))


def _finish(session, path, outcome, findings, config, validate, waiting, settled) -> None:
    """After the last round: report the refusals still put off, settle compile-pending fixes, number the lines
    as in the final text and report each refusal once."""
    if waiting:  # the rounds ended (nothing left to edit, or MAX_ROUNDS) before these were planned again
        left = _round_keys(findings, outcome.after)
        still = {left[id(f)] for f in findings}
        outcome.refused.extend(refused for key, refused in waiting.items() if key in still and key not in settled)
    if validate:
        _settle_pending(session, path, outcome, findings, config)
    outcome.renumber(outcome.after)
    # A refused finding whose line another fix changed is met again with the same verdict: report it once.
    unique = {}
    for item in outcome.refused:
        unique.setdefault((item.rule, item.line, item.column, item.reason), item)
    outcome.refused = list(unique.values())


def _line_map(source: str, target: str) -> dict[int, int]:
    """``{line of source: line of target}`` (0-based) for the lines of ``source`` found in ``target``: unchanged
    lines map to themselves; in a block an edit rewrote, a line found once in the new text maps there, the others,
    in order, to the first line of what replaced it that starts with the same word (`y = (z := x + 1) * z` to `y = z * z`, not to the hoisted
    `z = x + 1`), or else to the line as far into the new block."""
    old, new = source.splitlines(), target.splitlines()
    mapping: dict[int, int] = {}
    counts: dict[str, int] = {}
    for number, text in enumerate(new):
        counts[text.strip()] = counts.get(text.strip(), 0) + 1
    unique = {text.strip(): number for number, text in enumerate(new) if counts[text.strip()] == 1}
    for tag, i1, i2, j1, j2 in difflib.SequenceMatcher(None, old, new).get_opcodes():
        if tag == "equal":
            mapping.update({i1 + k: j1 + k for k in range(i2 - i1)})
            continue
        floor = j1
        for index in range(i1, i2):
            text = old[index].strip()
            if text in unique:  # the same line once in the new text: moved there (`class Scale:` to module level)
                mapping[index] = unique[text]
                continue
            if j1 >= j2:
                mapping[index] = min(j1, max(len(new) - 1, 0))  # deleted: the line that now follows
                continue
            lead = _first_word(text)
            candidates = range(floor, min(j2, floor + 200))
            # the first line that starts the same way (`terms = ...`, `return ...`, `if ...`) is the statement
            # rewritten; without one, the line as far into the new block as this one was into the old
            best = next((j for j in candidates if lead and _first_word(new[j].strip()) == lead), None)
            if best is None:
                best = max(floor, min(j2 - 1, j1 + (index - i1) * (j2 - j1) // (i2 - i1)))
            mapping[index] = best
            floor = min(best + 1, j2 - 1) if best + 1 < j2 else best
    return mapping


def _first_word(text: str) -> str:
    word = ""
    for char in text:
        if not (char.isalnum() or char == "_"):
            break
        word += char
    return word


def _mapped(mapping: dict[int, int], line: int, target: str) -> int:
    """The line of ``target`` that line ``line`` of the source became (1-based)."""
    if line - 1 in mapping:
        return mapping[line - 1] + 1
    return max(1, min(line, target.count("\n") + 1))


def _shares_a_function(finding: Finding, edits: list[Edit]) -> bool:
    """Another finding's edit lands in the same graph function this round."""
    return finding.graph is not None and any(
        edit.finding is not finding and edit.finding.graph is finding.graph for edit in edits)


def _encloses_an_edit(finding: Finding, edits: list[Edit]) -> bool:
    """Another finding's edit lies inside this finding's statement (on lines after its first)."""
    node = finding.node
    last = getattr(node, "end_lineno", None)
    if last is None:
        return False
    return any(edit.finding is not finding and finding.line < edit.finding.line <= last for edit in edits)


def _validated(session, path, text, context, applied, config, outcome, settled, keys):
    """Keep the edits whose rewrite validates; refuse the others with the reason.

    Each edit is judged on its own, on top of those already kept. An edit that fails is tried again once
    another has been kept: `np.sqrt(np.maximum(t, e))` only works once the inner call is rewritten too. Where
    GRAPH_MODE fails only on an error graphlint reported and does not fix (a `try`), the edit is kept on its
    PYNATIVE_MODE verdict: compile pending (``blocked``)."""
    source_root = sys_root_for(path)
    kept, notes, blocked = [], {}, {}
    pending, failures = list(applied), {}
    while pending:
        retry = []
        for edit in pending:
            # The same tree for every candidate: edits hold its nodes.
            candidate_text, _, _ = apply_edits(context, kept + [edit])
            entry = declared_entry(_entry_for(edit.finding), config.validate_inputs)
            if entry is None:
                verdict_ok, reason = False, "cannot validate: the change is not inside a Cell or a jit function"
            else:
                verdict = validate_entry(entry, path, text, candidate_text, source_root,
                                         config.validate_inputs.get(entry.key), config.validate_timeout,
                                         config.validate_memory_mb,
                                         blockers=_blockers(session, path, candidate_text),
                                         python=config.validate_python)
                verdict_ok, reason = verdict.ok, verdict.reason
                if verdict.ok and verdict.pending:
                    blocked[id(edit)] = verdict.pending
            if verdict_ok:
                kept.append(edit)
                notes[id(edit)] = reason
                failures.pop(id(edit), None)
            else:
                retry.append(edit)
                failures[id(edit)] = reason
        if len(retry) == len(pending):  # no progress: what is left fails on its own
            break
        pending = retry
    _restored(session, path, text)
    for edit in pending:
        if id(edit) in failures:
            settled.add(keys[id(edit.finding)])
            outcome.refused.append(Refused(path, edit.finding.line, edit.finding.rule.id, edit.finding.rule.symbol,
                                           f"validation failed: {failures[id(edit)]}",
                                           column=edit.finding.column))
    if not kept:
        return text, [], notes, blocked
    new_text, kept_applied, _ = apply_edits(context, kept)
    return new_text, kept_applied, notes, blocked


def _blockers(session, path, text):
    """The errors graphlint reports in ``text`` as the text of ``path``, re-linted in ``session`` with the rest of
    the project (at MindSpore's default level, which GRAPH_MODE compiles at). The session is left holding
    ``text``: see :func:`_restored`."""
    source = session.sources.get(path)
    if source is not None and source.text == text and source.module is not None:
        found = session.findings_of(session.project.info(source.module), text)  # the text in hand: linted
    else:
        try:
            found, _info = session.update(path, text)
        except SourceProblem:
            return []
    shown = os.path.basename(path)
    return [Blocker(f.rule.id, f.rule.symbol, f.line, f"{shown}:{f.line}", blocker_errors(f.rule))
            for f in found if f.rule.lax is Severity.ERROR]


def _restored(session, path, text):
    """Put ``text`` back as the session's text of ``path`` after :func:`_blockers` re-linted candidates in its
    place: the other files of the round are planned against the project as the round found it."""
    source = session.sources.get(path)
    if source is not None and source.text != text:
        session.update(path, text)


def _settle_pending(session, path, outcome, findings, config):
    """Name, in the final text, what still blocks compiling each compile-pending fix; when nothing does any
    more (the blockers were fixed by other fixes), judge the whole fixed file once per entry."""
    pending = [a for a in outcome.applied if a.blocked_by]
    if not pending:
        return
    shown = os.path.basename(path)
    final: dict[str, object] = {}
    for item in pending:
        rules = {b.rule for b in item.blocked_by}
        still = sorted((f for f in findings if f.rule.id in rules and f.rule.lax is Severity.ERROR),
                       key=lambda f: f.line)
        head = item.validation.split("; GRAPH_MODE compile pending")[0]
        if still:
            item.blocked_by = [f"{f.rule.id} at {shown}:{f.line}" for f in still]
            entry = item.entry
            others = sorted((f for f in findings if f.rule.lax is Severity.ERROR and f not in still and f.graph is not None
                             and entry is not None and f.graph.root is not None
                             and f.graph.root.name.split(".")[0] == entry.name), key=lambda f: f.line)
            # Only what compiling showed is claimed: the first error stops it, so what follows is graphlint's.
            then = f"; graphlint reports more behind it: {', '.join(f'{f.rule.id} at {shown}:{f.line}' for f in others)}" \
                if others else ""
            item.validation = f"{head}; GRAPH_MODE compile pending: compiling stops at " \
                              f"{', '.join(item.blocked_by)}, to fix by hand{then}"
            continue
        entry = item.entry
        if entry is None:
            continue
        if entry.key not in final:
            final[entry.key] = validate_entry(
                entry, path, outcome.before, outcome.after, sys_root_for(path), config.validate_inputs.get(entry.key),
                config.validate_timeout, config.validate_memory_mb,
                blockers=_blockers(session, path, outcome.after), python=config.validate_python)
        verdict = final[entry.key]
        item.blocked_by = [b.describe() for b in verdict.pending]
        item.validation = f"the fixed file: {verdict.reason}"


def _entry_for(finding):
    graph = finding.graph
    if graph is None or graph.root is None:
        return None
    root = graph.root
    module_name = root.info.name
    args = list(root.node.args.posonlyargs or []) + list(root.node.args.args or [])
    if root.kind in ("construct", "bprop") and root.cls is not None:
        return EntryRef(module_name, root.cls.name, True, max(len(args) - 1, 0))
    if root.kind == "jit" and root.cls is None:
        return EntryRef(module_name, root.node.name, False, len(args))
    return None
