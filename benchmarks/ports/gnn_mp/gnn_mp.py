"""Hand-written message-passing GNN (GCN / GAT / GIN layers in the style of PyTorch Geometric),
ported from plain PyTorch to MindSpore 2.10.

edge_index is a [2, E] int tensor (row 0 = source, row 1 = target), batch maps each node to its graph.
Inference: node classification for every node plus graph classification of a mini-batch of graphs.
"""
import math
from dataclasses import dataclass

import numpy as np
import mindspore as ms
from mindspore import nn, ops, Tensor, Parameter


# ---------------------------------------------------------------- scatter / graph utilities
def add_self_loops(edge_index, num_nodes):
    loop_index = ops.arange(num_nodes, dtype=edge_index.dtype)
    loop_index = ops.stack([loop_index, loop_index], axis=0)
    return ops.cat([edge_index, loop_index], axis=1)


def remove_self_loops(edge_index):
    mask = edge_index[0] != edge_index[1]
    return edge_index[:, mask]


def degree(index, num_nodes, dtype=ms.float32):
    out = ops.zeros(num_nodes, dtype)
    one = ops.ones(index.shape[0], dtype)
    return out.scatter(0, index, one, reduce='add')


def scatter_sum(src, index, dim_size):
    out = src.new_zeros((dim_size,) + src.shape[1:])
    return ops.index_add(out, index.int(), src, 0)


def segment_softmax(src, index, num_nodes):
    """softmax of src over the entries that share the same index (the incoming edges of a node)."""
    src_max = ops.unsorted_segment_max(src, index, num_nodes)
    out = (src - src_max[index]).exp()
    out_sum = ops.unsorted_segment_sum(out, index, num_nodes)[index]
    return out / (out_sum + 1e-16)


def glorot(shape, rng):
    a = math.sqrt(6.0 / (shape[-2] + shape[-1]))
    return Tensor(rng.uniform(-a, a, size=shape).astype(np.float32))


class AttentionStore:
    """Keeps the attention weights of the last forward pass for explanations."""

    def __init__(self):
        self.weights = []

    def record(self, edge_index, alpha):
        self.weights.append((edge_index, alpha))

    def clear(self):
        self.weights = []


@dataclass
class GNNOutput:
    node_logits: Tensor
    graph_logits: Tensor
    node_emb: Tensor


# ---------------------------------------------------------------- layers
class GCNConv(nn.Cell):
    def __init__(self, in_channels, out_channels, cached=False):
        super().__init__()
        self.lin = nn.Dense(in_channels, out_channels, has_bias=False)
        self.bias = Parameter(ops.zeros(out_channels), name='bias')
        self.cached = cached
        self._cached_edges = None

    def norm(self, edge_index, num_nodes):
        edge_index = add_self_loops(edge_index, num_nodes)
        row, col = edge_index
        deg = degree(col, num_nodes)
        deg_inv_sqrt = deg.pow(-0.5)
        deg_inv_sqrt[deg_inv_sqrt == float('inf')] = 0
        return edge_index, deg_inv_sqrt[row] * deg_inv_sqrt[col]

    def construct(self, x, edge_index):
        num_nodes = x.shape[0]
        if self.cached and self._cached_edges is not None:
            edge_index, norm = self._cached_edges
        else:
            edge_index, norm = self.norm(edge_index, num_nodes)
            if self.cached:
                self._cached_edges = (edge_index, norm)
        x = self.lin(x)
        row, col = edge_index[0], edge_index[1]
        msg = x[row] * norm.view(-1, 1)
        out = scatter_sum(msg, col, num_nodes)
        out += self.bias
        return out


class GATConv(nn.Cell):
    def __init__(self, in_channels, out_channels, heads=2, concat=True, negative_slope=0.2,
                 dropout=0.0, rng=None, store=None):
        super().__init__()
        self.heads, self.out_channels, self.concat = heads, out_channels, concat
        self.negative_slope, self.dropout = negative_slope, dropout
        self.lin = nn.Dense(in_channels, heads * out_channels, has_bias=False)
        self.att_src = Parameter(glorot((1, heads, out_channels), rng), name='att_src')
        self.att_dst = Parameter(glorot((1, heads, out_channels), rng), name='att_dst')
        self.bias = Parameter(ops.zeros(heads * out_channels if concat else out_channels), name='bias')
        self.store = store

    def construct(self, x, edge_index):
        H, C = self.heads, self.out_channels
        num_nodes = x.shape[0]
        x = self.lin(x).view(-1, H, C)
        alpha_src = (x * self.att_src).sum(dim=-1)
        alpha_dst = (x * self.att_dst).sum(dim=-1)

        edge_index = remove_self_loops(edge_index)
        edge_index = add_self_loops(edge_index, num_nodes)
        src, dst = edge_index
        alpha = alpha_src[src] + alpha_dst[dst]
        alpha = ops.leaky_relu(alpha, self.negative_slope)
        alpha = segment_softmax(alpha, dst, num_nodes)
        alpha = ops.dropout(alpha, p=self.dropout, training=self.training)
        if self.store is not None:
            self.store.record(edge_index, alpha)

        msg = x[src] * alpha.unsqueeze(-1)
        out = scatter_sum(msg, dst, num_nodes)
        if self.concat:
            out = out.view(-1, H * C)
        else:
            out = out.mean(dim=1)
        return out + self.bias


class GINConv(nn.Cell):
    def __init__(self, mlp, eps=0.0, train_eps=False):
        super().__init__()
        self.mlp = mlp
        self.eps = Parameter(Tensor([eps], ms.float32), name='eps') if train_eps else eps

    def construct(self, x, edge_index):
        src, dst = edge_index
        agg = scatter_sum(x[src], dst, x.shape[0])
        out = agg + (1 + self.eps) * x
        return self.mlp(out)


