"""The pre-commit hooks, run by real pre-commit against this checkout."""

import os
import shutil
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


@pytest.fixture(scope="module")
def hooks(tmp_path_factory):
    """This checkout as a hook repository, and a pre-commit home shared by the module's tests: pre-commit installs
    the hooks' environment once (both hooks share it), not once per run."""
    folder = tmp_path_factory.mktemp("hooks")
    repository, rev = _hook_repository(folder / "graphlint-hooks")
    return repository, rev, folder / "pre-commit-home"


def _project(folder, hooks) -> str:
    """A git repository at ``folder`` whose .pre-commit-config.yaml uses both hooks of this checkout."""
    repository, rev, _home = hooks
    folder.mkdir()
    _git("init", "-q", cwd=folder)
    _git("config", "user.email", "test@example.invalid", cwd=folder)
    _git("config", "user.name", "test", cwd=folder)
    write(folder, ".pre-commit-config.yaml", f"repos:\n- repo: {repository}\n  rev: {rev}\n  hooks:\n"
                                             f"  - id: graphlint\n  - id: graphlint-fix\n")
    return str(folder)


def _run_on(hook, files, cwd, hooks):
    """`pre-commit run HOOK --files ...`."""
    env = dict(os.environ, PRE_COMMIT_HOME=str(hooks[2]), PRE_COMMIT_COLOR="never")
    return subprocess.run([sys.executable, "-m", "pre_commit", "run", hook, "--files", *files],
                          cwd=cwd, env=env, capture_output=True, text=True, timeout=900)


@pytest.mark.skipif(not os.path.exists(os.path.join(ROOT, ".git")), reason="needs this checkout's git repository")
def test_hooks_check_and_fix(tmp_path, hooks):
    project = tmp_path / "project"
    _project(project, hooks)
    write(project, "broken.py", BROKEN_CELL)
    write(project, "clean.py", CLEAN_CELL)
    write(project, "fixable.py", FIXABLE_CELL)
    _git("add", ".", cwd=project)

    check = _run_on("graphlint", ["broken.py", "clean.py"], project, hooks)
    assert check.returncode == 1, check.stdout + check.stderr
    assert "broken.py:7:9: E5101 try-in-graph" in check.stdout
    assert "clean.py" not in check.stdout.replace("Files were modified", "")

    clean = _run_on("graphlint", ["clean.py"], project, hooks)
    assert clean.returncode == 0, clean.stdout + clean.stderr

    fix = _run_on("graphlint-fix", ["fixable.py", "clean.py"], project, hooks)
    assert fix.returncode == 1, fix.stdout + fix.stderr
    assert "files were modified by this hook" in fix.stdout
    fixed = (project / "fixable.py").read_text()
    assert "x = x + 1  # GRAPH_MODE would write into the caller's tensor" in fixed
    assert (project / "clean.py").read_text() == CLEAN_CELL

    again = _run_on("graphlint-fix", ["fixable.py", "clean.py"], project, hooks)
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
def test_the_check_hook_follows_the_exit_policy(tmp_path, hooks):
    """A file with only an info finding does not block the commit (the default: errors and warnings fail the
    run); `fail-on = "info"` in the project's [tool.graphlint] makes it block."""
    project = tmp_path / "project"
    _project(project, hooks)
    write(project, "loop.py", INFO_CELL)
    _git("add", ".", cwd=project)
    passes = _run_on("graphlint", ["loop.py"], project, hooks)
    assert passes.returncode == 0, passes.stdout + passes.stderr
    write(project, "pyproject.toml", '[tool.graphlint]\nfail-on = "info"\n')
    _git("add", ".", cwd=project)
    fails = _run_on("graphlint", ["loop.py"], project, hooks)
    assert fails.returncode == 1, fails.stdout + fails.stderr
    assert "loop.py:6:9: I5806 tensor-condition-control-flow" in fails.stdout


NET = textwrap.dedent("""\
    from mindspore import nn

    from utils import normalize


    class Net(nn.Cell):
        def construct(self, x):
            return normalize(x)
    """)
