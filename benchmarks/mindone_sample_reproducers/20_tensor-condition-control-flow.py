"""20: I5806 as in mindone transformers/models/esm/modeling_esm.py:269.

eager_attention_forward(module, q, k, v, ...) is called from the attention Cell with `self` as
`module`; the `if hasattr(module, "position_embedding_type") and module.position_embedding_type
in [...]` tests a Cell attribute (a str), not a Tensor. Prints ms/call against the same code
without the `if` (the rule says a run-time condition costs several ms per call on CPU).
"""
import mindspore as ms
from mindspore import Tensor, mint, nn, ops  # noqa: F401
import numpy as np  # noqa: F401


from _support import run  # noqa: E402 - PYNATIVE, GRAPH_MODE and STRICT, fresh each


import time


def eager_attention_forward(module, query, key, value, scaling):
    attn_weights = mint.matmul(query, mint.transpose(key, 2, 3)) * scaling
    if hasattr(module, "position_embedding_type") and module.position_embedding_type in [
        "relative_key",
        "relative_key_query",
    ]:
        attn_weights = attn_weights + 1
    return mint.matmul(attn_weights.softmax(-1), value)


def plain_forward(module, query, key, value, scaling):
    attn_weights = mint.matmul(query, mint.transpose(key, 2, 3)) * scaling
    return mint.matmul(attn_weights.softmax(-1), value)


ALL_ATTENTION_FUNCTIONS = {"plain": plain_forward}


class Attn(nn.Cell):
    def __init__(self, kind="absolute", impl="eager"):
        super().__init__()
        self.position_embedding_type = kind
        self.attn_implementation = impl

    def construct(self, q):
        attention_interface = eager_attention_forward
        if self.attn_implementation != "eager":
            attention_interface = ALL_ATTENTION_FUNCTIONS[self.attn_implementation]
        return attention_interface(self, q, q, q, scaling=0.5)


def drive(call):
    q = Tensor(np.ones((1, 2, 4, 8), np.float32))
    out = call(q)
    t = time.perf_counter()
    for _ in range(200):
        call(q)
    return f"sum={float(out.sum()):.1f} {(time.perf_counter() - t) * 5:.2f} ms/call"


run(Attn, drive)
print("relative_key:")
run(lambda: Attn("relative_key"), drive)
print("control without the if:")
run(lambda: Attn(impl="plain"), drive)
