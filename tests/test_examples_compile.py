"""Each example is compiled with real MindSpore 2.10 in a fresh process; its claim must hold."""

import pytest

from graphlint.validate.examples import prove
from tests.examples import all_examples


@pytest.mark.compile
@pytest.mark.parametrize("rule, kind, example", all_examples())
def test_example_claim_holds(rule, kind, example):
    verdict = prove(example)
    assert verdict.holds, "\n".join(verdict.problems)
