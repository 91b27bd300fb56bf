"""Real model zoos that compile in GRAPH_MODE as shipped must get no error-severity findings.

The wheels are downloaded from PyPI (no install) by benchmarks/corpus.py and cached.
"""

import os
import sys

import pytest

from graphlint.config import Config
from graphlint.lint import lint_paths

sys.path.insert(0, os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "benchmarks"))
from corpus import fetch  # noqa: E402


@pytest.mark.parametrize("name", ["mindcv", "mindocr", "mindyolo"])
def test_no_errors_on_graph_mode_model_zoos(name):
    package = fetch(name)
    result = lint_paths([package], Config())
    assert not result.problems, [p.line() for p in result.problems]
    errors = [f"{f.path}:{f.line}: {f.rule.id} {f.rule.symbol} {f.message}"
              for f in result.findings if f.severity.value == "error"]
    assert errors == []
    assert result.files > 50  # the sources really were linted
