"""The result cache after an edit: only the modules whose findings the edit can change are checked again, and the
findings are those of a fresh run, down to the line and the message (graphlint.run.incremental)."""

from __future__ import annotations

import json
import os

import pytest

from graphlint.analysis.source import module_name_for
from graphlint.run.cache import ResultCache
from graphlint.config import Config
from graphlint.run.incremental import ModuleResolver, import_targets
from graphlint.lint import lint_paths
from tests.support import run_graphlint, write

run_cli_with = run_graphlint

# A project whose findings cross files: a helper's loop count comes from its caller's argument, a Cell's from
# where another file creates it, a subclass's from its base class's __init__.
PROJECT = {
    "proj/__init__.py": "",
    "proj/helpers.py": """\
import mindspore.nn as nn


def repeat(x, times):
    for _ in range(times):
        x = x + 1
    return x
""",
    "proj/model.py": """\
import mindspore.nn as nn

from proj.helpers import repeat


class Net(nn.Cell):
    def __init__(self, n_steps):
        super().__init__()
        self.n_steps = n_steps

    def construct(self, x):
        x = repeat(x, 10)
        for _ in range(self.n_steps):
            x = x * 2
        return x
""",
    "proj/train.py": """\
import mindspore
from proj.model import Net

net = Net(n_steps=10)
""",
    "proj/base.py": """\
import mindspore.nn as nn


class Base(nn.Cell):
    def __init__(self):
        super().__init__()
        self.depth = 10
""",
    "proj/deep.py": """\
import mindspore
from proj.base import Base


class Deep(Base):
    def construct(self, x):
        for _ in range(self.depth):
            x = x - 1
        return x
""",
    "proj/other.py": """\
import mindspore.nn as nn


class Other(nn.Cell):
    def construct(self, x):
        for _ in range(3):
            x = x + 1
        return x
""",
    "proj/settings.py": "BATCH = 32\n",
}


def make_project(folder):
    for name, text in PROJECT.items():
        write(folder, name, text)


def edit(folder, name, old, new):
    path = os.path.join(str(folder), name)
    with open(path, encoding="utf-8") as handle:
        text = handle.read()
    assert old in text
    with open(path, "w", encoding="utf-8") as handle:
        handle.write(text.replace(old, new, 1))


def findings(result) -> list[tuple]:
    return [(f.path, f.line, f.column, f.rule.id, f.message) for f in result.findings]


def lint_with(cache_folder, monkeypatch, folder):
    monkeypatch.chdir(folder)
    cache = ResultCache(str(cache_folder))
    return cache, lint_paths(["proj"], Config(), cache=cache)


# (edit: file, old, new), the modules checked again, and the finding the edit brings (path, line, message part)
EDITS = {
    "a caller's argument to a helper in another file": (
        ("proj/model.py", "repeat(x, 10)", "repeat(x, 600)"),
        {"proj/model.py", "proj/helpers.py"},
        ("proj/helpers.py", 5, "unrolled 600 times"),
    ),
    "where another file creates the Cell": (
        ("proj/train.py", "n_steps=10", "n_steps=700"),
        {"proj/train.py", "proj/model.py", "proj/helpers.py"},  # (what Net passes to repeat may change)
        ("proj/model.py", 13, "n_steps=700 in `Net(n_steps=700)` at train.py:4"),
    ),
    "the base class's __init__ in another file": (
        ("proj/base.py", "self.depth = 10", "self.depth = 600"),
        {"proj/base.py", "proj/deep.py"},
        ("proj/deep.py", 7, "unrolled 600 times"),
    ),
    "the graph code of the module itself": (
        ("proj/other.py", "range(3)", "range(800)"),
        {"proj/other.py"},
        ("proj/other.py", 6, "unrolled 800 times"),
    ),
}


