"""VQ-VAE with an EMA codebook and a small GRU prior over the codes (MindSpore 2.10 port).

Ported from the usual PyTorch implementations (zalandoresearch/pytorch-vq-vae `VectorQuantizerEMA`,
`Residual`/`ResidualStack`/`Encoder`/`Decoder`; rosinality/vq-vae-2-pytorch for `embed_code`), plus a tiny
autoregressive GRU prior over the 4x4 code map with temperature / top-k sampling (minGPT style) and decoding of
the sampled codes into images.  Tiny dims: 8x8 images, 16 codes of dim 8.
"""
import math
from dataclasses import dataclass

import numpy as np
import mindspore as ms
from mindspore import nn, ops, Parameter, Tensor
from mindspore.common.initializer import Uniform


@dataclass
class VQOutput:
    loss: Tensor
    quantized: Tensor
    perplexity: Tensor
    encodings: Tensor
    indices: Tensor


class CodebookUsage:
    """Plain Python helper: counts how often each code was picked (to spot dead codes)."""

    def __init__(self, num_codes):
        self.counts = np.zeros(num_codes, dtype=np.int64)
        self.calls = 0

    def update(self, indices):
        self.counts += np.bincount(indices.asnumpy().reshape(-1), minlength=len(self.counts))
        self.calls += 1
        return int((self.counts == 0).sum())


class VectorQuantizerEMA(nn.Cell):
    def __init__(self, num_embeddings, embedding_dim, commitment_cost, decay, epsilon=1e-5):
        super().__init__()
        self.embedding_dim = embedding_dim
        self.num_embeddings = num_embeddings
        self.embedding = nn.Embedding(num_embeddings, embedding_dim, embedding_table=Uniform(1.0 / num_embeddings))
        self.commitment_cost = commitment_cost
        self.ema_cluster_size = Parameter(ops.zeros(num_embeddings), requires_grad=False, name='ema_cluster_size')
        self.ema_w = Parameter(self.embedding.embedding_table.value().copy(), requires_grad=False, name='ema_w')
        self.decay = decay
        self.epsilon = epsilon

    def construct(self, inputs):
        # convert inputs from BCHW -> BHWC
        inputs = inputs.permute(0, 2, 3, 1).contiguous()
        input_shape = inputs.shape
        flat_input = inputs.view(-1, self.embedding_dim)
        weight = self.embedding.embedding_table

        # distances to every code
        distances = (ops.sum(flat_input ** 2, dim=1, keepdim=True)
                     + ops.sum(weight ** 2, dim=1)
                     - 2 * ops.matmul(flat_input, weight.t()))

        # encoding
        encoding_indices = distances.argmin(dim=1)
        encodings = ops.one_hot(encoding_indices, self.num_embeddings).float()

        # quantize and unflatten
        quantized = ops.matmul(encodings, weight).view(input_shape)

        # use EMA to update the embedding vectors
        if self.training:
            self.ema_cluster_size = self.ema_cluster_size * self.decay + (1 - self.decay) * ops.sum(encodings, 0)
            # Laplace smoothing of the cluster size
            n = ops.sum(self.ema_cluster_size)
            self.ema_cluster_size = ((self.ema_cluster_size + self.epsilon)
                                     / (n + self.num_embeddings * self.epsilon) * n)
            dw = ops.matmul(encodings.t(), flat_input)
            ops.assign(self.ema_w, self.ema_w * self.decay + (1 - self.decay) * dw)
            self.embedding.embedding_table.set_data(self.ema_w / self.ema_cluster_size.unsqueeze(1))

        # loss
        e_latent_loss = ops.mse_loss(ops.stop_gradient(quantized), inputs)
        loss = self.commitment_cost * e_latent_loss

        # straight-through estimator
        quantized = inputs + ops.stop_gradient(quantized - inputs)
        avg_probs = ops.mean(encodings, axis=0)
        perplexity = ops.exp(-ops.sum(avg_probs * ops.log(avg_probs + 1e-10)))

        # convert quantized from BHWC -> BCHW
        return VQOutput(loss, quantized.permute(0, 3, 1, 2).contiguous(), perplexity, encodings,
                        encoding_indices.view(input_shape[:-1]))

    def embed_code(self, embed_id):
        return self.embedding(embed_id)


