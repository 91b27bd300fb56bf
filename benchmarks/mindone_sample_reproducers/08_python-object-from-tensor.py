"""08: W5508 as in mindone transformers/models/nemotron/modeling_nemotron.py:709.

A decoder construct returns `BaseModelOutputWithPast(...)` unconditionally (no return_dict gate).
"""
import mindspore as ms
from mindspore import Tensor, mint, nn, ops  # noqa: F401
import numpy as np  # noqa: F401


from _support import run  # noqa: E402 - PYNATIVE, GRAPH_MODE and STRICT, fresh each

from dataclasses import dataclass


from _support import ModelOutput  # noqa: E402 - a dataclass over an OrderedDict


@dataclass
class BaseModelOutputWithPast(ModelOutput):
    last_hidden_state: object = None
    past_key_values: object = None
    hidden_states: object = None


class Net(nn.Cell):
    def construct(self, x, use_cache=False, output_hidden_states=True):
        all_hidden_states = () if output_hidden_states else None
        hidden_states = x
        next_decoder_cache = None
        for _ in range(2):
            if output_hidden_states:
                all_hidden_states += (hidden_states,)
            hidden_states = hidden_states * 2
        if output_hidden_states:
            all_hidden_states += (hidden_states,)
        next_cache = next_decoder_cache if use_cache else None
        return BaseModelOutputWithPast(last_hidden_state=hidden_states, past_key_values=next_cache, hidden_states=all_hidden_states)


def drive(call):
    out = call(Tensor(np.ones((2, 3), np.float32)))
    return f"{type(out).__name__} first={float(list(out.values())[0].sum()):.1f}"


run(Net, drive)
