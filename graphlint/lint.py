"""Lint a set of paths: discover files, parse them, analyse the project, filter the findings."""

from __future__ import annotations

import fnmatch
import os
import sys
from dataclasses import dataclass, field

from graphlint.analysis.engine import Analysis, Finding, analyse_module
from graphlint.analysis.names import mentions_mindspore
from graphlint.analysis.project import Project
from graphlint.analysis.source import SourceFile, SourceProblem, parse, read_source, syntax_problem
from graphlint.config import DEFAULT_EXCLUDES, Config
from graphlint.suppress import PragmaFilter


@dataclass
class FileProblem:
    path: str
    reason: str

    def line(self) -> str:
        return f"{printable(self.path)}: cannot check: {printable(self.reason)}"


def printable(text: str) -> str:
    """``text`` with control characters escaped: a file named "a\\nb.py" still gives one line."""
    if text.isprintable():
        return text
    return "".join(c if c.isprintable() or c == " " else c.encode("unicode_escape", "backslashreplace").decode("ascii")
                   for c in text)


@dataclass
class LintResult:
    findings: list[Finding] = field(default_factory=list)
    problems: list[FileProblem] = field(default_factory=list)
    sources: dict[str, SourceFile] = field(default_factory=dict)  # path -> parsed file
    files: int = 0
    lines: int = 0
    analysis: Analysis | None = None


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


def lint_paths(paths, config: Config, *, texts: dict[str, str] | None = None) -> LintResult:
    """Lint files and directories. ``texts`` overrides file contents (for re-linting fixed code)."""
    files, problems = discover_files(paths, config)
    return lint_files(files, config, problems=problems, texts=texts)


# astroid walks trees recursively: deeply nested expressions (a 1,000-term sum) need more than Python's default.
RECURSION_LIMIT = 20000


def lint_files(files, config: Config, *, problems=None, texts: dict[str, str] | None = None) -> LintResult:
    previous = sys.getrecursionlimit()
    sys.setrecursionlimit(max(previous, RECURSION_LIMIT))
    try:
        return _lint_files(files, config, problems=problems, texts=texts)
    finally:
        sys.setrecursionlimit(previous)


def _lint_files(files, config: Config, *, problems=None, texts: dict[str, str] | None = None) -> LintResult:
    result = LintResult(problems=list(problems or []))
    project = Project()
    pending: dict[str, SourceFile] = {}
    run_paths: set[str] = set()
    for path in files:
        result.files += 1
        absolute = os.path.abspath(path)
        run_paths.add(absolute)
        try:
            source = read_source(path)
            if texts and path in texts:
                source.text = texts[path]
        except SourceProblem as exc:
            result.problems.append(FileProblem(path, str(exc)))
            continue
        result.lines += source.text.count("\n") + (not source.text.endswith("\n") and bool(source.text))
        if not mentions_mindspore(source.text):
            # Cheap skip (no astroid); parsed later only if graph code elsewhere imports it.
            problem = syntax_problem(source.text, path)
            if problem:
                result.problems.append(FileProblem(path, problem))
            continue
        try:
            source.module = parse(source.text, source.module_name, absolute)
            project.add(source.module, absolute)
        except SourceProblem as exc:
            result.problems.append(FileProblem(path, str(exc)))
            continue
        except RecursionError:
            result.problems.append(FileProblem(path, "too deeply nested to analyse"))
            project.forget(absolute)
            continue
        pending[absolute] = source
        result.sources[path] = source
    analysis = Analysis(project, config)
    result.analysis = analysis
    pragmas = PragmaFilter()
    by_absolute = {os.path.abspath(p): p for p in files}
    try:
        scope = analysis.scope  # may load more run files from disk (helpers they define)
    except RecursionError:
        result.problems.append(FileProblem(files[0] if files else ".", "too deeply nested to analyse"))
        return result
    del scope
    for info in list(project.modules):
        if info.path not in run_paths:
            continue
        shown_path = by_absolute.get(info.path, info.path)
        source = pending.get(info.path)
        if source is None:
            try:
                source = read_source(shown_path)
            except SourceProblem as exc:
                result.problems.append(FileProblem(shown_path, str(exc)))
                continue
            source.module = info.module
            result.sources[shown_path] = source
        try:
            findings = analyse_module(info, analysis, config)
        except RecursionError:
            result.problems.append(FileProblem(shown_path, "too deeply nested to analyse"))
            continue
        for finding in findings:
            finding.path = shown_path
        result.findings.extend(pragmas.apply(source.text, info.module, shown_path, findings))
    result.findings.sort(key=lambda f: f.sort_key)
    return result


def lint_text(text: str, config: Config | None = None, path: str = "example.py", module_name: str = "example") -> list[Finding]:
    """Lint one module given as text (examples, tests, the fixers' re-lint).

    Raises :class:`SourceProblem` (one line) for text that cannot be checked, as ``lint_paths`` reports it."""
    config = config or Config()
    previous = sys.getrecursionlimit()
    sys.setrecursionlimit(max(previous, RECURSION_LIMIT))
    try:
        module = parse(text, module_name, path)
        project = Project()
        info = project.add(module, path)
        analysis = Analysis(project, config)
        findings = analyse_module(info, analysis, config)
    except RecursionError:
        raise SourceProblem("too deeply nested to analyse") from None
    finally:
        sys.setrecursionlimit(previous)
    return PragmaFilter().apply(text, module, path, findings)
