"""RealNVP / Glow flow on 2-D moons: karpathy/pytorch-normalizing-flows (nflows.py) + a
chrischute/real-nvp style masked coupling and bits-per-dim. MindSpore 2.10 port."""
import math
from dataclasses import dataclass

import numpy as np
import scipy.linalg
import mindspore as ms
from mindspore import nn, ops, Tensor, Parameter


class MLP(nn.Cell):
    """a simple 4-layer MLP"""
    def __init__(self, nin, nout, nh):
        super().__init__()
        self.net = nn.SequentialCell(
            nn.Dense(nin, nh), nn.LeakyReLU(0.2),
            nn.Dense(nh, nh), nn.LeakyReLU(0.2),
            nn.Dense(nh, nh), nn.LeakyReLU(0.2),
            nn.Dense(nh, nout),
        )

    def construct(self, x):
        return self.net(x)


class AffineHalfFlow(nn.Cell):
    """RealNVP coupling: half the dims scaled+shifted by functions of the other half
    (scale=False gives NICE additive coupling)."""
    def __init__(self, dim, parity, net_class=MLP, nh=24, scale=True, shift=True):
        super().__init__()
        self.dim = dim
        self.parity = parity
        self.s_cond = lambda x: ops.zeros((x.shape[0], self.dim // 2), x.dtype)
        self.t_cond = lambda x: ops.zeros((x.shape[0], self.dim // 2), x.dtype)
        if scale:
            self.s_cond = net_class(self.dim // 2, self.dim // 2, nh)
        if shift:
            self.t_cond = net_class(self.dim // 2, self.dim // 2, nh)

    def construct(self, x):
        x0, x1 = x[:, ::2], x[:, 1::2]
        if self.parity:
            x0, x1 = x1, x0
        s = self.s_cond(x0)
        t = self.t_cond(x0)
        z0 = x0  # untouched half
        z1 = ops.exp(s) * x1 + t  # transform this half as a function of the other
        if self.parity:
            z0, z1 = z1, z0
        z = ops.cat([z0, z1], axis=1)
        log_det = ops.sum(s, dim=1)
        return z, log_det

    def backward(self, z):
        z0, z1 = z[:, ::2], z[:, 1::2]
        if self.parity:
            z0, z1 = z1, z0
        s = self.s_cond(z0)
        t = self.t_cond(z0)
        x0 = z0
        x1 = (z1 - t) * ops.exp(-s)
        if self.parity:
            x0, x1 = x1, x0
        x = ops.cat([x0, x1], axis=1)
        log_det = ops.sum(-s, dim=1)
        return x, log_det


class MaskedAffineCoupling(nn.Cell):
    """chrischute/real-nvp style coupling with a binary mask and one net giving (s, t)."""
    def __init__(self, dim, mask_type, nh=24):
        super().__init__()
        mask = np.arange(dim) % 2 == mask_type
        self.mask = Tensor(mask.astype(np.float32)).view(1, dim)
        self.net = MLP(dim, 2 * dim, nh)
        self.rescale = Parameter(Tensor(np.ones((1, dim), np.float32)), name="rescale")

    def _st(self, x_id):
        st = self.net(x_id)
        s, t = st.chunk(2, dim=1)
        s = self.rescale * ops.tanh(s)
        s = s * (1 - self.mask)
        t = t * (1 - self.mask)
        return s, t

    def construct(self, x):
        b = self.mask
        s, t = self._st(x * b)
        z = x * ops.exp(s) + t
        return z, s.sum(dim=1)

    def backward(self, z):
        s, t = self._st(z * self.mask)
        x = (z - t) * ops.exp(-s)
        return x, -s.sum(dim=1)


class AffineConstantFlow(nn.Cell):
    """Scales + shifts the flow by (learned) constants per dimension."""
    def __init__(self, dim, scale=True, shift=True):
        super().__init__()
        self.s = Parameter(Tensor(np.random.randn(1, dim).astype(np.float32)), name="s") if scale else None
        self.t = Parameter(Tensor(np.random.randn(1, dim).astype(np.float32)), name="t") if shift else None

    def construct(self, x):
        s = self.s if self.s is not None else ops.zeros_like(x)
        t = self.t if self.t is not None else ops.zeros_like(x)
        z = x * ops.exp(s) + t
        log_det = ops.sum(s, dim=1)
        return z, log_det

    def backward(self, z):
        s = self.s if self.s is not None else ops.zeros_like(z)
        t = self.t if self.t is not None else ops.zeros_like(z)
        x = (z - t) * ops.exp(-s)
        log_det = ops.sum(-s, dim=1)
        return x, log_det


class ActNorm(AffineConstantFlow):
    """Glow ActNorm: s, t are initialised from the first batch it sees."""
    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        self.data_dep_init_done = False

    def construct(self, x):
        # first batch is used for init
        if not self.data_dep_init_done:
            assert self.s is not None and self.t is not None  # for now
            self.s.set_data(ops.stop_gradient(-ops.log(x.std(dim=0, keepdim=True))))
            self.t.set_data(ops.stop_gradient(-(x * ops.exp(self.s)).mean(dim=0, keepdim=True)))
            self.data_dep_init_done = True
        return super().construct(x)


class Invertible1x1Conv(nn.Cell):
    """As introduced in Glow paper; the 1x1 conv is a dim x dim matrix in LU form."""
    def __init__(self, dim):
        super().__init__()
        self.dim = dim
        Q, _ = np.linalg.qr(np.random.randn(dim, dim))
        P, L, U = scipy.linalg.lu(Q)
        self.P = Tensor(P.astype(np.float32))  # remains fixed during optimization
        self.L = Parameter(Tensor(L.astype(np.float32)), name="L")  # lower triangular
        self.S = Parameter(Tensor(np.diag(U).astype(np.float32)), name="S")  # diagonal
        self.U = Parameter(Tensor(np.triu(U, 1).astype(np.float32)), name="U")  # upper triangular

    def _assemble_W(self):
        """assemble W from its pieces (P, L, U, S)"""
        L = ops.tril(self.L, diagonal=-1) + ops.diag(ops.ones(self.dim))
        U = ops.triu(self.U, diagonal=1)
        W = self.P @ L @ (U + ops.diag(self.S))
        return W

    def construct(self, x):
        W = self._assemble_W()
        z = x @ W
        log_det = ops.sum(ops.log(ops.abs(self.S)))
        return z, log_det

    def backward(self, z):
        W = self._assemble_W()
        W_inv = ops.inverse(W)
        x = z @ W_inv
        log_det = ops.sum(ops.log(ops.abs(self.S)))
        return x, -log_det


class NormalizingFlow(nn.Cell):
    """A sequence of Normalizing Flows is a Normalizing Flow"""
    def __init__(self, flows):
        super().__init__()
        self.flows = nn.CellList(flows)

    def construct(self, x):
        m, _ = x.shape
        log_det = ops.zeros(m)
        zs = [x]
        for flow in self.flows:
            x, ld = flow(x)
            log_det += ld
            zs.append(x)
        return zs, log_det

    def backward(self, z):
        m, _ = z.shape
        log_det = ops.zeros(m)
        xs = [z]
        for flow in reversed(self.flows):
            z, ld = flow.backward(z)
            log_det += ld
            xs.append(z)
        return xs, log_det


class DiagNormal:
    """torch.distributions.Normal-like prior written by hand (independent dims)."""
    def __init__(self, loc, scale):
        self.loc = loc
        self.scale = scale

    def log_prob(self, value):
        var = self.scale ** 2
        return -((value - self.loc) ** 2) / (2 * var) - ops.log(self.scale) - math.log(math.sqrt(2 * math.pi))

    def sample(self, sample_shape=()):
        shape = tuple(sample_shape) + tuple(self.loc.shape)
        eps = ops.randn(shape)
        return self.loc + eps * self.scale


@dataclass
class FlowOutput:
    zs: list
    prior_logprob: Tensor
    log_det: Tensor


class NormalizingFlowModel(nn.Cell):
    """A Normalizing Flow Model is a (prior, flow) pair"""
    def __init__(self, prior, flows):
        super().__init__()
        self.prior = prior
        self.flow = NormalizingFlow(flows)

    def construct(self, x):
        zs, log_det = self.flow(x)
        prior_logprob = self.prior.log_prob(zs[-1]).view(x.shape[0], -1).sum(1)
        return FlowOutput(zs=zs, prior_logprob=prior_logprob, log_det=log_det)

    def backward(self, z):
        xs, log_det = self.flow.backward(z)
        return xs, log_det

    def sample(self, num_samples):
        z = self.prior.sample((num_samples,))
        xs, _ = self.flow.backward(z)
        return xs


def nll_and_bpd(out, dim):
    """negative log-likelihood and bits per dim (chrischute/real-nvp style)"""
    logprob = out.prior_logprob + out.log_det
    nll = -ops.sum(logprob) / logprob.shape[0]
    bpd = nll / (math.log(2) * dim)
    return {"nll": nll, "bpd": bpd, "worst": (-logprob).max().item()}


class Sampler(nn.Cell):
    """what one jits for generation: num_samples draws -> data space"""
    def __init__(self, model, num_samples):
        super().__init__()
        self.model = model
        self.num_samples = num_samples

    def construct(self):
        xs = self.model.sample(self.num_samples)
        return xs[-1]


def make_moons(n, noise=0.05, rng=None):
    rng = rng or np.random.RandomState(0)
    n_out, n_in = n // 2, n - n // 2
    outer = np.stack([np.cos(np.linspace(0, np.pi, n_out)), np.sin(np.linspace(0, np.pi, n_out))], 1)
    inner = np.stack([1 - np.cos(np.linspace(0, np.pi, n_in)), 1 - np.sin(np.linspace(0, np.pi, n_in)) - 0.5], 1)
    x = np.concatenate([outer, inner], 0) + noise * rng.randn(n, 2)
    return Tensor(x.astype(np.float32))


def build_model(dim=2, nh=16, n_coupling=4):
    np.random.seed(0)
    ms.set_seed(0)
    prior = DiagNormal(ops.zeros(dim), ops.ones(dim))
    flows = []
    for i in range(n_coupling):
        flows.append(ActNorm(dim))
        flows.append(Invertible1x1Conv(dim))
        if i < 2:
            flows.append(AffineHalfFlow(dim, parity=i % 2, nh=nh, scale=(i == 0)))
        else:
            flows.append(MaskedAffineCoupling(dim, mask_type=i % 2, nh=nh))
    return NormalizingFlowModel(prior, flows)


def main():
    ms.set_context(mode=ms.PYNATIVE_MODE)
    model = build_model()
    x = make_moons(8)
    out = model(x)  # first call: ActNorm data-dependent init
    stats = nll_and_bpd(out, 2)
    print("init   nll %.6f bpd %.6f worst %.6f" % (stats["nll"].item(), stats["bpd"].item(), stats["worst"]))
    out = model(make_moons(8, rng=np.random.RandomState(1)) * 1.5)  # a later batch
    stats = nll_and_bpd(out, 2)
    print("second nll %.6f bpd %.6f worst %.6f" % (stats["nll"].item(), stats["bpd"].item(), stats["worst"]))
    out = model(x)
    print("z[-1][:3]", out.zs[-1][:3].asnumpy().round(5).tolist(), "n zs", len(out.zs))
    xs, ld = model.backward(out.zs[-1])
    print("roundtrip max err %.2e, log_det sum %.6f" % (float(ops.abs(xs[-1] - x).max()), (ld + out.log_det).abs().max().item()))
    ms.set_seed(1)
    samples = Sampler(model, 8)()
    print("samples[:3]", samples[:3].asnumpy().round(5).tolist())


if __name__ == "__main__":
    main()
