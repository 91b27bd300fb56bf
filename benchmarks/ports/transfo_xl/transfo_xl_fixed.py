"""Reference fix of transfo_xl.py: `python transfo_xl_fixed.py [pynative|lax|strict] [--torch-scale]`.

Transformer-XL (kimiyoung/transformer-xl, pytorch/mem_transformer.py) ported to MindSpore 2.10.

Tiny config: vocab 50, d_model 32, 2 layers, 2 heads, tgt_len 6, mem_len 6, batch 2.
Plain (non-adaptive) softmax head, relative partial-learnable attention, segment recurrence.
"""
import sys
import numpy as np
TORCH_SCALE = '--torch-scale' in sys.argv
import mindspore as ms
from mindspore import nn, ops, mint, Tensor, Parameter


class PositionalEmbedding(nn.Cell):
    def __init__(self, demb):
        super().__init__()
        self.demb = demb
        inv_freq = 1 / (10000 ** (np.arange(0.0, demb, 2.0) / demb))
        self.inv_freq = Tensor(inv_freq, ms.float32)  # register_buffer('inv_freq', ...)

    def construct(self, pos_seq, bsz=None):
        sinusoid_inp = ops.ger(pos_seq, self.inv_freq)
        pos_emb = mint.cat([sinusoid_inp.sin(), sinusoid_inp.cos()], dim=-1)
        if bsz is not None:
            return pos_emb[:, None, :].expand(-1, bsz, -1)
        else:
            return pos_emb[:, None, :]


class PositionwiseFF(nn.Cell):
    def __init__(self, d_model, d_inner, dropout, pre_lnorm=False):
        super().__init__()
        self.CoreNet = nn.SequentialCell(
            mint.nn.Linear(d_model, d_inner), mint.nn.ReLU(), mint.nn.Dropout(p=dropout),
            mint.nn.Linear(d_inner, d_model), mint.nn.Dropout(p=dropout),
        )
        self.layer_norm = nn.LayerNorm((d_model,))  # mint.nn.LayerNorm: no CPU kernel
        self.pre_lnorm = pre_lnorm

    def construct(self, inp):
        if self.pre_lnorm:
            core_out = self.CoreNet(self.layer_norm(inp))
            output = core_out + inp
        else:
            core_out = self.CoreNet(inp)
            output = self.layer_norm(inp + core_out)
        return output


