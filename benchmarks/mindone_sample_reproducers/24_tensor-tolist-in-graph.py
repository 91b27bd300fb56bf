"""24: I5702 as in mindone transformers/models/tapas/modeling_tapas.py:1660.

_segment_reduce (reached from construct): builds `new_shape` with mint.cat of ms.tensor(...)
constants, then `segment_means.clone().view(tuple(new_shape.tolist()))`.
"""
import mindspore as ms
from mindspore import Tensor, mint, nn, ops  # noqa: F401
import numpy as np  # noqa: F401


from _support import run  # noqa: E402 - PYNATIVE, GRAPH_MODE and STRICT, fresh each


def _segment_reduce(values, batch_shape, num_segments):
    flat = values.reshape(-1, values.shape[-1])
    segment_means = flat * 2
    new_shape = mint.cat(
        [ms.tensor(batch_shape, dtype=ms.int64), ms.tensor([num_segments], dtype=ms.int64)], dim=0
    )
    return segment_means.view(  # mindone: .clone().view(...) (Clone has no CPU kernel)
        tuple(new_shape.tolist())).to(values.dtype)


class Net(nn.Cell):
    def construct(self, x):
        return _segment_reduce(x, (2,), 3)


run(Net, lambda call: tuple(call(Tensor(np.ones((2, 3), np.float32))).shape))
