"""23: W5509 as in mindone transformers/models/switch_transformers/modeling_switch_transformers.py:1507.

The top-level construct takes `encoder_outputs` (a tuple of Tensors, as generate() passes it) and
uses `encoder_outputs[0]`. Prints ms per call for the 1st call, a repeat with the same tuple and a
call with a new tuple of new values (a recompile if the tuple is a compile-time constant).
"""
import mindspore as ms
from mindspore import Tensor, mint, nn, ops  # noqa: F401
import numpy as np  # noqa: F401


from _support import run  # noqa: E402 - PYNATIVE, GRAPH_MODE and STRICT, fresh each


import time
from typing import Optional, Tuple


class Net(nn.Cell):
    def construct(
        self,
        input_ids: Optional[ms.Tensor] = None,
        encoder_outputs: Optional[Tuple[Tuple[ms.Tensor]]] = None,
        decoder_input_ids: Optional[ms.Tensor] = None,
    ):
        if encoder_outputs is None:
            encoder_outputs = (input_ids * 2,)
        hidden_states = encoder_outputs[0]
        return hidden_states.sum() + decoder_input_ids.sum()


def timed(f):
    t = time.perf_counter()
    out = f()
    return float(out), round((time.perf_counter() - t) * 1000, 1)


def drive(call):
    d = Tensor(np.ones((2, 3), np.float32))
    e1 = (Tensor(np.ones((2, 3), np.float32)),)
    e2 = (Tensor(np.full((2, 3), 2, np.float32)),)
    r = [timed(lambda: call(None, e1, d)), timed(lambda: call(None, e1, d)), timed(lambda: call(None, e2, d)),
         timed(lambda: call(None, (Tensor(np.full((2, 3), 3, np.float32)),), d))]
    return "(value, ms): first, same, new tuple, new tuple " + str(r)


run(Net, drive)
