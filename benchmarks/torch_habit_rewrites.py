"""How many of the measured PyTorch habits that have a MindSpore spelling graphlint rewrites (issue 42: >= 70%), and
how many of the forms graph mode refuses, has no CPU kernel for, or computes otherwise a rule reports.

Every form of ``graphlint/analysis/generated/torch_habits.py`` with a measured spelling that is a call on a Tensor
(or a builtin call) is written into a Cell of its own, on a Tensor of the rank it was measured at (a form PYNATIVE_MODE answers with a (values, indices) pair is unpacked, as code
written against PYNATIVE_MODE uses it), and
``graphlint --diff --unsafe-fixes`` is run over all of them at once. A form counts as rewritten when the diff changes
its line. The other forms with a spelling (a container's attribute, ``list.pop`` in ``ops.cat``, ...) are counted
apart, by name, as not generated here.

The second figure writes every such form the same way (a Cell method on a sub-Cell, a container method on the
receiver it was measured with) and counts it as reported when graphlint has a finding on its line.

Run: python benchmarks/torch_habit_rewrites.py [--verbose]
"""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.dirname(HERE)
sys.path.insert(0, REPO)
sys.path.insert(0, os.path.join(REPO, "scripts"))

SHAPES = {1: (6,), 2: (6, 4), 3: (2, 3, 4), 4: (2, 3, 2, 4)}
HEADER = "import mindspore as ms\nfrom mindspore import nn, ops, mint\n\n\nclass Net(nn.Cell):\n    def construct(self, x):\n"
CELL_HEADER = ("import mindspore as ms\nfrom mindspore import nn, ops, mint\n\n\nclass Net(nn.Cell):\n"
               "    def __init__(self):\n        super().__init__()\n        self.sub = nn.Dense(3, 3)\n\n"
               "    def construct(self, x):\n")
WRONG = ("refused", "no CPU kernel", "differs")
RECEIVERS = {"list": "[1, 2, 3]", "tuple": "(1, 2, 3)", "dict": "{'a': 1, 'b': 2}"}  # as scripts/torch_forms.py


from graphlint.analysis.torch_habits import STRUCTURE_ONLY  # noqa: E402 - after the path insert


def forms() -> list[dict]:
    from graphlint.analysis.torch_habits import table

    return [entry for entry in table().values() if entry["spelling"]]


def snippet(entry: dict) -> str | None:
    """A Cell computing the form on a Tensor of its measured rank, the form on the file's line 8; None for a form
    that is not a call on ``t`` or ``x``."""
    torch = entry["torch"]
    if entry["kind"] not in ("tensor method", "function", "builtin") or not re.search(r"\b[tx]\b", torch):
        return None
    shape = SHAPES.get(entry.get("rank") or 2)
    # a form PYNATIVE_MODE answers with a pair (`t.max(1)`) is used as one, as code written against it does
    target = "y, _ = " if entry.get("difference", "").startswith(STRUCTURE_ONLY) else "y = "
    return HEADER + f"        t = ops.ones({shape!r}, ms.float32)\n        {target}{torch}\n        return y\n"


def reported_snippet(entry: dict) -> tuple[str, set] | None:
    """(the module the form was measured in, its Cell's construct as the probe wrote it; the lines a report
    counts at): the line of the form, and for a form that computes otherwise, the line that returns its value."""
    from measure_refused_apis import module_source
    from measure_torch_habits import HabitProbe, probe_body

    item = PROBE_ITEMS.get(entry.get("key", ""))
    if item is None:
        return None
    body = probe_body(item, item["body"])
    source = module_source([(0, HabitProbe(item["key"], body, item["init"]))])
    # without the driver's list of class names, which reads as a builder's (the probe would be taken for a part
    # of another graph): the driver builds each probe and calls it as the top-level graph
    lines = [line for line in source.splitlines() if not line.startswith("PROBES = ")]
    source = "\n".join(lines) + "\n"
    probe_class = next(index for index, text in enumerate(lines) if text.startswith("class Probe000"))
    start = lines.index("    def construct(self, x):", probe_class) + 1  # (0-based index of the body's first line)
    body_lines = body.splitlines()
    call = entry["torch"].split(".", 1)[1] if entry["kind"] in RECEIVERS or entry["kind"] == "str" else entry["torch"]
    form = next((index for index, text in enumerate(body_lines) if call in text), len(body_lines) - 1)
    counted = {start + form + 1}
    if entry["verdict"] == "differs":
        counted.add(start + len(body_lines))  # the return: where the other value leaves the graph
    return source, counted


