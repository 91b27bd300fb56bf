"""Baselines: record today's findings, then report only new ones.

A finding is keyed by its path (relative to the baseline file), its rule and
its normalised source line, not by line number, so unrelated edits above it
do not make it "new". Identical keys are counted.
"""

from __future__ import annotations

import json
import os
from collections import Counter

FORMAT_VERSION = 1


class BaselineError(Exception):
    """An unreadable or malformed baseline file; ``str()`` is the one-line message."""


def _normalised_line(finding, texts: dict[str, str]) -> str:
    text = texts.get(finding.path)
    if text is None:
        try:
            with open(finding.path, "rb") as handle:
                text = handle.read().decode("utf-8", "replace")
        except OSError:
            text = ""
        texts[finding.path] = text
    lines = text.splitlines()
    line = lines[finding.line - 1] if 0 < finding.line <= len(lines) else ""
    return " ".join(line.split())


def _key(finding, base: str, texts) -> tuple[str, str, str]:
    path = os.path.relpath(os.path.abspath(finding.path), base).replace(os.sep, "/")
    return path, finding.rule.id, _normalised_line(finding, texts)


def write_baseline(path: str, findings, texts: dict[str, str] | None = None) -> int:
    base = os.path.dirname(os.path.abspath(path))
    counts = Counter(_key(f, base, dict(texts or {})) for f in findings)
    records = [{"path": p, "rule": r, "line": line, "count": n} for (p, r, line), n in sorted(counts.items())]
    data = json.dumps({"graphlint-baseline": FORMAT_VERSION, "findings": records}, indent=2) + "\n"
    temporary = path + ".tmp"
    with open(temporary, "w", encoding="utf-8") as handle:
        handle.write(data)
    os.replace(temporary, path)
    return len(findings)


def load_baseline(path: str) -> Counter:
    try:
        with open(path, encoding="utf-8") as handle:
            data = json.load(handle)
    except FileNotFoundError:
        raise BaselineError(f"{path}: no such baseline file (create it with --write-baseline)") from None
    except (OSError, ValueError) as exc:
        raise BaselineError(f"{path}: not a graphlint baseline: {exc}") from None
    if not isinstance(data, dict) or data.get("graphlint-baseline") != FORMAT_VERSION:
        raise BaselineError(f"{path}: not a graphlint baseline (version {FORMAT_VERSION})")
    counts = Counter()
    try:
        for record in data["findings"]:
            counts[(record["path"], record["rule"], record["line"])] += int(record.get("count", 1))
    except (KeyError, TypeError, ValueError) as exc:
        raise BaselineError(f"{path}: malformed record: {exc}") from None
    return counts


def new_findings(path: str, findings, texts: dict[str, str] | None = None) -> list:
    """The findings not covered by the baseline at ``path``."""
    remaining = load_baseline(path)
    base = os.path.dirname(os.path.abspath(path))
    cache = dict(texts or {})
    fresh = []
    for finding in findings:
        key = _key(finding, base, cache)
        if remaining[key] > 0:
            remaining[key] -= 1
        else:
            fresh.append(finding)
    return fresh
