"""Output: the formats (full, concise, json, sarif, github), the run summary, ``--statistics``, colours and the
progress bar.

A renderer is ``render_<name>(findings, problems, options=None) -> str``; :data:`RENDERERS` lists them under the
names of :data:`graphlint.config.FORMATS` (what ``--output-format`` and ``output-format =`` accept; the
configuration checks its option against them without importing the renderers).
"""

from __future__ import annotations

import json
import os
import re
import sys
import threading
import time
import unicodedata
from collections import Counter
from dataclasses import dataclass, field

from graphlint.catalogue import RULES
from graphlint.config import FORMATS
from graphlint.results import printable
from graphlint.version import __version__

SARIF_LEVEL = {"error": "error", "warning": "warning", "info": "note"}
GITHUB_LEVEL = {"error": "error", "warning": "warning", "info": "notice"}
SAFE, UNSAFE, DISPLAY = "safe", "unsafe", "display-only"  # what a finding's fix is (RenderOptions.fixes)
MARKERS = {SAFE: "[*]", UNSAFE: "[~]"}
CANNOT_CHECK_ID, CANNOT_CHECK_SYMBOL = "F0001", "cannot-check"  # a file that could not be checked, in JSON


@dataclass
class RenderOptions:
    color: bool = False
    texts: dict = field(default_factory=dict)  # path -> source text (the full format shows the lines)
    fixes: dict = field(default_factory=dict)  # id(finding) -> SAFE | UNSAFE | DISPLAY (absent: no fix)

    def fix(self, finding) -> str | None:
        return self.fixes.get(id(finding))


# -- colours ---------------------------------------------------------------------------------------------
_STYLES = {"bold": "1", "dim": "2", "red": "31", "yellow": "33", "blue": "34", "cyan": "36", "green": "32",
           "error": "1;31", "warning": "1;33", "info": "1;36"}


def paint(text: str, style: str, color: bool) -> str:
    return f"\x1b[{_STYLES[style]}m{text}\x1b[0m" if color and text else text


def use_color(stream, choice: str = "auto") -> bool:
    """``--color``: always, never, or auto (a terminal, and neither ``NO_COLOR`` nor ``TERM=dumb``)."""
    if choice == "always":
        return True
    if choice == "never":
        return False
    if os.environ.get("NO_COLOR"):
        return False
    if os.environ.get("FORCE_COLOR"):
        return True
    return _isatty(stream) and os.environ.get("TERM") != "dumb"


def _isatty(stream) -> bool:
    try:
        return stream.isatty()
    except (AttributeError, ValueError):
        return False


# -- records -----------------------------------------------------------------------------------------------
def finding_record(finding, fix: str | None = None) -> dict:
    return {
        "path": finding.path,
        "line": finding.line,
        "column": finding.column,
        "end_line": finding.end_line,
        "end_column": finding.end_column,
        "id": finding.rule.id,
        "symbol": finding.rule.symbol,
        "severity": finding.severity.value,
        "message": finding.message,
        "fix": fix if fix in (SAFE, UNSAFE) else None,
    }


_WHERE = re.compile(r"at line (\d+)(?:, column (\d+))?")


def problem_position(problem) -> tuple[int, int]:
    """(line, column) of a file that could not be checked: the syntax error's, else (1, 1)."""
    match = _WHERE.search(problem.reason)
    if not match:
        return 1, 1
    return int(match.group(1)), int(match.group(2) or 1)


def problem_record(problem) -> dict:
    line, column = problem_position(problem)
    return {"path": problem.path, "line": line, "column": column, "end_line": line, "end_column": column,
            "id": CANNOT_CHECK_ID, "symbol": CANNOT_CHECK_SYMBOL, "severity": "error",
            "message": f"cannot check: {problem.reason}", "fix": None}


# -- concise and full text -----------------------------------------------------------------------------------
def labelled_id(finding) -> str:
    """The rule's id, followed by the finding's severity where the id's letter does not say it: the letter is the
    severity at the default lax level, and at strict (or for another MindSpore release) it can be another
    (``W5502 (error)``), which the summary line counts."""
    severity = finding.severity.value
    if finding.rule.id[:1] == severity[:1].upper():
        return finding.rule.id
    return f"{finding.rule.id} ({severity})"


def render_concise(findings, problems=(), options: RenderOptions | None = None) -> str:
    lines = [f"{printable(f.path)}:{f.line}:{f.column}: {labelled_id(f)} {f.rule.symbol} {f.message}"
             for f in findings]
    return "\n".join(lines) + ("\n" if lines else "")



