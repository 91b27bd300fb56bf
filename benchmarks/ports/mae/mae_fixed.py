# MAE (facebookresearch/mae, models_mae.py) ported to MindSpore 2.10 -- tiny config. REFERENCE FIX of mae.py:
# compiles at GRAPH_MODE LAX and STRICT.  usage: python mae_fixed.py [pynative|lax|strict]
import sys
from functools import partial

import numpy as np
import mindspore as ms
from mindspore import nn, ops, Tensor, Parameter
from mindspore.common.initializer import initializer, XavierUniform, Normal


# --------------------------------------------------------------------------- pos embed (NumPy, __init__ only)
def get_2d_sincos_pos_embed(embed_dim, grid_size, cls_token=False):
    grid_h = np.arange(grid_size, dtype=np.float32)
    grid_w = np.arange(grid_size, dtype=np.float32)
    grid = np.meshgrid(grid_w, grid_h)
    grid = np.stack(grid, axis=0).reshape([2, 1, grid_size, grid_size])
    pos_embed = get_2d_sincos_pos_embed_from_grid(embed_dim, grid)
    if cls_token:
        pos_embed = np.concatenate([np.zeros([1, embed_dim]), pos_embed], axis=0)
    return pos_embed


def get_2d_sincos_pos_embed_from_grid(embed_dim, grid):
    assert embed_dim % 2 == 0
    emb_h = get_1d_sincos_pos_embed_from_grid(embed_dim // 2, grid[0])
    emb_w = get_1d_sincos_pos_embed_from_grid(embed_dim // 2, grid[1])
    return np.concatenate([emb_h, emb_w], axis=1)


def get_1d_sincos_pos_embed_from_grid(embed_dim, pos):
    assert embed_dim % 2 == 0
    omega = np.arange(embed_dim // 2, dtype=np.float64)
    omega /= embed_dim / 2.
    omega = 1. / 10000 ** omega
    pos = pos.reshape(-1)
    out = np.einsum('m,d->md', pos, omega)
    return np.concatenate([np.sin(out), np.cos(out)], axis=1)


# --------------------------------------------------------------------------- timm pieces, by hand
def drop_path(x, drop_prob: float = 0., training: bool = False, scale_by_keep: bool = True):
    if drop_prob == 0. or not training:
        return x
    keep_prob = 1 - drop_prob
    shape = (x.shape[0],) + (1,) * (x.ndim - 1)
    random_tensor = ops.bernoulli(x.new_zeros(shape), p=keep_prob)
    if keep_prob > 0.0 and scale_by_keep:
        random_tensor.div_(keep_prob)
    return x * random_tensor


class DropPath(nn.Cell):
    def __init__(self, drop_prob=0.):
        super().__init__()
        self.drop_prob = drop_prob

    def construct(self, x):
        return drop_path(x, self.drop_prob, self.training)


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
        self.attn_drop = nn.Dropout(p=attn_drop)
        self.proj = nn.Dense(dim, dim)
        self.proj_drop = nn.Dropout(p=proj_drop)

    def construct(self, x):
        B, N, C = x.shape
        qkv = self.qkv(x).reshape(B, N, 3, self.num_heads, C // self.num_heads).permute(2, 0, 3, 1, 4)
        q, k, v = qkv.unbind(0)
        attn = (q @ k.swapaxes(-2, -1)) * self.scale
        attn = attn.softmax(-1)
        attn = self.attn_drop(attn)
        x = (attn @ v).swapaxes(1, 2).reshape(B, N, C)
        x = self.proj(x)
        return self.proj_drop(x)


class Block(nn.Cell):
    def __init__(self, dim, num_heads, mlp_ratio=4., qkv_bias=False, drop_path=0., norm_layer=nn.LayerNorm):
        super().__init__()
        self.norm1 = norm_layer((dim,))
        self.attn = Attention(dim, num_heads=num_heads, qkv_bias=qkv_bias)
        self.drop_path = DropPath(drop_path) if drop_path > 0. else nn.Identity()
        self.norm2 = norm_layer((dim,))
        self.mlp = Mlp(in_features=dim, hidden_features=int(dim * mlp_ratio))

    def construct(self, x):
        x = x + self.drop_path(self.attn(self.norm1(x)))
        x = x + self.drop_path(self.mlp(self.norm2(x)))
        return x


class PatchEmbed(nn.Cell):
    def __init__(self, img_size=224, patch_size=16, in_chans=3, embed_dim=768):
        super().__init__()
        self.img_size = (img_size, img_size)
        self.patch_size = (patch_size, patch_size)
        self.grid_size = (img_size // patch_size, img_size // patch_size)
        self.num_patches = self.grid_size[0] * self.grid_size[1]
        self.proj = nn.Conv2d(in_chans, embed_dim, patch_size, stride=patch_size, pad_mode='valid', has_bias=True)

    def construct(self, x):
        B, C, H, W = x.shape
        assert H == self.img_size[0] and W == self.img_size[1], \
            f"Input image size ({H}*{W}) doesn't match model ({self.img_size[0]}*{self.img_size[1]})."
        x = self.proj(x).flatten(2).swapaxes(1, 2)  # BCHW -> BNC
        return x


# --------------------------------------------------------------------------- MAE
class MaskedAutoencoderViT(nn.Cell):
    def __init__(self, img_size=224, patch_size=16, in_chans=3, embed_dim=1024, depth=24, num_heads=16,
                 decoder_embed_dim=512, decoder_depth=8, decoder_num_heads=16, mlp_ratio=4.,
                 norm_layer=nn.LayerNorm, norm_pix_loss=False):
        super().__init__()
        self.patch_embed = PatchEmbed(img_size, patch_size, in_chans, embed_dim)
        num_patches = self.patch_embed.num_patches
        self.cls_token = Parameter(ops.zeros((1, 1, embed_dim)), name='cls_token')
        self.pos_embed = Parameter(ops.zeros((1, num_patches + 1, embed_dim)), name='pos_embed', requires_grad=False)
        self.blocks = nn.CellList([Block(embed_dim, num_heads, mlp_ratio, qkv_bias=True, norm_layer=norm_layer)
                                   for i in range(depth)])
        self.norm = norm_layer((embed_dim,))

        self.decoder_embed = nn.Dense(embed_dim, decoder_embed_dim, has_bias=True)
        self.mask_token = Parameter(ops.zeros((1, 1, decoder_embed_dim)), name='mask_token')
        self.decoder_pos_embed = Parameter(ops.zeros((1, num_patches + 1, decoder_embed_dim)),
                                           name='decoder_pos_embed', requires_grad=False)
        self.decoder_blocks = nn.CellList([Block(decoder_embed_dim, decoder_num_heads, mlp_ratio, qkv_bias=True,
                                                 norm_layer=norm_layer) for i in range(decoder_depth)])
        self.decoder_norm = norm_layer((decoder_embed_dim,))
        self.decoder_pred = nn.Dense(decoder_embed_dim, patch_size ** 2 * in_chans, has_bias=True)
        self.norm_pix_loss = norm_pix_loss
        self.last_mask = Parameter(ops.zeros((2, self.patch_embed.num_patches)), name='last_mask', requires_grad=False)
        self.initialize_weights()

    def initialize_weights(self):
        gs = int(self.patch_embed.num_patches ** .5)
        pos_embed = get_2d_sincos_pos_embed(self.pos_embed.shape[-1], gs, cls_token=True)
        self.pos_embed.set_data(Tensor(pos_embed, ms.float32).unsqueeze(0))
        dec = get_2d_sincos_pos_embed(self.decoder_pos_embed.shape[-1], gs, cls_token=True)
        self.decoder_pos_embed.set_data(Tensor(dec, ms.float32).unsqueeze(0))
        w = self.patch_embed.proj.weight  # xavier_uniform_ on the (out, in*k*k) view
        w2d = initializer(XavierUniform(), (w.shape[0], int(np.prod(w.shape[1:]))), ms.float32)
        w.set_data(w2d.init_data().view(w.shape))
        self.cls_token.set_data(initializer(Normal(sigma=.02), self.cls_token.shape, ms.float32))
        self.mask_token.set_data(initializer(Normal(sigma=.02), self.mask_token.shape, ms.float32))
        for _, cell in self.cells_and_names():
            if isinstance(cell, nn.Dense):
                cell.weight.set_data(initializer(XavierUniform(), cell.weight.shape, ms.float32))
                if cell.bias is not None:
                    cell.bias.set_data(initializer('zeros', cell.bias.shape, ms.float32))
            elif isinstance(cell, nn.LayerNorm):
                cell.gamma.set_data(initializer('ones', cell.gamma.shape, ms.float32))
                cell.beta.set_data(initializer('zeros', cell.beta.shape, ms.float32))

    def patchify(self, imgs):
        p = self.patch_embed.patch_size[0]
        assert imgs.shape[2] == imgs.shape[3] and imgs.shape[2] % p == 0
        h = w = imgs.shape[2] // p
        x = imgs.reshape(shape=(imgs.shape[0], 3, h, p, w, p))
        x = x.permute(0, 2, 4, 3, 5, 1)  # einsum('nchpwq->nhwpqc')
        x = x.reshape(shape=(imgs.shape[0], h * w, p ** 2 * 3))
        return x

    def unpatchify(self, x):
        p = self.patch_embed.patch_size[0]
        h = w = int(x.shape[1] ** .5)
        assert h * w == x.shape[1]
        x = x.reshape(shape=(x.shape[0], h, w, p, p, 3))
        x = x.permute(0, 5, 1, 3, 2, 4)  # einsum('nhwpqc->nchpwq')
        imgs = x.reshape(shape=(x.shape[0], 3, h * p, h * p))
        return imgs

    def random_masking(self, x, noise, mask_ratio):
        N, L, D = x.shape  # batch, length, dim
        len_keep = int(L * (1 - mask_ratio))
        ids_shuffle = ops.argsort(noise, axis=1)  # ascend: small is keep, large is remove
        ids_restore = ops.argsort(ids_shuffle, axis=1)
        ids_keep = ids_shuffle[:, :len_keep]
        x_masked = ops.gather_elements(x, 1, ids_keep.unsqueeze(-1).tile((1, 1, D)))
        mask = ops.ones((N, L))
        mask[:, :len_keep] = 0
        mask = ops.gather_elements(mask, 1, ids_restore)
        return x_masked, mask, ids_restore

    def forward_encoder(self, x, noise, mask_ratio):
        x = self.patch_embed(x)
        x = x + self.pos_embed[:, 1:, :]
        x, mask, ids_restore = self.random_masking(x, noise, mask_ratio)
        cls_token = self.cls_token + self.pos_embed[:, :1, :]
        cls_tokens = cls_token.broadcast_to((x.shape[0], -1, -1))
        x = ops.cat((cls_tokens, x), axis=1)
        for blk in self.blocks:
            x = blk(x)
        x = self.norm(x)
        return x, mask, ids_restore

    def forward_decoder(self, x, ids_restore):
        x = self.decoder_embed(x)
        mask_tokens = self.mask_token.tile((x.shape[0], ids_restore.shape[1] + 1 - x.shape[1], 1))
        x_ = ops.cat([x[:, 1:, :], mask_tokens], axis=1)  # no cls token
        x_ = ops.gather_elements(x_, 1, ids_restore.unsqueeze(-1).tile((1, 1, x.shape[2])))  # unshuffle
        x = ops.cat([x[:, :1, :], x_], axis=1)  # append cls token
        x = x + self.decoder_pos_embed
        for blk in self.decoder_blocks:
            x = blk(x)
        x = self.decoder_norm(x)
        x = self.decoder_pred(x)
        x = x[:, 1:, :]  # remove cls token
        return x

    def forward_loss(self, imgs, pred, mask):
        target = self.patchify(imgs)
        if self.norm_pix_loss:
            mean = target.mean(dim=-1, keepdim=True)
            var = ops.var(target, axis=-1, ddof=1, keepdims=True)
            target = (target - mean) / (var + 1.e-6) ** .5
        loss = (pred - target) ** 2
        loss = loss.mean(dim=-1)  # [N, L], mean loss per patch
        loss = (loss * mask).sum() / mask.sum()  # mean loss on removed patches
        return loss

    def construct(self, imgs, noise, mask_ratio=0.75):
        latent, mask, ids_restore = self.forward_encoder(imgs, noise, mask_ratio)
        pred = self.forward_decoder(latent, ids_restore)  # [N, L, p*p*3]
        loss = self.forward_loss(imgs, pred, mask)
        ops.assign(self.last_mask, mask)  # kept for logging / visualisation
        return loss, pred, mask

    def visualize(self, imgs, noise, mask_ratio=0.75):
        """Demo-notebook run_one_image: reconstruction with the visible patches pasted back (NHWC)."""
        loss, y, mask = self.construct(imgs, noise, mask_ratio)
        y = self.unpatchify(y).permute(0, 2, 3, 1)  # einsum('nchw->nhwc')
        p = self.patch_embed.patch_size[0]
        mask = mask.unsqueeze(-1).tile((1, 1, p ** 2 * 3))
        mask = self.unpatchify(mask).permute(0, 2, 3, 1)
        x = imgs.permute(0, 2, 3, 1)
        im_masked = x * (1 - mask)
        im_paste = x * (1 - mask) + y * mask
        return loss, y, im_masked, im_paste


class Reconstructor(nn.Cell):
    """Inference entry: graph code in GRAPH_MODE."""
    def __init__(self, model):
        super().__init__()
        self.model = model

    def construct(self, imgs, noise):
        return self.model.visualize(imgs, noise)


class TrainStep(nn.Cell):
    def __init__(self, model, optimizer):
        super().__init__()
        self.model = model
        self.optimizer = optimizer
        self.grad_fn = ms.value_and_grad(self.forward_fn, None, optimizer.parameters, has_aux=True)

    def forward_fn(self, imgs, noise):
        loss, pred, mask = self.model(imgs, noise)
        return loss, mask

    def construct(self, imgs, noise):
        (loss, mask), grads = self.grad_fn(imgs, noise)
        self.optimizer(grads)
        return loss, mask


RECON_KEYS = ('loss', 'reconstruction', 'masked', 'paste')


NOISE_INPUT = True


def make_noise(imgs, num_patches=16):
    return ops.rand(imgs.shape[0], num_patches)  # drawn eagerly, outside the graph


def mae_vit_tiny(**kwargs):
    return MaskedAutoencoderViT(img_size=16, patch_size=4, embed_dim=32, depth=2, num_heads=2,
                                decoder_embed_dim=16, decoder_depth=1, decoder_num_heads=2, mlp_ratio=4.,
                                norm_layer=partial(nn.LayerNorm, epsilon=1e-6), **kwargs)


def build():
    ms.set_seed(0)
    np.random.seed(0)
    return mae_vit_tiny(norm_pix_loss=True)


if __name__ == '__main__':
    mode = sys.argv[1] if len(sys.argv) > 1 else 'pynative'
    if mode == 'pynative':
        ms.set_context(mode=ms.PYNATIVE_MODE)
    else:
        ms.set_context(mode=ms.GRAPH_MODE, jit_syntax_level=ms.LAX if mode == 'lax' else ms.STRICT)
    model = build()
    imgs = Tensor(np.random.RandomState(1).randn(2, 3, 16, 16).astype(np.float32))
    loss, pred, mask = model(imgs, make_noise(imgs))
    print('loss', loss.item(), 'pred', pred.shape, float(pred.abs().sum()), 'mask', mask.asnumpy().tolist())
    model.set_train(False)
    out = Reconstructor(model)(imgs, make_noise(imgs))
    out = dict(zip(RECON_KEYS, out))
    print('paste', out['paste'].shape, float(out['paste'].sum()), 'loss', float(out['loss']))
    model.set_train(True)
    opt = nn.AdamWeightDecay(model.trainable_params(), learning_rate=1e-3, beta2=0.95, weight_decay=0.05)
    step = TrainStep(model, opt)
    for i in range(3):
        loss, mask = step(imgs, make_noise(imgs))
        print('step', i, 'loss', loss.item(), 'masked', int(mask.sum().item()))
