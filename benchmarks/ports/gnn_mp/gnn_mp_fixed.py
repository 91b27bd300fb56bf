"""Hand-written message-passing GNN (GCN / GAT / GIN layers in the style of PyTorch Geometric),
ported from plain PyTorch to MindSpore 2.10 -- reference fix of gnn_mp.py: compiles in GRAPH_MODE at LAX and
STRICT. The jitted Cell returns a tuple of Tensors; strings, per-graph lists and the dict are built afterwards in
Python (`postprocess`). The number of graphs in the batch is a Python int argument (a compile-time constant).

edge_index is a [2, E] int tensor (row 0 = source, row 1 = target), batch maps each node to its graph.
Inference: node classification for every node plus graph classification of a mini-batch of graphs.
"""
import math
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
                 dropout=0.0, rng=None):
        super().__init__()
        self.heads, self.out_channels, self.concat = heads, out_channels, concat
        self.negative_slope, self.dropout = negative_slope, dropout
        self.lin = nn.Dense(in_channels, heads * out_channels, has_bias=False)
        self.att_src = Parameter(glorot((1, heads, out_channels), rng), name='att_src')
        self.att_dst = Parameter(glorot((1, heads, out_channels), rng), name='att_dst')
        self.bias = Parameter(ops.zeros(heads * out_channels if concat else out_channels), name='bias')

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

        msg = x[src] * alpha.unsqueeze(-1)
        out = scatter_sum(msg, dst, num_nodes)
        if self.concat:
            out = out.view(-1, H * C)
        else:
            out = out.mean(dim=1)
        return out + self.bias, edge_index, alpha


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
def global_mean_pool(x, batch, size):
    total = ops.unsorted_segment_sum(x, batch, size)
    count = degree(batch, size).clamp(min=1).view(-1, 1)
    return total / count


def global_max_pool(x, batch, size):
    return ops.unsorted_segment_max(x, batch, size)


# ---------------------------------------------------------------- model
class GNN(nn.Cell):
    def __init__(self, in_channels, hidden, num_node_classes, num_graph_classes, heads=2,
                 dropout=0.5, seed=0):
        super().__init__()
        rng = np.random.RandomState(seed)
        self.dropout = dropout
        gin_mlp = nn.SequentialCell(nn.Dense(hidden, hidden), nn.ReLU(), nn.Dense(hidden, hidden))
        self.convs = nn.CellList([
            GCNConv(in_channels, hidden),
            GATConv(hidden, hidden // heads, heads=heads, dropout=dropout, rng=rng),
            GINConv(gin_mlp, train_eps=True),
        ])
        self.node_head = nn.Dense(hidden, num_node_classes)
        self.readout = nn.SequentialCell(nn.Dense(2 * hidden, hidden), nn.ReLU(),
                                         nn.Dropout(p=dropout), nn.Dense(hidden, num_graph_classes))

    def construct(self, x, edge_index, batch, num_graphs):
        hs = []
        att_edges, att = edge_index, None
        for i, conv in enumerate(self.convs):
            x = conv(x, edge_index)
            if isinstance(x, tuple):
                x, att_edges, att = x
            if i > 0:
                x = x + hs[-1]   # residual
            x = ops.relu(x)
            x = ops.dropout(x, p=self.dropout, training=self.training)
            hs.append(x)
        node_logits = self.node_head(x)
        pooled = ops.cat([global_mean_pool(x, batch, num_graphs), global_max_pool(x, batch, num_graphs)], axis=-1)
        return node_logits, self.readout(pooled), x, att_edges, att


class GraphPredictor(nn.Cell):
    """Inference: node labels, graph labels of a mini-batch and the most attended neighbour."""

    def __init__(self, model, threshold=0.525):
        super().__init__()
        self.model = model
        self.threshold = threshold

    def construct(self, x, edge_index, batch, num_graphs):
        x = x / x.sum(dim=-1, keepdim=True).clamp(min=1)     # NormalizeFeatures, out of place
        node_logits, graph_logits, _, att_edges, alpha = self.model(x, edge_index, batch, num_graphs)

        node_prob = ops.softmax(node_logits, -1)
        node_pred = node_prob.argmax(dim=-1)
        graph_prob = ops.softmax(graph_logits, -1)
        conf, graph_pred = graph_prob.max(axis=-1, return_indices=True)
        counts = degree(batch, num_graphs).int()
        entropy = -(graph_prob * graph_prob.clamp(min=1e-9).log()).sum(-1) / math.log(graph_prob.shape[-1])
        uncertain = conf < self.threshold

        # most attended neighbour: best non-self edge per target node; on a tie the first edge wins, as in
        # the loop of gnn_mp.py. A node without such an edge points at the sentinel -1 appended to src.
        alpha = alpha.mean(dim=-1)
        src, dst = att_edges[0].int(), att_edges[1].int()
        num_edges = src.shape[0]
        score = ops.where(src != dst, alpha, ops.full_like(alpha, -1.0))
        best = ops.unsorted_segment_max(score, dst, x.shape[0])
        is_best = (src != dst) & (score == best[dst])
        position = ops.where(is_best, ops.arange(num_edges, dtype=ms.int32), ops.full_like(src, num_edges))
        first = ops.unsorted_segment_min(position, dst, x.shape[0]).clamp(max=num_edges)
        top_neighbour = ops.cat([src, ops.full((1,), -1, dtype=ms.int32)])[first]
        return node_pred, counts, graph_pred, graph_prob, entropy, uncertain, top_neighbour


def postprocess(outputs, graph_class_names):
    """Python side, after the jitted call: lists, strings and the dict of gnn_mp.py."""
    node_pred, counts, graph_pred, graph_prob, entropy, uncertain, top_neighbour = outputs
    return {"node_pred": node_pred, "node_pred_per_graph": node_pred.split(counts.asnumpy().tolist(), axis=0),
            "graph_pred": graph_pred, "graph_prob": graph_prob,
            "labels": [graph_class_names[int(p)] for p in graph_pred.asnumpy()],
            "entropy": entropy, "uncertain": [int(g) for g in np.nonzero(uncertain.asnumpy())[0]],
            "top_neighbour": top_neighbour}


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
    return x, edge_index, Tensor(np.array(batch, np.int32)), len(graphs)


GRAPH_CLASS_NAMES = ["acyclic", "cyclic"]


def predict(predictor, inputs):
    return postprocess(predictor(*inputs), GRAPH_CLASS_NAMES)


def build(seed=2):
    ms.set_seed(seed)
    model = GNN(in_channels=4, hidden=8, num_node_classes=3, num_graph_classes=2)
    predictor = GraphPredictor(model)
    predictor.set_train(False)
    return predictor


if __name__ == "__main__":
    import sys
    ms.set_context(mode=ms.PYNATIVE_MODE if "--pynative" in sys.argv else ms.GRAPH_MODE)
    if "--strict" in sys.argv:
        ms.set_context(jit_syntax_level=ms.STRICT)
    predictor = build()
    x, edge_index, batch, num_graphs = make_batch()
    result = postprocess(predictor(x, edge_index, batch, num_graphs), GRAPH_CLASS_NAMES)
    for key, value in result.items():
        print(key, value)
    print("caller's x after the call (row 0):", x[0])
