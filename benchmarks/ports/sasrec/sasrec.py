"""SASRec (Kang & McAuley 2018) ported from pmixer/SASRec.pytorch to MindSpore 2.10.

Written the way a PyTorch user would: numpy inputs converted inside the model,
torch-style Tensor methods, Python loops over blocks, in-place updates.
"""
import sys
import numpy as np
import mindspore as ms
from mindspore import nn, ops


class Args:
    """Plain helper object standing in for argparse args."""
    def __init__(self):
        self.hidden_units = 32
        self.num_blocks = 2
        self.num_heads = 1
        self.dropout_rate = 0.2
        self.maxlen = 10
        self.l2_emb = 0.001
        self.lr = 0.001


class MultiheadAttention(nn.Cell):
    """torch.nn.MultiheadAttention (seq-first, L x N x E), written by hand."""
    def __init__(self, embed_dim, num_heads, dropout=0.0):
        super().__init__()
        self.embed_dim = embed_dim
        self.num_heads = num_heads
        self.head_dim = embed_dim // num_heads
        self.in_proj = nn.Dense(embed_dim, 3 * embed_dim)
        self.out_proj = nn.Dense(embed_dim, embed_dim)
        self.dropout = nn.Dropout(p=dropout)

    def construct(self, query, key, value, attn_mask=None):
        tgt_len, bsz, embed_dim = query.shape
        src_len = key.shape[0]
        w = self.in_proj.weight
        b = self.in_proj.bias
        q = ops.matmul(query, w[:embed_dim].T) + b[:embed_dim]
        k = ops.matmul(key, w[embed_dim:2 * embed_dim].T) + b[embed_dim:2 * embed_dim]
        v = ops.matmul(value, w[2 * embed_dim:].T) + b[2 * embed_dim:]
        q = q * (float(self.head_dim) ** -0.5)
        q = q.view(tgt_len, bsz * self.num_heads, self.head_dim).transpose(0, 1)
        k = k.view(src_len, bsz * self.num_heads, self.head_dim).transpose(0, 1)
        v = v.view(src_len, bsz * self.num_heads, self.head_dim).transpose(0, 1)
        attn = ops.bmm(q, k.transpose(1, 2))
        if attn_mask is not None:
            attn = attn.masked_fill(attn_mask, float('-inf'))
        attn = ops.softmax(attn, axis=-1)
        self.last_attn = attn  # cache for inspection, like a torch hook would
        attn = self.dropout(attn)
        out = ops.bmm(attn, v)
        out = out.transpose(0, 1).view(tgt_len, bsz, embed_dim)
        out = self.out_proj(out)
        weights = attn.view(bsz, self.num_heads, tgt_len, src_len).mean(axis=1)
        return out, weights


class PointWiseFeedForward(nn.Cell):
    def __init__(self, hidden_units, dropout_rate):
        super().__init__()
        self.conv1 = nn.Conv1d(hidden_units, hidden_units, kernel_size=1, has_bias=True)
        self.dropout1 = nn.Dropout(p=dropout_rate)
        self.relu = nn.ReLU()
        self.conv2 = nn.Conv1d(hidden_units, hidden_units, kernel_size=1, has_bias=True)
        self.dropout2 = nn.Dropout(p=dropout_rate)

    def construct(self, inputs):
        outputs = self.dropout2(self.conv2(self.relu(self.dropout1(self.conv1(inputs.transpose(-1, -2))))))
        outputs = outputs.transpose(-1, -2)  # as Conv1D requires (N, C, Length)
        outputs += inputs
        return outputs


