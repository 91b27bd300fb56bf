"""MONAI-style 2-D U-Net + soft Dice loss + sliding-window inference, ported from PyTorch
(milesial/Pytorch-UNet `UNet`/`DoubleConv`/`Down`/`Up`, MONAI `DiceLoss` and
`sliding_window_inference`) to MindSpore 2.10, keeping PyTorch habits that PYNATIVE accepts."""
import math
import sys
from dataclasses import dataclass

import numpy as np
import mindspore as ms
from mindspore import nn, ops, mint, Tensor


class DoubleConv(nn.Cell):
    """(conv => BN => ReLU) * 2"""

    def __init__(self, in_channels, out_channels, mid_channels=None):
        super().__init__()
        if not mid_channels:
            mid_channels = out_channels
        self.double_conv = nn.SequentialCell(
            nn.Conv2d(in_channels, mid_channels, 3, pad_mode="pad", padding=1, has_bias=False),
            nn.BatchNorm2d(mid_channels),
            nn.ReLU(),
            nn.Conv2d(mid_channels, out_channels, 3, pad_mode="pad", padding=1, has_bias=False),
            nn.BatchNorm2d(out_channels),
            nn.ReLU(),
        )

    def construct(self, x):
        return self.double_conv(x)


class Down(nn.Cell):
    """Downscaling with maxpool then double conv"""

    def __init__(self, in_channels, out_channels):
        super().__init__()
        self.maxpool_conv = nn.SequentialCell(nn.MaxPool2d(2, 2), DoubleConv(in_channels, out_channels))

    def construct(self, x):
        return self.maxpool_conv(x)


