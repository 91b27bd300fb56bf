"""Family checkers: one module per rule family, each reporting the rules of its catalogue family.

A checker is registered by listing its module here; a misspelt module is an import error."""

from __future__ import annotations

from graphlint.checkers import (branches, divergence, dynamic_shape, fallback, functional_loops, host_sync, inplace,
                                builtins, loops, parameters, refused, statements, trace)
from graphlint.runner import Checker

CHECKERS: tuple[type[Checker], ...] = (
    statements.CHECKER, divergence.CHECKER, inplace.CHECKER, functional_loops.CHECKER, fallback.CHECKER,
    dynamic_shape.CHECKER, host_sync.CHECKER, branches.CHECKER, loops.CHECKER, refused.CHECKER,
    builtins.CHECKER, parameters.CHECKER, trace.CHECKER,
)
