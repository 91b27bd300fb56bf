"""Tiny WaveNet vocoder (r9y9/wavenet_vocoder style) ported from PyTorch to MindSpore 2.10.

Teacher-forced forward over one-hot mu-law input with local conditioning, plus fast
autoregressive generation with per-layer input buffers (incremental_forward/clear_buffer).
"""
import math

import numpy as np
import mindspore as ms
from mindspore import nn, ops, Tensor


# ---------------------------------------------------------------- mu-law helpers
def mulaw(x, mu=256):
    return np.sign(x) * np.log1p(mu * np.abs(x)) / np.log1p(mu)


def inv_mulaw(y, mu=256):
    return np.sign(y) * (1.0 / mu) * ((1.0 + mu) ** np.abs(y) - 1.0)


def mulaw_quantize(x, mu=256):
    y = mulaw(x, mu)
    return np.floor((y + 1) / 2 * mu + 0.5).astype(np.int64)


def inv_mulaw_quantize(y, mu=256):
    y = 2 * np.asarray(y, dtype=np.float32) / mu - 1
    return inv_mulaw(y, mu)


# ---------------------------------------------------------------- modules
class Conv1d(nn.Conv1d):
    """Conv1d with an input buffer for incremental (one step at a time) inference."""

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        self.clear_buffer()
        self._linearized_weight = None

    def incremental_forward(self, input):
        # input: (B, T, C)
        kw = self.kernel_size[-1]
        dilation = self.dilation[-1]
        weight = self._get_linearized_weight()
        bsz = input.shape[0]
        if kw > 1:
            if self.input_buffer is None:
                self.input_buffer = ops.zeros((bsz, kw + (kw - 1) * (dilation - 1), input.shape[2]), input.dtype)
            else:
                # shift buffer
                self.input_buffer[:, :-1, :] = self.input_buffer[:, 1:, :].copy()
            # append next input
            self.input_buffer[:, -1, :] = input[:, -1, :]
            input = self.input_buffer
            if dilation > 1:
                input = input[:, 0::dilation, :]
        output = ops.dense(input.view(bsz, -1), weight, self.bias)
        return output.view(bsz, 1, -1)

    def clear_buffer(self):
        self.input_buffer = None

    def _get_linearized_weight(self):
        if self._linearized_weight is None:
            kw = self.kernel_size[-1]
            weight = self.weight.squeeze(2)                      # (Cout, Cin, kw)
            weight = weight.transpose(1, 2)                      # (Cout, kw, Cin)
            self._linearized_weight = weight.view(self.out_channels, -1)
            assert self._linearized_weight.shape[1] == kw * self.in_channels
        return self._linearized_weight


def Conv1d1x1(in_channels, out_channels, bias=True):
    return Conv1d(in_channels, out_channels, kernel_size=1, pad_mode="valid", has_bias=bias)


