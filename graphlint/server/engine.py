"""What the language server knows, without the protocol: the workspace index, the open documents, their
findings, and the fixes for them.

One :class:`~graphlint.session.LintSession` holds every file of the workspace folders (found as the CLI finds
them), so Cells, helpers and jit functions defined in other files resolve as they do for ``graphlint PATH``.
An open document's text replaces its file in the session (:meth:`LintSession.update`: only the changed module
and what depends on it are analysed again); closing it puts the file's text on disk back. Options come from the
nearest ``pyproject.toml`` of each file and are read again when that file changes.

Nothing here imports MindSpore or runs the user's code: linting reads and parses files only.
"""

from __future__ import annotations

import fnmatch
import io
import logging
import os
import re
import time
import tokenize
from dataclasses import dataclass, field

from graphlint.analysis.project import ModuleInfo
from graphlint.analysis.source import SourceFile, SourceProblem, module_name_for, read_source
from graphlint.catalogue.model import FixSafety
from graphlint.config import Config, ConfigError, find_pyproject
from graphlint.config import config_for as read_config
from graphlint.fixers import fixers_for
from graphlint.fixers.base import FixContext
from graphlint.fixers.driver import fix_file
from graphlint.fixers.planner import FixPlan, Verdict, open_module, parse_problem, plan_fix
from graphlint.results import discover_files
from graphlint.runner import Finding
from graphlint.session import LintSession

log = logging.getLogger("graphlint.server")

UNSAFE_NOTE = "unsafe: may change behaviour in corner cases"
MAX_INDEXED = 20000  # files of the workspace folders read for the index (a home folder opened as the root)


@dataclass
class Result:
    """The last lint of one open document: the text it was made for and what it found."""

    text: str
    version: int | None
    findings: list[Finding] = field(default_factory=list)
    info: ModuleInfo | None = None
    problem: str = ""  # why the text could not be checked (its diagnostics are cleared)
    seconds: float = 0.0
    context: object = None  # the FixContext of this text, made on the first code action request


@dataclass
class Fix:
    """A code action for one finding: a rewrite (``text`` is the whole new document). A fix graphlint refuses, or
    only displays, is no code action: an action that edits nothing is noise in the editor's quick-fix menu."""

    finding: Finding
    title: str
    kind: str  # "safe" | "unsafe" | "disable"
    text: str  # the document after the fix