@pytest.mark.parametrize("name", sorted(EDITS))
def test_an_edit_rechecks_what_it_reaches_and_gives_a_fresh_runs_findings(tmp_path, monkeypatch, name):
    (path, old, new), rechecked, (where, line, message) = EDITS[name]
    make_project(tmp_path / "work")
    cache_folder = tmp_path / "cache"
    _cache, before = lint_with(cache_folder, monkeypatch, tmp_path / "work")
    assert findings(before) == []
    edit(tmp_path / "work", path, old, new)
    cache, after = lint_with(cache_folder, monkeypatch, tmp_path / "work")
    assert cache.partial_hits == 1 and set(cache.rechecked) == rechecked
    _fresh_cache, fresh = lint_with(tmp_path / "fresh", monkeypatch, tmp_path / "work")
    assert findings(after) == findings(fresh)
    assert [(f[0], f[1]) for f in findings(after)] == [(where, line)] and message in findings(after)[0][4]
    # and the run after that, with nothing changed, answers from the cache
    cache, again = lint_with(cache_folder, monkeypatch, tmp_path / "work")
    assert cache.hits == 1 and findings(again) == findings(fresh)


def test_lines_moved_in_a_quoted_file_and_a_comment_elsewhere(tmp_path, monkeypatch):
    make_project(tmp_path)
    edit(tmp_path, "proj/train.py", "n_steps=10", "n_steps=700")
    cache_folder = tmp_path / ".cache-here"
    lint_with(cache_folder, monkeypatch, tmp_path)
    # A blank line above the call moves it: the finding in model.py quotes its line.
    edit(tmp_path, "proj/train.py", "net = ", "\nnet = ")
    cache, after = lint_with(cache_folder, monkeypatch, tmp_path)
    assert set(cache.rechecked) == {"proj/train.py", "proj/model.py", "proj/helpers.py"}
    assert "at train.py:5" in findings(after)[0][4]
    # A comment in a module no graph code of another module reads: that module alone.
    edit(tmp_path, "proj/deep.py", "class Deep", "# a note\nclass Deep")
    cache, after = lint_with(cache_folder, monkeypatch, tmp_path)
    assert cache.rechecked == ["proj/deep.py"] and "at train.py:5" in findings(after)[0][4]
    # A module without MindSpore that no graph code reaches: nothing to check again.
    edit(tmp_path, "proj/settings.py", "32", "64")
    cache, after = lint_with(cache_folder, monkeypatch, tmp_path)
    assert cache.partial_hits == 1 and cache.rechecked == []
    _fresh_cache, fresh = lint_with(tmp_path / "fresh", monkeypatch, tmp_path)
    assert findings(after) == findings(fresh)


