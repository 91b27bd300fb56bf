"""The one lint pipeline: read and parse files, analyse them together, run the checkers, apply pragmas.

A :class:`LintSession` holds a run's project and analysis. The run layer (:mod:`graphlint.run`) lints a set of files with it, the fix driver
re-lints each rewritten text in it (:meth:`LintSession.update`: only the changed module and what depends on
it are analysed again), the Pylint plugin feeds it the modules Pylint parsed, and an editor server keeps one
open across edits. All of them get the same findings for the same code.
"""

from __future__ import annotations

import os

from astroid import nodes

from graphlint import collector
from graphlint import pragmas
from graphlint.analysis.engine import Analysis
from graphlint.analysis.names import mentions_mindspore
from graphlint.analysis.project import ModuleInfo, Project
from graphlint.analysis.boundary import unparsed_file_strings
from graphlint.analysis.source import SourceFile, SourceProblem, package_root_for, parse, read_source
from graphlint.analysis.tree import deep_recursion
from graphlint.catalogue import RULES
from graphlint.config import Config
from graphlint.results import FileProblem, LintResult, printable
from graphlint.checkers import run_checkers
from graphlint.runner import Finding

__all__ = ["FileProblem", "LintResult", "LintSession", "printable"]


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
        self.progress = None  # a graphlint.report.Progress that update() advances (the fix driver's re-lints)
        self.progress_phase = "fixing"
        self.read_elsewhere: set[str] = set()  # modules other processes read (--jobs): the result cache keys them
        # absolute path -> (interface digest, graph function names) of each module checked, when the result cache
        # asks for them (None: not recorded): what a later run compares to tell what an edit affects
        self.interfaces: dict[str, tuple[str, list]] | None = None
        # why the run layer linted in bounded processes (what -v says), or None
        self.bounded_because: str | None = None

    def config_of(self, path: str) -> Config:
        return self._config_for(path) if self._config_for is not None else self.config

    # -- adding files ---------------------------------------------------------------------------------
    def add_files(self, files, problems=(), progress=None) -> None:
        """Read and parse ``files`` (paths as they are to be shown) and add them to the run."""
        self.parse_files(self.read_files(files, problems), progress)

    def read_files(self, files, problems=(), unchecked: list | None = None) -> list:
        """Read ``files`` (paths as they are to be shown) into the run: ``[(path, SourceFile)]``, the files to
        parse. Those that never mention MindSpore are only checked for syntax (see :meth:`parse_files`), or put
        in ``unchecked`` (``[(path, text)]``) for the caller to check."""
        self.problems.extend(problems)
        to_parse = []
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
                self.project.unparsed.add(absolute)
                if unchecked is not None:
                    unchecked.append((path, text))
                else:
                    self.check_syntax(path, text)
                continue
            to_parse.append((path, source))
        return to_parse

    def check_syntax(self, path: str, text: str) -> None:
        """A file that is not parsed with astroid: a syntax error in it is a problem of the run (and the file is
        no longer one that graph code may load). What the run's facts need of it comes from the same parse."""
        absolute = os.path.abspath(path)
        try:
            self.project.unparsed_strings[absolute] = unparsed_file_strings(text, path)
        except SourceProblem as exc:
            self.problems.append(FileProblem(path, str(exc)))
            self.project.unparsed.discard(absolute)

    def parse_files(self, to_parse, progress=None) -> list[ModuleInfo]:
        """Parse files read by :meth:`read_files` and add them to the project: their modules, in order (a file
        that cannot be parsed is a problem of the run)."""
        if progress is not None:
            progress.start("reading", len(to_parse))
        added = []
        with deep_recursion():
            for path, source in to_parse:
                if progress is not None:
                    progress.advance(detail=path)
                try:
                    source.module = parse(source.text, source.module_name, os.path.abspath(path))
                except SourceProblem as exc:
                    self.problems.append(FileProblem(path, str(exc)))
                    continue
                except RecursionError:
                    self.problems.append(FileProblem(path, "too deeply nested to analyse"))
                    continue
                added.append(self.project.add(source.module, os.path.abspath(path)))
                self.sources[path] = source
                collector.settle()
        return added

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
            source = SourceFile(path=path, text=text, encoding="utf-8", bom=False,
                                module_name=module.name or "", module=module)
            self.sources[path] = source
        return info

    def admit(self, module: nodes.Module, path: str) -> ModuleInfo | None:
        """Add a module parsed elsewhere (by Pylint) the way :meth:`add_files` adds a file: one that never
        mentions MindSpore is left out (None), unless graph code elsewhere already loaded it for its helpers."""
        absolute = os.path.abspath(path)
        try:
            text = read_source(path).text
        except SourceProblem:
            return None
        if not mentions_mindspore(text):
            loaded = self.project.by_path.get(absolute)
            if loaded is not None:
                self.run_paths.setdefault(absolute, path)
            return loaded
        return self.add_module(module, path, text)

    def update(self, path: str, text: str) -> tuple[list[Finding], ModuleInfo]:
        """Lint a new text of a run file in place of the old one; only what depends on it is analysed again.

        Raises :class:`SourceProblem` for text that cannot be checked."""
        outcome = self.update_many([(path, text)])[0]
        if isinstance(outcome, SourceProblem):
            raise outcome
        return outcome

    def update_many(self, changes: list[tuple[str, str]]) -> list:
        """:meth:`update` for several files at once (one change of the run for all of them): per change,
        ``(findings, info)``, or the :class:`SourceProblem` of a text that cannot be checked (left as it was)."""
        parsed, outcomes = [], []
        with deep_recursion():
            for path, text in changes:
                if self.progress is not None:
                    self.progress.visit(self.progress_phase, path)
                source = self.sources.get(path)
                try:
                    module = parse(text, source.module_name if source is not None else "", os.path.abspath(path))
                except RecursionError:
                    outcomes.append(SourceProblem("too deeply nested to analyse"))
                    continue
                except SourceProblem as exc:
                    outcomes.append(exc)
                    continue
                parsed.append((path, text, module))
                outcomes.append(None)
                collector.settle()  # (--fix keeps each new text's tree to the end as well)
            infos = iter(self.analysis.replace_modules([(os.path.abspath(path), module)
                                                        for path, _text, module in parsed]))
        done = iter(parsed)
        for position, outcome in enumerate(outcomes):
            if outcome is not None:
                continue
            path, text, module = next(done)
            info = next(infos)
            self.run_paths.setdefault(os.path.abspath(path), path)
            source = self.sources.get(path)
            if source is not None:
                source.text, source.module = text, module
            outcomes[position] = (info, text)
        answers = []
        for outcome in outcomes:
            if not isinstance(outcome, SourceProblem):
                outcome = (self.findings_of(outcome[0], outcome[1]), outcome[0])
                collector.settle()  # (its findings and facts are kept to the end of the run)
            answers.append(outcome)
        return answers

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
        if config.per_file_ignores:
            found = [f for f in found if not config.ignored_in(shown, f.rule)]
        self._findings[info.path] = ((self.analysis.version, id(info.module)), found)
        return found

    def lint(self, progress=None, fix_markers: bool = False) -> LintResult:
        """Findings of every file of the run, in order, with the files that could not be checked.

        ``fix_markers`` asks the fixers, for each finding, whether --fix would rewrite it (``result.fixes``)."""
        result = self.new_result()
        with deep_recursion():
            work = self.work(result)
            if work is None:
                return result
            if progress is not None:
                progress.start("checking", len(work))
            for shown, info in work:
                result.add(shown, *self.check_module(shown, info, fix_markers))
                if progress is not None:
                    progress.advance(detail=shown)
        result.findings.sort(key=lambda f: f.sort_key)
        return result

    def register_run_modules(self, to_parse) -> None:
        """Make the files read by :meth:`read_files` modules of the run that are parsed where they are needed
        (not all in this process, or not all in this run: see :mod:`graphlint.run.incremental`)."""
        for path, source in to_parse:
            absolute = os.path.abspath(path)
            self.project.run_files.add(absolute)
            self.project.run_names.setdefault(source.module_name, absolute)
            self.project.roots.add(package_root_for(absolute))

    def new_result(self) -> LintResult:
        """An empty result of the run: its files, their lines and the problems met reading them."""
        return LintResult(problems=self.problems, sources=self.sources, files=self.files, lines=self.lines,
                          session=self)

    def work(self, result: LintResult) -> list[tuple[str, ModuleInfo]] | None:
        """``[(shown path, ModuleInfo)]``: the run's modules to check, once the graph scope is found (None, the
        problem added to ``result``, when the project is too deeply nested to analyse)."""
        try:
            _ = self.analysis.scope  # may load more files from disk (helpers they define)
        except RecursionError:
            first = next(iter(self.run_paths.values()), ".")
            result.problems.append(FileProblem(first, "too deeply nested to analyse"))
            return None
        work: list[tuple[str, ModuleInfo]] = []
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
            work.append((shown, info))
        return work

    def check_module(self, shown: str, info: ModuleInfo, fix_markers: bool = False):
        """(findings, {id(finding): fix safety}, problem) of one run module."""
        try:
            findings = self.findings_of(info)
            if self.interfaces is not None:
                names = sorted(self.analysis.graph_function_names(info))
                self.interfaces[info.path] = (self.analysis.interface_digest(info, names), names)
        except RecursionError:
            return [], {}, "too deeply nested to analyse"
        fixes = {}
        if fix_markers and findings:
            # imported here: libcst and the fixers load only when a run asks for fix markers
            from graphlint.fixers.planner import fix_availability

            source = self.sources.get(shown)
            fixes = fix_availability(self.analysis, info, findings, source.text if source is not None else "")
        return findings, fixes, ""

    def module_paths(self) -> list[str]:
        """The absolute paths of every module the run read: its files and those loaded for their helpers (by
        this process and, with ``--jobs``, the others)."""
        own = [info.path for info in self.project.modules if os.path.isabs(info.path)]
        return own + sorted(set(self.read_elsewhere) - set(own))

