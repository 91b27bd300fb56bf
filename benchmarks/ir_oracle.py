"""graphlint's analysis against MindSpore's type inference, on programs nobody wrote for it (issue 39).

Each program is compiled in GRAPH_MODE with its type-inference IR dumped, and the IR is joined with graphlint's
analysis of the same files, function by function and expression by expression (graphlint/oracle.py).
Sets:
  catalogue  the catalogue's clean examples and its fixes' outputs (all compile)
  units      the development benchmark's units that compile at the default level (../shared/benchmarks/
             mindspore-ut; its sources must be fetched, see its README)
  zoo        mindcv models built with create_model, as shipped (wheel from PyPI via benchmarks/corpus.py)

Run: python benchmarks/ir_oracle.py [--set catalogue,units,zoo] [--limit N] [--json FILE] [--most N]
Prints agreement per dimension and the disagreements grouped by class. Needs MindSpore (the [validate] extra).
"""

from __future__ import annotations

import argparse
import glob
import json
import os
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.dirname(HERE)
sys.path.insert(0, REPO)
sys.path.insert(0, HERE)

from graphlint.oracle import Program, measure, report  # noqa: E402

BENCH = os.environ.get("MS_UT_BENCH", os.path.join(os.path.dirname(REPO), "shared", "benchmarks", "mindspore-ut"))
ZOO_MODELS = ("resnet18", "mobilenet_v2_100", "densenet121", "convnext_tiny", "vit_b_32_224", "regnet_x_200mf")


def catalogue_programs(folder: str, limit: int | None = None) -> list[Program]:
    from graphlint.catalogue import RULES

    programs = []
    for rule in RULES:
        examples = [("clean", i, e, e.source) for i, e in enumerate(rule.clean)]
        examples += [("fixed", i, e, e.fixed_source) for i, e in enumerate(rule.flagged) if e.fixed]
        for kind, index, example, source in examples:
            if not example.holds_on(sys.version_info[:2]) or example.trace != "skip" or example.bytecode != "skip":
                continue
            name = f"{rule.id}_{kind}{index}"
            path = os.path.join(folder, f"{name}.py")
            with open(path, "w", encoding="utf-8") as handle:
                handle.write(source)
            programs.append(Program(f"catalogue {name}", [path], {"path": path, "module_name": f"ex_{name}",
                                                                  "entry": example.entry, "inputs": example.inputs}))
    return programs[:limit] if limit else programs


def unit_programs(limit: int | None = None) -> list[Program]:
    sys.path.insert(0, BENCH)
    from units import SRC, all_units  # noqa: E402 - the benchmark's own helpers

    with open(os.path.join(BENCH, "labels.json"), encoding="utf-8") as handle:
        labels = json.load(handle)
    programs = []
    for unit in all_units():
        key = f"{unit['file']}::{unit['name']}" if isinstance(unit, dict) else str(unit)
        label = labels.get(key, {})
        if label.get("graph_lax", {}).get("outcome") != "ok" or label.get("pynative", {}).get("outcome") != "ok":
            continue
        path = os.path.join(SRC, key.split("::")[0])
        programs.append(Program(f"unit {key}", [path], {"call": key.split("::")[1], "path": path,
                                                         "sys_path": [os.path.dirname(path)]}))
    return programs[:limit] if limit else programs


def zoo_programs(folder: str, limit: int | None = None) -> list[Program]:
    from corpus import fetch

    package = fetch("mindcv")
    root = os.path.dirname(package)
    files = sorted(glob.glob(os.path.join(package, "models", "**", "*.py"), recursive=True))
    programs = []
    for model in ZOO_MODELS[:limit] if limit else ZOO_MODELS:
        path = os.path.join(folder, f"zoo_{model}.py")
        with open(path, "w", encoding="utf-8") as handle:
            handle.write(f"from mindcv.models import create_model\n\n\ndef build():\n"
                         f"    return create_model({model!r}, num_classes=10, pretrained=False)\n")
        programs.append(Program(f"mindcv {model}", files, {"path": path, "module_name": f"zoo_{model}",
                                                           "factory": "build", "sys_path": [root],
                                                           "inputs_specs": ["float32[1,3,224,224]"]}))
    return programs


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--set", default="catalogue,units,zoo")
    parser.add_argument("--limit", type=int, default=None, help="at most N programs of each set")
    parser.add_argument("--json", help="write the figures per set to this file")
    parser.add_argument("--most", type=int, default=15, help="disagreement classes listed per set")
    parser.add_argument("--keep", help="keep the IR in this folder; a later run with it joins without compiling")
    args = parser.parse_args(argv)
    figures = {}
    with tempfile.TemporaryDirectory(prefix="graphlint-oracle-src-") as scratch:
        folder = os.path.join(args.keep, "sources") if args.keep else scratch
        os.makedirs(folder, exist_ok=True)
        for name in [s.strip() for s in args.set.split(",") if s.strip()]:
            if name == "catalogue":
                programs = catalogue_programs(folder, args.limit)
            elif name == "units":
                if not os.path.exists(os.path.join(BENCH, "labels.json")):
                    print(f"ir_oracle: no development benchmark at {BENCH}: set skipped", file=sys.stderr)
                    continue
                programs = unit_programs(args.limit)
            elif name == "zoo":
                programs = zoo_programs(folder, args.limit)
            else:
                print(f"ir_oracle: unknown set {name!r}", file=sys.stderr)
                return 2
            print(f"== {name}: {len(programs)} programs", flush=True)
            keep = os.path.join(args.keep, name) if args.keep else None
            tally = measure(programs, log=lambda line: print("  " + line, flush=True), keep=keep)
            print(report(tally, args.most), flush=True)
            figures[name] = {"compiled": tally.compiled, "not_compiled": len(tally.failed), **tally.figures()}
    if args.json:
        with open(args.json, "w", encoding="utf-8") as handle:
            json.dump(figures, handle, indent=1, sort_keys=True)
            handle.write("\n")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
