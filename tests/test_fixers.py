"""Fixers: fixture pairs (input -> expected), idempotence, untouched files on refusal, and a compile matrix
that runs every fixture's original and fixed code through real MindSpore in both modes."""

import os
import re
import shutil

import pytest

from graphlint.catalogue import RULES, lookup
from graphlint.catalogue.model import FixSafety
from graphlint.config import Config
from graphlint.fixers import FIXER_MODULES, FIXERS, fix_safety, fixers_for
from graphlint.fixers.driver import fix_paths
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


@pytest.mark.parametrize("case", CASES)
def test_fixture_is_rewritten_as_expected(case, tmp_path):
    target, original, report = _fixed_copy(case, tmp_path)
    expected = _read(os.path.join(FIXTURES, f"{case}_expected.py"))
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
    # The fix is right, but the declared inputs make the original fail in PYNATIVE_MODE (rank mismatch):
    # validation cannot pass, so nothing may be written.
    target = tmp_path / "model.py"
    shutil.copy(os.path.join(FIXTURES, "augmented-assign-to-input", "inplace_input.py"), target)
    (tmp_path / "pyproject.toml").write_text('[tool.graphlint.validate.inputs]\n"model:Net" = ["int:3"]\n')
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
    assert fix_safety(lookup("try-in-graph")) is None


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


@pytest.mark.compile
def test_bundled_examples_fix_and_validate(tmp_path):
    # The README's walk-through: every fix offered for examples/ is applied only after MindSpore proves it.
    from graphlint.config import config_for

    examples = os.path.join(os.path.dirname(os.path.dirname(__file__)), "examples")
    shutil.copytree(examples, tmp_path / "examples")
    folder = str(tmp_path / "examples")
    report = fix_paths([folder], config_for(folder), unsafe=True, validate=True)
    assert not [r for r in report.refused if r.reason.startswith("validation failed")], report.refused
    fixed = {a.symbol for a in report.applied}
    assert {"augmented-assign-to-input", "del-in-graph", "python-loop-exceeds-call-depth", "numpy-call-on-tensor",
            "tensor-item-in-graph", "tensor-condition-control-flow"} <= fixed
    assert all("matches the original PYNATIVE_MODE outputs" in a.validation for a in report.applied)
    # What is left has no fix to apply: a second run changes nothing.
    again = fix_paths([folder], config_for(folder), unsafe=True)
    assert not again.applied and not [f for f in again.files if f.changed]
