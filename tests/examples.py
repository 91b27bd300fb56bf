"""Every catalogue example, as pytest parameters (skipped on a Python release its claims are not about)."""

import sys

import pytest

from graphlint.catalogue import RULES


def all_examples():
    params = []
    for rule in RULES:
        for kind, examples in (("flagged", rule.flagged), ("clean", rule.clean)):
            for index, example in enumerate(examples):
                marks = () if example.holds_on(sys.version_info[:2]) else \
                    (pytest.mark.skip(reason=f"about Python {example.python}"),)
                params.append(pytest.param(rule, kind, example, id=f"{rule.id}-{rule.symbol}-{kind}{index}",
                                           marks=marks))
    return params
