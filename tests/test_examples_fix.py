"""Fixers carry their expected rewrites in the catalogue (Fixit's expected replacement): `--fix
--unsafe-fixes` turns each flagged example into its ``fixed`` text, and leaves alone the flagged examples of a
fixable rule that state none. (tests/test_examples_compile.py compiles every ``fixed`` text against the
original's PYNATIVE_MODE outputs.)"""

import pytest

from graphlint.catalogue import RULES
from graphlint.config import Config
from graphlint.docs import example_fix_safety
from graphlint.fixers import fixers_for
from graphlint.run.fix import fix_paths

CASES = [pytest.param(rule, index, example, id=f"{rule.id}-{rule.symbol}-flagged{index}")
         for rule in RULES if fixers_for(rule) for index, example in enumerate(rule.flagged)]


def _lines(text: str) -> list[str]:
    return [line for line in text.splitlines() if line.strip()]  # blank lines carry no behaviour


@pytest.mark.parametrize("rule, index, example", CASES)
def test_fixer_rewrites_the_example_as_stated(rule, index, example, tmp_path):
    path = tmp_path / "example.py"
    path.write_text(example.source)
    report = fix_paths([str(path)], Config(), unsafe=True)
    after = path.read_text()
    if example.fixed:
        assert rule.id in {a.rule for a in report.applied}
        # the docs say which flag applies it: the rewrite's own safety, as --fix decided it
        assert {a.safety for a in report.applied if a.rule == rule.id} == {example_fix_safety(rule, example)}
        assert _lines(after) == _lines(example.fixed_source)
        again = fix_paths([str(path)], Config(), unsafe=True)
        assert not again.applied and path.read_text() == after
    else:
        assert rule.id not in {a.rule for a in report.applied}, after


def test_every_fixable_rule_shows_a_rewrite():
    missing = [rule.symbol for rule in RULES if fixers_for(rule)
               and any(f.safety.value != "display-only" for f in fixers_for(rule))
               and not any(example.fixed for example in rule.flagged)]
    assert missing == []
