"""``--fix`` on files and directories: in this process, or (``--fix --jobs N``) in N processes; the fix driver
(:mod:`graphlint.fixers.driver`) fixes the files of a session it is handed.

As for linting (:mod:`graphlint.run.parallel`), the parent reads and parses every file and finds the graph scope,
then forks; each process checks its share of the modules and fixes them round by round, re-linting what it
rewrote in its own copy of the project. A fix changes only the bodies of graph functions (see
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
from graphlint.results import FileProblem, discover_files, finding_from_record, finding_to_record
from graphlint.run import parallel
from graphlint.run.lint import lint_paths
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
    if jobs > 1 and not validate and parallel.available():
        lint, results, remaining, markers = fix_in_processes(paths, config, unsafe, jobs, fix_markers, write,
                                                             progress)
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
    the findings left)``, as the driver computes them in one process."""
    files, problems = discover_files(paths, config)
    session = LintSession(config)
    session.add_files(files, problems, progress=progress)
    lint = session.new_result()
    with deep_recursion():
        work = session.work(lint)
        if work is None:
            return lint, {}, [], {}
        if progress is not None:
            progress.start("fixing", len(work))

        def run(indexes):
            return _fix_modules(session, work, indexes, config, unsafe, fix_markers, write)

        if parallel.worth_it(session, work, jobs):
            costs = [parallel.cost(session, info) for _shown, info in work]
            primer = parallel.primer(costs)

            def before_fork():
                # checking one small module computes the project's facts once for every process (its findings
                # are cached for its fix); libcst and the fixers are imported with this module, before the fork
                if primer is not None:
                    session.check_module(*work[primer])

            outcomes = parallel.run_chunks(
                component_chunks(session, work, jobs, costs), jobs, run, _to_record, _from_record, progress,
                label=lambda index: work[index][0], before_fork=before_fork)
        else:
            outcomes = run(list(range(len(work))))
    results, untouched, markers = {}, [], {}
    for index in range(len(work)):
        fixed = outcomes[index]
        if fixed.problem:
            lint.problems.append(FileProblem(work[index][0], fixed.problem))
            continue
        lint.findings.extend(fixed.found)
        markers.update(fixed.fixes)
        if fixed.outcome is not None:
            results[work[index][0]] = (fixed.outcome, fixed.remaining)
        else:
            untouched.extend(fixed.remaining)
    lint.findings.sort(key=lambda f: f.sort_key)
    return lint, results, untouched, markers


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


def component_chunks(session, work, jobs: int, costs: list[int]) -> list[list[int]]:
    """One chunk of ``work`` indexes per process, of about equal cost, that never separates a module from
    the modules of the callers and helpers of its graph code (whose findings a fix in it can change).

    One per process, not a few: each fix round re-lints a chunk's rewritten files together, and re-discovers
    the graph scope for them; more chunks would repeat that more often."""
    place = {id(info.module): index for index, (_shown, info) in enumerate(work)}
    parent = list(range(len(work)))

    def root(index: int) -> int:
        while parent[index] != index:
            parent[index] = parent[parent[index]]
            index = parent[index]
        return index

    for index, (_shown, info) in enumerate(work):
        if not costs[index]:
            continue  # no graph code: a fix does not touch it
        for module_id in session.analysis.call_neighbours(info):
            other = place.get(module_id)
            if other is not None:
                parent[root(other)] = root(index)
    groups: dict[int, list[int]] = {}
    for index in sorted(range(len(work)), key=lambda i: work[i][0]):
        groups.setdefault(root(index), []).append(index)
    # largest groups first, each to the process with the least work so far
    chunks: list[list[int]] = [[] for _ in range(jobs)]
    loads = [0] * jobs
    for group in sorted(groups.values(), key=lambda g: -sum(costs[i] + 1 for i in g)):
        lightest = loads.index(min(loads))
        chunks[lightest].extend(group)
        loads[lightest] += sum(costs[i] + 1 for i in group)
    return [chunk for chunk in chunks if chunk]
