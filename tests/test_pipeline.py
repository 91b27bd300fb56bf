"""One lint pipeline: the CLI, the Pylint plugin and the fix driver's re-lint see the same findings."""

import os
import sys
import textwrap

import pytest

from graphlint.config import Config
from graphlint.lint import lint_paths, lint_text

sys.path.insert(0, os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "benchmarks"))
from corpus import fetch  # noqa: E402


def _key(finding):
    return (os.path.abspath(finding.path), finding.line, finding.column, finding.rule.id, finding.message)


@pytest.mark.parametrize("name", ["mindcv", "mindocr"])
def test_cli_and_relint_agree_on_model_zoos(name):
    """(Pylint's plugin on the same zoos, run by Pylint itself, is compared with the CLI in
    tests/test_zoo_front_ends.py.)"""
    package = fetch(name)
    result = lint_paths([package], Config())
    cli = sorted(_key(f) for f in result.findings)
    assert cli, "the zoo has findings to compare"
    paths = sorted(result.sources)

    # The fix driver's re-lint: each file's text re-linted in place, one after another.
    session = result.session
    relinted = sorted(_key(f) for path in paths for f in session.update(path, result.sources[path].text)[0])
    assert relinted == cli


CLASSMETHOD_HELPER = """\
import mindspore as ms
from mindspore import nn


class Net(nn.Cell):
    @{decorator}
    def helper({first}x):
        if x.sum() > 0:
            return x * 2
        return x

    def construct(self, x):
        return self.helper(x)
"""


@pytest.mark.parametrize("decorator, first", [("classmethod", "cls, "), ("staticmethod", ""),
                                              ("ms.jit", "self, ")])
def test_tensor_if_in_helper_is_reported_for_every_method_kind(decorator, first):
    # A @classmethod helper called as self.helper(x) binds x to its second parameter: the Tensor `if` is
    # reported as for a plain method or a staticmethod.
    text = CLASSMETHOD_HELPER.format(decorator=decorator, first=first)
    found = [(f.line, f.rule.symbol) for f in lint_text(text, Config())]
    assert (8, "tensor-condition-control-flow") in found, found


def test_classmethod_called_on_the_class_binds_the_same():
    text = textwrap.dedent("""\
        import mindspore as ms
        from mindspore import nn


        class Net(nn.Cell):
            @classmethod
            def helper(cls, x):
                if x.sum() > 0:
                    return x * 2
                return x

            def construct(self, x):
                return Net.helper(x)
        """)
    assert (8, "tensor-condition-control-flow") in [(f.line, f.rule.symbol) for f in lint_text(text, Config())]


def test_fix_processes_keep_a_helper_with_the_graph_code_that_calls_it(tmp_path):
    """--fix --jobs: a fix changes graph-function bodies, which the modules of their callers and helpers read,
    so those modules go to one process, the one that parsed most of them; a module that shares nothing stays
    with the process that parsed it, and one nobody parsed goes to the process with the least so far."""
    from graphlint.run.parallel import fix_shares
    from graphlint.session import LintSession

    files = {"pkg/__init__.py": "", "pkg/helpers.py": "from mindspore import ops\n\n\ndef scale(x):\n    return x * 2\n"}
    for index in range(3):
        files[f"pkg/user_{index}.py"] = textwrap.dedent(f"""\
            from mindspore import nn
            from pkg.helpers import scale


            class User{index}(nn.Cell):
                def construct(self, x):
                    return scale(x)
            """)
    for index in range(3):
        files[f"pkg/alone_{index}.py"] = textwrap.dedent(f"""\
            from mindspore import nn


            class Alone{index}(nn.Cell):
                def construct(self, x):
                    return x + {index}
            """)
    paths = []
    for name, text in files.items():
        path = tmp_path / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text)
        paths.append(str(path))
    session = LintSession(Config())
    session.add_files(sorted(paths))
    units = sorted(path for path in paths if not path.endswith("__init__.py"))
    parsed_by = {"helpers.py": 1, "user_0.py": 1, "user_1.py": 0, "user_2.py": 1, "alone_0.py": 0, "alone_1.py": 1}
    owners = {os.path.abspath(path): parsed_by[os.path.basename(path)] for path in units
              if os.path.basename(path) in parsed_by}
    shares = fix_shares(session, units, owners, 2)
    named = [sorted(os.path.basename(units[index]) for index in share) for share in shares]
    # alone_2.py, parsed by neither, goes to process 0: it has one module when it comes, process 1 has five
    assert named == [["alone_0.py", "alone_2.py"],
                     ["alone_1.py", "helpers.py", "user_0.py", "user_1.py", "user_2.py"]]


