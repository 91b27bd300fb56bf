"""``graphlint explain-error [LOG|-]``: name the rule that predicts a MindSpore compile error.

Reads a MindSpore error (its message and the "The Traceback of Net Construct Code" section), finds the message
in the table read from MindSpore (:mod:`graphlint.analysis.generated.error_messages`) or, failing that, in the
inventory of every error site of MindSpore's graph frontend (:mod:`graphlint.analysis.generated.error_inventory`),
takes the user's file and line from the traceback (the innermost frame outside MindSpore's own package), lints
that file, and prints the rule reported there (or the rules that predict such a message) with the fix. A message
no rule predicts is named with its class in the inventory (value-dependent, device, internal, no-rule) and why.
Exit status: 0 a rule was named, 1 none predicts this error, 2 bad input.
"""

from __future__ import annotations

import argparse
import bisect
import functools
import os
import re
import sys
from dataclasses import dataclass, field

from graphlint.analysis import torch_habits
from graphlint.analysis.error_location import TRACEBACK as _TRACEBACK
from graphlint.analysis.error_location import Location, error_location
from graphlint.analysis.generated import error_inventory, error_messages
from graphlint.catalogue import BY_NAME, RULES, Rule
from graphlint.catalogue.messages import MESSAGE_RULES, NOT_A_CONSTRUCT, PYTHON_ERRORS
from graphlint.config import Config, config_for

@dataclass
class Explanation:
    message: str = ""  # MindSpore's message, first line
    key: str = ""  # its key in the error-message table
    location: Location | None = None
    rules: list[Rule] = field(default_factory=list)  # the rules that predict it, best first
    reported: list = field(default_factory=list)  # graphlint's findings at the location, of those rules
    note: str = ""  # why no rule predicts it
    kind: str = ""  # the inventory's class of the message (rule, value-dependent, device, internal, no-rule)
    raised_at: str = ""  # where MindSpore raised it, as the log's C++ call stack says (file:line function)
    habits: list = field(default_factory=list)  # the measured PyTorch-style forms that raise this message


def _message_key(text: str) -> tuple[str, str, int]:
    """(key, the message's first line, where it starts) of the first message of the tables found in ``text``."""
    tables = list(error_messages.MESSAGES.items()) + list(error_messages.PYTHON_MESSAGES.items()) + \
        [(key, {"regex": pattern}) for key, (pattern, _) in PYTHON_ERRORS.items()]
    best = None
    code = _code_lines(text)
    for key, entry in tables:
        match = _search(entry["regex"], text, code)
        if match is not None and (best is None or match.start() < best[2]):
            best = (key, match.group(0).splitlines()[0], match.start())
    return best if best else ("", "", -1)


def _inventory_entries(text: str) -> tuple[list, int]:
    """The inventory entries whose message ``text`` holds first (on the earliest line, the most specific; every site
    raising the same message), and where it starts; ([], -1) if none."""
    best, found, start = None, [], -1
    code = _code_lines(text)
    for key, entry in error_inventory.INVENTORY.items():
        match = _search(entry["regex"], text, code)
        if match is None:
            continue
        rank = (_line_of(text, match.start()), -len(entry["template"].split("\n", 1)[0].replace("{}", "")))
        if best is None or rank < best:
            best, found, start = rank, [key], match.start()
        elif rank == best:
            found.append(key)
    return found, start


_FRAME = re.compile(r'^\s*(?:File ".*", line \d+.*|# \d+ In file .*|# In file .*)$', re.M)


def _same_message(key: str, site: str) -> bool:
    """Whether the message-table entry ``key`` also matches the inventory entry ``site``'s message (the table's
    regex is the stricter one: the inventory's values match anything)."""
    entry = error_messages.MESSAGES.get(key) or error_messages.PYTHON_MESSAGES.get(key)
    regex = entry["regex"] if entry else PYTHON_ERRORS.get(key, ("(?!)",))[0]
    return re.search(regex, error_inventory.INVENTORY[site]["template"].replace("{}", "x")) is not None


def _code_lines(text: str) -> set:
    """The lines of ``text`` that quote source code under a traceback frame (Python's `File "...", line N` or
    MindSpore's `# N In file ...`): MindSpore's own `raise XxxError(f"...")` is not the message."""
    return {_line_of(text, frame.end()) + 1 for frame in _FRAME.finditer(text)}


_VALUE = r"[\s\S]*?"  # how the inventory's regexes match an inserted value (line breaks included)
_WINDOW = 4000  # how far past its first words a message is looked for


_AROUND_VALUE = re.compile(r"(?:\\s\*)+(?=" + re.escape(_VALUE) + r")|(?<=" + re.escape(_VALUE) + r")(?:\\s\*)+")
_VALUES_IN_A_ROW = re.compile("(?:" + re.escape(_VALUE) + r"(?:'\?)?){2,}")


