"""The NumPy/math -> ops table of graphlint.fixers.fallback, proved entry by entry with real MindSpore.

One Cell returns one sample call per table entry. graphlint --fix --unsafe-fixes rewrites it; a single
child process then runs the original Cell in PYNATIVE_MODE and the rewritten one in PYNATIVE_MODE and
GRAPH_MODE, and every sample must return the same dtype, shape and values.
"""

import re

import pytest

from graphlint.analysis.equivalents import NOT_REWRITTEN, OPS_EQUIVALENTS
from graphlint.config import Config
from graphlint.run.fix import fix_paths
from graphlint.validate.compare import difference
from graphlint.validate.runner import run_job

# (table key, sample call): every table entry has at least one sample.
SAMPLES = [
    ("numpy.exp", "np.exp(x)"), ("numpy.log", "np.log(x)"), ("numpy.sqrt", "np.sqrt(x)"),
    ("numpy.sin", "np.sin(y)"), ("numpy.cos", "np.cos(y)"), ("numpy.tan", "np.tan(y)"),
    ("numpy.tanh", "np.tanh(y)"), ("numpy.sinh", "np.sinh(y)"), ("numpy.cosh", "np.cosh(y)"),
    ("numpy.square", "np.square(y)"), ("numpy.log1p", "np.log1p(x)"), ("numpy.expm1", "np.expm1(y)"),
    ("numpy.log2", "np.log2(x)"), ("numpy.log10", "np.log10(x)"), ("numpy.exp2", "np.exp2(y)"),
    ("numpy.sign", "np.sign(y)"), ("numpy.reciprocal", "np.reciprocal(x)"), ("numpy.floor", "np.floor(y)"),
    ("numpy.ceil", "np.ceil(y)"), ("numpy.round", "np.round(x)"), ("numpy.round", "np.round(y)"),
    ("numpy.abs", "np.abs(y)"), ("numpy.absolute", "np.absolute(y)"), ("numpy.negative", "np.negative(y)"),
    ("numpy.arctan", "np.arctan(y)"),
    ("numpy.isnan", "np.isnan(x)"), ("numpy.isinf", "np.isinf(x)"), ("numpy.isfinite", "np.isfinite(x)"),
    ("numpy.logical_not", "np.logical_not(y > 0)"), ("numpy.logical_and", "np.logical_and(x > 1, y > 0)"),
    ("numpy.logical_or", "np.logical_or(x > 3, y > 0)"),
    ("numpy.maximum", "np.maximum(x, y)"), ("numpy.maximum", "np.maximum(y, 0)"),
    ("numpy.minimum", "np.minimum(x, y)"), ("numpy.minimum", "np.minimum(y, 0.5)"),
    ("numpy.matmul", "np.matmul(x, w)"), ("numpy.power", "np.power(x, 2)"), ("numpy.power", "np.power(x, y)"),
    ("numpy.where", "np.where(y > 0, x, y)"), ("numpy.where", "np.where(y > 0, y, 0)"),
    ("numpy.clip", "np.clip(y, -1, 1)"), ("numpy.clip", "np.clip(y, a_min=-1.0, a_max=0.5)"),
    ("numpy.clip", "np.clip(y, None, 0.5)"),
    ("numpy.reshape", "np.reshape(x, (3, 2))"),
    ("numpy.concatenate", "np.concatenate((x, y))"), ("numpy.concatenate", "np.concatenate([x, y], axis=-1)"),
    ("numpy.stack", "np.stack((x, y))"), ("numpy.stack", "np.stack([x, y], 1)"),
    ("numpy.cumsum", "np.cumsum(x, 1)"), ("numpy.cumsum", "np.cumsum(x, axis=0)"),
    ("numpy.argmax", "np.argmax(x)"), ("numpy.argmax", "np.argmax(x, axis=1)"),
    ("numpy.argmax", "np.argmax(x, 0, keepdims=True)"),
    ("math.sqrt", "math.sqrt(s)"), ("math.exp", "math.exp(s)"), ("math.log", "math.log(s)"),
    ("math.sin", "math.sin(s)"), ("math.cos", "math.cos(s)"), ("math.tan", "math.tan(s)"),
    ("math.tanh", "math.tanh(s)"), ("math.atan", "math.atan(s)"), ("math.log2", "math.log2(s)"),
    ("math.log10", "math.log10(s)"), ("math.log1p", "math.log1p(s)"), ("math.expm1", "math.expm1(s)"),
    ("math.fabs", "math.fabs(-s)"), ("math.pow", "math.pow(s, 3)"),
]
# Why the fix is unsafe, measured on the same run: NumPy computes integer input in float64.
INTEGER_SAMPLE = "np.sqrt(k)"

