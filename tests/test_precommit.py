"""The pre-commit hooks, run by real pre-commit against this checkout."""

import os
import subprocess
import sys
import textwrap

import pytest

from tests.support import BROKEN_CELL, CLEAN_CELL, ROOT, write

FIXABLE_CELL = textwrap.dedent("""\
    import mindspore as ms
    from mindspore import nn


    class Net(nn.Cell):
        def construct(self, x):
            x += 1  # GRAPH_MODE would write into the caller's tensor
            return x * 2
    """)


def _git(*args, cwd):
    subprocess.run(["git", *args], cwd=cwd, check=True, capture_output=True)


def _try_repo(hook, files, cwd, home):
    env = dict(os.environ, PRE_COMMIT_HOME=str(home), PRE_COMMIT_COLOR="never")
    return subprocess.run([sys.executable, "-m", "pre_commit", "try-repo", ROOT, hook, "--files", *files],
                          cwd=cwd, env=env, capture_output=True, text=True, timeout=900)


@pytest.mark.skipif(not os.path.isdir(os.path.join(ROOT, ".git")), reason="needs this checkout's git repository")
def test_hooks_check_and_fix(tmp_path):
    project = tmp_path / "project"
    project.mkdir()
    _git("init", "-q", cwd=project)
    _git("config", "user.email", "test@example.invalid", cwd=project)
    _git("config", "user.name", "test", cwd=project)
    write(project, "broken.py", BROKEN_CELL)
    write(project, "clean.py", CLEAN_CELL)
    write(project, "fixable.py", FIXABLE_CELL)
    _git("add", ".", cwd=project)
    home = tmp_path / "pre-commit-home"

    check = _try_repo("graphlint", ["broken.py", "clean.py"], project, home)
    assert check.returncode == 1, check.stdout + check.stderr
    assert "broken.py:7:9: E5101 try-in-graph" in check.stdout
    assert "clean.py" not in check.stdout.replace("Files were modified", "")

    clean = _try_repo("graphlint", ["clean.py"], project, home)
    assert clean.returncode == 0, clean.stdout + clean.stderr

    fix = _try_repo("graphlint-fix", ["fixable.py", "clean.py"], project, home)
    assert fix.returncode == 1, fix.stdout + fix.stderr
    assert "files were modified by this hook" in fix.stdout
    fixed = (project / "fixable.py").read_text()
    assert "x = x + 1  # GRAPH_MODE would write into the caller's tensor" in fixed
    assert (project / "clean.py").read_text() == CLEAN_CELL

    again = _try_repo("graphlint-fix", ["fixable.py", "clean.py"], project, home)
    assert again.returncode == 0, again.stdout + again.stderr


INFO_CELL = textwrap.dedent("""\
    from mindspore import nn


    class Net(nn.Cell):
        def construct(self, x):
            while x.sum() > 1:  # compiles as a run-time loop: I5806, info only
                x = x / 2
            return x
    """)


@pytest.mark.skipif(not os.path.exists(os.path.join(ROOT, ".git")), reason="needs this checkout's git repository")
def test_the_check_hook_follows_the_exit_policy(tmp_path):
    """A file with only an info finding does not block the commit (the default: errors and warnings fail the
    run); `fail-on = "info"` in the project's [tool.graphlint] makes it block."""
    project = tmp_path / "project"
    project.mkdir()
    _git("init", "-q", cwd=project)
    write(project, "loop.py", INFO_CELL)
    _git("add", ".", cwd=project)
    home = tmp_path / "pre-commit-home"
    passes = _try_repo("graphlint", ["loop.py"], project, home)
    assert passes.returncode == 0, passes.stdout + passes.stderr
    write(project, "pyproject.toml", '[tool.graphlint]\nfail-on = "info"\n')
    _git("add", ".", cwd=project)
    fails = _try_repo("graphlint", ["loop.py"], project, home)
    assert fails.returncode == 1, fails.stdout + fails.stderr
    assert "loop.py:6:9: I5806 tensor-condition-control-flow" in fails.stdout