def _unambiguous(regex: str) -> str:
    """``regex`` with the optional whitespace next to a value, and values in a row (`value'?value`), folded into
    one value: a value takes any text, so they match the same messages, but each makes a near miss try every way
    of sharing the text among them (`the\\s*VALUE\\s*\\s*'?VALUE` took seconds per line)."""
    folded = _AROUND_VALUE.sub("", regex)
    return _VALUES_IN_A_ROW.sub(lambda run: _VALUE + ("'?" if run.group(0).endswith("'?") else ""), folded)


@functools.lru_cache(maxsize=None)
def _patterns(regex: str) -> tuple:
    """The regex (unambiguous) and the regex of its leading text (up to its first value), compiled."""
    regex = _unambiguous(regex)
    return re.compile(regex), re.compile(regex.split(_VALUE, 1)[0])


def _search(regex: str, text: str, code: set):
    """The first match of ``regex`` in ``text`` that does not start on a quoted source line. A match is tried
    only where the regex's leading text occurs, and within a window: a value that may span lines must not turn
    a long log into a quadratic search."""
    pattern, head = _patterns(regex)
    for start in head.finditer(text):
        if _line_of(text, start.start()) in code:
            continue
        match = pattern.match(text, start.start(), start.start() + _WINDOW)
        if match is not None:
            return match
    return None


def _line_of(text: str, offset: int) -> int:
    return bisect.bisect_right(_line_starts(text), offset) - 1


@functools.lru_cache(maxsize=4)
def _line_starts(text: str) -> list:
    return [0] + [match.end() for match in re.finditer("\n", text)]


def _line_at(text: str, offset: int) -> str:
    start = text.rfind("\n", 0, offset) + 1
    end = text.find("\n", offset)
    return text[start:end if end >= 0 else len(text)].strip()


def explain(text: str, source: str | None = None, *, lint: bool = True) -> Explanation:
    """Explain a MindSpore error. ``source``: the text of the file it names (default: read the file). ``lint=False``:
    the message, location and rules only, for a caller that has the findings already (port mode)."""
    result = Explanation()
    result.key, result.message, start = _message_key(text)
    result.location = error_location(text)
    mapped = MESSAGE_RULES.get(result.key) or PYTHON_ERRORS.get(result.key, (None, ()))[1]
    if isinstance(mapped, str):
        result.note = mapped[len(NOT_A_CONSTRUCT):] if mapped.startswith(NOT_A_CONSTRUCT) else mapped
        mapped = ()
    candidates = _inventory_candidates(result, text, start, [BY_NAME[rule_id] for rule_id in mapped or ()])
    result.raised_at = _raised_at(text)
    if not result.key:
        # A message the tables do not hold (raised from MindSpore's C++ code): the rules that quote it.
        candidates = [rule for rule in RULES if _quoted(rule, text)]
        if candidates:
            result.key = "quoted by the rules"
            result.message = next((line.strip() for line in text.splitlines() if line.strip()), "")
    candidates = _torch_habit_candidates(result, text, candidates)
    # A rule whose MindSpore message (or an example's) appears in the log is the likelier one.
    candidates.sort(key=lambda rule: 0 if _quoted(rule, text) else 1)
    result.rules = candidates
    if lint:
        _add_reported(result, source, candidates)
    return result


# A frame of MindSpore's "C++ Call Stack" section: `mindspore/ccsrc/frontend/jit/ps/parse/parse.cc:999 ParseStatement`.
_CPP_FRAME = re.compile(r"^\s*(?P<file>\S+\.(?:cc|cpp|h)):(?P<line>\d+)(?:[ \t]+(?P<function>\S+))?[ \t]*$", re.M)


def _raised_at(text: str) -> str:
    """Where MindSpore raised the error, from the log's own C++ call stack (its first frame); "" when the log has
    none. The inventory's file and line come from another MindSpore commit: files move (`pipeline/jit/ps` became
    `frontend/jit/ps`), so they are never shown as the place."""
    _, found, stack = text.partition("C++ Call Stack")
    if not found:
        return ""
    frame = _CPP_FRAME.search(stack.split(_TRACEBACK)[0])
    if frame is None:
        return ""
    where = f"{frame.group('file')}:{frame.group('line')}"
    return f"{where} ({frame.group('function')})" if frame.group("function") else where


# The rule reporting the forms of the measured PyTorch-habit table that graph mode refuses.
_TORCH_HABIT_RULE = "torch-habit-refused"


def _torch_habit_candidates(result: Explanation, text: str, candidates: list) -> list:
    """The measured PyTorch-style forms whose message ``text`` holds (generated/torch_habits.py): they name the form
    and the MindSpore spelling to use; the rule reporting them joins the candidates."""
    result.habits = torch_habits.habits_in(text)
    if not result.habits:
        return candidates
    if not result.key:
        result.key = "torch habit"
        result.message = next((line.strip() for line in text.splitlines()
                               if result.habits[0]["error"][:40] in line), result.habits[0]["error"])
    rule = BY_NAME.get(_TORCH_HABIT_RULE)
    # The rule is named where the log quotes a reported form's own message (the same names): "unexpected keyword
    # argument 'x'" may be any call's, "... 'key'" is the measured max(..., key=...).
    exact = [entry for entry in result.habits if entry["error"][:60] in text]
    if rule is not None and any(map(torch_habits.reported, exact)) and rule not in candidates:
        candidates = candidates + [rule]
    return candidates