_ABBREVIATIONS = ("e.g.", "i.e.", "etc.", "vs.")  # full stops that do not end a sentence


def _help(rule) -> str:
    """The first sentence of the rule's fix advice: up to the first full stop that is outside code spans and
    parentheses, not an abbreviation's, and followed by a new sentence (a capital or a code span)."""
    text = " ".join(rule.fix.split())
    return _first_sentence(text)


def _first_sentence(text: str) -> str:
    in_code, depth = False, 0
    for index, char in enumerate(text):
        if char == "`":
            in_code = not in_code
        elif in_code:
            continue
        elif char == "(":
            depth += 1
        elif char == ")":
            depth = max(0, depth - 1)
        elif char == "." and depth == 0 and _ends_sentence(text, index):
            return text[:index + 1]
    return text if text.endswith((".", "!", "?")) else text + "."


def _ends_sentence(text: str, stop: int) -> bool:
    before = text[:stop + 1]
    if before.endswith(_ABBREVIATIONS) or text[stop + 1:stop + 2] == ".":
        return False
    rest = text[stop + 1:]
    if before.endswith("..."):  # an ellipsis ends a sentence only when a capitalised one follows
        return re.match(r"\s+[A-Z]", rest) is not None
    return re.match(r"\s+[A-Z`(]", rest) is not None


def _byte_to_char(line: str, byte_column: int) -> int:
    """astroid columns count UTF-8 bytes; the character index they point at."""
    data = line.encode("utf-8")
    if byte_column >= len(data):
        return len(line) + (byte_column - len(data))
    return len(data[:byte_column].decode("utf-8", "ignore"))


def _width(text: str) -> int:
    return sum(2 if unicodedata.east_asian_width(c) in "WF" else 0 if unicodedata.combining(c) else 1
               for c in text)


def _pad(prefix: str) -> str:
    """Blanks as wide as ``prefix`` on a terminal, tabs kept so that the caret lines up under them."""
    return "".join("\t" if c == "\t" else " " * _width(c) for c in prefix)


def _snippet(finding, text: str | None, color: bool) -> list[str]:
    if not text:
        return []
    lines = text.splitlines()
    if not 0 < finding.line <= len(lines):
        return []
    first = max(1, finding.line - 1)
    last = min(len(lines), finding.line + 1)
    gutter = len(str(last))
    bar = paint("|", "blue", color)
    out = [f"{' ' * gutter} {bar}"]
    for number in range(first, last + 1):
        source = printable(lines[number - 1].rstrip("\r\n")).replace("\x1b", "\\x1b")
        out.append(f"{paint(str(number).rjust(gutter), 'blue', color)} {bar} {source}")
        if number == finding.line:
            raw = lines[number - 1]
            start = _byte_to_char(raw, finding.column - 1)
            if finding.end_line == finding.line and finding.end_column > finding.column:
                end = _byte_to_char(raw, finding.end_column - 1)
            else:
                end = len(raw.rstrip())
            end = max(end, start + 1)
            carets = "^" * max(1, _width(raw[start:end]))
            style = finding.severity.value
            out.append(f"{' ' * gutter} {bar} {_pad(raw[:start])}{paint(carets, style, color)}")
    out.append(f"{' ' * gutter} {bar}")
    return out


def render_full(findings, problems=(), options: RenderOptions | None = None) -> str:
    options = options or RenderOptions()
    color = options.color
    blocks = []
    for f in findings:
        severity = f.severity.value
        marker = MARKERS.get(options.fix(f), "")
        head = (f"{paint(f'{severity}[{f.rule.id}]', severity, color)} {paint(f.rule.symbol, 'bold', color)}"
                f"{' ' + paint(marker, 'green', color) if marker else ''}: {f.message}")
        lines = [head, f"  {paint('-->', 'blue', color)} {printable(f.path)}:{f.line}:{f.column}"]
        text = options.texts.get(f.path)
        lines += ["  " + line for line in _snippet(f, text, color)]
        fix = options.fix(f)
        help_text = _help(f.rule)
        if fix == SAFE:
            help_text += " `graphlint --fix` rewrites it (safe fix)."
        elif fix == UNSAFE:
            help_text += " `graphlint --fix --unsafe-fixes` rewrites it (unsafe fix: check the diff)."
        elif fix == DISPLAY:
            help_text += " `graphlint --diff` shows a suggested rewrite."
        lines.append(f"  {paint('=', 'blue', color)} {paint('help', 'bold', color)}: {help_text} "
                     f"(graphlint --explain {f.rule.id})")
        blocks.append("\n".join(lines))
    return "".join(block + "\n\n" for block in blocks)


