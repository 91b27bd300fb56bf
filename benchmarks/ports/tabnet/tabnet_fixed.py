"""TabNet (dreamquark-ai/tabnet: pytorch_tabnet/tab_network.py + sparsemax.py) ported to MindSpore.
Tiny config: batch 8, 6 numeric + 2 categorical columns, n_d = n_a = 8, n_steps = 3, virtual batch 4."""
import numpy as np
import mindspore as ms
from mindspore import nn, ops
from mindspore.common.initializer import initializer, XavierNormal

# ----------------------------------------------------------------------------- sparsemax.py
def _make_ix_like(input, dim=0):
    d = input.shape[dim]
    rho = ops.arange(1, d + 1, dtype=input.dtype)
    view = [1] * input.dim()
    view[0] = -1
    return ops.swapaxes(rho.view(view), 0, dim)  # FIX 1: graph Tensor.transpose(0, -1) is a permutation

def sparsemax(input, dim=-1):
    max_val, _ = input.max(dim=dim, keepdim=True)
    input -= max_val  # same numerical stability trick as for softmax
    input_srt, _ = ops.sort(input, axis=dim, descending=True)
    input_cumsum = input_srt.cumsum(dim) - 1
    rhos = _make_ix_like(input, dim)
    support = rhos * input_srt > input_cumsum
    support_size = support.sum(dim=dim).unsqueeze(dim)
    tau = input_cumsum.gather(dim, support_size - 1)
    tau /= support_size.to(input.dtype)
    return ops.clamp(input - tau, min=0)

def entmax15(input, dim=-1):
    max_val, _ = input.max(dim=dim, keepdim=True)
    input = input - max_val
    input = input / 2
    Xsrt, _ = ops.sort(input, axis=dim, descending=True)
    rho = _make_ix_like(input, dim)
    mean = Xsrt.cumsum(dim) / rho
    mean_sq = (Xsrt ** 2).cumsum(dim) / rho
    ss = rho * (mean_sq - mean ** 2)
    delta = (1 - ss) / rho
    delta_nz = ops.clamp(delta, 0)
    tau = mean - ops.sqrt(delta_nz)
    support_size = (tau <= Xsrt).sum(dim).unsqueeze(dim)
    tau_star = tau.gather(dim, support_size - 1)
    return ops.clamp(input - tau_star, min=0) ** 2

class Sparsemax(nn.Cell):
    def __init__(self, dim=-1):
        super().__init__()
        self.dim = dim

    def construct(self, input):
        return sparsemax(input, self.dim)

class Entmax15(Sparsemax):
    def construct(self, input):
        return entmax15(input, self.dim)

# ----------------------------------------------------------------------------- tab_network.py
def initialize_non_glu(module, input_dim, output_dim, glu=False):
    gain_value = np.sqrt((input_dim + output_dim) / np.sqrt(input_dim if glu else 4 * input_dim))
    module.weight.set_data(initializer(XavierNormal(gain=gain_value), module.weight.shape))

class GBN(nn.Cell):  # Ghost Batch Normalization: batch norm over virtual batches
    def __init__(self, input_dim, virtual_batch_size=128, momentum=0.01):
        super().__init__()
        self.input_dim = input_dim
        self.virtual_batch_size = virtual_batch_size
        self.bn = nn.BatchNorm1d(self.input_dim, momentum=momentum)

    def construct(self, x):
        chunks = x.chunk(int(np.ceil(x.shape[0] / self.virtual_batch_size)), 0)
        res = [self.bn(x_) for x_ in chunks]
        return ops.cat(res, axis=0)

class GLU_Layer(nn.Cell):
    def __init__(self, input_dim, output_dim, fc=None, virtual_batch_size=128, momentum=0.02):
        super().__init__()
        self.output_dim = output_dim
        self.fc = fc if fc else nn.Linear(input_dim, 2 * output_dim, bias=False)
        initialize_non_glu(self.fc, input_dim, 2 * output_dim, glu=True)
        self.bn = GBN(2 * output_dim, virtual_batch_size=virtual_batch_size, momentum=momentum)

    def construct(self, x):
        x = self.bn(self.fc(x))
        out = ops.mul(x[:, : self.output_dim], ops.sigmoid(x[:, self.output_dim:]))
        return out

