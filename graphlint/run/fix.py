"""``--fix`` on files and directories: in this process, or (``--fix --jobs N``) in N processes; the fix driver
(:mod:`graphlint.fixers.driver`) fixes the files of a session it is handed.

In processes, the run starts as a partitioned lint does (:func:`graphlint.run.parallel.lint_partitioned`): each
process parses and summarises its share of the files, and from the gathered summaries each discovers the same
graph scope. Then each fixes the modules :func:`graphlint.run.parallel.fix_shares` gives it, round by round,
re-linting what it rewrote in its own copy of the project. A fix changes only the bodies of graph functions (see
:meth:`Analysis.replace_modules`), which the modules of their callers and helpers read: those modules are
kept in one process, so each process sees every rewrite that can change its findings, as one process would.
Each process writes the files it fixed; the workers send back each file's outcome and the findings left,
without astroid nodes.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from graphlint.analysis.tree import deep_recursion
from graphlint.config import Config
from graphlint.fixers.driver import FixReport, fix_findings, remaining_fixes
from graphlint.results import discover_files, finding_from_record, finding_to_record
from graphlint.run import parallel
from graphlint.run.lint import gathered, lint_paths
from graphlint.run.records import load_unit
from graphlint.session import LintSession


def fix_paths(paths, config: Config, *, unsafe: bool = False, validate: bool = False,
              write: bool = True, jobs: int = 1, fix_markers: bool = False, progress=None,
              phase: str = "fixing") -> FixReport:
    """``--fix`` on files and directories.

    ``jobs`` > 1 lints and fixes in that many processes (not with ``validate``, which compiles with MindSpore
    in this one): see :func:`fix_in_processes`. ``fix_markers`` fills ``report.remaining_fixes`` with
    what a fixer would still do for the findings left (those unsafe without ``unsafe``, say). ``progress`` (a
    :class:`graphlint.report.Progress`) shows the lint, then each re-lint of a fixed file under ``phase``."""
    with deep_recursion():  # deep expressions, as in linting
        return _fix_paths(paths, config, unsafe=unsafe, validate=validate, write=write, jobs=jobs,
                          fix_markers=fix_markers, progress=progress, phase=phase)


def _fix_paths(paths, config: Config, *, unsafe: bool, validate: bool, write: bool, jobs: int,
               fix_markers: bool, progress, phase: str) -> FixReport:
    shared = fix_in_processes(paths, config, unsafe, jobs, fix_markers, write, progress) \
        if jobs > 1 and not validate and parallel.available() else None
    if shared is not None:
        lint, results, remaining, markers = shared
        report = FixReport(lint=lint, remaining=remaining, remaining_fixes=markers)
    else:
        lint = lint_paths(paths, config, progress=progress)
        if lint.session is not None:  # each re-lint of a fixed file ticks the progress
            lint.session.progress, lint.session.progress_phase = progress, phase
        report = FixReport(lint=lint)
        results, report.remaining = fix_findings(lint.session, lint.findings, config, unsafe, validate, write)
        if fix_markers:
            report.remaining_fixes = remaining_fixes(lint.session, report.remaining, results)
    for _path, (outcome, remaining) in sorted(results.items()):  # by path: not the order files finished in
        report.remaining.extend(remaining)
        report.files.append(outcome)
    report.remaining.sort(key=lambda f: f.sort_key)
    return report



@dataclass
class FixedModule:
    """What fixing one module of the run gave."""

    problem: str = ""  # why it could not be checked
    found: list = field(default_factory=list)  # its findings before fixing
    outcome: object = None  # driver.FileFix, when a fixer handled one of its findings
    remaining: list = field(default_factory=list)  # the findings left
    fixes: dict = field(default_factory=dict)  # id(finding left) -> fix safety (fix_markers)


def fix_in_processes(paths, config, unsafe: bool, jobs: int, fix_markers: bool, write: bool, progress=None):
    """``(lint result, {path: (FileFix, findings left)}, findings of files no fixer touched, fix markers of
    the findings left)``, as the driver computes them in one process; None when the run is too small to share
    or a process failed (the caller then fixes in this one)."""
    files, problems = discover_files(paths, config)
    session = LintSession(config)
    unchecked: list = []
    to_parse = session.read_files(files, problems, unchecked)
    if len(to_parse) < 2 * jobs:
        return None
    session.register_run_modules(to_parse)

    def fix_share(share_session, units):
        return _fix_units(share_session, units, config, unsafe, fix_markers, write)

    with deep_recursion():
        outcome = parallel.lint_partitioned(session, to_parse, unchecked, jobs, progress, fix_markers, fix_share)
    if outcome is None:
        return None
    records, met_elsewhere, read, _interfaces = outcome
    fixed = {shown: _from_record(record) for shown, record in records.items()}
    lint = gathered(session, files, to_parse, ({shown: (item.found, {}, item.problem) for shown, item in fixed.items()},
                                               met_elsewhere, read, {}))
    results, untouched, markers = {}, [], {}
    for shown, item in fixed.items():
        markers.update(item.fixes)
        if item.outcome is not None:
            results[shown] = (item.outcome, item.remaining)
        elif not item.problem:
            untouched.extend(item.remaining)
    return lint, results, untouched, markers


def _fix_units(session, units, config, unsafe: bool, fix_markers: bool, write: bool) -> dict:
    """``{shown path: record}`` of fixing the run modules ``units`` (``[(shown path, SourceFile or None)]``)
    in this process of a partitioned run: a module another process parsed is parsed here (see
    :func:`graphlint.run.records.load_unit`)."""
    work, records = [], {}
    for shown, source in units:
        info, problem = load_unit(session, shown, source)
        if problem:
            records[shown] = _to_record(FixedModule(problem=problem))
        elif info is not None:
            work.append((shown, info))
    fixed = _fix_modules(session, work, list(range(len(work))), config, unsafe, fix_markers, write)
    records.update((work[index][0], _to_record(item)) for index, item in fixed.items())
    return records


def _fix_modules(session, work, indexes, config, unsafe, fix_markers, write) -> dict[int, FixedModule]:
    saved, session.progress = session.progress, None  # the parent draws progress, per module done
    try:
        fixed = {index: FixedModule() for index in indexes}
        found = []
        for index in indexes:
            shown, info = work[index]
            findings, _fixes, problem = session.check_module(shown, info)
            fixed[index].problem = problem
            fixed[index].found = list(findings)
            found.extend(findings)
        results, untouched = fix_findings(session, found, config, unsafe, False, write)
        fixes = remaining_fixes(session, untouched, results) if fix_markers else {}
    finally:
        session.progress = saved
    place = {work[index][0]: index for index in indexes}
    for finding in untouched:
        fixed[place[finding.path]].remaining.append(finding)
    for path, (outcome, rest) in results.items():
        fixed[place[path]].outcome = outcome
        fixed[place[path]].remaining = list(rest)
    for item in fixed.values():
        item.fixes = {id(f): fixes[id(f)] for f in item.remaining if id(f) in fixes}
    return fixed


def _to_record(fixed: FixedModule):
    return (fixed.problem, [finding_to_record(f) for f in fixed.found], fixed.outcome,
            [finding_to_record(f, fixed.fixes.get(id(f))) for f in fixed.remaining])


def _from_record(record) -> FixedModule:
    problem, found, outcome, remaining = record
    fixed = FixedModule(problem=problem, found=[finding_from_record(r)[0] for r in found], outcome=outcome)
    for item in remaining:
        finding, fix = finding_from_record(item)
        fixed.remaining.append(finding)
        if fix:
            fixed.fixes[id(finding)] = fix
    return fixed
