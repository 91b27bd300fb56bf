"""What the reproducers share: running one in the three modes, and a stand-in for mindone's ModelOutput.

Each reproducer is run as a script (``python benchmarks/mindone_sample_reproducers/NN_symbol.py``), so this folder is
on ``sys.path`` and ``from _support import run`` finds this module.
"""
from collections import OrderedDict
from dataclasses import fields

import mindspore as ms


def run(make, drive):
    """PYNATIVE, GRAPH_MODE (lax) and STRICT (jit(fullgraph=True) under PYNATIVE), each on a fresh object."""
    for mode in ("PYNATIVE", "GRAPH", "STRICT"):
        ms.set_context(mode=ms.GRAPH_MODE if mode == "GRAPH" else ms.PYNATIVE_MODE)
        try:
            obj = make()
            call = ms.jit(obj, fullgraph=True) if mode == "STRICT" else obj
            print(f"{mode}: ok {drive(call)}")
        except Exception as e:  # noqa: BLE001
            lines = [l for l in str(e).strip().splitlines() if l.strip() and not l.startswith("-")]
            print(f"{mode}: {type(e).__name__}: {(lines[0] if lines else '')[:200]}")


class ModelOutput(OrderedDict):
    """Minimal stand-in for mindone.transformers ModelOutput: a dataclass over an OrderedDict."""

    def __post_init__(self):
        for f in fields(self):
            if getattr(self, f.name) is not None:
                self[f.name] = getattr(self, f.name)