class GLU_Block(nn.Cell):  # independent GLU block, specific to each step
    def __init__(self, input_dim, output_dim, n_glu=2, first=False, shared_layers=None,
                 virtual_batch_size=128, momentum=0.02):
        super().__init__()
        self.first = first
        self.n_glu = n_glu
        self.glu_layers = nn.CellList()
        params = {"virtual_batch_size": virtual_batch_size, "momentum": momentum}
        fc = shared_layers[0] if shared_layers else None
        self.glu_layers.append(GLU_Layer(input_dim, output_dim, fc=fc, **params))
        for glu_id in range(1, self.n_glu):
            fc = shared_layers[glu_id] if shared_layers else None
            self.glu_layers.append(GLU_Layer(output_dim, output_dim, fc=fc, **params))

    def construct(self, x):
        scale = ops.sqrt(ms.Tensor([0.5], ms.float32))  # FIX 4a: no .to(x.device)
        if self.first:  # the first layer of the block has no scale multiplication
            x = self.glu_layers[0](x)
            layers_left = range(1, self.n_glu)
        else:
            layers_left = range(self.n_glu)
        for glu_id in layers_left:
            x = ops.add(x, self.glu_layers[glu_id](x))
            x = x * scale
        return x

class FeatTransformer(nn.Cell):
    def __init__(self, input_dim, output_dim, shared_layers, n_glu_independent,
                 virtual_batch_size=128, momentum=0.02):
        super().__init__()
        params = {"n_glu": n_glu_independent, "virtual_batch_size": virtual_batch_size, "momentum": momentum}
        if shared_layers is None:
            self.shared = nn.Identity()
            is_first = True
        else:
            self.shared = GLU_Block(input_dim, output_dim, first=True, shared_layers=shared_layers, n_glu=len(
                shared_layers), virtual_batch_size=virtual_batch_size, momentum=momentum)
            is_first = False
        if n_glu_independent == 0:
            self.specifics = nn.Identity()
        else:
            spec_input_dim = input_dim if is_first else output_dim
            self.specifics = GLU_Block(spec_input_dim, output_dim, first=is_first, **params)

    def construct(self, x):
        return self.specifics(self.shared(x))

class AttentiveTransformer(nn.Cell):
    def __init__(self, input_dim, group_dim, group_matrix, virtual_batch_size=128,
                 momentum=0.02, mask_type="sparsemax"):
        super().__init__()
        self.fc = nn.Linear(input_dim, group_dim, bias=False)
        initialize_non_glu(self.fc, input_dim, group_dim)
        self.bn = GBN(group_dim, virtual_batch_size=virtual_batch_size, momentum=momentum)
        self.selector = Sparsemax(dim=-1) if mask_type == "sparsemax" else Entmax15(dim=-1)

    def construct(self, priors, processed_feat):
        x = self.bn(self.fc(processed_feat))
        x = ops.mul(x, priors)
        return self.selector(x)

class TabNetEncoder(nn.Cell):
    def __init__(self, input_dim, output_dim, n_d=8, n_a=8, n_steps=3, gamma=1.3, n_independent=2,
                 n_shared=2, epsilon=1e-15, virtual_batch_size=128, momentum=0.02,
                 mask_type="sparsemax", group_attention_matrix=None):
        super().__init__()
        self.input_dim, self.output_dim, self.epsilon = input_dim, output_dim, epsilon
        self.n_d, self.n_a, self.n_steps, self.gamma = n_d, n_a, n_steps, gamma
        self.initial_bn = nn.BatchNorm1d(self.input_dim, momentum=0.01)
        self.group_attention_matrix = group_attention_matrix
        self.attention_dim = self.group_attention_matrix.shape[0]
        shared_feat_transform = nn.CellList()
        for i in range(n_shared):
            if i == 0:
                shared_feat_transform.append(nn.Linear(self.input_dim, 2 * (n_d + n_a), bias=False))
            else:
                shared_feat_transform.append(nn.Linear(n_d + n_a, 2 * (n_d + n_a), bias=False))
        self.initial_splitter = FeatTransformer(self.input_dim, n_d + n_a, shared_feat_transform,
                                                n_glu_independent=n_independent,
                                                virtual_batch_size=virtual_batch_size, momentum=momentum)
        self.feat_transformers = nn.CellList()
        self.att_transformers = nn.CellList()
        for step in range(n_steps):
            transformer = FeatTransformer(self.input_dim, n_d + n_a, shared_feat_transform,
                                          n_glu_independent=n_independent,
                                          virtual_batch_size=virtual_batch_size, momentum=momentum)
            attention = AttentiveTransformer(n_a, self.attention_dim, group_matrix=group_attention_matrix,
                                             virtual_batch_size=virtual_batch_size, momentum=momentum,
                                             mask_type=mask_type)
            self.feat_transformers.append(transformer)
            self.att_transformers.append(attention)

    def construct(self, x, prior=None):
        x = self.initial_bn(x)
        bs = x.shape[0]
        if prior is None:
            prior = ops.ones((bs, self.attention_dim))  # FIX 4b: no .to(x.device)
        M_loss = 0
        att = self.initial_splitter(x)[:, self.n_d:]
        steps_output = []
        for step in range(self.n_steps):
            M = self.att_transformers[step](prior, att)
            M_loss += ops.mean(ops.sum(ops.mul(M, ops.log(M + self.epsilon)), dim=1))
            prior = ops.mul(self.gamma - M, prior)  # update prior
            M_feature_matrix = ops.matmul(M, self.group_attention_matrix)
            masked_x = ops.mul(M_feature_matrix, x)
            out = self.feat_transformers[step](masked_x)
            d = nn.ReLU()(out[:, : self.n_d])
            steps_output.append(d)
            att = out[:, self.n_d:]  # update attention
        M_loss /= self.n_steps
        return steps_output, M_loss

    def forward_masks(self, x):
        x = self.initial_bn(x)
        bs = x.shape[0]
        prior = ops.ones((bs, self.attention_dim))  # FIX 4c: no .to(x.device)
        M_explain = ops.zeros(x.shape)  # FIX 4d: no .to(x.device)
        att = self.initial_splitter(x)[:, self.n_d:]
        masks = []  # FIX 3: STRICT returns a dict with int keys as a tuple; build the dict outside
        for step in range(self.n_steps):
            M = self.att_transformers[step](prior, att)
            M_feature_matrix = ops.matmul(M, self.group_attention_matrix)
            masks.append(M_feature_matrix)
            prior = ops.mul(self.gamma - M, prior)
            masked_x = ops.mul(M_feature_matrix, x)
            out = self.feat_transformers[step](masked_x)
            d = nn.ReLU()(out[:, : self.n_d])
            step_importance = ops.sum(d, dim=1)  # explain
            M_explain += ops.mul(M_feature_matrix, step_importance.unsqueeze(dim=1))
            att = out[:, self.n_d:]
        return M_explain, masks