def _habit_lines(habits: list) -> list:
    """One line per measured form raising the message (the first few), with its spelling."""
    lines = []
    for entry in habits[:4]:
        use = f"; use `{entry['spelling']}`" if entry["spelling"] else "; no MindSpore spelling was measured to match"
        rank = f" (rank {entry['rank']})" if entry["rank"] else ""
        lines.append(f"  PyTorch habit: `{entry['torch']}`{rank}: {entry['verdict']} in graph mode{use}")
    if len(habits) > 4:
        lines.append(f"  ... and {len(habits) - 4} more measured forms (docs/pytorch-habits.md)")
    return lines


def _inventory_candidates(result: Explanation, text: str, start: int, candidates: list) -> list:
    """What the inventory of MindSpore's error sites adds to ``result`` (the message's key, class and where it is
    raised) and to the candidate rules: the candidates."""
    sites, site_start = _inventory_entries(text)
    if sites and (not result.key or _line_of(text, site_start) < _line_of(text, start)):
        # A message only the inventory knows (or one it finds on an earlier line): its class says what it is. On
        # the table's own line the table's key stands (the inventory may match a few words before it).
        entry = error_inventory.INVENTORY[sites[0]]
        result.key, result.message, result.note = sites[0], _line_at(text, site_start), ""
        result.kind = entry["class"]
        candidates = [BY_NAME[rule_id] for rule_id in entry.get("rules", ()) if rule_id in BY_NAME]
        # (and the rules that quote the message: a cut-off log may hide the words that tell the table's entry)
        candidates += [rule for rule in RULES if rule not in candidates and _quoted(rule, text)]
        if not candidates:
            reasons = list(dict.fromkeys(error_inventory.INVENTORY[key]["reason"] for key in sites))
            result.note = "; or ".join(reasons)
    elif sites and _line_of(text, site_start) == _line_of(text, start) and _same_message(result.key, sites[0]):
        # The same message in both tables: the inventory may know more rules whose examples produce it.
        entry = error_inventory.INVENTORY[sites[0]]
        result.kind = entry["class"]
        candidates += [BY_NAME[r] for r in entry.get("rules", ()) if r in BY_NAME and BY_NAME[r] not in candidates]
    return candidates


def _add_reported(result: Explanation, source: str | None, candidates: list) -> None:
    """What graphlint reports where the error points (or anywhere in ``source``, of the candidate rules), the
    first reported rule put first."""
    if result.location is not None:
        result.reported = _findings_at(result.location, source, candidates or None)
    if not result.reported and source is not None and candidates:
        # No traceback to point at a line, or nothing reported there (a function that calls what a Cell passed
        # it fails where it calls; the finding is where the Cell passes it): what graphlint reports anywhere in
        # the source, of those rules.
        result.reported = [f for f in _findings_at(Location("<source>", 1, 10 ** 9), source, candidates)
                           if f.rule in candidates]
        for finding in result.reported:
            if finding.rule not in result.rules:
                result.rules.insert(0, finding.rule)
    if result.reported:
        first = result.reported[0].rule
        result.rules = [first] + [rule for rule in result.rules if rule is not first]


def _quoted(rule: Rule, text: str) -> bool:
    pieces = [rule.mindspore_error.split(": ", 1)[-1][:60]] + [e.error for e in rule.flagged if e.error]
    return any(piece and piece in text for piece in pieces)


def _findings_at(location: Location, source: str | None, rules) -> list:
    # here: linting loads astroid and the analysis, which explaining a message without a file does not need
    from graphlint.run.lint import lint_paths, lint_text

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
    if result.raised_at:
        lines.append(f"  raised by MindSpore's {result.raised_at}")
    if result.reported:
        finding = result.reported[0]
        lines.append(f"  graphlint reports it there: {finding.path}:{finding.line}:{finding.column}: "
                     f"{finding.rule.id} {finding.rule.symbol} {finding.message}")
        lines.append(f"  fix: {finding.rule.fix}")
    elif result.rules:
        lines.append("  predicted by: " + ", ".join(f"{r.id} {r.symbol}" for r in result.rules))
        lines.append(f"  {result.rules[0].id}: {result.rules[0].summary}")
        lines.append(f"  fix: {result.rules[0].fix}")
    elif result.kind and result.kind != "rule":
        lines.append(f"  no graphlint rule predicts it ({result.kind}: {error_inventory.CLASSES[result.kind]})")
        lines.append(f"  why: {result.note}")
    else:
        lines.append(f"  no graphlint rule predicts it: {result.note or 'unknown message'}")
    lines += _habit_lines(result.habits)
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
    return 0 if result.rules or result.habits else 1


if __name__ == "__main__":
    sys.exit(main())
