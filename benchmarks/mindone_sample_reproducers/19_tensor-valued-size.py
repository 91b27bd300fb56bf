"""19: W5606 as in mindone transformers/models/qwen3_vl/modeling_qwen3_vl.py:992.

get_rope_index: `llm_grid_t = t.item()` from the grid Tensor, then
`ops.arange(llm_grid_t).view(-1, 1).broadcast_to((-1, h * w)).flatten()`.
"""
import mindspore as ms
from mindspore import Tensor, mint, nn, ops  # noqa: F401
import numpy as np  # noqa: F401


from _support import run  # noqa: E402 - PYNATIVE, GRAPH_MODE and STRICT, fresh each


class Net(nn.Cell):
    def construct(self, grid_thw):
        t, h, w = grid_thw[0]
        llm_grid_t, llm_grid_h, llm_grid_w = t.item(), h.item() // 2, w.item() // 2
        t_index = ops.arange(llm_grid_t).view(-1, 1).broadcast_to((-1, llm_grid_h * llm_grid_w)).flatten()
        return t_index


def drive(call):
    a = call(Tensor(np.array([[1, 4, 4]], np.int64)))
    b = call(Tensor(np.array([[3, 4, 4]], np.int64)))
    return f"shapes {a.shape} then {b.shape} (size follows the input values)"


run(Net, drive)
