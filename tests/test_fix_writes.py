"""What ``--fix`` writes, and what it says it wrote: a file the user may not write is refused ("read-only: not
fixed"), owner and mode survive every write, and a write that fails is never counted as applied (the summary on
stderr, the findings on stdout and the exit status agree).

The suite runs as root, which may write anything; the permission cases run the command as an unprivileged user
(uid and gid 65534, "nobody"), as a developer on a shared machine would.
"""

import os
import resource
import shutil
import stat
import subprocess
import tempfile
import textwrap

import pytest

from tests.support import ROOT, graphlint_command

NOBODY = 65534
CELL = textwrap.dedent("""\
    from mindspore import nn


    class Net(nn.Cell):
        def construct(self, x):
            x += 1
            return x
    """)  # W5301 at 6:9, with a safe fix: `x = x + 1`
FINDING = "6:9: W5301 augmented-assign-to-input"
NOT_WRITTEN_HEAD = "graphlint: 0 fixes applied in 0 files, 0 refused, 1 fix not written (see above)"

SETPRIV = shutil.which("setpriv")
as_root = pytest.mark.skipif(os.geteuid() != 0 or SETPRIV is None,
                             reason="needs root and setpriv (util-linux), to own files as another user and to run "
                                    "graphlint as that user")


@pytest.fixture
def folder():
    """A folder any user may enter (pytest's tmp_path is private to root)."""
    path = tempfile.mkdtemp(prefix="graphlint-writes-")
    os.chmod(path, 0o777)
    yield path
    for parent, dirnames, _files in os.walk(path):
        for name in dirnames:
            os.chmod(os.path.join(parent, name), 0o755)
    shutil.rmtree(path)


def write_cell(path, mode=0o644, owner=None):
    with open(path, "w", encoding="utf-8") as handle:
        handle.write(CELL)
    os.chmod(path, mode)
    if owner is not None:
        os.chown(path, owner, owner)
    return path


def run_as(uid, *args, cwd, limit_file_size=None):
    """``graphlint ARGS`` in a subprocess, as ``uid`` (None: as we are; else through setpriv, which drops
    every privilege), optionally with files limited to ``limit_file_size`` bytes (a larger write fails, EFBIG)."""

    def limit():
        if limit_file_size is not None:
            resource.setrlimit(resource.RLIMIT_FSIZE, (limit_file_size, limit_file_size))

    user = [] if uid is None else [SETPRIV, f"--reuid={uid}", f"--regid={uid}", "--clear-groups"]
    environment = dict(os.environ, PYTHONPATH=ROOT, HOME=cwd, GRAPHLINT_NO_CACHE="1")
    return subprocess.run([*user, *graphlint_command(), *args], cwd=cwd, env=environment, capture_output=True,
                          text=True, timeout=300, preexec_fn=limit)


def owner_and_mode(path):
    status = os.stat(path)
    return status.st_uid, status.st_gid, stat.S_IMODE(status.st_mode)


def read(path):
    with open(path, encoding="utf-8") as handle:
        return handle.read()


def leftovers(folder):
    return [name for name in os.listdir(folder) if name.startswith(".graphlint-")]


@as_root
def test_a_read_only_file_of_another_user_is_refused_not_replaced(folder):
    """The newcomer's case: a root-owned 0444 file in a folder the user may write. The rename that --fix writes
    with would succeed there, and used to replace the file with one the user owns. With --jobs 2 (four files:
    fixed in two processes) as in one process."""
    outputs = []
    for jobs in ("1", "2"):
        path = write_cell(os.path.join(folder, "a_ro.py"), 0o444)
        others = [write_cell(os.path.join(folder, f"b_{n}.py"), owner=NOBODY) for n in range(3)]
        result = run_as(NOBODY, "--fix", "--jobs", jobs, ".", cwd=folder)
        assert result.returncode == 2, result.stderr
        assert result.stderr.splitlines() == [
            "a_ro.py: read-only: not fixed",
            "graphlint: 3 fixes applied in 3 files, 0 refused, 1 fix not written (see above)"]
        # stdout says what is in the files: the read-only file's finding is still there
        assert [line.split(" W5301")[0] for line in result.stdout.splitlines()] == [
            "a_ro.py:6:9:", "Found 1 warning in 1 file."]
        assert read(path) == CELL and owner_and_mode(path) == (0, 0, 0o444) and leftovers(folder) == []
        assert all("x = x + 1" in read(other) for other in others)
        outputs.append((result.stdout, result.stderr))
        os.unlink(path)
    assert outputs[0] == outputs[1]