class Engine:
    """The workspace index and the open documents of one server."""

    def __init__(self, roots=(), *, on_message=None):
        self.roots = [os.path.abspath(r) for r in roots]
        self.open: dict[str, tuple[str, int | None]] = {}  # absolute path -> (text, version)
        self.results: dict[str, Result] = {}
        self.config_errors: dict[str, str] = {}  # pyproject path -> its error, shown once
        self._on_message = on_message or (lambda level, text: None)
        self._configs: dict[str, tuple[int, Config]] = {}  # pyproject path -> (mtime_ns, config)
        self._nearest: dict[str, str] = {}  # folder -> its nearest pyproject ("" for none)
        self.session: LintSession | None = None
        self.indexed = 0
        self.index_seconds = 0.0

    # -- configuration --------------------------------------------------------------------------------
    def _pyproject_of(self, path: str) -> str:
        folder = os.path.dirname(os.path.abspath(path))
        found = self._nearest.get(folder)
        if found is None:
            found = self._nearest[folder] = find_pyproject(folder) or ""
        return found

    def config_for(self, path: str) -> Config:
        """The options of the file at ``path``: its nearest ``[tool.graphlint]`` (defaults when it is bad;
        the error is shown once)."""
        pyproject = self._pyproject_of(path)
        if not pyproject:
            return Config()
        cached = self._configs.get(pyproject)
        if cached is not None:
            return cached[1]
        mtime = _mtime(pyproject)
        try:
            config = read_config(os.path.dirname(pyproject), pyproject)
            self.config_errors.pop(pyproject, None)
        except ConfigError as exc:
            config = Config()
            if self.config_errors.get(pyproject) != str(exc):
                self.config_errors[pyproject] = str(exc)
                self._on_message("error", f"graphlint: {exc} (using the default options)")
        self._configs[pyproject] = (mtime, config)
        return config

    def config_changed(self) -> bool:
        """Whether a ``pyproject.toml`` the options came from changed, appeared or went away."""
        for pyproject, (mtime, _config) in self._configs.items():
            if _mtime(pyproject) != mtime:
                return True
        for folder, found in self._nearest.items():
            if (find_pyproject(folder) or "") != found:
                return True
        return False

    def excluded(self, path: str) -> bool:
        """Whether ``exclude`` of the file's configuration leaves it out (as the CLI skips it in a folder)."""
        pyproject = self._pyproject_of(path)
        patterns = self.config_for(path).exclude
        if not pyproject or not patterns:
            return False
        relative = os.path.relpath(os.path.abspath(path), os.path.dirname(pyproject))
        if relative.startswith(".."):
            return False
        parts = relative.split(os.sep)
        prefixes = [os.path.join(*parts[:i]) for i in range(1, len(parts) + 1)]
        return any(fnmatch.fnmatch(part, p) or fnmatch.fnmatch(prefix, p) or fnmatch.fnmatch(prefix, p.rstrip("/") + "/*")
                   for part, prefix in zip(parts, prefixes) for p in patterns)

    # -- the index --------------------------------------------------------------------------------------
    def _ensure_session(self) -> LintSession:
        if self.session is not None and self.config_changed():
            log.info("a pyproject.toml changed: reloading the options and the index")
            self.reload()
        if self.session is None:
            self._build()
        return self.session

    def reload(self) -> None:
        """Forget the options and the index; the next lint builds them again (a pyproject.toml changed)."""
        self._configs.clear()
        self._nearest.clear()
        self.session = None
        self.results.clear()

    def _build(self) -> None:
        started = time.perf_counter()
        session = LintSession(Config(), config_for=self.config_for)
        files: list[str] = []
        for root in self.roots:
            found, _problems = discover_files([root], self.config_for(os.path.join(root, "__init__.py")))
            files.extend(os.path.abspath(f) for f in found)
        if len(files) > MAX_INDEXED:
            self._on_message("warning", f"graphlint: {len(files)} Python files under {', '.join(self.roots)}: "
                                        f"indexing the first {MAX_INDEXED} (open a project folder instead)")
            files = files[:MAX_INDEXED]
        session.add_files(files)
        self.session = session
        self.indexed = len(files)
        for path, (text, _version) in self.open.items():
            self._put(path, text, lint=False)
        self.index_seconds = time.perf_counter() - started
        log.info("indexed %d files under %s in %.2f s", len(files), ", ".join(self.roots) or "(no folder)",
                 self.index_seconds)

    def add_root(self, root: str) -> None:
        root = os.path.abspath(root)
        if root not in self.roots:
            self.roots.append(root)
            self.session = None

    def remove_root(self, root: str) -> None:
        root = os.path.abspath(root)
        if root in self.roots:
            self.roots.remove(root)
            self.session = None

    def _put(self, path: str, text: str, *, lint: bool = True):
        """Put ``text`` in the session in place of the file at ``path``; (findings, info) when ``lint``."""
        session = self.session
        source = session.sources.get(path)
        if source is None:
            # Not in the index (new, outside the folders, or not mentioning MindSpore when indexed): a run file
            # from now on, with the module name the CLI would give it.
            source = SourceFile(path=path, text=text, encoding="utf-8", bom=False,
                                module_name=module_name_for(path))
            session.sources[path] = source
            session.run_paths[path] = path
        elif source.module is not None and source.text == text:  # opened as it is on disk: nothing to re-analyse
            info = session.project.by_node.get(id(source.module))
            if info is not None:
                return (session.findings_of(info, text), info) if lint else None
        if not lint:
            try:
                session.update(path, text)
            except (SourceProblem, RecursionError):
                pass
            return None
        return session.update(path, text)

    # -- documents --------------------------------------------------------------------------------------
    def set_text(self, path: str, text: str, version: int | None) -> None:
        self.open[os.path.abspath(path)] = (text, version)

    def close(self, path: str) -> None:
        """The editor closed the document: the file on disk is what other files see again."""
        path = os.path.abspath(path)
        self.open.pop(path, None)
        self.results.pop(path, None)
        if self.session is not None:
            self.disk_changed(path)

    def disk_changed(self, path: str) -> None:
        """A file changed on disk (or was created or deleted) outside the editor."""
        path = os.path.abspath(path)
        if os.path.basename(path) == "pyproject.toml":
            self.reload()
            return
        if self.session is None or path in self.open:
            return
        try:
            text = read_source(path).text
        except SourceProblem:
            text = None
        if text is None:
            if path in self.session.sources or self.session.project.by_path.get(path) is not None:
                self.session.analysis.replace_module(path, None)
                self.session.sources.pop(path, None)
            return
        if path in self.session.sources or self.session.project.by_path.get(path) is not None \
                or any(_within(path, root) for root in self.roots):
            self._put(path, text, lint=False)

    def lint(self, path: str) -> Result:
        """Lint the open document at ``path`` (its text as last set)."""
        path = os.path.abspath(path)
        text, version = self.open[path]
        started = time.perf_counter()
        try:
            self._ensure_session()
            if self.excluded(path):
                result = Result(text, version, problem="excluded by the configuration")
            else:
                findings, info = self._put(path, text)
                result = Result(text, version, list(findings), info)
        except SourceProblem as exc:
            result = Result(text, version, problem=str(exc))
        except RecursionError:
            result = Result(text, version, problem="too deeply nested to analyse")
        except Exception as exc:  # noqa: BLE001 - a bug in graphlint must not stop the server
            log.exception("internal error linting %s", path)
            result = Result(text, version, problem=f"internal error: {type(exc).__name__}: {exc}")
        result.seconds = time.perf_counter() - started
        self.results[path] = result
        return result

    def relint_others(self, changed: str) -> list[Result]:
        """Lint the other open documents again after ``changed`` changed (the ones whose findings may depend
        on it get new facts; the others come from the analysis' cache); the results whose findings differ."""
        changed = os.path.abspath(changed)
        updated = []
        for path, (text, version) in list(self.open.items()):
            if path == changed:
                continue
            before = self.results.get(path)
            info = self.session.project.by_path.get(path) if self.session is not None else None
            if info is None or before is None or before.problem:
                continue
            try:
                findings = list(self.session.findings_of(info, text))
            except Exception:  # noqa: BLE001
                log.exception("internal error re-linting %s", path)
                continue
            result = Result(text, version, findings, info)
            self.results[path] = result
            if [_identity(f) for f in findings] != [_identity(f) for f in before.findings]:
                updated.append(result)
        return updated

    # -- fixes --------------------------------------------------------------------------------------------
    def _context(self, path: str) -> FixContext | None:
        result = self.results.get(os.path.abspath(path))
        if result is None or result.info is None:
            return None
        if result.context is None:
            result.context = open_module(result.text, self.session.analysis, result.info, result.findings)
        return result.context

    def fixes(self, path: str, findings: list[Finding]) -> list[Fix]:
        """Code actions for ``findings`` of the open document at ``path``: each finding's fix where graphlint
        can apply one (refused and display-only fixes edit nothing: none is offered), and its "disable for this
        line"."""
        result = self.results.get(os.path.abspath(path))
        if result is None:
            return []
        context = None
        actions: list[Fix] = []
        for finding in findings:
            rule = finding.rule
            if fixers_for(rule):
                if context is None:
                    try:
                        context = self._context(path)
                    except Exception as exc:  # noqa: BLE001 - CannotPlan: libcst cannot parse what Python can
                        log.info("no fixes for %s: %s", path, exc)
                        context = False
                if context:
                    # unsafe edits are offered too, titled as such: the author picks the action
                    plan = plan_fix(finding, context, unsafe=True)
                    if plan is not None and plan.verdict not in (Verdict.REFUSED, Verdict.SUGGEST) \
                            and plan.edit is not None:
                        actions.append(self._edit_action(plan))
            actions.append(self._disable_action(finding, result.text))
        return [a for a in actions if a is not None]

    def refusal(self, path: str, finding: Finding) -> str:
        """Why graphlint does not rewrite ``finding`` here (empty when it can, or has no fixer for the rule):
        shown on hover, since a refused fix offers no code action."""
        if not fixers_for(finding.rule):
            return ""
        try:
            context = self._context(path)
        except Exception:  # noqa: BLE001 - CannotPlan: libcst cannot parse what Python can
            return ""
        plan = plan_fix(finding, context, unsafe=True) if context else None
        return plan.reason if plan is not None and plan.verdict is Verdict.REFUSED else ""

    @staticmethod
    def _edit_action(plan: FixPlan) -> Fix | None:
        """The code action of a plan that offers an edit: the rewritten document (None when the rewrite fails)."""
        finding, rule, edit = plan.finding, plan.finding.rule, plan.edit
        description = edit.description or edit.fixer.description or f"fix {rule.symbol}"
        try:
            new_text, reason = plan.rewritten()
        except Exception:  # noqa: BLE001 - a fixer bug must not stop the server
            log.exception("internal error applying the fix for %s", rule.id)
            return None
        if reason:
            log.info("no fix for %s at %s:%s: %s", rule.id, finding.line, finding.column, reason)
            return None
        if edit.applicability is FixSafety.UNSAFE:
            return Fix(finding, f"graphlint: {description} ({UNSAFE_NOTE})", "unsafe", new_text)
        return Fix(finding, f"graphlint: {description} (safe fix)", "safe", new_text)

    @staticmethod
    def _disable_action(finding: Finding, text: str) -> Fix | None:
        new_text = disable_on_line(text, finding.line, finding.rule.symbol)
        if new_text is None:
            return None
        return Fix(finding, f"graphlint: disable {finding.rule.symbol} for this line", "disable", new_text)

    def fix_all(self, path: str) -> str | None:
        """The document with every safe fix applied, linted again and fixed again as ``graphlint --fix`` does
        (``None`` when nothing changes). The session is left holding the document's own text."""
        path = os.path.abspath(path)
        result = self.results.get(path)
        if result is None or result.info is None or not any(fixers_for(f.rule) for f in result.findings):
            return None
        session = self.session
        if session.sources.get(path) is None:
            return None
        try:
            outcome, _remaining = fix_file(session, path, result.findings, self.config_for(path))
        except Exception:  # noqa: BLE001
            log.exception("internal error fixing %s", path)
            return None
        finally:
            if session.sources.get(path) is not None and session.sources[path].text != result.text:
                try:
                    findings, info = session.update(path, result.text)  # back to what the editor holds
                    result.findings, result.info, result.context = list(findings), info, None
                except SourceProblem:
                    pass
        return outcome.after if outcome.changed else None


