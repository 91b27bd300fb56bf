"""DLRM (facebookresearch/dlrm, dlrm_s_pytorch.py) ported to MindSpore 2.10, plus a serving path.

Training-side model as in dlrm_s_pytorch.py: EmbeddingBag tables (indices + offsets), bottom MLP for dense
features, dot-product interaction (upper triangle picked with index lists li/lj), top MLP with sigmoid.
Serving path: score every candidate of each user, take top-k, re-rank with business rules (dedupe, drop items
already seen, cap per category), remember what was served, return ids and scores.
"""
import sys
from dataclasses import dataclass

import numpy as np
import mindspore as ms
from mindspore import nn, ops, mint, Tensor, Parameter

TABLE_ROWS = [20, 20, 20]   # table 0/1: user features, table 2: item ids
EMB_DIM = 4
N_DENSE = 3
TOP_K = 3
MAX_PER_CAT = 1


# ---------------------------------------------------------------- EmbeddingBag (MindSpore has none)
def embedding_bag(weight, indices, offsets, mode="sum"):
    """torch.nn.functional.embedding_bag(indices, weight, offsets, mode=mode) for 1-D indices."""
    n_bags = offsets.shape[0]
    outs = []
    for b in range(n_bags):
        start = int(offsets[b])
        end = int(offsets[b + 1]) if b + 1 < n_bags else indices.shape[0]
        if end == start:  # empty bag -> zeros, like torch
            outs.append(ops.zeros(weight.shape[1], weight.dtype))
            continue
        rows = weight[indices[start:end]]
        outs.append(rows.sum(dim=0) if mode == "sum" else rows.mean(dim=0))
    return ops.stack(outs)


class EmbeddingBag(nn.Cell):
    def __init__(self, num_embeddings, embedding_dim, mode="sum"):
        super().__init__()
        n, m = num_embeddings, embedding_dim
        W = np.random.uniform(low=-np.sqrt(1 / n), high=np.sqrt(1 / n), size=(n, m)).astype(np.float32)
        self.weight = Parameter(Tensor(W), name="weight")
        self.mode = mode

    def construct(self, indices, offsets):
        return embedding_bag(self.weight, indices, offsets, self.mode)


# ---------------------------------------------------------------- DLRM
class DLRM_Net(nn.Cell):
    def create_mlp(self, ln, sigmoid_layer):
        layers = []
        for i in range(0, ln.size - 1):
            n = ln[i]
            m = ln[i + 1]
            LL = nn.Dense(int(n), int(m), has_bias=True)
            std_dev = np.sqrt(2 / (m + n))  # Xavier, as in the original
            W = np.random.normal(0.0, std_dev, size=(m, n)).astype(np.float32)
            bt = np.random.normal(0.0, np.sqrt(1 / m), size=m).astype(np.float32)
            LL.weight.set_data(Tensor(W))
            LL.bias.set_data(Tensor(bt))
            layers.append(LL)
            if i == sigmoid_layer:
                layers.append(nn.Sigmoid())
            else:
                layers.append(nn.ReLU())
        return nn.SequentialCell(layers)

    def create_emb(self, m, ln):
        emb_l = nn.CellList()
        for i in range(0, ln.size):
            emb_l.append(EmbeddingBag(int(ln[i]), m, mode="sum"))
        return emb_l

    def __init__(self, m_spa, ln_emb, ln_bot, ln_top, arch_interaction_op="dot",
                 arch_interaction_itself=False, sigmoid_bot=-1, sigmoid_top=-1, loss_threshold=0.0):
        super().__init__()
        self.ln_emb = ln_emb
        self.arch_interaction_op = arch_interaction_op
        self.arch_interaction_itself = arch_interaction_itself
        self.loss_threshold = loss_threshold
        self.emb_l = self.create_emb(m_spa, ln_emb)
        self.bot_l = self.create_mlp(ln_bot, sigmoid_bot)
        self.top_l = self.create_mlp(ln_top, sigmoid_top)

    def apply_mlp(self, x, layers):
        return layers(x)

    def apply_emb(self, lS_o, lS_i, emb_l):
        ly = []
        for k, sparse_index_group_batch in enumerate(lS_i):
            sparse_offset_group_batch = lS_o[k]
            E = emb_l[k]
            V = E(sparse_index_group_batch, sparse_offset_group_batch)
            ly.append(V)
        return ly

    def interact_features(self, x, ly):
        if self.arch_interaction_op == "dot":
            (batch_size, d) = x.shape
            T = mint.cat([x] + ly, dim=1).view((batch_size, -1, d))
            Z = ops.bmm(T, T.transpose(1, 2))
            _, ni, nj = Z.shape
            offset = 1 if self.arch_interaction_itself else 0
            li = Tensor([i for i in range(ni) for j in range(i + offset)], ms.int32)
            lj = Tensor([j for i in range(nj) for j in range(i + offset)], ms.int32)
            Zflat = Z[:, li, lj]
            R = mint.cat([x] + [Zflat], dim=1)
        elif self.arch_interaction_op == "cat":
            R = mint.cat([x] + ly, dim=1)
        else:
            sys.exit("ERROR: --arch-interaction-op=" + self.arch_interaction_op + " is not supported")
        return R

    def construct(self, dense_x, lS_o, lS_i):
        x = self.apply_mlp(dense_x, self.bot_l)
        ly = self.apply_emb(lS_o, lS_i, self.emb_l)
        z = self.interact_features(x, ly)
        p = self.apply_mlp(z, self.top_l)
        if 0.0 < self.loss_threshold and self.loss_threshold < 1.0:
            z = ops.clamp(p, min=self.loss_threshold, max=(1.0 - self.loss_threshold))
        else:
            z = p
        return z


