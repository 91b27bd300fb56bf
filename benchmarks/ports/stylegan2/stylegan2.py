"""Tiny StyleGAN2 generator, ported from rosinality/stylegan2-pytorch (model.py) to MindSpore.

Mapping network (PixelNorm + EqualLinear with lr_mul), ModulatedConv2d (modulation, demodulation,
grouped conv over the batch), NoiseInjection, ConstantInput, ToRGB with skip upsampling, style mixing,
truncation trick.  Upsampling uses bilinear interpolation instead of upfirdn2d blur.
"""
import math
import random

import numpy as np
import mindspore as ms
from mindspore import nn, ops, mint, Parameter, Tensor
import mindspore.mint.nn.functional as F


def fused_leaky_relu(input, bias, negative_slope=0.2, scale=2 ** 0.5):
    rest_dim = [1] * (input.ndim - bias.ndim - 1)
    # F.leaky_relu (mint) has no CPU kernel -> ops.leaky_relu
    return ops.leaky_relu(input + bias.view(1, bias.shape[0], *rest_dim), negative_slope) * scale


class PixelNorm(nn.Cell):
    def __init__(self):
        super().__init__()

    def construct(self, input):
        return input * mint.rsqrt(mint.mean(input ** 2, dim=1, keepdim=True) + 1e-8)


class FusedLeakyReLU(nn.Cell):
    def __init__(self, channel, negative_slope=0.2, scale=2 ** 0.5):
        super().__init__()
        self.bias = Parameter(mint.zeros(channel))
        self.negative_slope = negative_slope
        self.scale = scale

    def construct(self, input):
        return fused_leaky_relu(input, self.bias, self.negative_slope, self.scale)


class EqualLinear(nn.Cell):
    def __init__(self, in_dim, out_dim, bias=True, bias_init=0, lr_mul=1, activation=None):
        super().__init__()
        self.weight = Parameter(ops.randn((out_dim, in_dim)) / lr_mul)
        if bias:
            self.bias = Parameter(ops.full((out_dim,), bias_init, dtype=ms.float32))  # fill_ has no CPU kernel
        else:
            self.bias = None
        self.activation = activation
        self.scale = (1 / math.sqrt(in_dim)) * lr_mul
        self.lr_mul = lr_mul

    def construct(self, input):
        if self.activation:
            out = F.linear(input, self.weight * self.scale)
            out = fused_leaky_relu(out, self.bias * self.lr_mul)
        else:
            out = F.linear(input, self.weight * self.scale, bias=self.bias * self.lr_mul)
        return out


class ModulatedConv2d(nn.Cell):
    def __init__(self, in_channel, out_channel, kernel_size, style_dim, demodulate=True, upsample=False):
        super().__init__()
        self.eps = 1e-8
        self.kernel_size = kernel_size
        self.in_channel = in_channel
        self.out_channel = out_channel
        self.upsample = upsample
        fan_in = in_channel * kernel_size ** 2
        self.scale = 1 / math.sqrt(fan_in)
        self.padding = kernel_size // 2
        self.weight = Parameter(ops.randn((1, out_channel, in_channel, kernel_size, kernel_size)))
        self.modulation = EqualLinear(style_dim, in_channel, bias_init=1)
        self.demodulate = demodulate

    def construct(self, input, style):
        batch, in_channel, height, width = input.shape
        style = self.modulation(style).view(batch, 1, in_channel, 1, 1)
        weight = self.scale * self.weight * style
        if self.demodulate:
            demod = mint.rsqrt(weight.pow(2).sum([2, 3, 4]) + 1e-8)
            weight = weight * demod.view(batch, self.out_channel, 1, 1, 1)
        weight = weight.view(batch * self.out_channel, in_channel, self.kernel_size, self.kernel_size)
        if self.upsample:
            # no CPU kernel for (mint) conv_transpose2d / bilinear interpolate -> ops.interpolate
            input = ops.interpolate(input, scale_factor=2.0, mode="bilinear", align_corners=False,
                                    recompute_scale_factor=True)
            _, _, height, width = input.shape
        input = input.view(1, batch * in_channel, height, width)
        # mint conv2d has no CPU kernel -> ops.conv2d
        out = ops.conv2d(input, weight, pad_mode="pad", padding=self.padding, groups=batch)
        _, _, height, width = out.shape
        out = out.view(batch, self.out_channel, height, width)
        return out


