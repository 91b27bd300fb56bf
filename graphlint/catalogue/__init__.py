"""The rule catalogue: every rule graphlint reports, in one place.

Each family module defines its rules as named constants (id, symbol, severities, message, docs and the examples
that the tests compile with real MindSpore) and lists them in ``RULES``. The checkers report those Rule
objects, the fixers register for them, and the CLI, the Pylint plugin and the generated docs read
:data:`RULES`. A family is registered by importing it here: a misspelt module is an import error.
"""

from __future__ import annotations

from graphlint.catalogue import (branches, bytecode, divergence, dynamic_shape, fallback, functional_loops, host_sync,
                                 inplace, builtins, loops, parameters, refused, statements, trace)
from graphlint.catalogue.model import Example, FixSafety, Level, Rule, Severity

# The order here is the order of the docs and of `graphlint --list-rules`.
FAMILY_MODULES = (statements, divergence, inplace, functional_loops, fallback, dynamic_shape, host_sync, branches,
                  loops, refused, builtins, parameters, trace, bytecode)
FAMILIES: tuple[str, ...] = tuple(module.FAMILY for module in FAMILY_MODULES)
RULES: tuple[Rule, ...] = tuple(rule for module in FAMILY_MODULES for rule in module.RULES)
BY_NAME: dict[str, Rule] = {name: rule for rule in RULES for name in rule.names}


def lookup(name: str) -> Rule | None:
    """Find a rule by id (any case) or symbol."""
    return BY_NAME.get(name) or BY_NAME.get(name.upper())


_BY_FAMILY: dict[str, tuple[Rule, ...]] = {}
for _rule in RULES:
    _BY_FAMILY[_rule.family] = _BY_FAMILY.get(_rule.family, ()) + (_rule,)


def family_rules(family: str) -> tuple[Rule, ...]:
    return _BY_FAMILY.get(family, ())


__all__ = ["Example", "FixSafety", "Level", "Rule", "Severity", "RULES", "BY_NAME", "FAMILIES", "lookup",
           "family_rules"]
