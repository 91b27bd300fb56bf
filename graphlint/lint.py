"""Lint a set of paths: find the Python files under them and run the lint pipeline (:mod:`graphlint.session`)."""

from __future__ import annotations

import os
from contextlib import contextmanager

from graphlint.analysis.names import mentions_mindspore
from graphlint.analysis.source import SourceProblem, module_name_for, package_root_for, parse, syntax_problem
from graphlint.analysis.tree import RECURSION_LIMIT, deep_recursion
from graphlint.config import Config
from graphlint.runner import Finding
from graphlint.results import FileProblem, LintResult, discover_files, printable
from graphlint.session import LintSession

__all__ = ["FileProblem", "LintResult", "LintSession", "RECURSION_LIMIT", "discover_files", "lint_discovered",
           "lint_files", "lint_paths", "lint_stdin", "lint_text", "printable", "reporting_progress"]


def lint_paths(paths, config: Config, *, config_for=None, jobs: int = 1, progress=None, fix_markers: bool = False,
               cache=None) -> LintResult:
    """Lint files and directories.

    ``jobs`` > 1 checks in that many processes (findings then carry no astroid nodes: report them, do not fix
    them); ``cache`` (a :class:`graphlint.cache.ResultCache`) answers an unchanged run without parsing."""
    if progress is None and _REPORTING is not None:
        progress = _REPORTING[0]
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
    the bytes the run's processes may hold together (see :meth:`LintSession.lint_files`)."""
    if progress is None and _REPORTING is not None:
        progress = _REPORTING[0]
    result = None
    if cache is not None:  # the last run over these files, if some changed: re-check only what they reach
        result = cache.changed_run(files, problems, config, config_for=config_for, fix_markers=fix_markers,
                                   progress=progress)
    if result is None:
        result = lint_files(files, config, problems=problems, config_for=config_for, jobs=jobs, progress=progress,
                            fix_markers=fix_markers, memory=memory, record=cache is not None)
        if cache is not None:
            cache.store(files, problems, config, fix_markers, result)
    if _REPORTING is not None and result.session is not None:
        result.session.progress = _REPORTING[0]  # the fix driver's re-lints tick it
        result.session.progress_phase = _REPORTING[1]
    return result


_REPORTING = None  # (progress, phase of the re-lints) while reporting_progress is active


def current_progress():
    """The progress that :func:`reporting_progress` shows, if any."""
    return _REPORTING[0] if _REPORTING is not None else None


@contextmanager
def reporting_progress(progress, phase: str = "fixing"):
    """Show ``progress`` for the lint runs started in the block (by the fix driver, say), and keep it moving
    while the block runs: each re-lint of a fixed file advances it, a spinner shows that validation runs."""
    global _REPORTING
    previous = _REPORTING
    _REPORTING = (progress, phase)
    progress.animate(True)
    try:
        yield progress
    finally:
        progress.animate(False)
        _REPORTING = previous


def lint_files(files, config: Config, *, problems=None, config_for=None, jobs: int = 1, progress=None,
               fix_markers: bool = False, memory: int | None = None, record: bool = False) -> LintResult:
    """``record``: keep what the result cache needs to re-check only what a later edit reaches."""
    session = LintSession(config, config_for)
    if record:
        session.interfaces = {}
    return session.lint_files(files, problems or (), jobs=jobs, progress=progress, fix_markers=fix_markers,
                              memory=memory)


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
