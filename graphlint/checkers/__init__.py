"""Family checkers: one module per rule family, each reporting the rules of its catalogue family."""

from __future__ import annotations

import importlib

from graphlint.analysis.engine import Checker
from graphlint.catalogue import FAMILIES


def _load() -> tuple[type[Checker], ...]:
    found = []
    for family in FAMILIES:
        try:
            module = importlib.import_module(f"graphlint.checkers.{family}")
        except ModuleNotFoundError as exc:
            if exc.name != f"graphlint.checkers.{family}":
                raise
            continue
        found.append(module.CHECKER)
    return tuple(found)


CHECKERS: tuple[type[Checker], ...] = _load()
