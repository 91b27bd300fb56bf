"""REFERENCE FIX (graph-mode clean at LAX and STRICT). Conv-TasNet (Luo & Mesgarani 2019) ported to MindSpore from kaituoxu/Conv-TasNet (PyTorch).

Encoder (Conv1d) -> TCN separator (cLN, bottleneck, R x X dilated depthwise-separable blocks
with gLN/cLN, PReLU, residual paths) -> mask -> decoder (Linear basis + overlap-and-add).
Training side: permutation-invariant SI-SNR (itertools.permutations), reorder of estimates.
"""
import math
from itertools import permutations

import numpy as np
import mindspore as ms
from mindspore import nn, ops, Tensor, Parameter
from mindspore.common.initializer import initializer, XavierNormal

EPS = 1e-8


def overlap_and_add(signal, frame_step):
    """Reconstructs a signal from a framed representation (as in kaituoxu utils.py)."""
    outer_dimensions = signal.shape[:-2]
    frames, frame_length = signal.shape[-2:]

    subframe_length = math.gcd(frame_length, frame_step)
    subframe_step = frame_step // subframe_length
    subframes_per_frame = frame_length // subframe_length
    output_size = frame_step * (frames - 1) + frame_length
    output_subframes = output_size // subframe_length

    subframe_signal = signal.view(*outer_dimensions, -1, subframe_length)

    # torch: torch.arange(0, output_subframes).unfold(0, subframes_per_frame, subframe_step)
    frame = np.arange(0, output_subframes)
    frame = np.stack([frame[i * subframe_step:i * subframe_step + subframes_per_frame]
                      for i in range(frames)])
    frame = Tensor(frame, ms.int32).view(-1)

    result = ops.zeros((*outer_dimensions, output_subframes, subframe_length), signal.dtype)
    result = ops.index_add(result, frame, subframe_signal, len(outer_dimensions))
    result = result.view(*outer_dimensions, -1)
    return result


