"""11: W5508 as in mindone transformers/models/speech_to_text/modeling_speech_to_text.py:698.

An encoder-style construct returns `BaseModelOutput(...)` built from graph Tensors (after an
`if not return_dict: return tuple(...)` gate; config.return_dict is True as in transformers).
"""
import mindspore as ms
from mindspore import Tensor, mint, nn, ops  # noqa: F401
import numpy as np  # noqa: F401


from _support import run  # noqa: E402 - PYNATIVE, GRAPH_MODE and STRICT, fresh each

from dataclasses import dataclass


from _support import ModelOutput  # noqa: E402 - a dataclass over an OrderedDict


@dataclass
class BaseModelOutput(ModelOutput):
    last_hidden_state: object = None
    hidden_states: object = None
    attentions: object = None


class Net(nn.Cell):
    def __init__(self):
        super().__init__()
        self.return_dict = True

    def construct(self, x, output_hidden_states=True, return_dict=None):
        return_dict = return_dict if return_dict is not None else self.return_dict
        states = () if output_hidden_states else None
        hidden = x
        for _ in range(2):
            if output_hidden_states:
                states = states + (hidden,)
            hidden = hidden * 2
        if not return_dict:
            return tuple(v for v in [hidden, states] if v is not None)
        return BaseModelOutput(last_hidden_state=hidden, hidden_states=states)


def drive(call):
    out = call(Tensor(np.ones((2, 3), np.float32)))
    return f"{type(out).__name__} first={float(list(out.values())[0].sum()):.1f}"


run(Net, drive)
