"""Small CTC speech recogniser (Conformer-lite), ported from PyTorch to MindSpore 2.10: REFERENCE FIX.

Compiles in GRAPH_MODE at LAX and STRICT and matches PYNATIVE_MODE of ctc_asr.py. Changes: torch-style
transpose(1, 2) -> swapaxes; split/chunk -> slices; greedy and prefix beam search rewritten on tensors
(token ids padded with -1, text made by to_text outside the graph); tuple output without a None loss.

The PyTorch original is the usual DeepSpeech2 / Conformer-CTC recipe people write by hand: a Conv2d
subsampling front end (x4 in time) over log-mel features, sinusoidal positions, a few Conformer-lite
blocks (half-step FFN, masked multi-head self-attention, depthwise conv module), a linear CTC head with
log_softmax, an optional CTC loss, and two decoders: greedy (collapse repeats, drop blanks) and a
small CTC prefix beam search over a dict of prefixes.
"""
import math

import numpy as np

import mindspore as ms
from mindspore import Tensor, nn, ops

VOCAB = ["_", "a", "b", "c", " "]  # index 0 is the CTC blank
def make_pad_mask(lengths, max_len):
    # True on valid frames, (B, T)
    return ops.arange(max_len).unsqueeze(0) < lengths.unsqueeze(1)


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
        x = self.out(x.swapaxes(1, 2).contiguous().view(b, t, c * f))
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
        qkv = self.qkv(self.norm(x))
        q, k, v = qkv[..., :d], qkv[..., d:2 * d], qkv[..., 2 * d:]
        q = q.view(b, t, self.h, self.d_k).swapaxes(1, 2)
        k = k.view(b, t, self.h, self.d_k).swapaxes(1, 2)
        v = v.view(b, t, self.h, self.d_k).swapaxes(1, 2)
        scores = ops.matmul(q, k.swapaxes(-2, -1)) / math.sqrt(self.d_k)
        scores = scores.masked_fill(~mask[:, None, None, :], -1e4)
        attn = ops.softmax(scores, axis=-1)
        out = ops.matmul(attn, v).swapaxes(1, 2).contiguous().view(b, t, d)
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
        x = self.norm(x).swapaxes(1, 2)  # (B, D, T)
        h = self.pw1(x)
        a, g = h[:, :h.shape[1] // 2], h[:, h.shape[1] // 2:]
        x = a * ops.sigmoid(g)  # GLU
        x = x.masked_fill(~mask.unsqueeze(1), 0.0)  # no leakage from padding into the depthwise conv
        x = self.dw(x)
        x = x * ops.sigmoid(x)
        return self.pw2(x).swapaxes(1, 2)


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


NEG = -1e30  # stands for -inf in the tensor search

def lse2(a, b):
    m = ops.maximum(a, b)
    return m + ops.log(ops.exp(a - m) + ops.exp(b - m))


class TensorPrefixBeamSearch(nn.Cell):
    """CTC prefix beam search on fixed-size tensors: K beams, prefixes padded with -1."""

    def __init__(self, beam_size, vocab_size, blank=0):
        super().__init__()
        self.k = beam_size
        self.v = vocab_size
        self.blank = blank
        self.labels = Tensor(np.array([c for c in range(vocab_size) if c != blank], np.int32))

    def construct(self, log_probs, n):
        # log_probs (T, V) of one utterance, n valid frames
        T = log_probs.shape[0]
        K = self.k
        C = self.labels.shape[0]
        pos = ops.arange(T).astype(ms.int32)
        prefix = ops.full((K, T), -1, dtype=ms.int32)
        plen = ops.zeros((K,), dtype=ms.int32)
        p_b = ops.concat([ops.zeros((1,), dtype=ms.float32), ops.full((K - 1,), NEG, dtype=ms.float32)])
        p_nb = ops.full((K,), NEG, dtype=ms.float32)
        for t in range(T):
            lp = log_probs[t]
            last = ops.gather_elements(prefix, 1, ops.maximum(plen - 1, 0).view(K, 1)).view(K)
            has_last = plen > 0
            lp_last = ops.gather(lp, ops.maximum(last, 0), 0)
            # stay: same prefix
            s_b = lse2(p_b, p_nb) + lp[self.blank]
            s_nb = ops.where(has_last, p_nb + lp_last, ops.full((K,), NEG, dtype=ms.float32))
            # extend with each non-blank label
            lab = self.labels.view(1, C)
            lp_lab = ops.gather(lp, self.labels, 0).view(1, C)
            same = lab == last.view(K, 1)
            e_nb = ops.where(same, p_b.view(K, 1), lse2(p_b, p_nb).view(K, 1)) + lp_lab  # (K, C)
            e_prefix = ops.where(pos.view(1, 1, T) == plen.view(K, 1, 1), lab.view(1, C, 1),
                                 prefix.view(K, 1, T))  # (K, C, T)
            cand_prefix = ops.concat([prefix, e_prefix.view(K * C, T)], axis=0)
            cand_len = ops.concat([plen,
                                   (plen.view(K, 1) + ops.zeros((1, C), dtype=ms.int32)).view(K * C) + 1])
            cand_b = ops.concat([s_b, ops.full((K * C,), NEG, dtype=ms.float32)])
            cand_nb = ops.concat([s_nb, e_nb.view(K * C)])
            # merge equal prefixes: sum their probabilities into the first occurrence
            eq = (cand_prefix.view(-1, 1, T) == cand_prefix.view(1, -1, T)).all(axis=-1)
            N = cand_b.shape[0]
            idx = ops.arange(N)
            first = ~((eq & (idx.view(1, N) < idx.view(N, 1))).any(axis=1))
            eqf = eq.astype(ms.float32)
            m_b = ops.logsumexp(cand_b.view(1, N) + (eqf - 1.0) * 1e30, 1)
            m_nb = ops.logsumexp(cand_nb.view(1, N) + (eqf - 1.0) * 1e30, 1)
            total = ops.where(first, lse2(m_b, m_nb), ops.full((N,), 2 * NEG, dtype=ms.float32))
            _, top = ops.topk(total, K)
            active = t < n
            prefix = ops.where(active, ops.gather(cand_prefix, top, 0), prefix)
            plen = ops.where(active, ops.gather(cand_len, top, 0), plen)
            p_b = ops.where(active, ops.gather(m_b, top, 0), p_b)
            p_nb = ops.where(active, ops.gather(m_nb, top, 0), p_nb)
        total = lse2(p_b, p_nb)
        best = ops.argmax(total)
        return prefix[best], total[best]


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
            loss = self.ctc_loss(log_probs.swapaxes(0, 1), targets, out_lengths, target_lengths)
        return log_probs, out_lengths, loss


class Recognizer(nn.Cell):
    def __init__(self, model, vocab, beam_size=3):
        super().__init__()
        self.model = model
        self.vocab = vocab
        self.blank = model.blank
        self.beam_search = TensorPrefixBeamSearch(beam_size, len(vocab), model.blank)

    def greedy_decode(self, log_probs, lengths):
        best = log_probs.argmax(dim=-1).astype(ms.int32)
        prev = ops.concat([ops.full((best.shape[0], 1), -1, dtype=ms.int32), best[:, :-1]], axis=1)
        keep = (best != prev) & (best != self.blank) & make_pad_mask(lengths, best.shape[1])
        return ops.where(keep, best, -1)

    def construct(self, feats, feat_lengths, targets=None, target_lengths=None):
        log_probs, out_lengths, loss = self.model(feats, feat_lengths, targets, target_lengths)
        greedy = self.greedy_decode(log_probs, out_lengths)
        beams, scores = [], []
        for b in range(log_probs.shape[0]):
            prefix, score = self.beam_search(log_probs[b], out_lengths[b])
            beams.append(prefix)
            scores.append(score)
        out = (log_probs, out_lengths, greedy, beams, scores)
        if loss is not None:  # STRICT drops a None at the end of an output tuple
            out = out + (loss,)
        return out


def to_text(vocab, ids):
    return "".join(vocab[k] for k in ids.tolist() if k >= 0)


def make_batch(rng, lengths, n_mels=16):
    max_len = max(lengths)
    # log-mel-like: log of a positive spectrum, zero on padding
    feats = np.log(np.abs(rng.standard_normal((len(lengths), max_len, n_mels))) + 1e-3).astype(np.float32)
    for i, n in enumerate(lengths):
        feats[i, n:] = 0.0
    return Tensor(feats), Tensor(np.array(lengths, np.int32))


if __name__ == "__main__":
    import sys
    if "--graph" in sys.argv:
        ms.set_context(mode=ms.GRAPH_MODE)
    if "--strict" in sys.argv:
        ms.set_context(mode=ms.GRAPH_MODE, jit_syntax_level=ms.STRICT)
    np.random.seed(0)
    ms.set_seed(0)
    rng = np.random.default_rng(0)
    model = Recognizer(ConformerCTC(), VOCAB, beam_size=3)
    model.set_train(False)
    feats, feat_lengths = make_batch(rng, [32, 26])
    targets = Tensor(np.array([[1, 2, 3], [2, 4, 0]], np.int32))
    target_lengths = Tensor(np.array([3, 2], np.int32))
    log_probs, out_lengths, greedy, beams, scores, loss = model(feats, feat_lengths, targets, target_lengths)
    print("log_probs sum", float(log_probs.sum()))
    print("out_lengths", out_lengths)
    print("loss", loss)
    print("greedy", [to_text(VOCAB, g) for g in greedy])
    print("beams", [to_text(VOCAB, p) for p in beams], [round(float(s), 4) for s in scores])
    out2 = model(feats, feat_lengths)
    print("no-target loss", out2[5] if len(out2) > 5 else None, "greedy", [to_text(VOCAB, g) for g in out2[2]])
