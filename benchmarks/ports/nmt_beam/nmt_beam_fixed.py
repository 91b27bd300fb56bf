"""Reference fix of nmt_beam.py: compiles in GRAPH_MODE at LAX and STRICT, same outputs as PYNATIVE.

Fixes: swapaxes instead of torch-style transpose(1, 2); attention/decoder layers return their new key/value cache
instead of writing into the caller's incremental_state dict; reorder_incremental_state returns a new dict;
BeamHypotheses (Python lists, .item(), asnumpy, del, sorted, max(key=)) replaced by tensors (fin_scores/fin_tokens)
with the same add()/is_done() semantics; next beams selected with topk instead of Python list building.

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
        return x.view(bsz, -1, self.heads, self.head_dim).swapaxes(1, 2).contiguous()

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
        attn = ops.matmul(q, k.swapaxes(2, 3))
        if key_padding_mask is not None:
            attn = attn.masked_fill(key_padding_mask.view(bsz, 1, 1, -1), float("-inf"))
        attn = attn.softmax(-1)
        out = ops.matmul(attn, v).swapaxes(1, 2).contiguous().view(bsz, tgt_len, d)
        return self.out_proj(out), {"prev_key": k, "prev_value": v}


class EncoderLayer(nn.Cell):
    def __init__(self, d_model, heads, ffn):
        super().__init__()
        self.self_attn = MultiheadAttention(d_model, heads, "enc_self")
        self.ln1 = nn.LayerNorm((d_model,))
        self.fc1 = nn.Dense(d_model, ffn)
        self.fc2 = nn.Dense(ffn, d_model)
        self.ln2 = nn.LayerNorm((d_model,))

    def construct(self, x, pad_mask):
        x = self.ln1(x + self.self_attn(x, x, key_padding_mask=pad_mask)[0])
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
        h, self_kv = self.self_attn(x, x, incremental_state=incremental_state)
        x = self.ln1(x + h)
        h, enc_kv = self.encoder_attn(x, enc_out, key_padding_mask=enc_pad_mask,
                                      incremental_state=incremental_state, static_kv=True)
        x = self.ln2(x + h)
        new_state = {self.self_attn.key: self_kv, self.encoder_attn.key: enc_kv}
        return self.ln3(x + self.fc2(ops.relu(self.fc1(x)))), new_state


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
        new_state = {}
        for layer in self.decoder_layers:
            x, layer_state = layer(x, enc["encoder_out"], enc["encoder_padding_mask"], incremental_state)
            for key, saved in layer_state.items():
                new_state[key] = saved
        return self.out_proj(x), new_state

    def construct(self, src_tokens, prev_tokens):
        return self.decode(prev_tokens, self.encode(src_tokens))[0]

    def reorder_encoder_out(self, enc, new_order):
        return {k: v.index_select(0, new_order) for k, v in enc.items()}

    def reorder_incremental_state(self, incremental_state, new_order):
        return {key: {name: t.index_select(0, new_order) for name, t in saved.items()}
                for key, saved in incremental_state.items()}

    def generate(self, src_tokens):
        bsz = src_tokens.shape[0]
        beam, vocab, lp = self.beam_size, self.vocab, self.length_penalty
        width = self.max_len + 1
        enc = self.encode(src_tokens)
        new_order = ops.arange(bsz).view(-1, 1).tile((1, beam)).view(-1).astype(ms.int32)
        enc = self.reorder_encoder_out(enc, new_order)
        tokens = ops.full((bsz * beam, self.max_len + 2), PAD, dtype=ms.int32)
        tokens[:, 0] = BOS
        beam_scores = ops.zeros((bsz, beam), ms.float32)
        beam_scores[:, 1:] = -1e9
        beam_scores = beam_scores.view(-1)
        # finalized hypotheses as tensors: BeamHypotheses.add/is_done vectorized
        fin_scores = ops.full((bsz, beam), -1e9, dtype=ms.float32)
        fin_tokens = ops.full((bsz, beam, width), PAD, dtype=ms.int32)
        fin_count = ops.zeros((bsz,), ms.int32)
        done = ops.zeros((bsz,), ms.bool_)
        positions = ops.arange(width).astype(ms.int32)
        batch_base = (ops.arange(bsz) * beam).astype(ms.int32).view(-1, 1)
        rank_offset = ops.arange(2 * beam).astype(ms.float32).view(1, -1)
        incremental_state = {}
        for step in range(self.max_len + 1):
            logits, incremental_state = self.decode(tokens[:, :step + 1], enc, incremental_state)
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
            cand_beams = (cand_indices // vocab).astype(ms.int32) + batch_base
            cand_tokens = cand_indices.fmod(vocab).astype(ms.int32)
            is_eos = cand_tokens == EOS
            active = ops.logical_not(done)
            for j in range(beam):
                add = ops.logical_and(is_eos[:, j], active)
                score = cand_scores[:, j] / float((step + 1) ** lp)
                worst, slot = fin_scores.min(axis=1), fin_scores.argmin(axis=1)
                add = ops.logical_and(add, ops.logical_or(fin_count < beam, score > worst))
                row = tokens.index_select(0, cand_beams[:, j])[:, 1:]
                row = ops.where(positions == step, ops.full_like(row, EOS), row)
                slot_mask = ops.logical_and(ops.one_hot(slot, beam, Tensor(1.0), Tensor(0.0)) > 0.5,
                                            add.view(-1, 1))
                fin_scores = ops.where(slot_mask, score.view(-1, 1), fin_scores)
                fin_tokens = ops.where(slot_mask.view(bsz, beam, 1), row.view(bsz, 1, width), fin_tokens)
                fin_count = fin_count + add.astype(ms.int32)
            best_possible = cand_scores.max(axis=1) / float((step + 1) ** lp)
            is_done = ops.logical_and(fin_count >= beam, fin_scores.min(axis=1) >= best_possible)
            done = ops.logical_or(done, ops.logical_and(active, is_done))
            # the first `beam` non-EOS candidates continue
            order_key = is_eos.astype(ms.float32) * 100.0 + rank_offset
            _, keep = ops.topk(-order_key, beam, dim=1)
            next_scores = ops.gather_elements(cand_scores, 1, keep)
            next_tokens = ops.gather_elements(cand_tokens, 1, keep)
            reorder = ops.gather_elements(cand_beams, 1, keep).view(-1)
            tokens = tokens.index_select(0, reorder)
            tokens[:, step + 1] = next_tokens.view(-1)
            beam_scores = next_scores.view(-1)
            incremental_state = self.reorder_incremental_state(incremental_state, reorder)
        best_slot = fin_scores.argmax(axis=1).astype(ms.int32)
        best_scores = ops.gather_elements(fin_scores, 1, best_slot.view(-1, 1)).view(-1)
        best = ops.gather_elements(fin_tokens, 1, best_slot.view(-1, 1, 1).tile((1, 1, width))).view(bsz, width)
        return best, best_scores


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