# -- machine-readable ----------------------------------------------------------------------------------------
def render_json(findings, problems=(), options: RenderOptions | None = None) -> str:
    """Every finding, then one record per file that could not be checked (id F0001, symbol cannot-check)."""
    options = options or RenderOptions()
    records = [finding_record(f, options.fix(f)) for f in findings] + [problem_record(p) for p in problems]
    return json.dumps(records, indent=2) + "\n"


def render_github(findings, problems=(), options: RenderOptions | None = None) -> str:
    lines = []
    for f in findings:
        message = _escape_data(f"{f.rule.symbol}: {f.message}")
        lines.append(f"::{GITHUB_LEVEL[f.severity.value]} file={_escape_property(f.path)},line={f.line},"
                     f"endLine={f.end_line},col={f.column},endColumn={f.end_column},"
                     f"title={_escape_property(labelled_id(f))}::{message}")
    for problem in problems:
        line, column = problem_position(problem)
        lines.append(f"::error file={_escape_property(problem.path)},line={line},col={column},"
                     f"title=graphlint cannot check this file::{_escape_data(problem.reason)}")
    return "\n".join(lines) + ("\n" if lines else "")


def _escape_data(value: str) -> str:
    return value.replace("%", "%25").replace("\r", "%0D").replace("\n", "%0A")


def _escape_property(value: str) -> str:
    return _escape_data(value).replace(":", "%3A").replace(",", "%2C")


def _uri(path: str) -> str:
    relative = os.path.relpath(path) if os.path.isabs(path) else path
    if relative.startswith(".."):
        return "file://" + os.path.abspath(path)
    return relative.replace(os.sep, "/")


def sarif_rule(rule) -> dict:
    # here: docs imports the fixers (libcst), which only SARIF output needs of it
    from graphlint.docs import render_rule

    return {
        "id": rule.id,
        "name": rule.symbol,
        "shortDescription": {"text": rule.summary},
        "fullDescription": {"text": rule.why},
        # The rule's whole page (why, MindSpore's message, flagged and clean examples, the fix): what code
        # scanning shows under "Show more".
        "help": {"text": f"{rule.why}\n\nFix: {rule.fix}", "markdown": render_rule(rule)},
        "defaultConfiguration": {"level": SARIF_LEVEL[rule.lax.value]},
        "properties": {"family": rule.family, "strict-level": rule.strict.value, "tags": ["mindspore", rule.family]},
    }


def render_sarif(findings, problems=(), options: RenderOptions | None = None) -> str:
    rules = list(RULES)
    index = {rule.id: position for position, rule in enumerate(rules)}
    results = []
    for f in findings:
        results.append({
            "ruleId": f.rule.id,
            "ruleIndex": index[f.rule.id],
            "level": SARIF_LEVEL[f.severity.value],
            "message": {"text": f.message},
            "locations": [{
                "physicalLocation": {
                    "artifactLocation": {"uri": _uri(f.path)},
                    "region": {"startLine": f.line, "startColumn": f.column,
                               "endLine": f.end_line, "endColumn": max(f.end_column, 1)},
                },
            }],
        })
    notifications = []
    for problem in problems:
        line, column = problem_position(problem)
        notifications.append({
            "level": "error",
            "message": {"text": f"{problem.path}: cannot check: {problem.reason}"},
            "descriptor": {"id": CANNOT_CHECK_ID, "index": 0},
            "locations": [{"physicalLocation": {"artifactLocation": {"uri": _uri(problem.path)},
                                                "region": {"startLine": line, "startColumn": column}}}],
        })
    run = {
        "tool": {"driver": {"name": "graphlint", "version": __version__,
                            "informationUri": "https://pypi.org/project/graphlint/",
                            "rules": [sarif_rule(rule) for rule in rules],
                            "notifications": [{"id": CANNOT_CHECK_ID, "name": CANNOT_CHECK_SYMBOL,
                                               "shortDescription": {"text": "A file graphlint could not check "
                                                                            "(syntax error, encoding, ...)."}}]}},
        "results": results,
        "invocations": [{"executionSuccessful": not problems, "toolExecutionNotifications": notifications}],
    }
    document = {"$schema": "https://json.schemastore.org/sarif-2.1.0.json", "version": "2.1.0", "runs": [run]}
    return json.dumps(document, indent=2) + "\n"