class Encoder(nn.Cell):
    def __init__(self, L, N):
        super().__init__()
        self.L, self.N = L, N
        self.conv1d_U = nn.Conv1d(1, N, kernel_size=L, stride=L // 2, has_bias=False, pad_mode="valid")

    def construct(self, mixture):
        mixture = ops.unsqueeze(mixture, 1)                  # [M, 1, T]
        mixture_w = ops.relu(self.conv1d_U(mixture))         # [M, N, K]
        return mixture_w


class Decoder(nn.Cell):
    def __init__(self, N, L):
        super().__init__()
        self.N, self.L = N, L
        self.basis_signals = nn.Dense(N, L, has_bias=False)

    def construct(self, mixture_w, est_mask):
        source_w = ops.unsqueeze(mixture_w, 1) * est_mask    # [M, C, N, K]
        source_w = ops.swapaxes(source_w, 2, 3)                  # [M, C, K, N]
        est_source = self.basis_signals(source_w)            # [M, C, K, L]
        est_source = overlap_and_add(est_source, self.L // 2)  # [M, C, T]
        return est_source


class ChannelwiseLayerNorm(nn.Cell):
    """Channel-wise Layer Normalization (cLN)"""
    def __init__(self, channel_size):
        super().__init__()
        self.gamma = Parameter(ops.ones((1, channel_size, 1), ms.float32))
        self.beta = Parameter(ops.zeros((1, channel_size, 1), ms.float32))

    def construct(self, y):
        mean = y.mean(dim=1, keepdim=True)                   # [M, 1, K]
        # torch: torch.var(y, dim=1, keepdim=True, unbiased=False)
        var = y.var(axis=1, keepdims=True, ddof=0)
        cLN_y = self.gamma * (y - mean) / ops.pow(var + EPS, 0.5) + self.beta
        return cLN_y


class GlobalLayerNorm(nn.Cell):
    """Global Layer Normalization (gLN)"""
    def __init__(self, channel_size):
        super().__init__()
        self.gamma = Parameter(ops.ones((1, channel_size, 1), ms.float32))
        self.beta = Parameter(ops.zeros((1, channel_size, 1), ms.float32))

    def construct(self, y):
        mean = y.mean(dim=1, keepdim=True).mean(dim=2, keepdim=True)
        var = (ops.pow(y - mean, 2)).mean(dim=1, keepdim=True).mean(dim=2, keepdim=True)
        gLN_y = self.gamma * (y - mean) / ops.pow(var + EPS, 0.5) + self.beta
        return gLN_y


def chose_norm(norm_type, channel_size):
    if norm_type == "gLN":
        return GlobalLayerNorm(channel_size)
    elif norm_type == "cLN":
        return ChannelwiseLayerNorm(channel_size)
    else:
        return nn.BatchNorm1d(channel_size)


class Chomp1d(nn.Cell):
    def __init__(self, chomp_size):
        super().__init__()
        self.chomp_size = chomp_size

    def construct(self, x):
        return x[:, :, :-self.chomp_size].contiguous()


class DepthwiseSeparableConv(nn.Cell):
    def __init__(self, in_channels, out_channels, kernel_size, stride, padding, dilation,
                 norm_type="gLN", causal=False):
        super().__init__()
        depthwise_conv = nn.Conv1d(in_channels, in_channels, kernel_size, stride=stride, pad_mode="pad",
                                   padding=padding, dilation=dilation, group=in_channels, has_bias=False)
        prelu = nn.PReLU()
        norm = chose_norm(norm_type, in_channels)
        pointwise_conv = nn.Conv1d(in_channels, out_channels, 1, has_bias=False)
        if causal:
            self.net = nn.SequentialCell(depthwise_conv, Chomp1d(padding), prelu, norm, pointwise_conv)
        else:
            self.net = nn.SequentialCell(depthwise_conv, prelu, norm, pointwise_conv)

    def construct(self, x):
        return self.net(x)


class TemporalBlock(nn.Cell):
    def __init__(self, in_channels, out_channels, kernel_size, stride, padding, dilation,
                 norm_type="gLN", causal=False):
        super().__init__()
        conv1x1 = nn.Conv1d(in_channels, out_channels, 1, has_bias=False)
        prelu = nn.PReLU()
        norm = chose_norm(norm_type, out_channels)
        dsconv = DepthwiseSeparableConv(out_channels, in_channels, kernel_size, stride, padding,
                                        dilation, norm_type, causal)
        self.net = nn.SequentialCell(conv1x1, prelu, norm, dsconv)

    def construct(self, x):
        residual = x
        out = self.net(x)
        return out + residual


class TemporalConvNet(nn.Cell):
    def __init__(self, N, B, H, P, X, R, C, norm_type="gLN", causal=False, mask_nonlinear="relu"):
        super().__init__()
        self.C = C
        self.mask_nonlinear = mask_nonlinear
        layer_norm = ChannelwiseLayerNorm(N)
        bottleneck_conv1x1 = nn.Conv1d(N, B, 1, has_bias=False)
        repeats = []
        for r in range(R):
            blocks = []
            for x in range(X):
                dilation = 2 ** x
                padding = (P - 1) * dilation if causal else (P - 1) * dilation // 2
                blocks += [TemporalBlock(B, H, P, stride=1, padding=padding, dilation=dilation,
                                         norm_type=norm_type, causal=causal)]
            repeats += [nn.SequentialCell(*blocks)]
        temporal_conv_net = nn.SequentialCell(*repeats)
        mask_conv1x1 = nn.Conv1d(B, C * N, 1, has_bias=False)
        self.network = nn.SequentialCell(layer_norm, bottleneck_conv1x1, temporal_conv_net, mask_conv1x1)

    def construct(self, mixture_w):
        M, N, K = mixture_w.shape
        score = self.network(mixture_w)                      # [M, C*N, K]
        score = score.view(M, self.C, N, K)                  # [M, C, N, K]
        if self.mask_nonlinear == "softmax":
            est_mask = ops.softmax(score, axis=1)
        elif self.mask_nonlinear == "relu":
            est_mask = ops.relu(score)
        else:
            raise ValueError("Unsupported mask non-linear function")
        return est_mask


class ConvTasNet(nn.Cell):
    def __init__(self, N, L, B, H, P, X, R, C, norm_type="gLN", causal=False, mask_nonlinear="relu"):
        super().__init__()
        self.N, self.L, self.B, self.H, self.P, self.X, self.R, self.C = N, L, B, H, P, X, R, C
        self.encoder = Encoder(L, N)
        self.separator = TemporalConvNet(N, B, H, P, X, R, C, norm_type, causal, mask_nonlinear)
        self.decoder = Decoder(N, L)
        for p in self.get_parameters():
            if p.dim() > 1:
                p.set_data(initializer(XavierNormal(), p.shape, p.dtype))

    def construct(self, mixture):
        mixture_w = self.encoder(mixture)
        est_mask = self.separator(mixture_w)
        est_source = self.decoder(mixture_w, est_mask)
        T_origin = mixture.shape[-1]
        T_conv = est_source.shape[-1]
        est_source = ops.pad(est_source, (0, T_origin - T_conv))
        return est_source


# ----------------------------------------------------------------- PIT SI-SNR (pit_criterion.py)
def get_mask(source, source_lengths):
    B, _, T = source.shape
    mask = (ops.arange(T).view(1, 1, T) < source_lengths.view(-1, 1, 1)).astype(source.dtype)
    return mask


def cal_si_snr_with_pit(source, estimate_source, source_lengths):
    B, C, T = source.shape
    mask = get_mask(source, source_lengths)
    estimate_source = estimate_source * mask

    num_samples = source_lengths.view(-1, 1, 1).float()
    mean_target = ops.sum(source, dim=2, keepdim=True) / num_samples
    mean_estimate = ops.sum(estimate_source, dim=2, keepdim=True) / num_samples
    zero_mean_target = source - mean_target
    zero_mean_estimate = estimate_source - mean_estimate
    zero_mean_target *= mask
    zero_mean_estimate *= mask

    s_target = ops.unsqueeze(zero_mean_target, dim=1)       # [B, 1, C, T]
    s_estimate = ops.unsqueeze(zero_mean_estimate, dim=2)   # [B, C, 1, T]
    pair_wise_dot = ops.sum(s_estimate * s_target, dim=3, keepdim=True)
    s_target_energy = ops.sum(s_target ** 2, dim=3, keepdim=True) + EPS
    pair_wise_proj = pair_wise_dot * s_target / s_target_energy
    e_noise = s_estimate - pair_wise_proj
    pair_wise_si_snr = ops.sum(pair_wise_proj ** 2, dim=3) / (ops.sum(e_noise ** 2, dim=3) + EPS)
    pair_wise_si_snr = 10 * ops.log10(pair_wise_si_snr + EPS)   # [B, C, C]

    perms = Tensor(list(permutations(range(C))), ms.int64)      # [C!, C]
    index = ops.unsqueeze(perms, 2)
    # torch: source.new_zeros((*perms.size(), C)).scatter_(2, index, 1)
    perms_one_hot = ops.zeros((*perms.shape, C), source.dtype).scatter(
        2, index, ops.ones(index.shape, source.dtype))
    # torch: torch.einsum('bij,pij->bp', [pair_wise_si_snr, perms_one_hot])
    snr_set = ops.matmul(pair_wise_si_snr.view(B, -1), perms_one_hot.view(perms.shape[0], -1).T)
    max_snr_idx = ops.argmax(snr_set, dim=1)
    max_snr, _ = snr_set.max(dim=1, keepdim=True)
    max_snr /= C
    return max_snr, perms, max_snr_idx


def reorder_source(source, perms, max_snr_idx):
    B, C, *_ = source.shape
    max_snr_perm = ops.index_select(perms, 0, max_snr_idx)
    reorder_source = ops.zeros_like(source)
    for b in range(B):
        for c in range(C):
            reorder_source[b, c] = source[b, max_snr_perm[b][c]]
    return reorder_source


def cal_loss(source, estimate_source, source_lengths):
    max_snr, perms, max_snr_idx = cal_si_snr_with_pit(source, estimate_source, source_lengths)
    loss = 0 - ops.mean(max_snr)
    reorder_estimate_source = reorder_source(estimate_source, perms, max_snr_idx)
    return loss, max_snr, estimate_source, reorder_estimate_source


class PITLoss(nn.Cell):
    def construct(self, source, estimate_source, source_lengths):
        return cal_loss(source, estimate_source, source_lengths)


def make_train_step(model, loss_fn):
    def forward_fn(mixture, source, lengths):
        est = model(mixture)
        loss, max_snr, _, reorder = loss_fn(source, est, lengths)
        return loss, (max_snr, reorder)
    grad_fn = ms.value_and_grad(forward_fn, None, model.trainable_params(), has_aux=True)
    return grad_fn


def separate(model, mixture, stride):
    """Inference helper: pad to a multiple of the stride, separate, trim back."""
    model.set_train(False)
    T = mixture.shape[-1]
    pad = (stride - T % stride) % stride
    x = ops.pad(mixture, (0, pad))
    est = model(x)
    return est[..., :T]


CFG = dict(N=16, L=16, B=16, H=32, P=3, X=2, R=1, C=2, norm_type="gLN", causal=False, mask_nonlinear="relu")


def make_inputs(seed, T=800):
    rng = np.random.RandomState(seed)
    source = rng.randn(2, 2, T).astype(np.float32)
    mixture = source.sum(1) + 0.1 * rng.randn(2, T).astype(np.float32)
    lengths = np.array([T, T - 100], np.int64)
    return Tensor(mixture), Tensor(source), Tensor(lengths)


def build(seed=0):
    ms.set_seed(seed)
    np.random.seed(seed)
    return ConvTasNet(**CFG)


if __name__ == "__main__":
    import sys
    mode = sys.argv[1] if len(sys.argv) > 1 else "pynative"
    if mode == "pynative":
        ms.set_context(mode=ms.PYNATIVE_MODE)
    else:
        ms.set_context(mode=ms.GRAPH_MODE, jit_syntax_level=ms.LAX if mode == "lax" else ms.STRICT)
    model = build(0)
    mixture, source, lengths = make_inputs(1)
    est = model(mixture)
    print("est", est.shape, float(est.abs().sum()))
    loss, max_snr, est_m, reorder = PITLoss()(source, est, lengths)
    print("loss", loss.item(), max_snr.asnumpy().ravel(), float(reorder.abs().sum()))
    grad_fn = make_train_step(model, PITLoss())
    (l, (ms_, ro)), grads = grad_fn(mixture, source, lengths)
    print("train loss", l.item(), "grad norms", [round(float(g.norm()), 5) for g in grads[:4]])
    sep = separate(model, mixture[:, :790], model.L // 2)
    print("separate", sep.shape, float(sep.abs().sum()))
