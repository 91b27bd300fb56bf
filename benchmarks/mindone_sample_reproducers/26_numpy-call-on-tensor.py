"""26: W5502 as in mindone transformers/models/wav2vec2_bert/modeling_wav2vec2_bert.py:167.

_compute_mask_indices, reached from construct via _mask_hidden_states (training, attention_mask
given): input_lengths = attention_mask.sum(-1).tolist(); per length
`np.random.choice(np.arange(input_length - (mask_length - 1)), num_masked_span, replace=False)`.
A second variant runs the same np.random.choice with a Tensor length (no .tolist()) to separate
the sampled line from the .tolist() before it (I5702).
"""
import mindspore as ms
from mindspore import Tensor, mint, nn, ops  # noqa: F401
import numpy as np  # noqa: F401


from _support import run  # noqa: E402 - PYNATIVE, GRAPH_MODE and STRICT, fresh each


def _compute_mask_indices(shape, mask_prob, mask_length, attention_mask=None, use_tolist=True):
    batch_size, sequence_length = shape
    input_lengths = (attention_mask.sum(-1).tolist() if use_tolist else attention_mask.sum(-1))
    spec_aug_mask = np.zeros((batch_size, sequence_length), dtype=bool)
    for b in range(batch_size):
        input_length = input_lengths[b]
        num_masked_span = 1
        spec_aug_mask_idx = np.random.choice(
            np.arange(input_length - (mask_length - 1)), num_masked_span, replace=False
        )
        spec_aug_mask[b, spec_aug_mask_idx[0]:spec_aug_mask_idx[0] + mask_length] = True
    return spec_aug_mask


class Net(nn.Cell):
    def __init__(self, use_tolist=True):
        super().__init__()
        self.use_tolist = use_tolist

    def _mask_hidden_states(self, hidden_states, attention_mask):
        batch_size, sequence_length, _ = hidden_states.shape
        idx = _compute_mask_indices((batch_size, sequence_length), 0.5, 2, attention_mask, self.use_tolist)
        idx = ms.Tensor(idx, dtype=ms.bool_)
        return hidden_states * (1 - idx.astype(hidden_states.dtype))[..., None]

    def construct(self, hidden_states, attention_mask):
        return self._mask_hidden_states(hidden_states, attention_mask)


def drive(call):
    h, m = Tensor(np.ones((2, 6, 3), np.float32)), Tensor(np.ones((2, 6), np.int64))
    return f"masked rows per sample: {[int((call(h, m)[b, :, 0] == 0).sum()) for b in range(2)]}"


run(Net, drive)
print("Tensor length, no .tolist():")
run(lambda: Net(use_tolist=False), drive)
