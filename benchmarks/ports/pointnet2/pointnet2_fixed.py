"""Reference fix of pointnet2.py (compiles at LAX and STRICT, same outputs as pointnet2.py in PYNATIVE).

Changes: sort(axis=) instead of sort(dim=); ops.where instead of boolean-mask setitem; ops.amax / argmax instead
of Tensor.max(dim)[i]; no in-place `-=` on the argument; one-hot in graph ops instead of NumPy; category -> part mask
as a Tensor built in __init__; the random FPS start points are drawn outside the graph (draw_fps_starts, same
order as pointnet2.py in PYNATIVE) and passed in; the predictors return tuples (dicts built in Python).

PointNet++ (single-scale grouping) ported from yanx27/Pointnet_Pointnet2_pytorch to MindSpore 2.10.

models/pointnet2_utils.py (square_distance, index_points, farthest_point_sample, query_ball_point,
sample_and_group, sample_and_group_all, PointNetSetAbstraction, PointNetFeaturePropagation),
models/pointnet2_cls_ssg.py, models/pointnet2_part_seg_ssg.py and the inference code of
test_classification.py (vote pool) / test_partseg.py (argmax restricted to the category's parts).
"""
import numpy as np
import mindspore as ms
from mindspore import nn, ops, Tensor


class SAConfig:
    """Plain Python config for one set-abstraction layer."""

    def __init__(self, npoint, radius, nsample, in_channel, mlp, group_all=False):
        self.npoint = npoint
        self.radius = radius
        self.nsample = nsample
        self.in_channel = in_channel
        self.mlp = mlp
        self.group_all = group_all


def square_distance(src, dst):
    B, N, _ = src.shape
    _, M, _ = dst.shape
    dist = -2 * ops.matmul(src, dst.permute(0, 2, 1))
    dist += ops.sum(src ** 2, -1).view(B, N, 1)
    dist += ops.sum(dst ** 2, -1).view(B, 1, M)
    return dist


def index_points(points, idx):
    """points [B, N, C], idx [B, S] or [B, S, K] -> [B, S(, K), C]"""
    B = points.shape[0]
    view_shape = list(idx.shape)
    view_shape[1:] = [1] * (len(view_shape) - 1)
    repeat_shape = list(idx.shape)
    repeat_shape[0] = 1
    batch_indices = ops.arange(B, dtype=ms.int64).view(view_shape).tile(tuple(repeat_shape))
    new_points = points[batch_indices, idx, :]
    return new_points


def farthest_point_sample(xyz, npoint, start=None):
    """xyz [B, N, 3] -> centroids [B, npoint] (int64); start: [B] first centroid (random if None)"""
    B, N, C = xyz.shape
    centroids = ops.zeros((B, npoint), ms.int64)
    distance = ops.ones((B, N), ms.float32) * 1e10
    if start is None:
        farthest = ops.randint(0, N, (B,), dtype=ms.int64)
    else:
        farthest = start
    batch_indices = ops.arange(B, dtype=ms.int64)
    for i in range(npoint):
        centroids[:, i] = farthest
        centroid = xyz[batch_indices, farthest, :].view(B, 1, 3)
        dist = ops.sum((xyz - centroid) ** 2, -1)
        mask = dist < distance
        distance = ops.where(mask, dist, distance)
        farthest = ops.max(distance, -1)[1]
    return centroids


def query_ball_point(radius, nsample, xyz, new_xyz):
    B, N, C = xyz.shape
    _, S, _ = new_xyz.shape
    group_idx = ops.arange(N, dtype=ms.int64).view(1, 1, N).tile((B, S, 1))
    sqrdists = square_distance(new_xyz, xyz)
    group_idx[sqrdists > radius ** 2] = N
    group_idx = group_idx.sort(axis=-1)[0][:, :, :nsample]
    group_first = group_idx[:, :, 0].view(B, S, 1).tile((1, 1, nsample))
    mask = group_idx == N
    group_idx = ops.where(mask, group_first, group_idx)
    return group_idx