class EmbeddingGenerator(nn.Cell):  # classical embeddings generator
    def __init__(self, input_dim, cat_dims, cat_idxs, cat_emb_dims, group_matrix):
        super().__init__()
        if cat_dims == [] and cat_idxs == []:
            self.skip_embedding = True
            self.post_embed_dim = input_dim
            self.embedding_group_matrix = group_matrix
            return
        self.skip_embedding = False
        self.post_embed_dim = int(input_dim + np.sum(cat_emb_dims) - len(cat_emb_dims))
        self.embeddings = nn.CellList()
        for cat_dim, emb_dim in zip(cat_dims, cat_emb_dims):
            self.embeddings.append(nn.Embedding(cat_dim, emb_dim))
        # record continuous indices
        self.continuous_idx = ops.ones(input_dim, ms.bool_)
        self.continuous_idx[cat_idxs] = 0
        self.continuous_list = [bool(v) for v in self.continuous_idx.asnumpy()]  # FIX 2: plain Python bools
        # update group matrix
        n_groups = group_matrix.shape[0]
        self.embedding_group_matrix = ops.zeros((n_groups, self.post_embed_dim))
        for group_idx in range(n_groups):
            post_emb_idx = 0
            cat_feat_counter = 0
            for init_feat_idx in range(input_dim):
                if self.continuous_idx[init_feat_idx] == 1:
                    self.embedding_group_matrix[group_idx, post_emb_idx] = group_matrix[group_idx, init_feat_idx]
                    post_emb_idx += 1
                else:
                    n_embeddings = cat_emb_dims[cat_feat_counter]
                    self.embedding_group_matrix[group_idx, post_emb_idx: post_emb_idx + n_embeddings] = (
                        group_matrix[group_idx, init_feat_idx] / n_embeddings)
                    post_emb_idx += n_embeddings
                    cat_feat_counter += 1

    def construct(self, x):
        if self.skip_embedding:
            return x
        cols = []
        cat_feat_counter = 0
        for feat_init_idx, is_continuous in enumerate(self.continuous_list):  # FIX 2
            if is_continuous:
                cols.append(x[:, feat_init_idx].float().view(-1, 1))
            else:
                cols.append(self.embeddings[cat_feat_counter](x[:, feat_init_idx].long()))
                cat_feat_counter += 1
        return ops.cat(cols, axis=1)

