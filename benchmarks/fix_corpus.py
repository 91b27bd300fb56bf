"""What `--fix --unsafe-fixes` does to the project's own coverage corpus: the catalogue's flagged examples that
fail GRAPH_MODE or STRICT (or compile and return something else), each a small program with its inputs.

For every failing program the fixer runs without validation (`fix_paths(unsafe=True)`); each changed program
then runs in one child process: the original in PYNATIVE_MODE, and the rewrite in PYNATIVE_MODE, GRAPH_MODE
and STRICT (`mindspore.jit(fullgraph=True)`). It prints

* **fixed**: the rewrite compiles and matches the original's PYNATIVE_MODE outputs at every level the original
  failed at (what `--fix --unsafe-fixes --validate` keeps: validation runs these same modes), as a fraction of
  the failing programs;
* **broken** (must be 0): rewrites that change the PYNATIVE_MODE results, or fail (or diverge) at a level where
  the original compiled and matched: what `--fix` without `--validate` would get wrong;
* the programs left as they were, per rule, and the refusal reasons.

Run: ``python benchmarks/fix_corpus.py [RULE ...] [--verbose] [--matrix | --matrix-only]`` (``--matrix`` adds the
coverage matrix's failing cells, each judged at the levels its measured outcome says it fails at) (about 5 s per changed program on a shared
2-core machine; one child process each, run one after the other: under two minutes in all).

Measured 2026-12-01 (MindSpore 2.10 CPU): 151 failing programs, 42 changed, 42 fixed (27.8 %), broken 0, none
changed but still failing (the figures below tell how it got there). The first run that day found one broken rewrite (`if all(x[0] > 0)` turned into
`ops.where(all(...), ...)`, a Python bool in PYNATIVE_MODE): the select rewrites now refuse such conditions.
The fixes for E5112 (a set in a membership test) and E5111 (a loop `else` without `break`) came later that
day (22 -> 24), then the NumPy fix dropping a `Tensor(...)` around its result (the program that still failed
STRICT: 25). Later, `name = None` before the `if` or loop that first assigns a name (E5801, E5802): 32/151;
with the Tensor-bound loop rewrite registered for E5904 and the `nullcontext()` / `_no_grad()` blocks (E5106):
35/151; with the walrus hoisted (E5108), several-`for` comprehensions as loops (E5113), `match` on values as
an `if` chain (E5109), a lambda in a `for` body as a nested `def` (E6004) and a `class` in graph code moved to
module level (E5105): 42/151 = 27.8 %, broken 0, none changed but still failing.
2026-12-02: with a nested functional-loop body that reads only module globals moved to module level (E5401):
44/151 = 29.1 %, broken 0, none changed but still failing.
2026-12-05 (issue 31, item 1): the catalogue had grown to 190 failing programs, 48 fixed (25.3 %). With the everyday
rewrites (reversed -> slice or descending range; zeros_like / full_like for names and numbers joined under a
Tensor condition; functional loops the primitive cannot compile -> the Python loop it runs, Map -> a tuple of
calls; eval of a constant, classmethod -> staticmethod, a Parameter made in graph code -> its Tensor, a lambda
default -> a module def, asnumpy().shape, Tensor(t); attributes written before read -> locals; duplicate Parameter
names; Tensor-indexed sequences -> ops.stack; dict.pop, run-time dict keys; generators -> tuples, unused async defs;
constant Tensor counters -> ints; loop else with break -> a flag, del items[k], try that only logs or re-raises;
dataclass/namedtuple -> tuples; .tolist(), all()/any(), constant str methods, identity of copies, list.remove of
known items, set defaults, folded big integers, type(x) == Tensor) and one more flagged example (E5101's fixable
form): 115/191 = 60.2 %, broken 0, none changed but still failing. What is left is mostly host state that graph
code freezes by design (random, clock, environ, globals, logging, attribute and container changes between calls:
about 30 programs whose PYNATIVE_MODE outputs no rewrite can keep), None/tuple joins that change outputs, and a few
constructs without a proven rewrite (custom context managers, nonlocal, runtime slices, nested-tuple max/min).
The same day, ``--matrix-only`` (the coverage matrix's 351 failing cells): 187 fixed (53.3 %), broken 0, 2 changed
but still failing (an `.asnumpy()` under a Tensor `if` at STRICT, a computed big integer); then a local set only
measured or tested -> a tuple and an unread `initializer(...)` dropped: those two constructs 16/16, so 203/351
(57.8 %), and with the catalogue 318/542 (58.7 %). Left: host state again (random, get_context, attribute and
Parameter writes), joins of a bool with values or of two dtypes, nested max, sorted over Tensors, str of a Tensor,
a definition in one branch inside a loop.
Later that day (issue 31), with a definition in one branch of a Tensor `if` inside a loop given its zeros before the
outermost loop (E5801), `sorted` of 0-d Tensors -> `ops.sort(ops.stack(...))[0]` (W6102), computed big integers
folded (W6107), unread `.asnumpy()` copies dropped (W5501), imports and classes under an `if` or in a loop moved
to module level (E5103, E5105), `nonlocal` -> a parameter and a returned value (E5107), a `try` whose body cannot
raise unwrapped (E5101) and `max`/`min` of two tuples of 0-d Tensors -> `ops.where` on the lexicographic test
(E6101), with one flagged example more for E5801, E5103, E5105 and W5501: ``--matrix`` gives the catalogue 124/195
(63.6 %), the matrix 265/351 (75.5 %; each of those constructs 8/8 but max_nested 7/8: under a Tensor `if` its
branches then join a tuple with a Tensor, still failing as the original did), 389/546 in all = 71.2 %, broken 0,
one changed but still failing (that cell). Left: host state (random, get_context, attribute and Parameter writes,
globals, logging), joins of a bool with values, of two dtypes, of None (boolop_kinds, branch_dtype,
while_carry_dtype, branch_none), str of a Tensor, NumPy on a Tensor (raises in PYNATIVE_MODE too), returned
dicts and NumPy arrays.
"""