def sample_and_group(npoint, radius, nsample, xyz, points, returnfps=False, start=None):
    B, N, C = xyz.shape
    S = npoint
    fps_idx = farthest_point_sample(xyz, npoint, start)
    new_xyz = index_points(xyz, fps_idx)
    idx = query_ball_point(radius, nsample, xyz, new_xyz)
    grouped_xyz = index_points(xyz, idx)  # [B, npoint, nsample, C]
    grouped_xyz_norm = grouped_xyz - new_xyz.view(B, S, 1, C)
    if points is not None:
        grouped_points = index_points(points, idx)
        new_points = ops.cat([grouped_xyz_norm, grouped_points], axis=-1)
    else:
        new_points = grouped_xyz_norm
    if returnfps:
        return new_xyz, new_points, grouped_xyz, fps_idx
    else:
        return new_xyz, new_points


def sample_and_group_all(xyz, points):
    B, N, C = xyz.shape
    new_xyz = ops.zeros((B, 1, C), xyz.dtype)
    grouped_xyz = xyz.view(B, 1, N, C)
    if points is not None:
        new_points = ops.cat([grouped_xyz, points.view(B, 1, N, -1)], axis=-1)
    else:
        new_points = grouped_xyz
    return new_xyz, new_points


class PointNetSetAbstraction(nn.Cell):
    def __init__(self, cfg):
        super().__init__()
        self.cfg = cfg
        self.mlp_convs = nn.CellList()
        self.mlp_bns = nn.CellList()
        last_channel = cfg.in_channel
        for out_channel in cfg.mlp:
            self.mlp_convs.append(nn.Conv2d(last_channel, out_channel, 1, has_bias=True))
            self.mlp_bns.append(nn.BatchNorm2d(out_channel))
            last_channel = out_channel

    def construct(self, xyz, points, start=None):
        xyz = xyz.permute(0, 2, 1)
        if points is not None:
            points = points.permute(0, 2, 1)
        if self.cfg.group_all:
            new_xyz, new_points = sample_and_group_all(xyz, points)
        else:
            new_xyz, new_points = sample_and_group(self.cfg.npoint, self.cfg.radius, self.cfg.nsample,
                                                   xyz, points, start=start)
        new_points = new_points.permute(0, 3, 2, 1)  # [B, C+D, nsample, npoint]
        for i, conv in enumerate(self.mlp_convs):
            bn = self.mlp_bns[i]
            new_points = ops.relu(bn(conv(new_points)))
        new_points = ops.amax(new_points, 2)
        new_xyz = new_xyz.permute(0, 2, 1)
        return new_xyz, new_points


class PointNetFeaturePropagation(nn.Cell):
    def __init__(self, in_channel, mlp):
        super().__init__()
        self.mlp_convs = nn.CellList()
        self.mlp_bns = nn.CellList()
        last_channel = in_channel
        for out_channel in mlp:
            self.mlp_convs.append(nn.Conv1d(last_channel, out_channel, 1, has_bias=True))
            self.mlp_bns.append(nn.BatchNorm1d(out_channel))
            last_channel = out_channel

    def construct(self, xyz1, xyz2, points1, points2):
        xyz1 = xyz1.permute(0, 2, 1)
        xyz2 = xyz2.permute(0, 2, 1)
        points2 = points2.permute(0, 2, 1)
        B, N, C = xyz1.shape
        _, S, _ = xyz2.shape
        if S == 1:
            interpolated_points = points2.tile((1, N, 1))
        else:
            dists = square_distance(xyz1, xyz2)
            dists, idx = dists.sort(axis=-1)
            dists, idx = dists[:, :, :3], idx[:, :, :3]  # [B, N, 3]
            dist_recip = 1.0 / (dists + 1e-8)
            norm = ops.sum(dist_recip, dim=2, keepdim=True)
            weight = dist_recip / norm
            interpolated_points = ops.sum(index_points(points2, idx) * weight.view(B, N, 3, 1), dim=2)
        if points1 is not None:
            points1 = points1.permute(0, 2, 1)
            new_points = ops.cat([points1, interpolated_points], axis=-1)
        else:
            new_points = interpolated_points
        new_points = new_points.permute(0, 2, 1)
        for i, conv in enumerate(self.mlp_convs):
            bn = self.mlp_bns[i]
            new_points = ops.relu(bn(conv(new_points)))
        return new_points