class RelPartialLearnableMultiHeadAttn(nn.Cell):
    def __init__(self, n_head, d_model, d_head, dropout, dropatt=0.0, pre_lnorm=False):
        super().__init__()
        self.n_head, self.d_model, self.d_head = n_head, d_model, d_head
        self.qkv_net = mint.nn.Linear(d_model, 3 * n_head * d_head, bias=False)
        self.drop = mint.nn.Dropout(p=dropout)
        self.dropatt = mint.nn.Dropout(p=dropatt)
        self.o_net = mint.nn.Linear(n_head * d_head, d_model, bias=False)
        self.layer_norm = nn.LayerNorm((d_model,))  # mint.nn.LayerNorm: no CPU kernel
        self.scale = 1 / (d_head ** 0.5)
        self.pre_lnorm = pre_lnorm
        self.r_net = mint.nn.Linear(d_model, n_head * d_head, bias=False)

    def _rel_shift(self, x, zero_triu=False):
        zero_pad = ops.zeros((x.shape[0], 1, *x.shape[2:]), dtype=x.dtype)
        x_padded = mint.cat([zero_pad, x], dim=1)
        x_padded = x_padded.view(x.shape[1] + 1, x.shape[0], *x.shape[2:])
        x = x_padded[1:].view_as(x)
        if zero_triu:
            ones = ops.ones((x.shape[0], x.shape[1]))
            x = x * mint.tril(ones, x.shape[1] - x.shape[0])[:, :, None, None]
        return x

    def construct(self, w, r, r_w_bias, r_r_bias, attn_mask=None, mems=None):
        qlen, rlen, bsz = w.shape[0], r.shape[0], w.shape[1]
        if mems is not None:
            cat = mint.cat([mems, w], dim=0)
            w_heads = self.qkv_net(self.layer_norm(cat) if self.pre_lnorm else cat)
            r_head_k = self.r_net(r)
            w_head_q, w_head_k, w_head_v = mint.chunk(w_heads, 3, dim=-1)
            w_head_q = w_head_q[-qlen:]
        else:
            w_heads = self.qkv_net(self.layer_norm(w) if self.pre_lnorm else w)
            r_head_k = self.r_net(r)
            w_head_q, w_head_k, w_head_v = mint.chunk(w_heads, 3, dim=-1)
        klen = w_head_k.shape[0]

        w_head_q = w_head_q.view(qlen, bsz, self.n_head, self.d_head)  # qlen x bsz x n_head x d_head
        w_head_k = w_head_k.view(klen, bsz, self.n_head, self.d_head)
        w_head_v = w_head_v.view(klen, bsz, self.n_head, self.d_head)
        r_head_k = r_head_k.view(rlen, self.n_head, self.d_head)      # rlen x n_head x d_head

        # torch.einsum('ibnd,jbnd->ijbn') is Ascend-only in MindSpore: permute + matmul instead
        rw_head_q = w_head_q + r_w_bias
        AC = mint.matmul(rw_head_q.permute(1, 2, 0, 3), w_head_k.permute(1, 2, 3, 0))  # b n i j
        AC = AC.permute(2, 3, 0, 1)                                                    # i j b n
        rr_head_q = w_head_q + r_r_bias
        BD = mint.matmul(rr_head_q.permute(1, 2, 0, 3), r_head_k.permute(1, 2, 0)[None])  # b n i j
        BD = self._rel_shift(BD.permute(2, 3, 0, 1))

        attn_score = AC + BD
        # FIX (label 1): `attn_score.mul_(self.scale)` is a silent no-op in PYNATIVE on CPU (the in-place
        # write is lost) but is applied in GRAPH_MODE. To reproduce the port's PYNATIVE outputs the scale is
        # left out; with --torch-scale it is applied out of place, as PyTorch (and GRAPH_MODE) do.
        if TORCH_SCALE:
            attn_score = attn_score * self.scale

        if attn_mask is not None and attn_mask.any().item():
            if attn_mask.dim() == 2:
                attn_score = attn_score.float().masked_fill(attn_mask[None, :, :, None], -float('inf')).type_as(attn_score)
            elif attn_mask.dim() == 3:
                attn_score = attn_score.float().masked_fill(attn_mask[:, :, :, None], -float('inf')).type_as(attn_score)

        attn_prob = mint.nn.functional.softmax(attn_score, dim=1)
        attn_prob = self.dropatt(attn_prob)

        # torch.einsum('ijbn,jbnd->ibnd')
        attn_vec = mint.matmul(attn_prob.permute(2, 3, 0, 1), w_head_v.permute(1, 2, 0, 3))  # b n i d
        attn_vec = attn_vec.permute(2, 0, 1, 3)
        attn_vec = attn_vec.contiguous().view(attn_vec.shape[0], attn_vec.shape[1], self.n_head * self.d_head)

        attn_out = self.drop(self.o_net(attn_vec))
        if self.pre_lnorm:
            output = w + attn_out
        else:
            output = self.layer_norm(w + attn_out)
        return output


class RelPartialLearnableDecoderLayer(nn.Cell):
    def __init__(self, n_head, d_model, d_head, d_inner, dropout, **kwargs):
        super().__init__()
        self.dec_attn = RelPartialLearnableMultiHeadAttn(n_head, d_model, d_head, dropout, **kwargs)
        self.pos_ff = PositionwiseFF(d_model, d_inner, dropout, pre_lnorm=kwargs.get('pre_lnorm'))

    def construct(self, dec_inp, r, r_w_bias, r_r_bias, dec_attn_mask=None, mems=None):
        output = self.dec_attn(dec_inp, r, r_w_bias, r_r_bias, attn_mask=dec_attn_mask, mems=mems)
        output = self.pos_ff(output)
        return output