RENDERERS = {"full": render_full, "concise": render_concise, "text": render_concise, "json": render_json,
             "sarif": render_sarif, "github": render_github}
if tuple(RENDERERS) != FORMATS:  # pragma: no cover - a renderer added without its name in config.FORMATS
    raise ImportError(f"graphlint.config.FORMATS {FORMATS} must name the renderers {tuple(RENDERERS)}, in order")
MACHINE_FORMATS = ("json", "sarif", "github")


# -- summary and statistics ---------------------------------------------------------------------------------
def _plural(count: int, word: str) -> str:
    if word == "info":
        return f"{count} info"
    return f"{count} {word}{'' if count == 1 else 'es' if word.endswith('x') else 's'}"


def _plural_number(count: int, word: str) -> str:
    return f"{count:,} {word}{'' if count == 1 else 's'}"


def _was_read(path: str) -> bool:
    """Whether a file that could not be checked was one of the run's files (counted in its files), not a path
    that does not exist or a folder that could not be listed (what finding the files meets)."""
    return os.path.lexists(path) and not os.path.isdir(path)


def fix_counts(findings, options: RenderOptions) -> tuple[int, int]:
    safe = sum(1 for f in findings if options.fix(f) == SAFE)
    unsafe = sum(1 for f in findings if options.fix(f) == UNSAFE)
    return safe, unsafe


def summary_line(findings, problems, files: int, options: RenderOptions | None = None, *, lines: int = 0,
                 color: bool = False) -> str:
    """"Found 12 errors, 30 warnings, 4 info in 9 files (3 fixable with --fix, 5 more with --unsafe-fixes)."
    or, on a clean run, "All checks passed: 109 files checked."."""
    options = options or RenderOptions()
    unchecked = ""
    if problems:
        unchecked = f"{_plural(len({p.path for p in problems}), 'file')} could not be checked"
    # ``files`` counts every file read: those that could not be checked are not among the checked ones (nor, then,
    # is a line count, which may hold theirs)
    read_but_unchecked = {p.path for p in problems if _was_read(p.path)}
    if read_but_unchecked:
        files, lines = max(files - len(read_but_unchecked), 0), 0
    if not findings:
        checked = f"{_plural(files, 'file')} checked" + (f" ({_plural_number(lines, 'line')})" if lines else "")
        if problems and not files:
            return paint(f"No files checked: {unchecked} (see above).", "yellow", color)
        if problems:
            return paint(f"No findings in {checked}, but {unchecked} (see above).", "yellow", color)
        return paint(f"All checks passed: {checked}, no findings.", "green", color)
    severities = Counter(f.severity.value for f in findings)
    parts = [_plural(severities[s], s) for s in ("error", "warning", "info") if severities[s]]
    text = f"Found {', '.join(parts)} in {_plural(len({f.path for f in findings}), 'file')}"
    safe, unsafe = fix_counts(findings, options)
    fixes = []
    if safe:
        fixes.append(f"{safe} fixable with --fix")
    if unsafe:
        fixes.append(f"{unsafe} {'more' if safe else 'fixable'} with --fix --unsafe-fixes")
    if fixes:
        text += f" ({', '.join(fixes)})"
    if unchecked:
        text += f"; {unchecked}"
    return paint(text + ".", "bold", color)


def statistics(findings, options: RenderOptions | None = None) -> list[dict]:
    """Per rule: count, id, symbol, severity, and how many of its findings have a safe / unsafe fix; the most
    frequent first."""
    options = options or RenderOptions()
    by_rule: dict[str, dict] = {}
    for f in findings:
        row = by_rule.setdefault(f.rule.id, {"count": 0, "id": f.rule.id, "symbol": f.rule.symbol,
                                             "severity": f.severity.value, "safe_fixes": 0, "unsafe_fixes": 0})
        row["count"] += 1
        fix = options.fix(f)
        if fix == SAFE:
            row["safe_fixes"] += 1
        elif fix == UNSAFE:
            row["unsafe_fixes"] += 1
    return sorted(by_rule.values(), key=lambda r: (-r["count"], r["id"]))


def render_statistics(findings, options: RenderOptions | None = None, fmt: str = "concise") -> str:
    rows = statistics(findings, options)
    if fmt == "json":
        return json.dumps(rows, indent=2) + "\n"
    if not rows:
        return ""
    color = bool(options and options.color)
    width = max(len(str(r["count"])) for r in rows)
    symbol_width = max(len(r["symbol"]) for r in rows)
    out = []
    for r in rows:
        fixable = []
        if r["safe_fixes"]:
            fixable.append(f"[*] {r['safe_fixes']} fixable")
        if r["unsafe_fixes"]:
            fixable.append(f"[~] {r['unsafe_fixes']} unsafe-fixable")
        out.append(f"{str(r['count']).rjust(width)}  {paint(r['id'], r['severity'], color)}  "
                   f"{r['symbol'].ljust(symbol_width)}  {r['severity']:7}  {', '.join(fixable)}".rstrip())
    return "\n".join(out) + "\n"


