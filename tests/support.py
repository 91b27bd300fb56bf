"""Helpers shared by the CLI-level tests."""

import os
import subprocess
import sys
import textwrap

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))

BROKEN_CELL = textwrap.dedent("""\
    import mindspore as ms
    from mindspore import nn


    class Net(nn.Cell):
        def construct(self, x):
            try:
                y = x * 2
            except ValueError:
                y = x
            return y
    """)

CLEAN_CELL = textwrap.dedent("""\
    import mindspore as ms
    from mindspore import nn, ops


    class Net(nn.Cell):
        def construct(self, x):
            return ops.relu(x) * 2
    """)


def write(folder, name, text, encoding="utf-8"):
    path = os.path.join(str(folder), name)
    os.makedirs(os.path.dirname(path), exist_ok=True)
    with open(path, "w", encoding=encoding, newline="") as handle:
        handle.write(text)
    return path


def run_cli(*args, cwd=None, env=None):
    """Run the installed command line as a user would, in a subprocess."""
    environment = dict(os.environ if env is None else env)
    environment["PYTHONPATH"] = ROOT + os.pathsep + environment.get("PYTHONPATH", "")
    return subprocess.run([sys.executable, "-m", "graphlint.cli", *args], cwd=cwd, env=environment,
                          capture_output=True, text=True, timeout=600)


def family_helpers(family):
    """(findings, symbols, line_of) for lint-only checker tests of one rule family; sources follow the
    catalogue's example header."""
    from graphlint.catalogue.model import EXAMPLE_HEADER
    from graphlint.config import Config
    from graphlint.lint import lint_text

    def findings(source, family=family):
        text = EXAMPLE_HEADER + textwrap.dedent(source)
        return [f for f in lint_text(text, Config()) if f.rule.family == family]

    def symbols(source):
        return [f.rule.symbol for f in findings(source)]

    def line_of(source, needle):
        text = EXAMPLE_HEADER + textwrap.dedent(source)
        for number, line in enumerate(text.splitlines(), 1):
            if needle in line:
                return number
        raise AssertionError(needle)

    return findings, symbols, line_of
