"""One lint pipeline: the CLI, the Pylint plugin and the fix driver's re-lint see the same findings."""

import os
import sys
import textwrap

import pytest

from graphlint.analysis.source import module_name_for
from graphlint.config import Config
from graphlint.lint import lint_paths, lint_text

sys.path.insert(0, os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "benchmarks"))
from corpus import fetch  # noqa: E402


def _key(finding):
    return (os.path.abspath(finding.path), finding.line, finding.column, finding.rule.id, finding.message)


@pytest.mark.parametrize("name", ["mindcv", "mindocr"])
def test_cli_plugin_and_relint_agree_on_model_zoos(name):
    import astroid

    from graphlint.pylint_plugin import _RunState

    package = fetch(name)
    result = lint_paths([package], Config())
    cli = sorted(_key(f) for f in result.findings)
    assert cli, "the zoo has findings to compare"

    # The plugin: every file parsed by astroid's manager under its dotted name, as Pylint does before checking.
    paths = sorted(result.sources)
    everything = sorted(os.path.join(folder, name) for folder, _, names in os.walk(package)
                        for name in names if name.endswith(".py"))
    modules = [astroid.MANAGER.ast_from_file(path, modname=module_name_for(path)) for path in everything]
    state = _RunState()
    plugin = sorted(_key(f) for module in modules for f in state.findings(module, ""))
    astroid.MANAGER.clear_cache()
    assert plugin == cli

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
    so those modules go to one process; modules that share nothing balance the load."""
    from graphlint.fixers.parallel import component_chunks
    from graphlint.parallel import cost
    from graphlint.results import LintResult
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
    work = session.work(LintResult())
    costs = [cost(session, info) for _shown, info in work]
    chunks = component_chunks(session, work, 2, costs)
    named = [sorted(os.path.basename(work[index][0]) for index in chunk) for chunk in chunks]
    # the helper's group weighs most and goes first; the others fill the lighter process
    assert named == [["helpers.py", "user_0.py", "user_1.py", "user_2.py"], ["alone_0.py", "alone_1.py", "alone_2.py"]]


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
