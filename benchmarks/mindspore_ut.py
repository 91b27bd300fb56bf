"""Score this checkout's graphlint on MindSpore's own graph-syntax unit tests (the development benchmark).

The benchmark lives beside the repository (../shared/benchmarks/mindspore-ut, or $MS_UT_BENCH): its labels were
made by compiling every test with MindSpore 2.10, and its score.py attributes graphlint's findings to the tests.
Its sources are MindSpore's, not ours, and are not in this repository: when they are missing this script says how
to fetch them. Not part of the test suite (it needs that mirror).

Run: python benchmarks/mindspore_ut.py [--verbose]
The last line is the figure: recall_graph=... recall_strict=... false_error_rate=...
"""

import os
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.dirname(HERE)
DEFAULT_BENCH = os.path.join(os.path.dirname(REPO), "shared", "benchmarks", "mindspore-ut")


def graphlint_command() -> str:
    """This checkout's installed command (the venv of the README's set-up), else the one on PATH."""
    local = os.path.join(REPO, ".venv", "bin", "graphlint")
    return local if os.path.exists(local) else "graphlint"


def main(argv) -> int:
    bench = os.environ.get("MS_UT_BENCH", DEFAULT_BENCH)
    score = os.path.join(bench, "score.py")
    if not os.path.exists(score):
        print(f"mindspore_ut: no benchmark at {bench} (set MS_UT_BENCH)", file=sys.stderr)
        return 2
    sys.path.insert(0, bench)
    from units import SRC  # noqa: E402 - the benchmark's own idea of where its sources are

    if not os.path.isdir(os.path.join(SRC, "tests")):
        print(f"mindspore_ut: the test sources are not at {SRC}: fetch MindSpore's mirror and run "
              f"`python3 {os.path.join(bench, 'fetch_src.py')} GIT_DIR` (see {os.path.join(bench, 'README.md')})",
              file=sys.stderr)
        return 2
    env = dict(os.environ, GRAPHLINT=graphlint_command(), GRAPHLINT_NO_CACHE="1")
    return subprocess.call([sys.executable, score] + list(argv), env=env)


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
