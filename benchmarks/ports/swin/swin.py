"""Tiny Swin Transformer classifier (microsoft/Swin-Transformer, with the detection backbone's padding + on-the-fly mask)."""
import numpy as np
import mindspore as ms
from mindspore import nn, ops, mint, Tensor, Parameter
from mindspore.common.initializer import initializer, TruncatedNormal

def roll(x, shifts, dims):
    # torch.roll replacement: the Roll kernel is not registered on CPU
    for shift, dim in zip(shifts, dims):
        n = x.shape[dim]
        shift = shift % n
        if shift == 0:
            continue
        x = mint.cat([x.narrow(dim, n - shift, shift), x.narrow(dim, 0, n - shift)], dim)
    return x

class Mlp(nn.Cell):
    def __init__(self, in_features, hidden_features, drop=0.0):
        super().__init__()
        self.fc1 = nn.Dense(in_features, hidden_features)
        self.act = nn.GELU(approximate=False)
        self.fc2 = nn.Dense(hidden_features, in_features)
        self.drop = nn.Dropout(p=drop)

    def construct(self, x):
        return self.drop(self.fc2(self.drop(self.act(self.fc1(x)))))

class DropPath(nn.Cell):
    def __init__(self, drop_prob=0.0):
        super().__init__()
        self.drop_prob = drop_prob

    def construct(self, x):
        if self.drop_prob == 0. or not self.training:
            return x
        keep_prob = 1 - self.drop_prob
        shape = (x.shape[0],) + (1,) * (x.ndim - 1)
        random_tensor = keep_prob + ops.rand(shape, dtype=x.dtype)
        random_tensor = random_tensor.floor()  # binarize
        return x.div(keep_prob) * random_tensor