def _probe_items() -> dict:
    """The forms' probes as scripts/measure_torch_habits.py measured them (scripts/data/torch_forms.json)."""
    with open(os.path.join(REPO, "scripts", "data", "torch_forms.json"), encoding="utf-8") as handle:
        return {item["key"]: item for item in json.load(handle)["forms"]}


PROBE_ITEMS = _probe_items()


def _lint_forms(entries: list[dict], write, options: list[str]) -> tuple[dict, list, str]:
    """Write each form's Cell (``write(entry)``: (text, line) or None) into a folder and run graphlint over it
    with ``options``: ({file name: (entry, line)}, the forms not written, graphlint's output)."""
    written, apart = {}, []
    with tempfile.TemporaryDirectory() as folder:
        for index, entry in enumerate(entries):
            made = write(entry)
            if made is None:
                apart.append(entry["torch"])
                continue
            name = f"form_{index:04d}.py"
            with open(os.path.join(folder, name), "w", encoding="utf-8") as handle:
                handle.write(made[0])
            written[name] = (entry, made[1])
        run = subprocess.run([os.path.join(os.path.dirname(sys.executable), "graphlint"), *options, "--no-cache",
                              "--exit-zero", folder],
                             capture_output=True, text=True, env={**os.environ, "GRAPHLINT_NO_CACHE": "1"})
    if run.returncode not in (0, 1):
        raise SystemExit(f"graphlint failed: {run.stderr.strip()[-400:]}")
    return written, apart, run.stdout


def measure_reported(verbose: bool = False) -> dict:
    entries = [entry for entry in forms_all() if entry["verdict"] in WRONG]
    written, apart, output = _lint_forms(entries, reported_snippet, ["--output-format", "json"])
    findings = json.loads(output or "[]")
    hit = {os.path.basename(f["path"]) for f in findings
           if os.path.basename(f["path"]) in written and f["line"] in written[os.path.basename(f["path"])][1]}
    missing = sorted(f"{written[name][0]['verdict']}: {written[name][0]['torch']} (rank {written[name][0]['rank']})"
                     for name in written if name not in hit)
    if verbose:
        for form in missing:
            print("  not reported:", form)
        for form in apart:
            print("  not written here:", form)
    return {"wrong": len(entries), "written": len(written), "reported": len(hit), "missing": missing}


def forms_all() -> list[dict]:
    from graphlint.analysis.torch_habits import table

    return [{**entry, "key": key} for key, entry in table().items()]


def measure(verbose: bool = False) -> dict:
    entries = forms()
    written, apart, output = _lint_forms(entries, lambda entry: (snippet(entry), 8) if snippet(entry) else None,
                                         ["--diff", "--unsafe-fixes"])
    generated = {name: entry for name, (entry, _line) in written.items()}
    rewritten, written_as = set(), {}
    current = None
    for line in output.splitlines():
        if line.startswith("+++ "):
            current = os.path.basename(line[4:].split()[0])
        elif line.startswith(("-        y = ", "-        y, _ = ")) and current in generated:
            rewritten.add(current)
        elif line.startswith(("+        y = ", "+        y, _ = ")) and current in generated:
            written_as[current] = line.split("= ", 1)[1].strip()
    missing = sorted(f"{generated[name]['torch']} (rank {generated[name].get('rank')})"
                     for name in generated if name not in rewritten)
    # the rewrite is the spelling the table measured (compiled at both levels with PYNATIVE_MODE's result)
    other = sorted(f"{generated[name]['torch']} -> {written_as.get(name)} (measured: {generated[name]['spelling']})"
                   for name in rewritten if written_as.get(name, "").replace(" ", "")
                   != generated[name]["spelling"].replace(" ", ""))
    if verbose:
        for form in missing:
            print("  not rewritten:", form)
        for form in apart:
            print("  not generated:", form)
        for form in other:
            print("  rewritten to another text than the measured spelling:", form)
    return {"with_spelling": len(entries), "generated": len(generated), "rewritten": len(rewritten),
            "not_generated": len(apart), "missing": missing, "not_the_measured_spelling": other}


def main() -> int:
    figures = measure("--verbose" in sys.argv)
    share = figures["rewritten"] / figures["with_spelling"] if figures["with_spelling"] else 0.0
    print(f"forms with a measured spelling: {figures['with_spelling']}; written as a call on a Tensor: "
          f"{figures['generated']}; rewritten by --fix: {figures['rewritten']} = {share:.2f} of all")
    reported = measure_reported("--verbose" in sys.argv)
    print(f"forms graph mode refuses, has no CPU kernel for or computes otherwise: {reported['wrong']}; written as "
          f"a call: {reported['written']}; reported by a rule at their line: {reported['reported']} = "
          f"{reported['reported'] / reported['wrong']:.2f} of all")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
