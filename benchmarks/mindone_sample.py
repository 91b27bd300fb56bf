"""A seeded, stratified sample of graphlint findings on mindone 0.5.0, checked by compiling reproducers.

Usage:
    python benchmarks/mindone_sample.py [FINDINGS.txt]    # print the sample as JSON lines
    python benchmarks/mindone_sample.py --score [FILE.json] # true/false/unclear counts of the checked sample

FINDINGS.txt is graphlint's concise output (``path:line:col: ID symbol message``). Without it, graphlint
is run on the mindone sources (``graphlint --no-cache --exit-zero --output-format concise <mindone>``).

Sampling scheme (deterministic for the same findings file):

1. Parse every line; group the findings by rule id. Rules are ordered by their number of findings,
   most first, ties by rule id.
2. Proportional share: each rule gets ``floor(SIZE * n_rule / n_total)`` slots (SIZE = 30).
3. At least one per rule while slots remain: walking the rules in the order of step 1, every rule
   that still has 0 slots gets 1, until SIZE slots are given. (With more rules than slots, the rarest
   rules get none.) If slots still remain after every rule has one, they go one at a time to the rule
   with the largest remainder ``SIZE * n_rule / n_total - slots``, ties in the order of step 1.
4. Within a rule, the findings are sorted by (path, line, col) and ``random.Random(SEED).sample`` draws
   that rule's slots; one Random(SEED) (SEED = 29) is shared and consumed in the rule order of step 1.
5. The sample is printed in rule order, each rule's findings by (path, line).

Paths are printed relative to the mindone package folder.

The checked sample lives in ``mindone_sample.json`` (verdicts ``true`` / ``false`` / ``unclear`` /
``unchecked``) with one reproducer per finding in ``mindone_sample_reproducers/NN_<symbol>.py``.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import re
import subprocess
import sys
from collections import defaultdict

SIZE = 30
SEED = 29
HERE = os.path.dirname(os.path.abspath(__file__))
MINDONE = os.path.join(os.path.expanduser("~"), ".cache", "graphlint-corpus", "mindone-0.5.0", "mindone")
LINE = re.compile(r"^(?P<path>.+?):(?P<line>\d+):(?P<col>\d+): (?P<id>[A-Z]\d+) (?P<symbol>\S+) (?P<message>.*)$")


def parse(text: str) -> list[dict]:
    findings = []
    for raw in text.splitlines():
        m = LINE.match(raw.strip())
        if not m:
            continue
        path = m["path"]
        marker = os.sep + "mindone" + os.sep
        if marker in path:
            path = path.split(marker, 1)[1]
        findings.append({"id": m["id"], "symbol": m["symbol"], "path": path.replace(os.sep, "/"),
                         "line": int(m["line"]), "col": int(m["col"]), "message": m["message"]})
    return findings


def allocate(counts: dict[str, int], size: int = SIZE) -> dict[str, int]:
    total = sum(counts.values())
    order = sorted(counts, key=lambda r: (-counts[r], r))
    slots = {r: min(counts[r], size * counts[r] // total) for r in order}
    left = size - sum(slots.values())
    for r in order:
        if left <= 0:
            break
        if slots[r] == 0:
            slots[r] = 1
            left -= 1
    while left > 0:
        open_rules = [r for r in order if slots[r] < counts[r]]
        if not open_rules:
            break
        best = max(open_rules, key=lambda r: (size * counts[r] / total - slots[r], -order.index(r)))
        slots[best] += 1
        left -= 1
    return {r: slots[r] for r in order if slots[r]}


def sample(findings: list[dict], size: int = SIZE, seed: int = SEED) -> list[dict]:
    by_rule: dict[str, list[dict]] = defaultdict(list)
    for f in findings:
        by_rule[f["id"]].append(f)
    slots = allocate({r: len(v) for r, v in by_rule.items()}, size)
    rng = random.Random(seed)
    out = []
    for rule, k in slots.items():
        pool = sorted(by_rule[rule], key=lambda f: (f["path"], f["line"], f["col"]))
        picked = rng.sample(pool, k)
        out.extend(sorted(picked, key=lambda f: (f["path"], f["line"], f["col"])))
    return [{k: f[k] for k in ("id", "symbol", "path", "line", "message")} for f in out]


def run_graphlint() -> str:
    exe = os.path.join(os.path.dirname(sys.executable), "graphlint")
    cmd = [exe] if os.path.exists(exe) else [sys.executable, "-m", "graphlint"]
    cmd += ["--no-cache", "--exit-zero", "--output-format", "concise", MINDONE]
    return subprocess.run(cmd, capture_output=True, text=True, check=True).stdout


def score(path: str) -> str:
    with open(path, encoding="utf-8") as fh:
        records = json.load(fh)
    counts = defaultdict(int)
    for r in records:
        counts[r["verdict"]] += 1
    t, f, u = counts["true"], counts["false"], counts["unclear"]
    share = t / (t + f) if t + f else float("nan")
    line = f"true {t}  false {f}  unclear {u}"
    if counts["unchecked"]:
        line += f"  unchecked {counts['unchecked']}"
    return line + f"  share true {share:.3f} ({t}/{t + f}) of {len(records)} findings"


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("findings", nargs="?", help="graphlint concise output; run graphlint when omitted")
    ap.add_argument("--score", nargs="?", const=os.path.join(HERE, "mindone_sample.json"), metavar="JSON",
                    help="print true/false/unclear counts of the checked sample (default mindone_sample.json)")
    args = ap.parse_args(argv)
    if args.score:
        print(score(args.score))
        return 0
    if args.findings:
        with open(args.findings, encoding="utf-8") as fh:
            text = fh.read()
    else:
        text = run_graphlint()
    for f in sample(parse(text)):
        print(json.dumps(f))
    return 0


if __name__ == "__main__":
    sys.exit(main())
