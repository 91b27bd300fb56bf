"""27: E5117 as in mindone transformers/models/gpt_neo/modeling_gpt_neo.py:661.

construct, when use_cache and past_key_values is a legacy tuple, calls the class method
`DynamicCache.from_legacy_cache(past_key_values)` of a plain Python cache class.
"""
import mindspore as ms
from mindspore import Tensor, mint, nn, ops  # noqa: F401
import numpy as np  # noqa: F401


from _support import run  # noqa: E402 - PYNATIVE, GRAPH_MODE and STRICT, fresh each


class Cache:
    pass


class DynamicCache(Cache):
    def __init__(self):
        self.key_cache = []
        self.value_cache = []

    @classmethod
    def from_legacy_cache(cls, past_key_values=None):
        cache = cls()
        if past_key_values is not None:
            for k, v in past_key_values:
                cache.key_cache.append(k)
                cache.value_cache.append(v)
        return cache


class Net(nn.Cell):
    def construct(self, x, past_key_values=None, use_cache=True):
        return_legacy_cache = False
        if use_cache and not isinstance(past_key_values, Cache):
            return_legacy_cache = True
            if past_key_values is None:
                past_key_values = DynamicCache()
            else:
                past_key_values = DynamicCache.from_legacy_cache(past_key_values)
        return x * 2, len(past_key_values.key_cache), return_legacy_cache


def drive(call):
    x = Tensor(np.ones((2, 3), np.float32))
    out = call(x, ((x, x),))
    return f"layers in cache: {out[1]}"


run(Net, drive)
