"""The one lint pipeline: read and parse files, analyse them together, run the checkers, apply pragmas.

A :class:`LintSession` holds a run's project and analysis. The CLI lints a set of files with it, the fix driver
re-lints each rewritten text in it (:meth:`LintSession.update`: only the changed module and what depends on
it are analysed again), the Pylint plugin feeds it the modules Pylint parsed, and an editor server keeps one
open across edits. All of them get the same findings for the same code.
"""

from __future__ import annotations

import os
from dataclasses import dataclass, field

from astroid import nodes

from graphlint import pragmas
from graphlint.analysis.engine import Analysis
from graphlint.analysis.names import mentions_mindspore
from graphlint.analysis.project import ModuleInfo, Project
from graphlint.analysis.source import SourceFile, SourceProblem, parse, read_source, syntax_problem
from graphlint.analysis.tree import deep_recursion
from graphlint.catalogue import RULES
from graphlint.config import Config
from graphlint.runner import Finding, run_checkers


def printable(text: str) -> str:
    """``text`` with control characters escaped: a file named "a\\nb.py" still gives one line."""
    if text.isprintable():
        return text
    return "".join(c if c.isprintable() or c == " " else c.encode("unicode_escape", "backslashreplace").decode("ascii")
                   for c in text)


@dataclass
class FileProblem:
    path: str
    reason: str

    def line(self) -> str:
        return f"{printable(self.path)}: cannot check: {printable(self.reason)}"


@dataclass
class LintResult:
    findings: list[Finding] = field(default_factory=list)
    problems: list[FileProblem] = field(default_factory=list)
    sources: dict[str, SourceFile] = field(default_factory=dict)  # path -> parsed file
    files: int = 0
    lines: int = 0
    session: "LintSession | None" = None

    @property
    def analysis(self) -> Analysis | None:
        return self.session.analysis if self.session is not None else None


class LintSession:
    """A run's files, project and analysis. ``config_for(path)`` gives the options of one file (default: the
    session's ``config`` for every file)."""

    def __init__(self, config: Config | None = None, config_for=None):
        self.config = config or Config()
        self._config_for = config_for
        self.project = Project()
        self.analysis = Analysis(self.project)
        self.sources: dict[str, SourceFile] = {}  # shown path -> the file as read (its module once parsed)
        self.problems: list[FileProblem] = []
        self.run_paths: dict[str, str] = {}  # absolute path -> path as shown, for the files of the run
        self.files = 0
        self.lines = 0
        self._findings: dict[str, tuple[int, list[Finding]]] = {}  # absolute path -> (analysis version, findings)

    def config_of(self, path: str) -> Config:
        return self._config_for(path) if self._config_for is not None else self.config

    # -- adding files ---------------------------------------------------------------------------------
    def add_files(self, files, problems=()) -> None:
        """Read and parse ``files`` (paths as they are to be shown) and add them to the run."""
        self.problems.extend(problems)
        with deep_recursion():
            for path in files:
                self.files += 1
                absolute = os.path.abspath(path)
                self.run_paths[absolute] = path
                try:
                    source = read_source(path)
                except SourceProblem as exc:
                    self.problems.append(FileProblem(path, str(exc)))
                    continue
                text = source.text
                self.lines += text.count("\n") + (not text.endswith("\n") and bool(text))
                if not mentions_mindspore(text):
                    # Cheap skip (no astroid); parsed later only if graph code elsewhere imports it.
                    problem = syntax_problem(text, path)
                    if problem:
                        self.problems.append(FileProblem(path, problem))
                    continue
                try:
                    source.module = parse(text, source.module_name, absolute)
                except SourceProblem as exc:
                    self.problems.append(FileProblem(path, str(exc)))
                    continue
                except RecursionError:
                    self.problems.append(FileProblem(path, "too deeply nested to analyse"))
                    continue
                self.project.add(source.module, absolute)
                self.sources[path] = source

    def add_module(self, module: nodes.Module, path: str, text: str | None = None) -> ModuleInfo:
        """Add a module parsed elsewhere (by Pylint) as a file of the run."""
        absolute = os.path.abspath(path)
        known = self.project.by_node.get(id(module))
        if known is not None:
            self.run_paths.setdefault(absolute, path)
            return known
        info = self.analysis.replace_module(absolute, module)
        self.run_paths[absolute] = path
        if text is not None:
            source = SourceFile(path=path, text=text, encoding="utf-8", newline="\n", bom=False,
                                module_name=module.name or "", module=module)
            self.sources[path] = source
        return info

    def update(self, path: str, text: str) -> tuple[list[Finding], ModuleInfo]:
        """Lint a new text of a run file in place of the old one; only what depends on it is analysed again.

        Raises :class:`SourceProblem` for text that cannot be checked."""
        source = self.sources.get(path)
        absolute = os.path.abspath(path)
        module_name = source.module_name if source is not None else ""
        with deep_recursion():
            try:
                module = parse(text, module_name, absolute)
            except RecursionError:
                raise SourceProblem("too deeply nested to analyse") from None
            info = self.analysis.replace_module(absolute, module)
        self.run_paths.setdefault(absolute, path)
        if source is not None:
            source.text, source.module = text, module
        return self.findings_of(info, text), info

    # -- findings -------------------------------------------------------------------------------------
    def findings_of(self, info: ModuleInfo, text: str | None = None) -> list[Finding]:
        """The findings of one module, pragmas applied; cached until the project changes."""
        cached = self._findings.get(info.path)
        if cached is not None and cached[0] == (self.analysis.version, id(info.module)):
            return cached[1]
        shown = self.run_paths.get(info.path, info.path)
        config = self.config_of(shown)
        with deep_recursion():
            found = run_checkers(info, self.analysis, config)
        for finding in found:
            finding.path = shown
        if text is None:
            source = self.sources.get(shown)
            text = source.text if source is not None else None
        if text is None:
            try:
                text = read_source(shown).text
            except SourceProblem:
                text = ""
        found = pragmas.apply(text, info.module, found, RULES)
        self._findings[info.path] = ((self.analysis.version, id(info.module)), found)
        return found

    def lint(self) -> LintResult:
        """Findings of every file of the run, in order, with the files that could not be checked."""
        result = LintResult(problems=self.problems, sources=self.sources, files=self.files, lines=self.lines,
                            session=self)
        with deep_recursion():
            try:
                _ = self.analysis.scope  # may load more files from disk (helpers they define)
            except RecursionError:
                first = next(iter(self.run_paths.values()), ".")
                result.problems.append(FileProblem(first, "too deeply nested to analyse"))
                return result
            for info in list(self.project.modules):
                shown = self.run_paths.get(info.path)
                if shown is None:
                    continue  # a module read from disk for its helpers, not a file of the run
                if shown not in self.sources:
                    try:
                        source = read_source(shown)
                    except SourceProblem as exc:
                        result.problems.append(FileProblem(shown, str(exc)))
                        continue
                    source.module = info.module
                    self.sources[shown] = source
                try:
                    result.findings.extend(self.findings_of(info))
                except RecursionError:
                    result.problems.append(FileProblem(shown, "too deeply nested to analyse"))
        result.findings.sort(key=lambda f: f.sort_key)
        return result
