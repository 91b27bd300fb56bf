"""22: W5209 as in mindone transformers/models/seamless_m4t/modeling_seamless_m4t.py:280.

A rotary embedding Cell caches its result in plain attributes from construct:
`if seq_len == self.cached_sequence_length and self.cached_... is not None: return cached`,
then `self.cached_sequence_length = seq_len` and `self.cached_rotary_positional_embedding = ...`.
"""
import mindspore as ms
from mindspore import Tensor, mint, nn, ops  # noqa: F401
import numpy as np  # noqa: F401


from _support import run  # noqa: E402 - PYNATIVE, GRAPH_MODE and STRICT, fresh each


class Rotary(nn.Cell):
    def __init__(self):
        super().__init__()
        self.inv_freq = Tensor(np.array([1.0, 0.5], np.float32))
        self.cached_sequence_length = None
        self.cached_rotary_positional_embedding = None

    def construct(self, hidden_states):
        sequence_length = hidden_states.shape[1]
        if sequence_length == self.cached_sequence_length and self.cached_rotary_positional_embedding is not None:
            return self.cached_rotary_positional_embedding
        self.cached_sequence_length = sequence_length
        time_stamps = ops.arange(sequence_length).type_as(self.inv_freq)
        freqs = time_stamps[:, None] * self.inv_freq[None, :]  # einsum("i,j->ij") (no CPU kernel)
        emb = mint.cat((freqs, freqs), dim=-1)
        self.cached_rotary_positional_embedding = ops.stack([emb.cos(), emb.sin()]).type_as(hidden_states)
        return self.cached_rotary_positional_embedding


def drive(call):
    shapes = [tuple(call(Tensor(np.ones((1, n, 4), np.float32))).shape) for n in (3, 3, 5)]
    return f"shapes for seq 3, 3, 5: {shapes}"


run(Rotary, drive)