from __future__ import annotations

import collections
import os
import sys
import tempfile
import time
from dataclasses import dataclass

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

from graphlint.catalogue import RULES  # noqa: E402
from graphlint.catalogue.matrix import INPUTS, cells, load_measured  # noqa: E402
from graphlint.catalogue.model import DIVERGES, FAILS, OK, SKIP  # noqa: E402
from graphlint.config import Config  # noqa: E402
from graphlint.run.fix import fix_paths  # noqa: E402
from graphlint.validate.examples import observed  # noqa: E402
from graphlint.validate.runner import run_job  # noqa: E402


def failing_programs(wanted=()):
    """(rule, index, example) for flagged examples claimed to fail or diverge at lax or strict."""
    for rule in RULES:
        if wanted and not {rule.id, rule.symbol, rule.family} & set(wanted):
            continue
        for index, example in enumerate(rule.flagged):
            if example.lax in (FAILS, DIVERGES) or example.strict in (FAILS, DIVERGES):
                yield rule, index, example


@dataclass
class MatrixProgram:
    """A failing cell of the coverage matrix, as the judge reads a catalogue example."""

    source: str
    entry: str
    inputs: str
    lax: str
    strict: str
    timeout: float = 300.0


def failing_cells(wanted=()):
    """(construct key, context, program) for the matrix's cells measured to fail or diverge at lax or strict."""
    measured = load_measured()
    for cell in cells():
        outcome = measured.get(cell.key, {})
        if wanted and cell.construct.key not in wanted:
            continue
        levels = {level: outcome.get(level, SKIP) for level in ("lax", "strict")}
        if not set(levels.values()) & {FAILS, DIVERGES, "crashes"}:
            continue
        claims = {level: (OK if value == "ok" else FAILS if value == "crashes" else value)
                  for level, value in levels.items()}
        yield cell.construct.key, cell.context, MatrixProgram(cell.source, cell.entry, INPUTS, claims["lax"],
                                                              claims["strict"])


def fixed_text(source: str):
    with tempfile.TemporaryDirectory() as folder:
        path = os.path.join(folder, "example.py")
        with open(path, "w", encoding="utf-8") as handle:
            handle.write(source)
        report = fix_paths([path], Config(), unsafe=True)
        with open(path, encoding="utf-8") as handle:
            return handle.read(), report