@pytest.mark.parametrize("mode", [["--jobs", "2"], ["--jobs", "1"], ["--max-memory", "1"]])
def test_the_command_line_after_an_edit(tmp_path, mode):
    """Whichever way the run that stored the entry linted (processes sharing summaries, one process, processes
    of bounded size), the next re-checks what the edit reaches."""

    def run_graphlint(*args, cwd):
        return run_cli_with(*mode, *args, cwd=cwd)

    make_project(tmp_path)
    first = run_graphlint("-v", "--output-format", "json", "proj", cwd=tmp_path)
    assert first.returncode == 0 and json.loads(first.stdout) == []
    assert "result cache: no earlier run of these files with these options" in first.stderr
    edit(tmp_path, "proj/model.py", "repeat(x, 10)", "repeat(x, 600)")
    second = run_graphlint("-v", "--output-format", "json", "proj", cwd=tmp_path)
    assert second.returncode == 1
    assert "result cache: 1 file changed since the last run: checked 2 of 6 modules again" in second.stderr
    fresh = run_graphlint("--no-cache", "--output-format", "json", "proj", cwd=tmp_path)
    assert second.stdout == fresh.stdout
    assert [(f["path"], f["line"], f["id"]) for f in json.loads(second.stdout)] == \
        [("proj/helpers.py", 5, "E5901")]
    third = run_graphlint("-v", "--output-format", "json", "proj", cwd=tmp_path)
    assert third.stdout == fresh.stdout and "no file changed since the last run" in third.stderr
    # A syntax error: the run is linted afresh and says which file it could not check; mended, the next run
    # starts from the entry that run stored.
    edit(tmp_path, "proj/other.py", "return x", "return x)")
    broken = run_graphlint("-v", "--output-format", "json", "proj", cwd=tmp_path)
    assert broken.returncode == 2 and "proj/other.py: cannot check: syntax error at line 8" in broken.stderr
    assert "result cache: linted afresh (a changed file cannot be checked)" in broken.stderr
    # While it stays broken, an edit elsewhere re-checks only what it reaches, and the file is still reported.
    edit(tmp_path, "proj/model.py", "repeat(x, 600)", "repeat(x, 10)")
    elsewhere = run_graphlint("-v", "--output-format", "json", "proj", cwd=tmp_path)
    assert elsewhere.returncode == 2
    assert elsewhere.stdout == run_graphlint("--no-cache", "--output-format", "json", "proj", cwd=tmp_path).stdout
    assert [entry["path"] for entry in json.loads(elsewhere.stdout)] == ["proj/other.py"]  # (it could not be checked)
    assert "result cache: 1 file changed since the last run: checked 2 of 5 modules again" in elsewhere.stderr
    assert "proj/other.py: cannot check: syntax error at line 8" in elsewhere.stderr
    edit(tmp_path, "proj/model.py", "repeat(x, 10)", "repeat(x, 600)")
    edit(tmp_path, "proj/other.py", "return x)", "return x")
    mended = run_graphlint("-v", "--output-format", "json", "proj", cwd=tmp_path)
    assert mended.returncode == 1 and mended.stdout == fresh.stdout


def test_a_damaged_or_foreign_state_means_a_fresh_run(tmp_path):
    make_project(tmp_path)
    assert run_graphlint("proj", cwd=tmp_path).returncode == 0
    states = list((tmp_path / ".graphlint_cache").glob("state-*.json"))
    assert len(states) == 1
    edit(tmp_path, "proj/other.py", "range(3)", "range(800)")
    fresh = run_graphlint("--no-cache", "--output-format", "concise", "proj", cwd=tmp_path)
    for damage in ('{"stamp": 1}', "[]", "not json", json.dumps({**json.loads(states[0].read_text()), "units": 3})):
        states[0].write_text(damage)
        result = run_graphlint("-v", "--output-format", "concise", "proj", cwd=tmp_path)
        assert (result.returncode, result.stdout) == (1, fresh.stdout)
        assert "Traceback" not in result.stderr
        edit(tmp_path, "proj/other.py", "range(800)", "range(3)")  # and back, for the next damage
        assert run_graphlint("proj", cwd=tmp_path).returncode == 0
        states = list((tmp_path / ".graphlint_cache").glob("state-*.json"))
        edit(tmp_path, "proj/other.py", "range(3)", "range(800)")


def test_import_targets_and_their_modules(tmp_path):
    text = (
        "import a.b.c as abc, d; import e\n"
        "from . import sibling\n"
        "from ..up import (one,\n"
        "    two)  # a comment\n"
        "def f():\n"
        "    from .inner import thing\n"
        "s = '''\n"
        "import looks.like.one\n"
        "'''\n"
    )
    found = import_targets(text, "pkg.sub.mod", is_package=False)
    assert found == {"a", "a.b", "a.b.c", "d", "e", "pkg.sub", "pkg.sub.sibling", "pkg.up", "pkg.up.one", "pkg.up.two",
                     "pkg.sub.inner", "pkg.sub.inner.thing", "looks", "looks.like", "looks.like.one"}
    assert import_targets("from . import x\n", "pkg", is_package=True) == {"pkg", "pkg.x"}
    assert import_targets("from .... import x\n", "pkg.mod", is_package=False) == set()
    paths = [write(tmp_path, name, "") for name in ("pkg/__init__.py", "pkg/sub/__init__.py", "pkg/sub/mod.py",
                                                    "pkg/sub/sibling.py", "pkg/up.py")]
    resolver = ModuleResolver([os.path.abspath(path) for path in paths])
    assert module_name_for(paths[2]) == "pkg.sub.mod"
    assert resolver.imports_of(os.path.abspath(paths[2]), text) == sorted(
        os.path.abspath(path) for path in (paths[1], paths[3], paths[4]))