class PointNet2ClsSSG(nn.Cell):
    def __init__(self, num_class, normal_channel=False, npoints=(16, 8), nsample=8, width=8):
        super().__init__()
        in_channel = 6 if normal_channel else 3
        self.normal_channel = normal_channel
        w = width
        self.sa1 = PointNetSetAbstraction(SAConfig(npoints[0], 0.4, nsample, in_channel, [w, w, 2 * w]))
        self.sa2 = PointNetSetAbstraction(SAConfig(npoints[1], 0.8, nsample, 2 * w + 3, [2 * w, 2 * w, 4 * w]))
        self.sa3 = PointNetSetAbstraction(SAConfig(None, None, None, 4 * w + 3, [4 * w, 8 * w], group_all=True))
        self.fc1 = nn.Dense(8 * w, 4 * w)
        self.bn1 = nn.BatchNorm1d(4 * w)
        self.drop1 = nn.Dropout(p=0.4)
        self.fc2 = nn.Dense(4 * w, 2 * w)
        self.bn2 = nn.BatchNorm1d(2 * w)
        self.drop2 = nn.Dropout(p=0.4)
        self.fc3 = nn.Dense(2 * w, num_class)

    def construct(self, xyz, starts=(None, None)):
        B, _, _ = xyz.shape
        if self.normal_channel:
            norm = xyz[:, 3:, :]
            xyz = xyz[:, :3, :]
        else:
            norm = None
        l1_xyz, l1_points = self.sa1(xyz, norm, starts[0])
        l2_xyz, l2_points = self.sa2(l1_xyz, l1_points, starts[1])
        l3_xyz, l3_points = self.sa3(l2_xyz, l2_points)
        x = l3_points.view(B, -1)
        x = self.drop1(ops.relu(self.bn1(self.fc1(x))))
        x = self.drop2(ops.relu(self.bn2(self.fc2(x))))
        x = self.fc3(x)
        x = ops.log_softmax(x, -1)
        return x, l3_points


def to_categorical(y, num_classes):
    """1-hot encodes a tensor (graph ops)"""
    return ops.one_hot(y, num_classes, Tensor(1.0, ms.float32), Tensor(0.0, ms.float32))


class PointNet2PartSegSSG(nn.Cell):
    def __init__(self, num_parts, num_categories, npoints=(16, 8), nsample=8, width=8):
        super().__init__()
        w = width
        self.num_categories = num_categories
        self.sa1 = PointNetSetAbstraction(SAConfig(npoints[0], 0.4, nsample, 6, [w, w, 2 * w]))
        self.sa2 = PointNetSetAbstraction(SAConfig(npoints[1], 0.8, nsample, 2 * w + 3, [2 * w, 4 * w]))
        self.sa3 = PointNetSetAbstraction(SAConfig(None, None, None, 4 * w + 3, [4 * w, 8 * w], group_all=True))
        self.fp3 = PointNetFeaturePropagation(12 * w, [4 * w, 4 * w])
        self.fp2 = PointNetFeaturePropagation(6 * w, [4 * w, 2 * w])
        self.fp1 = PointNetFeaturePropagation(2 * w + num_categories + 6, [2 * w, 2 * w])
        self.conv1 = nn.Conv1d(2 * w, 2 * w, 1, has_bias=True)
        self.bn1 = nn.BatchNorm1d(2 * w)
        self.drop1 = nn.Dropout(p=0.5)
        self.conv2 = nn.Conv1d(2 * w, num_parts, 1, has_bias=True)

    def construct(self, xyz, cls_label, starts=(None, None)):
        B, C, N = xyz.shape
        l0_points = xyz
        l0_xyz = xyz
        l1_xyz, l1_points = self.sa1(l0_xyz, l0_points, starts[0])
        l2_xyz, l2_points = self.sa2(l1_xyz, l1_points, starts[1])
        l3_xyz, l3_points = self.sa3(l2_xyz, l2_points)
        l2_points = self.fp3(l2_xyz, l3_xyz, l2_points, l3_points)
        l1_points = self.fp2(l1_xyz, l2_xyz, l1_points, l2_points)
        cls_label_one_hot = cls_label.view(B, self.num_categories, 1).tile((1, 1, N))
        l0_points = self.fp1(l0_xyz, l1_xyz, ops.cat([cls_label_one_hot, l0_xyz, l0_points], 1), l1_points)
        feat = ops.relu(self.bn1(self.conv1(l0_points)))
        x = self.drop1(feat)
        x = self.conv2(x)
        x = ops.log_softmax(x, axis=1)
        x = x.permute(0, 2, 1)
        return x, l3_points


