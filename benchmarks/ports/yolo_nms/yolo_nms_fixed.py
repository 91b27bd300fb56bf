"""Reference fix (compiles at LAX and STRICT). Tiny YOLOv3-style detector with post-processing, ported from PyTorch to MindSpore 2.10.

Follows ultralytics/yolov3 (models.py YOLOLayer, utils/general.py xywh2xyxy, box_iou,
non_max_suppression) and eriklindernoren/PyTorch-YOLOv3, at toy size: 32x32 images,
2 detection scales (stride 8 and 16), 3 anchors per scale, 3 classes.
"""
import math

import numpy as np
import mindspore as ms
from mindspore import nn, ops, Tensor, Parameter

PADDED = True  # detections are padded to max_det; counts says how many are real

NC = 3  # number of classes
ANCHORS = [[(10, 13), (16, 30), (33, 23)],   # stride 8  (P3)
           [(30, 61), (62, 45), (59, 119)]]  # stride 16 (P4)
STRIDES = [8, 16]


# ----------------------------------------------------------------------------- utils.py
def xywh2xyxy(x):
    # Convert [..., 4] boxes from [x, y, w, h] to [x1, y1, x2, y2] (no in-place writes, any leading dims)
    xy, wh = x[..., :2], x[..., 2:4]
    return ops.cat((xy - wh / 2, xy + wh / 2), -1)


def box_area(box):
    # box = [..., 4]
    return (box[..., 2] - box[..., 0]) * (box[..., 3] - box[..., 1])


def box_iou(box1, box2):
    """Batched IoU: box1 (Tensor[B, N, 4]), box2 (Tensor[B, M, 4]) -> iou (Tensor[B, N, M])."""
    area1 = box_area(box1)
    area2 = box_area(box2)
    lt = ops.maximum(box1[:, :, None, :2], box2[:, None, :, :2])
    rb = ops.minimum(box1[:, :, None, 2:], box2[:, None, :, 2:])
    inter = (rb - lt).clamp(0).prod(-1)
    return inter / (area1[:, :, None] + area2[:, None, :] - inter)


def non_max_suppression(prediction, conf_thres=0.25, iou_thres=0.45, max_det=8, agnostic=False, max_nms=16):
    """Static-shape NMS: top-max_nms candidates per image, greedy suppression by a mask over a
    fixed number of steps. Returns padded detections (B, max_det, 6) [xyxy, conf, cls] and counts (B,)."""
    max_wh = 4096
    bs, nb = prediction.shape[0], prediction.shape[1]
    obj = prediction[..., 4:5]
    cls_conf = prediction[..., 5:] * obj                       # conf = obj_conf * cls_conf
    conf, j = ops.max(cls_conf, axis=-1, keepdims=True)        # best class
    box = xywh2xyxy(prediction[..., :4])
    valid = (obj[..., 0] > conf_thres) & (conf[..., 0] > conf_thres)
    score = ops.where(valid, conf[..., 0], ops.full_like(conf[..., 0], -1.0))
    k = min(max_nms, nb)
    top, idx = ops.topk(score, k)                              # sorted, (B, k)
    dets = ops.cat((box, conf, j.astype(ms.float32)), -1)      # (B, nb, 6)
    dets = ops.gather_elements(dets, 1, idx[..., None].broadcast_to((bs, k, 6)))
    keep = top > conf_thres
    off = dets[..., 5:6] * (0 if agnostic else max_wh)
    iou = box_iou(dets[..., :4] + off, dets[..., :4] + off)    # (B, k, k)
    ar = ops.arange(k)
    for i in range(k):                                         # greedy, in score order
        sup = (iou[:, i] > iou_thres) & (ar > i)[None] & keep[:, i:i + 1]
        keep = keep & ~sup
    rank = keep.astype(ms.int32).cumsum(1) - 1
    keep = keep & (rank < max_det)
    pos = ops.where(keep, ar[None].broadcast_to((bs, k)), ar[None].broadcast_to((bs, k)) + k)
    order = ops.sort(pos.astype(ms.float32), axis=1)[1]
    dets = ops.gather_elements(dets, 1, order[..., None].broadcast_to((bs, k, 6)))
    kept = ops.gather_elements(keep, 1, order)
    dets = ops.where(kept[..., None], dets, ops.zeros_like(dets))[:, :max_det]
    counts = keep.astype(ms.int32).sum(1)
    return dets, counts


