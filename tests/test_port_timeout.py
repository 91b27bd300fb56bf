"""Port mode's probe, stopped at validate-timeout, keeps the compiles it finished (a model whose compiles take
longer than the timeout still gets the blockers met so far, and the report says the probe was stopped)."""

from __future__ import annotations

from graphlint.port import EntryPort, _entry_lines, _read_probe
from graphlint.validate.runner import _collect

ROUND = {"status": "error", "error_type": "AttributeError", "summary": "'Net' object has no attribute 'steps'",
         "message": "'Net' object has no attribute 'steps'\n\n# 0 In file /tmp/run/model_1.py:9, 8~20\n",
         "file": "/tmp/run/model_1.py", "cuts": 0, "exact": True, "at": 9}
PARTIAL = {"status": "ok", "file": "/tmp/run/model_0.py", "pynative": {"status": "ok", "outputs": []},
           "whole": {"graph": {"rounds": [ROUND], "stopped": "the time validate-timeout allows ran out"}},
           "parts": [], "unaided_stopped": False}


def test_a_probe_stopped_at_its_timeout_keeps_the_compiles_it_finished():
    stopped = _collect(["parts"], {"runs": {}, "in_progress": "parts", "partial": PARTIAL}, -9, True, 120.0, "")
    assert stopped.runs["parts"].status == "ok" and stopped.runs["parts"].record["timed_out"] == 120.0
    # (nothing saved: the timeout is all there is to say)
    nothing = _collect(["parts"], {"runs": {}, "in_progress": "parts"}, -9, True, 120.0, "")
    assert nothing.runs["parts"].status == "timeout"

    entry = EntryPort("model:Net", "model.py", logs=".graphlint_cache/port/model.Net")
    _read_probe(entry, stopped.runs["parts"].record, [])
    lines = _entry_lines(entry, wrote=False)
    assert lines[0].startswith("graphlint port: model:Net: lax fails (the text --fix would write); 1 blocker"), lines
    assert lines[1] == "  1. [lax] model.py:9: AttributeError: 'Net' object has no attribute 'steps'", lines
    assert "  [lax] the compiles of the model stopped there: the time validate-timeout allows ran out" in lines
    assert "  (the probe was stopped at validate-timeout (120 s): only the compiles it finished are listed; raise " \
           "validate-timeout under [tool.graphlint.validate] to see more)" in lines