class Residual(nn.Cell):
    def __init__(self, in_channels, num_hiddens, num_residual_hiddens):
        super().__init__()
        self.block = nn.SequentialCell(
            nn.ReLU(),
            nn.Conv2d(in_channels, num_residual_hiddens, 3, pad_mode='pad', padding=1, has_bias=False),
            nn.ReLU(),
            nn.Conv2d(num_residual_hiddens, num_hiddens, 1, has_bias=False))

    def construct(self, x):
        return x + self.block(x)


class ResidualStack(nn.Cell):
    def __init__(self, in_channels, num_hiddens, num_residual_layers, num_residual_hiddens):
        super().__init__()
        self.layers = nn.CellList([Residual(in_channels, num_hiddens, num_residual_hiddens)
                                   for _ in range(num_residual_layers)])

    def construct(self, x):
        for layer in self.layers:
            x = layer(x)
        return ops.relu(x)


class Encoder(nn.Cell):
    def __init__(self, in_channels, num_hiddens, num_residual_layers, num_residual_hiddens):
        super().__init__()
        self.conv_1 = nn.Conv2d(in_channels, num_hiddens // 2, 4, stride=2, pad_mode='pad', padding=1,
                                has_bias=True)
        self.conv_2 = nn.Conv2d(num_hiddens // 2, num_hiddens, 3, pad_mode='pad', padding=1, has_bias=True)
        self.residual_stack = ResidualStack(num_hiddens, num_hiddens, num_residual_layers, num_residual_hiddens)

    def construct(self, inputs):
        x = ops.relu(self.conv_1(inputs))
        x = self.conv_2(x)
        return self.residual_stack(x)


class Decoder(nn.Cell):
    def __init__(self, in_channels, num_hiddens, num_residual_layers, num_residual_hiddens, out_channels=1):
        super().__init__()
        self.conv_1 = nn.Conv2d(in_channels, num_hiddens, 3, pad_mode='pad', padding=1, has_bias=True)
        self.residual_stack = ResidualStack(num_hiddens, num_hiddens, num_residual_layers, num_residual_hiddens)
        self.conv_trans_1 = nn.Conv2dTranspose(num_hiddens, out_channels, 4, stride=2, pad_mode='pad',
                                               padding=1, has_bias=True)

    def construct(self, inputs):
        x = self.conv_1(inputs)
        x = self.residual_stack(x)
        return self.conv_trans_1(x)


class VQVAE(nn.Cell):
    def __init__(self, num_hiddens=16, num_residual_layers=2, num_residual_hiddens=8, num_embeddings=16,
                 embedding_dim=8, commitment_cost=0.25, decay=0.99):
        super().__init__()
        self.encoder = Encoder(1, num_hiddens, num_residual_layers, num_residual_hiddens)
        self.pre_vq_conv = nn.Conv2d(num_hiddens, embedding_dim, 1, has_bias=True)
        self.vq = VectorQuantizerEMA(num_embeddings, embedding_dim, commitment_cost, decay)
        self.decoder = Decoder(embedding_dim, num_hiddens, num_residual_layers, num_residual_hiddens)
        self.usage = CodebookUsage(num_embeddings)

    def encode(self, x):
        z = self.pre_vq_conv(self.encoder(x))
        return self.vq(z)

    def decode_codes(self, codes):
        b = codes.shape[0]
        side = int(math.sqrt(codes.shape[1]))
        z = self.vq.embed_code(codes.view(b, side, side))  # B, H, W, D
        z = z.permute(0, 3, 1, 2)
        return ops.sigmoid(self.decoder(z))

    def construct(self, x):
        q = self.encode(x)
        x_recon = self.decoder(q.quantized)
        recon_error = ops.mse_loss(x_recon, x)
        dead = self.usage.update(q.indices)
        return {"loss": recon_error + q.loss, "recon": x_recon, "perplexity": q.perplexity,
                "codes": q.indices.view(x.shape[0], -1), "dead_codes": dead}


class CodePrior(nn.Cell):
    """Tiny autoregressive GRU prior over the flattened code map."""

    def __init__(self, num_codes=16, seq_len=16, hidden=16):
        super().__init__()
        self.num_codes = num_codes
        self.seq_len = seq_len
        self.start_id = num_codes
        self.embed = nn.Embedding(num_codes + 1, hidden)
        self.gru = nn.GRU(hidden, hidden, batch_first=True)
        self.head = nn.Dense(hidden, num_codes)

    def construct(self, codes):
        # teacher forcing: logits for every position
        b = codes.shape[0]
        start = ops.full((b, 1), self.start_id, dtype=codes.dtype)
        inp = ops.cat([start, codes[:, :-1]], axis=1)
        out, _ = self.gru(self.embed(inp))
        return self.head(out)

    def sample(self, batch_size, temperature=1.0, top_k=None):
        tok = ops.full((batch_size, 1), self.start_id, dtype=ms.int32)
        h = None
        codes = []
        for _ in range(self.seq_len):
            out, h = self.gru(self.embed(tok), h)
            logits = self.head(out[:, -1, :])
            if temperature == 0.0:
                _, tok = logits.max(-1, keepdim=True)
            else:
                logits = logits / temperature
                if top_k is not None:
                    v, _ = ops.topk(logits, min(top_k, logits.shape[-1]))
                    logits[logits < v[:, [-1]]] = -float('Inf')
                probs = ops.softmax(logits, axis=-1)
                tok = ops.multinomial(probs, 1)
            tok = tok.astype(ms.int32)
            codes.append(tok)
        return ops.cat(codes, axis=1)


class VQVAESampler(nn.Cell):
    """Inference: sample codes from the prior and decode them to images."""

    def __init__(self, vqvae, prior):
        super().__init__()
        self.vqvae = vqvae
        self.prior = prior

    def construct(self, batch_size, temperature=1.0, top_k=None):
        codes = self.prior.sample(batch_size, temperature, top_k)
        images = self.vqvae.decode_codes(codes)
        return images, codes


def build(seed=0):
    ms.set_seed(seed)
    np.random.seed(seed)
    vqvae = VQVAE()
    prior = CodePrior()
    return vqvae, prior


def main():
    ms.set_context(mode=ms.PYNATIVE_MODE)
    vqvae, prior = build()
    images = Tensor((np.random.randn(2, 1, 8, 8) * 4).astype(np.float32))

    vqvae.set_train(True)
    for step in range(2):  # EMA codebook updates in the forward
        out = vqvae(images)
        print(f"train step {step}: loss={out['loss'].asnumpy():.6f} perplexity={out['perplexity'].asnumpy():.4f} "
              f"dead={out['dead_codes']}")
    print("ema_cluster_size", np.round(vqvae.vq.ema_cluster_size.asnumpy(), 5))

    vqvae.set_train(False)
    out = vqvae(images)
    print("eval loss", out["loss"].asnumpy(), "codes", out["codes"].asnumpy().tolist())
    print("recon[0,0,0]", np.round(out["recon"].asnumpy()[0, 0, 0], 5))
    print("prior logits", prior(out["codes"]).shape)

    sampler = VQVAESampler(vqvae, prior)
    sampler.set_train(False)
    for temperature, top_k in [(1.0, 4), (0.8, 1), (0.0, None)]:
        ms.set_seed(1)
        imgs, codes = sampler(2, temperature, top_k)
        print(f"T={temperature} top_k={top_k} codes", codes.asnumpy().tolist(),
              "img sum", np.round(imgs.asnumpy().sum(), 5))


if __name__ == "__main__":
    main()
