"""28: W5201 as in mindone transformers/models/bigbird_pegasus/modeling_bigbird_pegasus.py:906.

In training, bigbird_block_sparse_attention calls `np.random.seed(seed)` (seed = the layer index,
fixed at __init__) and then `_bigbird_block_rand_mask`, which draws
`np.random.permutation(middle_seq[:start])[:r]` rows for the random attention blocks.
"""
import mindspore as ms
from mindspore import Tensor, mint, nn, ops  # noqa: F401
import numpy as np  # noqa: F401


from _support import run  # noqa: E402 - PYNATIVE, GRAPH_MODE and STRICT, fresh each


class Attn(nn.Cell):
    def __init__(self, seed=0):
        super().__init__()
        self.seed = seed

    def _bigbird_block_rand_mask(self, n_blocks, r):
        rand_attn = np.zeros((n_blocks - 2, r), dtype=np.int32)
        if not self.training:
            return rand_attn
        middle_seq = np.arange(1, n_blocks - 1, dtype=np.int32)
        last = n_blocks - 1
        for i in range(1, n_blocks - 1):
            start = last
            rand_attn[i - 1, :] = np.random.permutation(middle_seq[:start])[:r]
        return rand_attn

    def construct(self, x):
        np.random.seed(self.seed)
        rand_attn = ms.tensor(np.stack([self._bigbird_block_rand_mask(8, 2) for _ in range(2)]))
        return x * 0 + rand_attn.astype(x.dtype).sum()


def make():
    a = Attn()
    a.set_train(True)
    return a


def drive(call):
    x = Tensor(np.zeros((1,), np.float32))
    return f"sum of random block ids, 3 calls: {[float(call(x)[0]) for _ in range(3)]}"


run(make, drive)
print("same without the fixed np.random.seed(seed) per call:")
Attn.construct = lambda self, x: x * 0 + ms.tensor(self._bigbird_block_rand_mask(8, 2)).astype(x.dtype).sum()
run(make, drive)
