"""09: W5508 as in mindone transformers/models/owlvit/modeling_owlvit.py:960.

A task head calls the base model, computes its own Tensors and returns `BaseModelOutputWithPooling(...)` with them
and items of the inner output (after the `if not return_dict:` tuple gate; config.return_dict is
True as in transformers). The base model returns a tuple here (mindone's returns a ModelOutput,
itself a W5508) so that only the sampled line decides the STRICT outcome.
"""
import mindspore as ms
from mindspore import Tensor, mint, nn, ops  # noqa: F401
import numpy as np  # noqa: F401


from _support import run  # noqa: E402 - PYNATIVE, GRAPH_MODE and STRICT, fresh each

from dataclasses import dataclass


from _support import ModelOutput  # noqa: E402 - a dataclass over an OrderedDict


@dataclass
class BaseModelOutputWithPooling(ModelOutput):
    last_hidden_state: object = None
    pooler_output: object = None
    hidden_states: object = None


class Base(nn.Cell):
    def construct(self, x):
        h = x * 2
        return (h, (x, h))


class Net(nn.Cell):
    def __init__(self):
        super().__init__()
        self.model = Base()
        self.return_dict = True

    def construct(self, x, labels=None, return_dict=None):
        return_dict = return_dict if return_dict is not None else self.return_dict
        outputs = self.model(x)
        logits = outputs[0] + 1
        loss = None
        if labels is not None:
            loss = ((logits - labels) ** 2).mean()
        if not return_dict:
            output = (logits,) + outputs[1:]
            return ((loss,) + output) if loss is not None else output
        return BaseModelOutputWithPooling(last_hidden_state=logits, pooler_output=logits[:, 0], hidden_states=outputs[1])


def drive(call):
    out = call(Tensor(np.ones((2, 3), np.float32)))
    return f"{type(out).__name__} first={float(list(out.values())[0].sum()):.1f}"


run(Net, drive)
