"""Fixers: fixture pairs (input -> expected), idempotence, untouched files on refusal, and a compile matrix
that runs every fixture's original and fixed code through real MindSpore in both modes."""

import os
import re
import shutil
import textwrap

import pytest
from astroid import nodes as astroid_nodes

from graphlint.catalogue import RULES, lookup
from graphlint.catalogue.model import FixSafety
from graphlint.config import Config
from graphlint.fixers import FIXER_MODULES, FIXERS, fix_safety, fixers_for
from graphlint.run.fix import fix_paths
from graphlint.validate.runner import run_job
from graphlint.validate.validator import EntryRef, validate_entry

# Fixture pairs grouped per rule: fixtures/fixes/<rule symbol>/<case>_input.py and <case>_expected.py.
FIXTURES = os.path.join(os.path.dirname(__file__), "fixtures", "fixes")
CASES = sorted(f"{rule}/{name[: -len('_input.py')]}" for rule in os.listdir(FIXTURES)
               for name in os.listdir(os.path.join(FIXTURES, rule)) if name.endswith("_input.py"))


def _read(path):
    with open(path, encoding="utf-8", newline="") as handle:
        return handle.read()


def _header(text):
    match = re.search(r"^# validate: (\w+) (.+)$", text, re.M)
    return match.group(1), match.group(2).split()


def _fixed_copy(case, tmp_path, **kw):
    target = tmp_path / f"{case.split('/')[1]}.py"
    shutil.copy(os.path.join(FIXTURES, f"{case}_input.py"), target)
    original = _read(target)
    unsafe = "# unsafe" in original
    report = fix_paths([str(target)], Config(), unsafe=unsafe, **kw)
    return target, original, report


def _pending_rule_rewrite(path):
    """The loop rewrite planned on a stand-in finding at the file's `for` loop: for loops no checker reports yet
    (`# pending:` fixtures), until the catalogue has their rule."""
    from astroid import nodes

    from graphlint.catalogue.model import Rule, Severity
    from graphlint.fixers.base import Edit, FixContext, apply_edits
    from graphlint.fixers.loops import RangeLoopToTensorWhile
    from graphlint.lint import lint_paths
    from graphlint.runner import Finding

    lint = lint_paths([path], Config())
    source = lint.sources[path]
    info = lint.analysis.project.info(source.module)
    [graph] = [g for g in lint.analysis.graph_functions(info) if g.node.name == "construct"]
    [loop] = [n for n in graph.node.nodes_of_class(nodes.For)]
    stand_in = Rule(id="E5999", symbol="pending", family="loops", lax=Severity.ERROR, strict=Severity.ERROR,
                    message="", summary="", why="", fix="")
    finding = Finding(stand_in, path, loop.lineno, loop.col_offset + 1, loop.lineno, loop.col_offset + 4,
                      node=loop, graph=graph)
    context = FixContext(source.text, lint.analysis, info)
    context.findings = lint.findings + [finding]
    plan = RangeLoopToTensorWhile().plan(finding, context)
    assert isinstance(plan, Edit), plan
    text, applied, _ = apply_edits(context, [plan])
    assert applied
    return text


@pytest.mark.parametrize("case", CASES)
def test_fixture_is_rewritten_as_expected(case, tmp_path):
    expected = _read(os.path.join(FIXTURES, f"{case}_expected.py"))
    if "# pending:" in _read(os.path.join(FIXTURES, f"{case}_input.py")):
        target = tmp_path / f"{case.split('/')[1]}.py"
        shutil.copy(os.path.join(FIXTURES, f"{case}_input.py"), target)
        assert _pending_rule_rewrite(str(target)) == expected
        return
    target, original, report = _fixed_copy(case, tmp_path)
    rule = case.split("/")[0]
    touched = {a.symbol for a in report.applied} | {r.symbol for r in report.refused}
    if "# display" not in original or expected != original:
        assert rule in touched, f"the fixture of {rule} does not exercise it: {sorted(touched)}"
    if "# display" in original:
        # A display-only fix writes nothing; the expected file is its suggestion, shown with the refusal.
        assert _read(target) == original and not report.applied
        suggestions = [r for r in report.refused if r.reason.startswith("display-only")]
        if expected == original:  # the rewrite cannot be made: nothing is offered, nothing is refused
            assert not suggestions and not report.refused
            return
        assert [r.suggested for r in suggestions] == [expected]
        assert all(line.startswith(("---", "+++", "@@", " ", "+", "-")) for line in
                   suggestions[0].suggestion.splitlines())
        compile(expected, "suggested.py", "exec")
        return
    assert _read(target) == expected
    if "# refused" in original:
        assert report.refused and not report.applied
    compile(_read(target), str(target), "exec")
    # A second --fix changes nothing.
    before = _read(target)
    again = fix_paths([str(target)], Config(), unsafe="# unsafe" in original)
    assert not [f for f in again.files if f.changed]
    assert _read(target) == before


@pytest.mark.compile
@pytest.mark.parametrize("case", CASES)
def test_fixed_code_compiles_and_matches_pynative(case):
    original = _read(os.path.join(FIXTURES, f"{case}_input.py"))
    fixed = _read(os.path.join(FIXTURES, f"{case}_expected.py"))
    if "# refused" in original or fixed == original:
        pytest.skip("refused case: the file is left as it is")
    entry, inputs = _header(original)
    name = case.split("/")[1]
    if "(changes the outputs" in original:
        # A suggestion that returns something else by design (a tuple for a dict): it must compile at both levels.
        job = {"source": fixed, "module_name": name, "entry": entry, "inputs_specs": inputs, "calls": 1,
               "runs": ["graph", "strict"], "ignore_drive": True}
        result = run_job(job, timeout=300)
        assert result["graph"].ok and result["strict"].ok, (result["graph"].describe(), result["strict"].describe())
        return
    verdict = validate_entry(EntryRef(name, entry, True, len(inputs)), f"{name}.py", original, fixed,
                             os.path.join(FIXTURES, case.split("/")[0]),
                             inputs, timeout=300, memory_mb=16384)
    assert verdict.ok and verdict.compared, verdict.reason


