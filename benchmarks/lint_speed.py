"""Lint speed: graphlint vs ``pylint --load-plugins=graphlint`` (Pylint's default checks plus graphlint).

Downloads the sources of mindcv==0.3.0 and mindocr==0.5.0 from PyPI (no
install), lints each with both, and prints files, lines, seconds, lines per
second and the ratio. Run: ``python benchmarks/lint_speed.py``.
"""

from __future__ import annotations

import os
import subprocess
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from corpus import count_lines, fetch, python_files  # noqa: E402

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def timed(command, cwd) -> tuple[float, int]:
    # Both linters import this checkout's graphlint, installed or not.
    env = dict(os.environ, PYTHONPATH=os.pathsep.join(filter(None, [ROOT, os.environ.get("PYTHONPATH")])))
    started = time.perf_counter()
    completed = subprocess.run(command, cwd=cwd, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, env=env)
    elapsed = time.perf_counter() - started
    errors = completed.stderr.decode("utf-8", "replace")
    if "No module named" in errors or "Traceback" in errors or "internal error" in errors:
        raise SystemExit(f"{command[2]} failed: {errors.strip().splitlines()[-1]}")
    return elapsed, completed.returncode


def main() -> int:
    python = sys.executable
    rows = []
    for name in ("mindcv", "mindocr"):
        package = fetch(name)
        root, folder = os.path.split(package)
        files = python_files(package)
        lines = count_lines(files)
        graphlint_s, graphlint_rc = timed([python, "-m", "graphlint.cli", folder], root)
        pylint_s, pylint_rc = timed([python, "-m", "pylint", "--load-plugins=graphlint", "--jobs=1",
                                     "--reports=n", "--score=n", folder], root)
        if graphlint_rc not in (0, 1) or pylint_rc >= 32:
            print(f"{name}: a linter failed (graphlint exit {graphlint_rc}, pylint exit {pylint_rc})")
            return 1
        rows.append((name, len(files), lines, graphlint_s, pylint_s))
    print(f"{'package':10} {'files':>6} {'lines':>7} {'graphlint s':>12} {'lines/s':>9} "
          f"{'pylint+plugin s':>16} {'lines/s':>9} {'ratio':>7}")
    for name, files, lines, graphlint_s, pylint_s in rows:
        print(f"{name:10} {files:6d} {lines:7d} {graphlint_s:12.1f} {lines / graphlint_s:9.0f} "
              f"{pylint_s:16.1f} {lines / pylint_s:9.0f} {pylint_s / graphlint_s:6.1f}x")
    return 0


if __name__ == "__main__":
    sys.exit(main())
