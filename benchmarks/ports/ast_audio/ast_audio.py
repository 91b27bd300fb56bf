"""AST (Audio Spectrogram Transformer) audio classifier with a log-mel front-end, ported to MindSpore.

Follows the public PyTorch AST (YuanGongND/ast, timm ViT blocks) with a torchaudio-style MelSpectrogram
computed inside forward, SpecAugment masking in training mode, a soft-target training loss (label smoothing +
mixup) and two inference entries: Predictor (top-k) and StreamingClassifier (loop over windows).
"""
import math
import random
from dataclasses import dataclass
from typing import Optional

import numpy as np
import mindspore as ms
from mindspore import nn, ops, Tensor, Parameter


@dataclass
class ASTConfig:
    sample_rate: int = 8000
    n_fft: int = 128
    hop_length: int = 64
    n_mels: int = 32
    f_min: float = 0.0
    f_max: Optional[float] = None
    target_length: int = 64        # frames after pad / cut (AST "input_tdim")
    freqm: int = 8                 # SpecAugment max frequency mask
    timem: int = 12                # SpecAugment max time mask
    norm_mean: float = -4.2677393  # AudioSet stats used by AST
    norm_std: float = 4.5689974
    patch_size: int = 8
    fstride: int = 8
    tstride: int = 8
    embed_dim: int = 32
    depth: int = 2
    num_heads: int = 2
    mlp_ratio: float = 2.0
    num_classes: int = 10
    label_smoothing: float = 0.1
    mixup_alpha: float = 0.5
    threshold: float = 0.1955


@dataclass
class ASTOutput:
    logits: Tensor
    embedding: Tensor


def hann_window(n, periodic=True):
    # torch.hann_window
    N = n if periodic else n - 1
    k = np.arange(n, dtype=np.float32)
    return Tensor(0.5 - 0.5 * np.cos(2.0 * math.pi * k / N), ms.float32)


