"""Family checkers: one module per rule family, each reporting the rules of its catalogue family, and
:func:`run_checkers`, which runs them on a module.

A checker is registered by listing its module here; a misspelt module is an import error."""

from __future__ import annotations

from graphlint.checkers import (branches, bytecode, divergence, dynamic_shape, fallback, functional_loops, host_sync,
                                inplace, builtins, loops, parameters, refused, statements, trace)
from graphlint.analysis.engine import Analysis
from graphlint.analysis.project import ModuleInfo
from graphlint.analysis.tree import graph_nodes_kept
from graphlint.config import Config
from graphlint.runner import Checker, Finding, ModuleContext

CHECKERS: tuple[type[Checker], ...] = (
    statements.CHECKER, divergence.CHECKER, inplace.CHECKER, functional_loops.CHECKER, fallback.CHECKER,
    dynamic_shape.CHECKER, host_sync.CHECKER, branches.CHECKER, loops.CHECKER, refused.CHECKER,
    builtins.CHECKER, parameters.CHECKER, trace.CHECKER, bytecode.CHECKER,
)


def run_checkers(info: ModuleInfo, analysis: Analysis, config: Config | None = None) -> list[Finding]:
    """All findings of one module, in source order (pragmas not applied)."""
    config = config or analysis.config
    context = ModuleContext(info, analysis, config)
    graphs = analysis.graph_functions(info)
    if graphs:
        with graph_nodes_kept():
            for checker_class in CHECKERS:
                if not config.family_enabled(checker_class.family):
                    continue
                checker = checker_class(context)
                for graph in graphs:
                    checker.check_function(graph)
    return sorted(context.findings, key=lambda f: f.sort_key)
