"""``graphlint explain-error [LOG|-]``: name the rule that predicts a MindSpore compile error.

Reads a MindSpore error (its message and the "The Traceback of Net Construct Code" section), finds the message
in the table read from MindSpore (:mod:`graphlint.analysis.generated.error_messages`), takes the user's file and
line from the traceback, lints that file, and prints the rule reported there (or the rules that predict such a
message) with the fix. Exit status: 0 a rule was named, 1 none predicts this error, 2 bad input.
"""

from __future__ import annotations

import argparse
import os
import re
import sys
from dataclasses import dataclass, field

from graphlint.analysis.generated import error_messages
from graphlint.catalogue import BY_NAME, RULES, Rule
from graphlint.catalogue.messages import MESSAGE_RULES, NOT_A_CONSTRUCT, PYTHON_ERRORS

_LOCATION = re.compile(r"In file (?P<path>.+?):(?P<line>\d+)(?:~(?P<end>\d+))?(?:, (?P<col>\d+)~\d+)?\s*$", re.M)
_TRACEBACK = "The Traceback of Net Construct Code"


@dataclass
class Location:
    path: str
    line: int
    end_line: int


@dataclass
class Explanation:
    message: str = ""  # MindSpore's message, first line
    key: str = ""  # its key in the error-message table
    location: Location | None = None
    rules: list[Rule] = field(default_factory=list)  # the rules that predict it, best first
    reported: list = field(default_factory=list)  # graphlint's findings at the location, of those rules
    note: str = ""  # why no rule predicts it


def _message_key(text: str) -> tuple[str, str]:
    tables = list(error_messages.MESSAGES.items()) + list(error_messages.PYTHON_MESSAGES.items()) + \
        [(key, {"regex": pattern}) for key, (pattern, _) in PYTHON_ERRORS.items()]
    best = None
    for key, entry in tables:
        match = re.search(entry["regex"], text)
        if match is not None and (best is None or match.start() < best[2]):
            best = (key, match.group(0).splitlines()[0], match.start())
    return (best[0], best[1]) if best else ("", "")


def _location(text: str) -> Location | None:
    """The user's line: the one named right after the message, else the innermost frame of the traceback."""
    head, _, tail = text.partition(_TRACEBACK)
    before_stack = head.split("C++ Call Stack")[0]
    found = list(_LOCATION.finditer(before_stack))
    if not found and tail:
        found = list(_LOCATION.finditer(tail))[-1:]
    if not found:
        found = list(_LOCATION.finditer(text))[-1:]
    if not found:
        return None
    match = found[0]
    line = int(match.group("line"))
    return Location(match.group("path").strip(), line, int(match.group("end") or line))


def explain(text: str, source: str | None = None) -> Explanation:
    """Explain a MindSpore error. ``source``: the text of the file it names (default: read the file)."""
    result = Explanation()
    result.key, result.message = _message_key(text)
    result.location = _location(text)
    mapped = MESSAGE_RULES.get(result.key) or PYTHON_ERRORS.get(result.key, (None, ()))[1]
    if isinstance(mapped, str):
        result.note = mapped[len(NOT_A_CONSTRUCT):] if mapped.startswith(NOT_A_CONSTRUCT) else mapped
        mapped = ()
    candidates = [BY_NAME[rule_id] for rule_id in mapped or ()]
    if not result.key:
        # A message the tables do not hold (raised from MindSpore's C++ code): the rules that quote it.
        candidates = [rule for rule in RULES if _quoted(rule, text)]
        if candidates:
            result.key = "quoted by the rules"
            result.message = next((line.strip() for line in text.splitlines() if line.strip()), "")
    # A rule whose MindSpore message (or an example's) appears in the log is the likelier one.
    candidates.sort(key=lambda rule: 0 if _quoted(rule, text) else 1)
    result.rules = candidates
    if result.location is not None:
        result.reported = _findings_at(result.location, source, candidates or None)
    elif source is not None and candidates:
        # No traceback to point at a line: what graphlint reports anywhere in the source, of those rules.
        result.reported = [f for f in _findings_at(Location("<source>", 1, 10 ** 9), source, candidates)
                           if f.rule in candidates]
        for finding in result.reported:
            if finding.rule not in result.rules:
                result.rules.insert(0, finding.rule)
    if result.reported:
        first = result.reported[0].rule
        result.rules = [first] + [rule for rule in result.rules if rule is not first]
    return result


def _quoted(rule: Rule, text: str) -> bool:
    pieces = [rule.mindspore_error.split(": ", 1)[-1][:60]] + [e.error for e in rule.flagged if e.error]
    return any(piece and piece in text for piece in pieces)


def _findings_at(location: Location, source: str | None, rules) -> list:
    from graphlint.config import Config, config_for
    from graphlint.lint import lint_paths, lint_text

    try:
        if source is not None:
            findings = lint_text(source, Config(), path=location.path)
        elif os.path.isfile(location.path):
            findings = lint_paths([location.path], config_for(location.path)).findings
        else:
            return []
    except Exception:  # noqa: BLE001 - explaining is best effort; the message alone still names rules
        return []
    near = [f for f in findings if location.line <= f.line <= location.end_line]
    # The rules that predict this message first, then whatever else graphlint reports on those lines.
    return sorted(near, key=lambda f: (rules is not None and f.rule not in rules, abs(f.line - location.line),
                                       f.severity.rank * -1, f.column))


def render(result: Explanation) -> str:
    lines = []
    if not result.key:
        return "graphlint: no MindSpore compile error found in the input"
    lines.append(f"MindSpore: {result.message}")
    if result.location is not None:
        lines.append(f"  at {result.location.path}:{result.location.line}")
    if result.reported:
        finding = result.reported[0]
        lines.append(f"  graphlint reports it there: {finding.path}:{finding.line}:{finding.column}: "
                     f"{finding.rule.id} {finding.rule.symbol} {finding.message}")
        lines.append(f"  fix: {finding.rule.fix}")
    elif result.rules:
        lines.append("  predicted by: " + ", ".join(f"{r.id} {r.symbol}" for r in result.rules))
        lines.append(f"  {result.rules[0].id}: {result.rules[0].summary}")
        lines.append(f"  fix: {result.rules[0].fix}")
    else:
        lines.append(f"  no graphlint rule predicts it: {result.note or 'unknown message'}")
    if result.rules:
        lines.append(f"  more: graphlint --explain {result.rules[0].symbol}")
    return "\n".join(lines)


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(prog="graphlint explain-error",
                                     description="Name the graphlint rule that predicts a MindSpore compile error.")
    parser.add_argument("log", nargs="?", default="-", help="a file holding the error, or - for standard input")
    args = parser.parse_args(argv)
    try:
        if args.log == "-":
            text = sys.stdin.read()
        else:
            with open(args.log, encoding="utf-8", errors="replace") as handle:
                text = handle.read()
    except OSError as exc:
        print(f"graphlint: error: {args.log}: {exc.strerror or exc}", file=sys.stderr)
        return 2
    result = explain(text)
    print(render(result))
    if not result.key:
        return 2
    return 0 if result.rules else 1


if __name__ == "__main__":
    sys.exit(main())