def judge(example, fixed: str) -> tuple[str, str]:
    """("fixed" | "broken" | "not fixed", why) for one rewritten program."""
    job = {"source": example.source, "fixed_source": fixed, "filename": "example.py",
           "module_name": "graphlint_example", "entry": example.entry, "inputs": example.inputs,
           "runs": ["pynative", "fixed-pynative", "fixed-graph", "fixed-strict"]}
    result = run_job(job, timeout=max(example.timeout, 300.0))
    reference = result["pynative"]
    if not reference.ok:
        return "not fixed", f"the original does not run in PYNATIVE_MODE: {reference.describe()}"
    pynative = observed(reference, result["fixed-pynative"])
    if pynative != OK:
        return "broken", f"PYNATIVE_MODE: the rewrite {pynative} ({result['fixed-pynative'].describe()})"
    levels = {"lax": ("fixed-graph", example.lax), "strict": ("fixed-strict", example.strict)}
    broken, unfixed = [], []
    for level, (mode, claim) in levels.items():
        if claim == SKIP:
            continue
        got = observed(reference, result[mode])
        if claim == OK and got != OK:
            broken.append(f"{level}: compiled before, now {got} ({result[mode].describe()[:160]})")
        elif claim != OK and got != OK:
            unfixed.append(f"{level}: still {got} ({result[mode].describe()[:160]})")
    if broken:
        return "broken", "; ".join(broken)
    if unfixed:
        return "not fixed", "; ".join(unfixed)
    return "fixed", "compiles and matches at every level the original failed"


def main(argv: list[str]) -> int:
    verbose = "--verbose" in argv
    wanted = [a for a in argv if not a.startswith("--")]
    started = time.perf_counter()
    sets = []
    if "--matrix-only" not in argv:
        programs = [(f"{rule.id} {rule.symbol} flagged[{index}]", rule.id, example)
                    for rule, index, example in failing_programs(wanted)]
        sets.append(("failing programs in the catalogue", programs))
    if "--matrix" in argv or "--matrix-only" in argv:
        programs = [(f"matrix {key}@{context}", key, program) for key, context, program in failing_cells(wanted)]
        sets.append(("failing cells of the coverage matrix", programs))
    totals = collections.Counter()
    for title, programs in sets:
        counts = _run(programs, verbose)
        totals.update(counts)
        _print_counts(title, len(programs), counts)
    if len(sets) > 1:
        _print_counts("failing programs in all", sum(len(programs) for _, programs in sets), totals)
    print(f"({time.perf_counter() - started:.0f} s)")
    return 1 if totals["broken"] else 0


def _run(programs, verbose: bool) -> collections.Counter:
    counts = collections.Counter()
    for name, group, example in programs:
        fixed, report = fixed_text(example.source)
        if fixed == example.source:
            counts["unchanged"] += 1
            counts["unchanged " + group] += 1
            for refusal in report.refused:
                counts[f"refusal {refusal.rule}: {refusal.reason[:90]}"] += 1
            continue
        verdict, why = judge(example, fixed)
        counts[verdict] += 1
        print(f"{verdict:9} {name}: {why}", flush=True)
        if verbose or verdict == "broken":
            print("    " + "\n    ".join(fixed.splitlines()[4:]))
    return counts


def _print_counts(title: str, total: int, counts: collections.Counter) -> None:
    print()
    print(f"{total} {title}; --fix --unsafe-fixes changed {total - counts['unchanged']}")
    print(f"fixed (compile and match PYNATIVE_MODE where the original failed, what --validate keeps): "
          f"{counts['fixed']}/{total} = {counts['fixed'] / max(total, 1):.1%}")
    print(f"broken rewrites without --validate: {counts['broken']}")
    print(f"changed but still failing: {counts['not fixed']}")
    untouched = {key[len("unchanged "):]: n for key, n in counts.items() if key.startswith("unchanged ")}
    print(f"left unchanged, per rule or construct: {dict(sorted(untouched.items()))}")
    refusals = collections.Counter({key[len("refusal "):]: n for key, n in counts.items()
                                    if key.startswith("refusal ")})
    if refusals:
        print("most frequent refusals:")
        for reason, count in refusals.most_common(12):
            print(f"  {count:3} {reason}")


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
