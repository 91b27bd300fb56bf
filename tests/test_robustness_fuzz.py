"""Linting any program ends with findings, a clean result or one clean problem line: never an exception.

Programs come from hypothesmith (Python's grammar and its AST) and from a graph-code strategy, each linted
as a module, inside `Cell.construct` and inside an `@ms.jit` function, with every analysis query the
checkers and fixers make. GRAPHLINT_FUZZ_EXAMPLES sets the example count (benchmarks/robustness.py runs
thousands).
"""

from hypothesis import given

from tests import robustness_support as support


@support.fuzz_settings()
@given(support.grammar_programs())
def test_grammar_programs_never_crash(program):
    support.check_all_wrappings(program)


@support.fuzz_settings()
@given(support.node_programs())
def test_ast_programs_never_crash(program):
    support.check_all_wrappings(program)


@support.fuzz_settings()
@given(support.graph_programs())
def test_graph_code_never_crashes(program):
    support.check_all_wrappings(program)


@support.fuzz_settings()
@given(support.broken_programs())
def test_broken_programs_give_one_clean_line(program):
    kinds = support.check_all_wrappings(program, deep=False)
    if not support.parses(support.wrap_in_cell(program)):
        assert kinds["cell"] == "problem"
