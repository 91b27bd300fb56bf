"""Lint a set of paths: find the Python files under them, then decide how to check them: from the result cache
(:mod:`graphlint.run.cache`), re-checking only what an edit reaches (:mod:`graphlint.run.incremental`), in this
process, or in processes (:mod:`graphlint.run.parallel`). The session (:mod:`graphlint.session`) does the
reading, parsing and checking; only this module chooses how."""

from __future__ import annotations

import os

from graphlint.analysis.names import mentions_mindspore
from graphlint.analysis.source import (SourceProblem, module_name_for, package_root_for, parse, read_source,
                                       syntax_problem)
from graphlint.analysis.tree import RECURSION_LIMIT, deep_recursion
from graphlint.config import Config
from graphlint.runner import Finding
from graphlint.results import FileProblem, LintResult, discover_files, printable
from graphlint.run import parallel
from graphlint.session import LintSession

__all__ = ["FileProblem", "LintResult", "LintSession", "RECURSION_LIMIT", "discover_files", "lint_discovered",
           "lint_files", "lint_paths", "lint_stdin", "lint_text", "printable"]


def lint_paths(paths, config: Config, *, config_for=None, jobs: int = 1, progress=None, fix_markers: bool = False,
               cache=None) -> LintResult:
    """Lint files and directories.

    ``jobs`` > 1 checks in that many processes (findings then carry no astroid nodes: report them, do not fix
    them); ``cache`` (a :class:`graphlint.run.cache.ResultCache`) answers an unchanged run without parsing."""
    files, problems = discover_files(paths, config)
    if cache is not None:
        cached = cache.load(files, problems, config, fix_markers)
        if cached is not None:
            return cached
    return lint_discovered(files, problems, config, config_for=config_for, jobs=jobs, progress=progress,
                           fix_markers=fix_markers, cache=cache)


def lint_discovered(files, problems, config: Config, *, config_for=None, jobs: int = 1, progress=None,
                    fix_markers: bool = False, cache=None, memory: int | None = None) -> LintResult:
    """:func:`lint_paths` once the files are found (and the cache, if any, did not have the run); ``memory``:
    the bytes the run's processes may hold together (see :func:`lint_files`)."""
    result = None
    if cache is not None:  # the last run over these files, if some changed: re-check only what they reach
        result = cache.changed_run(files, problems, config, config_for=config_for, fix_markers=fix_markers,
                                   progress=progress)
    if result is None:
        result = lint_files(files, config, problems=problems, config_for=config_for, jobs=jobs, progress=progress,
                            fix_markers=fix_markers, memory=memory, record=cache is not None)
        if cache is not None:
            cache.store(files, problems, config, fix_markers, result)
    return result


def lint_files(files, config: Config, *, problems=None, config_for=None, jobs: int = 1, progress=None,
               fix_markers: bool = False, memory: int | None = None, record: bool = False,
               fork: bool = True) -> LintResult:
    """Read, parse and lint ``files``. With ``jobs`` > 1 each process parses only its share of the files
    (:func:`graphlint.run.parallel.lint_partitioned`). ``memory``: the bytes the run's processes may hold
    together (None: no bound); a run whose trees would not fit is linted in processes that stop before they
    outgrow it, whatever ``jobs`` (:func:`graphlint.run.parallel.lint_streamed`). Either way findings come back
    without astroid nodes. ``fork=False``: in this process only. ``record``: keep what the result cache needs to
    re-check only what a later edit reaches."""
    problems = problems or ()
    session = LintSession(config, config_for)
    if record:
        session.interfaces = {}
    forking = fork and parallel.available()
    unchecked: list | None = [] if forking else None  # with other processes, they check the syntax
    to_parse = session.read_files(files, problems, unchecked)
    streamed = forking and memory is not None and parallel.needs_streaming(to_parse, jobs, memory)
    if streamed:
        session.bounded_because = (f"the run's trees would take about {parallel.tree_memory(to_parse, jobs) >> 20} "
                                   f"MB, more than the memory budget of {memory >> 20} MB (--max-memory): "
                                   f"parsed twice, by processes that stop before they outgrow it")
    if not streamed and (not forking or jobs < 2 or len(to_parse) < 2 * jobs):
        for path, text in unchecked or ():
            session.check_syntax(path, text)
        session.problems.sort(key=_run_order(files))
        session.parse_files(to_parse, progress)
        return session.lint(progress=progress, fix_markers=fix_markers)
    session.register_run_modules(to_parse)
    with deep_recursion():
        if streamed:
            outcome = parallel.lint_streamed(session, to_parse, unchecked, jobs, memory, progress, fix_markers)
        else:
            outcome = parallel.lint_partitioned(session, to_parse, unchecked, jobs, progress, fix_markers)
    if outcome is None:  # a process failed: lint in this one, from a fresh start
        return lint_files(files, config, problems=problems, config_for=config_for, progress=progress,
                          fix_markers=fix_markers, record=record, fork=False)
    return gathered(session, files, to_parse, outcome)


