"""Compile and step time of `for i in range(N)` loops before and after `graphlint --fix`.

For N = 10, 100, 300, 1000 and three bodies (plain, collecting per-step outputs, and with a Tensor `if`),
a Cell carrying a Tensor through the loop is compiled in GRAPH_MODE as written and as rewritten by
graphlint's loop fixer (a `while` on a Tensor counter), and, for comparison, in the best other
non-unrolled form measured: `ops.WhileLoop` (graphlint's display-only suggestion for that `while`; not
offered where the body writes an item, as the collecting form does). Each variant runs in a fresh
process: the first call is compile + run, the median of the next calls is the step time.
Run: ``python benchmarks/fix_compile_time.py [N ...]``.
"""

from __future__ import annotations

import os
import statistics
import sys
import tempfile
import textwrap

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

from graphlint.config import Config  # noqa: E402
from graphlint.run.fix import fix_paths  # noqa: E402
from graphlint.validate.runner import run_job  # noqa: E402

BODIES = {
    "plain": """
        for i in range({n}):
            x = x * 0.5 + 1
    """,
    "collect": """
        outs = []
        for i in range({n}):
            x = x * 0.5 + 1
            outs.append(x)
        x = ops.stack(outs)
    """,
    "tensor-if": """
        for i in range({n}):
            if x.sum() > 0:
                x = x * 0.5
            else:
                x = x + 1
    """,
}

TEMPLATE = """\
import mindspore as ms
from mindspore import nn, ops


class Net(nn.Cell):
    def construct(self, x):
{body}
        return x
"""


def source(body: str, n: int) -> str:
    return TEMPLATE.format(body=textwrap.indent(textwrap.dedent(body.format(n=n)).strip("\n"), " " * 8))


def rewritten(text: str) -> tuple[str, str]:
    with tempfile.TemporaryDirectory() as folder:
        path = os.path.join(folder, "net.py")
        with open(path, "w", encoding="utf-8") as handle:
            handle.write(text)
        report = fix_paths([path], Config(unroll_warn=1), unsafe=True)
        with open(path, encoding="utf-8") as handle:
            fixed = handle.read()
    reasons = "; ".join(r.reason for r in report.refused)
    return fixed, reasons


def while_loop_form(fixed: str) -> str:
    """The `ops.WhileLoop` form graphlint suggests for the rewritten loop ("" if none is offered)."""
    with tempfile.TemporaryDirectory() as folder:
        path = os.path.join(folder, "net.py")
        with open(path, "w", encoding="utf-8") as handle:
            handle.write(fixed)
        report = fix_paths([path], Config(unroll_warn=1), unsafe=True, write=False)
    return next((r.suggested for r in report.refused if "WhileLoop" in r.suggested), "")


def measure(text: str, calls: int = 21) -> tuple[str, float, float]:
    job = {"source": text, "module_name": "bench_net", "entry": "Net", "runs": ["graph"], "calls": calls,
           "inputs": "(Tensor(np.ones((2, 3), np.float32)),)"}
    result = run_job(job, timeout=900)
    run = result["graph"]
    if not run.ok:
        return run.describe()[:60], float("nan"), float("nan")
    return "ok", run.seconds[0], statistics.median(run.seconds[1:])


def main(argv: list[str]) -> int:
    sizes = [int(a) for a in argv] or [10, 100, 300, 1000]
    print(f"{'body':10} {'N':>5} | {'before: compile s':>18} {'step ms':>9} | {'after: compile s':>17} {'step ms':>9} "
          f"| {'compile ratio':>13} {'step ratio':>10} | {'WhileLoop: compile s':>20} {'step ms':>9} "
          f"{'after/WhileLoop step':>20}")
    for name, body in BODIES.items():
        for n in sizes:
            original = source(body, n)
            fixed, reasons = rewritten(original)
            if fixed == original:
                print(f"{name:10} {n:5d} | fixer refused: {reasons}")
                continue
            status_before, compile_before, step_before = measure(original)
            status_after, compile_after, step_after = measure(fixed)
            functional = while_loop_form(fixed)
            status_loop, compile_loop, step_loop = measure(functional) if functional else ("not offered", 0, 0)
            before = (f"{compile_before:18.2f} {step_before * 1000:9.2f}" if status_before == "ok"
                      else f"{'FAILED: ' + status_before[:27]:>28}")
            after = (f"{compile_after:17.2f} {step_after * 1000:9.2f}" if status_after == "ok"
                     else f"{'FAILED: ' + status_after[:26]:>27}")
            ratio = (f"{compile_before / compile_after:12.1f}x {step_before / step_after:9.2f}x"
                     if status_before == "ok" and status_after == "ok" else f"{'-':>13} {'-':>10}")
            loop = (f"{compile_loop:20.2f} {step_loop * 1000:9.2f} {step_after / step_loop:19.2f}x"
                    if status_loop == "ok" and status_after == "ok" else f"{status_loop[:50]:>50}")
            print(f"{name:10} {n:5d} | {before} | {after} | {ratio} | {loop}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
