"""Small CTC speech recogniser (Conformer-lite), ported from PyTorch to MindSpore 2.10.

The PyTorch original is the usual DeepSpeech2 / Conformer-CTC recipe people write by hand: a Conv2d
subsampling front end (x4 in time) over log-mel features, sinusoidal positions, a few Conformer-lite
blocks (half-step FFN, masked multi-head self-attention, depthwise conv module), a linear CTC head with
log_softmax, an optional CTC loss, and two decoders: greedy (collapse repeats, drop blanks) and a
small CTC prefix beam search over a dict of prefixes.
"""
import itertools
import math
from collections import defaultdict
from dataclasses import dataclass
from typing import List, Optional

import numpy as np

import mindspore as ms
from mindspore import Tensor, nn, ops

VOCAB = ["_", "a", "b", "c", " "]  # index 0 is the CTC blank
NEG_INF = -float("inf")


def log_add(*args):
    # log(sum(exp(a) for a in args)), stable
    if all(a == NEG_INF for a in args):
        return NEG_INF
    a_max = max(args)
    return a_max + math.log(sum(math.exp(a - a_max) for a in args))


def make_pad_mask(lengths, max_len):
    # True on valid frames, (B, T)
    return ops.arange(max_len).unsqueeze(0) < lengths.unsqueeze(1)


@dataclass
class RecognizerOutput:
    log_probs: Tensor
    out_lengths: Tensor
    greedy: List[str]
    beams: List[str]
    beam_scores: List[float]
    loss: Optional[Tensor] = None


