"""The catalogue is well formed: stable, unique ids in Pylint's external range, docs and examples."""

import re
import string

import pytest

from graphlint.catalogue import FAMILIES, RULES, Severity
from graphlint.checkers import CHECKERS

LETTER = {Severity.ERROR: "E", Severity.WARNING: "W", Severity.INFO: "I"}


def test_ids_and_symbols_are_unique():
    ids = [rule.id for rule in RULES]
    symbols = [rule.symbol for rule in RULES]
    assert len(ids) == len(set(ids))
    assert len(symbols) == len(set(symbols))
    numbers = [rule.id[1:] for rule in RULES]
    assert len(numbers) == len(set(numbers)), "the same number under two letters confuses users"


@pytest.mark.parametrize("rule", RULES, ids=lambda r: r.symbol)
def test_rule_shape(rule):
    assert re.fullmatch(r"[EWI]\d{4}", rule.id)
    assert 51 <= int(rule.id[1:3]) <= 99, "Pylint reserves 51-99 for plugins"
    assert rule.id[0] == LETTER[rule.lax], "the id letter is the lax severity"
    assert rule.strict.rank >= rule.lax.rank, "strict is never milder than lax"
    assert re.fullmatch(r"[a-z][a-z0-9]*(-[a-z0-9]+)+", rule.symbol)
    assert rule.family in FAMILIES
    assert rule.summary and rule.why and rule.fix and rule.message
    assert "\n" not in rule.message
    assert rule.flagged, "every rule needs an example that it flags"
    assert rule.clean, "every rule needs an example that it leaves alone"
    assert all(e.title for e in rule.flagged), "flagged examples name their construct for docs/coverage.md"
    assert all(e.lines for e in rule.flagged), "flagged examples state the lines the rule reports"
    assert not any(e.lines or e.fields for e in rule.clean)
    for example in rule.flagged:
        fields = {name for _, name, _, _ in string.Formatter().parse(rule.message) if name}
        assert set(example.fields) <= fields, "stated message fields are fields of the message"


def test_checker_ids_are_one_per_family():
    # Pylint requires every message of one checker to share the two-digit checker id.
    for family in FAMILIES:
        prefixes = {rule.id[1:3] for rule in RULES if rule.family == family}
        assert len(prefixes) <= 1, family
    assert {c.family for c in CHECKERS} >= {r.family for r in RULES}


@pytest.mark.parametrize("rule", RULES, ids=lambda r: r.symbol)
def test_message_fields_are_named(rule):
    fields = [name for _, name, _, _ in string.Formatter().parse(rule.message) if name is not None]
    assert all(name.isidentifier() for name in fields), fields