def disable_on_line(text: str, line: int, symbol: str) -> str | None:
    """``text`` with ``# pylint: disable=symbol`` at the end of line ``line`` (added to the line's pragma if it
    has one); None if that would not parse (the line ends inside a string, or with a backslash)."""
    lines = text.splitlines(keepends=True)
    if not 1 <= line <= len(lines):
        return None
    raw = lines[line - 1]
    body = raw.rstrip("\r\n")
    ending = raw[len(body):]
    pragma = re.search(r"#\s*pylint:\s*disable=([\w\-, ]+)$", body)
    if pragma:
        names = [n.strip() for n in pragma.group(1).split(",") if n.strip()]
        if symbol in names:
            return None
        new = body[:pragma.end(1)].rstrip() + f",{symbol}"
    else:
        new = body.rstrip() + f"  # pylint: disable={symbol}"
    lines[line - 1] = new + (ending or "")
    candidate = "".join(lines)
    if parse_problem(candidate) or _tokens_differ(text, candidate):
        return None
    return candidate


def _tokens_differ(before: str, after: str) -> bool:
    """Whether adding the comment changed anything but comments (it landed inside a string)."""
    def significant(text):
        return [(t.type, t.string) for t in tokenize.generate_tokens(io.StringIO(text).readline)
                if t.type not in (tokenize.COMMENT, tokenize.NL, tokenize.NEWLINE)]

    try:
        return significant(before) != significant(after)
    except (tokenize.TokenError, SyntaxError, IndentationError):
        return True


def _identity(finding: Finding) -> tuple:
    return (finding.rule.id, finding.line, finding.column, finding.end_line, finding.end_column, finding.message,
            finding.severity)


def _mtime(path: str) -> int:
    try:
        return os.stat(path).st_mtime_ns
    except OSError:
        return -1


def _within(path: str, root: str) -> bool:
    return os.path.commonpath([path, root]) == root if os.path.isabs(path) else False
