"""Tiny Transformer NMT with fairseq-style incremental decoding and beam search (MindSpore 2.10 port).

Ported from fairseq (models/transformer, sequence_generator.py) and HF BeamHypotheses.
"""
import math
import numpy as np
import mindspore as ms
from mindspore import nn, ops, Tensor

PAD, BOS, EOS = 0, 1, 2


def sinusoidal_positions(num, dim):
    half = dim // 2
    emb = math.log(10000) / (half - 1)
    emb = np.exp(np.arange(half, dtype=np.float32) * -emb)
    emb = np.arange(num, dtype=np.float32)[:, None] * emb[None, :]
    return np.concatenate([np.sin(emb), np.cos(emb)], axis=1).astype(np.float32)


class MultiheadAttention(nn.Cell):
    def __init__(self, d_model, heads, key):
        super().__init__()
        self.heads = heads
        self.head_dim = d_model // heads
        self.scaling = self.head_dim ** -0.5
        self.key = key
        self.q_proj = nn.Dense(d_model, d_model)
        self.k_proj = nn.Dense(d_model, d_model)
        self.v_proj = nn.Dense(d_model, d_model)
        self.out_proj = nn.Dense(d_model, d_model)

    def _shape(self, x, bsz):
        return x.view(bsz, -1, self.heads, self.head_dim).transpose(1, 2).contiguous()

    def construct(self, query, key, key_padding_mask=None, incremental_state=None, static_kv=False):
        bsz, tgt_len, d = query.shape
        q = self._shape(self.q_proj(query) * self.scaling, bsz)
        saved = None
        if incremental_state is not None:
            saved = incremental_state.get(self.key, None)
        if saved is not None and static_kv:
            k, v = saved["prev_key"], saved["prev_value"]
        else:
            k = self._shape(self.k_proj(key), bsz)
            v = self._shape(self.v_proj(key), bsz)
            if saved is not None:
                k = ops.cat([saved["prev_key"], k], axis=2)
                v = ops.cat([saved["prev_value"], v], axis=2)
        if incremental_state is not None:
            incremental_state[self.key] = {"prev_key": k, "prev_value": v}
        attn = ops.matmul(q, k.transpose(2, 3))
        if key_padding_mask is not None:
            attn = attn.masked_fill(key_padding_mask.view(bsz, 1, 1, -1), float("-inf"))
        attn = attn.softmax(-1)
        out = ops.matmul(attn, v).transpose(1, 2).contiguous().view(bsz, tgt_len, d)
        return self.out_proj(out)


class EncoderLayer(nn.Cell):
    def __init__(self, d_model, heads, ffn):
        super().__init__()
        self.self_attn = MultiheadAttention(d_model, heads, "enc_self")
        self.ln1 = nn.LayerNorm((d_model,))
        self.fc1 = nn.Dense(d_model, ffn)
        self.fc2 = nn.Dense(ffn, d_model)
        self.ln2 = nn.LayerNorm((d_model,))

    def construct(self, x, pad_mask):
        x = self.ln1(x + self.self_attn(x, x, key_padding_mask=pad_mask))
        return self.ln2(x + self.fc2(ops.relu(self.fc1(x))))


class DecoderLayer(nn.Cell):
    def __init__(self, d_model, heads, ffn, idx):
        super().__init__()
        self.self_attn = MultiheadAttention(d_model, heads, f"dec{idx}_self")
        self.encoder_attn = MultiheadAttention(d_model, heads, f"dec{idx}_enc")
        self.ln1 = nn.LayerNorm((d_model,))
        self.ln2 = nn.LayerNorm((d_model,))
        self.fc1 = nn.Dense(d_model, ffn)
        self.fc2 = nn.Dense(ffn, d_model)
        self.ln3 = nn.LayerNorm((d_model,))

    def construct(self, x, enc_out, enc_pad_mask, incremental_state=None):
        x = self.ln1(x + self.self_attn(x, x, incremental_state=incremental_state))
        x = self.ln2(x + self.encoder_attn(x, enc_out, key_padding_mask=enc_pad_mask,
                                           incremental_state=incremental_state, static_kv=True))
        return self.ln3(x + self.fc2(ops.relu(self.fc1(x))))


