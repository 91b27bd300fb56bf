"""30: W5603 as in mindone transformers/models/qwen3_omni_moe/modeling_qwen3_omni_moe.py:2727.

MoE block: `expert_hit = mint.greater(expert_mask.sum(dim=(-1, -2)), 0).nonzero()` then
`for expert_idx in expert_hit: expert_idx = expert_idx.item(); expert_layer = self.experts[expert_idx]`.
"""
import mindspore as ms
from mindspore import Tensor, mint, nn, ops  # noqa: F401
import numpy as np  # noqa: F401


from _support import run  # noqa: E402 - PYNATIVE, GRAPH_MODE and STRICT, fresh each


class Moe(nn.Cell):
    def __init__(self):
        super().__init__()
        self.num_experts = 4
        self.experts = nn.CellList([nn.Dense(3, 3) for _ in range(4)])

    def construct(self, hidden_states, selected_experts):
        one, zero = Tensor(1, ms.int64), Tensor(0, ms.int64)  # mint one_hot has no CPU kernel
        expert_mask = ops.one_hot(selected_experts, self.num_experts, one, zero).permute(2, 1, 0)
        expert_hit = mint.greater(expert_mask.sum(dim=(-1, -2)), 0).nonzero()
        out = ops.zeros_like(hidden_states)
        for expert_idx in expert_hit:
            expert_idx = expert_idx.item()
            expert_layer = self.experts[expert_idx]
            out = out + expert_layer(hidden_states)
        return expert_hit.shape, out


def drive(call):
    h = Tensor(np.ones((2, 3), np.float32))
    a = call(h, Tensor(np.array([[0], [1]], np.int64)))[0]
    b = call(h, Tensor(np.array([[2], [2]], np.int64)))[0]
    return f"expert_hit shapes {tuple(a)} then {tuple(b)}"


run(Moe, drive)