def test_the_newest_runs_keep_their_state(tmp_path, monkeypatch):
    """Every distinct run keeps its results (up to KEEP); only the newest KEEP_STATES keep the larger state."""
    from graphlint.run import cache as cache_module

    monkeypatch.setattr(cache_module, "KEEP", 3)
    monkeypatch.setattr(cache_module, "KEEP_STATES", 2)
    make_project(tmp_path)
    monkeypatch.chdir(tmp_path)
    for warn in (10, 20, 30, 40):  # four sets of options: four entries
        lint_paths(["proj"], Config(unroll_warn=warn), cache=ResultCache(str(tmp_path / "c")))
    runs = sorted(path.name[len("run-"):] for path in (tmp_path / "c").glob("run-*.json"))
    states = sorted(path.name[len("state-"):] for path in (tmp_path / "c").glob("state-*.json"))
    assert len(runs) == 3 and len(states) == 2 and set(states) <= set(runs)
    edit(tmp_path, "proj/other.py", "range(3)", "range(4)")
    newest = ResultCache(str(tmp_path / "c"))
    lint_paths(["proj"], Config(unroll_warn=40), cache=newest)
    assert newest.partial_hits == 1
    older = ResultCache(str(tmp_path / "c"))  # its results were kept, its state was not: a fresh run
    lint_paths(["proj"], Config(unroll_warn=20), cache=older)
    assert older.partial_hits == 0 and older.outcome == "linted afresh (the state the last run kept cannot be read)"


def test_a_file_that_cannot_be_read_and_did_not_change_keeps_its_problem(tmp_path, monkeypatch):
    make_project(tmp_path)
    with open(tmp_path / "proj" / "latin.py", "wb") as handle:
        handle.write(b"# \xe9\nimport mindspore\n")
    cache_folder = tmp_path / "c"
    _cache, before = lint_with(cache_folder, monkeypatch, tmp_path)
    assert [problem.path for problem in before.problems] == ["proj/latin.py"]
    edit(tmp_path, "proj/other.py", "range(3)", "range(800)")
    cache, after = lint_with(cache_folder, monkeypatch, tmp_path)
    assert cache.partial_hits == 1 and cache.rechecked == ["proj/other.py"]
    _fresh_cache, fresh = lint_with(tmp_path / "fresh", monkeypatch, tmp_path)
    assert findings(after) == findings(fresh)
    assert [(p.path, p.reason) for p in after.problems] == [(p.path, p.reason) for p in fresh.problems]


# Files added to the run and removed from it, one step after the other from the project above: (what is done,
# the modules checked again, the verbose line's count of modules, the findings then). A file added or removed is a
# changed module to the modules that import it, call into it, or read what it gives the run (the Cells it creates).
ADD_AND_REMOVE = [
    ("a file that creates Net with a large count", ("add", "proj/run2.py", "from proj.model import Net\n"
                                                     "import mindspore\n\nnet2 = Net(n_steps=700)\n"),
     {"proj/run2.py", "proj/model.py", "proj/helpers.py"}, "1 file added since the last run: checked 3 of 7",
     [("proj/model.py", 13, "E5901")]),
    ("the other file that creates Net", ("remove", "proj/train.py"),
     {"proj/model.py", "proj/helpers.py"}, "1 file removed since the last run: checked 2 of 6",
     [("proj/model.py", 13, "E5901")]),
    ("a second caller of the helper", ("add", "proj/extra.py", "import mindspore.nn as nn\n"
                                        "from proj.helpers import repeat\n\n\nclass Extra(nn.Cell):\n"
                                        "    def construct(self, x):\n        return repeat(x, 900)\n"),
     {"proj/extra.py", "proj/helpers.py", "proj/model.py"},  # (model: the callers of its helper changed)
     "1 file added since the last run: checked 3 of 7",
     [("proj/model.py", 13, "E5901")]),  # (10 from Net, 900 from Extra: no one count for the loop)
    ("the helper's module", ("remove", "proj/helpers.py"),
     {"proj/model.py", "proj/extra.py", "proj/run2.py"}, "1 file removed since the last run: checked 3 of 6",
     [("proj/model.py", 13, "E5901")]),
    ("the helper's module back: the files of an earlier run", ("add", "proj/helpers.py", PROJECT["proj/helpers.py"]),
     set(), "no file changed since the last run: its findings",
     [("proj/model.py", 13, "E5901")]),
    ("the Cell with the large count", ("remove", "proj/model.py"),
     {"proj/run2.py", "proj/helpers.py", "proj/extra.py"}, "1 file removed since the last run: checked 3 of 6",
     [("proj/helpers.py", 5, "E5901")]),  # (Extra alone calls repeat now: 900)
]


