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