HEADER = "import math\n\nimport numpy as np\nfrom mindspore import Tensor, nn\n"
INPUTS = ("(Tensor(np.array([[0.5, 1.5, 2.25], [3.0, 0.75, 4.5]], np.float32)),"
          " Tensor(np.array([[-1.25, 2.0, -0.5], [1.0, -3.5, 0.25]], np.float32)),"
          " Tensor(np.array([[1.0, -2.0], [0.5, 3.0], [-1.5, 0.25]], np.float32)),"
          " Tensor(np.array(2.5, np.float32)),"
          " Tensor(np.array([[1, 4, 9], [2, 3, 5]], np.int32)))")
DRIVE = '''

def drive(call, target, inputs):
    import mindspore as ms

    original = Original()(*inputs[0]) if ms.get_context("mode") == ms.PYNATIVE_MODE else None
    return [call(*inputs[0]), original]
'''


def _cell(name: str) -> str:
    returned = ",\n            ".join([sample for _, sample in SAMPLES] + [INTEGER_SAMPLE])
    return (f"\n\nclass {name}(nn.Cell):\n"
            f"    def construct(self, x: Tensor, y: Tensor, w: Tensor, s: Tensor, k: Tensor):\n"
            f"        return (\n            {returned},\n        )\n")


def test_every_table_entry_has_a_sample():
    sampled = {key for key, _ in SAMPLES}
    assert sampled == set(OPS_EQUIVALENTS), set(OPS_EQUIVALENTS) ^ sampled
    assert not sampled & set(NOT_REWRITTEN)
    for key, sample in SAMPLES:
        module, name = key.split(".")
        assert sample.startswith(f"{'np' if module == 'numpy' else 'math'}.{name}("), (key, sample)


@pytest.fixture(scope="module")
def fixed_text(tmp_path_factory):
    path = tmp_path_factory.mktemp("fallback") / "table.py"
    path.write_text(HEADER + _cell("Net"), encoding="utf-8")
    report = fix_paths([str(path)], Config(), unsafe=True)
    assert not report.refused, [r.reason for r in report.refused]
    return path.read_text(encoding="utf-8")


def test_every_sample_is_rewritten_to_ops(fixed_text):
    assert "from mindspore import ops" in fixed_text
    body = fixed_text.split("def construct", 1)[1]
    assert not re.search(r"\b(np|math)\.", body), body
    for key, sample in SAMPLES:
        equivalent = OPS_EQUIVALENTS[key]
        assert f"ops.{equivalent.name}(" in body, (key, sample)
    assert "ops.clamp(y, min=-1.0, max=0.5)" in body
    assert "ops.argmax(x, 0, keepdim=True)" in body


@pytest.mark.compile
def test_ops_forms_match_numpy_and_math_in_both_modes(fixed_text):
    job = {"source": fixed_text + _cell("Original") + DRIVE, "module_name": "table", "entry": "Net",
           "inputs": INPUTS, "runs": ["pynative", "graph"], "calls": 1}
    result = run_job(job, timeout=600)
    reference = result["pynative"]
    assert reference.ok, reference.describe() + result.stderr_tail[-2000:]
    original = reference.outputs[1]
    assert original["t"] == "tuple", original
    mismatches = []
    for mode in ("pynative", "graph"):
        run = result[mode]
        assert run.ok, f"{mode}: {run.describe()}"
        fixed = run.outputs[0]
        for index, (key, sample) in enumerate(SAMPLES):
            expected, actual = original["items"][index], fixed["items"][index]
            if key.startswith("math."):
                # A Python float becomes a 0-d float32 Tensor of the same value (why the fix is unsafe).
                wrong_kind = expected["t"] != "float" or actual["t"] != "tensor" or actual["shape"] != [] \
                    or actual["dtype"] != "float32"
                found = f"{expected} became {actual}" if wrong_kind else difference(expected, actual, sample)
            else:
                found = difference(expected, actual, sample)
            if found:
                mismatches.append(f"{mode}: {sample} -> {found}")
        integer_original, integer_fixed = original["items"][-1], fixed["items"][-1]
        assert (integer_original["dtype"], integer_fixed["dtype"]) == ("float64", "float32"), mode
    assert not mismatches, "\n".join(mismatches)
