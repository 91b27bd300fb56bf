"""A freshly ported iterative denoiser (PyTorch style), before anyone made it graph-friendly.

It runs in PYNATIVE_MODE. GRAPH_MODE stops at the `try` (E5101) and at `gate`, defined in one branch only
(E5801): only a person can decide what those should do. Everything else graphlint rewrites, and
`graphlint --fix --unsafe-fixes --validate examples/` keeps those fixes while the `try` is still there: each
is checked against the original in PYNATIVE_MODE, and the summary says what blocks compiling and where
(`--show-fixes` lists them). `python benchmarks/fix_ported_model.py` measures compile and step time before and
after.
"""

import numpy as np

import mindspore as ms
from mindspore import nn, ops


class PortedDenoiser(nn.Cell):
    """Refines its input for `steps` iterations, stopping early once the update is small."""

    def __init__(self, dim: int = 16, steps: int = 800):
        super().__init__()
        self.step = nn.Dense(dim, dim)
        self.out = nn.Dense(dim, dim)
        self.steps = steps

    def construct(self, x, noise):
        try:  # PyTorch habit: graph code cannot catch exceptions
            h = self.step(x)
        except ValueError:
            h = x
        x += noise * 0.01  # PyTorch habit: an in-place update of an input
        if h.mean() > 0:
            gate = ops.sigmoid(h)  # `gate` has no value when the condition is false
        scale = np.sqrt(np.maximum(x.var(), 1e-6))  # host NumPy on a Tensor
        for t in range(800):
            update = ops.tanh(self.step(x)) * 0.01
            x = x - update
            if update.abs().max().item() < 1e-4:  # converged
                break
        residual = x * 2
        del residual
        y = x * 0.5 if x.sum() > 0 else x - 1
        return self.out(y * gate) / scale
