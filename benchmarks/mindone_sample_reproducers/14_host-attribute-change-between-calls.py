"""14: W5208 as in mindone diffusers/models/autoencoders/autoencoder_kl_cosmos.py:1081.

`encode` (reached from construct) branches on `self.use_slicing`, which `enable_slicing()` sets
between calls. A graph print marks the slicing branch (the sliced and unsliced results are equal).
"""
import mindspore as ms
from mindspore import Tensor, mint, nn, ops  # noqa: F401
import numpy as np  # noqa: F401


from _support import run  # noqa: E402 - PYNATIVE, GRAPH_MODE and STRICT, fresh each


class Net(nn.Cell):
    def __init__(self):
        super().__init__()
        self.use_slicing = False

    def enable_slicing(self):
        self.use_slicing = True

    def _encode(self, x):
        return x * 2

    def encode(self, x, return_dict=False):
        if self.use_slicing and x.shape[0] > 1:
            print("slicing branch")
            h = mint.cat([self._encode(s) for s in x.split(1)])
        else:
            h = self._encode(x)
        return h

    def construct(self, x):
        return self.encode(x)


NET = {}


def make():
    NET["n"] = Net()
    return NET["n"]


def drive(call):
    x = Tensor(np.ones((2, 3), np.float32))
    call(x)
    NET["n"].enable_slicing()
    print("-- 2nd call, after enable_slicing():", flush=True)
    out = call(x)
    ms.runtime.synchronize() if hasattr(ms, "runtime") else None
    return f"sum={float(out.sum())} ('slicing branch' printed just above = branch taken)"


run(make, drive)