class SASRec(nn.Cell):
    def __init__(self, user_num, item_num, args):
        super().__init__()
        self.user_num = user_num
        self.item_num = item_num
        self.hidden_units = args.hidden_units
        self.item_emb = nn.Embedding(self.item_num + 1, args.hidden_units, padding_idx=0)
        self.pos_emb = nn.Embedding(args.maxlen + 1, args.hidden_units, padding_idx=0)
        self.emb_dropout = nn.Dropout(p=args.dropout_rate)

        self.attention_layernorms = nn.CellList()
        self.attention_layers = nn.CellList()
        self.forward_layernorms = nn.CellList()
        self.forward_layers = nn.CellList()
        self.last_layernorm = nn.LayerNorm((args.hidden_units,), epsilon=1e-8)

        for _ in range(args.num_blocks):
            self.attention_layernorms.append(nn.LayerNorm((args.hidden_units,), epsilon=1e-8))
            self.attention_layers.append(MultiheadAttention(args.hidden_units, args.num_heads, args.dropout_rate))
            self.forward_layernorms.append(nn.LayerNorm((args.hidden_units,), epsilon=1e-8))
            self.forward_layers.append(PointWiseFeedForward(args.hidden_units, args.dropout_rate))

    def log2feats(self, log_seqs):
        seqs = self.item_emb(ms.Tensor(log_seqs, ms.int32))
        seqs *= self.hidden_units ** 0.5
        poss = np.tile(np.arange(1, log_seqs.shape[1] + 1), [log_seqs.shape[0], 1])
        poss *= (log_seqs != 0)
        seqs += self.pos_emb(ms.Tensor(poss, ms.int32))
        seqs = self.emb_dropout(seqs)

        timeline_mask = ms.Tensor(log_seqs == 0)
        seqs *= ~timeline_mask.unsqueeze(-1)  # broadcast in last dim

        tl = seqs.shape[1]  # time dim len for enforce causality
        attention_mask = ~ops.tril(ops.ones((tl, tl), dtype=ms.bool_))

        for i in range(len(self.attention_layers)):
            seqs = seqs.transpose(0, 1)
            Q = self.attention_layernorms[i](seqs)
            mha_outputs, _ = self.attention_layers[i](Q, seqs, seqs, attn_mask=attention_mask)
            seqs = Q + mha_outputs
            seqs = seqs.transpose(0, 1)

            seqs = self.forward_layernorms[i](seqs)
            seqs = self.forward_layers[i](seqs)
            seqs *= ~timeline_mask.unsqueeze(-1)

        log_feats = self.last_layernorm(seqs)  # (U, T, C) -> (U, -1, C)
        return log_feats

    def construct(self, user_ids, log_seqs, pos_seqs, neg_seqs):  # for training
        log_feats = self.log2feats(log_seqs)
        pos_embs = self.item_emb(ms.Tensor(pos_seqs, ms.int32))
        neg_embs = self.item_emb(ms.Tensor(neg_seqs, ms.int32))
        pos_logits = (log_feats * pos_embs).sum(dim=-1)
        neg_logits = (log_feats * neg_embs).sum(dim=-1)
        return pos_logits, neg_logits  # pos_pred, neg_pred

    def predict(self, user_ids, log_seqs, item_indices):  # for inference
        log_feats = self.log2feats(log_seqs)
        final_feat = log_feats[:, -1, :]  # only use last QKV classifier, a waste
        item_embs = self.item_emb(ms.Tensor(item_indices, ms.int32))  # (U, I, C)
        logits = item_embs.matmul(final_feat.unsqueeze(-1)).squeeze(-1)
        return logits  # preds # (U, I)


class SASRecWithLoss(nn.Cell):
    """The training-loop loss of main.py, wrapped so value_and_grad can use it."""
    def __init__(self, model, l2_emb):
        super().__init__()
        self.model = model
        self.l2_emb = l2_emb
        self.bce_criterion = nn.BCEWithLogitsLoss()

    def construct(self, u, seq, pos, neg):
        pos_logits, neg_logits = self.model(u, seq, pos, neg)
        pos_labels, neg_labels = ops.ones(pos_logits.shape), ops.zeros(neg_logits.shape)
        indices = np.where(pos != 0)
        indices = (ms.Tensor(indices[0]), ms.Tensor(indices[1]))
        loss = self.bce_criterion(pos_logits[indices], pos_labels[indices])
        loss += self.bce_criterion(neg_logits[indices], neg_labels[indices])
        for param in self.model.item_emb.get_parameters():
            loss += self.l2_emb * ops.norm(param)
        return loss


