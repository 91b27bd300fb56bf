"""Fixers: libcst rewrites of findings, one module per rule family they fix.

``FIXERS`` maps a rule symbol to the fixers that rewrite it, tried in order
(the first that offers something for a finding wins: one rule may be fixed
differently for an `if` and a `while`). Each fixer declares its safety: ``safe`` (applied by --fix), ``unsafe`` (only with
--unsafe-fixes) or ``display-only`` (shown, never applied).
"""

from __future__ import annotations

import importlib

FIXER_MODULES = ("statements", "inplace", "branches", "loops", "host_sync", "fallback")


def _load() -> dict:
    found = {}
    for name in FIXER_MODULES:
        try:
            module = importlib.import_module(f"graphlint.fixers.{name}")
        except ModuleNotFoundError as exc:
            if exc.name != f"graphlint.fixers.{name}":
                raise
            continue
        for fixer in module.FIXERS:
            for symbol in fixer.symbols:
                found[symbol] = found.get(symbol, ()) + (fixer,)
    return found


FIXERS = _load()


def fixers_for(symbol: str) -> tuple:
    return FIXERS.get(symbol, ())