# ----------------------------------------------------------------------------- models.py
class ConvBN(nn.Cell):
    def __init__(self, c1, c2, k=3, s=1):
        super().__init__()
        self.conv = nn.Conv2d(c1, c2, k, s, pad_mode='pad', padding=k // 2, has_bias=False)
        self.bn = nn.BatchNorm2d(c2, momentum=0.97, eps=1e-3)
        self.act = nn.LeakyReLU(0.1)

    def construct(self, x):
        return self.act(self.bn(self.conv(x)))


class YOLOLayer(nn.Cell):
    def __init__(self, anchors, nc, stride):
        super().__init__()
        self.anchors = Tensor(anchors, ms.float32)
        self.stride = stride  # layer stride
        self.na = len(anchors)  # number of anchors (3)
        self.nc = nc  # number of classes (80)
        self.no = nc + 5  # number of outputs (85)
        self.nx, self.ny, self.ng = 0, 0, 0  # initialize number of x, y gridpoints
        self.anchor_vec = self.anchors / self.stride
        self.anchor_wh = self.anchor_vec.view(1, self.na, 1, 1, 2)
        self.grid = None

    def create_grids(self, ng=(13, 13)):
        nx, ny = ng  # x and y grid size
        yv, xv = ops.meshgrid(ops.arange(ny), ops.arange(nx), indexing='ij')
        return ops.stack((xv, yv), 2).view((1, 1, ny, nx, 2)).float()

    def construct(self, p):
        bs, _, ny, nx = p.shape  # bs, 255, 13, 13
        grid = self.create_grids((nx, ny))
        p = p.view(bs, self.na, self.no, ny, nx).permute(0, 1, 3, 4, 2)
        if self.training:
            return p
        xy = (ops.sigmoid(p[..., :2]) + grid) * self.stride
        wh = ops.exp(p[..., 2:4]) * self.anchor_wh * self.stride
        io = ops.cat((xy, wh, ops.sigmoid(p[..., 4:])), -1)
        return io.view(bs, -1, self.no), p


class TinyDarknet(nn.Cell):
    """Backbone + 2 heads (yolov3-tiny layout, shrunk)."""

    def __init__(self, nc=NC, anchors=ANCHORS, strides=STRIDES):
        super().__init__()
        na = len(anchors[0])
        self.stem = nn.SequentialCell([ConvBN(3, 8, 3, 2), ConvBN(8, 16, 3, 2)])       # /4
        self.stage3 = ConvBN(16, 32, 3, 2)                                            # /8
        self.stage4 = ConvBN(32, 64, 3, 2)                                            # /16
        self.lateral = ConvBN(64, 32, 1, 1)
        self.heads = nn.CellList([nn.Conv2d(32 + 32, na * (nc + 5), 1, has_bias=True),
                                  nn.Conv2d(64, na * (nc + 5), 1, has_bias=True)])
        self.yolo_layers = nn.CellList([YOLOLayer(a, nc, s) for a, s in zip(anchors, strides)])
        self.nc = nc

    def construct(self, x):
        x = self.stem(x)
        p3 = self.stage3(x)
        p4 = self.stage4(p3)
        up = ops.interpolate(self.lateral(p4), size=p3.shape[-2:], mode='nearest')
        feats = [ops.cat([p3, up], axis=1), p4]
        yolo_out = []
        for i, yolo in enumerate(self.yolo_layers):
            yolo_out.append(yolo(self.heads[i](feats[i])))
        if self.training:  # train
            return yolo_out
        return ops.cat([o[0] for o in yolo_out], 1), [o[1] for o in yolo_out]


class Detector(nn.Cell):
    """model + NMS: what gets wrapped for serving (GRAPH_MODE)."""

    def __init__(self, model, conf_thres=0.25, iou_thres=0.45, max_det=8):
        super().__init__()
        self.model = model
        self.conf_thres = conf_thres
        self.iou_thres = iou_thres
        self.max_det = max_det
        self.n_calls = Parameter(Tensor(0, ms.int32), name="n_calls", requires_grad=False)

    def construct(self, imgs):
        self.n_calls += 1
        pred = self.model(imgs)[0]
        dets, counts = non_max_suppression(pred, self.conf_thres, self.iou_thres, max_det=self.max_det)
        best = ops.where(counts > 0, dets[:, 0, 4], ops.zeros_like(dets[:, 0, 4]))
        return dets, counts, best, pred  # padded (B, max_det, 6) detections


def main():
    ms.set_seed(0)
    np.random.seed(0)
    model = TinyDarknet()
    model.set_train(False)
    det = Detector(model, conf_thres=0.25, iou_thres=0.3, max_det=8)
    imgs = Tensor(np.random.rand(2, 3, 32, 32).astype(np.float32))
    out = det(imgs)
    dets, counts, best, raw = out
    print("raw pred:", raw.shape, float(raw.sum()))
    print("counts:", counts, "best:", best)
    for k, d in enumerate(dets):
        print("image", k)
        print(np.round(d.asnumpy()[:int(counts[k])], 4))
    print("n_calls:", det.n_calls)
    return out


if __name__ == "__main__":
    main()
