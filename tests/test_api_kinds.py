"""What graphlint reads from a MindSpore name's spelling (analysis.api.api_kind, the one place that does) is what
the installed MindSpore has under that name."""

import json
import os
import subprocess
import sys

import pytest

pytest.importorskip("mindspore")

# Run in a fresh interpreter: MindSpore's classes are compared by identity, which an earlier test of the same
# pytest process that re-imports part of MindSpore would break.
CHECK = """
import inspect, json
from mindspore import nn, ops
from graphlint.analysis.api import NN_NON_CELLS, OPS_NON_PRIMITIVES, PRIMITIVE_BASES, ApiKind, api_kind

wrong = []
for namespace, module in (("mindspore.ops", ops), ("mindspore.nn", nn)):
    for name in dir(module):
        value, qualified = getattr(module, name), f"{namespace}.{name}"
        kind = api_kind(qualified, direct=True)
        if kind is ApiKind.PRIMITIVE:
            ok = inspect.isclass(value) and (issubclass(value, ops.Primitive) or qualified in PRIMITIVE_BASES)
        elif kind is ApiKind.CELL:
            ok = inspect.isclass(value) and issubclass(value, nn.Cell)
        elif kind is ApiKind.FUNCTION:
            # a function (or a submodule or registry, spelt the same way, which graph code does not call)
            ok = not inspect.isclass(value)
        else:
            ok = name.startswith("_") or name in OPS_NON_PRIMITIVES | NN_NON_CELLS or not name[:1].isalpha() \\
                or (namespace == "mindspore.nn" and name[:1].islower())
        if not ok:
            wrong.append([qualified, str(kind)])
# The names left out are really not Primitive / Cell classes.
listed = [n for n in OPS_NON_PRIMITIVES if inspect.isclass(getattr(ops, n, None))
          and issubclass(getattr(ops, n), ops.Primitive)]
listed += [n for n in NN_NON_CELLS if inspect.isclass(getattr(nn, n, None)) and issubclass(getattr(nn, n), nn.Cell)]
print(json.dumps({"checked": len(dir(ops)) + len(dir(nn)), "wrong": wrong, "listed": listed}))
"""


def test_names_of_ops_and_nn_are_what_their_spelling_says():
    done = subprocess.run([sys.executable, "-c", CHECK], capture_output=True, text=True, timeout=600,
                          env={**os.environ, "GLOG_v": "3"})
    assert done.returncode == 0, done.stderr[-2000:]
    found = json.loads(done.stdout.strip().splitlines()[-1])
    assert found["checked"] > 1000 and found["wrong"] == [] and found["listed"] == [], found


def test_spelling_outside_the_direct_namespaces():
    # (imported here: a test that re-imports graphlint's modules in this process would leave a module-level
    # ApiKind of another class than the one api_kind returns)
    from graphlint.analysis.api import ApiKind, api_kind

    assert api_kind("mindspore.ops.operations.Cast") is ApiKind.PRIMITIVE
    assert api_kind("mindspore.ops.operations.Cast", direct=True) is None
    assert api_kind("mindspore.mint.zeros") is ApiKind.FUNCTION
    assert api_kind("mindspore.numpy.PINF") is None  # a number
    assert api_kind("mindspore.nn.layer.Dense") is ApiKind.CELL
    assert api_kind("mindspore.ops.HyperMap") is ApiKind.PRIMITIVE  # an object graph code calls later
    assert api_kind("mindspore.ops.HyperMap", direct=True) is None
    assert api_kind("numpy.Zeros") is None and api_kind(None) is None
