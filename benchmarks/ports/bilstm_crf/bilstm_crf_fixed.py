"""BiLSTM-CRF NER tagger (port of the PyTorch tutorial / pytorch-crf CRF) to MindSpore 2.10."""
import numpy as np
import mindspore as ms
from mindspore import nn, ops, Tensor, Parameter
from mindspore.common.initializer import initializer, Uniform

PAD, UNK = "<pad>", "<unk>"


class TagVocab:
    """Plain Python tag vocabulary (BIO scheme)."""

    def __init__(self, tags):
        self.id2tag = list(tags)
        self.tag2id = {t: i for i, t in enumerate(self.id2tag)}

    def __len__(self):
        return len(self.id2tag)

    def encode(self, tags):
        return [self.tag2id[t] for t in tags]

    def decode(self, ids):
        return [self.id2tag[i] for i in ids]


class CharCNN(nn.Cell):
    """Character-level CNN: embed chars, conv over the word, max-pool."""

    def __init__(self, n_chars, char_dim=16, out_dim=16, kernel_size=3):
        super().__init__()
        self.char_emb = nn.Embedding(n_chars, char_dim, padding_idx=0)
        self.conv = nn.Conv1d(char_dim, out_dim, kernel_size, pad_mode="pad", padding=kernel_size // 2, has_bias=True)
        self.out_dim = out_dim

    def construct(self, chars):
        # chars: (batch, seq_len, word_len)
        b, s, w = chars.shape
        x = self.char_emb(chars.view(b * s, w))            # (b*s, w, c)
        x = self.conv(x.permute(0, 2, 1))                     # (b*s, out, w)
        x = x.masked_fill((chars.view(b * s, 1, w) == 0), -1e4)
        x, _ = x.max(dim=2)                                  # (b*s, out)
        x = ops.relu(x)
        return x.view(b, s, self.out_dim)


class CRF(nn.Cell):
    """Conditional random field (pytorch-crf style)."""

    def __init__(self, num_tags, batch_first=True):
        super().__init__()
        if num_tags <= 0:
            raise ValueError(f"invalid number of tags: {num_tags}")
        self.num_tags = num_tags
        self.batch_first = batch_first
        self.start_transitions = Parameter(initializer(Uniform(0.1), (num_tags,), ms.float32), name="start_transitions")
        self.end_transitions = Parameter(initializer(Uniform(0.1), (num_tags,), ms.float32), name="end_transitions")
        self.transitions = Parameter(initializer(Uniform(0.1), (num_tags, num_tags), ms.float32), name="transitions")

    def construct(self, emissions, tags, mask=None, reduction="mean"):
        self._validate(emissions, tags=tags, mask=mask)
        if reduction not in ("none", "sum", "mean", "token_mean"):
            raise ValueError(f"invalid reduction: {reduction}")
        if mask is None:
            mask = ops.ones_like(tags).bool()
        if self.batch_first:
            emissions = emissions.permute(1, 0, 2)
            tags = tags.permute(1, 0)
            mask = mask.permute(1, 0)
        numerator = self._compute_score(emissions, tags, mask)
        denominator = self._compute_normalizer(emissions, mask)
        llh = numerator - denominator
        if reduction == "none":
            return llh
        if reduction == "sum":
            return llh.sum()
        if reduction == "mean":
            return llh.mean()
        return llh.sum() / mask.float().sum()

    def decode(self, emissions, mask=None):
        self._validate(emissions, mask=mask)
        if mask is None:
            mask = ops.ones(emissions.shape[:2], ms.bool_)
        if self.batch_first:
            emissions = emissions.permute(1, 0, 2)
            mask = mask.permute(1, 0)
        return self._viterbi_decode(emissions, mask)

    def _validate(self, emissions, tags=None, mask=None):
        if emissions.ndim != 3:
            raise ValueError(f"emissions must have dimension of 3, got {emissions.ndim}")
        if emissions.shape[2] != self.num_tags:
            raise ValueError(f"expected last dimension of emissions is {self.num_tags}, got {emissions.shape[2]}")
        if tags is not None and emissions.shape[:2] != tags.shape:
            raise ValueError("the first two dimensions of emissions and tags must match")
        if mask is not None:
            first = mask[:, 0] if self.batch_first else mask[0]

    def _compute_score(self, emissions, tags, mask):
        # emissions: (seq_len, batch, num_tags), tags/mask: (seq_len, batch)
        seq_length, batch_size = tags.shape
        mask = mask.float()
        batch_idx = ops.arange(batch_size)
        score = self.start_transitions[tags[0]]
        score += emissions[0, batch_idx, tags[0]]
        for i in range(1, seq_length):
            score += self.transitions[tags[i - 1], tags[i]] * mask[i]
            score += emissions[i, batch_idx, tags[i]] * mask[i]
        seq_ends = mask.long().sum(dim=0) - 1
        last_tags = tags[seq_ends, batch_idx]
        score += self.end_transitions[last_tags]
        return score

    def _compute_normalizer(self, emissions, mask):
        seq_length = emissions.shape[0]
        score = self.start_transitions + emissions[0]
        for i in range(1, seq_length):
            broadcast_score = score.unsqueeze(2)
            broadcast_emissions = emissions[i].unsqueeze(1)
            next_score = broadcast_score + self.transitions + broadcast_emissions
            next_score = next_score.logsumexp(dim=1)
            score = ops.where(mask[i].unsqueeze(1), next_score, score)
        score += self.end_transitions
        return score.logsumexp(dim=1)

    def _viterbi_decode(self, emissions, mask):
        seq_length, batch_size = mask.shape
        score = self.start_transitions + emissions[0]
        history = []
        for i in range(1, seq_length):
            broadcast_score = score.unsqueeze(2)
            broadcast_emission = emissions[i].unsqueeze(1)
            next_score = broadcast_score + self.transitions + broadcast_emission
            next_score, indices = next_score.max(dim=1)
            score = ops.where(mask[i].unsqueeze(1), next_score, score)
            history.append(indices)
        score += self.end_transitions
        seq_ends = mask.long().sum(dim=0) - 1
        _, cur = score.max(dim=1)                       # best last tag per sentence
        tags_rev = []
        for t in range(seq_length - 1, -1, -1):
            valid = seq_ends >= t
            tags_rev.append(ops.where(valid, cur, ops.full_like(cur, -1)))
            if t > 0:
                prev = ops.gather_elements(history[t - 1], 1, cur.unsqueeze(1)).squeeze(1)
                cur = ops.where(valid, prev, cur)
        return ops.stack(tags_rev[::-1], axis=1)         # (batch, seq_len), -1 on padding


def paths_from_tensor(tags):
    """Outside the graph: padded tag tensor -> list of per-sentence tag-id lists."""
    return [[int(v) for v in row if v >= 0] for row in tags.asnumpy()]


class BiLSTMCRF(nn.Cell):
    def __init__(self, vocab_size, n_chars, tag_vocab, word_dim=32, char_out=16, hidden=32, dropout=0.5, pad_id=0):
        super().__init__()
        self.tag_vocab = tag_vocab
        self.pad_id = pad_id
        self.word_emb = nn.Embedding(vocab_size, word_dim, padding_idx=pad_id)
        self.char_cnn = CharCNN(n_chars, out_dim=char_out)
        self.lstm = nn.LSTM(word_dim + char_out, hidden // 2, num_layers=1, batch_first=True, bidirectional=True)
        self.dropout = nn.Dropout(p=dropout)
        self.hidden2tag = nn.Linear(hidden, len(tag_vocab))
        self.crf = CRF(len(tag_vocab), batch_first=True)
        self.last_emissions = None

    def construct(self, words, chars):
        mask = words != self.pad_id
        x = ops.cat([self.word_emb(words), self.char_cnn(chars)], axis=-1)
        x = self.dropout(x)
        out, (h_n, c_n) = self.lstm(x)
        out = self.dropout(out)
        emissions = self.hidden2tag(out)
        return emissions, mask, mask.long().sum(dim=1)

    def loss(self, words, chars, tags, reduction="mean"):
        out = self.construct(words, chars)
        return -self.crf(out[0], tags, mask=out[1], reduction=reduction)

    def decode(self, words, chars):
        out = self.construct(words, chars)
        return self.crf.decode(out[0], mask=out[1])


FWD_KEYS = ("emissions", "mask", "lengths")


def as_dict(out):
    """Outside the graph: forward tuple -> the dict PyTorch users expect."""
    return dict(zip(FWD_KEYS, out))


class NLLLossCell(nn.Cell):
    """Negative log-likelihood of the gold path (training objective)."""

    def __init__(self, model):
        super().__init__()
        self.model = model

    def construct(self, words, chars, tags):
        return self.model.loss(words, chars, tags)


class DecodeCell(nn.Cell):
    """Inference entry: Viterbi-decoded tag ids per sentence (list of lists)."""

    def __init__(self, model):
        super().__init__()
        self.model = model

    def construct(self, words, chars):
        return self.model.decode(words, chars)


# ---------------------------------------------------------------- data helpers
TAGS = ["O", "B-PER", "I-PER", "B-LOC", "I-LOC"]
VOCAB_SIZE, N_CHARS, BATCH, SEQ, WORD_LEN = 50, 30, 2, 7, 5


def make_batch(seed, lengths=(7, 4)):
    rng = np.random.RandomState(seed)
    words = np.zeros((BATCH, SEQ), np.int32)
    chars = np.zeros((BATCH, SEQ, WORD_LEN), np.int32)
    tags = np.zeros((BATCH, SEQ), np.int32)
    for b, n in enumerate(lengths):
        words[b, :n] = rng.randint(1, VOCAB_SIZE, n)
        for t in range(n):
            wl = rng.randint(1, WORD_LEN + 1)
            chars[b, t, :wl] = rng.randint(1, N_CHARS, wl)
        tags[b, :n] = rng.randint(0, len(TAGS), n)
    return Tensor(words), Tensor(chars), Tensor(tags)


def build_model(seed=0):
    ms.set_seed(seed)
    np.random.seed(seed)
    model = BiLSTMCRF(VOCAB_SIZE, N_CHARS, TagVocab(TAGS))
    model.set_train(False)
    return model


def build():
    """Cell to compile for inference: Viterbi decode over the full tagger."""
    return DecodeCell(build_model(0))


if __name__ == "__main__":
    import sys, os
    mode = sys.argv[1] if len(sys.argv) > 1 else "pynative"
    if mode == "pynative":
        ms.set_context(mode=ms.PYNATIVE_MODE)
    else:
        ms.set_context(mode=ms.GRAPH_MODE, jit_syntax_level=ms.LAX if mode == "lax" else ms.STRICT)
    model = build_model(0)
    words, chars, tags = make_batch(1)
    out = as_dict(model(words, chars))
    print("emissions", out["emissions"].shape, float(out["emissions"].abs().sum()))
    print("lengths", out["lengths"])
    nll = NLLLossCell(model)(words, chars, tags)
    print("nll", nll)
    paths = paths_from_tensor(build()(words, chars))
    print("decode", paths)
    print("tags", [model.tag_vocab.decode(p) for p in paths])
    ref_path = os.path.join(os.path.dirname(os.path.abspath(__file__)), "out", "ref.npz")
    if os.path.exists(ref_path):                     # PYNATIVE reference of the original port (probe.py)
        ref = np.load(ref_path)
        d = max(float(np.abs(out["emissions"].asnumpy() - ref["fwd.emissions"]).max()),
                float(np.abs(nll.asnumpy() - ref["loss"]).max()))
        ref_paths = [[int(v) for v in row if v >= 0] for row in ref["decode"]]
        print(f"vs PYNATIVE original: max_abs(emissions, nll) = {d:.3g}; decoded paths equal: {paths == ref_paths}")