def test_unsafe_fixes_need_the_flag(tmp_path):
    target = tmp_path / "imports.py"
    shutil.copy(os.path.join(FIXTURES, "import-in-graph", "import_input.py"), target)
    before = _read(target)
    report = fix_paths([str(target)], Config())
    assert _read(target) == before
    assert any("--unsafe-fixes" in r.reason for r in report.refused)


def test_failed_validation_leaves_the_file_untouched(tmp_path):
    # The fix is right, but the declared inputs make the original fail in PYNATIVE_MODE (shapes that do not
    # broadcast): validation cannot pass, so nothing may be written.
    target = tmp_path / "model.py"
    shutil.copy(os.path.join(FIXTURES, "augmented-assign-to-input", "inplace_input.py"), target)
    (tmp_path / "pyproject.toml").write_text('[tool.graphlint.validate.inputs]\n'
                                             '"model:Net" = ["float32[2,3]", "float32[4,5]"]\n')
    from graphlint.config import config_for

    before = _read(target)
    report = fix_paths([str(target)], config_for(str(tmp_path)), validate=True)
    assert _read(target) == before
    assert report.refused and all(r.reason.startswith("validation failed") for r in report.refused)


def test_fixers_are_registered_for_catalogue_rules():
    registered = [rule for module in FIXER_MODULES for fixer in module.FIXERS for rule in fixer.rules]
    assert registered and all(rule in RULES for rule in registered)
    assert set(FIXERS) == {rule.id for rule in registered}
    for rule in RULES:
        # The safety the docs state for a rule is its first fixer's.
        assert fix_safety(rule) is (fixers_for(rule)[0].safety if fixers_for(rule) else None)
    assert fix_safety(lookup("del-in-graph")) is FixSafety.SAFE
    assert fix_safety(lookup("python-loop-exceeds-call-depth")) is FixSafety.UNSAFE
    assert fix_safety(lookup("python-random-in-graph")) is None


def test_display_only_fix_says_why_it_offers_nothing():
    from graphlint.fixers.base import FixContext, Refusal
    from graphlint.fixers.loops import TensorWhileToWhileLoop
    from graphlint.lint import lint_paths

    path = os.path.join(FIXTURES, "tensor-condition-control-flow", "while_loop_refused_input.py")
    lint = lint_paths([path], Config())
    [finding] = [f for f in lint.findings if f.rule.symbol == "tensor-condition-control-flow"]
    context = FixContext(_read(path), lint.analysis, lint.analysis.project.info(lint.sources[path].module))
    context.findings = lint.findings
    plan = TensorWhileToWhileLoop().plan(finding, context)
    assert isinstance(plan, Refusal) and "`self`" in plan.reason


def test_declared_inputs_are_checked_as_configuration(tmp_path):
    from graphlint.config import ConfigError, config_for

    shutil.copy(os.path.join(os.path.dirname(os.path.dirname(__file__)), "examples", "ported.py"), tmp_path)
    cases = {
        '["float33[4,16]", "float32[4,16]"]': "'ported:PortedDenoiser': 'float33[4,16]': unknown dtype 'float33'",
        '["float32[4,16]"]': "'ported:PortedDenoiser': 1 input declared, but PortedDenoiser takes 2",
        '["float32[4,x]", "float32[4,16]"]': "dimension 'x' is not a size",
        '["int:two", "float32[4,16]"]': "'two' is not a int",
        '{ inputs = ["float32[4,16]", "float32[4,16]"], init = 3 }': "init must be a table",
        '{ input = ["float32[4,16]"] }': "unknown key 'input'",
    }
    for declared, message in cases.items():
        (tmp_path / "pyproject.toml").write_text(f'[tool.graphlint.validate.inputs]\n"ported:PortedDenoiser" = {declared}\n')
        with pytest.raises(ConfigError) as raised:
            config_for(str(tmp_path))
        assert message in str(raised.value) and "pyproject.toml" in str(raised.value), (declared, str(raised.value))
    (tmp_path / "pyproject.toml").write_text('[tool.graphlint.validate.inputs]\n'
                                             '"ported:PortedDenoiser" = ["float32[4,16]", "float32[?,16]"]\n'
                                             '"ported:Missing" = ["float32[2]"]\n"other.module:Net" = ["bool[3]"]\n')
    assert len(config_for(str(tmp_path)).validate_inputs) == 3  # entries not found on disk are not counted


@pytest.mark.compile
def test_bundled_examples_fix_and_validate(tmp_path):
    # The README's walk-through: every fix offered for examples/ is applied only after MindSpore proves it; in
    # the half-ported model (a `try` only a person can remove) the fixes are kept on their PYNATIVE_MODE verdict
    # and say what blocks compiling.
    from graphlint.config import config_for

    examples = os.path.join(os.path.dirname(os.path.dirname(__file__)), "examples")
    shutil.copytree(examples, tmp_path / "examples")
    folder = str(tmp_path / "examples")
    report = fix_paths([folder], config_for(folder), unsafe=True, validate=True)
    assert not [r for r in report.refused if r.reason.startswith("validation failed")], report.refused
    model = [a for a in report.applied if a.path.endswith("model.py")]
    ported = [a for a in report.applied if a.path.endswith("ported.py")]
    assert {"augmented-assign-to-input", "del-in-graph", "python-loop-exceeds-call-depth", "numpy-call-on-tensor",
            "tensor-item-in-graph", "tensor-condition-control-flow"} <= {a.symbol for a in model}
    assert all("matches the original PYNATIVE_MODE outputs" in a.validation for a in model)
    assert {"augmented-assign-to-input", "del-in-graph", "python-loop-exceeds-call-depth", "numpy-call-on-tensor",
            "tensor-item-in-graph", "tensor-condition-control-flow"} <= {a.symbol for a in ported}
    for item in ported:
        assert item.blocked_by and item.blocked_by[0].startswith("E5101 at ported.py:"), item
        assert "compile pending: compiling stops at E5101 at ported.py:" in item.validation, item.validation
    assert report.pending == ported
    # What is left has no fix to apply: a second run changes nothing.
    again = fix_paths([folder], config_for(folder), unsafe=True)
    assert not again.applied and not [f for f in again.files if f.changed]


