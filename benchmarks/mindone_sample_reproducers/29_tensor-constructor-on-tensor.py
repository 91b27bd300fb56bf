"""29: W5504 as in mindone transformers/models/qwen2_5_vl/modeling_qwen2_5_vl.py:1094.

get_rope_index: `second_per_grid_t = second_per_grid_ts[video_index]` (a float Tensor argument)
then `ms.tensor(second_per_grid_t, dtype=range_tensor.dtype)` with range_tensor an int64 arange.
"""
import mindspore as ms
from mindspore import Tensor, mint, nn, ops  # noqa: F401
import numpy as np  # noqa: F401


from _support import run  # noqa: E402 - PYNATIVE, GRAPH_MODE and STRICT, fresh each


class Net(nn.Cell):
    def construct(self, grid_t, second_per_grid_ts):
        video_index = 0
        second_per_grid_t = second_per_grid_ts[video_index] if second_per_grid_ts is not None else 1.0
        range_tensor = ops.arange(grid_t).view(-1, 1)
        expanded_range = range_tensor.broadcast_to((-1, 4))
        second_per_grid_t = ms.tensor(second_per_grid_t, dtype=range_tensor.dtype)
        time_tensor = expanded_range * second_per_grid_t * 2
        return time_tensor.long().flatten()


run(Net, lambda call: call(2, Tensor(np.array([1.0, 0.5], np.float32))).asnumpy().tolist())
