"""17: E5801 as in mindone transformers/models/mixtral/modeling_mixtral.py:903.

load_balancing_loss_func: returns early when gate_logits is not a tuple, then assigns
`concatenated_gate_logits` under `if isinstance(gate_logits, tuple):` and uses it after.
"""
import mindspore as ms
from mindspore import Tensor, mint, nn, ops  # noqa: F401
import numpy as np  # noqa: F401


from _support import run  # noqa: E402 - PYNATIVE, GRAPH_MODE and STRICT, fresh each


def load_balancing_loss_func(gate_logits, num_experts=4, top_k=2):
    if gate_logits is None or not isinstance(gate_logits, tuple):
        return 0
    if isinstance(gate_logits, tuple):
        concatenated_gate_logits = mint.cat([g for g in gate_logits], dim=0)
    routing_weights = mint.nn.functional.softmax(concatenated_gate_logits, dim=-1)
    _, selected = ops.topk(routing_weights, top_k, dim=-1)
    return routing_weights.mean() + selected.sum() * 0


class Net(nn.Cell):
    def construct(self, x, output_router_logits=True):
        all_router_logits = (x, x * 2)
        aux_loss = None
        if output_router_logits:
            aux_loss = load_balancing_loss_func(all_router_logits)
        return aux_loss


run(Net, lambda call: float(call(Tensor(np.ones((2, 4), np.float32)))))
