"""Each rule reports its flagged examples at exactly the lines they state (with the message fields they state),
at both syntax levels, and stays quiet on its clean ones. An example run under ``capture_mode="trace"`` only
(or ``"bytecode"``) takes the rule's severity there at either level."""

import pytest

from graphlint.catalogue import Example
from graphlint.catalogue.model import SKIP
from graphlint.config import Config
from graphlint.lint import lint_text
from tests.examples import all_examples


@pytest.mark.parametrize("level", ["lax", "strict"])
@pytest.mark.parametrize("rule, kind, example", all_examples())
def test_example_is_linted_as_claimed(rule, kind, example, level):
    findings = [f for f in lint_text(example.source, Config(syntax_level=level)) if f.rule is rule]
    if kind == "flagged":
        reported = sorted({Example.code_line(f.line) for f in findings})
        assert reported == sorted(example.lines), \
            f"{rule.symbol} reported at code lines {reported}, the example states {list(example.lines)}"
        profiles = {"ast"} if example.lax != SKIP else \
            ({"trace"} if example.trace != SKIP else {"bytecode", "bytecode-fullgraph"})
        for finding in findings:
            assert finding.profile in profiles
            profile = finding.profile
            if example.assumes:
                assert finding.severity is rule.severity_in(profile, level).lowered
                assert f"(if {example.assumes}: no call in the project says)" in finding.message
            else:
                assert finding.severity is rule.severity_in(profile, level)
            for name, value in example.fields.items():
                assert finding.args.get(name) == value, (name, finding.args)
    else:
        assert findings == [], f"{rule.symbol} reported on a clean example: " + \
            "; ".join(f"{f.line}: {f.message}" for f in findings)