def test_fix_context_spans_are_libcst_positions_and_parents_agree_with_the_field_walk():
    """FixContext records spans in its own position-tracking code generation: the same spans as libcst's
    PositionProvider, and the same parents as a walk over the nodes' fields (for every node the walk maps)."""
    import glob

    from libcst.metadata import PositionProvider

    from graphlint.fixers.base import FixContext, parent_map

    root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    files = sorted(glob.glob(os.path.join(root, "examples", "*.py"))
                   + glob.glob(os.path.join(root, "tests", "fixtures", "**", "*.py"), recursive=True)
                   + glob.glob(os.path.join(root, "graphlint", "fixers", "*.py")))
    assert len(files) > 20
    for path in files:
        with open(path, encoding="utf-8") as handle:
            context = FixContext(handle.read())
        provider = PositionProvider()
        provider._computed = {}
        provider._gen_impl(context.tree)
        expected = {node: ((r.start.line, r.start.column), (r.end.line, r.end.column))
                    for node, r in provider._computed.items()}
        assert context.positions == expected, path
        walked = parent_map(context.tree)
        assert walked and all(context.parents[key] is parent for key, parent in walked.items()), path


def test_fix_context_generates_a_function_alone_with_the_spans_and_parents_of_the_whole_module():
    """A lookup inside a function generates only the outermost function holding it: its spans and parents
    (up to the module) are those the whole module's generation gives; decorated methods, comments and blank
    lines before them, nested classes included."""
    import glob

    from graphlint.analysis.source import parse
    from graphlint.analysis.tree import nodes_of_class
    from graphlint.fixers.base import CST_KINDS, FixContext

    root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    files = sorted(glob.glob(os.path.join(root, "examples", "*.py"))
                   + glob.glob(os.path.join(root, "tests", "fixtures", "**", "*.py"), recursive=True)
                   + glob.glob(os.path.join(root, "graphlint", "fixers", "*.py")))
    regions = 0
    for path in files:
        with open(path, encoding="utf-8") as handle:
            text = handle.read()
        module = parse(text)
        whole = FixContext(text)
        expected, parents = whole.positions, whole.parents
        for func in nodes_of_class(module, astroid_nodes.FunctionDef):
            if any(isinstance(a, astroid_nodes.FunctionDef) for a in func.node_ancestors()):
                continue
            context = FixContext(text, tree=whole.tree)
            # a statement of its body (a decorated `def` itself is not found at its astroid span, in either)
            inner = next((n for n in reversed(func.body) if type(n) in CST_KINDS), None)
            if inner is None:
                continue
            found = context.find(inner)
            assert found is not None and found is whole.find(inner), (path, func.name)
            if not context._complete:  # noqa: SLF001 - generated on its own
                regions += 1
                assert all(expected[node] == span for node, span in context._spans.items()), (path, func.name)  # noqa: SLF001
                assert whole.find(func) is None or context.find(func) is whole.find(func), (path, func.name)
                node = found
                while node is not whole.tree:  # the path to the module
                    assert context.parent(node) is parents[id(node)], (path, func.name)
                    node = parents[id(node)]
                assert not context._complete  # noqa: SLF001 - the path was known without the module
    assert regions > 100


def test_an_edit_inside_one_function_regenerates_only_that_function():
    """FixContext.code_of: an edit inside a function generated on its own gives the module's code by
    regenerating that function alone, the same text as generating the module; an edit that also adds an
    import (outside the function) falls back to the module."""
    import libcst as cst

    from graphlint.analysis.source import parse
    from graphlint.analysis.tree import nodes_of_class
    from graphlint.fixers.base import FixContext, _add_imports, replace_in_tree

    text = textwrap.dedent("""\
        import mindspore as ms
        from mindspore import nn


        class Net(nn.Cell):
            # before the method
            @ms.jit
            def construct(self, x):
                x += 1  # in place
                return x


        def tail():
            return 0
        """)
    module = parse(text)
    statement = next(iter(nodes_of_class(module, astroid_nodes.AugAssign)))
    context = FixContext(text)
    node = context.find(statement)
    assert node is not None and not context._complete  # noqa: SLF001 - found in the method alone
    line = context.statement_line(node)
    rewritten = line.with_changes(body=[cst.parse_statement("x = x + 1").body[0]])
    edited = replace_in_tree(context.tree, {id(line): rewritten}, context.parent_ids([line]))
    assert context.code_of(edited) == edited.code == text.replace("x += 1  # in place", "x = x + 1  # in place")
    assert not context._complete  # noqa: SLF001 - neither the lookup nor the code needed the module
    with_import = _add_imports(edited, [("mindspore", "ops", None)])
    assert context.code_of(with_import) == with_import.code != edited.code


