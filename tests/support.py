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
                y = x.reshape((3, 2))  # may raise: the fallback is behaviour, so --fix leaves it
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


def graphlint_command():
    """The installed ``graphlint`` console script next to this interpreter (``python -m graphlint.cli``
    when the checkout is not installed)."""
    script = os.path.join(os.path.dirname(sys.executable), "graphlint")
    if os.path.isfile(script) and os.access(script, os.X_OK):
        return [script]
    return [sys.executable, "-m", "graphlint.cli"]


def run_graphlint(*args, cwd=None, env=None, stdin=None, timeout=600):
    """Run the installed ``graphlint`` command in a subprocess (text in, text out)."""
    environment = dict(os.environ if env is None else env)
    environment["PYTHONPATH"] = ROOT + os.pathsep + environment.get("PYTHONPATH", "")
    return subprocess.run([*graphlint_command(), *args], cwd=cwd, env=environment, input=stdin,
                          capture_output=True, text=True, timeout=timeout)


def run_in_terminal(*args, cwd=None, env=None, timeout=600, columns=120):
    """Run the installed ``graphlint`` with stdout and stderr on a pseudo-terminal; (exit code, output)."""
    import fcntl
    import pty
    import select
    import struct
    import termios

    environment = dict(os.environ if env is None else env)
    environment["PYTHONPATH"] = ROOT + os.pathsep + environment.get("PYTHONPATH", "")
    environment.setdefault("TERM", "xterm")
    master, slave = pty.openpty()
    fcntl.ioctl(slave, termios.TIOCSWINSZ, struct.pack("HHHH", 40, columns, 0, 0))
    process = subprocess.Popen([*graphlint_command(), *args], cwd=cwd, env=environment, stdin=subprocess.DEVNULL,
                               stdout=slave, stderr=slave, close_fds=True)
    os.close(slave)
    chunks = []
    try:
        while True:
            ready, _, _ = select.select([master], [], [], timeout)
            if not ready:
                process.kill()
                raise TimeoutError(f"graphlint {' '.join(args)} gave no output for {timeout} s")
            try:
                data = os.read(master, 65536)
            except OSError:  # EIO: the child closed the terminal
                break
            if not data:
                break
            chunks.append(data)
    finally:
        os.close(master)
    code = process.wait(timeout=timeout)
    return code, b"".join(chunks).decode("utf-8", "replace")