class ResidualConv1dGLU(nn.Cell):
    def __init__(self, residual_channels, gate_channels, kernel_size, skip_out_channels=None,
                 cin_channels=-1, dropout=0.05, dilation=1):
        super().__init__()
        if skip_out_channels is None:
            skip_out_channels = residual_channels
        self.dropout = dropout
        self.padding = (kernel_size - 1) * dilation
        self.conv = Conv1d(residual_channels, gate_channels, kernel_size, pad_mode="valid",
                           dilation=dilation, has_bias=True)
        if cin_channels > 0:
            self.conv1x1c = Conv1d1x1(cin_channels, gate_channels, bias=False)
        else:
            self.conv1x1c = None
        gate_out_channels = gate_channels // 2
        self.conv1x1_out = Conv1d1x1(gate_out_channels, residual_channels)
        self.conv1x1_skip = Conv1d1x1(gate_out_channels, skip_out_channels)

    def construct(self, x, c=None):
        return self._forward(x, c, False)

    def incremental_forward(self, x, c=None):
        return self._forward(x, c, True)

    def _forward(self, x, c, is_incremental):
        residual = x
        x = ops.dropout(x, p=self.dropout, training=self.training)
        if is_incremental:
            splitdim = -1
            x = self.conv.incremental_forward(x)
        else:
            splitdim = 1
            x = self.conv(ops.pad(x, (self.padding, 0)))   # causal
        a, b = x.split(x.shape[splitdim] // 2, dim=splitdim)
        if c is not None:
            assert self.conv1x1c is not None
            c = self._conv1x1_forward(self.conv1x1c, c, is_incremental)
            ca, cb = c.split(c.shape[splitdim] // 2, dim=splitdim)
            a, b = a + ca, b + cb
        x = ops.tanh(a) * ops.sigmoid(b)
        s = self._conv1x1_forward(self.conv1x1_skip, x, is_incremental)
        x = self._conv1x1_forward(self.conv1x1_out, x, is_incremental)
        x = (x + residual) * math.sqrt(0.5)
        return x, s

    def _conv1x1_forward(self, conv, x, is_incremental):
        if is_incremental:
            return conv.incremental_forward(x)
        return conv(x)

    def clear_buffer(self):
        for conv in [self.conv, self.conv1x1_out, self.conv1x1_skip, self.conv1x1c]:
            if conv is not None:
                conv.clear_buffer()


class WaveNet(nn.Cell):
    def __init__(self, out_channels=8, layers=4, stacks=2, residual_channels=8, gate_channels=16,
                 skip_out_channels=8, kernel_size=2, dropout=0.05, cin_channels=4, hop_size=3):
        super().__init__()
        self.out_channels = out_channels
        self.cin_channels = cin_channels
        self.hop_size = hop_size
        layers_per_stack = layers // stacks
        self.first_conv = Conv1d1x1(out_channels, residual_channels)
        self.conv_layers = nn.CellList()
        for layer in range(layers):
            dilation = 2 ** (layer % layers_per_stack)
            self.conv_layers.append(ResidualConv1dGLU(
                residual_channels, gate_channels, kernel_size, skip_out_channels,
                cin_channels=cin_channels, dropout=dropout, dilation=dilation))
        self.last_conv_layers = nn.CellList([
            nn.ReLU(), Conv1d1x1(skip_out_channels, skip_out_channels),
            nn.ReLU(), Conv1d1x1(skip_out_channels, out_channels)])

    def upsample_net(self, c):
        # nearest-neighbour "stretch" of frame-level features to sample level
        return c.repeat_interleave(self.hop_size, dim=2)

    def construct(self, x, c=None, softmax=False):
        """x: one-hot (B, C, T); c: (B, cin, T // hop). Returns logits (B, C, T)."""
        B, _, T = x.shape
        if c is not None:
            c = self.upsample_net(c)
            assert c.shape[-1] == x.shape[-1]
        x = self.first_conv(x)
        skips = 0
        for f in self.conv_layers:
            x, h = f(x, c)
            skips += h
        skips *= math.sqrt(1.0 / len(self.conv_layers))
        x = skips
        for f in self.last_conv_layers:
            x = f(x)
        x = ops.softmax(x, axis=1) if softmax else x
        return x

    def incremental_forward(self, initial_input=None, c=None, T=100, test_inputs=None,
                            softmax=True, quantize=True, temperature=1.0, greedy=False):
        """Fast generation. Returns (B, C, T) one-hot (or probabilities)."""
        self.clear_buffer()
        B = 1
        if test_inputs is not None:
            test_inputs = test_inputs.transpose(1, 2)            # (B, T, C)
            B = test_inputs.shape[0]
        if c is not None:
            B = c.shape[0]
            c = self.upsample_net(c)
            c = c.transpose(1, 2)                                # (B, T, cin)
            T = min(T, c.shape[1])
        outputs = []
        if initial_input is None:
            initial_input = ops.zeros((B, 1, self.out_channels), ms.float32)
            initial_input[:, :, int(mulaw_quantize(0, self.out_channels))] = 1.0
        current_input = initial_input
        for t in range(T):
            if test_inputs is not None and t < test_inputs.shape[1]:
                current_input = test_inputs[:, t, :].unsqueeze(1)
            elif t > 0:
                current_input = outputs[-1]
            ct = None if c is None else c[:, t, :].unsqueeze(1)
            x = self.first_conv.incremental_forward(current_input)
            skips = 0
            for f in self.conv_layers:
                x, h = f.incremental_forward(x, ct)
                skips += h
            skips *= math.sqrt(1.0 / len(self.conv_layers))
            x = skips
            for f in self.last_conv_layers:
                try:
                    x = f.incremental_forward(x)
                except AttributeError:
                    x = f(x)
            x = x.view(B, -1) / temperature
            x = ops.softmax(x, axis=1) if softmax else x
            if quantize:
                if greedy:
                    idx = x.argmax(dim=-1)
                else:
                    idx = ops.multinomial(x, 1).squeeze(-1)
                x = ops.one_hot(idx, self.out_channels, Tensor(1.0, ms.float32), Tensor(0.0, ms.float32))
            outputs += [x.unsqueeze(1)]
        outputs = ops.cat(outputs, axis=1)                       # (B, T, C)
        outputs = outputs.transpose(1, 2)
        self.clear_buffer()
        return outputs

    def clear_buffer(self):
        self.first_conv.clear_buffer()
        for f in self.conv_layers:
            f.clear_buffer()
        for f in self.last_conv_layers:
            if hasattr(f, "clear_buffer"):
                f.clear_buffer()


class WaveNetGenerator(nn.Cell):
    """Decoding entry: generate T samples and mu-law decode them to a waveform."""

    def __init__(self, model, length=12, greedy=True):
        super().__init__()
        self.model = model
        self.length = length
        self.greedy = greedy

    def construct(self, c):
        y_hat = self.model.incremental_forward(c=c, T=self.length, greedy=self.greedy)
        classes = y_hat[0].transpose(0, 1).argmax(dim=-1)       # (T,)
        samples = []
        for t in range(classes.shape[0]):
            samples.append(classes[t].item())
        wav = inv_mulaw_quantize(np.array(samples), self.model.out_channels)
        return {"one_hot": y_hat, "samples": Tensor(np.array(samples), ms.int32),
                "wav": Tensor(wav, ms.float32)}


def build_model(seed=0):
    model = WaveNet()
    rng = np.random.RandomState(seed)
    for p in model.get_parameters():
        p.set_data(Tensor(rng.uniform(-0.5, 0.5, p.shape).astype(np.float32)))
    model.set_train(False)
    return model


def make_inputs(seed=0, B=2, T=12, C=8, cin=4, hop=3):
    rng = np.random.RandomState(seed)
    wav = np.sin(np.arange(B * T).reshape(B, T) * 0.7) * 0.8
    q = mulaw_quantize(wav, C).clip(0, C - 1)
    x = np.eye(C, dtype=np.float32)[q].transpose(0, 2, 1)          # (B, C, T)
    c = rng.randn(B, cin, T // hop).astype(np.float32)
    return Tensor(x), Tensor(c)


def main():
    model = build_model(0)
    x, c = make_inputs(0)
    logits = model(x, c)
    print("teacher-forced logits", logits.shape, float(logits.sum()), float(logits.abs().max()))
    # incremental forward with teacher forcing must match the parallel forward
    probs_inc = model.incremental_forward(c=c, T=12, test_inputs=x, quantize=False)
    probs = model(x, c, softmax=True)
    shifted = probs_inc[:, :, :]
    print("incremental vs parallel max diff", float((shifted - probs).abs().max()))
    gen = WaveNetGenerator(model, length=12, greedy=True)
    out = gen(c[:1])
    print("samples", out["samples"].asnumpy().tolist())
    print("wav", np.round(out["wav"].asnumpy(), 4).tolist())
    ms.set_seed(1)
    y = model.incremental_forward(c=c, T=12, greedy=False)
    print("sampled classes", y.argmax(dim=1).asnumpy().tolist())


if __name__ == "__main__":
    main()
