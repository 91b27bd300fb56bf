"""The rule catalogue: every rule graphlint reports, in one place.

Each family module lists its rules (id, symbol, severities, message, docs and
the examples that the tests compile with real MindSpore). The CLI, the Pylint
plugin, the fixers and the generated docs all read :data:`RULES`.
"""

from __future__ import annotations

import importlib

from graphlint.catalogue.model import Example, FixSafety, Level, Rule, Severity

# The order here is the order of the docs and of `graphlint --list-rules`.
FAMILIES = (
    "statements",
    "divergence",
    "inplace",
    "functional_loops",
    "fallback",
    "dynamic_shape",
    "host_sync",
    "branches",
    "loops",
)


def _load() -> tuple[Rule, ...]:
    rules: list[Rule] = []
    for family in FAMILIES:
        try:
            module = importlib.import_module(f"graphlint.catalogue.{family}")
        except ModuleNotFoundError as exc:
            if exc.name != f"graphlint.catalogue.{family}":
                raise
            continue
        rules.extend(module.RULES)
    return tuple(rules)


RULES: tuple[Rule, ...] = _load()
BY_NAME: dict[str, Rule] = {name: rule for rule in RULES for name in rule.names}


def lookup(name: str) -> Rule | None:
    """Find a rule by id (any case) or symbol."""
    return BY_NAME.get(name) or BY_NAME.get(name.upper())


def family_rules(family: str) -> tuple[Rule, ...]:
    return tuple(rule for rule in RULES if rule.family == family)


__all__ = ["Example", "FixSafety", "Level", "Rule", "Severity", "RULES", "BY_NAME", "lookup", "family_rules"]