# -- progress --------------------------------------------------------------------------------------------------
class Progress:
    """A one-line progress bar on stderr, shown only on a terminal, only once a run has lasted ``delay``
    seconds (``GRAPHLINT_PROGRESS_DELAY``, default 0.5), and erased when the run ends."""

    def __init__(self, stream=None, enabled: bool | None = None, delay: float | None = None):
        self.stream = stream or sys.stderr
        self.enabled = _isatty(self.stream) if enabled is None else enabled
        if delay is None:
            try:
                delay = float(os.environ.get("GRAPHLINT_PROGRESS_DELAY", "0.5"))
            except ValueError:
                delay = 0.5
        self.delay = delay
        self.started = time.monotonic()
        self.phase = ""
        self.done = 0
        self.total = 0
        self.detail = ""
        self._shown = False
        self._last = 0.0
        self._visited: set[str] = set()
        self._lock = threading.Lock()
        self._ticker: threading.Thread | None = None
        self._ticking = False

    def start(self, phase: str, total: int) -> None:
        self.phase, self.total, self.done, self.detail = phase, total, 0, ""
        self._draw(force=True)

    def advance(self, steps: int = 1, detail: str = "") -> None:
        self.done = min(self.done + steps, self.total) if self.total else self.done + steps
        if detail:
            self.detail = detail
        self._draw()

    def update(self, done: int, detail: str = "") -> None:
        self.done = done
        if detail:
            self.detail = detail
        self._draw()

    def visit(self, phase: str, item: str) -> None:
        """One more step of a phase whose length is not known in advance (files being fixed)."""
        if self.phase != phase:
            self.phase, self.total, self.done = phase, 0, 0
            self._visited = set()
        if item not in self._visited:
            self._visited.add(item)
            self.done = len(self._visited)
        self.detail = item
        self._draw()

    def animate(self, on: bool) -> None:
        """Redraw every 0.2 s from a thread, so that a long step (a validation) still shows time passing."""
        if not self.enabled:
            return
        if on and self._ticker is None:
            self._ticking = True
            self._ticker = threading.Thread(target=self._tick, name="graphlint-progress", daemon=True)
            self._ticker.start()
        elif not on and self._ticker is not None:
            self._ticking = False
            self._ticker.join(timeout=1)
            self._ticker = None

    def _tick(self) -> None:
        while self._ticking:
            time.sleep(0.2)
            if self._ticking and self.phase:
                self._draw(force=True)

    def _draw(self, force: bool = False) -> None:
        if not self.enabled:
            return
        with self._lock:
            self._draw_locked(force)

    def _draw_locked(self, force: bool) -> None:
        now = time.monotonic()
        if now - self.started < self.delay or (not force and now - self._last < 0.1 and self.done < self.total):
            return
        self._last = now
        width = 28
        if self.total:
            filled = int(width * self.done / self.total)
            bar = "#" * filled + "-" * (width - filled)
            count = f"{self.done}/{self.total}"
        else:
            spin = int(now * 8) % width
            bar = "-" * spin + "#" + "-" * (width - spin - 1)
            count = f"{self.done}"
        elapsed = int(now - self.started)
        detail = self.detail
        line = f"graphlint: {self.phase} [{bar}] {count} {elapsed}s"
        room = max(0, _columns(self.stream) - len(line) - 2)
        if detail and room > 8:
            line += " " + (detail if len(detail) <= room else "..." + detail[-(room - 3):])
        try:
            self.stream.write("\r\x1b[2K" + line)
            self.stream.flush()
        except (OSError, ValueError):
            self.enabled = False
            return
        self._shown = True

    def close(self) -> None:
        self.animate(False)
        if self._shown:
            try:
                self.stream.write("\r\x1b[2K")
                self.stream.flush()
            except (OSError, ValueError):
                pass
            self._shown = False


class NoProgress(Progress):
    def __init__(self):
        super().__init__(enabled=False, delay=0)


def _columns(stream) -> int:
    try:
        return os.get_terminal_size(stream.fileno()).columns
    except (AttributeError, OSError, ValueError):
        return 80
