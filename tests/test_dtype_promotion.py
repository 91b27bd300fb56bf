"""The dtype the analysis gives an element-wise op of two Tensors of different dtypes
(graphlint.analysis.rewrite_facts.promoted) is the one graph mode computes: every pair of the table, compiled."""

import json
import os
import subprocess
import sys

import pytest

from graphlint.analysis.rewrite_facts import promoted

DTYPES = ["bool_", "uint8", "int8", "int16", "int32", "int64", "float16", "bfloat16", "float32", "float64"]

MEASURE = """
import itertools, json, numpy as np, mindspore as ms
from mindspore import nn, Tensor
ms.set_context(mode=ms.GRAPH_MODE)

class Mul(nn.Cell):
    def construct(self, a, b):
        return a * b

names = json.loads(__import__("sys").argv[1])
found = {}
for a, b in itertools.combinations(names, 2):
    out = Mul()(Tensor(np.ones(2), getattr(ms, a)), Tensor(np.ones(2), getattr(ms, b)))
    found[a + " " + b] = str(out.dtype)
print(json.dumps(found))
"""
SPELLING = {"Bool": "bool_", "UInt8": "uint8", "Int8": "int8", "Int16": "int16", "Int32": "int32", "Int64": "int64",
            "Float16": "float16", "BFloat16": "bfloat16", "Float32": "float32", "Float64": "float64"}


@pytest.mark.compile
def test_every_pair_promotes_as_graph_mode_computes(tmp_path):
    script = tmp_path / "measure.py"  # (graph mode parses source from a file)
    script.write_text(MEASURE, encoding="utf-8")
    done = subprocess.run([sys.executable, str(script), json.dumps(DTYPES)], capture_output=True, text=True,
                          timeout=600, env={**os.environ, "GLOG_v": "3"})
    assert done.returncode == 0, done.stderr[-3000:]
    measured = json.loads(done.stdout.strip().splitlines()[-1])
    assert len(measured) == 45
    wrong = {pair: (SPELLING.get(dtype, dtype), promoted(*pair.split())) for pair, dtype in measured.items()
             if SPELLING.get(dtype, dtype) != promoted(*pair.split())}
    assert wrong == {}


def test_the_table_is_not_trivial():
    assert promoted("float16", "bfloat16") == "float32" and promoted("int8", "uint8") == "int16"
    assert promoted("int64", "float16") == "float16" and promoted("bool_", "int32") == "int32"
    assert promoted("complex64", "float32") is None