class NoiseInjection(nn.Cell):
    def __init__(self):
        super().__init__()
        self.weight = Parameter(mint.zeros(1))

    def construct(self, image, noise=None):
        if noise is None:
            batch, _, height, width = image.shape
            # image.new_empty(...).normal_() has no CPU kernel (InplaceNormal) -> ops.randn
            noise = ops.randn((batch, 1, height, width), dtype=image.dtype)
        return image + self.weight * noise


class ConstantInput(nn.Cell):
    def __init__(self, channel, size=4):
        super().__init__()
        self.input = Parameter(ops.randn((1, channel, size, size)))

    def construct(self, input):
        batch = input.shape[0]
        # Tensor.repeat is "not supported on this device" (CPU) -> tile
        out = self.input.tile((batch, 1, 1, 1))
        return out


class StyledConv(nn.Cell):
    def __init__(self, in_channel, out_channel, kernel_size, style_dim, upsample=False, demodulate=True):
        super().__init__()
        self.conv = ModulatedConv2d(in_channel, out_channel, kernel_size, style_dim,
                                    upsample=upsample, demodulate=demodulate)
        self.noise = NoiseInjection()
        self.activate = FusedLeakyReLU(out_channel)

    def construct(self, input, style, noise=None):
        out = self.conv(input, style)
        out = self.noise(out, noise=noise)
        out = self.activate(out)
        return out


class Upsample(nn.Cell):
    def __init__(self, factor=2):
        super().__init__()
        self.factor = factor

    def construct(self, input):
        return ops.interpolate(input, scale_factor=float(self.factor), mode="bilinear",
                               align_corners=False, recompute_scale_factor=True)


class ToRGB(nn.Cell):
    def __init__(self, in_channel, style_dim, upsample=True):
        super().__init__()
        if upsample:
            self.upsample = Upsample()
        self.conv = ModulatedConv2d(in_channel, 3, 1, style_dim, demodulate=False)
        self.bias = Parameter(mint.zeros((1, 3, 1, 1)))

    def construct(self, input, style, skip=None):
        out = self.conv(input, style)
        out = out + self.bias
        if skip is not None:
            skip = self.upsample(skip)
            out = out + skip
        return out


