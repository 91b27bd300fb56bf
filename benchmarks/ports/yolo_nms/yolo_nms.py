"""Tiny YOLOv3-style detector with post-processing, ported from PyTorch to MindSpore 2.10.

Follows ultralytics/yolov3 (models.py YOLOLayer, utils/general.py xywh2xyxy, box_iou,
non_max_suppression) and eriklindernoren/PyTorch-YOLOv3, at toy size: 32x32 images,
2 detection scales (stride 8 and 16), 3 anchors per scale, 3 classes.
"""
import math

import numpy as np
import mindspore as ms
from mindspore import nn, ops, Tensor

NC = 3  # number of classes
ANCHORS = [[(10, 13), (16, 30), (33, 23)],   # stride 8  (P3)
           [(30, 61), (62, 45), (59, 119)]]  # stride 16 (P4)
STRIDES = [8, 16]


# ----------------------------------------------------------------------------- utils.py
def xywh2xyxy(x):
    # Convert nx4 boxes from [x, y, w, h] to [x1, y1, x2, y2] where xy1=top-left, xy2=bottom-right
    y = x.copy() if isinstance(x, Tensor) else np.copy(x)
    y[:, 0] = x[:, 0] - x[:, 2] / 2  # top left x
    y[:, 1] = x[:, 1] - x[:, 3] / 2  # top left y
    y[:, 2] = x[:, 0] + x[:, 2] / 2  # bottom right x
    y[:, 3] = x[:, 1] + x[:, 3] / 2  # bottom right y
    return y


def box_area(box):
    # box = 4xn
    return (box[2] - box[0]) * (box[3] - box[1])


def box_iou(box1, box2):
    """Return intersection-over-union (Jaccard index) of boxes.
    box1 (Tensor[N, 4]), box2 (Tensor[M, 4]) -> iou (Tensor[N, M])."""
    area1 = box_area(box1.T)
    area2 = box_area(box2.T)
    # inter(N,M) = (rb(N,M,2) - lt(N,M,2)).clamp(0).prod(2)
    lt = ops.maximum(box1[:, None, :2], box2[:, :2])
    rb = ops.minimum(box1[:, None, 2:], box2[:, 2:])
    inter = (rb - lt).clamp(0).prod(2)
    return inter / (area1[:, None] + area2 - inter)


def nms(boxes, scores, iou_threshold):
    """Greedy NMS as torchvision.ops.nms: indices of kept boxes, sorted by decreasing score."""
    order = scores.argsort(descending=True)
    keep = []
    while order.numel() > 0:
        i = order[0]
        keep.append(i)
        if order.numel() == 1:
            break
        ious = box_iou(boxes[i:i + 1], boxes[order[1:]])[0]
        order = order[1:][ious <= iou_threshold]
    return ops.stack(keep)


def non_max_suppression(prediction, conf_thres=0.25, iou_thres=0.45, max_det=8, agnostic=False):
    """Runs Non-Maximum Suppression (NMS) on inference results.
    Returns: list of detections, on (n,6) tensor per image [xyxy, conf, cls]"""
    max_wh = 4096  # (pixels) maximum box width and height, class offset
    max_nms = 16  # maximum number of boxes into nms()
    output = [ops.zeros((0, 6), ms.float32)] * prediction.shape[0]
    for xi, x in enumerate(prediction):  # image index, image inference
        x = x[x[:, 4] > conf_thres]  # confidence
        # If none remain process next image
        if not x.shape[0]:
            continue
        # Compute conf
        x[:, 5:] *= x[:, 4:5]  # conf = obj_conf * cls_conf
        # Box (center x, center y, width, height) to (x1, y1, x2, y2)
        box = xywh2xyxy(x[:, :4])
        # Detections matrix nx6 (xyxy, conf, cls), best class only
        conf, j = x[:, 5:].max(1, keepdim=True)
        x = ops.cat((box, conf, j.float()), 1)[conf.view(-1) > conf_thres]
        # Check shape
        n = x.shape[0]  # number of boxes
        if not n:  # no boxes
            continue
        elif n > max_nms:  # excess boxes
            x = x[x[:, 4].argsort(descending=True)[:max_nms]]  # sort by confidence
        # Batched NMS
        c = x[:, 5:6] * (0 if agnostic else max_wh)  # classes
        boxes, scores = x[:, :4] + c, x[:, 4]  # boxes (offset by class), scores
        i = nms(boxes, scores, iou_thres)
        if i.shape[0] > max_det:  # limit detections
            i = i[:max_det]
        output[xi] = x[i]
    return output


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
        self.nx, self.ny = ng  # x and y grid size
        self.ng = Tensor(ng, ms.float32)
        # build xy offsets
        yv, xv = ops.meshgrid(ops.arange(self.ny), ops.arange(self.nx), indexing='ij')
        self.grid = ops.stack((xv, yv), 2).view((1, 1, self.ny, self.nx, 2)).float()

    def construct(self, p):
        bs, _, ny, nx = p.shape  # bs, 255, 13, 13
        if (self.nx, self.ny) != (nx, ny):
            self.create_grids((nx, ny))

        # p.view(bs, 255, 13, 13) -- > (bs, 3, 13, 13, 85)  # (bs, anchors, grid, grid, classes + xywh)
        p = p.view(bs, self.na, self.no, self.ny, self.nx).permute(0, 1, 3, 4, 2)

        if self.training:
            return p
        # inference
        io = p.copy()  # inference output
        io[..., :2] = ops.sigmoid(io[..., :2]) + self.grid  # xy
        io[..., 2:4] = ops.exp(io[..., 2:4]) * self.anchor_wh  # wh yolo method
        io[..., :4] *= self.stride
        io[..., 4:] = ops.sigmoid(io[..., 4:])
        return io.view(bs, -1, self.no), p  # view [1, 3, 13, 13, 85] as [1, 507, 85]


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
        io, p = zip(*yolo_out)  # inference output, training output
        return ops.cat(io, 1), p


class Detector(nn.Cell):
    """model + NMS: what gets wrapped for serving (GRAPH_MODE)."""

    def __init__(self, model, conf_thres=0.25, iou_thres=0.45, max_det=8):
        super().__init__()
        self.model = model
        self.conf_thres = conf_thres
        self.iou_thres = iou_thres
        self.max_det = max_det
        self.n_calls = 0

    def construct(self, imgs):
        self.n_calls += 1
        pred = self.model(imgs)[0]
        dets = non_max_suppression(pred, self.conf_thres, self.iou_thres, max_det=self.max_det)
        counts = [d.shape[0] for d in dets]
        best = [d[0, 4].item() if len(d) else 0.0 for d in dets]
        return {"detections": dets, "counts": counts, "best_score": best, "raw": pred}


def main():
    ms.set_seed(0)
    np.random.seed(0)
    model = TinyDarknet()
    model.set_train(False)
    det = Detector(model, conf_thres=0.25, iou_thres=0.3, max_det=8)
    imgs = Tensor(np.random.rand(2, 3, 32, 32).astype(np.float32))
    out = det(imgs)
    print("raw pred:", out["raw"].shape, float(out["raw"].sum()))
    print("counts:", out["counts"], "best:", [round(b, 5) for b in out["best_score"]])
    for k, d in enumerate(out["detections"]):
        print("image", k, d.shape)
        print(np.round(d.asnumpy(), 4))
    print("n_calls:", det.n_calls, "grid sizes:", [(l.nx, l.ny) for l in model.yolo_layers])
    return out


if __name__ == "__main__":
    main()
