"""25: E6001 as in mindone transformers/models/granitemoe/modeling_granitemoe.py:183.

A rotary embedding with rope_type "dynamic": construct calls `_dynamic_frequency_update`,
which under a Tensor condition calls `self.register_buffer("inv_freq", ..., persistent=False)`.
"""
import mindspore as ms
from mindspore import Tensor, mint, nn, ops  # noqa: F401
import numpy as np  # noqa: F401


from _support import run  # noqa: E402 - PYNATIVE, GRAPH_MODE and STRICT, fresh each


class Rotary(nn.Cell):
    def __init__(self):
        super().__init__()
        self.rope_type = "dynamic"
        self.original_max_seq_len = 8
        self.max_seq_len_cached = 16
        self.original_inv_freq = Tensor(np.array([1.0, 0.5], np.float32))
        self.register_buffer("inv_freq", self.original_inv_freq, persistent=False)

    def _dynamic_frequency_update(self, position_ids):
        seq_len = mint.max(position_ids) + 1
        if seq_len < self.original_max_seq_len and self.max_seq_len_cached > self.original_max_seq_len:
            self.register_buffer("inv_freq", self.original_inv_freq, persistent=False)
            self.max_seq_len_cached = self.original_max_seq_len

    def construct(self, x, position_ids):
        if "dynamic" in self.rope_type:
            self._dynamic_frequency_update(position_ids)
        return x * self.inv_freq.sum()


run(Rotary, lambda call: float(call(Tensor(np.ones((2,), np.float32)), Tensor(np.arange(4))).sum()))