def test_a_builtin_condition_is_refused_with_the_reason(tmp_path):
    """`all(t > 0)` is a Tensor only in graph mode's fallback; in PYNATIVE_MODE it is a Python bool, and
    `ops.where(bool, ...)` raises TypeError: the select rewrite refuses it and names the ops form."""
    target, _original, report = _fixed_copy("tensor-condition-control-flow/select_refused_builtin", tmp_path)
    [refused] = [r for r in report.refused if r.symbol == "tensor-condition-control-flow"]
    assert refused.line == 10
    assert refused.reason == ("the condition `all([x[0, 0] > 0, x[1, 0] > 0])` is a Python bool in PYNATIVE_MODE (the "
                              "builtin `all`): `ops.where` needs a Tensor condition; use `ops.all` or `.all()`")
    text = "from mindspore import nn\n\n\nclass Net(nn.Cell):\n    def construct(self, x):\n" \
           "        return x * 2 if any([x[0, 0] > 0, x[1, 0] > 0]) else x\n"
    target.write_text(text, encoding="utf-8")
    report = fix_paths([str(target)], Config(), unsafe=True)
    assert target.read_text(encoding="utf-8") == text
    assert [(r.line, r.reason.split(":")[0]) for r in report.refused if r.symbol == "tensor-condition-control-flow"] \
        == [(6, "the condition `any([x[0, 0] > 0, x[1, 0] > 0])` is a Python bool in PYNATIVE_MODE (the builtin "
                "`any`)")]
    # of a Tensor, `all(t)` in a condition is rewritten first (W6102): `t.all()`, which the select takes
    text = "from mindspore import nn\n\n\nclass Net(nn.Cell):\n    def construct(self, x):\n" \
           "        return x * 2 if any(x[0] > 0) else x\n"
    target.write_text(text, encoding="utf-8")
    fix_paths([str(target)], Config(), unsafe=True)
    assert "return ops.where((x[0] > 0).any(), x * 2, x)" in target.read_text(encoding="utf-8")


def test_sets_other_than_constant_membership_tests_are_refused_with_the_reason(tmp_path):
    target, _original, report = _fixed_copy("set-in-graph/iterated_refused", tmp_path)
    assert [(r.line, r.reason) for r in report.refused if r.symbol == "set-in-graph"] == [
        (9, "the set is not the right side of `in`: a tuple would keep duplicates and an order; build the tuple "
            "by hand")]
    text = ("from mindspore import nn\n\n\nclass Net(nn.Cell):\n    def construct(self, x):\n"
            "        k = 2\n        if k in {1, k}:\n            x = x + 1\n"
            "        sizes = {i % 2 for i in range(4)}\n        return x * len(sizes)\n")
    target.write_text(text, encoding="utf-8")
    report = fix_paths([str(target)], Config())
    assert target.read_text(encoding="utf-8") == text
    assert [(r.line, r.reason.split(":")[0]) for r in report.refused if r.symbol == "set-in-graph"] == [
        (7, "the set holds values other than constants"), (9, "a set comprehension builds a set at run time")]


def test_a_set_membership_of_a_tensor_is_refused_and_of_an_unknown_value_is_unsafe(tmp_path):
    target = tmp_path / "members.py"
    text = ("from mindspore import nn\nfrom settings import current_key\n\n\nclass Net(nn.Cell):\n"
            "    def construct(self, x):\n"
            "        if x.sum() in {1.0, 2.0}:\n            x = x + 1\n"
            "        if current_key() in {1, 2}:\n            x = x * 2\n        return x\n")
    target.write_text(text, encoding="utf-8")
    report = fix_paths([str(target)], Config())
    assert target.read_text(encoding="utf-8") == text
    assert [(r.line, r.reason.split(":")[0]) for r in report.refused if r.symbol == "set-in-graph"] == [
        (7, "`x.sum()` may be a Tensor"), (9, "unsafe fix (it may change behaviour in corner cases)")]
    fix_paths([str(target)], Config(), unsafe=True)
    fixed = target.read_text(encoding="utf-8")
    assert "if current_key() in (1, 2):" in fixed and "{1.0, 2.0}" in fixed


def test_a_loop_else_after_a_break_becomes_a_flag_the_break_sets(tmp_path):
    target, _original, report = _fixed_copy("loop-else-in-graph/break_flag", tmp_path)
    assert [(a.line, a.safety, a.description) for a in report.applied] == [
        (10, "safe", "`for ... else` with `break` -> `loop_broke` set by `break`, `if not loop_broke:` after the "
                     "loop")]
    assert "                loop_broke = True\n                break\n" in _read(target)


def test_a_refusal_in_a_function_another_fix_changes_is_planned_again(tmp_path):
    """Two Tensor `if`s, the second selecting what the first assigned: both are rewritten in one run (`y`'s two
    definitions are both of `x`'s dtype and shape, whether or not the first `if` is already a select), so a second
    --fix has nothing left (the two `if` lines are identical: the second must not be taken for the first)."""
    target = tmp_path / "twice.py"
    text = ("from mindspore import nn, ops\n\n\nclass Net(nn.Cell):\n    def construct(self, x, y):\n"
            "        if x.sum() > 0:\n            y = x\n        else:\n            y = x * 2\n"
            "        if x.sum() > 0:\n            y = x\n        else:\n            y = y\n        return x, y\n")
    target.write_text(text, encoding="utf-8")
    report = fix_paths([str(target)], Config(), unsafe=True)
    fixed = target.read_text(encoding="utf-8")
    assert fixed.splitlines()[5:8] == ["        y = ops.where(x.sum() > 0, x, x * 2)",
                                       "        y = ops.where(x.sum() > 0, x, y)", "        return x, y"]
    assert sorted((a.line, a.rule) for a in report.applied) == [(6, "I5806"), (7, "I5806")]
    assert not report.refused
    again = fix_paths([str(target)], Config(), unsafe=True)
    assert target.read_text(encoding="utf-8") == fixed and not again.applied


