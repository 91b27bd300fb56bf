"""19: W5606 as in mindone transformers/models/qwen3_vl/modeling_qwen3_vl.py:992.

get_rope_index: `llm_grid_t = t.item()` from the grid Tensor, then
`ops.arange(llm_grid_t).view(-1, 1).broadcast_to((-1, h * w)).flatten()`.
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
