"""18: I5701 as in mindone transformers/models/flaubert/modeling_flaubert.py:82.

get_masks (reached from construct): `assert lengths.max().item() <= slen` before building the mask.
Prints ms/call of the flagged version and of the same code without the .item() assert.
"""
import mindspore as ms
from mindspore import Tensor, mint, nn, ops  # noqa: F401
import numpy as np  # noqa: F401


from _support import run  # noqa: E402 - PYNATIVE, GRAPH_MODE and STRICT, fresh each


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