class MemTransformerLM(nn.Cell):
    def __init__(self, n_token, n_layer, n_head, d_model, d_head, d_inner, dropout, dropatt,
                 tie_weight=True, tgt_len=None, ext_len=0, mem_len=0, pre_lnorm=False,
                 same_length=False, clamp_len=-1):
        super().__init__()
        self.n_token, self.d_model, self.n_head, self.d_head = n_token, d_model, n_head, d_head
        self.word_emb = nn.Embedding(n_token, d_model)  # mint.nn.Embedding: no CPU kernel
        self.emb_scale = d_model ** 0.5
        self.drop = mint.nn.Dropout(p=dropout)
        self.n_layer, self.tgt_len, self.mem_len, self.ext_len = n_layer, tgt_len, mem_len, ext_len
        self.max_klen = tgt_len + ext_len + mem_len
        self.layers = nn.CellList()
        for i in range(n_layer):
            self.layers.append(RelPartialLearnableDecoderLayer(
                n_head, d_model, d_head, d_inner, dropout, dropatt=dropatt, pre_lnorm=pre_lnorm))
        self.out_layer = mint.nn.Linear(d_model, n_token)
        if tie_weight:
            self.out_layer.weight = self.word_emb.embedding_table
        self.same_length = same_length
        self.clamp_len = clamp_len
        self.pos_emb = PositionalEmbedding(self.d_model)
        self.r_w_bias = Parameter(Tensor(np.zeros((n_head, d_head)), ms.float32), name='r_w_bias')
        self.r_r_bias = Parameter(Tensor(np.zeros((n_head, d_head)), ms.float32), name='r_r_bias')

    def reset_length(self, tgt_len, ext_len, mem_len):
        self.tgt_len, self.mem_len, self.ext_len = tgt_len, mem_len, ext_len

    def init_mems(self):
        if self.mem_len > 0:
            mems = []
            param = self.r_w_bias
            for i in range(self.n_layer + 1):
                empty = ops.zeros((0,), dtype=param.dtype)  # torch.empty(0, dtype=param.dtype)
                mems.append(empty)
            return mems
        else:
            return None

    def _update_mems(self, hids, mems, qlen, mlen):
        if mems is None:
            return None
        assert len(hids) == len(mems), 'len(hids) != len(mems)'
        # with torch.no_grad(): (no such context in MindSpore) -> stop_gradient on each new mem
        new_mems = []
        end_idx = mlen + max(0, qlen - 0 - self.ext_len)
        beg_idx = max(0, end_idx - self.mem_len)
        for i in range(len(hids)):
            if mems[i].numel() == 0:
                cat = hids[i]
            else:
                cat = mint.cat([mems[i], hids[i]], dim=0)
            new_mems.append(ops.stop_gradient(cat[beg_idx:end_idx]))  # .detach()
        return new_mems

    def _forward(self, dec_inp, mems=None):
        qlen, bsz = dec_inp.shape
        word_emb = self.word_emb(dec_inp) * self.emb_scale
        mlen = mems[0].shape[0] if mems is not None else 0
        klen = mlen + qlen
        if self.same_length:
            all_ones = word_emb.new_ones((qlen, klen))
            mask_len = klen - self.mem_len
            mask_shift_len = qlen - mask_len if mask_len > 0 else qlen
            dec_attn_mask = (mint.triu(all_ones, diagonal=1 + mlen)
                             + mint.tril(all_ones, -mask_shift_len)).bool()[:, :, None]
        else:
            dec_attn_mask = mint.triu(word_emb.new_ones((qlen, klen)), diagonal=1 + mlen).bool()[:, :, None]

        hids = []
        pos_seq = ops.arange(klen - 1, -1, -1.0, dtype=word_emb.dtype)  # mint.arange: no CPU kernel
        if self.clamp_len > 0:
            pos_seq.clamp_(max=self.clamp_len)
        pos_emb = self.pos_emb(pos_seq)
        core_out = self.drop(word_emb)
        pos_emb = self.drop(pos_emb)
        hids.append(core_out)
        for i, layer in enumerate(self.layers):
            mems_i = None if mems is None else mems[i]
            if mems_i is not None and mems_i.numel() == 0:
                mems_i = None
            core_out = layer(core_out, pos_emb, self.r_w_bias, self.r_r_bias,
                             dec_attn_mask=dec_attn_mask, mems=mems_i)
            hids.append(core_out)
        core_out = self.drop(core_out)
        new_mems = self._update_mems(hids, mems, qlen, mlen)
        return core_out, new_mems

    def construct(self, data, target, *mems):
        # nn.DataParallel does not allow size(0) tensors to be broadcasted.
        # So, have to initialize size(0) mems inside the model forward.
        if not mems:
            mems = self.init_mems()
        tgt_len = target.shape[0]
        hidden, new_mems = self._forward(data, mems=mems)
        pred_hid = hidden[-tgt_len:]
        logit = self.out_layer(pred_hid.view(-1, pred_hid.shape[-1]))
        nll = -ops.log_softmax(logit, axis=-1).gather(1, target.view(-1).unsqueeze(1)).squeeze(1)
        loss = nll.view(tgt_len, -1)
        if new_mems is None:
            return [loss]
        else:
            return [loss] + new_mems

    def generate(self, context, max_new_tokens=4):
        """Greedy decoding: feed the context, then one token at a time, carrying the mems."""
        mems = self.init_mems()
        hidden, mems = self._forward(context, mems=mems)
        next_tok = self.out_layer(hidden[-1]).argmax(dim=-1)
        generated = [next_tok]
        for _ in range(max_new_tokens - 1):
            hidden, mems = self._forward(next_tok.view(1, -1), mems=mems)
            next_tok = self.out_layer(hidden[-1]).argmax(dim=-1)
            generated.append(next_tok)
        return ops.stack(generated, axis=0)  # mint.stack: no CPU kernel