class ClsPredictor(nn.Cell):
    """test_classification.py: pc_normalize + vote pool over several FPS draws."""

    def __init__(self, model, num_class, num_votes=2):
        super().__init__()
        self.model = model
        self.num_class = num_class
        self.num_votes = num_votes

    def construct(self, points, starts):
        # points [B, N, 3] as loaded; pc_normalize per cloud
        centroid = points.mean(axis=1, keep_dims=True)
        points = points - centroid
        m = ops.amax(ops.sqrt(ops.sum(points ** 2, -1)), -1)
        points = points / m.view(-1, 1, 1)
        points = points.transpose(0, 2, 1)
        vote_pool = ops.zeros((points.shape[0], self.num_class), ms.float32)
        for v in range(self.num_votes):
            pred, _ = self.model(points, (starts[v][0], starts[v][1]))
            vote_pool += pred
        pred = vote_pool / self.num_votes
        pred_choice = pred.argmax(1)
        return pred_choice, pred


SEG_CLASSES = {'Airplane': [0, 1, 2], 'Bag': [3, 4], 'Cap': [5, 6]}


class PartSegPredictor(nn.Cell):
    """test_partseg.py: per-shape argmax restricted to the parts of the shape's category."""

    def __init__(self, model, seg_classes):
        super().__init__()
        self.model = model
        self.seg_classes = seg_classes
        self.cat_names = list(seg_classes.keys())
        self.num_categories = len(seg_classes)
        num_parts = max(max(v) for v in seg_classes.values()) + 1
        pm = np.zeros((self.num_categories, num_parts), dtype=bool)
        for c, name in enumerate(self.cat_names):
            pm[c, seg_classes[name]] = True
        self.part_mask = Tensor(pm)

    def construct(self, points, label, starts):
        B, N, _ = points.shape
        points = points.transpose(0, 2, 1)
        seg_pred, _ = self.model(points, to_categorical(label, self.num_categories), starts)
        cur_pred_val = ops.zeros((B, N), ms.int64)
        for i in range(B):
            logits = seg_pred[i, :, :]
            allowed = self.part_mask[label[i]]
            cur_pred_val[i, :] = ops.where(allowed.view(1, -1), logits, -1e9).argmax(1)
        return cur_pred_val


def make_inputs(B=2, N=64, seed=0):
    rs = np.random.RandomState(seed)
    pts = rs.rand(B, N, 3).astype(np.float32) * 2.0 + 1.0
    label = np.array([2, 0], dtype=np.int64)[:B]
    return Tensor(pts), Tensor(label)


def build(seed=0):
    ms.set_seed(seed)
    cls_model = PointNet2ClsSSG(num_class=5)
    seg_model = PointNet2PartSegSSG(num_parts=7, num_categories=len(SEG_CLASSES))
    cls = ClsPredictor(cls_model, num_class=5)
    seg = PartSegPredictor(seg_model, SEG_CLASSES)
    cls.set_train(False)
    seg.set_train(False)
    return cls, seg


def draw_fps_starts(B, sizes, num_votes=1):
    """Random FPS start points, drawn in PYNATIVE in the order pointnet2.py draws them inside the model."""
    return [[ops.randint(0, n, (B,), dtype=ms.int64) for n in sizes] for _ in range(num_votes)]


def predict_cls(cls, points, seed=1):
    ms.set_seed(seed)
    starts = draw_fps_starts(points.shape[0], (points.shape[1], cls.model.sa1.cfg.npoint), cls.num_votes)
    pred, log_prob = cls(points, starts)
    return {"pred": pred, "log_prob": log_prob}


def predict_seg(seg, points, label, seed=1):
    ms.set_seed(seed)
    starts = draw_fps_starts(points.shape[0], (points.shape[1], seg.model.sa1.cfg.npoint))[0]
    return seg(points, label, starts)


if __name__ == "__main__":
    import sys
    mode = sys.argv[1] if len(sys.argv) > 1 else "--lax"
    if mode == "--pynative":
        ms.set_context(mode=ms.PYNATIVE_MODE)
    else:
        ms.set_context(mode=ms.GRAPH_MODE, jit_syntax_level=ms.STRICT if mode == "--strict" else ms.LAX)
    cls, seg = build(0)
    pts, label = make_inputs()
    out = predict_cls(cls, pts.copy())
    print("cls pred", out["pred"], "log_prob", out["log_prob"])
    print("seg pred", predict_seg(seg, pts, label))