class Up(nn.Cell):
    """Upscaling (bilinear) then double conv"""

    def __init__(self, in_channels, out_channels):
        super().__init__()
        self.conv = DoubleConv(in_channels, out_channels, in_channels // 2)

    def construct(self, x1, x2):
        h, w = x1.shape[2], x1.shape[3]
        x1 = ops.interpolate(x1, size=(h * 2, w * 2), mode="bilinear", align_corners=True)
        # input is CHW
        diffY = x2.shape[2] - x1.shape[2]
        diffX = x2.shape[3] - x1.shape[3]
        x1 = ops.pad(x1, [diffX // 2, diffX - diffX // 2, diffY // 2, diffY - diffY // 2])
        x = mint.cat([x2, x1], dim=1)
        return self.conv(x)


@dataclass
class SegOutput:
    logits: Tensor
    probs: Tensor
    labels: Tensor


class UNet(nn.Cell):
    def __init__(self, n_channels=1, n_classes=2, base=8, depth=3):
        super().__init__()
        self.n_channels = n_channels
        self.n_classes = n_classes
        self.inc = DoubleConv(n_channels, base)
        chans = [base * 2 ** i for i in range(depth + 1)]
        downs = []
        for i in range(depth):
            factor = 2 if i == depth - 1 else 1  # bilinear: last down halves its output
            downs.append(Down(chans[i], chans[i + 1] // factor))
        self.downs = nn.CellList(downs)
        ups = []
        for i in range(depth, 0, -1):
            factor = 1 if i == 1 else 2
            ups.append(Up(chans[i], chans[i - 1] // factor))
        self.ups = nn.CellList(ups)
        self.outc = nn.Conv2d(base, n_classes, 1, has_bias=True)
        self.last_shape = None

    def construct(self, x):
        assert x.ndim == 4, f"expected (B, C, H, W), got {x.shape}"
        self.last_shape = x.shape  # cache for debugging, like a torch user would
        x = self.inc(x)
        skips = [x]
        for down in self.downs:
            x = down(x)
            skips.append(x)
        skips.pop()
        for up in self.ups:
            x = up(x, skips.pop())
        return self.outc(x)

    def predict(self, x, roi_size=(32, 32), sw_batch_size=2, overlap=0.25):
        logits = sliding_window_inference(x, roi_size, sw_batch_size, self, overlap)
        probs = ops.softmax(logits, axis=1)
        labels = probs.argmax(dim=1)
        return SegOutput(logits=logits, probs=probs, labels=labels)


class DiceLoss(nn.Cell):
    """Soft Dice loss, MONAI-style (softmax, to_onehot_y, include_background, reduction)."""

    def __init__(self, include_background=True, softmax=True, smooth_nr=1e-5, smooth_dr=1e-5,
                 reduction="mean"):
        super().__init__()
        self.include_background = include_background
        self.softmax = softmax
        self.smooth_nr = float(smooth_nr)
        self.smooth_dr = float(smooth_dr)
        self.reduction = reduction

    def construct(self, input, target):
        n_pred_ch = input.shape[1]
        if self.softmax:
            input = ops.softmax(input, axis=1)
        if target.ndim == 4:
            target = target.squeeze(1)
        target = ops.one_hot(target.long(), n_pred_ch).permute(0, 3, 1, 2).float()
        if not self.include_background:
            if n_pred_ch == 1:
                print("single channel prediction, `include_background=False` ignored.", file=sys.stderr)
            else:
                target = target[:, 1:]
                input = input[:, 1:]
        if target.shape != input.shape:
            raise AssertionError(f"ground truth has different shape ({target.shape}) from input ({input.shape})")
        reduce_axis = list(range(2, len(input.shape)))
        intersection = mint.sum(target * input, dim=reduce_axis)
        ground_o = mint.sum(target, dim=reduce_axis)
        pred_o = mint.sum(input, dim=reduce_axis)
        denominator = ground_o + pred_o
        f = 1.0 - (2.0 * intersection + self.smooth_nr) / (denominator + self.smooth_dr)
        if self.reduction == "mean":
            f = f.mean()
        elif self.reduction == "sum":
            f = f.sum()
        elif self.reduction == "none":
            pass
        else:
            raise ValueError(f'Unsupported reduction: {self.reduction}, available options are ["mean", "sum", "none"].')
        return f


def first(iterable, default=None):
    for i in iterable:
        return i
    return default


def _get_scan_interval(image_size, roi_size, num_spatial_dims, overlap):
    scan_interval = []
    for i in range(num_spatial_dims):
        if roi_size[i] == image_size[i]:
            scan_interval.append(int(roi_size[i]))
        else:
            interval = int(roi_size[i] * (1 - overlap))
            scan_interval.append(interval if interval > 0 else 1)
    return tuple(scan_interval)


def dense_patch_slices(image_size, patch_size, scan_interval):
    num_spatial_dims = len(image_size)
    scan_num = []
    for i in range(num_spatial_dims):
        if scan_interval[i] == 0:
            scan_num.append(1)
        else:
            num = int(math.ceil(float(image_size[i]) / scan_interval[i]))
            scan_dim = first(d for d in range(num) if d * scan_interval[i] + patch_size[i] >= image_size[i])
            scan_num.append(scan_dim + 1 if scan_dim is not None else 1)
    starts = []
    for dim in range(num_spatial_dims):
        dim_starts = []
        for idx in range(scan_num[dim]):
            start_idx = idx * scan_interval[dim]
            start_idx -= max(start_idx + patch_size[dim] - image_size[dim], 0)
            dim_starts.append(start_idx)
        starts.append(dim_starts)
    out = np.asarray([x.flatten() for x in np.meshgrid(*starts, indexing="ij")]).T
    return [tuple(slice(int(s), int(s) + patch_size[d]) for d, s in enumerate(x)) for x in out]


def sliding_window_inference(inputs, roi_size, sw_batch_size, predictor, overlap=0.25):
    num_spatial_dims = len(inputs.shape) - 2
    if overlap < 0 or overlap >= 1:
        raise ValueError("overlap must be >= 0 and < 1.")
    batch_size, _, *image_size_ = inputs.shape
    image_size = tuple(max(image_size_[i], roi_size[i]) for i in range(num_spatial_dims))
    # pad the image so that it is at least roi_size (torch F.pad order: last dim first)
    pad_size = []
    for k in range(len(inputs.shape) - 1, 1, -1):
        diff = max(roi_size[k - 2] - inputs.shape[k], 0)
        half = diff // 2
        pad_size.extend([half, diff - half])
    inputs = ops.pad(inputs, pad_size, mode="constant", value=0.0)

    scan_interval = _get_scan_interval(image_size, roi_size, num_spatial_dims, overlap)
    slices = dense_patch_slices(image_size, roi_size, scan_interval)
    num_win = len(slices)
    total_slices = num_win * batch_size

    output_image, count_map = None, None
    for slice_g in range(0, total_slices, sw_batch_size):
        slice_range = range(slice_g, min(slice_g + sw_batch_size, total_slices))
        unravel_slice = [
            [slice(int(idx / num_win), int(idx / num_win) + 1), slice(None)] + list(slices[idx % num_win])
            for idx in slice_range
        ]
        window_data = mint.cat([inputs[tuple(win_slice)] for win_slice in unravel_slice], dim=0)
        seg_prob = predictor(window_data)
        if output_image is None:  # allocate lazily once the output channel count is known
            output_shape = [batch_size, seg_prob.shape[1]] + list(image_size)
            output_image = ops.zeros(tuple(output_shape), inputs.dtype)
            count_map = ops.zeros(tuple(output_shape), inputs.dtype)
        for idx, original_idx in zip(slice_range, unravel_slice):
            output_image[tuple(original_idx)] += seg_prob[idx - slice_g:idx - slice_g + 1]
            count_map[tuple(original_idx)] += 1.0
    output_image = output_image / count_map

    final_slicing = []
    for sp in range(num_spatial_dims):
        slice_dim = slice(pad_size[sp * 2], image_size_[num_spatial_dims - sp - 1] + pad_size[sp * 2])
        final_slicing.insert(0, slice_dim)
    while len(final_slicing) < len(output_image.shape):
        final_slicing.insert(0, slice(None))
    return output_image[tuple(final_slicing)]


def dice_metric(pred_labels, target, n_classes, include_background=True):
    """Per-class hard Dice from argmax labels, as Python floats (MONAI DiceMetric-like)."""
    scores = {}
    start = 0 if include_background else 1
    for c in range(start, n_classes):
        p = (pred_labels == c).float()
        t = (target == c).float()
        inter = (p * t).sum().item()
        denom = p.sum().item() + t.sum().item()
        scores[f"dice_{c}"] = float(2.0 * inter / denom) if denom > 0 else float("nan")
    scores["mean_dice"] = float(np.nanmean([v for v in scores.values()]))
    return scores


def make_inputs(seed, b=2, h=40, w=36, n_classes=2):
    rng = np.random.RandomState(seed)
    img = Tensor(rng.randn(b, 1, h, w).astype(np.float32))
    lab = Tensor(rng.randint(0, n_classes, size=(b, h, w)).astype(np.int64))
    return img, lab


def build(seed=0):
    ms.set_seed(seed)
    np.random.seed(seed)
    model = UNet(n_channels=1, n_classes=2, base=8, depth=3)
    model.set_train(False)
    return model


if __name__ == "__main__":
    ms.set_context(mode=ms.PYNATIVE_MODE)
    model = build(0)
    img, lab = make_inputs(1)
    logits = model(img)
    print("forward", logits.shape, float(logits.sum()))
    loss_fn = DiceLoss(include_background=False, reduction="mean")
    print("dice loss", float(loss_fn(logits, lab)))
    print("dice loss none", DiceLoss(reduction="none")(logits, lab).shape)
    out = model.predict(img, roi_size=(32, 32), sw_batch_size=2, overlap=0.25)
    print("sw logits", out.logits.shape, float(out.logits.sum()))
    print("labels", out.labels.shape, out.labels.dtype, int(out.labels.sum()))
    print("metrics", dice_metric(out.labels, lab, 2))