# ---------------------------------------------------------------- pooling
def global_mean_pool(x, batch, size=None):
    size = int(batch.max().item()) + 1 if size is None else size
    total = ops.unsorted_segment_sum(x, batch, size)
    count = degree(batch, size).clamp(min=1).view(-1, 1)
    return total / count


def global_max_pool(x, batch, size=None):
    size = int(batch.max().item()) + 1 if size is None else size
    out = []
    for g in range(size):
        out.append(x[batch == g].max(dim=0)[0])
    return ops.stack(out)


# ---------------------------------------------------------------- model
class GNN(nn.Cell):
    def __init__(self, in_channels, hidden, num_node_classes, num_graph_classes, heads=2,
                 dropout=0.5, seed=0, store=None):
        super().__init__()
        rng = np.random.RandomState(seed)
        self.dropout = dropout
        gin_mlp = nn.SequentialCell(nn.Dense(hidden, hidden), nn.ReLU(), nn.Dense(hidden, hidden))
        self.convs = nn.CellList([
            GCNConv(in_channels, hidden),
            GATConv(hidden, hidden // heads, heads=heads, dropout=dropout, rng=rng, store=store),
            GINConv(gin_mlp, train_eps=True),
        ])
        self.node_head = nn.Dense(hidden, num_node_classes)
        self.readout = nn.SequentialCell(nn.Dense(2 * hidden, hidden), nn.ReLU(),
                                         nn.Dropout(p=dropout), nn.Dense(hidden, num_graph_classes))

    def construct(self, x, edge_index, batch=None):
        if batch is None:
            batch = ops.zeros(x.shape[0], ms.int32)
        hs = []
        for i, conv in enumerate(self.convs):
            x = conv(x, edge_index)
            if i > 0:
                x = x + hs[-1]   # residual
            x = ops.relu(x)
            x = ops.dropout(x, p=self.dropout, training=self.training)
            hs.append(x)
        node_logits = self.node_head(x)
        pooled = ops.cat([global_mean_pool(x, batch), global_max_pool(x, batch)], axis=-1)
        return GNNOutput(node_logits=node_logits, graph_logits=self.readout(pooled), node_emb=x)


class GraphPredictor(nn.Cell):
    """Inference: node labels, graph labels of a mini-batch and the most attended neighbour."""

    def __init__(self, model, graph_class_names, store, threshold=0.525):
        super().__init__()
        self.model = model
        self.graph_class_names = graph_class_names
        self.store = store
        self.threshold = threshold

    def construct(self, x, edge_index, batch):
        x /= x.sum(dim=-1, keepdim=True).clamp(min=1)     # NormalizeFeatures (row-normalise, like the transform)
        self.store.clear()
        out = self.model(x, edge_index, batch)

        node_prob = ops.softmax(out.node_logits, -1)
        node_pred = node_prob.argmax(dim=-1)
        graph_prob = ops.softmax(out.graph_logits, -1)
        conf, graph_pred = graph_prob.max(dim=-1)
        num_graphs = graph_prob.shape[0]
        counts = degree(batch, num_graphs).long().tolist()
        node_pred_per_graph = node_pred.split(counts, dim=0)
        labels = [self.graph_class_names[int(p)] for p in graph_pred]
        entropy = -(graph_prob * graph_prob.clamp(min=1e-9).log()).sum(-1) / math.log(graph_prob.shape[-1])

        uncertain = []
        for g in range(num_graphs):
            if conf[g] < self.threshold:
                uncertain.append(g)

        att_edges, alpha = self.store.weights[-1]
        alpha = alpha.mean(dim=-1)
        best = ops.full((x.shape[0],), -1.0, dtype=ms.float32)
        top_neighbour = ops.full((x.shape[0],), -1, dtype=ms.int32)
        for e in range(att_edges.shape[1]):
            s, d = int(att_edges[0, e]), int(att_edges[1, e])
            if s != d and alpha[e] > best[d]:
                best[d] = alpha[e]
                top_neighbour[d] = s
        return {"node_pred": node_pred, "node_pred_per_graph": node_pred_per_graph,
                "graph_pred": graph_pred, "graph_prob": graph_prob, "labels": labels,
                "entropy": entropy, "uncertain": uncertain, "top_neighbour": top_neighbour}


# ---------------------------------------------------------------- demo
def make_batch():
    """Two small undirected graphs (a triangle with a tail, a 3-node star) merged into one batch, PyG style."""
    graphs = [(4, [(0, 1), (1, 2), (2, 3), (1, 3)]), (3, [(0, 1), (0, 2)])]
    rng = np.random.RandomState(1)
    edges, batch, offset = [], [], 0
    for g, (n, e) in enumerate(graphs):
        for a, b in e:
            edges += [(a + offset, b + offset), (b + offset, a + offset)]
        batch += [g] * n
        offset += n
    x = Tensor((3 * rng.rand(offset, 4)).astype(np.float32))
    edge_index = Tensor(np.array(edges, np.int64).T)
    return x, edge_index, Tensor(np.array(batch, np.int32))


def build(seed=2):
    ms.set_seed(seed)
    store = AttentionStore()
    model = GNN(in_channels=4, hidden=8, num_node_classes=3, num_graph_classes=2, store=store)
    predictor = GraphPredictor(model, ["acyclic", "cyclic"], store)
    predictor.set_train(False)
    return predictor


if __name__ == "__main__":
    ms.set_context(mode=ms.PYNATIVE_MODE)
    predictor = build()
    x, edge_index, batch = make_batch()
    result = predictor(x, edge_index, batch)
    for key, value in result.items():
        print(key, value)
    print("caller's x after the call (row 0):", x[0])
