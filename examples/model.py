"""A small sequence classifier ported from PyTorch style, with the GRAPH_MODE pitfalls ports usually carry.

Run `graphlint examples/` to see them, and `graphlint --fix --validate --diff examples/`
for the rewrites graphlint can prove (example inputs: examples/pyproject.toml).
"""

import math

import numpy as np

import mindspore as ms
from mindspore import Parameter, Tensor, nn, ops


class FeedForward(nn.Cell):
    """Position-wise feed-forward block with a residual connection."""

    def __init__(self, dim: int, hidden: int):
        super().__init__()
        self.fc1 = nn.Dense(dim, hidden)
        self.fc2 = nn.Dense(hidden, dim)
        self.act = nn.GELU()

    def construct(self, x):
        out = self.fc2(self.act(self.fc1(x)))
        x += out  # PyTorch habit: in GRAPH_MODE this writes into the caller's tensor
        return x


class Attention(nn.Cell):
    """Single-head self-attention."""

    def __init__(self, dim: int):
        super().__init__()
        self.qkv = nn.Dense(dim, dim * 3)
        self.proj = nn.Dense(dim, dim)
        self.scale = 1.0 / math.sqrt(dim)  # a Python constant: fine in graph code

    def construct(self, x, mask=None):
        q, k, v = ops.split(self.qkv(x), x.shape[-1], axis=-1)
        scores = ops.matmul(q, k.swapaxes(-1, -2)) * self.scale
        if mask is not None:  # decided while compiling: not a problem
            scores = scores + (1.0 - mask) * -1e9
        weights = ops.softmax(scores, axis=-1)
        return self.proj(ops.matmul(weights, v))


class Encoder(nn.Cell):
    def __init__(self, dim: int = 8, hidden: int = 16, layers: int = 2):
        super().__init__()
        self.blocks = nn.CellList([Attention(dim) for _ in range(layers)])
        self.ffn = nn.CellList([FeedForward(dim, hidden) for _ in range(layers)])
        self.norm = nn.LayerNorm((dim,))

    def construct(self, x):
        for attention, ffn in zip(self.blocks, self.ffn):  # a short constant loop: unrolled, fine
            x = ffn(x + attention(x))
        return self.norm(x)


class Classifier(nn.Cell):
    """Encoder + pooling + head, as ported: it runs in PYNATIVE_MODE."""

    def __init__(self, dim: int = 8, classes: int = 3):
        super().__init__()
        self.encoder = Encoder(dim)
        self.head = nn.Dense(dim, classes)
        self.temperature = Parameter(Tensor(1.0, ms.float32), name="temperature")

    def construct(self, x):
        features = self.encoder(x)
        pooled = features.mean(axis=1)
        confidence = np.max(pooled.asnumpy())  # host NumPy: JIT fallback, blocks MindIR export
        logits = self.head(pooled) / self.temperature
        if confidence > 100.0:
            logits = logits * 0.0
        return logits


class Smoother(nn.Cell):
    """Exponential smoothing over time steps, written as a Python loop."""

    def construct(self, series):
        state = series[:, 0]
        total = ops.zeros_like(state)
        for step in range(1, 8):
            state = 0.9 * state + 0.1 * series[:, step]
            total += state
        del step
        return total


class Denoiser(nn.Cell):
    """An iterative refinement loop, ported as a Python `for`: GRAPH_MODE unrolls all 600 steps."""

    def __init__(self, dim: int = 8):
        super().__init__()
        self.step = nn.Dense(dim, dim)

    def construct(self, x):
        for t in range(600):
            x = x - 0.01 * ops.tanh(self.step(x))
        return x


class Calibrator(nn.Cell):
    """Logit calibration written with NumPy and PyTorch habits: host round trips inside the graph."""

    def construct(self, logits):
        spread = np.sqrt(np.maximum(logits.var(axis=-1, keepdims=True), 1e-6))  # NumPy on a Tensor
        if logits.abs().max().item() > 5.0:  # `.item()` copies to the host just to compare
            logits = logits / spread
        return logits


class Shrinker(nn.Cell):
    """Halves its input until every entry is below 1: a data-dependent loop, which GRAPH_MODE compiles as is."""

    def construct(self, x):
        while ops.abs(x).max() > 1.0:
            x = x * 0.5
        return x