# ---------------------------------------------------------------- serving
@dataclass
class Recommendation:
    item_ids: Tensor
    scores: Tensor


class SeenItems:
    """Items each user has already been shown (kept in Python, like a request-scoped cache)."""

    def __init__(self, history):
        self.seen = {u: set(items) for u, items in history.items()}

    def has(self, user, item):
        return item in self.seen.get(user, set())

    def add(self, user, item):
        self.seen.setdefault(user, set()).add(item)


class Recommender(nn.Cell):
    def __init__(self, model, item_category, seen, k=TOP_K, max_per_cat=MAX_PER_CAT):
        super().__init__()
        self.model = model
        self.item_category = item_category  # {item_id: category_id}
        self.seen = seen
        self.k = k
        self.max_per_cat = max_per_cat
        self.served = 0

    def score_candidates(self, dense_row, user_ids, cand):
        n = cand.shape[0]
        dense = dense_row.view(1, -1).tile((n, 1))
        offs = ops.arange(n, dtype=ms.int32)
        lS_i = [user_ids[0:1].tile((n,)), user_ids[1:2].tile((n,)), cand]
        lS_o = [offs, offs, offs]
        return self.model(dense, lS_o, lS_i).squeeze(-1)

    def construct(self, dense_x, user_sparse, candidates):
        batch_size = dense_x.shape[0]
        all_ids, all_scores = [], []
        for b in range(batch_size):
            scores = self.score_candidates(dense_x[b], user_sparse[b], candidates[b])
            top_scores, top_idx = ops.topk(scores, min(2 * self.k, scores.shape[0]))
            ids, kept = [], []
            per_cat = {}
            for s, j in zip(top_scores.tolist(), top_idx.tolist()):
                item = int(candidates[b, j])
                if item in ids:  # the same item twice among the candidates
                    continue
                if self.seen.has(b, item):
                    continue
                cat = self.item_category[item]
                if per_cat.get(cat, 0) >= self.max_per_cat:
                    continue
                per_cat[cat] = per_cat.get(cat, 0) + 1
                ids.append(item)
                kept.append(s)
                if len(ids) == self.k:
                    break
            while len(ids) < self.k:  # pad short lists
                ids.append(-1)
                kept.append(0.0)
            for item in ids:
                if item >= 0:
                    self.seen.add(b, item)  # don't show it again
            all_ids.append(Tensor(ids, ms.int32))
            all_scores.append(Tensor(kept, ms.float32))
        self.served += batch_size
        return Recommendation(ops.stack(all_ids), ops.stack(all_scores))


# ---------------------------------------------------------------- demo
def build(seed=0):
    np.random.seed(seed)
    ms.set_seed(seed)
    ln_emb = np.array(TABLE_ROWS)
    ln_bot = np.array([N_DENSE, 8, EMB_DIM])
    n_f = len(TABLE_ROWS) + 1
    ln_top = np.array([EMB_DIM + n_f * (n_f - 1) // 2, 8, 1])
    model = DLRM_Net(EMB_DIM, ln_emb, ln_bot, ln_top, sigmoid_bot=-1, sigmoid_top=ln_top.size - 2)
    item_category = {i: i % 4 for i in range(TABLE_ROWS[2])}
    seen = SeenItems({0: [5], 1: [2, 11]})
    return model, Recommender(model, item_category, seen)


def make_inputs(seed=1):
    rng = np.random.RandomState(seed)
    dense_x = Tensor(np.log1p(rng.rand(2, N_DENSE) * 10).astype(np.float32))
    lS_i = [Tensor([1, 5, 7], ms.int32), Tensor([3, 3, 19], ms.int32), Tensor([0, 4, 9, 11], ms.int32)]
    lS_o = [Tensor([0, 2], ms.int32), Tensor([0, 1], ms.int32), Tensor([0, 1], ms.int32)]
    user_sparse = Tensor([[1, 3], [7, 19]], ms.int32)
    candidates = Tensor([[5, 2, 9, 2, 14, 11, 6, 17], [2, 8, 11, 4, 13, 8, 0, 15]], ms.int32)
    return dense_x, lS_o, lS_i, user_sparse, candidates


def main():
    model, rec = build()
    dense_x, lS_o, lS_i, user_sparse, candidates = make_inputs()
    p = model(dense_x, lS_o, lS_i)
    print("ctr:", p.asnumpy().ravel())
    for step in range(2):
        out = rec(dense_x, user_sparse, candidates)
        print(f"request {step}: ids", out.item_ids.asnumpy().tolist(), "scores", np.round(out.scores.asnumpy(), 5).tolist())
    print("served:", rec.served, "seen:", {u: sorted(s) for u, s in rec.seen.seen.items()})


if __name__ == "__main__":
    ms.set_context(mode=ms.PYNATIVE_MODE)
    main()
