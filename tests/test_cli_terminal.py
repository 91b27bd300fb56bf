"""The installed ``graphlint`` on a pseudo-terminal: the full format by default, colours (and NO_COLOR), the
summary line and the progress bar, for lint, --fix and --fix --validate runs."""

import os
import re
import sys

import pytest

from tests.support import BROKEN_CELL, CLEAN_CELL, run_in_terminal, write
from tests.test_cli import MIXED_CELL

pytestmark = pytest.mark.skipif(not sys.platform.startswith(("linux", "darwin")), reason="needs a POSIX pty")

COLOUR = re.compile(r"\x1b\[[0-9;]*m")


def terminal_env(**extra):
    env = {k: v for k, v in os.environ.items() if k not in ("NO_COLOR", "FORCE_COLOR")}
    env.update(TERM="xterm", GRAPHLINT_PROGRESS_DELAY="0", GRAPHLINT_NO_CACHE="1")
    env.update(extra)
    return env


def screen(output: str) -> str:
    """What the terminal shows once the run ends: progress lines erased, colours dropped."""
    lines = []
    for line in output.replace("\r\n", "\n").split("\n"):
        line = line.split("\r\x1b[2K")[-1]  # a progress line and its erasure
        lines.append(COLOUR.sub("", line))
    return "\n".join(lines)


def test_full_format_colours_summary_and_progress_on_a_terminal(tmp_path):
    write(tmp_path, "pkg/model.py", MIXED_CELL)
    for index in range(30):
        write(tmp_path, f"pkg/clean_{index}.py", CLEAN_CELL)
    code, output = run_in_terminal("pkg", cwd=tmp_path, env=terminal_env())
    assert code == 1, output
    assert "graphlint: reading [" in output and "graphlint: checking [" in output  # the progress bar ...
    assert "\r\x1b[2K" in output                                                  # ... erased at the end
    assert "\x1b[1;31merror[E5103]\x1b[0m" in output and "\x1b[1;33mwarning[W5301]\x1b[0m" in output
    shown = screen(output)
    assert "warning[W5301] augmented-assign-to-input [*]: `x += ...`" in shown
    assert "  --> pkg/model.py:8:9\n" in shown
    assert "  8 |         x += 1\n    |         ^^^^^^\n" in shown
    assert "  = help: Rebind instead of updating in place" in shown
    assert shown.rstrip().splitlines()[-1] == ("Found 2 errors, 1 warning in 1 file (1 fixable with --fix, "
                                               "2 more with --fix --unsafe-fixes).")
    assert "graphlint: checking" not in shown  # erased


def test_no_color_quiet_and_concise_on_a_terminal(tmp_path):
    write(tmp_path, "model.py", BROKEN_CELL)
    code, output = run_in_terminal("model.py", cwd=tmp_path, env=terminal_env(NO_COLOR="1"))
    assert code == 1 and not COLOUR.search(output), output
    assert "error[E5101] try-in-graph: `try`" in output and "Found 1 error in 1 file." in output
    code, output = run_in_terminal("--quiet", "model.py", cwd=tmp_path, env=terminal_env())
    assert code == 1 and "Found" not in output and "graphlint: " not in output and "error[E5101]" in output
    code, output = run_in_terminal("--output-format", "concise", "--no-progress", "model.py", cwd=tmp_path,
                                   env=terminal_env(NO_COLOR="1"))
    lines = output.replace("\r\n", "\n").strip().splitlines()
    assert lines[0].startswith("model.py:7:9: E5101 try-in-graph ") and lines[1] == "Found 1 error in 1 file."
    write(tmp_path, "clean.py", CLEAN_CELL)
    code, output = run_in_terminal("clean.py", cwd=tmp_path, env=terminal_env())
    assert code == 0
    assert screen(output).strip() == "All checks passed: 1 file checked (7 lines), no findings."
    assert "\x1b[32m" in output  # in green


def test_progress_while_fixing(tmp_path):
    path = write(tmp_path, "model.py", MIXED_CELL)
    code, output = run_in_terminal("--fix", "model.py", cwd=tmp_path, env=terminal_env())
    assert code == 1, output
    assert "graphlint: fixing [" in output and "model.py" in output
    shown = screen(output)
    assert "Found 2 errors in 1 file (2 fixable with --fix --unsafe-fixes)." in shown
    assert "graphlint: 1 fix applied in 1 file, 0 refused, 2 more with --unsafe-fixes" in shown
    assert "x = x + 1" in open(path, encoding="utf-8").read()


@pytest.mark.compile
def test_progress_while_validating(tmp_path):
    write(tmp_path, "pyproject.toml", '[tool.graphlint.validate.inputs]\n"model:Net" = ["float32[2,3]"]\n')
    write(tmp_path, "model.py", MIXED_CELL.replace("        import math\n", "").replace("math.pi", "3.0"))
    code, output = run_in_terminal("--diff", "--validate", "model.py", cwd=tmp_path, env=terminal_env())
    assert code == 1, output
    assert "graphlint: fixing and validating [" in output
    shown = screen(output)
    assert "+        x = x + 1" in shown and "1 fix would be applied in 1 file" in shown


def test_progress_in_bounded_processes(tmp_path):
    """With a memory budget too small for the project (``max-memory`` in [tool.graphlint]): reading, finding graph
    code (a step of unknown length, in a process of its own) and checking, each shown, then erased. --max-memory
    overrides the key: with a budget the project fits in, there is no such step."""
    from tests.test_cli import PADDED_ZOO

    write(tmp_path, "pyproject.toml", "[tool.graphlint]\nmax-memory = 1\n")
    for path, text in PADDED_ZOO.items():
        write(tmp_path, path, text)
    code, output = run_in_terminal("zoo", cwd=tmp_path, env=terminal_env())
    assert code == 1, output
    phases = re.findall(r"graphlint: (reading|finding graph code|checking) \[", output)
    assert sorted(set(phases), key=phases.index) == ["reading", "finding graph code", "checking"]
    shown = screen(output)
    assert "graphlint: " not in shown and shown.rstrip().splitlines()[-1].startswith("Found 2 errors, 2 warnings")
    code, unbounded = run_in_terminal("--max-memory", "100000", "zoo", cwd=tmp_path, env=terminal_env())
    assert code == 1 and "graphlint: checking [" in unbounded and "finding graph code" not in unbounded
    assert screen(unbounded).rstrip().splitlines()[-1] == shown.rstrip().splitlines()[-1]
