"""The coverage matrix (graphlint/catalogue/matrix.py): its measurements hold when compiled again, and the linter
reports every failing cell at error severity for the level that fails, and no compiling cell at error severity."""

import functools

import pytest

from graphlint.catalogue.matrix import cells, load_measured
from graphlint.config import Config
from graphlint.explain_error import explain
from graphlint.lint import lint_text
from scripts.measure_matrix import measure

CELLS = cells()
MEASURED = load_measured()
CHUNKS = 6


@functools.lru_cache(maxsize=None)
def verdicts():
    """(cell, level, measured outcome, error-level symbols at that level, all symbols)."""
    found = []
    for cell in CELLS:
        record = MEASURED.get(cell.key)
        if record is None or record["pynative"] != "ok":
            continue
        by_level = {}
        for level in ("lax", "strict"):
            findings = lint_text(cell.source, Config(syntax_level=level))
            by_level[level] = ([f.rule.symbol for f in findings if f.severity.value == "error"],
                               [f.rule.symbol for f in findings])
        for level, lint_level in (("lax", "lax"), ("strict", "strict"), ("export", "strict")):
            if level in record:
                errors, every = by_level[lint_level]
                found.append((cell, level, record[level], errors, every))
    return tuple(found)


def test_every_cell_is_measured():
    assert sorted(MEASURED) == sorted(cell.key for cell in CELLS), \
        "run `python scripts/measure_matrix.py` after changing the constructs"


def test_failing_cells_are_reported_and_compiling_cells_are_not():
    results = verdicts()
    failing = [(c, lvl, e) for c, lvl, outcome, e, _ in results if outcome in ("fails", "crashes")]
    missed = [f"{c.key} ({lvl})" for c, lvl, e in failing if not e]
    false_errors = [f"{c.key} ({lvl}): {e}" for c, lvl, outcome, e, _ in results if outcome == "ok" and e]
    diverging = [(c, lvl, every) for c, lvl, outcome, _, every in results if outcome == "diverges"]
    silent = [f"{c.key} ({lvl})" for c, lvl, every in diverging if not every]
    recall = 1 - len(missed) / max(len(failing), 1)
    assert false_errors == [], false_errors
    assert recall >= 0.95, f"recall {recall:.3f}; missed: {missed}"
    assert len(silent) <= 0.05 * max(len(diverging), 1), silent


def test_explain_error_names_a_reported_rule_for_every_failing_cell():
    # The first error each failing cell's compile produced (stored with the measurements), explained against
    # the cell's source: the rule it names must be one graphlint reports on that cell.
    unexplained = []
    for cell, _level, outcome, _errors, every in verdicts():
        error = MEASURED[cell.key]["error"]
        if outcome != "fails" or not error:
            continue
        explained = explain(error.split(": ", 1)[1], source=cell.source)
        if not {rule.symbol for rule in explained.rules} & set(every):
            unexplained.append((cell.key, explained.key, error[:120]))
    assert unexplained == []


@pytest.mark.compile
@pytest.mark.parametrize("chunk", range(CHUNKS))
def test_measurements_hold(chunk):
    selected = CELLS[chunk::CHUNKS]
    again = measure(selected)
    changed = {key: (MEASURED.get(key), record) for key, record in again.items()
               if _outcomes(record) != _outcomes(MEASURED.get(key) or {})}
    assert not changed, changed


def _outcomes(record: dict) -> dict:
    # A compile that hangs or crashes fails as surely as one that raises; which of those happens varies from
    # run to run for some cells (`dict_runtime_key@helper` at strict hangs in some runs and raises in others).
    return {k: "fails" if v == "crashes" else v for k, v in record.items() if k != "error"}