class BeamHypotheses:
    def __init__(self, num_beams, length_penalty):
        self.num_beams = num_beams
        self.length_penalty = length_penalty
        self.beams = []
        self.worst_score = 1e9

    def __len__(self):
        return len(self.beams)

    def add(self, hyp, sum_logprobs):
        score = sum_logprobs / (len(hyp) ** self.length_penalty)
        if len(self) < self.num_beams or score > self.worst_score:
            self.beams.append((score, hyp))
            if len(self) > self.num_beams:
                sorted_scores = sorted([(s, idx) for idx, (s, _) in enumerate(self.beams)])
                del self.beams[sorted_scores[0][1]]
                self.worst_score = sorted_scores[1][0]
            else:
                self.worst_score = min(score, self.worst_score)

    def is_done(self, best_sum_logprobs, cur_len):
        if len(self) < self.num_beams:
            return False
        return self.worst_score >= best_sum_logprobs / cur_len ** self.length_penalty


class TransformerNMT(nn.Cell):
    def __init__(self, vocab=12, d_model=16, heads=2, ffn=32, layers=1, max_pos=32,
                 beam_size=2, max_len=6, min_len=1, length_penalty=1.0):
        super().__init__()
        self.vocab, self.d_model = vocab, d_model
        self.embed = nn.Embedding(vocab, d_model, padding_idx=PAD)
        self.embed_scale = math.sqrt(d_model)
        self.positions = Tensor(sinusoidal_positions(max_pos, d_model))
        self.encoder_layers = nn.CellList([EncoderLayer(d_model, heads, ffn) for _ in range(layers)])
        self.decoder_layers = nn.CellList([DecoderLayer(d_model, heads, ffn, i) for i in range(layers)])
        self.out_proj = nn.Dense(d_model, vocab, has_bias=False)
        self.beam_size, self.max_len, self.min_len = beam_size, max_len, min_len
        self.length_penalty = length_penalty

    def encode(self, src_tokens):
        pad_mask = src_tokens.eq(PAD)
        x = self.embed(src_tokens) * self.embed_scale + self.positions[:src_tokens.shape[1]]
        for layer in self.encoder_layers:
            x = layer(x, pad_mask)
        return {"encoder_out": x, "encoder_padding_mask": pad_mask}

    def decode(self, prev_tokens, enc, incremental_state=None):
        tgt_len = prev_tokens.shape[1]
        pos = self.positions[:tgt_len]
        if incremental_state is not None:
            prev_tokens = prev_tokens[:, -1:]
            pos = pos[-1:]
        x = self.embed(prev_tokens) * self.embed_scale + pos
        for layer in self.decoder_layers:
            x = layer(x, enc["encoder_out"], enc["encoder_padding_mask"], incremental_state)
        return self.out_proj(x)

    def construct(self, src_tokens, prev_tokens):
        return self.decode(prev_tokens, self.encode(src_tokens))

    def reorder_encoder_out(self, enc, new_order):
        return {k: v.index_select(0, new_order) for k, v in enc.items()}

    def reorder_incremental_state(self, incremental_state, new_order):
        for key, saved in incremental_state.items():
            for name in list(saved.keys()):
                saved[name] = saved[name].index_select(0, new_order)

    def generate(self, src_tokens):
        bsz = src_tokens.shape[0]
        beam, vocab = self.beam_size, self.vocab
        enc = self.encode(src_tokens)
        new_order = ops.arange(bsz).view(-1, 1).tile((1, beam)).view(-1).astype(ms.int32)
        enc = self.reorder_encoder_out(enc, new_order)
        tokens = ops.full((bsz * beam, self.max_len + 2), PAD, dtype=ms.int32)
        tokens[:, 0] = BOS
        beam_scores = ops.zeros((bsz, beam), ms.float32)
        beam_scores[:, 1:] = -1e9
        beam_scores = beam_scores.view(-1)
        hyps = [BeamHypotheses(beam, self.length_penalty) for _ in range(bsz)]
        done = [False for _ in range(bsz)]
        incremental_state = {}
        for step in range(self.max_len + 1):
            logits = self.decode(tokens[:, :step + 1], enc, incremental_state)
            lprobs = ops.log_softmax(logits[:, -1, :], axis=-1)
            lprobs[:, PAD] = float("-inf")
            if step < self.min_len:
                lprobs[:, EOS] = float("-inf")
            if step >= self.max_len:
                lprobs[:, :EOS] = float("-inf")
                lprobs[:, EOS + 1:] = float("-inf")
            cand = lprobs + beam_scores.view(-1, 1)
            cand = cand.view(bsz, beam * vocab)
            cand_scores, cand_indices = ops.topk(cand, 2 * beam, dim=1)
            cand_beams = cand_indices // vocab
            cand_tokens = cand_indices.fmod(vocab)
            next_scores, next_tokens, next_beams = [], [], []
            for b in range(bsz):
                if done[b]:
                    next_scores += [0.0] * beam
                    next_tokens += [PAD] * beam
                    next_beams += [b * beam] * beam
                    continue
                n_added = 0
                for j in range(2 * beam):
                    tok = cand_tokens[b, j].item()
                    score = cand_scores[b, j].item()
                    src_beam = b * beam + cand_beams[b, j].item()
                    if tok == EOS:
                        if j >= beam:
                            continue
                        hyp = tokens[src_beam, 1:step + 1].asnumpy().tolist()
                        hyps[b].add(hyp + [EOS], score)
                    else:
                        next_scores.append(score)
                        next_tokens.append(tok)
                        next_beams.append(src_beam)
                        n_added += 1
                    if n_added == beam:
                        break
                done[b] = done[b] or hyps[b].is_done(cand_scores[b].max().item(), step + 1)
            if all(done):
                break
            reorder = Tensor(next_beams, ms.int32)
            tokens = tokens.index_select(0, reorder)
            tokens[:, step + 1] = Tensor(next_tokens, ms.int32)
            beam_scores = Tensor(next_scores, ms.float32)
            self.reorder_incremental_state(incremental_state, reorder)
        best, best_scores = [], []
        for b in range(bsz):
            score, hyp = max(hyps[b].beams, key=lambda h: h[0])
            best.append(hyp)
            best_scores.append(score)
        out = np.full((bsz, self.max_len + 1), PAD, dtype=np.int32)
        for b, hyp in enumerate(best):
            out[b, :len(hyp)] = hyp
        return Tensor(out), Tensor(best_scores, ms.float32)


class Generator(nn.Cell):
    """Entry cell for the decoding path (what people wrap in jit / GRAPH_MODE)."""

    def __init__(self, model):
        super().__init__()
        self.model = model

    def construct(self, src_tokens):
        return self.model.generate(src_tokens)


def make_inputs():
    np.random.seed(0)
    src = np.random.randint(3, 12, size=(2, 5)).astype(np.int32)
    src[1, 3:] = PAD
    prev = np.random.randint(3, 12, size=(2, 4)).astype(np.int32)
    prev[:, 0] = BOS
    return Tensor(src), Tensor(prev)


if __name__ == "__main__":
    ms.set_context(mode=ms.PYNATIVE_MODE)
    ms.set_seed(0)
    model = TransformerNMT()
    model.set_train(False)
    src, prev = make_inputs()
    logits = model(src, prev)
    print("logits", logits.shape, float(logits.sum()), float(logits.abs().max()))
    seqs, scores = Generator(model)(src)
    print("best", seqs.asnumpy().tolist())
    print("scores", scores.asnumpy().tolist())
