"""The fix planner (graphlint/fixers/planner.py): one answer per finding, and every consumer gives the same one:
--fix/--diff (the driver), the fix markers and fixable counts (fix_availability), and the language server's
code actions."""

import ast
import json
import os
import textwrap

from graphlint.config import Config
from graphlint.run.fix import fix_paths
from graphlint.fixers.planner import CannotPlan, Verdict, fix_availability, open_module, parse_problem, plan_fix
from graphlint.lint import lint_paths
from tests.support import ROOT, run_graphlint, write

FIXTURES = os.path.join(os.path.dirname(__file__), "fixtures", "fixes")

MODEL = textwrap.dedent("""\
    import mindspore as ms
    from mindspore import nn, ops


    class Net(nn.Cell):
        def construct(self, x):
            x += 1
            if x is 1.5:
                x = x * 2
            for k in {i % 2 for i in range(3)}:
                if k == 1:
                    break
                x = x - 1
            x = x - 1
            y = x.sum() > 0 and x
            y = y + x
            y = y + 0
            y = y * 1
            while x.sum() > 0:
                x = x - 1
            return x + y
    """)  # W5301 (safe) line 7, E5116 (unsafe) 8, E5112 (refused: a set comprehension) 10, E5807 (no fixer) 15,
    # I5806 (while) 19

SETCOMP_REASON = ("a set comprehension builds a set at run time: compute it in `__init__` and keep the result as a "
                  "tuple")
WHILE_SUGGESTION = ("display-only: `while` -> `ops.WhileLoop()(construct_loop_cond, construct_loop_body, (x,))`, "
                    "same compile and step time as the `while` (measured)")


def _module(path):
    lint = lint_paths([path], Config())
    source = lint.sources[path]
    info = lint.analysis.project.info(source.module)
    return lint, source, info


def _plans(path, **options):
    lint, source, info = _module(path)
    context = open_module(source.text, lint.analysis, info, lint.findings)
    return {(f.line, f.rule.id): plan_fix(f, context, **options) for f in lint.findings}


def _verdicts(plans):
    return {key: None if plan is None else (plan.verdict, plan.safety, plan.reason) for key, plan in plans.items()}


def test_each_finding_gets_one_verdict_at_the_safety_level_asked_for(tmp_path):
    path = write(tmp_path, "model.py", MODEL)
    unsafe_reason = "unsafe fix (it may change behaviour in corner cases): apply it with --unsafe-fixes"
    assert _verdicts(_plans(path)) == {
        (7, "W5301"): (Verdict.APPLY, "safe", ""),
        (8, "E5116"): (Verdict.NEEDS_UNSAFE, "unsafe", unsafe_reason),
        (10, "E5112"): (Verdict.REFUSED, None, SETCOMP_REASON),
        (15, "E5807"): None,  # no fixer for `and` joining a bool with a Tensor
        (19, "I5806"): (Verdict.SUGGEST, "display-only", WHILE_SUGGESTION),
    }
    with_unsafe = _verdicts(_plans(path, unsafe=True))
    assert with_unsafe[(8, "E5116")] == (Verdict.APPLY, "unsafe", "")
    # Without suggestions (--fix's later rounds, on code it wrote) the display-only fixer is not asked.
    assert _plans(path, suggest=False)[(19, "I5806")] is None


def test_a_suggestion_is_the_whole_file_with_the_display_only_rewrite(tmp_path):
    path = write(tmp_path, "model.py", MODEL)
    plans = _plans(path)
    suggested = plans[(19, "I5806")].suggestion
    assert parse_problem(suggested) == ""
    assert "        (x,) = ops.WhileLoop()(construct_loop_cond, construct_loop_body, (x,))\n" in suggested
    assert suggested.count("while ") == 0 and suggested.endswith("        return x + y\n")
    assert plans[(7, "W5301")].suggestion == ""  # only display-only plans are suggestions
    new_text, reason = plans[(7, "W5301")].rewritten()
    assert reason == "" and new_text.splitlines()[6] == "        x = x + 1"


def test_a_display_only_fixer_that_refuses_offers_nothing():
    path = os.path.join(FIXTURES, "tensor-condition-control-flow", "while_loop_refused_input.py")
    [plan] = [p for (_line, rule), p in _plans(path).items() if rule == "I5806"]
    assert plan.verdict is Verdict.SILENT and plan.edit is None and plan.reason == ""


def test_text_libcst_cannot_parse_cannot_be_planned(tmp_path):
    path = write(tmp_path, "model.py", MODEL)
    lint, _source, info = _module(path)
    try:
        open_module("def f(:\n", lint.analysis, info, lint.findings)
    except CannotPlan as exc:
        assert str(exc).startswith("libcst cannot parse the file: ")
    else:
        raise AssertionError("CannotPlan not raised")
    assert fix_availability(lint.analysis, info, lint.findings, "def f(:\n") == {}


def test_markers_fix_and_the_editor_agree_with_the_plans(tmp_path):
    """The CLI's fix markers, --diff's refusals and the language server's code actions for the model are the
    planner's verdicts."""
    from graphlint.server.engine import Engine

    path = write(tmp_path, "model.py", MODEL)
    lint, source, info = _module(path)
    markers = fix_availability(lint.analysis, info, lint.findings, source.text)
    assert {(f.line, f.rule.id): markers.get(id(f)) for f in lint.findings} == {
        (7, "W5301"): "safe", (8, "E5116"): "unsafe", (10, "E5112"): None, (15, "E5807"): None,
        (19, "I5806"): "display-only"}
    records = json.loads(run_graphlint("--output-format", "json", "--no-cache", path).stdout)
    assert [(r["line"], r["id"], r["fix"]) for r in records] == [
        (7, "W5301", "safe"), (8, "E5116", "unsafe"), (10, "E5112", None), (15, "E5807", None), (19, "I5806", None)]

    report = fix_paths([path], Config(), write=False)
    assert [(a.line, a.rule) for a in report.applied] == [(7, "W5301")]
    assert sorted((r.line, r.rule, r.reason) for r in report.refused) == [
        (8, "E5116", "unsafe fix (it may change behaviour in corner cases): apply it with --unsafe-fixes"),
        (10, "E5112", SETCOMP_REASON),
        (19, "I5806", WHILE_SUGGESTION)]

    engine = Engine([str(tmp_path)])
    engine.set_text(path, MODEL, 1)
    result = engine.lint(path)
    actions = [(fix.finding.line, fix.kind, fix.title) for fix in engine.fixes(path, result.findings)
               if fix.kind != "disable"]
    assert actions == [
        (7, "safe", "graphlint: `x += ...` -> `x = x + ...` (safe fix)"),
        (8, "unsafe", "graphlint: `is` -> `==`, `is not` -> `!=` (unsafe: may change behaviour in corner cases)")]
    # (refused and display-only plans carry no edit: the editor offers no action for them; the hover says why)


def test_the_server_plans_through_the_public_planner():
    """No consumer reaches into the driver's private helpers, and no LintResult is faked."""
    for relative in ("graphlint/server/engine.py", "graphlint/session.py"):
        with open(os.path.join(ROOT, relative), encoding="utf-8") as handle:
            tree = ast.parse(handle.read())
        imported = [(node.module, alias.name) for node in ast.walk(tree) if isinstance(node, ast.ImportFrom)
                    for alias in node.names]
        assert not [name for module, name in imported if module.startswith("graphlint.fixers")
                    and name.startswith("_")], relative
        assert ("types", "SimpleNamespace") not in imported, relative
