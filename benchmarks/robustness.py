"""Robustness: graphlint never crashes, and its fixes always parse.

Lints many generated programs -- any valid Python (hypothesmith's grammar and libcst-node strategies),
MindSpore-flavoured graph code, graph expressions in every place an expression is evaluated, and broken
text -- each as a module, inside ``Net.construct`` and inside an ``@ms.jit`` function, with every analysis
query the rules make; runs the fixer on the texts with findings (``fix_paths(..., write=False)``: diff
mode, nothing written; unsafe fixes included unless ``--safe-only``); then lints and fixes the sources of
mindcv and mindocr (benchmarks/corpus.py). Prints the programs tried, the crashes (must be 0) and the
fixed outputs that do not parse (must be 0), with the smallest text of each distinct crash; exits 1
otherwise.

Run: ``python benchmarks/robustness.py [--examples N] [--jobs J] [--seed S] [--no-corpus] [--safe-only]``
(default 10,000 programs, one process per core; about 25 minutes on 2 cores).
"""

from __future__ import annotations

import argparse
import collections
import os
import sys
import tempfile
import time
import traceback
from concurrent.futures import ProcessPoolExecutor

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
for _folder in (HERE, ROOT):
    if _folder not in sys.path:
        sys.path.insert(0, _folder)

# strategy -> share of the examples (hypothesmith's node strategy is ~3x slower to generate)
SHARES = {"grammar": 0.40, "graph": 0.30, "node": 0.10, "expression": 0.10, "broken": 0.10}


def _strategy(name):
    from tests import robustness_support as support

    return {"grammar": support.grammar_programs, "graph": support.graph_programs, "node": support.node_programs,
            "expression": support.expression_programs, "broken": support.broken_programs}[name]()


def _signature(exc: BaseException) -> str:
    """Where a crash comes from: the exception type and the innermost graphlint frame."""
    cause = exc.__cause__ or exc
    frames = [f for f in traceback.extract_tb(cause.__traceback__) if "graphlint" in f.filename
              and "robustness_support" not in f.filename]
    where = f"{os.path.relpath(frames[-1].filename, ROOT)}:{frames[-1].lineno} ({frames[-1].name})" if frames else "?"
    message = str(cause).splitlines()[0][:120] if str(cause) else ""
    return f"{type(cause).__name__} at {where}: {message}"


def run_chunk(name: str, examples: int, seed: int, unsafe: bool = True) -> dict:
    """Lint ``examples`` programs of one strategy in this process; crashes are recorded, never raised."""
    import warnings

    from hypothesis import given
    from hypothesis import seed as hypothesis_seed

    from graphlint.config import Config
    from graphlint.run.fix import fix_paths
    from tests import robustness_support as support

    warnings.simplefilter("ignore")
    stats = collections.Counter()
    crashes: dict[str, str] = {}
    unparsable: dict[str, str] = {}
    folder = tempfile.mkdtemp(prefix="graphlint-robustness-")

    def record(table, key, text):
        if key not in table or len(text) < len(table[key]):
            table[key] = text

    @hypothesis_seed(seed)
    @support.fuzz_settings(examples)
    @given(_strategy(name))
    def one(program):
        stats["programs"] += 1
        for wrapping, wrap in support.WRAPPINGS.items():
            if name == "expression" and wrapping == "module":
                continue  # `return ...` outside a function
            if name == "graph" and wrapping != "module":
                continue  # already graph code: a Cell, helpers, a jit function
            text = wrap(program)
            stats["texts"] += 1
            try:
                kind, findings = support.check_outcome(text)
            except support.Crash as exc:
                stats["crashes"] += 1
                record(crashes, f"[lint] {_signature(exc)}", text)
                continue
            stats[kind] += 1
            if kind != "findings" or not findings:
                continue
            stats["with findings"] += 1
            path = os.path.join(folder, "program.py")
            with open(path, "w", encoding="utf-8", newline="") as handle:
                handle.write(text)
            try:
                report = fix_paths([path], Config(), unsafe=unsafe, write=False)
            except Exception as exc:  # noqa: BLE001 - counted and reported
                stats["crashes"] += 1
                record(crashes, f"[fix] {_signature(exc)}", text)
                continue
            for outcome in report.files:
                if outcome.changed:
                    stats["fixed outputs"] += 1
                    if not support.parses(outcome.after):
                        stats["unparsable fixes"] += 1
                        record(unparsable, f"{sorted({a.symbol for a in outcome.applied})}", text)

    started = time.perf_counter()
    one()
    stats["seconds"] = time.perf_counter() - started
    return {"stats": dict(stats), "crashes": crashes, "unparsable": unparsable}


