"""TimeSformer (divided space-time attention), tiny port from PyTorch to MindSpore.

Ported from facebookresearch/TimeSformer (timesformer/models/vit.py) keeping PyTorch habits.
Run: python timesformer.py   (PYNATIVE_MODE, seeded inputs)
"""
import math
import numpy as np
import mindspore as ms
from mindspore import nn, ops, Tensor, Parameter
from mindspore.common.initializer import initializer, TruncatedNormal, Zero, One


class Mlp(nn.Cell):
    def __init__(self, in_features, hidden_features=None, out_features=None, drop=0.):
        super().__init__()
        out_features = out_features or in_features
        hidden_features = hidden_features or in_features
        self.fc1 = nn.Dense(in_features, hidden_features)
        self.act = nn.GELU(approximate=False)
        self.fc2 = nn.Dense(hidden_features, out_features)
        self.drop = nn.Dropout(p=drop)

    def construct(self, x):
        x = self.drop(self.act(self.fc1(x)))
        return self.drop(self.fc2(x))


class Attention(nn.Cell):
    def __init__(self, dim, num_heads=8, qkv_bias=False, attn_drop=0., proj_drop=0.):
        super().__init__()
        self.num_heads = num_heads
        head_dim = dim // num_heads
        self.scale = head_dim ** -0.5
        self.qkv = nn.Dense(dim, dim * 3, has_bias=qkv_bias)
        self.proj = nn.Dense(dim, dim)
        self.attn_drop = nn.Dropout(p=attn_drop)
        self.proj_drop = nn.Dropout(p=proj_drop)

    def construct(self, x):
        B, N, C = x.shape
        qkv = self.qkv(x).reshape(B, N, 3, self.num_heads, C // self.num_heads).permute(2, 0, 3, 1, 4)
        q, k, v = qkv[0], qkv[1], qkv[2]
        attn = (q @ k.transpose(-2, -1)) * self.scale
        attn = ops.softmax(attn, axis=-1)
        attn = self.attn_drop(attn)
        x = (attn @ v).transpose(1, 2).reshape(B, N, C)
        x = self.proj(x)
        return self.proj_drop(x)


def drop_path(x, drop_prob: float = 0., training: bool = False):
    if drop_prob == 0. or not training:
        return x
    keep_prob = 1 - drop_prob
    shape = (x.shape[0],) + (1,) * (x.ndim - 1)  # work with diff dim tensors, not just 2D ConvNets
    random_tensor = keep_prob + ops.rand(shape, dtype=x.dtype)
    random_tensor = random_tensor.floor()  # binarize
    output = x.div(keep_prob) * random_tensor
    return output


class DropPath(nn.Cell):
    def __init__(self, drop_prob=None):
        super().__init__()
        self.drop_prob = drop_prob

    def construct(self, x):
        return drop_path(x, self.drop_prob, self.training)


class Block(nn.Cell):
    def __init__(self, dim, num_heads, mlp_ratio=4., qkv_bias=False, drop=0., attn_drop=0.,
                 drop_path=0.1, attention_type='divided_space_time'):
        super().__init__()
        self.attention_type = attention_type
        assert attention_type in ['divided_space_time', 'space_only', 'joint_space_time']
        self.norm1 = nn.LayerNorm((dim,), epsilon=1e-6)
        self.attn = Attention(dim, num_heads=num_heads, qkv_bias=qkv_bias, attn_drop=attn_drop, proj_drop=drop)
        ## Temporal Attention Parameters
        if self.attention_type == 'divided_space_time':
            self.temporal_norm1 = nn.LayerNorm((dim,), epsilon=1e-6)
            self.temporal_attn = Attention(dim, num_heads=num_heads, qkv_bias=qkv_bias, attn_drop=attn_drop, proj_drop=drop)
            self.temporal_fc = nn.Dense(dim, dim)
        self.drop_path = DropPath(drop_path) if drop_path > 0. else nn.Identity()
        self.norm2 = nn.LayerNorm((dim,), epsilon=1e-6)
        self.mlp = Mlp(in_features=dim, hidden_features=int(dim * mlp_ratio), drop=drop)

    def construct(self, x, B, T, W):
        num_spatial_tokens = (x.shape[1] - 1) // T
        H = num_spatial_tokens // W
        if self.attention_type in ['space_only', 'joint_space_time']:
            x = x + self.drop_path(self.attn(self.norm1(x)))
            x = x + self.drop_path(self.mlp(self.norm2(x)))
            return x
        elif self.attention_type == 'divided_space_time':
            ## Temporal: 'b (h w t) m -> (b h w) t m'
            xt = x[:, 1:, :]
            M = xt.shape[-1]
            xt = xt.view(B, H, W, T, M).view(B * H * W, T, M)
            res_temporal = self.drop_path(self.temporal_attn(self.temporal_norm1(xt)))
            res_temporal = res_temporal.view(B, H * W * T, M)  # '(b h w) t m -> b (h w t) m'
            res_temporal = self.temporal_fc(res_temporal)
            xt = x[:, 1:, :] + res_temporal

            ## Spatial
            init_cls_token = x[:, 0, :].unsqueeze(1)
            cls_token = init_cls_token.repeat_interleave(T, dim=1)  # torch: .repeat(1, T, 1)
            cls_token = cls_token.reshape(B * T, M).unsqueeze(1)  # 'b t m -> (b t) m'
            xs = xt
            xs = xs.view(B, H * W, T, M).permute(0, 2, 1, 3).reshape(B * T, H * W, M)  # 'b (h w t) m -> (b t) (h w) m'
            xs = ops.cat((cls_token, xs), 1)
            res_spatial = self.drop_path(self.attn(self.norm1(xs)))

            ### Taking care of CLS token
            cls_token = res_spatial[:, 0, :]
            cls_token = cls_token.view(B, T, M)  # '(b t) m -> b t m'
            cls_token = ops.mean(cls_token, 1, True)  ## averaging for every frame
            res_spatial = res_spatial[:, 1:, :]
            res_spatial = res_spatial.view(B, T, H * W, M).permute(0, 2, 1, 3).reshape(B, H * W * T, M)
            res = res_spatial
            x = xt

            ## Mlp
            x = ops.cat((init_cls_token, x), 1) + ops.cat((cls_token, res), 1)
            x = x + self.drop_path(self.mlp(self.norm2(x)))
            return x


class PatchEmbed(nn.Cell):
    """ Image to Patch Embedding """
    def __init__(self, img_size=16, patch_size=4, in_chans=3, embed_dim=32):
        super().__init__()
        self.num_patches = (img_size // patch_size) * (img_size // patch_size)
        self.proj = nn.Conv2d(in_chans, embed_dim, kernel_size=patch_size, stride=patch_size, has_bias=True)

    def construct(self, x):
        B, C, T, H, W = x.shape
        x = x.transpose(1, 2).reshape(B * T, C, H, W)  # rearrange(x, 'b c t h w -> (b t) c h w')
        x = self.proj(x)
        W = x.shape[-1]
        x = x.flatten(2).transpose(1, 2)
        return x, T, W


class VisionTransformer(nn.Cell):
    def __init__(self, img_size=16, patch_size=4, in_chans=3, num_classes=10, embed_dim=32, depth=2,
                 num_heads=4, mlp_ratio=2., qkv_bias=True, drop_rate=0., attn_drop_rate=0.,
                 drop_path_rate=0.1, num_frames=4, attention_type='divided_space_time'):
        super().__init__()
        self.attention_type = attention_type
        self.depth = depth
        self.num_classes = num_classes
        self.num_features = self.embed_dim = embed_dim
        self.patch_embed = PatchEmbed(img_size=img_size, patch_size=patch_size, in_chans=in_chans, embed_dim=embed_dim)
        num_patches = self.patch_embed.num_patches

        ## Positional Embeddings
        self.cls_token = Parameter(initializer(TruncatedNormal(0.02), (1, 1, embed_dim)), name='cls_token')
        self.pos_embed = Parameter(initializer(TruncatedNormal(0.02), (1, num_patches + 1, embed_dim)), name='pos_embed')
        self.pos_drop = nn.Dropout(p=drop_rate)
        if self.attention_type != 'space_only':
            self.time_embed = Parameter(initializer(Zero(), (1, num_frames, embed_dim)), name='time_embed')
            self.time_drop = nn.Dropout(p=drop_rate)

        ## Attention Blocks
        dpr = [x.item() for x in np.linspace(0, drop_path_rate, self.depth)]  # stochastic depth decay rule
        self.blocks = nn.CellList([
            Block(dim=embed_dim, num_heads=num_heads, mlp_ratio=mlp_ratio, qkv_bias=qkv_bias,
                  drop=drop_rate, attn_drop=attn_drop_rate, drop_path=dpr[i], attention_type=self.attention_type)
            for i in range(self.depth)])
        self.norm = nn.LayerNorm((embed_dim,), epsilon=1e-6)

        # Classifier head
        self.head = nn.Dense(embed_dim, num_classes) if num_classes > 0 else nn.Identity()
        for name, m in self.cells_and_names():  # self.apply(self._init_weights)
            if isinstance(m, nn.Dense):
                m.weight.set_data(initializer(TruncatedNormal(0.02), m.weight.shape))
                if m.bias is not None:
                    m.bias.set_data(initializer(Zero(), m.bias.shape))
            elif isinstance(m, nn.LayerNorm):
                m.gamma.set_data(initializer(One(), m.gamma.shape))
                m.beta.set_data(initializer(Zero(), m.beta.shape))

    def forward_features(self, x):
        B = x.shape[0]
        x, T, W = self.patch_embed(x)
        cls_tokens = self.cls_token.expand(x.shape[0], -1, -1)
        x = ops.cat((cls_tokens, x), axis=1)

        ## resizing the positional embeddings in case they don't match the input at inference
        if x.shape[1] != self.pos_embed.shape[1]:
            pos_embed = self.pos_embed
            cls_pos_embed = pos_embed[0, 0, :].unsqueeze(0).unsqueeze(1)
            other_pos_embed = pos_embed[0, 1:, :].unsqueeze(0).transpose(1, 2)
            P = int(other_pos_embed.shape[2] ** 0.5)
            H = (x.shape[1] - 1) // W
            other_pos_embed = other_pos_embed.reshape(1, x.shape[2], P, P)
            new_pos_embed = ops.interpolate(other_pos_embed, size=(H, W), mode='nearest')
            new_pos_embed = new_pos_embed.flatten(2)
            new_pos_embed = new_pos_embed.transpose(1, 2)
            new_pos_embed = ops.cat((cls_pos_embed, new_pos_embed), 1)
            x = x + new_pos_embed
        else:
            x = x + self.pos_embed
        x = self.pos_drop(x)

        ## Time Embeddings
        if self.attention_type != 'space_only':
            cls_tokens = x[:B, 0, :].unsqueeze(1)
            x = x[:, 1:]
            N, M = x.shape[1], x.shape[2]
            x = x.view(B, T, N, M).permute(0, 2, 1, 3).reshape(B * N, T, M)  # '(b t) n m -> (b n) t m'
            ## Resizing time embeddings in case they don't match
            if T != self.time_embed.shape[1]:
                time_embed = self.time_embed.transpose(1, 2)
                new_time_embed = ops.interpolate(time_embed, size=(T), mode='nearest')
                new_time_embed = new_time_embed.transpose(1, 2)
                x = x + new_time_embed
            else:
                x = x + self.time_embed
            x = self.time_drop(x)
            x = x.view(B, N * T, M)  # '(b n) t m -> b (n t) m'
            x = ops.cat((cls_tokens, x), axis=1)

        ## Attention blocks
        for blk in self.blocks:
            x = blk(x, B, T, W)

        ### Predictions for space-only baseline
        if self.attention_type == 'space_only':
            x = x.view(B, T, x.shape[1], x.shape[2])  # '(b t) n m -> b t n m'
            x = ops.mean(x, 1)  # averaging predictions for every frame

        x = self.norm(x)
        return x[:, 0]

    def construct(self, x):
        x = self.forward_features(x)
        x = self.head(x)
        return x


class MultiViewInference(nn.Cell):
    """Test-time multi-view testing: num_clips temporal clips x num_crops spatial crops, averaged softmax."""
    def __init__(self, model, class_names, num_clips=2, num_crops=3, clip_len=4, crop_size=16, topk=3):
        super().__init__()
        self.model = model
        self.class_names = class_names
        self.num_clips = num_clips
        self.num_crops = num_crops
        self.clip_len = clip_len
        self.crop_size = crop_size
        self.topk = topk

    def construct(self, video):
        B, C, T_total, H_full, W_full = video.shape
        clip_starts = np.linspace(0, T_total - self.clip_len, self.num_clips).astype(int).tolist()
        crop_starts = [0, (W_full - self.crop_size) // 2, W_full - self.crop_size]
        top = (H_full - self.crop_size) // 2
        logits_list = []
        for s in clip_starts:
            clip = video[:, :, s:s + self.clip_len]
            for c in crop_starts[:self.num_crops]:
                view = clip[:, :, :, top:top + self.crop_size, c:c + self.crop_size]
                logits_list.append(self.model(view))
        logits = ops.stack(logits_list, 0)
        probs = ops.softmax(logits, axis=-1).mean(0)
        top_p, top_i = probs.topk(self.topk, dim=-1)
        results = []
        for b in range(B):
            preds = {}
            for j in range(self.topk):
                idx = top_i[b, j].item()
                preds[self.class_names[idx]] = top_p[b, j].item()
            results.append(preds)
        return probs, results


class MixupLabelSmoothingLoss(nn.Cell):
    """Training loss: mixup (lam ~ Beta(alpha, alpha), drawn with numpy) + label-smoothed soft cross entropy."""
    def __init__(self, model, num_classes, smoothing=0.1, mixup_alpha=0.8):
        super().__init__()
        self.model = model
        self.num_classes = num_classes
        self.smoothing = smoothing
        self.mixup_alpha = mixup_alpha
        self.last_lam = 1.0

    def construct(self, video, labels):
        lam = float(np.random.beta(self.mixup_alpha, self.mixup_alpha))
        index = Tensor(np.random.permutation(video.shape[0]), ms.int32)
        mixed = lam * video + (1 - lam) * video[index]
        one_hot = ops.one_hot(labels.long(), self.num_classes).float()
        smoothed = one_hot * (1 - self.smoothing) + self.smoothing / self.num_classes
        target = lam * smoothed + (1 - lam) * smoothed[index]
        logits = self.model(mixed)
        loss = ops.sum(-target * ops.log_softmax(logits, axis=-1), dim=-1).mean()
        self.last_lam = lam
        return loss


CLASS_NAMES = ['archery', 'bowling', 'cooking', 'dancing', 'diving', 'juggling', 'running', 'skiing', 'surfing', 'yoga']


def build(seed=0, attention_type='divided_space_time'):
    ms.set_seed(seed)
    np.random.seed(seed)
    model = VisionTransformer(img_size=16, patch_size=4, num_classes=10, embed_dim=32, depth=2, num_heads=4,
                              num_frames=4, drop_path_rate=0.1, attention_type=attention_type)
    return model


def inputs(seed=0):
    rng = np.random.RandomState(seed)
    video = Tensor(rng.randn(2, 3, 4, 16, 16).astype(np.float32))
    long_video = Tensor(rng.randn(2, 3, 8, 20, 20).astype(np.float32))
    labels = Tensor(rng.randint(0, 10, size=(2,)).astype(np.int32))
    return video, long_video, labels


if __name__ == '__main__':
    ms.set_context(mode=ms.PYNATIVE_MODE)
    model = build(0)
    model.set_train(False)
    video, long_video, labels = inputs(0)
    print('logits', model(video).asnumpy().round(4))
    print('logits T=2 (time-embed interpolation)', model(video[:, :, :2]).asnumpy().round(4))
    print('logits 20x20 (pos-embed interpolation)', model(long_video[:, :, :4]).asnumpy().round(4))
    for att in ['space_only', 'joint_space_time']:
        m2 = build(0, att)
        m2.set_train(False)
        print(att, m2(video).asnumpy().round(4))
    mv = MultiViewInference(model, CLASS_NAMES)
    probs, results = mv(long_video)
    print('multiview probs', probs.asnumpy().round(4))
    print('multiview top-k', results)
    loss_fn = MixupLabelSmoothingLoss(model, num_classes=10)
    np.random.seed(0)
    print('loss', loss_fn(video, labels).asnumpy(), 'lam', loss_fn.last_lam)
    print('loss', loss_fn(video, labels).asnumpy(), 'lam', loss_fn.last_lam)
    model.set_train(True)
    ms.set_seed(0)
    print('train-mode logits (DropPath active)', model(video).asnumpy().round(4))
