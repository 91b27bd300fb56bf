"""15: W5208 as in mindone diffusers/models/autoencoders/autoencoder_kl_magvit.py:271.

construct caches `self.prev_features` on the first call and takes the other branch (temporal
upsample) afterwards; `_clear_conv_cache()` resets the cache between calls.
"""
import mindspore as ms
from mindspore import Tensor, mint, nn, ops  # noqa: F401
import numpy as np  # noqa: F401


from _support import run  # noqa: E402 - PYNATIVE, GRAPH_MODE and STRICT, fresh each


class Net(nn.Cell):
    def __init__(self):
        super().__init__()
        self.temporal_upsample = True
        self.prev_features = None

    def _clear_conv_cache(self):
        del self.prev_features
        self.prev_features = None

    def construct(self, h):
        h = h * 2
        if self.temporal_upsample:
            if self.prev_features is None:
                self.prev_features = h
            else:
                h = mint.cat([h, h], dim=0)
        return h


NET = {}


def make():
    NET["n"] = Net()
    return NET["n"]


def drive(call):
    x = Tensor(np.ones((1, 3), np.float32))
    shapes = [call(x).shape[0], call(x).shape[0]]
    NET["n"]._clear_conv_cache()
    shapes.append(call(x).shape[0])
    return f"rows per call (call, call, clear, call) = {shapes}"


run(make, drive)