def window_partition(x, window_size):
    B, H, W, C = x.shape
    x = x.view(B, H // window_size, window_size, W // window_size, window_size, C)
    return x.permute(0, 1, 3, 2, 4, 5).contiguous().view(-1, window_size, window_size, C)

def window_reverse(windows, window_size, H, W):
    B = int(windows.shape[0] / (H * W / window_size / window_size))
    x = windows.view(B, H // window_size, W // window_size, window_size, window_size, -1)
    return x.permute(0, 1, 3, 2, 4, 5).contiguous().view(B, H, W, -1)

class WindowAttention(nn.Cell):
    def __init__(self, dim, window_size, num_heads, qkv_bias=True, qk_scale=None):
        super().__init__()
        self.window_size = window_size  # Wh, Ww
        self.num_heads = num_heads
        head_dim = dim // num_heads
        self.scale = qk_scale or head_dim ** -0.5
        table_len = (2 * window_size[0] - 1) * (2 * window_size[1] - 1)
        self.relative_position_bias_table = Parameter(
            initializer(TruncatedNormal(sigma=0.02), (table_len, num_heads), ms.float32))
        coords = np.stack(np.meshgrid(np.arange(window_size[0]), np.arange(window_size[1]), indexing="ij"))
        coords_flatten = coords.reshape(2, -1)
        relative_coords = coords_flatten[:, :, None] - coords_flatten[:, None, :]
        relative_coords = relative_coords.transpose(1, 2, 0).copy()
        relative_coords[:, :, 0] += window_size[0] - 1
        relative_coords[:, :, 1] += window_size[1] - 1
        relative_coords[:, :, 0] *= 2 * window_size[1] - 1
        self.relative_position_index = Tensor(relative_coords.sum(-1), ms.int32)
        self.qkv = nn.Dense(dim, dim * 3, has_bias=qkv_bias)
        self.proj = nn.Dense(dim, dim)
        self.softmax = nn.Softmax(axis=-1)

    def construct(self, x, mask=None):
        B_, N, C = x.shape
        qkv = self.qkv(x).reshape(B_, N, 3, self.num_heads, C // self.num_heads).permute(2, 0, 3, 1, 4)
        q, k, v = qkv[0], qkv[1], qkv[2]
        q = q * self.scale
        attn = q @ k.transpose(-2, -1)
        relative_position_bias = self.relative_position_bias_table[self.relative_position_index.view(-1)].view(
            self.window_size[0] * self.window_size[1], self.window_size[0] * self.window_size[1], -1)
        relative_position_bias = relative_position_bias.permute(2, 0, 1).contiguous()  # nH, Wh*Ww, Wh*Ww
        attn = attn + relative_position_bias.unsqueeze(0)
        if mask is not None:
            nW = mask.shape[0]
            attn = attn.view(B_ // nW, nW, self.num_heads, N, N) + mask.unsqueeze(1).unsqueeze(0)
            attn = attn.view(-1, self.num_heads, N, N)
        attn = self.softmax(attn)
        x = (attn @ v).transpose(1, 2).reshape(B_, N, C)
        return self.proj(x)

class SwinTransformerBlock(nn.Cell):
    def __init__(self, dim, num_heads, window_size=4, shift_size=0, mlp_ratio=2.0, drop_path=0.0):
        super().__init__()
        self.window_size = window_size
        self.shift_size = shift_size
        assert 0 <= self.shift_size < self.window_size, "shift_size must in 0-window_size"
        self.norm1 = nn.LayerNorm((dim,))
        self.attn = WindowAttention(dim, window_size=(window_size, window_size), num_heads=num_heads)
        self.drop_path = DropPath(drop_path) if drop_path > 0.0 else nn.Identity()
        self.norm2 = nn.LayerNorm((dim,))
        self.mlp = Mlp(in_features=dim, hidden_features=int(dim * mlp_ratio))
        self.H, self.W = None, None

    def construct(self, x, mask_matrix):
        B, L, C = x.shape
        H, W = self.H, self.W
        assert L == H * W, "input feature has wrong size"
        shortcut = x
        x = self.norm1(x)
        x = x.view(B, H, W, C)
        pad_l = pad_t = 0
        pad_r = (self.window_size - W % self.window_size) % self.window_size
        pad_b = (self.window_size - H % self.window_size) % self.window_size
        x = ops.pad(x, (0, 0, pad_l, pad_r, pad_t, pad_b))
        _, Hp, Wp, _ = x.shape
        if self.shift_size > 0:
            shifted_x = roll(x, shifts=(-self.shift_size, -self.shift_size), dims=(1, 2))
            attn_mask = mask_matrix
        else:
            shifted_x = x
            attn_mask = None
        x_windows = window_partition(shifted_x, self.window_size).view(-1, self.window_size * self.window_size, C)
        attn_windows = self.attn(x_windows, mask=attn_mask).view(-1, self.window_size, self.window_size, C)
        shifted_x = window_reverse(attn_windows, self.window_size, Hp, Wp)
        if self.shift_size > 0:
            x = roll(shifted_x, shifts=(self.shift_size, self.shift_size), dims=(1, 2))
        else:
            x = shifted_x
        if pad_r > 0 or pad_b > 0:
            x = x[:, :H, :W, :].contiguous()
        x = x.view(B, H * W, C)
        x = shortcut + self.drop_path(x)
        return x + self.drop_path(self.mlp(self.norm2(x)))

class PatchMerging(nn.Cell):
    def __init__(self, dim):
        super().__init__()
        self.reduction = nn.Dense(4 * dim, 2 * dim, has_bias=False)
        self.norm = nn.LayerNorm((4 * dim,))

    def construct(self, x, H, W):
        B, L, C = x.shape
        assert L == H * W, "input feature has wrong size"
        x = x.view(B, H, W, C)
        pad_input = (H % 2 == 1) or (W % 2 == 1)
        if pad_input:
            x = ops.pad(x, (0, 0, 0, W % 2, 0, H % 2))
        x0, x1 = x[:, 0::2, 0::2, :], x[:, 1::2, 0::2, :]  # B H/2 W/2 C
        x2, x3 = x[:, 0::2, 1::2, :], x[:, 1::2, 1::2, :]
        x = mint.cat([x0, x1, x2, x3], -1).view(B, -1, 4 * C)  # B H/2*W/2 4*C
        return self.reduction(self.norm(x))

class BasicLayer(nn.Cell):
    def __init__(self, dim, depth, num_heads, window_size=4, mlp_ratio=2.0, drop_path=0.0, downsample=None):
        super().__init__()
        self.window_size = window_size
        self.shift_size = window_size // 2
        self.blocks = nn.CellList([
            SwinTransformerBlock(dim, num_heads, window_size=window_size,
                                 shift_size=0 if (i % 2 == 0) else window_size // 2, mlp_ratio=mlp_ratio,
                                 drop_path=drop_path[i] if isinstance(drop_path, list) else drop_path)
            for i in range(depth)])
        self.downsample = downsample(dim=dim) if downsample is not None else None

    def construct(self, x, H, W):
        # calculate attention mask for SW-MSA
        Hp = int(np.ceil(H / self.window_size)) * self.window_size
        Wp = int(np.ceil(W / self.window_size)) * self.window_size
        img_mask = ops.zeros((1, Hp, Wp, 1), ms.float32)
        h_slices = (slice(0, -self.window_size), slice(-self.window_size, -self.shift_size),
                    slice(-self.shift_size, None))
        w_slices = (slice(0, -self.window_size), slice(-self.window_size, -self.shift_size),
                    slice(-self.shift_size, None))
        cnt = 0
        for h in h_slices:
            for w in w_slices:
                img_mask[:, h, w, :] = cnt
                cnt += 1
        mask_windows = window_partition(img_mask, self.window_size).view(-1, self.window_size * self.window_size)
        attn_mask = mask_windows.unsqueeze(1) - mask_windows.unsqueeze(2)
        attn_mask = attn_mask.masked_fill(attn_mask != 0, float(-100.0)).masked_fill(attn_mask == 0, float(0.0))
        for blk in self.blocks:
            blk.H, blk.W = H, W
            x = blk(x, attn_mask)
        if self.downsample is not None:
            x_down = self.downsample(x, H, W)
            Wh, Ww = (H + 1) // 2, (W + 1) // 2
            return x, H, W, x_down, Wh, Ww
        return x, H, W, x, H, W

class PatchEmbed(nn.Cell):
    def __init__(self, patch_size=2, in_chans=3, embed_dim=8):
        super().__init__()
        self.patch_size = (patch_size, patch_size)
        self.embed_dim = embed_dim
        self.proj = nn.Conv2d(in_chans, embed_dim, patch_size, stride=patch_size, pad_mode="valid", has_bias=True)
        self.norm = nn.LayerNorm((embed_dim,))

    def construct(self, x):
        _, _, H, W = x.shape
        if W % self.patch_size[1] != 0:
            x = ops.pad(x, (0, self.patch_size[1] - W % self.patch_size[1]))
        if H % self.patch_size[0] != 0:
            x = ops.pad(x, (0, 0, 0, self.patch_size[0] - H % self.patch_size[0]))
        x = self.proj(x)  # B C Wh Ww
        Wh, Ww = x.shape[2], x.shape[3]
        x = self.norm(x.flatten(2).transpose(1, 2))
        return x.transpose(1, 2).view(-1, self.embed_dim, Wh, Ww)

class SwinTransformer(nn.Cell):
    def __init__(self, patch_size=2, in_chans=3, num_classes=5, embed_dim=8, depths=(2, 2), num_heads=(2, 4),
                 window_size=3, mlp_ratio=2.0, drop_path_rate=0.1):
        super().__init__()
        self.num_layers = len(depths)
        self.num_features = int(embed_dim * 2 ** (self.num_layers - 1))
        self.patch_embed = PatchEmbed(patch_size=patch_size, in_chans=in_chans, embed_dim=embed_dim)
        self.pos_drop = nn.Dropout(p=0.0)
        dpr = [float(x) for x in np.linspace(0, drop_path_rate, sum(depths))]  # stochastic depth decay rule
        self.layers = nn.CellList()
        for i_layer in range(self.num_layers):
            self.layers.append(BasicLayer(
                dim=int(embed_dim * 2 ** i_layer), depth=depths[i_layer], num_heads=num_heads[i_layer],
                window_size=window_size, mlp_ratio=mlp_ratio,
                drop_path=dpr[sum(depths[:i_layer]):sum(depths[:i_layer + 1])],
                downsample=PatchMerging if (i_layer < self.num_layers - 1) else None))
        self.norm = nn.LayerNorm((self.num_features,))
        self.avgpool = nn.AdaptiveAvgPool1d(1)
        self.head = nn.Dense(self.num_features, num_classes) if num_classes > 0 else nn.Identity()
        self.apply(self._init_weights)

    def _init_weights(self, m):
        if isinstance(m, nn.Dense):
            m.weight.set_data(initializer(TruncatedNormal(sigma=0.02), m.weight.shape, m.weight.dtype))
            if m.bias is not None:
                m.bias.set_data(initializer("zeros", m.bias.shape, m.bias.dtype))

    def forward_features(self, x):
        x = self.patch_embed(x)
        Wh, Ww = x.shape[2], x.shape[3]
        x = self.pos_drop(x.flatten(2).transpose(1, 2))
        for layer in self.layers:
            x_out, H, W, x, Wh, Ww = layer(x, Wh, Ww)
        x = self.norm(x_out)  # B L C
        x = self.avgpool(x.transpose(1, 2))  # B C 1
        return x.flatten(1)

    def construct(self, x):
        return self.head(self.forward_features(x))

class SwinPredictor(nn.Cell):
    # inference: normalisation, top-k prediction, top-k accuracy (timm's accuracy()), label names
    def __init__(self, model, class_names, topk=(1, 3)):
        super().__init__()
        self.model = model
        self.class_names = class_names
        self.topk = topk
        self.mean = Tensor(np.array([0.485, 0.456, 0.406], np.float32).reshape(1, 3, 1, 1))
        self.std = Tensor(np.array([0.229, 0.224, 0.225], np.float32).reshape(1, 3, 1, 1))

    def construct(self, images, targets=None):
        images -= self.mean
        images /= self.std
        logits = self.model(images)
        probs = logits.softmax(-1)
        maxk = min(max(self.topk), logits.shape[1])
        top_p, top_i = probs.topk(maxk, dim=-1)
        out = {"logits": logits, "top_p": top_p, "top_i": top_i}
        if targets is not None:
            pred = top_i.t()
            correct = pred.eq(targets.reshape(1, -1).expand_as(pred))
            out["acc"] = [correct[:k].reshape(-1).float().sum(0) * 100. / images.shape[0] for k in self.topk]
        out["labels"] = [self.class_names[int(i)] for i in top_i[:, 0]]
        return out

CLASS_NAMES = ["cat", "dog", "ship", "truck", "frog"]
def build(seed=0):
    ms.set_seed(seed)
    np.random.seed(seed)  # the initializers draw from NumPy
    model = SwinTransformer(num_classes=len(CLASS_NAMES))
    model.set_train(False)
    return SwinPredictor(model, CLASS_NAMES)

def make_batches():
    rng = np.random.RandomState(1)
    return [(rng.rand(2, 3, s, s).astype(np.float32), np.array([1, 3], np.int32)) for s in (13, 16)]

def main():
    ms.set_context(mode=ms.PYNATIVE_MODE)
    predictor = build()
    for images_np, targets_np in make_batches():
        images = Tensor(images_np)
        out = predictor(images, Tensor(targets_np))
        print(f"--- {images_np.shape[2]}x{images_np.shape[3]}\nlogits", out["logits"].asnumpy().round(5))
        print("top_p", out["top_p"].asnumpy().round(5), "top_i", out["top_i"].asnumpy())
        print("acc@1/3", [float(a) for a in out["acc"]], "labels", out["labels"])
        print("caller images changed:", not np.array_equal(images.asnumpy(), images_np))

if __name__ == "__main__":
    main()