def test_a_refusal_put_off_for_another_fix_in_its_function_is_still_reported_once(tmp_path):
    target = tmp_path / "mixed.py"
    text = ("from mindspore import nn\n\n\nclass Net(nn.Cell):\n    def construct(self, x):\n"
            "        h = x * 2\n        x += h\n        if x.sum() > 0:\n            y = x\n        else:\n"
            "            y = (x, x)\n        return y\n")
    target.write_text(text, encoding="utf-8")
    report = fix_paths([str(target)], Config(), unsafe=True)
    assert [(a.line, a.symbol) for a in report.applied] == [(7, "augmented-assign-to-input")]
    assert [(r.line, r.symbol) for r in report.refused] == [(8, "branch-type-mismatch"),
                                                            (8, "tensor-condition-control-flow")]
    assert all("y" in refused.reason for refused in report.refused)


def test_a_value_before_a_loop_is_safe_only_when_the_loop_surely_assigns_it(tmp_path):
    _target, _original, report = _fixed_copy("variable-defined-in-loop/range", tmp_path)
    # lines as in the fixed file: the `for` that `i` is the target of, the line that first assigns `last`
    assert [(a.line, a.description) for a in report.applied] == [(12, "`i = None` before the `for`"),
                                                                (13, "`last = None` before the `for`")]
    target = tmp_path / "layers.py"
    shutil.copy(os.path.join(FIXTURES, "variable-defined-in-loop", "cell_list_input.py"), target)
    report = fix_paths([str(target)], Config())
    assert [(r.line, r.reason.split(":")[0]) for r in report.refused] == [
        (14, "unsafe fix (it may change behaviour in corner cases)")]
    # before a `while` on a Tensor condition: `y = ops.zeros_like(x + 1)`, only with --unsafe-fixes
    target, _original, report = _fixed_copy("variable-defined-in-loop/tensor_while_refused", tmp_path)
    assert [(r.line, r.reason) for r in report.refused] == [
        (11, "unsafe fix (it may change behaviour in corner cases): apply it with --unsafe-fixes")]
    report = fix_paths([str(target)], Config(), unsafe=True)
    assert [(a.line, a.description) for a in report.applied] == [
        (12, "`y = ops.zeros_like(x + 1)` before the `while`")]
    assert "        y = ops.zeros_like(x + 1)\n        while x.sum() < 100:\n" in _read(target)


def test_a_value_before_an_if_is_unsafe_under_a_tensor_condition_and_refused_in_a_loop(tmp_path):
    """Under a Tensor condition the value is `ops.zeros_like(<what a branch assigns>)`: unsafe (a path that raised
    UnboundLocalError now reads zeros), refused when that value reads a name the branch computes first."""
    _target, _original, report = _fixed_copy("variable-defined-in-one-branch/tensor_condition_refused", tmp_path)
    assert [(r.line, r.reason) for r in report.refused if r.symbol == "variable-defined-in-one-branch"] == [
        (10, "unsafe fix (it may change behaviour in corner cases): apply it with --unsafe-fixes")]
    _target, _original, report = _fixed_copy("variable-defined-in-one-branch/tensor_condition_computed_in_branch_refused",
                                             tmp_path)
    assert [(r.line, r.reason) for r in report.refused if r.symbol == "variable-defined-in-one-branch"] == [
        (11, "`x.sum() > 0` depends on Tensor values, so graph mode joins both paths and `out` needs a value of "
             "the same dtype and shape on each: `h` has no value before the statement; assign it in every branch "
             "(by hand)")]
    _target, _original, report = _fixed_copy("variable-defined-in-one-branch/in_loop_refused", tmp_path)
    assert [(r.line, r.reason) for r in report.refused] == [
        (12, "the `if` is inside a loop: a value before it would reset `m` on every pass; assign it before the "
             "loop (by hand)")]
    # in an unrolled `for`: the value goes before the loop, where each pass still sees what an earlier one assigned
    _target, _original, report = _fixed_copy("variable-defined-in-one-branch/in_for_loop", tmp_path)
    assert [(a.line, a.description) for a in report.applied] == [
        (12, "`m = None` before the `for` around the `if`")]


def test_a_with_block_loses_its_manager_only_for_nullcontext_and_no_grad(tmp_path):
    _target, _original, report = _fixed_copy("unsupported-context-manager/no_grad", tmp_path)
    assert [(a.line, a.safety, a.description) for a in report.applied] == [
        (14, "unsafe", "`with _no_grad()` -> its block, then `ops.stop_gradient` on `teacher`")]
    # `teacher = self.proj(x)` is known to be a Tensor (an nn.Dense output); `scale` is a Python int: no gradient
    # to stop; `unused` is not read
    _target, _original, report = _fixed_copy("unsupported-context-manager/null_context", tmp_path)
    assert [(a.line, a.safety) for a in report.applied] == [(10, "safe")]
    _target, _original, report = _fixed_copy("unsupported-context-manager/plain_class_refused", tmp_path)
    assert [(r.line, r.reason) for r in report.refused] == [
        (17, "only `contextlib.nullcontext()` and `_no_grad()` blocks are rewritten: enter the manager around the "
             "Cell call, or make it a @jit_class")]


