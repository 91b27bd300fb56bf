"""Every entry of the tables read from MindSpore is accounted for: each compile error message maps to the rules
that predict it (or a note why none does), and each measured API, builtin and method probe gets the finding its
measured outcome calls for when graphlint lints the very program that was compiled."""

import textwrap

import pytest

from graphlint.analysis.generated import error_messages, jit_forbidden, refused_measured
from graphlint.catalogue import BY_NAME
from graphlint.catalogue.messages import MESSAGE_RULES, NOT_A_CONSTRUCT
from graphlint.config import Config
from graphlint.lint import lint_text
from scripts.measure_refused_apis import PROBE_SETUP

# The module the measurements compiled each probe in (a Cell base with a sub-Cell, a Parameter, a Tensor
# attribute, a buffer and hook handles), with the probe as its subclass's construct.
PROBE_MODULE = PROBE_SETUP + "\n\nclass Probe(Base):\n    def construct(self, x):\n"
CONSTRUCT_LINE = PROBE_MODULE.count("\n")  # findings from here on are the probe's

# Measured outcomes graphlint does not predict, each with the reason.
KNOWN_MISSES = {
    "mindspore.common.hook_handle.HookHandle.remove": "the receiver is a hook handle made in __init__",
    "mindspore.common.hook_handle._TensorHookHandle.remove": "the receiver is a hook handle made in __init__",
    "mindspore.graph.api._disable_saved_tensors_hooks": "a private MindSpore function",
    "mindspore.nn.Cell._apply": "a private Cell method",
    "mindspore.nn.Cell._run_forward_hook": "a private Cell method",
    "mindspore.nn.Cell._run_forward_pre_hook": "a private Cell method",
    "mindspore.mint.t": "a kernel missing on CPU (device-specific)",
    "builtin:iter/next(tuple)": "next() on an iterator of constants returns a pair in graph mode",
    "builtin:print(Tensor)": "the value of print() used as a Tensor",
    "method:dict.pop": "dict.pop's value used in a tuple",
}


def _lint(body: str, level: str):
    text = PROBE_MODULE + textwrap.indent(body, " " * 8) + "\n"
    return lint_text(text, Config(syntax_level=level))


MEASURED = sorted(refused_measured.MEASURED.items())


@pytest.mark.parametrize("key, entry", MEASURED, ids=[key for key, _ in MEASURED])
def test_each_measured_probe_gets_the_finding_its_outcome_calls_for(key, entry):
    if key in KNOWN_MISSES or entry["verdict"] == "pynative fails":
        pytest.skip(KNOWN_MISSES.get(key, "fails in PYNATIVE_MODE too"))
    lax = [f for f in _lint(entry["source"], "lax") if f.line >= CONSTRUCT_LINE]
    strict = [f for f in _lint(entry["source"], "strict") if f.line >= CONSTRUCT_LINE]
    errors_lax = [f.rule.symbol for f in lax if f.severity.value == "error"]
    errors_strict = [f.rule.symbol for f in strict if f.severity.value == "error"]
    verdict = entry["verdict"]
    if verdict == "fails":
        assert errors_lax, f"{key}: fails in GRAPH_MODE, no error reported ({[f.rule.symbol for f in lax]})"
    elif verdict == "falls back":
        assert not errors_lax and errors_strict, (key, errors_lax, errors_strict)
    elif verdict == "diverges":
        assert lax, f"{key}: diverges, nothing reported"
    else:
        assert not errors_lax, (key, errors_lax)
        if entry["strict"] == "compiles":
            assert not errors_strict, (key, errors_strict)


def test_every_registered_api_was_measured():
    measured = {entry["api"] for entry in refused_measured.MEASURED.values()}
    assert set(jit_forbidden.FORBIDDEN_METHODS) <= measured


def test_every_compile_error_message_maps_to_rules_or_a_note():
    keys = set(error_messages.MESSAGES) | set(error_messages.PYTHON_MESSAGES)
    assert keys == set(MESSAGE_RULES), sorted(keys ^ set(MESSAGE_RULES))
    for key, value in MESSAGE_RULES.items():
        if isinstance(value, str):
            assert value.startswith(NOT_A_CONSTRUCT) and len(value) > len(NOT_A_CONSTRUCT), key
        else:
            assert value and all(rule_id in BY_NAME for rule_id in value), (key, value)