CLEAN_UTILS = textwrap.dedent("""\
    def normalize(x):
        return x / x.max()
    """)
HOST_UTILS = textwrap.dedent("""\
    import numpy as np


    def normalize(x):
        scale = np.mean(x.asnumpy())
        return x / scale
    """)


def _hook_repository(folder) -> tuple[str, str]:
    """This checkout's tracked files as they are in the working tree, committed in a repository of their own:
    (its path, the commit). pre-commit installs it once for the module's tests (try-repo would make a new
    commit, so a new environment, on each run)."""
    listed = subprocess.run(["git", "ls-files", "-z"], cwd=ROOT, check=True, capture_output=True, text=True)
    folder.mkdir()
    for name in filter(None, listed.stdout.split("\0")):
        source = os.path.join(ROOT, name)
        if os.path.isfile(source):
            target = folder / name
            target.parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(source, target)
    _git("init", "-q", cwd=folder)
    _git("add", "-A", cwd=folder)
    _git("-c", "user.email=test@example.invalid", "-c", "user.name=test", "commit", "-q", "-m", "hooks", cwd=folder)
    head = subprocess.run(["git", "rev-parse", "HEAD"], cwd=folder, check=True, capture_output=True, text=True)
    return str(folder), head.stdout.strip()


def _run_hook(project, home):
    """`pre-commit run graphlint`, as `git commit` runs it: on the staged files only."""
    env = dict(os.environ, PRE_COMMIT_HOME=str(home), PRE_COMMIT_COLOR="never")
    return subprocess.run([sys.executable, "-m", "pre_commit", "run", "graphlint"],
                          cwd=project, env=env, capture_output=True, text=True, timeout=900)


@pytest.mark.skipif(not os.path.exists(os.path.join(ROOT, ".git")), reason="needs this checkout's git repository")
def test_the_hook_sees_the_project_when_one_file_is_staged(tmp_path, hooks):
    project = tmp_path / "project"
    _project(project, hooks)
    write(project, "net.py", NET)
    write(project, "utils.py", CLEAN_UTILS)
    _git("add", ".", cwd=project)
    _git("commit", "-q", "-m", "a clean model", cwd=project)
    home = hooks[2]

    # only utils.py is staged: its helper is graph code because net.py's construct calls it
    write(project, "utils.py", HOST_UTILS)
    _git("add", "utils.py", cwd=project)
    staged = _run_hook(project, home)
    assert staged.returncode == 1, staged.stdout + staged.stderr
    reached = "(in helper `normalize`, reached from `Net.construct`)"
    assert f"utils.py:5:13: W5502 numpy-call-on-tensor `np.mean(...)` on a NumPy copy of a Tensor" in staged.stdout
    assert f"utils.py:5:21: W5501 asnumpy-in-graph" in staged.stdout and reached in staged.stdout
    # linted on its own, the staged file has no graph code: what the hook did before --project-root
    alone = subprocess.run([sys.executable, "-m", "graphlint.cli", "--no-cache", "utils.py"], cwd=project,
                           capture_output=True, text=True, timeout=300)
    assert alone.returncode == 0 and "W5502" not in alone.stdout, alone.stdout
    _git("commit", "-q", "--no-verify", "-m", "a host copy in the helper", cwd=project)

    # only net.py is staged, and its construct stops calling the helper: nothing of utils.py is graph code now
    write(project, "net.py", NET.replace("return normalize(x)", "return x * 2"))
    _git("add", "net.py", cwd=project)
    unreached = _run_hook(project, home)
    assert unreached.returncode == 0, unreached.stdout + unreached.stderr
    assert "utils.py" not in unreached.stdout
    _git("commit", "-q", "--no-verify", "-m", "no helper", cwd=project)

    # only net.py is staged again, calling the (unchanged, unstaged) helper: the helper its change reaches is reported
    write(project, "net.py", NET)
    _git("add", "net.py", cwd=project)
    reaching = _run_hook(project, home)
    assert reaching.returncode == 1, reaching.stdout + reaching.stderr
    assert "utils.py:5:13: W5502 numpy-call-on-tensor" in reaching.stdout and reached in reaching.stdout
