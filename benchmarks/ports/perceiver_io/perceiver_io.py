"""Perceiver IO (lucidrains/perceiver-pytorch, perceiver_io.py) ported to MindSpore 2.10.

Includes the Fourier-feature position encoding of perceiver_pytorch.py and a tiny image classifier.
Run: python perceiver_io.py   (PYNATIVE_MODE, seeded)
"""
from math import pi
from functools import wraps

import numpy as np
import mindspore as ms
from mindspore import nn, mint, ops, Parameter, Tensor
import mindspore.mint.nn.functional as F


# helpers

def exists(val):
    return val is not None


def default(val, d):
    return val if exists(val) else d


def cache_fn(f):
    cache = None

    @wraps(f)
    def cached_fn(*args, _cache=True, **kwargs):
        if not _cache:
            return f(*args, **kwargs)
        nonlocal cache
        if cache is not None:
            return cache
        cache = f(*args, **kwargs)
        return cache
    return cached_fn


def fourier_encode(x, max_freq, num_bands=4):
    x = x.unsqueeze(-1)
    dtype, orig_x = x.dtype, x
    scales = ops.linspace(1., max_freq / 2, num_bands).astype(dtype)  # mint.linspace: no CPU kernel
    scales = scales[(*((None,) * (len(x.shape) - 1)), Ellipsis)]
    x = x * scales * pi
    x = mint.cat([x.sin(), x.cos()], dim=-1)
    x = mint.cat((x, orig_x), dim=-1)
    return x


# building blocks

class PreNorm(nn.Cell):
    def __init__(self, dim, fn, context_dim=None):
        super().__init__()
        self.fn = fn
        self.norm = nn.LayerNorm((dim,))  # mint.nn.LayerNorm: no CPU kernel
        self.norm_context = nn.LayerNorm((context_dim,)) if exists(context_dim) else None

    def construct(self, x, **kwargs):
        x = self.norm(x)
        if exists(self.norm_context):
            context = kwargs['context']
            normed_context = self.norm_context(context)
            kwargs.update(context=normed_context)
        return self.fn(x, **kwargs)


class GEGLU(nn.Cell):
    def construct(self, x):
        x, gates = x.chunk(2, dim=-1)
        return x * ops.gelu(gates)  # mint gelu: no CPU kernel


class FeedForward(nn.Cell):
    def __init__(self, dim, mult=4):
        super().__init__()
        self.net = nn.SequentialCell(
            mint.nn.Linear(dim, dim * mult * 2),
            GEGLU(),
            mint.nn.Linear(dim * mult, dim)
        )

    def construct(self, x):
        return self.net(x)


