"""Each example is compiled with real MindSpore 2.10 in a fresh process; its claim must hold. Where it fails to
compile, `graphlint explain-error` must name the example's rule from MindSpore's own message."""

import pytest

from graphlint.catalogue.model import FAILS
from graphlint.explain_error import explain
from graphlint.validate.examples import prove
from tests.examples import all_examples


@pytest.mark.compile
@pytest.mark.parametrize("rule, kind, example", all_examples())
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
