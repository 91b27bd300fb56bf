"""The coverage matrix (graphlint/catalogue/matrix.py): its measurements hold when compiled again, and the linter
reports every failing cell at error severity for the level that fails, and no compiling cell at error severity."""

import pytest

from graphlint.catalogue.matrix import cells, load_measured, measure
from graphlint.config import Config
from graphlint.lint import lint_text

CELLS = cells()
MEASURED = load_measured()
CHUNKS = 6


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
    return found


def test_every_cell_is_measured():
    assert sorted(MEASURED) == sorted(cell.key for cell in CELLS), \
        "run `python -m graphlint.catalogue.matrix --measure` after changing the constructs"


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


@pytest.mark.compile
@pytest.mark.parametrize("chunk", range(CHUNKS))
def test_measurements_hold(chunk):
    selected = CELLS[chunk::CHUNKS]
    again = measure(selected)
    changed = {key: (MEASURED.get(key), record) for key, record in again.items()
               if {k: v for k, v in record.items() if k != "error"}
               != {k: v for k, v in (MEASURED.get(key) or {}).items() if k != "error"}}
    assert not changed, changed