class GreedyGenerator(nn.Cell):
    """Graph entry for inference: construct calls model.generate (compiled in GRAPH_MODE)."""
    def __init__(self, model, max_new_tokens=4):
        super().__init__()
        self.model = model
        self.max_new_tokens = max_new_tokens

    def construct(self, context):
        return self.model.generate(context, self.max_new_tokens)


def init_weights(model, seed=0):
    """Like weights_init in the original train.py (normal init), with a larger std (init_std=0.3) so the tiny model is not flat."""
    rng = np.random.RandomState(seed)
    for name, p in model.parameters_and_names():
        if name.endswith('gamma'):
            p.set_data(Tensor(1.0 + 0.02 * rng.randn(*p.shape), ms.float32))
        elif name.endswith('bias') and 'r_' not in name or name.endswith('beta'):
            p.set_data(Tensor(np.zeros(p.shape), ms.float32))
        else:
            p.set_data(Tensor(0.3 * rng.randn(*p.shape) if 'word_emb' not in name
                              else 0.5 * rng.randn(*p.shape), ms.float32))


def build():
    ms.set_seed(0)
    np.random.seed(0)
    model = MemTransformerLM(n_token=50, n_layer=2, n_head=2, d_model=32, d_head=16, d_inner=64,
                             dropout=0.0, dropatt=0.0, tie_weight=True, tgt_len=6, ext_len=0, mem_len=6)
    init_weights(model, seed=0)
    model.set_train(False)
    return model


def make_batch(seed, tgt_len=6, bsz=2, n_token=50):
    rng = np.random.RandomState(seed)
    seq = rng.randint(0, n_token, size=(tgt_len + 1, bsz))
    return Tensor(seq[:-1], ms.int32), Tensor(seq[1:], ms.int32)


if __name__ == '__main__':
    mode = sys.argv[1] if len(sys.argv) > 1 and not sys.argv[1].startswith('--') else 'pynative'
    if mode == 'pynative':
        ms.set_context(mode=ms.PYNATIVE_MODE)
    else:
        ms.set_context(mode=ms.GRAPH_MODE, jit_syntax_level=ms.LAX if mode == 'lax' else ms.STRICT)
    print('mode', mode, 'torch_scale', TORCH_SCALE)
    model = build()
    data, target = make_batch(1)
    ret = model(data, target)
    loss, mems = ret[0], ret[1:]
    print('segment 1 loss', loss.mean().asnumpy(), 'mems', [m.shape for m in mems])
    data2, target2 = make_batch(2)
    ret2 = model(data2, target2, *mems)
    print('segment 2 loss', ret2[0].mean().asnumpy(), 'mems', [m.shape for m in ret2[1:]])
    print('generate', GreedyGenerator(model, 4)(data).asnumpy().T)