def test_files_added_and_removed_recheck_what_they_reach(tmp_path, monkeypatch):
    make_project(tmp_path)
    cache_folder = tmp_path / "c"
    lint_with(cache_folder, monkeypatch, tmp_path)
    for name, step, rechecked, outcome, expected in ADD_AND_REMOVE:
        if step[0] == "add":
            write(tmp_path, step[1], step[2])
        else:
            os.unlink(tmp_path / step[1])
        cache, after = lint_with(cache_folder, monkeypatch, tmp_path)
        assert set(cache.rechecked) == rechecked and cache.outcome.startswith(outcome), name
        _fresh_cache, fresh = lint_with(tmp_path / "fresh", monkeypatch, tmp_path)
        assert findings(after) == findings(fresh), name
        assert [(f[0], f[1], f[3]) for f in findings(after)] == expected, name


def test_what_a_run_over_other_files_does_not_start_from(tmp_path, monkeypatch):
    make_project(tmp_path)
    cache_folder = tmp_path / "c"
    lint_with(cache_folder, monkeypatch, tmp_path)
    # A package's __init__.py added or removed renames the modules below it.
    write(tmp_path, "proj/sub/__init__.py", "")
    write(tmp_path, "proj/sub/net.py", "import mindspore\n")
    cache, _result = lint_with(cache_folder, monkeypatch, tmp_path)
    assert cache.outcome == "linted afresh (a package's __init__.py was added or removed)"
    # Many files more or fewer: no entry to start from, and the verbose line says so.
    for number in range(9):
        write(tmp_path, f"proj/more{number}.py", "import mindspore\n")
    cache, _result = lint_with(cache_folder, monkeypatch, tmp_path)
    assert cache.partial_hits == 0
    assert cache.outcome == ("no earlier run of these files with these options (9 added and 0 removed since the "
                             "last run)")
    # A run over other options is of another family.
    monkeypatch.chdir(tmp_path)
    write(tmp_path, "proj/one_more.py", "import mindspore\n")
    other = ResultCache(str(cache_folder))
    lint_paths(["proj"], Config(unroll_warn=20), cache=other)
    assert other.outcome == "no earlier run of these files with these options"


def test_the_command_line_with_a_file_added(tmp_path):
    make_project(tmp_path)
    assert run_graphlint("--output-format", "json", "proj", cwd=tmp_path).returncode == 0
    write(tmp_path, "proj/run2.py", "from proj.model import Net\nimport mindspore\n\nnet2 = Net(n_steps=700)\n")
    added = run_graphlint("-v", "--output-format", "json", "proj", cwd=tmp_path)
    assert "result cache: 1 file added since the last run: checked 3 of 7 modules again" in added.stderr
    assert added.stdout == run_graphlint("--no-cache", "--output-format", "json", "proj", cwd=tmp_path).stdout
    assert [(f["path"], f["line"]) for f in json.loads(added.stdout)] == [("proj/model.py", 13)]
    # The families' pointers to their newest run go with the runs pruned.
    assert len(list((tmp_path / ".graphlint_cache").glob("last-*.json"))) == 1
