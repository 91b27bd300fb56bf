"""06: W5508 as in mindone transformers/models/mimi/modeling_mimi.py:1672.

A `decode` helper reached from construct returns `MimiDecoderOutput(audio_values, past)` with
positional Tensor arguments (after the `if not return_dict:` tuple gate).
"""
import mindspore as ms
from mindspore import Tensor, mint, nn, ops  # noqa: F401
import numpy as np  # noqa: F401


from _support import run  # noqa: E402 - PYNATIVE, GRAPH_MODE and STRICT, fresh each

from dataclasses import dataclass


from _support import ModelOutput  # noqa: E402 - a dataclass over an OrderedDict


@dataclass
class MimiDecoderOutput(ModelOutput):
    audio_values: object = None
    decoder_past_key_values: object = None


class Net(nn.Cell):
    def __init__(self):
        super().__init__()
        self.return_dict = True

    def decode(self, codes, past_key_values=None, return_dict=None):
        return_dict = return_dict if return_dict is not None else self.return_dict
        audio_values = codes * 2
        decoder_past_key_values = None
        if not return_dict:
            return (audio_values, decoder_past_key_values)
        return MimiDecoderOutput(audio_values, decoder_past_key_values)

    def construct(self, x, return_dict=None):
        return_dict = return_dict if return_dict is not None else self.return_dict
        decoder_outputs = self.decode(x, return_dict=return_dict)
        return decoder_outputs


def drive(call):
    out = call(Tensor(np.ones((2, 3), np.float32)))
    return f"{type(out).__name__} first={float(list(out.values())[0].sum()):.1f}"


run(Net, drive)