def test_a_value_before_an_if_needs_a_condition_known_to_be_decided_while_compiling(tmp_path):
    """`None` before an `if` whose condition may be a Tensor would only trade one graph error for another (a
    join of None and a Tensor): a condition of unknown kind is refused, as in examples/ported.py."""
    target = tmp_path / "unsure.py"
    text = ("from mindspore import nn\nfrom blocks import encode\n\n\nclass Net(nn.Cell):\n"
            "    def construct(self, x):\n        h = encode(x)\n        if h.mean() > 0:\n            gate = h * 2\n"
            "        return x * gate\n")
    target.write_text(text, encoding="utf-8")
    report = fix_paths([str(target)], Config(), unsafe=True)
    assert target.read_text(encoding="utf-8") == text
    assert [(r.line, r.reason) for r in report.refused if r.symbol == "variable-defined-in-one-branch"] == [
        (9, "cannot tell whether `h.mean() > 0` depends on Tensor values (if it does, `gate` needs a value of the "
            "same dtype and shape in each branch)")]


def test_a_value_before_a_while_needs_its_condition_decided_while_compiling(tmp_path):
    target = tmp_path / "loops.py"
    text = ("from mindspore import nn\nfrom blocks import keep_going\n\n\nclass Net(nn.Cell):\n"
            "    def construct(self, x):\n        i = 0\n        while i < 3:\n            y = x * i\n            i = i + 1\n"
            "        while keep_going():\n            z = x * 2\n        return y + z\n")
    target.write_text(text, encoding="utf-8")
    report = fix_paths([str(target)], Config(), unsafe=True)
    assert "        y = None\n        while i < 3:\n" in target.read_text(encoding="utf-8")
    assert [(a.line, a.safety) for a in report.applied] == [(10, "unsafe")]  # the counter loop might not run
    assert [(r.line, r.reason) for r in report.refused] == [
        (13, "cannot tell whether `keep_going()` depends on Tensor values (if it does, the loop is compiled as one "
             "and `z` needs a value of the body's dtype and shape before it)")]


def test_a_walrus_is_hoisted_only_where_it_runs_once_and_first(tmp_path):
    _target, _original, report = _fixed_copy("walrus-in-graph/hoisted", tmp_path)
    # lines as in the fixed file: the statements that held the walruses
    assert sorted((a.line, a.safety) for a in report.applied) == [(11, "safe"), (14, "safe"), (16, "unsafe")]
    target = tmp_path / "walrus.py"
    text = ("from mindspore import nn\n\n\nclass Net(nn.Cell):\n    def construct(self, x, flag=None):\n"
            "        q = flag and (r := 3)\n        z = 1\n        z += (z := 2)\n        while (n := x.shape[0]) > 9:\n"
            "            x = x[1:]\n        return [t * (k := 2) for t in (x, q)], z\n")
    target.write_text(text, encoding="utf-8")
    report = fix_paths([str(target)], Config(), unsafe=True)
    assert target.read_text(encoding="utf-8") == text
    assert [(r.line, r.reason.split(": assign")[0]) for r in report.refused] == [
        (6, "the walrus runs only when the `and`/`or` before it does not decide"),
        (8, "the statement reads `z` before the walrus sets it"),
        (9, "the walrus is in a `while` test, evaluated before every pass"),
        (11, "the walrus is in a comprehension or lambda")]


def test_a_comprehension_with_several_for_clauses_becomes_loops_that_run_where_it_ran(tmp_path):
    _target, _original, report = _fixed_copy("multi-for-comprehension/pairs", tmp_path)
    # lines as in the fixed file: `terms = []`, `table = {}`, `total = sum(items)`
    assert sorted((a.line, a.safety) for a in report.applied) == [(10, "safe"), (15, "safe"), (23, "safe")]
    _target, _original, report = _fixed_copy("multi-for-comprehension/nested_refused", tmp_path)
    assert [(r.line, r.reason) for r in report.refused] == [
        (9, "the comprehension is in a comprehension or lambda: write the loops where it runs (by hand)")]
    target = tmp_path / "lazy.py"
    text = ("from mindspore import nn, ops\n\n\nclass Net(nn.Cell):\n    def construct(self, x):\n"
            "        hit = any(t > 0 for t in (1, 2) for u in (3,))\n"
            "        return ops.relu(x) + sum(x * a for a in range(2) for b in range(2)), hit\n")
    target.write_text(text, encoding="utf-8")
    report = fix_paths([str(target)], Config())
    assert target.read_text(encoding="utf-8") == text
    assert [(r.line, r.reason.split(":")[0]) for r in report.refused] == [
        (6, "unsafe fix (it may change behaviour in corner cases)"), (7, "unsafe fix (it may change behaviour in corner cases)")]
    report = fix_paths([str(target)], Config(), unsafe=True)
    assert sorted(a.description.split(" (")[1] for a in report.applied) == [
        "calls the statement makes before it now run after it)", "the generator's items are all computed up front)"]


def test_fix_reports_lines_of_the_file_as_it_is_left(tmp_path):
    """A refusal decided in a later round, after an earlier fix added lines above it, is reported at its line in
    the written file; with --diff (nothing written) at its line in the original."""
    text = ("from mindspore import nn\n\n\nclass Net(nn.Cell):\n    def construct(self, x):\n"
            "        for k in range(2):\n            w = x * k\n        if x.sum() > 0:\n            y = x\n"
            "        else:\n            y = (x, x)\n        return w + y[0]\n")
    target = tmp_path / "net.py"
    target.write_text(text, encoding="utf-8")
    report = fix_paths([str(target)], Config(), unsafe=True, write=False)
    assert [(r.line, r.symbol) for r in report.refused] == [(8, "branch-type-mismatch"),
                                                            (8, "tensor-condition-control-flow")]
    assert [(a.line, a.symbol) for a in report.applied] == [(7, "variable-defined-in-loop")]
    report = fix_paths([str(target)], Config(), unsafe=True)
    lines = target.read_text(encoding="utf-8").splitlines()
    assert [(r.line, lines[r.line - 1].strip()) for r in report.refused] == [(9, "if x.sum() > 0:")] * 2
    assert [(a.line, lines[a.line - 1].strip()) for a in report.applied] == [(8, "w = x * k")]