class Generator(nn.Cell):
    def __init__(self, size, style_dim, n_mlp, channel_multiplier=1, lr_mlp=0.01):
        super().__init__()
        self.size = size
        self.style_dim = style_dim
        layers = [PixelNorm()]
        for i in range(n_mlp):
            layers.append(EqualLinear(style_dim, style_dim, lr_mul=lr_mlp, activation="fused_lrelu"))
        self.style = nn.SequentialCell(*layers)
        self.channels = {4: 32, 8: 32, 16: 16 * channel_multiplier}

        self.input = ConstantInput(self.channels[4])
        self.conv1 = StyledConv(self.channels[4], self.channels[4], 3, style_dim)
        self.to_rgb1 = ToRGB(self.channels[4], style_dim, upsample=False)

        self.log_size = int(math.log(size, 2))
        self.num_layers = (self.log_size - 2) * 2 + 1
        self.convs = nn.CellList()
        self.to_rgbs = nn.CellList()
        self.noises = nn.Cell()
        in_channel = self.channels[4]
        for layer_idx in range(self.num_layers):
            res = (layer_idx + 5) // 2
            shape = [1, 1, 2 ** res, 2 ** res]
            self.noises.register_buffer(f"noise_{layer_idx}", ops.randn(tuple(shape)))  # mint.randn: no CPU kernel
        for i in range(3, self.log_size + 1):
            out_channel = self.channels[2 ** i]
            self.convs.append(StyledConv(in_channel, out_channel, 3, style_dim, upsample=True))
            self.convs.append(StyledConv(out_channel, out_channel, 3, style_dim))
            self.to_rgbs.append(ToRGB(out_channel, style_dim))
            in_channel = out_channel
        self.n_latent = self.log_size * 2 - 2

    def make_noise(self):
        noises = [ops.randn((1, 1, 2 ** 2, 2 ** 2))]
        for i in range(3, self.log_size + 1):
            for _ in range(2):
                noises.append(ops.randn((1, 1, 2 ** i, 2 ** i)))
        return noises

    def mean_latent(self, n_latent):
        latent_in = ops.randn((n_latent, self.style_dim))
        latent = self.style(latent_in).mean(0, keepdim=True)
        return latent

    def get_latent(self, input):
        return self.style(input)

    def construct(self, styles, return_latents=False, inject_index=None, truncation=1,
                  truncation_latent=None, input_is_latent=False, noise=None, randomize_noise=True):
        if not input_is_latent:
            styles = [self.style(s) for s in styles]

        if noise is None:
            if randomize_noise:
                noise = [None] * self.num_layers
            else:
                noise = [getattr(self.noises, f"noise_{i}") for i in range(self.num_layers)]

        if truncation < 1:
            style_t = []
            for style in styles:
                style_t.append(truncation_latent + truncation * (style - truncation_latent))
            styles = style_t

        if len(styles) < 2:
            inject_index = self.n_latent
            if styles[0].ndim < 3:
                latent = styles[0].unsqueeze(1).tile((1, inject_index, 1))
            else:
                latent = styles[0]
        else:
            if inject_index is None:
                inject_index = random.randint(1, self.n_latent - 1)
            latent = styles[0].unsqueeze(1).tile((1, inject_index, 1))
            latent2 = styles[1].unsqueeze(1).tile((1, self.n_latent - inject_index, 1))
            latent = mint.cat([latent, latent2], 1)

        out = self.input(latent)
        out = self.conv1(out, latent[:, 0], noise=noise[0])
        skip = self.to_rgb1(out, latent[:, 1])

        i = 1
        for conv1, conv2, noise1, noise2, to_rgb in zip(
            self.convs[::2], self.convs[1::2], noise[1::2], noise[2::2], self.to_rgbs
        ):
            out = conv1(out, latent[:, i], noise=noise1)
            out = conv2(out, latent[:, i + 1], noise=noise2)
            skip = to_rgb(out, latent[:, i + 2], skip)
            i += 2

        image = skip
        if return_latents:
            return image, latent
        else:
            return image, None


class TruncatedGenerator(nn.Cell):
    """What a user compiles for inference: g([z], truncation=0.7, truncation_latent=mean) with fixed noise."""

    def __init__(self, g, mean, truncation=0.7):
        super().__init__()
        self.g = g
        self.mean = mean
        self.truncation = truncation

    def construct(self, z):
        image, _ = self.g([z], truncation=self.truncation, truncation_latent=self.mean,
                          randomize_noise=False)
        return image


class MixingGenerator(nn.Cell):
    """Style mixing of two codes with a random crossover point; returns the image and the latents."""

    def __init__(self, g):
        super().__init__()
        self.g = g

    def construct(self, z1, z2):
        image, latent = self.g([z1, z2], return_latents=True, randomize_noise=False)
        return image, latent


def build(seed=0):
    ms.set_seed(seed)
    np.random.seed(seed)
    random.seed(seed)
    g = Generator(16, 32, 2)
    mean = g.mean_latent(64)
    return TruncatedGenerator(g, mean)


if __name__ == "__main__":
    net = build()
    rng = np.random.RandomState(1)
    z = Tensor(rng.randn(2, 32).astype(np.float32))
    img = net(z)
    print("image", img.shape, float(img.sum()), float(img.abs().mean()))
    mix = MixingGenerator(net.g)
    random.seed(3)
    z2 = Tensor(rng.randn(2, 32).astype(np.float32))
    img2, lat = mix(z, z2)
    print("mix", img2.shape, lat.shape, float(img2.sum()))
    img3, _ = net.g([z])  # random noise
    print("random-noise", img3.shape)
