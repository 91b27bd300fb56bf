"""18: I5701 as in mindone transformers/models/flaubert/modeling_flaubert.py:82.

get_masks (reached from construct): `assert lengths.max().item() <= slen` before building the mask.
Prints ms/call of the flagged version and of the same code without the .item() assert.
"""
import mindspore as ms
from mindspore import Tensor, mint, nn, ops  # noqa: F401
import numpy as np  # noqa: F401


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


import time


def get_masks(slen, lengths, check):
    alen = ops.arange(slen, dtype=ms.int64)
    if check:
        assert lengths.max().item() <= slen
    return alen < lengths[:, None]


class Net(nn.Cell):
    def __init__(self, check=True):
        super().__init__()
        self.check = check

    def construct(self, x, lengths):
        mask = get_masks(x.shape[1], lengths, self.check)
        return x * mask.astype(x.dtype)


def drive(call):
    x, lengths = Tensor(np.ones((2, 5), np.float32)), Tensor(np.array([3, 5], np.int64))
    out = call(x, lengths)
    t = time.perf_counter()
    for _ in range(100):
        call(x, lengths)
    return f"sum={float(out.sum())} {(time.perf_counter() - t) * 10:.2f} ms/call"


run(Net, drive)
print("control without .item():")
run(lambda: Net(check=False), drive)
