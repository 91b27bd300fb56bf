"""``# pylint: disable=...`` for the CLI, with Pylint's own pragma handling.

The CLI does not run Pylint, but suppression must mean exactly what it means
in the Pylint plugin (line, block and ``disable-next`` scopes, ``skip-file``).
So the comments are read by a private, minimal ``PyLinter`` that knows
graphlint's messages; only files that mention "pylint" pay for it.
"""

from __future__ import annotations

import io
import tokenize


class PragmaFilter:
    def __init__(self) -> None:
        self._linter = None

    def _get_linter(self):
        if self._linter is None:
            from pylint.lint import PyLinter
            from pylint.reporters import CollectingReporter

            from graphlint.pylint_plugin import register

            linter = PyLinter(reporter=CollectingReporter())
            register(linter)
            self._linter = linter
        return self._linter

    def apply(self, text: str, module, path: str, findings: list) -> list:
        """The findings that no pragma suppresses."""
        if not findings or "pylint" not in text:
            return findings
        from pylint.utils.file_state import FileState

        linter = self._get_linter()
        linter.set_current_module(module.name or "module", path)
        linter._ignore_file = False
        linter.file_state = FileState(module.name or "module", linter.msgs_store, module)
        try:
            tokens = list(tokenize.generate_tokens(io.StringIO(text).readline))
        except (tokenize.TokenError, SyntaxError, IndentationError):
            return findings
        linter.process_tokens(tokens)
        linter.reporter.messages.clear()
        if linter._ignore_file:
            return []
        return [f for f in findings if linter.is_message_enabled(f.rule.id, f.line)]
