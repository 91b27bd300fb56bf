"""Score graphlint on the labelled ports (benchmarks/ports/<name>/): fresh PyTorch-habit ports, labelled by
compiling every construct with MindSpore 2.10 (each folder's LABELS.md is the table; labels.json its
machine-readable form).

labels.json: {"model": "<name>.py", "problems": [{"lines": [..], "what": "...", "lax": "fatal|fallback|diverges|ok",
"strict": "fatal|ok|...", "id": "..."}], "fine": [{"lines": [..], "what": "..."}]}

A problem counts as reported when graphlint reports a finding on one of its lines at the level where it is a
problem: where it is fatal at the default level, an error at the default level; where it fails only at STRICT,
any finding at the default level or an error at --syntax-level strict; where it diverges or falls back, any
finding. An error-severity finding on a line labelled fine is a false error.

Run: python benchmarks/ports.py [NAME ...] [--graphlint PATH] [--verbose]
"""

from __future__ import annotations

import argparse
import glob
import json
import os
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.dirname(HERE)
PORTS = os.path.join(HERE, "ports")


def graphlint_command() -> str:
    local = os.path.join(REPO, ".venv", "bin", "graphlint")
    return local if os.path.exists(local) else "graphlint"


def findings(command: str, path: str, level: str) -> list[dict]:
    completed = subprocess.run([command, "--no-cache", "--exit-zero", "--output-format", "json", "--syntax-level",
                                level, path], capture_output=True, text=True, check=False)
    return json.loads(completed.stdout or "[]")


def _line(finding: dict) -> int:
    return int(finding.get("line") or 0)


def _severity(finding: dict) -> str:
    return str(finding.get("severity", "")).lower()


def findings_of_all(command: str, level: str) -> dict[str, list[dict]]:
    """Every port's findings from one run over the ports folder, by the model's absolute path (each port is linted
    as it is alone: no port imports another)."""
    found: dict[str, list[dict]] = {}
    for finding in findings(command, PORTS, level):
        found.setdefault(os.path.abspath(finding.get("path", "")), []).append(finding)
    return found


def score(folder: str, command: str, verbose: bool = False, linted=None) -> dict:
    """``linted(model, level)``: the model's findings at that level (default: a graphlint run on the model)."""
    with open(os.path.join(folder, "labels.json"), encoding="utf-8") as handle:
        labels = json.load(handle)
    model = os.path.join(folder, labels["model"])
    linted = linted or (lambda path, level: findings(command, path, level))
    lax, strict = linted(model, "lax"), linted(model, "strict")
    reported = 0
    lines_out = []
    for problem in labels["problems"]:
        lines = set(problem["lines"])
        at_lax = [f for f in lax if _line(f) in lines]
        at_strict = [f for f in strict if _line(f) in lines]
        if problem.get("lax") == "fatal":
            hit = any(_severity(f) == "error" for f in at_lax)
        elif problem.get("strict") == "fatal" and problem.get("lax") == "ok":
            hit = bool(at_lax) or any(_severity(f) == "error" for f in at_strict)
        else:
            hit = bool(at_lax)
        reported += hit
        lines_out.append(f"  {'hit ' if hit else 'MISS'} {problem.get('id', '')} lines {sorted(lines)}: "
                         f"{problem['what']} (lax {problem.get('lax')}, strict {problem.get('strict')}); graphlint: "
                         + (", ".join(sorted({f.get("id", "?") for f in at_lax + at_strict})) or "-"))
    # (a line both fine and a problem's, as `x.sort(dim=-1)[0][:, :n]`, is the problem's)
    problem_lines = {line for problem in labels["problems"] for line in problem["lines"]}
    fine_lines = {line for fine in labels.get("fine", []) for line in fine["lines"]} - problem_lines
    false_errors = [f for f in lax if _severity(f) == "error" and _line(f) in fine_lines]
    figures = {"problems": len(labels["problems"]), "reported": reported, "false_errors": len(false_errors)}
    if verbose:
        print("\n".join(lines_out))
        for f in false_errors:
            print(f"  FALSE ERROR line {_line(f)}: {f.get('id')} {f.get('message', '')[:100]}")
    return figures


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("names", nargs="*")
    parser.add_argument("--graphlint", default=graphlint_command())
    parser.add_argument("--verbose", action="store_true")
    args = parser.parse_args(argv)
    folders = sorted(glob.glob(os.path.join(PORTS, "*", "labels.json")))
    total = {"problems": 0, "reported": 0, "false_errors": 0}
    linted = None
    if not args.names:  # (every port: one run over the folder per level)
        everything = {level: findings_of_all(args.graphlint, level) for level in ("lax", "strict")}
        linted = lambda path, level: everything[level].get(os.path.abspath(path), [])  # noqa: E731
    for path in folders:
        folder = os.path.dirname(path)
        name = os.path.basename(folder)
        if args.names and name not in args.names:
            continue
        figures = score(folder, args.graphlint, args.verbose, linted)
        for key in total:
            total[key] += figures[key]
        print(f"{name}: reported {figures['reported']}/{figures['problems']} problems the compiler confirms; "
              f"false errors {figures['false_errors']}", flush=True)
    if total["problems"]:
        print(f"all: reported {total['reported']}/{total['problems']} = {total['reported'] / total['problems']:.2f}; "
              f"false errors {total['false_errors']}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
