"""docs/ is generated from the catalogue and must not be stale; --explain works for every rule."""

import os

import pytest

from graphlint.catalogue import RULES
from graphlint.docs import explain, generated_files
from tests.support import ROOT

DOCS = os.path.join(ROOT, "docs")


def test_generated_docs_are_up_to_date():
    wanted = generated_files()
    for relative, content in wanted.items():
        path = os.path.join(DOCS, relative)
        assert os.path.isfile(path), f"docs/{relative} missing: run python -m graphlint.docs docs"
        with open(path, encoding="utf-8") as handle:
            assert handle.read() == content, f"docs/{relative} is stale: run python -m graphlint.docs docs"
    on_disk = {f"rules/{name}" for name in os.listdir(os.path.join(DOCS, "rules"))}
    assert on_disk == {k for k in wanted if k.startswith("rules/")}, "stale rule pages"


@pytest.mark.parametrize("rule", RULES, ids=lambda r: r.symbol)
def test_explain_every_rule(rule):
    for name in (rule.id, rule.symbol, rule.id.lower()):
        page = explain(name)
        assert page.startswith(f"# {rule.id} `{rule.symbol}`")
        assert rule.why in page and rule.fix in page
        assert page.count("```python") >= 2  # a failing and a passing example