def test_a_match_on_values_becomes_an_if_chain_and_one_that_binds_names_is_refused(tmp_path):
    target, _original, report = _fixed_copy("match-in-graph/values", tmp_path)
    assert sorted((a.safety, a.description) for a in report.applied) == [
        ("safe", "`match` with 1 case -> an `if`/`elif` chain"), ("safe", "`match` with 3 cases -> an `if`/`elif` chain")]
    _target, _original, report = _fixed_copy("match-in-graph/capture_refused", tmp_path)
    assert [(r.line, r.reason) for r in report.refused] == [
        (13, "`case` 1: a tuple pattern destructures the subject; write the `if` chain by hand")]


def test_a_lambda_in_a_for_body_becomes_a_nested_def_unless_it_has_defaults(tmp_path):
    target, _original, report = _fixed_copy("lambda-in-for-loop/nested_def", tmp_path)
    lines = target.read_text(encoding="utf-8").splitlines()
    assert [(lines[a.line - 1].strip(), a.safety) for a in report.applied] == [
        ("def scale(t):", "safe"), ("y = scale(y) + ops.Map()(step_fn, (y, x))[1]", "safe")]
    _target, _original, report = _fixed_copy("lambda-in-for-loop/default_refused", tmp_path)
    assert [(r.line, r.reason) for r in report.refused] == [
        (11, "the lambda has default values, computed where it is written: write the `def` by hand")]


def test_a_class_in_graph_code_moves_to_module_level_unless_it_reads_the_function(tmp_path):
    target, _original, report = _fixed_copy("class-def-in-graph/hoisted", tmp_path)
    lines = target.read_text(encoding="utf-8").splitlines()
    assert [(lines[a.line - 1], a.safety) for a in report.applied] == [("class Scale:", "safe")]
    _target, _original, report = _fixed_copy("class-def-in-graph/closure_refused", tmp_path)
    assert [(r.line, r.reason) for r in report.refused] == [
        (10, "the class reads `k` of the function around it: pass them in instead (by hand)")]


def test_a_nested_functional_loop_body_moves_to_module_level_unless_it_reads_the_function(tmp_path):
    target, _original, report = _fixed_copy("functional-loop-body-closure/hoisted", tmp_path)
    lines = target.read_text(encoding="utf-8").splitlines()
    assert [(lines[a.line - 1].strip(), a.safety, a.description) for a in report.applied] == [
        ("return ops.WhileLoop()(cond, body, (Tensor(0, ms.int32), y))[1]", "safe",
         "move `cond` and `body` to module level, before `Net`")]
    # a body that reads the function's Tensor: the Python loop the primitive runs, only with --unsafe-fixes
    target, _original, report = _fixed_copy("functional-loop-body-closure/captured_refused", tmp_path)
    assert [(r.line, r.reason) for r in report.refused] == [
        (17, "unsafe fix (it may change behaviour in corner cases): apply it with --unsafe-fixes")]
    report = fix_paths([str(target)], Config(), unsafe=True)
    assert [(a.line, a.safety, a.description) for a in report.applied] == [
        (20, "unsafe", "`WhileLoop` -> the Python loop it runs, into `carry_2`")]
    assert _read(target).endswith("        carry_2 = (Tensor(0, ms.int32), x)\n        while keep_going(carry_2):\n"
                                  "            carry_2 = step(carry_2)\n        return carry_2[1]\n")
    _target, _original, report = _fixed_copy("functional-loop-body-closure/fori_bounds_refused", tmp_path)
    assert [(r.line, r.reason) for r in report.refused] == [
        (12, "the bounds are not constants: a Python loop over them would be a Tensor loop; give constant "
             "`lower`/`upper` to have it unrolled")]


def _two_loop_bodies(cell: str, function: str) -> str:
    """A Cell and a jit function, each with a nested loop body named `body` (lines 7 and 14)."""
    return textwrap.dedent(f"""\
        import mindspore as ms
        from mindspore import nn, ops


        class {cell}(nn.Cell):
            def construct(self, x):
                def body(i, y):
                    return ops.relu(y - 1)
                return ops.ForiLoop()(0, 3, body, x)


        @ms.jit
        def {function}(x):
            def body(i, y):
                return ops.relu(y + 1)
            return ops.ForiLoop()(0, 2, body, x)
        """)


def test_two_functions_defining_one_name_move_theirs_under_names_of_their_own_or_keep_them(tmp_path):
    """Moved in one round under their names, the second `body` (or `class Scale`) would replace the first at
    module level: loop bodies move under names of their own, classes stay."""
    target = tmp_path / "net.py"
    target.write_text(_two_loop_bodies("Loop", "step") + textwrap.dedent("""\


        class Scaled(nn.Cell):
            def construct(self, x):
                class Scale:
                    factor = 2
                return x * Scale.factor

            def bprop(self, x, out, dout):
                class Scale:
                    factor = 3
                return (dout * Scale.factor,)
        """), encoding="utf-8")
    report = fix_paths([str(target)], Config(), unsafe=True, write=False)
    assert sorted((a.line, a.description) for a in report.applied) == [
        (9, "move `body` as `body_loop_construct` to module level, before `Loop`"),
        (16, "move `body` as `body_step` to module level, before `step`")]
    fixed = report.files[0].after
    assert "    return ops.ForiLoop()(0, 3, body_loop_construct, x)\n" in fixed
    assert "    return ops.ForiLoop()(0, 2, body_step, x)\n" in fixed
    assert sorted((r.line, r.reason) for r in report.refused) == [
        (21, "another function also defines a `Scale`: rename one of them first (by hand)"),
        (26, "another function also defines a `Scale`: rename one of them first (by hand)")]