@as_root
def test_a_read_only_folder_refuses_a_read_only_file_and_fixes_a_writable_one_in_place(folder):
    """In a folder the user may not write, a file the user may not write either is refused; one the user may
    write is rewritten in place (no temporary file can be made beside it), owner and mode kept."""
    locked = os.path.join(folder, "locked")
    os.mkdir(locked)
    theirs = write_cell(os.path.join(locked, "theirs.py"), 0o644)
    mine = write_cell(os.path.join(locked, "mine.py"), 0o640, owner=NOBODY)
    os.chmod(locked, 0o555)
    result = run_as(NOBODY, "--fix", "--show-fixes", "locked", cwd=folder)
    assert result.returncode == 2, result.stderr
    assert result.stderr.splitlines() == [
        "locked/theirs.py: read-only: not fixed",
        "graphlint: 1 fix applied in 1 file, 0 refused, 1 fix not written (see above)",
        "  fixed   locked/mine.py:6: W5301 augmented-assign-to-input: `x += ...` -> `x = x + ...`",
        "  not written locked/theirs.py:6: W5301 augmented-assign-to-input: `x += ...` -> `x = x + ...`"]
    assert [line.split(" W5301")[0] for line in result.stdout.splitlines()] == [
        "locked/theirs.py:6:9:", "Found 1 warning in 1 file."]
    assert "x = x + 1" in read(mine) and owner_and_mode(mine) == (NOBODY, NOBODY, 0o640)
    assert read(theirs) == CELL and owner_and_mode(theirs) == (0, 0, 0o644)
    assert sorted(os.listdir(locked)) == ["mine.py", "theirs.py"]


@as_root
def test_a_writable_file_of_another_user_keeps_its_owner(folder):
    """A file the user may write but does not own: a new file renamed over it would be the user's; it is
    rewritten in place and stays root's, with its mode."""
    shared = write_cell(os.path.join(folder, "shared.py"), 0o666)
    result = run_as(NOBODY, "--fix", "shared.py", cwd=folder)
    assert result.returncode == 0, result.stderr
    assert result.stderr == "graphlint: 1 fix applied in 1 file, 0 refused\n"
    assert result.stdout.startswith("All checks passed")
    assert "x = x + 1" in read(shared) and owner_and_mode(shared) == (0, 0, 0o666) and leftovers(folder) == []


@as_root
def test_root_keeps_owner_and_mode_when_it_fixes_a_users_file(folder):
    """Root fixing a user's files (a CI container, sudo): the renamed file gets the old one's owner, group and
    mode, executable bits included; a file with a second hard link is rewritten in place, so both names see
    the fix."""
    script = write_cell(os.path.join(folder, "script.py"), 0o750, owner=NOBODY)
    linked = write_cell(os.path.join(folder, "linked.py"), 0o600, owner=NOBODY)
    os.link(linked, os.path.join(folder, "other_name.py.txt"))
    result = run_as(None, "--fix", "script.py", "linked.py", cwd=folder)
    assert result.returncode == 0, result.stderr
    assert result.stderr == "graphlint: 2 fixes applied in 2 files, 0 refused\n"
    assert owner_and_mode(script) == (NOBODY, NOBODY, 0o750) and "x = x + 1" in read(script)
    assert owner_and_mode(linked) == (NOBODY, NOBODY, 0o600)
    assert read(os.path.join(folder, "other_name.py.txt")) == read(linked) != CELL
    assert leftovers(folder) == []


def test_a_write_that_fails_is_not_counted_as_applied(folder):
    """A write that fails after every check passed (here: the new text is larger than the size limit put on the
    process, EFBIG): one line says why, the summary counts no fix applied, stdout shows the finding still in
    the file, the exit status is 2, and no temporary file is left. --quiet keeps that line."""
    path = write_cell(os.path.join(folder, "model.py"))
    size = os.path.getsize(path)  # `x = x + 1` is longer than `x += 1`
    result = run_as(None, "--fix", "model.py", cwd=folder, limit_file_size=size)
    assert result.returncode == 2, result.stderr
    assert result.stderr.splitlines() == ["model.py: not fixed: cannot write it: File too large", NOT_WRITTEN_HEAD]
    assert result.stdout.splitlines()[0].startswith(f"model.py:{FINDING} ")
    assert result.stdout.splitlines()[1] == "Found 1 warning in 1 file."
    assert read(path) == CELL and leftovers(folder) == []
    quiet = run_as(None, "--fix", "--quiet", "model.py", cwd=folder, limit_file_size=size)
    assert quiet.returncode == 2 and quiet.stderr == "model.py: not fixed: cannot write it: File too large\n"
    assert quiet.stdout.startswith(f"model.py:{FINDING} ") and read(path) == CELL
    written = run_as(None, "--fix", "model.py", cwd=folder)  # without the limit: fixed
    assert written.returncode == 0 and written.stderr == "graphlint: 1 fix applied in 1 file, 0 refused\n"
    assert "x = x + 1" in read(path)