def test_keys_name_definitions_by_place_and_survive_edits_of_bodies():
    """A function's key is its qualified place in the module (a second definition of that place numbered), so
    that the scope's keys name the same function in every process and after another function's body changes."""
    from graphlint.analysis.scope import definition_keys
    from graphlint.analysis.source import parse

    text = textwrap.dedent("""\
        def helper(x):
            def inner(y):
                return y
            return inner(x)


        class Net:
            def construct(self, x):
                return helper(x)

            def construct(self, x):
                return x


        if True:
            def helper(x):
                return x
        """)
    module = parse(text, "m", "m.py")
    by_id, by_key = definition_keys(module)
    assert list(by_key) == ["helper", "helper.inner", "Net", "Net.construct", "Net.construct#2", "helper#2"]
    assert all(by_id[id(node)] == key for key, node in by_key.items())
    edited = parse(text.replace("    return inner(x)", "    z = inner(x)\n    z = z + 1\n    return z"), "m", "m.py")
    assert list(definition_keys(edited)[1]) == list(by_key)


def test_each_share_summarised_alone_gives_the_whole_runs_scope_and_facts():
    """What --jobs rests on: modules summarised in processes that each parsed only part of the run (parsing
    others from disk where needed) give, once gathered, the graph scope and per-module facts of one process."""
    from graphlint.analysis.run_facts import RUN_FACTS
    from graphlint.analysis.scope import RunSummary
    from graphlint.analysis.source import package_root_for
    from graphlint.results import discover_files
    from graphlint.session import LintSession

    files, _ = discover_files([fetch("mindocr")], Config())
    whole = LintSession(Config())
    whole.add_files(files)
    whole_scope = whole.analysis.scope.functions
    assert len(whole_scope) > 500

    parts, order = [], []
    sessions = []
    for share in (files[::2], files[1::2]):  # interleaved: most helpers and bases are in the other share
        session = LintSession(Config())
        to_parse = session.read_files(files)
        for path, source in to_parse:
            absolute = os.path.abspath(path)
            session.project.run_files.add(absolute)
            session.project.run_names.setdefault(source.module_name, absolute)
            session.project.roots.add(package_root_for(absolute))
        order = [os.path.abspath(path) for path, _source in to_parse]
        infos = session.parse_files([(path, source) for path, source in to_parse if path in set(share)])
        assert len(infos) < len(to_parse)
        parts.append(session.analysis.summarise(infos))
        sessions.append(session)
    gathered = RunSummary.gather(parts, order)
    for kind in RUN_FACTS:
        assert gathered.facts[kind] == {info.path: whole.analysis.run_fact_of(kind, info)
                                        for info in whole.analysis.run_modules()}, kind
    for session in sessions:
        session.analysis.share(gathered)
        assert session.analysis.scope.functions == whole_scope
        assert session.analysis.scope.references == whole.analysis.scope.references


def test_partitioned_processes_start_on_regions_of_neighbours_and_end_on_the_others_far_ends():
    """--jobs N cuts the files, in path order, into N runs of neighbours of about equal cost; each process walks its
    own from the front, then the others' from the back, where their own processes arrive last."""
    from graphlint.run.parallel import cost_regions, walk_regions

    paths = ["pkg/b.py", "pkg/a.py", "pkg/d.py", "pkg/c.py", "pkg/e.py"]
    regions = cost_regions(paths, [10, 10, 10, 10, 40], 2)
    assert [[paths[index] for index in region] for region in regions] == [
        ["pkg/a.py", "pkg/b.py", "pkg/c.py", "pkg/d.py"], ["pkg/e.py"]]
    assert cost_regions(paths, [10] * 5, 3) == [[1, 0], [3], [2, 4]]
    assert walk_regions([[1, 0], [3], [2, 4]], 0) == [1, 0, 3, 4, 2]
    assert walk_regions([[1, 0], [3], [2, 4]], 1) == [3, 4, 2, 0, 1]
    assert walk_regions([[1, 0], [3], [2, 4]], 2) == [2, 4, 0, 1, 3]
    assert cost_regions(paths, [0] * 5, 2) == [[1, 0, 3, 2, 4], []]  # (nothing to share out: one process's)


