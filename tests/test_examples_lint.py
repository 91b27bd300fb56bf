"""Each rule finds its failing examples and stays quiet on its passing ones."""

import pytest

from graphlint.config import Config
from graphlint.lint import lint_text
from tests.examples import all_examples


@pytest.mark.parametrize("rule, kind, example", all_examples())
def test_example_is_linted_as_claimed(rule, kind, example):
    findings = lint_text(example.source, Config())
    symbols = [f.rule.symbol for f in findings]
    if kind == "fails":
        assert rule.symbol in symbols, f"{rule.symbol} not reported; got {symbols}"
    else:
        assert rule.symbol not in symbols, f"{rule.symbol} reported on a passing example: " + \
            "; ".join(f"{f.line}: {f.message}" for f in findings if f.rule is rule)
