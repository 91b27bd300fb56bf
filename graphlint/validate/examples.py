"""Prove a catalogue example's claim by compiling it with real MindSpore."""

from __future__ import annotations

import sys
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass

from graphlint.catalogue.model import CRASHES, DIVERGES, FAILS, OK, SKIP, Example
from graphlint.validate.compare import outputs_difference
from graphlint.validate.runner import JobResult, RunRecord, run_job


@dataclass
class Verdict:
    """What compiling an example showed, level by level."""

    lax: str
    strict: str
    export: str
    problems: list[str]
    result: JobResult
    trace: str = SKIP
    bytecode: str = SKIP

    @property
    def holds(self) -> bool:
        return not self.problems


def example_job(example: Example) -> dict:
    runs = ["pynative"]
    if example.lax != SKIP or example.fixed:
        runs.append("graph")
    for capture in ("trace", "bytecode"):
        if getattr(example, capture) != SKIP:
            runs.append(capture)
    if example.strict != SKIP:
        runs.append("strict")
    if example.export != SKIP:
        runs.append("mindir")
    job = {
        "source": example.source,
        "filename": "example.py",
        "module_name": "graphlint_example",
        "entry": example.entry,
        "inputs": example.inputs,
        "runs": runs,
    }
    if example.fixed:
        # The fixer's rewrite must compile in GRAPH_MODE and give what the original gives in PYNATIVE_MODE.
        job["fixed_source"] = example.fixed_source
        runs += ["fixed-pynative", "fixed-graph"]
    return job


def observed(reference: RunRecord, run: RunRecord) -> str:
    """Classify a run against the PYNATIVE reference."""
    if run.status == "crashed":
        return CRASHES
    if run.status in ("timeout", "not-run"):
        return run.status
    if run.status == "error":
        return FAILS
    if outputs_difference(reference.outputs, run.outputs):
        return DIVERGES
    return OK


def prove(example: Example) -> Verdict:
    verdict = judge(example, run_job(example_job(example), timeout=example.timeout))
    if _crashed_unclaimed(example, verdict):
        # MindSpore's interpreter of fallback code now and then aborts the process on a program that otherwise
        # fails with its message (seen under load); a crash the example does not claim gets one more run.
        verdict = judge(example, run_job(example_job(example), timeout=example.timeout))
    return verdict


def _crashed_unclaimed(example: Example, verdict: Verdict) -> bool:
    """A run crashed where the example claims no crash, or the process died between two runs (a claimed level was
    never reached: seen once under load, after the lax run had failed as claimed)."""
    result = verdict.result
    died = result is not None and result.returncode not in (0, None) and not result.setup_error
    return any((getattr(verdict, level) == CRASHES and getattr(example, level) != CRASHES)
               or (died and getattr(verdict, level) == "not-run" and getattr(example, level) != SKIP)
               for level in ("lax", "strict", "export", "trace", "bytecode"))


def prove_batch(examples: list[Example]) -> list[Verdict]:
    """:func:`prove` for many examples in few processes (one import of MindSpore for all: suits traced examples,
    whose runs take a fraction of a second)."""
    # imported here: the batch runner is only needed for a batch (the catalogue's matrix imports this module)
    from graphlint.validate.batch import run_programs

    jobs = [{**example_job(example), "module_name": f"graphlint_example_{index}"}
            for index, example in enumerate(examples)]
    records = run_programs(jobs, per_program_timeout=max(example.timeout for example in examples))
    verdicts = [judge(example, JobResult(runs, 0)) for example, runs in zip(examples, records)]
    return [prove(example) if _crashed_unclaimed(example, verdict) else verdict
            for example, verdict in zip(examples, verdicts)]


def judge(example: Example, result: JobResult) -> Verdict:
    """What the runs of ``example`` show against its claims."""
    problems: list[str] = []
    reference = result["pynative"]
    if not reference.ok:
        problems.append(f"PYNATIVE_MODE reference did not run: {reference.describe()}")
        return Verdict("?", "?", "?", problems, result)
    seen = {}
    for level, mode in (("lax", "graph"), ("strict", "strict"), ("export", "mindir"), ("trace", "trace"),
                        ("bytecode", "bytecode")):
        claim = getattr(example, level)
        if claim == SKIP:
            seen[level] = SKIP
            continue
        run = result[mode]
        seen[level] = got = observed(reference, run)
        if got != claim:
            detail = run.describe()
            if got == DIVERGES:
                detail = outputs_difference(reference.outputs, run.outputs)
            problems.append(f"{level}: claimed {claim}, observed {got} ({detail})")
        elif claim == FAILS and example.error and (expected := example.strict_error if level == "strict" and
                                                   example.strict_error else example.error) not in run.message:
            problems.append(f"{level}: failed as claimed, but not with {expected!r}: {run.describe()}")
    if example.fixed:
        for mode in ("fixed-pynative", "fixed-graph"):
            run = result[mode]
            got = observed(reference, run)
            if got != OK:
                detail = outputs_difference(reference.outputs, run.outputs) if got == DIVERGES else run.describe()
                problems.append(f"the fixed code in {mode[len('fixed-'):]} mode: {got} ({detail})")
    if example.dynamic_shape:
        graph = result["graph"]
        shapes = [tuple(o.get("shape", ())) for o in graph.outputs if o.get("t") == "tensor"]
        if not graph.ok or len(set(shapes)) < 2:
            problems.append(f"dynamic shape claimed, but GRAPH_MODE output shapes were {shapes}")
    for capture in ("trace", "bytecode"):
        if getattr(example, capture) == DIVERGES and len(reference.outputs) > 1 and not outputs_difference(
                reference.outputs[1:], result[capture].outputs[1:]):
            problems.append(f"{capture}: the second input's output matches PYNATIVE (the divergence must show past "
                            "the first call)")
    return Verdict(seen["lax"], seen["strict"], seen["export"], problems, result, seen["trace"], seen["bytecode"])


def _main(argv: list[str]) -> int:
    """``python -m graphlint.validate.examples [ID|SYMBOL|FAMILY ...]``: prove examples, print verdicts."""
    # imported here: the whole catalogue, for the command only
    from graphlint.catalogue import RULES

    wanted = set(argv)
    chosen = [rule for rule in RULES if not wanted or wanted & {rule.id, rule.symbol, rule.family}]
    jobs = [(rule, kind, index, example) for rule in chosen
            for kind, examples in (("flagged", rule.flagged), ("clean", rule.clean))
            for index, example in enumerate(examples)]
    failed = 0
    with ThreadPoolExecutor(max_workers=2) as pool:
        for (rule, kind, index, example), verdict in zip(jobs, pool.map(lambda job: prove(job[3]), jobs)):
            status = "holds" if verdict.holds else "WRONG"
            failed += not verdict.holds
            print(f"{status:5} {rule.id} {rule.symbol} {kind}[{index}] lax={verdict.lax} "
                  f"strict={verdict.strict} export={verdict.export} trace={verdict.trace}")
            for problem in verdict.problems:
                print(f"      {problem}")
            for mode, run in verdict.result.runs.items():
                if run.status != "ok":
                    print(f"      {mode}: {run.describe()[:300]}")
    print(f"{len(jobs) - failed}/{len(jobs)} examples hold")
    return 1 if failed else 0


if __name__ == "__main__":

    sys.exit(_main(sys.argv[1:]))
