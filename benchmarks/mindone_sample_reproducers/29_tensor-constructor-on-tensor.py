"""29: W5504 as in mindone transformers/models/qwen2_5_vl/modeling_qwen2_5_vl.py:1094.

get_rope_index: `second_per_grid_t = second_per_grid_ts[video_index]` (a float Tensor argument)
then `ms.tensor(second_per_grid_t, dtype=range_tensor.dtype)` with range_tensor an int64 arange.
"""
import mindspore as ms
from mindspore import Tensor, mint, nn, ops  # noqa: F401
import numpy as np  # noqa: F401


def run(make, drive):
    """PYNATIVE, GRAPH_MODE (lax) and STRICT (jit(fullgraph=True) under PYNATIVE), each on a fresh object."""
    for mode in ("PYNATIVE", "GRAPH", "STRICT"):
        ms.set_context(mode=ms.GRAPH_MODE if mode == "GRAPH" else ms.PYNATIVE_MODE)
        try:
            obj = make()
            call = ms.jit(obj, fullgraph=True) if mode == "STRICT" else obj
            print(f"{mode}: ok {drive(call)}")
        except Exception as e:  # noqa: BLE001
            lines = [l for l in str(e).strip().splitlines() if l.strip() and not l.startswith("-")]
            print(f"{mode}: {type(e).__name__}: {(lines[0] if lines else '')[:200]}")


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
