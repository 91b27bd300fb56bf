#!/usr/bin/env python3
"""Measure the coverage matrix (:mod:`graphlint.catalogue.matrix`): compile every cell with MindSpore and write
the outcomes to ``graphlint/catalogue/matrix_measured.json``, which docs/coverage.md is generated from::

    .venv/bin/python scripts/measure_matrix.py                 # every cell
    .venv/bin/python scripts/measure_matrix.py --only del-stmt # the cells of these constructs
    .venv/bin/python scripts/measure_matrix.py --count         # how many cells there are; nothing is compiled

Each cell runs in PYNATIVE_MODE (the reference), GRAPH_MODE at the lax level, under ``jit(fullgraph=True)``
(strict) and, for the constructs about export, exported to MindIR, in graphlint's validation children
(:func:`graphlint.validate.batch.run_programs`). It lives here, not in the catalogue, because measuring runs
MindSpore: the catalogue is read by the linter, which never imports it.
"""

from __future__ import annotations

import argparse
import json
import os
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, ROOT)

from graphlint.catalogue.matrix import MEASURED_PATH, Cell, cells, load_measured  # noqa: E402
from graphlint.validate.batch import run_programs  # noqa: E402
from graphlint.validate.compare import outputs_difference  # noqa: E402


def outcome(reference, run) -> str:
    """"ok", "fails", "diverges" or "crashes" of one run against the PYNATIVE reference."""
    if run.status in ("crashed", "timeout"):
        return "crashes"
    if run.status != "ok":
        return "fails"
    if reference.status == "ok" and outputs_difference(reference.outputs, run.outputs):
        return "diverges"
    return "ok"


def measure(selected: list[Cell], log=None) -> dict:
    """Compile the cells; ``{cell key: {"pynative": ..., "lax": ..., "strict": ..., "export": ..., "error": ...}}``."""
    results = run_programs([cell.job() for cell in selected], log=log)
    measured = {}
    for cell, runs in zip(selected, results):
        reference = runs.get("pynative")
        record = {"pynative": "ok" if reference is not None and reference.status == "ok" else "fails"}
        errors = []
        for level, mode in (("lax", "graph"), ("strict", "strict"), ("export", "mindir")):
            if mode in runs:
                record[level] = outcome(reference, runs[mode])
                if runs[mode].status != "ok":
                    errors.append(f"{level}: {runs[mode].error_type}: {runs[mode].summary}"[:200])
        record["error"] = errors[0] if errors else ""
        measured[cell.key] = record
    return measured


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(prog="scripts/measure_matrix.py", description=__doc__.split("\n\n")[0])
    parser.add_argument("--count", action="store_true", help="print how many cells there are; compile nothing")
    parser.add_argument("--only", nargs="*", default=(), help="construct keys to measure")
    args = parser.parse_args(argv)
    selected = [c for c in cells() if not args.only or c.construct.key in args.only]
    if args.count:
        print(f"{len(selected)} cells")
        return 0
    measured = load_measured()
    measured.update(measure(selected, log=lambda text: print(text, file=sys.stderr)))
    known = {c.key for c in cells()}
    measured = {k: v for k, v in sorted(measured.items()) if k in known}
    with open(MEASURED_PATH + ".part", "w", encoding="utf-8") as handle:
        json.dump(measured, handle, indent=1, sort_keys=True)
        handle.write("\n")
    os.replace(MEASURED_PATH + ".part", MEASURED_PATH)
    print(f"measured {len(selected)} cells; {len(measured)} in {MEASURED_PATH}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