def run_corpus(names, unsafe: bool = True) -> dict:
    import warnings

    from corpus import fetch, python_files

    from graphlint.config import Config
    from graphlint.run.fix import fix_paths
    from graphlint.lint import lint_paths
    from tests import robustness_support as support

    warnings.simplefilter("ignore")
    stats = collections.Counter()
    crashes, unparsable = {}, {}
    for name in names:
        try:
            package = fetch(name)
        except Exception as exc:  # noqa: BLE001 - no network: say so, do not count as a crash
            print(f"corpus {name}: cannot fetch ({type(exc).__name__}: {exc}); skipped", file=sys.stderr)
            continue
        files = python_files(package)
        stats["corpus files"] += len(files)
        started = time.perf_counter()
        try:
            result = lint_paths([package], Config())
            stats["corpus findings"] += len(result.findings)
            stats["corpus problems"] += len(result.problems)
        except Exception as exc:  # noqa: BLE001
            stats["crashes"] += 1
            crashes[f"[corpus lint {name}] {_signature(exc)}"] = package
        try:
            report = fix_paths([package], Config(), unsafe=unsafe, write=False)
            for outcome in report.files:
                if outcome.changed:
                    stats["fixed outputs"] += 1
                    if not support.parses(outcome.after):
                        stats["unparsable fixes"] += 1
                        unparsable[f"[corpus {name}] {outcome.path}"] = outcome.path
        except Exception as exc:  # noqa: BLE001
            stats["crashes"] += 1
            crashes[f"[corpus fix {name}] {_signature(exc)}"] = package
        # Each file on its own too: a file linted alone takes other paths (no cross-file scope).
        for path in files:
            try:
                lint_paths([path], Config())
            except Exception as exc:  # noqa: BLE001
                stats["crashes"] += 1
                crashes.setdefault(f"[corpus file] {_signature(exc)}", path)
        stats["corpus seconds"] += time.perf_counter() - started
        print(f"corpus {name}: {len(files)} files in {time.perf_counter() - started:.1f}s", file=sys.stderr)
    return {"stats": dict(stats), "crashes": crashes, "unparsable": unparsable}


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--examples", type=int, default=10_000, help="generated programs in all (default 10000)")
    parser.add_argument("--jobs", type=int, default=os.cpu_count() or 1, help="worker processes (default: cores)")
    parser.add_argument("--strategies", default=",".join(SHARES), help=f"comma separated, of {', '.join(SHARES)}")
    parser.add_argument("--seed", type=int, default=0, help="base seed (runs are reproducible)")
    parser.add_argument("--no-corpus", action="store_true", help="skip mindcv/mindocr (they are downloaded once)")
    parser.add_argument("--safe-only", action="store_true", help="run only the safe fixes (default: unsafe ones too)")
    args = parser.parse_args(argv)

    chosen = [s.strip() for s in args.strategies.split(",") if s.strip()]
    unknown = [s for s in chosen if s not in SHARES]
    if unknown:
        parser.error(f"unknown strategies: {', '.join(unknown)}")
    total_share = sum(SHARES[s] for s in chosen)
    chunks = []
    for name in chosen:
        count = max(1, round(args.examples * SHARES[name] / total_share))
        pieces = max(1, min(args.jobs * 2, count // 25))  # several chunks per strategy spread over the workers
        for index in range(pieces):
            size = count // pieces + (1 if index < count % pieces else 0)
            if size:
                chunks.append((name, size, args.seed * 1000 + len(chunks)))

    started = time.perf_counter()
    stats = collections.Counter()
    by_strategy = collections.defaultdict(collections.Counter)
    crashes: dict[str, str] = {}
    unparsable: dict[str, str] = {}

    def merge(result, name=None):
        for key, value in result["stats"].items():
            stats[key] += value
            if name:
                by_strategy[name][key] += value
        for table, found in ((crashes, result["crashes"]), (unparsable, result["unparsable"])):
            for key, text in found.items():
                if key not in table or len(text) < len(table[key]):
                    table[key] = text

    if args.jobs > 1:
        with ProcessPoolExecutor(args.jobs) as pool:
            futures = [(name, pool.submit(run_chunk, name, size, seed, not args.safe_only)) for name, size, seed in chunks]
            corpus = None if args.no_corpus else pool.submit(run_corpus, ("mindcv", "mindocr"), not args.safe_only)
            for name, future in futures:
                merge(future.result(), name)
            if corpus is not None:
                merge(corpus.result())
    else:
        for name, size, seed in chunks:
            merge(run_chunk(name, size, seed, not args.safe_only), name)
        if not args.no_corpus:
            merge(run_corpus(("mindcv", "mindocr"), not args.safe_only))
    elapsed = time.perf_counter() - started

    print(f"{'strategy':12} {'programs':>9} {'texts':>7} {'clean/findings':>15} {'problems':>9} {'crashes':>8} "
          f"{'seconds':>8}")
    for name in chosen:
        row = by_strategy[name]
        print(f"{name:12} {row['programs']:9d} {row['texts']:7d} {row['findings']:15d} {row['problem']:9d} "
              f"{row['crashes']:8d} {row['seconds']:8.1f}")
    if not args.no_corpus:
        print(f"corpus: {stats['corpus files']} files, {stats['corpus findings']} findings, "
              f"{stats['corpus problems']} files not checked, {stats['corpus seconds']:.1f}s")
    print(f"programs tried: {stats['programs']} ({stats['texts']} texts: module, in construct, in @ms.jit)")
    print(f"texts with findings run through the fixer: {stats['with findings']}; fixed outputs: {stats['fixed outputs']}")
    print(f"crashes: {stats['crashes']} ({len(crashes)} distinct)")
    print(f"fixed outputs that fail to parse: {stats['unparsable fixes']}")
    print(f"wall time: {elapsed:.1f}s")
    for key, text in sorted(crashes.items()):
        print(f"\nCRASH {key}\n{text if len(text) < 3000 else text[:3000] + '...'}")
    for key, text in sorted(unparsable.items()):
        print(f"\nUNPARSABLE FIX {key}\n{text if len(text) < 3000 else text[:3000] + '...'}")
    return 1 if stats["crashes"] or stats["unparsable fixes"] else 0


if __name__ == "__main__":
    sys.exit(main())
