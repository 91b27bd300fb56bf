"""Every catalogue example, as pytest parameters."""

import pytest

from graphlint.catalogue import RULES


def all_examples():
    params = []
    for rule in RULES:
        for kind, examples in (("flagged", rule.flagged), ("clean", rule.clean)):
            for index, example in enumerate(examples):
                params.append(pytest.param(rule, kind, example, id=f"{rule.id}-{rule.symbol}-{kind}{index}"))
    return params
