"""Fixers: libcst rewrites of findings, one module per rule family they fix.

Each fixer registers for Rule objects (``Fixer.rules``) and declares its safety: ``safe`` (applied by --fix),
``unsafe`` (only with --unsafe-fixes) or ``display-only`` (shown, never applied); one rewrite may narrow it
for an instance (``Edit.safety``). A rule may have several fixers, tried in order (the first that offers
something for a finding wins: one rule may be fixed differently for an `if` and a `while`). A fixer module is
registered by listing it here: a misspelt module is an import error.
"""

from __future__ import annotations

from graphlint.catalogue.model import FixSafety, Rule
from graphlint.fixers import (branches, builtins, calls, definitions, divergence, fallback, functional_loops, host_sync,
                              helpers, inplace, joins, loop_counters, loops, parameters, refused, statement_forms,
                              statements)

FIXER_MODULES = (statement_forms, statements, inplace, branches, definitions, loops, functional_loops, host_sync,
                 divergence, fallback, builtins, calls, parameters, joins, helpers, loop_counters, refused)
FIXERS: dict[str, tuple] = {}  # rule id -> its fixers, in order
for _module in FIXER_MODULES:
    for _fixer in _module.FIXERS:
        for _rule in _fixer.rules:
            FIXERS[_rule.id] = FIXERS.get(_rule.id, ()) + (_fixer,)


def fixers_for(rule: Rule) -> tuple:
    return FIXERS.get(rule.id, ())


def fix_safety(rule: Rule) -> FixSafety | None:
    """How safe the rule's main fix is: that of its first fixer (None when nothing fixes it)."""
    fixers = fixers_for(rule)
    return fixers[0].safety if fixers else None
