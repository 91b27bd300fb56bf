"""Lint a set of paths: find the Python files under them and run the lint pipeline (:mod:`graphlint.session`)."""

from __future__ import annotations

import fnmatch
import os

from graphlint.analysis.source import SourceProblem, parse
from graphlint.analysis.tree import RECURSION_LIMIT, deep_recursion
from graphlint.config import DEFAULT_EXCLUDES, Config
from graphlint.runner import Finding
from graphlint.session import FileProblem, LintResult, LintSession, printable

__all__ = ["FileProblem", "LintResult", "LintSession", "RECURSION_LIMIT", "discover_files", "lint_files", "lint_paths",
           "lint_text", "printable"]


def _excluded(name: str, relative: str, patterns) -> bool:
    return any(fnmatch.fnmatch(name, p) or fnmatch.fnmatch(relative, p) or fnmatch.fnmatch(relative, p.rstrip("/") + "/*")
               for p in patterns)


def discover_files(paths, config: Config) -> tuple[list[str], list[FileProblem]]:
    """Python files under ``paths``: directories recursively, skipping hidden, virtualenv and build folders."""
    files: list[str] = []
    problems: list[FileProblem] = []
    seen: set[str] = set()
    patterns = tuple(config.exclude)

    def add(path: str) -> None:
        try:
            key = os.path.realpath(path)
        except (OSError, RuntimeError):
            key = os.path.abspath(path)
        if key not in seen:
            seen.add(key)
            files.append(path)

    for path in paths:
        if os.path.isdir(path):
            def on_error(error: OSError, root=path) -> None:
                problems.append(FileProblem(error.filename or root, error.strerror or str(error)))

            for folder, dirnames, filenames in os.walk(path, onerror=on_error, followlinks=False):
                relative_folder = os.path.relpath(folder, path)
                dirnames[:] = sorted(
                    d for d in dirnames
                    if not d.startswith(".") and d not in DEFAULT_EXCLUDES and not d.endswith(".egg-info")
                    and not os.path.isfile(os.path.join(folder, d, "pyvenv.cfg"))
                    and not _excluded(d, os.path.normpath(os.path.join(relative_folder, d)), patterns))
                for filename in sorted(filenames):
                    if not filename.endswith(".py"):
                        continue
                    relative = os.path.normpath(os.path.join(relative_folder, filename))
                    if _excluded(filename, relative, patterns):
                        continue
                    add(os.path.normpath(os.path.join(folder, filename)))
        elif os.path.lexists(path):
            add(path)
        else:
            problems.append(FileProblem(path, "no such file or directory"))
    return files, problems


def lint_paths(paths, config: Config, *, config_for=None) -> LintResult:
    """Lint files and directories."""
    files, problems = discover_files(paths, config)
    return lint_files(files, config, problems=problems, config_for=config_for)


def lint_files(files, config: Config, *, problems=None, config_for=None) -> LintResult:
    session = LintSession(config, config_for)
    session.add_files(files, problems or ())
    return session.lint()


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
