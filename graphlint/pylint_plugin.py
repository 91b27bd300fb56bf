"""The Pylint plugin: ``pylint --load-plugins=graphlint``.

One Pylint checker per rule family, with the messages of the catalogue. The
findings come from the same lint pipeline as the CLI (:mod:`graphlint.session`),
so both report the same thing and Pylint's ``# pylint: disable=`` applies.
"""

from __future__ import annotations

import os
import sys
from dataclasses import replace

from pylint.checkers import BaseChecker

from graphlint.catalogue import FAMILIES, family_rules
from graphlint.config import Config, ConfigError, config_for
from graphlint.session import LintSession

OPTIONS = (
    ("graphlint-syntax-level", {
        "default": "", "type": "choice", "choices": ["", "lax", "strict"], "metavar": "<lax|strict>",
        "help": "MindSpore syntax level for graphlint severities (default: [tool.graphlint] or lax).",
    }),
)


class _RunState:
    """The lint session shared by all graphlint checkers of one Pylint run."""

    def __init__(self) -> None:
        self.session: LintSession | None = None
        self.configs: dict[str, Config] = {}
        self.level = ""

    def _seed_from_astroid_cache(self) -> None:
        # Pylint parses every file of the run before checking the first one, so astroid's cache
        # holds the whole run: cross-file Cell bases and helpers resolve as in the CLI.
        import astroid

        for module in list(astroid.MANAGER.astroid_cache.values()):
            path = getattr(module, "file", None)
            if not path or not path.endswith(".py") or _is_installed(path):
                continue
            self.session.admit(module, path)

    def findings(self, module, syntax_level: str):
        if self.session is None or syntax_level != self.level:
            self.level = syntax_level
            self.session = LintSession(config_for=self._config)
            self._seed_from_astroid_cache()
        info = self.session.admit(module, module.file) if module.file else None
        return self.session.findings_of(info) if info is not None else []

    def _config(self, path) -> Config:
        folder = os.path.dirname(os.path.abspath(path or "."))
        if folder not in self.configs:
            try:
                self.configs[folder] = config_for(folder)
            except ConfigError as exc:
                print(f"graphlint: {exc}", file=sys.stderr)
                self.configs[folder] = Config()
        config = self.configs[folder]
        if self.level:
            config = replace(config, syntax_level=self.level)
        return config


def _is_installed(path: str) -> bool:
    path = os.path.abspath(path)
    prefixes = {sys.prefix, sys.base_prefix, sys.exec_prefix}
    return "site-packages" in path or "dist-packages" in path or any(
        path.startswith(os.path.join(p, "lib")) for p in prefixes)


def _make_checker(family: str, with_options: bool) -> type[BaseChecker]:
    rules = family_rules(family)

    def visit_module(self, node) -> None:
        state = _state(self.linter)
        level = getattr(self.linter.config, "graphlint_syntax_level", "") or ""
        for finding in state.findings(node, level):
            if finding.rule.family != family:
                continue
            self.add_message(finding.rule.symbol, node=finding.node, line=finding.line,
                             col_offset=finding.column - 1, end_lineno=finding.end_line,
                             end_col_offset=finding.end_column - 1, args=(finding.message,))

    attributes = {
        "name": f"graphlint-{family.replace('_', '-')}",
        "msgs": {rule.id: ("%s", rule.symbol, rule.summary) for rule in rules},
        "options": OPTIONS if with_options else (),
        "visit_module": visit_module,
    }
    return type(f"Graphlint{family.title().replace('_', '')}Checker", (BaseChecker,), attributes)


def _state(linter) -> _RunState:
    state = getattr(linter, "_graphlint_state", None)
    if state is None:
        state = _RunState()
        linter._graphlint_state = state
    return state


CHECKER_CLASSES = tuple(_make_checker(family, index == 0)
                        for index, family in enumerate(f for f in FAMILIES if family_rules(f)))


def register(linter) -> None:
    for checker_class in CHECKER_CLASSES:
        linter.register_checker(checker_class(linter))