class Conv2dSubsampling(nn.Cell):
    """Two 3x3 stride-2 convs: T -> (T-1)//2 -> ((T-1)//2-1)//2."""

    def __init__(self, n_mels, channels, d_model):
        super().__init__()
        self.conv = nn.SequentialCell(
            nn.Conv2d(1, channels, 3, stride=2, pad_mode="valid", has_bias=True), nn.ReLU(),
            nn.Conv2d(channels, channels, 3, stride=2, pad_mode="valid", has_bias=True), nn.ReLU())
        freq = ((n_mels - 1) // 2 - 1) // 2
        self.out = nn.Dense(channels * freq, d_model)

    def construct(self, x, lengths):
        x = x.unsqueeze(1)  # (B, 1, T, F)
        x = self.conv(x)
        b, c, t, f = x.shape
        x = self.out(x.transpose(1, 2).contiguous().view(b, t, c * f))
        lengths = ((lengths - 1) // 2 - 1) // 2
        return x, lengths


class SinusoidalPositions(nn.Cell):
    def __init__(self, d_model, max_len=512):
        super().__init__()
        self.xscale = math.sqrt(d_model)
        pe = np.zeros((max_len, d_model), np.float32)
        position = np.arange(max_len)[:, None]
        div_term = np.exp(np.arange(0, d_model, 2) * -(math.log(10000.0) / d_model))
        pe[:, 0::2] = np.sin(position * div_term)
        pe[:, 1::2] = np.cos(position * div_term)
        self.pe = Tensor(pe).unsqueeze(0)  # register_buffer("pe", ...)

    def construct(self, x):
        return x * self.xscale + self.pe[:, :x.shape[1]]


class FeedForward(nn.Cell):
    def __init__(self, d_model, d_ff):
        super().__init__()
        self.norm = nn.LayerNorm((d_model,))
        self.w1 = nn.Dense(d_model, d_ff)
        self.w2 = nn.Dense(d_ff, d_model)

    def construct(self, x):
        h = self.w1(self.norm(x))
        return self.w2(h * ops.sigmoid(h))  # swish


class MultiHeadSelfAttention(nn.Cell):
    def __init__(self, d_model, n_heads):
        super().__init__()
        self.h = n_heads
        self.d_k = d_model // n_heads
        self.norm = nn.LayerNorm((d_model,))
        self.qkv = nn.Dense(d_model, 3 * d_model)
        self.proj = nn.Dense(d_model, d_model)

    def construct(self, x, mask):
        b, t, d = x.shape
        q, k, v = self.qkv(self.norm(x)).split(d, dim=-1)
        q = q.view(b, t, self.h, self.d_k).transpose(1, 2)
        k = k.view(b, t, self.h, self.d_k).transpose(1, 2)
        v = v.view(b, t, self.h, self.d_k).transpose(1, 2)
        scores = ops.matmul(q, k.transpose(-2, -1)) / math.sqrt(self.d_k)
        scores = scores.masked_fill(~mask[:, None, None, :], -1e4)
        attn = ops.softmax(scores, axis=-1)
        out = ops.matmul(attn, v).transpose(1, 2).contiguous().view(b, t, d)
        return self.proj(out)


class ConvModule(nn.Cell):
    def __init__(self, d_model, kernel_size):
        super().__init__()
        self.norm = nn.LayerNorm((d_model,))
        self.pw1 = nn.Conv1d(d_model, 2 * d_model, 1, has_bias=True)
        self.dw = nn.Conv1d(d_model, d_model, kernel_size, pad_mode="pad", padding=kernel_size // 2,
                            group=d_model, has_bias=True)
        self.pw2 = nn.Conv1d(d_model, d_model, 1, has_bias=True)

    def construct(self, x, mask):
        x = self.norm(x).transpose(1, 2)  # (B, D, T)
        a, g = self.pw1(x).chunk(2, dim=1)
        x = a * ops.sigmoid(g)  # GLU
        x = x.masked_fill(~mask.unsqueeze(1), 0.0)  # no leakage from padding into the depthwise conv
        x = self.dw(x)
        x = x * ops.sigmoid(x)
        return self.pw2(x).transpose(1, 2)


class ConformerBlock(nn.Cell):
    def __init__(self, d_model, n_heads, d_ff, kernel_size):
        super().__init__()
        self.ff1 = FeedForward(d_model, d_ff)
        self.mhsa = MultiHeadSelfAttention(d_model, n_heads)
        self.conv = ConvModule(d_model, kernel_size)
        self.ff2 = FeedForward(d_model, d_ff)
        self.norm = nn.LayerNorm((d_model,))

    def construct(self, x, mask):
        x = x + 0.5 * self.ff1(x)
        x = x + self.mhsa(x, mask)
        x = x + self.conv(x, mask)
        x = x + 0.5 * self.ff2(x)
        return self.norm(x)


class PrefixBeamSearch:
    """CTC prefix beam search over a dict {prefix tuple: (log p_blank, log p_non_blank)}."""

    def __init__(self, beam_size, blank=0):
        self.beam_size = beam_size
        self.blank = blank

    def __call__(self, log_probs):
        T, V = log_probs.shape
        beams = {(): (0.0, NEG_INF)}
        for t in range(T):
            next_beams = defaultdict(lambda: (NEG_INF, NEG_INF))
            for prefix, (p_b, p_nb) in beams.items():
                for c in range(V):
                    p = log_probs[t, c].item()
                    if c == self.blank:
                        nb_b, nb_nb = next_beams[prefix]
                        next_beams[prefix] = (log_add(nb_b, p_b + p, p_nb + p), nb_nb)
                        continue
                    last = prefix[-1] if prefix else None
                    new_prefix = prefix + (c,)
                    nb_b, nb_nb = next_beams[new_prefix]
                    if c == last:
                        # a repeat needs a blank in between, else it merges into the same prefix
                        next_beams[new_prefix] = (nb_b, log_add(nb_nb, p_b + p))
                        nb_b, nb_nb = next_beams[prefix]
                        next_beams[prefix] = (nb_b, log_add(nb_nb, p_nb + p))
                    else:
                        next_beams[new_prefix] = (nb_b, log_add(nb_nb, p_b + p, p_nb + p))
            beams = dict(sorted(next_beams.items(), key=lambda kv: log_add(*kv[1]),
                                reverse=True)[:self.beam_size])
        best_prefix, (p_b, p_nb) = max(beams.items(), key=lambda kv: log_add(*kv[1]))
        return list(best_prefix), log_add(p_b, p_nb)


class ConformerCTC(nn.Cell):
    def __init__(self, n_mels=16, vocab_size=5, d_model=16, n_heads=2, d_ff=32, n_layers=2,
                 kernel_size=3, channels=4, blank=0):
        super().__init__()
        self.blank = blank
        self.subsample = Conv2dSubsampling(n_mels, channels, d_model)
        self.pos = SinusoidalPositions(d_model)
        self.layers = nn.CellList([ConformerBlock(d_model, n_heads, d_ff, kernel_size)
                                   for _ in range(n_layers)])
        self.head = nn.Dense(d_model, vocab_size)
        self.ctc_loss = nn.CTCLoss(blank=blank, reduction="mean", zero_infinity=True)

    def normalize(self, feats, lengths):
        # per-utterance CMVN over the valid frames only
        mask = make_pad_mask(lengths, feats.shape[1]).unsqueeze(-1).float()
        n = lengths.view(-1, 1, 1).float()
        mean = (feats * mask).sum(dim=1, keepdim=True) / n
        var = (((feats - mean) * mask) ** 2).sum(dim=1, keepdim=True) / n
        return (feats - mean) / ops.sqrt(var + 1e-5) * mask

    def construct(self, feats, feat_lengths, targets=None, target_lengths=None):
        x = self.normalize(feats, feat_lengths)
        x, out_lengths = self.subsample(x, feat_lengths)
        x = self.pos(x)
        mask = make_pad_mask(out_lengths, x.shape[1])
        for layer in self.layers:
            x = layer(x, mask)
        log_probs = ops.log_softmax(self.head(x), axis=-1)
        loss = None
        if targets is not None:
            loss = self.ctc_loss(log_probs.transpose(0, 1), targets, out_lengths, target_lengths)
        return log_probs, out_lengths, loss


class Recognizer(nn.Cell):
    def __init__(self, model, vocab, beam_size=3):
        super().__init__()
        self.model = model
        self.vocab = vocab
        self.blank = model.blank
        self.beam_search = PrefixBeamSearch(beam_size, model.blank)

    def greedy_decode(self, log_probs, lengths):
        best = log_probs.argmax(dim=-1)
        hyps = []
        for b in range(best.shape[0]):
            seq = best[b, :lengths[b]].tolist()
            collapsed = [k for k, _ in itertools.groupby(seq)]
            hyps.append("".join(self.vocab[k] for k in collapsed if k != self.blank))
        return hyps

    def construct(self, feats, feat_lengths, targets=None, target_lengths=None):
        log_probs, out_lengths, loss = self.model(feats, feat_lengths, targets, target_lengths)
        greedy = self.greedy_decode(log_probs, out_lengths)
        beams, scores = [], []
        for b in range(log_probs.shape[0]):
            n = int(out_lengths[b])
            prefix, score = self.beam_search(log_probs[b, :n])
            beams.append("".join(self.vocab[k] for k in prefix))
            scores.append(round(score, 4))
        return RecognizerOutput(log_probs, out_lengths, greedy, beams, scores, loss)


def make_batch(rng, lengths, n_mels=16):
    max_len = max(lengths)
    # log-mel-like: log of a positive spectrum, zero on padding
    feats = np.log(np.abs(rng.standard_normal((len(lengths), max_len, n_mels))) + 1e-3).astype(np.float32)
    for i, n in enumerate(lengths):
        feats[i, n:] = 0.0
    return Tensor(feats), Tensor(np.array(lengths, np.int32))


if __name__ == "__main__":
    np.random.seed(0)
    ms.set_seed(0)
    rng = np.random.default_rng(0)
    model = Recognizer(ConformerCTC(), VOCAB, beam_size=3)
    model.set_train(False)
    feats, feat_lengths = make_batch(rng, [32, 26])
    targets = Tensor(np.array([[1, 2, 3], [2, 4, 0]], np.int32))
    target_lengths = Tensor(np.array([3, 2], np.int32))
    out = model(feats, feat_lengths, targets, target_lengths)
    print("log_probs sum", float(out.log_probs.sum()))
    print("out_lengths", out.out_lengths)
    print("loss", out.loss)
    print("greedy", out.greedy)
    print("beams", out.beams, out.beam_scores)
    out2 = model(feats, feat_lengths)
    print("no-target loss", out2.loss, "greedy", out2.greedy)