def test_files_move_between_regions_towards_the_modules_they_import(tmp_path):
    """Cut in path order, the first region's small model imports the second's small layers module, and the
    second's big model imports the first's ``__init__.py`` (and, through it, base): the small files move to the
    region that imports them (a move may leave a region a tenth over an equal share); base is too big to."""
    from graphlint.run.parallel import cost_regions, import_needs, import_regions

    texts = {
        "pkg/__init__.py": "import mindspore\nfrom pkg.base import Base\n",
        "pkg/a_model.py": "import mindspore\nfrom pkg.layers import Block\n",
        "pkg/base.py": "import mindspore\nclass Base: pass\n",
        "pkg/layers.py": "import mindspore\nclass Block: pass\n",
        "pkg/z_model.py": "import mindspore\nfrom pkg import Base\n",
    }
    _session, to_parse, _unchecked = _run_of(tmp_path, texts)
    needs = import_needs(to_parse)
    # z_model imports pkg, whose __init__ imports base: it needs both
    assert [sorted(need) for need in needs] == [[2], [3], [], [], [0, 2]]
    costs = [10, 10, 100, 10, 100]
    regions = cost_regions(list(texts), costs, 2)
    assert regions == [[0, 1, 2], [3, 4]]
    moved = import_regions(regions, needs, costs)
    assert [[list(texts)[index] for index in region] for region in moved] == [
        ["pkg/a_model.py", "pkg/base.py", "pkg/layers.py"], ["pkg/__init__.py", "pkg/z_model.py"]]
    # with no room over an equal share, nothing moves
    assert import_regions(regions, needs, costs, slack=0.0) == regions


def _run_of(tmp_path, files: dict):
    """A session that has read the run's ``files`` ({name: text}) and parsed none of them."""
    from graphlint.session import LintSession

    for name, text in files.items():
        (tmp_path / name).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / name).write_text(textwrap.dedent(text))
    session = LintSession(Config())
    unchecked = []
    to_parse = session.read_files([str(tmp_path / name) for name in files], (), unchecked)
    session.register_run_modules(to_parse)
    return session, to_parse, unchecked


BASE_AND_MODEL = {
    "base.py": """\
        from mindspore import nn


        class Base(nn.Cell):
            pass
        """,
    "model.py": """\
        from mindspore import nn
        from base import Base


        class Net(Base):
            def construct(self, x):
                return x
        """,
}


def test_a_run_file_no_process_took_is_taken_where_the_analysis_needs_it(tmp_path):
    """With --jobs, a process summarising its modules may need a file of the run no process has parsed yet (here
    the base class of its Cell): it takes it into its own share, parsed once from the text the run read, rather
    than reading it from disk while another process parses it as well. A file another process has is read from
    disk, as before."""
    for taken in (True, False):
        session, to_parse, _unchecked = _run_of(tmp_path, BASE_AND_MODEL)
        sources = dict(to_parse)
        model, base = (str(tmp_path / name) for name in ("model.py", "base.py"))
        part, asked = _summarise_taking(session, sources, model, base, taken)
        assert asked == [base]
        # the base resolves either way: Net is a Cell, its construct an entry of the run
        assert [display for _key, _kind, display in part.scopes[model].entries] == ["Net.construct"]
        info = session.project.by_path[base]
        if taken:  # parsed from the text the run read, and the process's own to check
            assert info.module is sources[base].module and base in session.sources
        else:  # read from disk
            assert sources[base].module is None and base not in session.sources
        assert not info.from_disk  # (a module of the run either way)


