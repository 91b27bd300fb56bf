"""generated/api_measured.py (what Tensor methods, ops, nn layers, builtins and container methods do in graph
code, measured by scripts/measure_api_behaviour.py) is plain data, still what the installed MindSpore does, and
the source of api.py's API tables."""

import os
import random
import subprocess
import sys
import textwrap

import pytest

from graphlint.analysis import api
from graphlint.analysis.generated import api_measured, refused_measured
from graphlint.config import Config
from graphlint.lint import lint_text
from scripts import measure_api_behaviour as script
from scripts.measure_refused_apis import PROBE_SETUP
from tests import test_generated_tables as generated_tables
from tests.test_generated_tables import mindspore_importable  # noqa: F401 - a fixture

MEASURED = api_measured.MEASURED
# The facts api.py's tables rest on (and the measured contradictions of the former hand-typed tables), always
# re-measured; a seeded sample of the other probes joins them.
KEY_PROBES = ("Tensor:x.max(1)", "Tensor:x.max(dim=1)", "nn.LSTM(seq, h)", "nn.LSTMCell(x, h)", "nn.GRU(seq, h)",
              "dict.pop", "ops.masked_select(x, x > 0)", "Tensor:x.asnumpy()", "list.remove")
SAMPLE_SIZE = 24
SAMPLE_SEED = 3
RECORDED = ("verdict", "lax", "strict", "dynamic_shape", "pynative_result", "pynative_dtype", "graph_result",
            "graph_dtype")


def test_table_is_literal_data_of_the_same_mindspore_as_the_other_tables():
    generated_tables.test_generated_module_is_literal_data("api_measured")
    assert api_measured.MINDSPORE_VERSION == refused_measured.MINDSPORE_VERSION


def test_every_probe_of_the_script_was_measured():
    assert {probe.key for probe in script.PROBES} == set(MEASURED)
    assert {entry["family"] for entry in MEASURED.values()} <= set(api_measured.FAMILIES)