def make_batch(rng, item_num, maxlen, batch=2):
    """WarpSampler-style batch: left-padded sequences, next-item positives, random negatives."""
    u = rng.randint(1, 10, size=(batch,))
    seq = np.zeros((batch, maxlen), dtype=np.int32)
    pos = np.zeros((batch, maxlen), dtype=np.int32)
    neg = np.zeros((batch, maxlen), dtype=np.int32)
    for b in range(batch):
        n = rng.randint(3, maxlen + 1)
        items = rng.randint(1, item_num + 1, size=(n + 1,))
        seq[b, maxlen - n:] = items[:-1]
        pos[b, maxlen - n:] = items[1:]
        for j in range(maxlen - n, maxlen):
            t = rng.randint(1, item_num + 1)
            while t in set(items):
                t = rng.randint(1, item_num + 1)
            neg[b, j] = t
    return u, seq, pos, neg


def evaluate(predict_fn, rng, item_num, maxlen, num_users=4):
    """utils.evaluate: rank the held-out item among 100 sampled negatives."""
    NDCG, HT, valid_user = 0.0, 0.0, 0.0
    ranks = []
    for u in range(1, num_users + 1):
        hist = list(rng.randint(1, item_num + 1, size=(rng.randint(3, 12),)))
        test_item = int(rng.randint(1, item_num + 1))
        seq = np.zeros([maxlen], dtype=np.int32)
        idx = maxlen - 1
        for i in reversed(hist):
            seq[idx] = i
            idx -= 1
            if idx == -1:
                break
        rated = set(hist)
        rated.add(0)
        item_idx = [test_item]
        for _ in range(100):
            t = rng.randint(1, item_num + 1)
            while t in rated:
                t = rng.randint(1, item_num + 1)
            item_idx.append(t)
        predictions = -predict_fn(*[np.array(l) for l in [[u], [seq], item_idx]])
        predictions = predictions[0]  # - for 1st argsort DESC
        rank = predictions.argsort().argsort()[0].item()
        ranks.append(rank)
        valid_user += 1
        if rank < 10:
            NDCG += 1 / np.log2(rank + 2)
            HT += 1
    return NDCG / valid_user, HT / valid_user, ranks


def build(seed=0):
    ms.set_seed(seed)
    np.random.seed(seed)
    args = Args()
    model = SASRec(10, 50, args)
    return model, args


if __name__ == '__main__':
    ms.set_context(mode=ms.PYNATIVE_MODE)
    model, args = build(0)
    rng = np.random.RandomState(0)
    u, seq, pos, neg = make_batch(rng, 50, args.maxlen)
    model.set_train(False)
    pos_logits, neg_logits = model(u, seq, pos, neg)
    print('pos_logits', pos_logits.shape, pos_logits.asnumpy()[:, -3:])
    print('neg_logits', neg_logits.shape, neg_logits.asnumpy()[:, -3:])
    loss_net = SASRecWithLoss(model, args.l2_emb)
    print('loss', loss_net(u, seq, pos, neg))
    print('predict', model.predict(u[:1], seq[:1], np.arange(1, 6)))
    ndcg, hr, ranks = evaluate(model.predict, np.random.RandomState(1), 50, args.maxlen)
    print('NDCG@10 %.4f HR@10 %.4f ranks %s' % (ndcg, hr, ranks))
    optimizer = nn.Adam(model.trainable_params(), learning_rate=args.lr, beta1=0.9, beta2=0.98)
    grad_fn = ms.value_and_grad(loss_net, None, optimizer.parameters)
    model.set_train(False)  # dropout off so the run is reproducible
    for step in range(2):
        loss, grads = grad_fn(u, seq, pos, neg)
        optimizer(grads)
        print('step', step, 'loss', loss)
