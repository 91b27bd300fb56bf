"""RAFT-small optical flow (princeton-vl/RAFT), ported from PyTorch to MindSpore 2.10 -- reference FIX.

Compiles at GRAPH_MODE LAX and STRICT with the PYNATIVE outputs of raft.py. Fixes (see LABELS.md):
#1 flow_up read after the loop -> flow_predictions[-1]; #2 batch_dim defined before `if is_list`;
#3 CorrBlock plain class -> functions build_corr_pyramid / corr_lookup (pyramid is a local list);
#4 fmap1.transpose(1, 2) -> fmap1.swapaxes(1, 2); #5 f-string print of .item() -> print(str, tensor);
#6 dict output -> tuple.

Tiny dimensions so it runs in seconds on CPU: images 2x3x32x32, feature dim 32,
hidden 24 / context 16, corr_levels 2, corr_radius 2, iters 3.
"""
import argparse

import numpy as np
import mindspore as ms
from mindspore import nn, ops, Tensor


# ----------------------------------------------------------------- utils/utils.py
class InputPadder:
    """ Pads images such that dimensions are divisible by 8 """
    def __init__(self, dims, mode='sintel'):
        self.ht, self.wd = dims[-2:]
        pad_ht = (((self.ht // 8) + 1) * 8 - self.ht) % 8
        pad_wd = (((self.wd // 8) + 1) * 8 - self.wd) % 8
        if mode == 'sintel':
            self._pad = [pad_wd // 2, pad_wd - pad_wd // 2, pad_ht // 2, pad_ht - pad_ht // 2]
        else:
            self._pad = [pad_wd // 2, pad_wd - pad_wd // 2, 0, pad_ht]

    def pad(self, *inputs):
        return [ops.pad(x, self._pad, mode='replicate') for x in inputs]

    def unpad(self, x):
        ht, wd = x.shape[-2:]
        c = [self._pad[2], ht - self._pad[3], self._pad[0], wd - self._pad[1]]
        return x[..., c[0]:c[1], c[2]:c[3]]


def bilinear_sampler(img, coords, mode='bilinear', mask=False):
    """ Wrapper for grid_sample, uses pixel coordinates """
    H, W = img.shape[-2:]
    xgrid, ygrid = coords.split([1, 1], dim=-1)
    xgrid = 2 * xgrid / (W - 1) - 1
    ygrid = 2 * ygrid / (H - 1) - 1

    grid = ops.cat([xgrid, ygrid], axis=-1)
    img = ops.grid_sample(img, grid, mode=mode, align_corners=True)

    if mask:
        mask = (xgrid > -1) & (ygrid > -1) & (xgrid < 1) & (ygrid < 1)
        return img, mask.float()
    return img


def coords_grid(batch, ht, wd):
    coords = ops.meshgrid(ops.arange(ht), ops.arange(wd), indexing='ij')
    coords = ops.stack(coords[::-1], axis=0).float()
    return coords[None].tile((batch, 1, 1, 1))


def upflow8(flow, mode='bilinear'):
    new_size = (8 * flow.shape[2], 8 * flow.shape[3])
    return 8 * ops.interpolate(flow, size=new_size, mode=mode, align_corners=True)


# ----------------------------------------------------------------- corr.py
# FIX #3: the CorrBlock class became three functions
def corr_volume(fmap1, fmap2):
    batch, dim, ht, wd = fmap1.shape
    fmap1 = fmap1.view(batch, dim, ht * wd)
    fmap2 = fmap2.view(batch, dim, ht * wd)
    corr = ops.matmul(fmap1.swapaxes(1, 2), fmap2)   # FIX #4
    corr = corr.view(batch, ht, wd, 1, ht, wd)
    return corr / ops.sqrt(Tensor(dim).float())


def build_corr_pyramid(fmap1, fmap2, num_levels):
    corr = corr_volume(fmap1, fmap2)
    batch, h1, w1, dim, h2, w2 = corr.shape
    corr = corr.reshape(batch * h1 * w1, dim, h2, w2)
    pyramid = [corr]
    for i in range(num_levels - 1):
        corr = ops.avg_pool2d(corr, 2, stride=2)
        pyramid.append(corr)
    return pyramid


def corr_lookup(pyramid, coords, num_levels, r):
    coords = coords.permute(0, 2, 3, 1)
    batch, h1, w1, _ = coords.shape
    out_pyramid = []
    for i in range(num_levels):
        corr = pyramid[i]
        dx = ops.linspace(-r, r, 2 * r + 1)
        dy = ops.linspace(-r, r, 2 * r + 1)
        delta = ops.stack(ops.meshgrid(dy, dx, indexing='ij'), axis=-1)
        centroid_lvl = coords.reshape(batch * h1 * w1, 1, 1, 2) / 2 ** i
        delta_lvl = delta.view(1, 2 * r + 1, 2 * r + 1, 2)
        coords_lvl = centroid_lvl + delta_lvl
        corr = bilinear_sampler(corr, coords_lvl)
        corr = corr.view(batch, h1, w1, -1)
        out_pyramid.append(corr)
    out = ops.cat(out_pyramid, axis=-1)
    return out.permute(0, 3, 1, 2).contiguous().float()


# ----------------------------------------------------------------- extractor.py
def make_norm(norm_fn, planes):
    if norm_fn == 'instance':   # InstanceNorm2d has no CPU kernel: one group per channel
        return nn.GroupNorm(planes, planes)
    if norm_fn == 'group':
        return nn.GroupNorm(max(planes // 8, 1), planes)
    return nn.Identity()


class BottleneckBlock(nn.Cell):
    def __init__(self, in_planes, planes, norm_fn='group', stride=1):
        super().__init__()
        self.conv1 = nn.Conv2d(in_planes, planes // 4, 1, pad_mode='pad', padding=0, has_bias=True)
        self.conv2 = nn.Conv2d(planes // 4, planes // 4, 3, stride=stride, pad_mode='pad', padding=1, has_bias=True)
        self.conv3 = nn.Conv2d(planes // 4, planes, 1, pad_mode='pad', padding=0, has_bias=True)
        self.relu = nn.ReLU()
        self.norm1 = make_norm(norm_fn, planes // 4)
        self.norm2 = make_norm(norm_fn, planes // 4)
        self.norm3 = make_norm(norm_fn, planes)
        if stride == 1:
            self.downsample = None
        else:
            self.downsample = nn.SequentialCell(
                nn.Conv2d(in_planes, planes, 1, stride=stride, has_bias=True), make_norm(norm_fn, planes))

    def construct(self, x):
        y = self.relu(self.norm1(self.conv1(x)))
        y = self.relu(self.norm2(self.conv2(y)))
        y = self.relu(self.norm3(self.conv3(y)))
        if self.downsample is not None:
            x = self.downsample(x)
        return self.relu(x + y)


class SmallEncoder(nn.Cell):
    def __init__(self, output_dim=32, norm_fn='batch', dropout=0.0, dims=(8, 16, 24)):
        super().__init__()
        self.norm_fn = norm_fn
        self.norm1 = make_norm(norm_fn, dims[0])
        self.conv1 = nn.Conv2d(3, dims[0], kernel_size=7, stride=2, pad_mode='pad', padding=3, has_bias=True)
        self.relu1 = nn.ReLU()

        self.in_planes = dims[0]
        self.layer1 = self._make_layer(dims[0], stride=1)
        self.layer2 = self._make_layer(dims[1], stride=2)
        self.layer3 = self._make_layer(dims[2], stride=2)

        self.dropout = None
        if dropout > 0:
            self.dropout = nn.Dropout(p=dropout)
        self.conv2 = nn.Conv2d(dims[2], output_dim, kernel_size=1, has_bias=True)

    def _make_layer(self, dim, stride=1):
        layer1 = BottleneckBlock(self.in_planes, dim, self.norm_fn, stride=stride)
        layer2 = BottleneckBlock(dim, dim, self.norm_fn, stride=1)
        self.in_planes = dim
        return nn.SequentialCell(layer1, layer2)

    def construct(self, x):
        # if input is list, combine batch dimension
        is_list = isinstance(x, tuple) or isinstance(x, list)
        batch_dim = 0   # FIX #2
        if is_list:
            batch_dim = x[0].shape[0]
            x = ops.cat(x, axis=0)

        x = self.relu1(self.norm1(self.conv1(x)))
        x = self.layer1(x)
        x = self.layer2(x)
        x = self.layer3(x)
        x = self.conv2(x)

        if self.training and self.dropout is not None:
            x = self.dropout(x)

        if is_list:
            x = x.split([batch_dim, batch_dim], dim=0)
        return x


# ----------------------------------------------------------------- update.py
class FlowHead(nn.Cell):
    def __init__(self, input_dim=24, hidden_dim=32):
        super().__init__()
        self.conv1 = nn.Conv2d(input_dim, hidden_dim, 3, pad_mode='pad', padding=1, has_bias=True)
        self.conv2 = nn.Conv2d(hidden_dim, 2, 3, pad_mode='pad', padding=1, has_bias=True)
        self.relu = nn.ReLU()

    def construct(self, x):
        return self.conv2(self.relu(self.conv1(x)))


class ConvGRU(nn.Cell):
    def __init__(self, hidden_dim, input_dim):
        super().__init__()
        self.convz = nn.Conv2d(hidden_dim + input_dim, hidden_dim, 3, pad_mode='pad', padding=1, has_bias=True)
        self.convr = nn.Conv2d(hidden_dim + input_dim, hidden_dim, 3, pad_mode='pad', padding=1, has_bias=True)
        self.convq = nn.Conv2d(hidden_dim + input_dim, hidden_dim, 3, pad_mode='pad', padding=1, has_bias=True)

    def construct(self, h, x):
        hx = ops.cat([h, x], axis=1)
        z = ops.sigmoid(self.convz(hx))
        r = ops.sigmoid(self.convr(hx))
        q = ops.tanh(self.convq(ops.cat([r * h, x], axis=1)))
        h = (1 - z) * h + z * q
        return h


class SmallMotionEncoder(nn.Cell):
    def __init__(self, args):
        super().__init__()
        cor_planes = args.corr_levels * (2 * args.corr_radius + 1) ** 2
        self.convc1 = nn.Conv2d(cor_planes, 24, 1, has_bias=True)
        self.convf1 = nn.Conv2d(2, 16, 7, pad_mode='pad', padding=3, has_bias=True)
        self.convf2 = nn.Conv2d(16, 8, 3, pad_mode='pad', padding=1, has_bias=True)
        self.conv = nn.Conv2d(32, 18, 3, pad_mode='pad', padding=1, has_bias=True)

    def construct(self, flow, corr):
        cor = ops.relu(self.convc1(corr))
        flo = ops.relu(self.convf1(flow))
        flo = ops.relu(self.convf2(flo))
        cor_flo = ops.cat([cor, flo], axis=1)
        out = ops.relu(self.conv(cor_flo))
        return ops.cat([out, flow], axis=1)


class SmallUpdateBlock(nn.Cell):
    def __init__(self, args, hidden_dim=24):
        super().__init__()
        self.encoder = SmallMotionEncoder(args)
        self.gru = ConvGRU(hidden_dim=hidden_dim, input_dim=20 + args.context_dim)
        self.flow_head = FlowHead(hidden_dim, hidden_dim=32)

    def construct(self, net, inp, corr, flow):
        motion_features = self.encoder(flow, corr)
        inp = ops.cat([inp, motion_features], axis=1)
        net = self.gru(net, inp)
        delta_flow = self.flow_head(net)
        return net, None, delta_flow


# ----------------------------------------------------------------- raft.py
class RAFT(nn.Cell):
    def __init__(self, args):
        super().__init__()
        self.args = args
        self.hidden_dim = hdim = 24
        self.context_dim = cdim = 16
        args.context_dim = cdim
        args.corr_levels = 2
        args.corr_radius = 2
        if 'dropout' not in self.args:
            self.args.dropout = 0

        self.fnet = SmallEncoder(output_dim=32, norm_fn='instance', dropout=args.dropout)
        self.cnet = SmallEncoder(output_dim=hdim + cdim, norm_fn='none', dropout=args.dropout)
        self.update_block = SmallUpdateBlock(self.args, hidden_dim=hdim)

    def initialize_flow(self, img):
        """ Flow is represented as difference between two coordinate grids flow = coords1 - coords0"""
        N, C, H, W = img.shape
        coords0 = coords_grid(N, H // 8, W // 8)
        coords1 = coords_grid(N, H // 8, W // 8)
        return coords0, coords1

    def upsample_flow(self, flow, mask):
        """ Upsample flow field [H/8, W/8, 2] -> [H, W, 2] using convex combination """
        N, _, H, W = flow.shape
        mask = mask.view(N, 1, 9, 8, 8, H, W)
        mask = ops.softmax(mask, axis=2)

        up_flow = ops.unfold(8 * flow, [3, 3], padding=1)
        up_flow = up_flow.view(N, 2, 9, 1, 1, H, W)

        up_flow = ops.sum(mask * up_flow, dim=2)
        up_flow = up_flow.permute(0, 1, 4, 2, 5, 3)
        return up_flow.reshape(N, 2, 8 * H, 8 * W)

    def construct(self, image1, image2, iters=12, flow_init=None, upsample=True, test_mode=False):
        """ Estimate optical flow between pair of frames """
        image1 = 2 * (image1 / 255.0) - 1.0
        image2 = 2 * (image2 / 255.0) - 1.0
        image1 = image1.contiguous()
        image2 = image2.contiguous()

        hdim = self.hidden_dim
        cdim = self.context_dim

        # run the feature network
        fmap1, fmap2 = self.fnet([image1, image2])
        fmap1 = fmap1.float()
        fmap2 = fmap2.float()
        corr_pyramid = build_corr_pyramid(fmap1, fmap2, self.args.corr_levels)

        # run the context network
        cnet = self.cnet(image1)
        net, inp = ops.split(cnet, [hdim, cdim], axis=1)
        net = ops.tanh(net)
        inp = ops.relu(inp)

        coords0, coords1 = self.initialize_flow(image1)
        if flow_init is not None:
            coords1 = coords1 + flow_init

        flow_predictions = []
        for itr in range(iters):
            coords1 = ops.stop_gradient(coords1)   # coords1.detach()
            corr = corr_lookup(corr_pyramid, coords1, self.args.corr_levels, self.args.corr_radius)

            flow = coords1 - coords0
            net, up_mask, delta_flow = self.update_block(net, inp, corr, flow)

            # F(t+1) = F(t) + \Delta(t)
            coords1 = coords1 + delta_flow

            # upsample predictions
            if up_mask is None:
                flow_up = upflow8(coords1 - coords0)
            else:
                flow_up = self.upsample_flow(coords1 - coords0, up_mask)
            flow_predictions.append(flow_up)

        if test_mode:
            return coords1 - coords0, flow_predictions[-1]   # FIX #1
        return flow_predictions


class RAFTInference(nn.Cell):
    """ evaluate.py-style wrapper: pad, run in test mode, unpad, summarise """
    def __init__(self, model, iters=3):
        super().__init__()
        self.model = model
        self.iters = iters

    def construct(self, image1, image2, flow_init=None):
        padder = InputPadder(image1.shape)
        image1, image2 = padder.pad(image1, image2)
        flow_low, flow_pr = self.model(image1, image2, iters=self.iters, flow_init=flow_init, test_mode=True)
        flow = padder.unpad(flow_pr)
        mag = ops.sqrt(ops.sum(flow ** 2, dim=1))
        max_mag = mag.max()
        if max_mag > 400.0:   # evaluate.py drops flows that blew up
            print("warning: large flow", max_mag)   # FIX #5: no f-string / format spec on a graph value
        # FIX #6: a tuple instead of a dict (STRICT hands dicts back as tuples)
        return flow_low, flow, mag.mean(), max_mag


def make_inputs(seed=0):
    rng = np.random.RandomState(seed)
    image1 = rng.uniform(0, 255, (2, 3, 32, 32)).astype(np.float32)
    image2 = np.roll(image1, shift=(1, 2), axis=(2, 3)) + rng.uniform(-5, 5, image1.shape).astype(np.float32)
    return Tensor(image1), Tensor(np.clip(image2, 0, 255).astype(np.float32))


def build(seed=0):
    ms.set_seed(seed)
    np.random.seed(seed)
    args = argparse.Namespace(small=True, mixed_precision=False)
    model = RAFT(args)
    model.set_train(False)
    return model, RAFTInference(model, iters=3)


if __name__ == "__main__":
    import sys
    mode = sys.argv[1] if len(sys.argv) > 1 else "pynative"
    ms.set_context(mode=ms.PYNATIVE_MODE if mode == "pynative" else ms.GRAPH_MODE)
    if mode == "strict":
        ms.set_context(jit_syntax_level=ms.STRICT)
    model, infer = build(0)
    image1, image2 = make_inputs(0)
    preds = model(image1, image2, iters=3)
    print("train-mode predictions:", len(preds), [tuple(p.shape) for p in preds],
          [float(p.abs().mean()) for p in preds])
    out = infer(image1, image2)
    for k, v in zip(("flow_low", "flow", "mean_mag", "max_mag"), out):
        print(k, tuple(v.shape), float(v.abs().sum()))