class TabNet(nn.Cell):
    def __init__(self, input_dim, output_dim, n_d=8, n_a=8, n_steps=3, gamma=1.3, cat_idxs=[], cat_dims=[],
                 cat_emb_dim=1, n_independent=2, n_shared=2, epsilon=1e-15, virtual_batch_size=128,
                 momentum=0.02, mask_type="sparsemax", group_attention_matrix=None):
        super().__init__()
        if isinstance(cat_emb_dim, int):
            cat_emb_dim = [cat_emb_dim] * len(cat_idxs)
        if group_attention_matrix is None:
            group_attention_matrix = ops.eye(input_dim, input_dim, ms.float32)
        self.embedder = EmbeddingGenerator(input_dim, cat_dims, cat_idxs, cat_emb_dim, group_attention_matrix)
        self.post_embed_dim = self.embedder.post_embed_dim
        self.encoder = TabNetEncoder(
            self.post_embed_dim, output_dim, n_d=n_d, n_a=n_a, n_steps=n_steps, gamma=gamma, n_independent=n_independent,
            n_shared=n_shared, epsilon=epsilon, virtual_batch_size=virtual_batch_size, momentum=momentum,
            mask_type=mask_type, group_attention_matrix=self.embedder.embedding_group_matrix)
        self.final_mapping = nn.Linear(n_d, output_dim, bias=False)
        initialize_non_glu(self.final_mapping, n_d, output_dim)

    def construct(self, x):
        x = self.embedder(x)
        steps_output, M_loss = self.encoder(x)
        res = ops.sum(ops.stack(steps_output, axis=0), dim=0)
        return self.final_mapping(res), M_loss

    def forward_masks(self, x):
        return self.encoder.forward_masks(self.embedder(x))

class TabNetClassifier(nn.Cell):  # inference wrapper: predict_proba as pytorch_tabnet's TabModel
    def __init__(self, network):
        super().__init__()
        self.network = network
    def construct(self, x):
        output, M_loss = self.network(x)
        return nn.Softmax(axis=1)(output)
    def predict_proba(self, X, batch_size=4):
        self.set_train(False)
        results = []
        for start in range(0, X.shape[0], batch_size):
            data = ms.Tensor(X[start: start + batch_size]).float()
            results.append(self(data).asnumpy())
        return np.vstack(results)

class TabNetExplainer(TabNetClassifier):  # explain(): masks per step, as TabModel.explain
    def construct(self, x):
        return self.network.forward_masks(x)

    def explain(self, x):  # FIX 3: dict keyed by step built in Python
        M_explain, masks = self(x)
        return M_explain, {step: m for step, m in enumerate(masks)}

def make_data(seed, batch=8):
    rng = np.random.RandomState(seed)
    X = rng.randn(batch, 8).astype(np.float32)
    X[:, 2], X[:, 5] = rng.randint(0, 5, batch), rng.randint(0, 4, batch)  # categorical columns
    return X, rng.randint(0, 3, batch).astype(np.int32)

def build(mask_type="sparsemax"):
    ms.set_seed(0); np.random.seed(0)
    return TabNet(8, 3, n_d=8, n_a=8, n_steps=3, cat_idxs=[2, 5], cat_dims=[5, 4], cat_emb_dim=2,
                  virtual_batch_size=4, mask_type=mask_type)

def make_train_step(net, lambda_sparse=1e-3):
    loss_fn = nn.CrossEntropyLoss()
    optimizer = nn.Adam(net.trainable_params(), learning_rate=1e-2)
    def forward_fn(x, y):
        out, M_loss = net(x)
        loss = loss_fn(out, y) - lambda_sparse * M_loss  # sparsity regulariser, as pytorch_tabnet
        return loss, out
    grad_fn = ms.value_and_grad(forward_fn, None, optimizer.parameters, has_aux=True)
    def train_step(x, y):
        (loss, out), grads = grad_fn(x, y)
        optimizer(grads)
        return loss, grads
    return train_step

if __name__ == "__main__":
    import sys
    level = sys.argv[1] if len(sys.argv) > 1 else "pynative"
    if level == "pynative":
        ms.set_context(mode=ms.PYNATIVE_MODE)
    else:
        ms.set_context(mode=ms.GRAPH_MODE, jit_syntax_level=ms.LAX if level == "lax" else ms.STRICT)
    net, (X, y) = build(), make_data(1)
    net.set_train(True)
    out, M_loss = net(ms.Tensor(X))
    print("train logits", out.shape, out.asnumpy()[0], "M_loss", M_loss.item())
    proba = TabNetClassifier(net).predict_proba(make_data(2)[0])
    print("predict_proba", proba.shape, proba[0], "pred", np.argmax(proba, axis=1))
    M_explain, masks = TabNetExplainer(net).explain(ms.Tensor(X))
    masks = {k: v.asnumpy() for k, v in masks.items()}
    print("explain", M_explain.shape, sorted(masks), masks[0].sum(axis=1)[:3])
    net.set_train(True)
    loss, _ = make_train_step(net)(ms.Tensor(X), ms.Tensor(y))
    print("train loss", loss.item())
