"""Each example is compiled with real MindSpore 2.10 in a fresh process; its claim must hold. Where it fails to
compile, `graphlint explain-error` must name the example's rule from MindSpore's own message."""

import pytest

from graphlint.catalogue.model import FAILS, SKIP
from graphlint.explain_error import explain
from graphlint.validate.examples import prove, prove_batch
from tests.examples import all_examples


def _traced_only(param) -> bool:
    example = param.values[2]
    return example.lax == SKIP and (example.trace != SKIP or example.bytecode != SKIP)


@pytest.mark.compile
@pytest.mark.parametrize("rule, kind, example", [param for param in all_examples() if not _traced_only(param)])
def test_example_claim_holds(rule, kind, example):
    verdict = prove(example)
    assert verdict.holds, "\n".join(verdict.problems)
    if kind != "flagged":
        return
    for level, mode in (("lax", "graph"), ("strict", "strict")):
        if getattr(example, level) == FAILS:
            run = verdict.result[mode]
            explained = explain(f"{run.error_type}: {run.message}", source=example.source)
            assert rule in explained.rules, (level, explained.key, [r.symbol for r in explained.rules],
                                             run.message[:300])


@pytest.mark.compile
def test_traced_example_claims_hold():
    """The examples run under ``capture_mode="trace"`` or ``"bytecode"`` only, in one batch process (a trace runs in a fraction of a
    second; importing MindSpore per example would cost ten times that)."""
    params = [param for param in all_examples() if _traced_only(param) and not param.marks]
    verdicts = prove_batch([param.values[2] for param in params])
    wrong = [f"{param.id}: {'; '.join(verdict.problems)}" for param, verdict in zip(params, verdicts)
             if not verdict.holds]
    assert len(params) >= 30 and not wrong, "\n".join(wrong)


def test_an_unclaimed_crash_gets_another_run_and_a_claimed_one_does_not():
    """MindSpore's fallback interpreter now and then aborts on a program that otherwise fails with its message; the
    prover runs such an example again instead of reporting the abort as the example's behaviour."""
    from graphlint.catalogue.model import CRASHES, Example
    from graphlint.validate.examples import Verdict, _crashed_unclaimed

    claims_fails = Example(code="", lax=FAILS, strict=FAILS)
    claims_crash = Example(code="", lax=CRASHES, strict=SKIP)
    aborted = Verdict(lax=CRASHES, strict="not-run", export=SKIP, problems=["lax: claimed fails"], result=None)
    failed = Verdict(lax=FAILS, strict=FAILS, export=SKIP, problems=[], result=None)
    assert _crashed_unclaimed(claims_fails, aborted)
    assert not _crashed_unclaimed(claims_fails, failed)
    assert not _crashed_unclaimed(claims_crash, aborted)
