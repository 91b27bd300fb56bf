"""The library's entry points: lint files, directories, standard input or one text, the way the command line
does. The run layer (:mod:`graphlint.run.lint`) decides how the work is done; this module only names it for
callers outside graphlint (tests, benchmarks, scripts, editors)."""

from graphlint.run.lint import (FileProblem, LintResult, LintSession, RECURSION_LIMIT, discover_files,
                                lint_discovered, lint_files, lint_paths, lint_stdin, lint_text, printable)

__all__ = ["FileProblem", "LintResult", "LintSession", "RECURSION_LIMIT", "discover_files", "lint_discovered",
           "lint_files", "lint_paths", "lint_stdin", "lint_text", "printable"]