def test_api_tables_are_derived_from_the_measured_table():
    """With nothing measured, each derived table keeps only what it names as unmeasurable: it has no other source.
    (In a fresh interpreter: reloading api.py here would give every later test of this process a second ApiKind
    class, and `is` comparisons with the one the rest of graphlint imported would fail.)"""
    check = textwrap.dedent("""\
        from graphlint.analysis.generated import api_measured
        api_measured.MEASURED, api_measured.LAYER_INPUT_KINDS = {}, {}
        from graphlint.analysis import api as empty
        assert empty.TUPLE_RESULT_OPS == empty.TUPLE_RESULT_OPS_NOT_IN_MINDSPORE
        assert empty.NONZERO_OPS == {"flatnonzero"} and empty.SAME_DTYPE_METHODS == {"clone"}
        for name in ("TENSOR_CONST_METHODS", "HOST_METHODS", "PAIRED_ONLY_WITH_DIM", "SAME_DTYPE_OPS",
                     "BOOL_RESULT_OPS", "BOOL_RESULT_METHODS", "MASKED_SELECT_OPS", "UNIQUE_OPS",
                     "NN_TUPLE_RESULT_LAYERS", "NN_TUPLE_STATE_INPUTS", "STR_METHODS_IN_GRAPH",
                     "LIST_METHODS_FALLING_BACK", "DICT_METHODS_FALLING_BACK", "DICT_METHODS_REFUSED",
                     "LIST_MUTATIONS_LOST"):
            assert not getattr(empty, name), name
        print("checked")
        """)
    done = subprocess.run([sys.executable, "-c", check], capture_output=True, text=True, timeout=300,
                          cwd=os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
    assert done.returncode == 0 and done.stdout.strip() == "checked", done.stderr[-2000:]


def test_derived_tables_say_what_was_measured():
    assert api.PAIRED_ONLY_WITH_DIM == {"max", "min"}
    for name in api.PAIRED_ONLY_WITH_DIM:
        positional, with_dim = MEASURED[f"Tensor:x.{name}(1)"], MEASURED[f"Tensor:x.{name}(dim=1)"]
        assert (positional["pynative_result"], positional["graph_result"]) == ("tuple of 2", "Tensor")
        assert with_dim["pynative_result"] == with_dim["graph_result"] == "tuple of 2"
    # LSTM and LSTMCell refuse a Tensor state, the GRU and RNN layers a tuple one.
    assert api.NN_TUPLE_STATE_INPUTS == {"mindspore.nn.LSTM": (1, "hx"), "mindspore.nn.LSTMCell": (1, "hx")}
    assert "must be" in MEASURED["nn.LSTMCell(x, h)"]["error"] and MEASURED["nn.GRU(seq, h)"]["verdict"] == "fine"
    assert {"masked_select", "nonzero", "argwhere", "unique", "unique_consecutive"} <= \
        api.MASKED_SELECT_OPS | api.NONZERO_OPS | api.UNIQUE_OPS
    assert "masked_fill" not in api.MASKED_SELECT_OPS  # the same shape as its input: no dynamic shape
    assert api.HOST_METHODS["asnumpy"] == api.NUMPY and MEASURED["Tensor:x.asnumpy()"]["verdict"] == "falls back"
    assert "pop" in api.DICT_METHODS_REFUSED and MEASURED["dict.pop"]["verdict"] == "refused"
    # Names kept as typed: MindSpore 2.10 lacks them, or has no CPU kernel for them.
    for name in api.TUPLE_RESULT_OPS_NOT_IN_MINDSPORE | {"flatnonzero"}:
        probes = [entry for entry in MEASURED.values() if entry["name"] == name]
        assert probes and all("has no attribute" in entry["error"] for entry in probes), name
    assert "kernel Clone unregistered" in MEASURED["Tensor:h.clone()"]["error"]


def test_an_lstm_cell_state_kept_on_self_is_reported_like_an_lstm_one():
    """nn.LSTMCell checks its `hx` as a tuple too (measured); with the state on `self`, written in construct,
    GRAPH_MODE stops with "For 'LSTMCell', the 'hx' must be ... Tuple" (compiled with MindSpore 2.10)."""
    source = textwrap.dedent("""\
        import mindspore as ms
        from mindspore import nn, ops


        class Tagger(nn.Cell):
            def __init__(self):
                super().__init__()
                self.cell = nn.LSTMCell(3, 4)
                self.hidden = self.init_hidden(2)

            def init_hidden(self, batch):
                return (ops.zeros((batch, 4), ms.float32), ops.zeros((batch, 4), ms.float32))

            def construct(self, x):
                self.hidden = self.init_hidden(2)
                out, self.hidden = self.cell(x, self.hidden)
                return out
        """)
    findings = [(f.rule.id, f.line) for f in lint_text(source, Config()) if f.rule.id == "E5211"]
    assert findings == [("E5211", 16)]  # the call passing the state


# Measured outcomes graphlint does not report on the probe itself, each with the reason.
KNOWN_MISSES = {
    "Tensor:x.max(1)": "divergence rules report the result unpacked as a pair, not returned whole",
    "Tensor:x.min(1)": "divergence rules report the result unpacked as a pair, not returned whole",
}
PROBE_MODULE = PROBE_SETUP + "\n\nclass Probe(Base):\n"
PROBED = sorted((key, entry) for key, entry in MEASURED.items() if entry["verdict"] != "pynative fails")


@pytest.mark.parametrize("key, entry", PROBED, ids=[key for key, _ in PROBED])
def test_each_probe_gets_the_finding_its_outcome_calls_for(key, entry):
    if key in KNOWN_MISSES:
        pytest.skip(KNOWN_MISSES[key])
    init = ("    def __init__(self):\n        super().__init__()\n" + textwrap.indent(entry["init"], " " * 8) + "\n\n"
            if entry["init"] else "")
    head = PROBE_MODULE + init + "    def construct(self, x):\n"
    text = head + textwrap.indent(entry["source"], " " * 8) + "\n"
    found = {level: [f for f in lint_text(text, Config(syntax_level=level)) if f.line > head.count("\n")]
             for level in ("lax", "strict")}
    errors = {level: [f.rule.id for f in findings if f.severity.value == "error"] for level, findings in found.items()}
    verdict = entry["verdict"]
    if verdict == "refused":
        assert errors["lax"], key
    elif verdict == "falls back":
        assert not errors["lax"] and errors["strict"], (key, errors)
    elif verdict in ("differs", "dynamic shape"):
        assert found["lax"], f"{key}: {verdict}, nothing reported"
    else:
        assert not errors["lax"] and not errors["strict"], (key, errors)


@pytest.mark.compile
def test_a_sample_of_probes_still_measures_the_same(mindspore_importable):  # noqa: F811 - the fixture
    """Re-measure the key probes and a seeded sample of the others in ONE child process (about 15 s)."""
    by_key = {probe.key: probe for probe in script.PROBES}
    others = sorted(set(by_key) - set(KEY_PROBES))
    sample = list(KEY_PROBES) + random.Random(SAMPLE_SEED).sample(others, SAMPLE_SIZE)
    probes = [by_key[key] for key in sample]
    measured = script.measure(probes, log=lambda _: None, batch_size=len(probes))
    changed = {key: {field: (MEASURED[key][field], measured[key][field]) for field in RECORDED
                     if MEASURED[key][field] != measured[key][field]}
               for key in sample}
    changed = {key: fields for key, fields in changed.items() if fields}  # field: (recorded, measured now)
    assert not changed, (f"the installed MindSpore behaves otherwise: {changed}; "
                         "rerun scripts/measure_api_behaviour.py and review the diff")