class Attention(nn.Cell):
    def __init__(self, query_dim, context_dim=None, heads=8, dim_head=64):
        super().__init__()
        inner_dim = dim_head * heads
        context_dim = default(context_dim, query_dim)
        self.scale = dim_head ** -0.5
        self.heads = heads
        self.to_q = mint.nn.Linear(query_dim, inner_dim, bias=False)
        self.to_kv = mint.nn.Linear(context_dim, inner_dim * 2, bias=False)
        self.to_out = mint.nn.Linear(inner_dim, query_dim)

    def construct(self, x, context=None, mask=None):
        h = self.heads
        q = self.to_q(x)
        context = default(context, x)
        k, v = self.to_kv(context).chunk(2, dim=-1)

        # rearrange(t, 'b n (h d) -> (b h) n d', h=h)
        def split_heads(t):
            b, n, hd = t.shape
            return t.view(b, n, h, hd // h).permute(0, 2, 1, 3).reshape(b * h, n, hd // h)
        q, k, v = map(split_heads, (q, k, v))

        sim = mint.bmm(q, k.transpose(1, 2)) * self.scale  # einsum('b i d, b j d -> b i j'): Ascend only

        if exists(mask):
            mask = mask.reshape(mask.shape[0], -1)  # 'b ... -> b (...)'
            max_neg_value = -float(np.finfo(ms.dtype_to_nptype(sim.dtype)).max)  # torch.finfo(sim.dtype).max
            # repeat(mask, 'b j -> (b h) () j', h=h)
            mask = mask[:, None, None, :].expand(-1, h, 1, -1).reshape(-1, 1, mask.shape[-1])
            sim = sim.masked_fill(~mask, max_neg_value)  # masked_fill_: no CPU kernel

        attn = F.softmax(sim, dim=-1)  # Tensor.softmax has no dim=
        out = mint.bmm(attn, v)  # einsum('b i j, b j d -> b i d')
        bh, n, d = out.shape
        out = out.view(bh // h, h, n, d).transpose(1, 2).reshape(bh // h, n, h * d)
        return self.to_out(out)


# main class

class PerceiverIO(nn.Cell):
    def __init__(self, *, depth, dim, queries_dim, logits_dim=None, num_latents=512, latent_dim=512,
                 cross_heads=1, latent_heads=8, cross_dim_head=64, latent_dim_head=64,
                 weight_tie_layers=False, decoder_ff=False):
        super().__init__()
        self.latents = Parameter(Tensor(np.random.randn(num_latents, latent_dim).astype(np.float32)),
                                 name='latents')

        self.cross_attend_blocks = nn.CellList([
            PreNorm(latent_dim, Attention(latent_dim, dim, heads=cross_heads, dim_head=cross_dim_head),
                    context_dim=dim),
            PreNorm(latent_dim, FeedForward(latent_dim))
        ])

        get_latent_attn = lambda: PreNorm(latent_dim, Attention(latent_dim, heads=latent_heads,
                                                                dim_head=latent_dim_head))
        get_latent_ff = lambda: PreNorm(latent_dim, FeedForward(latent_dim))
        get_latent_attn, get_latent_ff = map(cache_fn, (get_latent_attn, get_latent_ff))

        self.layers = nn.CellList([])
        cache_args = {'_cache': weight_tie_layers}

        for i in range(depth):
            self.layers.append(nn.CellList([
                get_latent_attn(**cache_args),
                get_latent_ff(**cache_args)
            ]))

        self.decoder_cross_attn = PreNorm(queries_dim, Attention(queries_dim, latent_dim, heads=cross_heads,
                                                                 dim_head=cross_dim_head),
                                          context_dim=latent_dim)
        self.decoder_ff = PreNorm(queries_dim, FeedForward(queries_dim)) if decoder_ff else None

        self.to_logits = mint.nn.Linear(queries_dim, logits_dim) if exists(logits_dim) else mint.nn.Identity()

    def construct(self, data, mask=None, queries=None):
        b, *_ = data.shape

        x = self.latents.unsqueeze(0).expand(b, -1, -1)  # repeat(self.latents, 'n d -> b n d', b=b)

        cross_attn, cross_ff = self.cross_attend_blocks

        # cross attention only happens once for Perceiver IO
        x = cross_attn(x, context=data, mask=mask) + x
        x = cross_ff(x) + x

        # layers
        for self_attn, self_ff in self.layers:
            x = self_attn(x) + x
            x = self_ff(x) + x

        if not exists(queries):
            return x

        # make sure queries contains batch dimension
        if queries.ndim == 2:
            queries = queries.unsqueeze(0).tile((b, 1, 1))  # repeat(queries, 'n d -> b n d', b=b)

        # cross attend from decoder queries to latents
        latents = self.decoder_cross_attn(queries, context=x)

        # optional decoder feedforward
        if exists(self.decoder_ff):
            latents = latents + self.decoder_ff(latents)

        # final linear out
        return self.to_logits(latents)


class PerceiverIOClassifier(nn.Cell):
    """Image classifier: Fourier position features + PerceiverIO + one learned output query."""

    def __init__(self, *, num_classes, input_channels=3, input_axis=2, num_freq_bands=4, max_freq=8.,
                 queries_dim=32, fourier_encode_data=True, **kwargs):
        super().__init__()
        self.input_axis = input_axis
        self.max_freq = max_freq
        self.num_freq_bands = num_freq_bands
        self.fourier_encode_data = fourier_encode_data
        fourier_channels = (input_axis * ((num_freq_bands * 2) + 1)) if fourier_encode_data else 0
        input_dim = fourier_channels + input_channels
        self.perceiver = PerceiverIO(dim=input_dim, queries_dim=queries_dim, logits_dim=num_classes, **kwargs)
        self.queries = Parameter(Tensor(np.random.randn(1, queries_dim).astype(np.float32)), name='queries')

    def construct(self, data, mask=None):
        b, *axis, _ = data.shape
        dtype = data.dtype
        assert len(axis) == self.input_axis, 'input data must have the right number of axis'

        if self.fourier_encode_data:
            # calculate fourier encoded positions in the range of [-1, 1], for all axis
            axis_pos = list(map(lambda size: ops.linspace(-1., 1., steps=size).astype(dtype), axis))
            pos = ops.stack(mint.meshgrid(*axis_pos, indexing='ij'), axis=-1)  # mint.stack: no CPU kernel
            enc_pos = fourier_encode(pos, self.max_freq, self.num_freq_bands)
            enc_pos = enc_pos.view(*enc_pos.shape[:-2], -1)  # '... n d -> ... (n d)'
            enc_pos = enc_pos.unsqueeze(0).tile((b,) + (1,) * enc_pos.ndim)  # '... -> b ...'
            data = mint.cat((data, enc_pos), dim=-1)

        data = data.reshape(b, -1, data.shape[-1])  # 'b ... d -> b (...) d'
        logits = self.perceiver(data, mask=mask, queries=self.queries)
        return logits.squeeze(1)


CFG = dict(num_classes=5, input_channels=3, input_axis=2, num_freq_bands=4, max_freq=8., queries_dim=32,
           depth=2, num_latents=8, latent_dim=32, cross_heads=1, latent_heads=2, cross_dim_head=16,
           latent_dim_head=16, weight_tie_layers=True, decoder_ff=True)


def build():
    """Cell to compile for inference: (image float32[2,8,8,3], mask bool[2,8,8]) -> logits [2,5]."""
    return PerceiverIOClassifier(**CFG)


def make_inputs(seed=0):
    rng = np.random.RandomState(seed)
    img = Tensor(rng.randn(2, 8, 8, 3).astype(np.float32))
    mask = Tensor(rng.rand(2, 8, 8) > 0.2)
    return img, mask


if __name__ == '__main__':
    ms.set_context(mode=ms.PYNATIVE_MODE)
    ms.set_seed(0)
    np.random.seed(0)
    net = build()
    net.set_train(False)
    img, mask = make_inputs(0)
    print('logits (masked):', net(img, mask))
    print('logits (no mask):', net(img))