def test_two_namesakes_that_would_get_one_module_level_name_are_refused(tmp_path):
    """`Net.construct` and a function `net_construct` would both move their `body` as `body_net_construct`."""
    target = tmp_path / "net.py"
    target.write_text(_two_loop_bodies("Net", "net_construct"), encoding="utf-8")
    report = fix_paths([str(target)], Config(), unsafe=True, write=False)
    assert not report.applied
    reason = "another function's `body` would get the same module-level name: rename one of them first (by hand)"
    assert sorted((r.line, r.reason) for r in report.refused) == [(9, reason), (16, reason)]


def test_math_on_a_python_float_is_not_rewritten_to_ops(tmp_path):
    """`math.exp(-float(t.asnumpy()))` computes on a Python float: `ops.exp` of it is not the same function on
    a Tensor. The NumPy/math fixer asks the analysis whether the argument is a Tensor and refuses when it is not."""
    target, original, report = _fixed_copy("math-call-on-tensor/python_float_refused", tmp_path)
    assert _read(target) == original
    assert "sharpness = math.exp(-float(entropy.asnumpy()))" in _read(target)
    [refused] = [r for r in report.refused if r.symbol == "math-call-on-tensor"]
    assert refused.line == 12
    assert refused.reason.startswith("`-float(entropy.asnumpy())`, the data of `math.exp`, is not proven a Tensor "
                                     "(the analysis finds: float)")


def test_validation_blockers_come_from_the_session_in_hand(tmp_path):
    # What GRAPH_MODE still fails on in a candidate rewrite is what the run's session reports for it, with the
    # rest of the project: main.py passes `n` as the Python int 3, so `range(n)` is no Tensor range there. The
    # same text linted on its own (no caller known) takes `n` for a Tensor and would name E5904 as a blocker.
    from graphlint.fixers.driver import _blockers, _restored
    from graphlint.run.lint import lint_paths, lint_text

    model, main = tmp_path / "model.py", tmp_path / "main.py"
    model.write_text("import mindspore.nn as nn\n\n\nclass Net(nn.Cell):\n    def construct(self, x, n):\n"
                     "        for i in range(n):\n            x = x + 1\n        del i\n        return x\n")
    main.write_text("import numpy as np\nfrom mindspore import Tensor\nfrom model import Net\n\n"
                    "print(Net()(Tensor(np.ones(3)), 3))\n")
    session = lint_paths([str(model), str(main)], Config()).session
    text = _read(model)
    candidate = text.replace("        del i\n", "")
    assert [(b.rule, b.place) for b in _blockers(session, str(model), text)] == [("E5102", "model.py:8")]
    assert _blockers(session, str(model), candidate) == []
    assert session.sources[str(model)].text == candidate  # the candidate was re-linted in the session
    assert [f.rule.id for f in lint_text(candidate, Config(), str(model), "model")] == ["E5904"]
    _restored(session, str(model), text)  # the round's text is put back for the other files of the round
    assert session.sources[str(model)].text == text
    assert [b.rule for b in _blockers(session, str(model), text)] == ["E5102"]


def test_comments_inside_a_rewritten_if_move_above_it_footer_included(tmp_path):
    """An `if` rewritten to `ops.where` keeps its comments above the new statement, in order: one in a branch
    and one after a block's last statement (libcst keeps that in the block's footer, past the `if`'s span); an
    `if` without comments gives no stray lines."""
    target = tmp_path / "notes.py"
    text = ("from mindspore import nn, ops\n\n\nclass Net(nn.Cell):\n    def construct(self, x):\n"
            "        if x.sum() > 0:\n            y = x\n        else:\n"
            "            y = x * 2\n            # doubled when negative\n        if x.mean() > 0:\n"
            "            # keep the sign\n            z = x\n        else:\n            z = y\n"
            "        if x.max() > 0:\n            w = z\n        else:\n            w = x\n        return y, z, w\n")
    target.write_text(text, encoding="utf-8")
    fix_paths([str(target)], Config(), unsafe=True)
    assert target.read_text(encoding="utf-8").splitlines()[5:11] == [
        "        # doubled when negative", "        y = ops.where(x.sum() > 0, x, x * 2)", "        # keep the sign",
        "        z = ops.where(x.mean() > 0, x, y)", "        w = ops.where(x.max() > 0, z, x)", "        return y, z, w"]


@pytest.mark.parametrize("indent", ["", "    ", "\t"])
def test_a_rewrite_that_only_python_s_compiler_rejects_is_caught_at_the_module_s_line(indent):
    """When an edit changed one function, only that function is compiled (in stand-in classes at its
    indentation): a `break` outside a loop, which parses but does not compile, is still refused, at the line
    the module has it; the same function rewritten correctly passes."""
    import libcst as cst

    from graphlint.analysis.source import parse
    from graphlint.fixers.base import FixContext, replace_in_tree
    from graphlint.fixers.planner import rewrite_problem

    if indent:
        body = (f"class Net:\n{indent}'doc'\n\n{indent}def construct(self, x):\n{indent}{indent}y = x + 1\n"
                f"{indent}{indent}return y\n")
    else:
        body = "def construct(self, x):\n    y = x + 1\n    return y\n"
    text = "import os\n\n\n" + body
    statement = next(parse(text, "m", "m.py").nodes_of_class(astroid_nodes.Assign))
    for replacement, expected in (("break", f"line {statement.lineno}: 'break' outside loop"), ("y = x - 1", "")):
        context = FixContext(text)
        line = context.statement_line(context.find(statement))
        edited = replace_in_tree(context.tree, {id(line): cst.parse_statement(replacement + "\n")},
                                 context.parent_ids([line]))
        new_text = context.code_of(edited)
        assert context.regenerated is not None  # only the function was generated again
        assert rewrite_problem(context, new_text) == expected, new_text
