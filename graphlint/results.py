"""What a lint run gives (findings, files that could not be checked) and which files it reads.

Nothing here imports astroid or the analysis: a run answered by the result cache (:mod:`graphlint.run.cache`)
never loads them.
"""

from __future__ import annotations

import fnmatch
import os
from dataclasses import dataclass, field

from graphlint.config import DEFAULT_EXCLUDES, Config


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
    findings: list = field(default_factory=list)  # runner.Finding (ReportedFinding from workers and the cache)
    problems: list[FileProblem] = field(default_factory=list)
    sources: dict = field(default_factory=dict)  # path -> parsed file (analysis.source.SourceFile)
    files: int = 0
    lines: int = 0
    session: "LintSession | None" = None
    fixes: dict = field(default_factory=dict)  # id(finding) -> "safe" | "unsafe" | "display-only" (if asked)

    @property
    def analysis(self):
        return self.session.analysis if self.session is not None else None

    def add(self, path: str, findings, fixes, problem: str) -> None:
        """One checked file's outcome: its findings and their fix markers, or the problem that stopped it."""
        if problem:
            self.problems.append(FileProblem(path, problem))
            return
        self.findings.extend(findings)
        self.fixes.update(fixes)


@dataclass
class ReportedFinding:
    """A finding as reported (from a ``--jobs`` worker or the result cache): what the output formats and
    baselines read, without the astroid node, graph and payload that only fixers need."""

    rule: object  # catalogue.Rule
    path: str
    line: int
    column: int
    end_line: int
    end_column: int
    message: str
    severity: object  # catalogue.Severity
    args: dict = field(default_factory=dict)
    note: str = ""
    entry_path: str = ""  # see runner.Finding
    node: None = None
    payload: None = None
    graph: None = None

    @property
    def sort_key(self):
        return (self.path, self.line, self.column, self.rule.id)


def finding_to_record(finding, fix: str | None = None) -> list:
    """A JSON-able record of a finding (for the cache and the --jobs workers)."""
    return [finding.rule.id, finding.path, finding.line, finding.column, finding.end_line, finding.end_column,
            finding.message, finding.severity.value, fix, finding.entry_path]


def finding_from_record(record) -> tuple[ReportedFinding, str | None]:
    # layer: results are shared below the catalogue (a record names its rule by id)
    from graphlint.catalogue import lookup
    from graphlint.catalogue.model import Severity

    rule_id, path, line, column, end_line, end_column, message, severity, fix, entry_path = record
    rule = lookup(rule_id)
    if rule is None:
        raise ValueError(f"unknown rule {rule_id!r}")
    return ReportedFinding(rule=rule, path=path, line=int(line), column=int(column), end_line=int(end_line),
                           end_column=int(end_column), message=message, severity=Severity(severity),
                           entry_path=entry_path), fix


def focus(result: LintResult, files) -> LintResult:
    """What a run over a whole project reports for ``files`` (``--project-root``): their findings and problems,
    and the findings in helpers that a graph entry defined in one of them reaches, in whichever file the helper
    is (an edit of ``net.py`` reaches the helper of ``utils.py`` its ``construct`` calls)."""
    wanted = {_same_file(path) for path in files}
    findings = [f for f in result.findings
                if _same_file(f.path) in wanted or (f.entry_path and _same_file(f.entry_path) in wanted)]
    reported = {_same_file(f.path) for f in findings} | wanted
    kept = {id(f) for f in findings}
    return LintResult(findings=findings, problems=[p for p in result.problems if _same_file(p.path) in wanted],
                      sources={path: source for path, source in result.sources.items() if _same_file(path) in reported},
                      files=len(files), session=result.session,
                      fixes={key: fix for key, fix in result.fixes.items() if key in kept})


def _same_file(path: str) -> str:
    try:
        return os.path.realpath(path)
    except (OSError, RuntimeError):
        return os.path.abspath(path)


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