def melscale_fbanks(n_freqs, f_min, f_max, n_mels, sample_rate):
    # torchaudio.functional.melscale_fbanks (htk scale, norm=None)
    hz_to_mel = lambda f: 2595.0 * np.log10(1.0 + f / 700.0)
    mel_to_hz = lambda m: 700.0 * (10.0 ** (m / 2595.0) - 1.0)
    all_freqs = np.linspace(0, sample_rate // 2, n_freqs)
    m_pts = np.linspace(hz_to_mel(f_min), hz_to_mel(f_max), n_mels + 2)
    f_pts = mel_to_hz(m_pts)
    f_diff = f_pts[1:] - f_pts[:-1]
    slopes = f_pts[None, :] - all_freqs[:, None]
    down = (-1.0 * slopes[:, :-2]) / f_diff[:-1]
    up = slopes[:, 2:] / f_diff[1:]
    return np.maximum(0.0, np.minimum(down, up)).astype(np.float32)  # (n_freqs, n_mels)


class MelSpectrogram(nn.Cell):
    """torchaudio.transforms.MelSpectrogram(power=2, center=True, pad_mode='reflect') + log."""

    def __init__(self, cfg):
        super().__init__()
        self.cfg = cfg
        self.n_fft = cfg.n_fft
        self.hop = cfg.hop_length
        n_freqs = cfg.n_fft // 2 + 1
        self.window = hann_window(cfg.n_fft)
        k = np.arange(cfg.n_fft)[:, None] * np.arange(n_freqs)[None, :]
        ang = 2.0 * math.pi * k / cfg.n_fft
        self.dft_re = Tensor(np.cos(ang).astype(np.float32))
        self.dft_im = Tensor(-np.sin(ang).astype(np.float32))
        f_max = cfg.f_max or cfg.sample_rate / 2
        self.fb = Tensor(melscale_fbanks(n_freqs, cfg.f_min, f_max, cfg.n_mels, cfg.sample_rate))

    def construct(self, wave):
        # wave: (B, L)
        wave = wave - wave.mean(dim=-1, keepdim=True)
        x = ops.pad(wave.unsqueeze(1), (self.n_fft // 2, self.n_fft // 2), mode="reflect").squeeze(1)
        n_frames = 1 + (x.shape[-1] - self.n_fft) // self.hop
        idx = np.arange(self.n_fft)[None, :] + self.hop * np.arange(n_frames)[:, None]
        frames = x[:, Tensor(idx)] * self.window          # (B, T, n_fft)
        re = ops.matmul(frames, self.dft_re)
        im = ops.matmul(frames, self.dft_im)
        power = re ** 2 + im ** 2                          # (B, T, n_freqs)
        mel = ops.matmul(power, self.fb)                   # (B, T, n_mels)
        return ops.log(mel + 1e-6)


class SpecAugment(nn.Cell):
    """torchaudio FrequencyMasking / TimeMasking (iid per example), only in training."""

    def __init__(self, freqm, timem):
        super().__init__()
        self.freqm = freqm
        self.timem = timem

    def construct(self, fbank):
        # fbank: (B, T, F)
        if not self.training:
            return fbank
        B, T, F = fbank.shape
        for b in range(B):
            f = random.randint(0, self.freqm)
            f0 = random.randint(0, F - f)
            fbank[b, :, f0:f0 + f] = 0.0
            t = np.random.randint(0, self.timem + 1)
            t0 = np.random.randint(0, T - t + 1)
            fbank[b, t0:t0 + t, :] = 0.0
        return fbank


class Attention(nn.Cell):
    def __init__(self, dim, num_heads):
        super().__init__()
        self.num_heads = num_heads
        self.scale = (dim // num_heads) ** -0.5
        self.qkv = nn.Linear(dim, dim * 3)
        self.proj = nn.Linear(dim, dim)
        self.attn_map = None

    def construct(self, x):
        B, N, C = x.shape
        qkv = self.qkv(x).reshape(B, N, 3, self.num_heads, C // self.num_heads).permute(2, 0, 3, 1, 4)
        q, k, v = qkv.unbind(0)
        attn = (q @ k.transpose(-2, -1)) * self.scale
        attn = attn.softmax(-1)
        self.attn_map = attn                               # kept for visualisation
        x = (attn @ v).transpose(1, 2).reshape(B, N, C)
        return self.proj(x)


class Block(nn.Cell):
    def __init__(self, dim, num_heads, mlp_ratio):
        super().__init__()
        hidden = int(dim * mlp_ratio)
        self.norm1 = nn.LayerNorm((dim,), epsilon=1e-6)
        self.attn = Attention(dim, num_heads)
        self.norm2 = nn.LayerNorm((dim,), epsilon=1e-6)
        self.fc1 = nn.Linear(dim, hidden)
        self.act = nn.GELU(approximate=False)
        self.fc2 = nn.Linear(hidden, dim)

    def construct(self, x):
        x = x + self.attn(self.norm1(x))
        x = x + self.fc2(self.act(self.fc1(self.norm2(x))))
        return x


class ASTModel(nn.Cell):
    def __init__(self, cfg: ASTConfig):
        super().__init__()
        self.cfg = cfg
        D = cfg.embed_dim
        self.melspec = MelSpectrogram(cfg)
        self.specaug = SpecAugment(cfg.freqm, cfg.timem)
        self.patch_embed = nn.Conv2d(1, D, kernel_size=cfg.patch_size, stride=(cfg.fstride, cfg.tstride),
                                     pad_mode="valid", has_bias=True)
        # AST's get_shape(): run a dummy input through the projection to find the patch grid
        test_out = self.patch_embed(ops.randn(1, 1, cfg.n_mels, cfg.target_length))
        self.f_dim, self.t_dim = test_out.shape[2], test_out.shape[3]
        self.num_patches = self.f_dim * self.t_dim
        self.cls_token = Parameter(ops.randn(1, 1, D) * 0.02)
        self.dist_token = Parameter(ops.randn(1, 1, D) * 0.02)
        self.pos_embed = Parameter(ops.randn(1, self.num_patches + 2, D) * 0.02)
        self.blocks = nn.CellList([Block(D, cfg.num_heads, cfg.mlp_ratio) for _ in range(cfg.depth)])
        self.norm = nn.LayerNorm((D,), epsilon=1e-6)
        self.head_norm = nn.LayerNorm((D,))
        self.head = nn.Linear(D, cfg.num_classes)

    def features(self, wave):
        fbank = self.melspec(wave)                                    # (B, T, F)
        p = self.cfg.target_length - fbank.shape[1]
        if p > 0:
            fbank = ops.pad(fbank, (0, 0, 0, p))
        elif p < 0:
            fbank = fbank[:, :self.cfg.target_length, :]
        fbank = self.specaug(fbank)
        return (fbank - self.cfg.norm_mean) / (self.cfg.norm_std * 2)

    def construct(self, wave):
        x = self.features(wave)
        B = x.shape[0]
        x = x.unsqueeze(1).transpose(2, 3)                            # (B, 1, F, T)
        x = self.patch_embed(x).flatten(2).transpose(1, 2)            # (B, N, D)
        cls = self.cls_token.expand(B, -1, -1)
        dist = self.dist_token.expand(B, -1, -1)
        x = ops.cat((cls, dist, x), axis=1)
        x = x + self.pos_embed
        for blk in self.blocks:
            x = blk(x)
        x = self.norm(x)
        emb = (x[:, 0] + x[:, 1]) / 2
        logits = self.head(self.head_norm(emb))
        return ASTOutput(logits=logits, embedding=emb)

    def predict(self, wave, k=3):
        logits = self(wave).logits
        probs = logits.softmax(-1)
        top_p, top_i = ops.topk(probs, k, dim=-1)
        return {"classes": top_i, "probs": top_p}


class ASTTrainLoss(nn.Cell):
    """Mixup (beta-sampled lambda, batch flipped) + label-smoothed soft-target cross entropy."""

    def __init__(self, model, cfg):
        super().__init__()
        self.model = model
        self.cfg = cfg

    def construct(self, wave, labels):
        C = self.cfg.num_classes
        y = ops.one_hot(labels, C, Tensor(1.0, ms.float32), Tensor(0.0, ms.float32))
        if self.cfg.mixup_alpha > 0:
            lam = float(np.random.beta(self.cfg.mixup_alpha, self.cfg.mixup_alpha))
            wave = lam * wave + (1 - lam) * wave.flip((0,))
            y = lam * y + (1 - lam) * y.flip((0,))
        y = y * (1 - self.cfg.label_smoothing) + self.cfg.label_smoothing / C
        out = self.model(wave)
        logp = ops.log_softmax(out.logits, axis=-1)
        loss = -(y * logp).sum(dim=-1).mean()
        return {"loss": loss, "logits": out.logits}


class Predictor(nn.Cell):
    """Inference entry: top-k classes and probabilities."""

    def __init__(self, model, k=3):
        super().__init__()
        self.model = model
        self.k = k

    def construct(self, wave):
        return self.model.predict(wave, self.k)


class StreamingClassifier(nn.Cell):
    """Classify a long waveform by sliding a window over it and averaging the window probabilities."""

    def __init__(self, model, window, hop):
        super().__init__()
        self.model = model
        self.window = window
        self.hop = hop
        self.threshold = model.cfg.threshold

    def construct(self, wave):
        B, L = wave.shape
        n_win = (L - self.window) // self.hop + 1
        probs = ops.zeros((B, n_win, self.model.cfg.num_classes), ms.float32)
        hits = 0
        for i in range(n_win):
            chunk = wave[:, i * self.hop: i * self.hop + self.window]
            p = self.model(chunk).logits.softmax(-1)
            probs[:, i] = p
            if p.max().item() > self.threshold:
                hits += 1
        mean_p = probs.mean(dim=1)
        return {"probs": mean_p, "top1": mean_p.argmax(dim=-1), "hits": hits}


def make_inputs(seed, B=2, L=4000, num_classes=10):
    rs = np.random.RandomState(seed)
    t = np.arange(L) / 8000.0
    wave = 0.5 * np.sin(2 * np.pi * rs.uniform(200, 2000, (B, 1)) * t) + 0.1 * rs.randn(B, L)
    labels = rs.randint(0, num_classes, (B,))
    return Tensor(wave.astype(np.float32)), Tensor(labels.astype(np.int32))


def train_inputs(cfg, wave, labels):
    """arguments of ASTTrainLoss for one batch"""
    return (wave, labels)


def build(seed=0):
    ms.set_seed(seed)
    np.random.seed(seed)
    random.seed(seed)
    cfg = ASTConfig()
    model = ASTModel(cfg)
    return cfg, model


if __name__ == "__main__":
    ms.set_context(mode=ms.PYNATIVE_MODE)
    cfg, model = build(0)
    wave, labels = make_inputs(1)
    model.set_train(False)
    out = model(wave)
    print("logits", out.logits.shape, out.logits.asnumpy()[0, :4])
    print("predict", Predictor(model, k=3)(wave))
    long_wave, _ = make_inputs(2, L=10000)
    res = StreamingClassifier(model, window=4000, hop=2000)(long_wave)
    print("stream top1", res["top1"], "hits", res["hits"])
    model.set_train(True)
    random.seed(0)
    np.random.seed(0)
    loss = ASTTrainLoss(model, cfg)(wave, labels)
    print("train loss", loss["loss"].item())
