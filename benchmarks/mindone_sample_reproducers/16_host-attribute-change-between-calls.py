"""16: W5208 as in mindone transformers/models/distilbert/modeling_distilbert.py:189.

Attention reads `self.n_heads` (`dim // self.n_heads`); `prune_heads()` lowers it between calls.
"""
import mindspore as ms
from mindspore import Tensor, mint, nn, ops  # noqa: F401
import numpy as np  # noqa: F401


from _support import run  # noqa: E402 - PYNATIVE, GRAPH_MODE and STRICT, fresh each


class Net(nn.Cell):
    def __init__(self):
        super().__init__()
        self.dim = 12
        self.n_heads = 4

    def prune_heads(self, heads):
        self.n_heads = self.n_heads - len(heads)

    def construct(self, q):
        bs, q_length, dim = q.shape
        dim_per_head = self.dim // self.n_heads
        return q.view(bs, -1, self.n_heads, dim_per_head).shape


NET = {}


def make():
    NET["n"] = Net()
    return NET["n"]


def drive(call):
    x = Tensor(np.ones((1, 2, 12), np.float32))
    a = call(x)
    NET["n"].prune_heads([0])
    return f"shapes before/after prune_heads: {tuple(a)} {tuple(call(x))}"


run(make, drive)
