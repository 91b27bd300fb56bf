"""Linting any program ends with findings, a clean result or one clean problem line: never an exception.

Programs come from hypothesmith (Python's grammar, and libcst nodes) and from a MindSpore-flavoured
graph-code strategy; each is linted as a module, inside ``Net.construct`` and inside an ``@ms.jit``
function (so the graph-scope paths run), with every analysis query the checkers and fixers make.
Python's parser and graphlint must agree on what is valid; text that is not valid Python gives one
clean problem line. Some programs also go through ``graphlint.cli.main`` on a file and through the
fixer (whose output must parse).

``GRAPHLINT_FUZZ_EXAMPLES`` sets the base example count N (default ``robustness_support.DEFAULT_EXAMPLES``,
about 25 s for this file); each test runs a small multiple of N. ``benchmarks/robustness.py`` runs thousands.
"""

import contextlib
import io
import os
import tempfile

from hypothesis import Phase, assume, given

from graphlint.cli import main
from graphlint.config import Config
from graphlint.run.fix import fix_paths
from tests import robustness_support as support

# Per-test counts are multiples of the base count: hypothesis starts with tiny programs and grows them,
# so the cheap strategies get more examples; big graph programs and the fixer get fewer.
N = support.fuzz_examples()
MANY, SOME, FEW = 4 * N, N, max(1, N // 2)
# Shrinking a big graph program through the fixer can take hypothesis's full five minutes: report the
# failing program as found instead (the minimal reproducers go to the bug report by hand).
NO_SHRINK = {"phases": [Phase.explicit, Phase.reuse, Phase.generate, Phase.target]}


@support.fuzz_settings(MANY)
@given(support.grammar_programs())
def test_grammar_programs_never_crash(program):
    support.check_all_wrappings(program)


@support.fuzz_settings(SOME)
@given(support.node_programs())
def test_ast_programs_never_crash(program):
    support.check_all_wrappings(program)


@support.fuzz_settings(SOME, **NO_SHRINK)
@given(support.graph_programs())
def test_graph_code_never_crashes(program):
    support.check_all_wrappings(program)


@support.fuzz_settings(MANY)
@given(support.expression_programs())
def test_graph_expressions_never_crash(program):
    for wrap in (support.wrap_in_cell, support.wrap_in_jit):
        support.check_outcome(wrap(program))


@support.fuzz_settings(MANY)
@given(support.broken_programs())
def test_broken_programs_give_one_clean_line(program):
    kinds = support.check_all_wrappings(program, deep=False)
    for name, wrap in support.WRAPPINGS.items():
        if not support.parses(wrap(program)):
            assert kinds[name] == "problem", name


def _run_cli(args):
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        code = main(args)
    return code, out.getvalue(), err.getvalue()


@support.fuzz_settings(2 * N)
@given(support.grammar_programs() | support.broken_programs())
def test_cli_on_any_program_file(program):
    """Through the real command line on a file: exit 0/1 and a quiet stderr for valid Python, exit 2 and
    exactly one line naming the file for anything else; never a traceback or an internal error."""
    with tempfile.TemporaryDirectory() as folder:
        path = os.path.join(folder, "program.py")
        text = support.wrap_in_cell(program)
        try:
            data = text.encode("utf-8")
        except UnicodeEncodeError:  # lone surrogates: no file holds this text
            assume(False)
        with open(path, "wb") as handle:
            handle.write(data)
        code, out, err = _run_cli([path])
    assert "Traceback" not in err and "internal error" not in err, err
    if support.parses(text):
        assert code in (0, 1) and err == "", (code, err)
        *findings, summary = out.splitlines()
        assert all(line.startswith(path + ":") for line in findings), out
        assert summary.startswith("Found " if findings else "All checks passed: "), out
    else:
        assert code == 2, (code, out, err)
        assert len(err.splitlines()) == 1 and err.startswith(f"{path}: cannot check: "), err


@support.fuzz_settings(FEW, **NO_SHRINK)
@given(support.graph_programs())
def test_fixes_always_parse(program):
    """The fixer (unsafe fixes included, diff mode: nothing written) never crashes, and what it would
    write always parses."""
    with tempfile.TemporaryDirectory() as folder:
        path = os.path.join(folder, "program.py")
        with open(path, "w", encoding="utf-8", newline="") as handle:
            handle.write(program)
        report = fix_paths([path], Config(), unsafe=True, write=False)
        with open(path, encoding="utf-8", newline="") as handle:
            assert handle.read() == program, "diff mode wrote the file"
    assert not report.lint.problems, [p.line() for p in report.lint.problems]
    for outcome in report.files:
        assert not outcome.error, outcome.error
        if outcome.changed:
            assert support.parses(outcome.after), f"the fixed text does not parse:\n{outcome.after}"