def test_a_run_file_in_a_folder_without_init_is_taken_too_when_imported_by_its_full_name(tmp_path):
    """A file of the run in a folder without ``__init__.py`` is named by its file alone (``base``), while the
    model imports it as ``pkg.common.base``: found under the run's package roots, it is still the run's file,
    taken where it is needed like any other (before, it was read from disk there, and parsed again by whichever
    process took it later, possibly this one)."""
    session, to_parse, _unchecked = _run_of(tmp_path, {
        "pkg/__init__.py": "import mindspore\n",
        "pkg/common/base.py": BASE_AND_MODEL["base.py"],
        "pkg/model.py": BASE_AND_MODEL["model.py"].replace("from base import Base", "from pkg.common.base import Base"),
    })
    sources = dict(to_parse)
    model, base = str(tmp_path / "pkg" / "model.py"), str(tmp_path / "pkg" / "common" / "base.py")
    assert sources[base].module_name == "base"
    part, asked = _summarise_taking(session, sources, model, base, taken=True)
    assert asked == [base]
    assert [display for _key, _kind, display in part.scopes[model].entries] == ["Net.construct"]
    info = session.project.by_path[base]
    assert info.module is sources[base].module and not info.from_disk


def _summarise_taking(session, sources: dict, model: str, base: str, taken: bool):
    """Parse ``model`` and summarise it, with a take hook that records the files asked for and, when ``taken``,
    parses ``base`` as this process's own; ``(the summary, the paths asked for)``."""
    asked = []

    def take(path):
        asked.append(path)
        if taken:
            session.parse_files([(base, sources[base])])
        return taken

    infos = session.parse_files([(model, sources[model])])
    session.project.take_run_file = take
    return session.analysis.summarise(infos), asked


def test_files_without_mindspore_give_the_runs_facts_from_their_syntax_check_to_every_process(tmp_path):
    """A file that never mentions MindSpore is only syntax-checked, by one process; the names a registry in it
    gives (what decides W5509) come from that same parse and reach the other processes with the summaries."""
    from graphlint.analysis.scope import RunSummary

    files = dict(BASE_AND_MODEL, **{"registry.py": 'MODELS = {"tiny": "Net"}\n__all__ = ["MODELS"]\n',
                                    "broken.py": "def f(:\n"})
    session, to_parse, unchecked = _run_of(tmp_path, files)
    assert sorted(os.path.basename(path) for path, _text in unchecked) == ["broken.py", "registry.py"]
    for path, text in unchecked:
        session.check_syntax(path, text)
    registry, broken = (str(tmp_path / name) for name in ("registry.py", "broken.py"))
    assert session.project.unparsed_strings == {registry: frozenset({"tiny", "Net"})}
    assert [(problem.path, problem.reason) for problem in session.problems] == [
        (broken, "syntax error at line 1, column 7: invalid syntax")]
    assert broken not in session.project.unparsed

    part = session.analysis.summarise([], [registry, broken])
    other, _to_parse, _unchecked = _run_of(tmp_path, files)
    other.analysis.share(RunSummary.gather([part, other.analysis.summarise([])], []))
    assert other.project.unparsed_strings == {registry: frozenset({"tiny", "Net"})}


def test_a_rewrite_in_a_process_of_a_shared_run_is_summarised_again(tmp_path):
    """In a run shared between processes (--fix --jobs), the scope comes from the run's summary: once a module
    is rewritten, the summary speaks for its new text, so the graph scope is the one a fresh lint finds (here
    `construct` no longer calls `helper`, which is no longer graph code)."""
    from graphlint.analysis.scope import RunSummary
    from graphlint.session import LintSession

    path = tmp_path / "model.py"
    path.write_text("from mindspore import nn\n\n\ndef helper(x):\n    return x * 2\n\n\nclass Net(nn.Cell):\n"
                    "    def construct(self, x):\n        return helper(x)\n", encoding="utf-8")
    session = LintSession(Config())
    session.add_files([str(path)])
    infos = list(session.project.modules)
    session.analysis.share(RunSummary.gather([session.analysis.summarise(infos)], [info.path for info in infos]))
    assert sorted(key[1] for key in session.analysis.scope.functions) == ["Net.construct", "helper"]
    rewritten = path.read_text(encoding="utf-8").replace("return helper(x)", "return x * 2")
    session.update_many([(str(path), rewritten)])
    path.write_text(rewritten, encoding="utf-8")
    fresh = LintSession(Config())
    fresh.add_files([str(path)])
    assert sorted(session.analysis.scope.functions) == sorted(fresh.analysis.scope.functions)
    assert sorted(key[1] for key in session.analysis.scope.functions) == ["Net.construct"]
