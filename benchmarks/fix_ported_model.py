"""GRAPH_MODE compile time and step time of the bundled half-ported model (examples/ported.py), before and
after `graphlint --fix --unsafe-fixes`.

The model carries two errors only a person can fix (a `try`, E5101, and `gate` defined in one branch, E5801:
the "by hand" edits below remove the `try` and give `gate` a value before the `if`). Four variants, each in
a fresh process (first call = compile + run, then the median of 20 calls), outputs compared with the original
in PYNATIVE_MODE:

* as ported: GRAPH_MODE stops at the `try`;
* the errors fixed by hand, without `--fix` (the `try`, `gate` and the `del` too): the 800-step loop unrolls past
  the call-depth limit; and with `mindspore.set_recursion_limit(20000)`, what compiling it unrolled costs;
* `--fix` with the `try` still there, then by hand: the fixes `--validate` kept as compile pending;
* and `--fix` once more after the hand edits (the `gate` branch becomes a select).

Run: ``python benchmarks/fix_ported_model.py`` (about 15 minutes, most of it compiling the unrolled loop;
MindSpore 2.10 CPU).

Measured 2026-12-01 (2-core shared machine): PYNATIVE_MODE 3067 ms per call; as ported, GRAPH_MODE stops at the
`try`; by hand without --fix, the call-depth limit; unrolled with the raised limit, compile 746.6 s and 307.9 ms
per step; --fix with the `try` still there, then by hand, compile 1.34 s and 158.6 ms per step; --fix again,
1.29 s and 148.7 ms; all three compiled variants match PYNATIVE_MODE.
"""

from __future__ import annotations

import os
import statistics
import sys
import tempfile

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, ROOT)

from graphlint.config import Config  # noqa: E402
from graphlint.run.fix import fix_paths  # noqa: E402
from graphlint.validate.compare import outputs_difference  # noqa: E402
from graphlint.validate.runner import run_job  # noqa: E402

MODEL = os.path.join(ROOT, "examples", "ported.py")
INPUTS = ["float32[4,16]", "float32[4,16]"]
CALLS = 21
BY_HAND = [
    ("        try:  # PyTorch habit: graph code cannot catch exceptions\n            h = self.step(x)\n"
     "        except ValueError:\n            h = x\n", "        h = self.step(x)\n"),
    ("        if h.mean() > 0:\n", "        gate = ops.ones_like(h)\n        if h.mean() > 0:\n"),
]


DELETE = ("        del residual\n", "")  # E5102: graphlint drops it; without --fix a person does
UNROLL = ("import mindspore as ms\n", "import mindspore as ms\n\nms.set_recursion_limit(20000)\n")


def by_hand(text: str, *more) -> str:
    for old, new in BY_HAND + list(more):
        if old not in text:
            raise SystemExit(f"the hand edit no longer applies: {old!r}")
        text = text.replace(old, new)
    return text


def fixed(text: str) -> str:
    with tempfile.TemporaryDirectory() as folder:
        path = os.path.join(folder, "ported.py")
        with open(path, "w", encoding="utf-8") as handle:
            handle.write(text)
        fix_paths([path], Config(), unsafe=True)
        with open(path, encoding="utf-8") as handle:
            return handle.read()


def run(text: str, mode: str) -> dict:
    job = {"source": text, "module_name": "ported", "entry": "PortedDenoiser", "runs": [mode], "calls": CALLS,
           "inputs_specs": INPUTS, "init": {"dim": 16}, "ignore_drive": True}
    return run_job(job, timeout=900)[mode]


def main() -> int:
    with open(MODEL, encoding="utf-8") as handle:
        original = handle.read()
    reference = run(original, "pynative")
    if not reference.ok:
        print(f"the original does not run in PYNATIVE_MODE: {reference.describe()}")
        return 1
    pynative_step = statistics.median(reference.seconds[1:]) * 1000
    print(f"PYNATIVE_MODE, as ported: {pynative_step:.1f} ms per call")
    fixed_with_try = fixed(original)
    variants = [
        ("as ported", original),
        ("errors fixed by hand (try, gate, del), no --fix", by_hand(original, DELETE)),
        ("... and the recursion limit raised so the loop unrolls", by_hand(original, DELETE, UNROLL)),
        ("--fix (try still there), then by hand", by_hand(fixed_with_try)),
        ("... and --fix again", fixed(by_hand(fixed_with_try))),
    ]
    for label, text in variants:
        result = run(text, "graph")
        if not result.ok:
            print(f"GRAPH_MODE, {label}: fails: {result.describe()[:140]}")
            continue
        difference = outputs_difference(reference.outputs[:1], result.outputs[:1])
        compile_s = result.seconds[0]
        step_ms = statistics.median(result.seconds[1:]) * 1000
        verdict = "matches PYNATIVE" if not difference else f"DIFFERS ({difference})"
        print(f"GRAPH_MODE, {label}: compile {compile_s:.2f} s, step {step_ms:.2f} ms, {verdict}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