def gathered(session, files, to_parse, outcome) -> LintResult:
    """The result of a run in processes, as one process reports it: their findings, and the problems they met
    (the files that could not be read or whose syntax is wrong, then those that could not be parsed, each in the
    run's order)."""
    outcomes, met_elsewhere, read, interfaces = outcome
    if session.interfaces is not None:
        session.interfaces.update(interfaces)
    result = session.new_result()
    result.problems.extend(FileProblem(path, reason) for path, reason in met_elsewhere)
    parsed = {path for path, _source in to_parse}
    in_order = _run_order(files)
    result.problems.sort(key=lambda problem: (problem.path in parsed, in_order(problem)))
    session.project.unparsed -= {os.path.abspath(problem.path) for problem in result.problems}
    failed = {problem.path for problem in result.problems}
    for path, source in to_parse:
        if path not in failed:
            session.sources[path] = source
    session.read_elsewhere = set(read)
    for path, (findings, fixes, problem) in outcomes.items():
        if not problem and path not in session.sources:  # a file without MindSpore, reached by graph code
            try:
                session.sources[path] = read_source(path)
            except SourceProblem as exc:  # changed since the process that checked it read it
                findings, fixes, problem = [], {}, str(exc)
        result.add(path, findings, fixes, problem)
    result.findings.sort(key=lambda f: f.sort_key)
    return result


def _run_order(files):
    """Sort key of problems: their file's place in the run (problems of paths given before the run first)."""
    position = {path: index for index, path in enumerate(files)}
    return lambda problem: position.get(problem.path, -1)


def lint_stdin(text: str, config: Config, filename: str = "", *, fix_markers: bool = False) -> LintResult:
    """Lint ``text`` (read from standard input) as the file ``filename`` would be: its imports resolve on
    disk from there, and it takes the place of that file if it exists. Findings are shown at ``filename``
    (``-`` without one)."""
    shown = filename or "-"
    session = LintSession(config)
    session.files = 1
    session.lines = text.count("\n") + (not text.endswith("\n") and bool(text))
    if not mentions_mindspore(text):
        problem = syntax_problem(text, shown)
        if problem:
            session.problems.append(FileProblem(shown, problem))
        return session.lint()
    with deep_recursion():
        try:
            module = parse(text, module_name_for(filename) if filename else "stdin",
                           os.path.abspath(filename) if filename else None)
        except SourceProblem as exc:
            session.problems.append(FileProblem(shown, str(exc)))
            return session.lint()
        except RecursionError:
            session.problems.append(FileProblem(shown, "too deeply nested to analyse"))
            return session.lint()
        session.add_module(module, shown, text)
        if filename:  # imports resolve below its package root, whether or not the file exists on disk
            session.project.roots.add(package_root_for(os.path.abspath(filename)))
    return session.lint(fix_markers=fix_markers)


def lint_text(text: str, config: Config | None = None, path: str = "example.py", module_name: str = "example") -> list[Finding]:
    """Lint one module given as text, on its own (catalogue examples, tests); pragmas are applied.

    Raises :class:`SourceProblem` (one line) for text that cannot be checked, as ``lint_paths`` reports it."""
    session = LintSession(config or Config())
    with deep_recursion():
        try:
            module = parse(text, module_name, path)
        except RecursionError:
            raise SourceProblem("too deeply nested to analyse") from None
        info = session.add_module(module, path, text)
        try:
            return session.findings_of(info, text)
        except RecursionError:
            raise SourceProblem("too deeply nested to analyse") from None
