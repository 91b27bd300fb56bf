"""OpenAI CLIP (openai/CLIP: clip/model.py, clip/simple_tokenizer.py, clip/clip.py tokenize, the zero-shot
notebook) ported from PyTorch to MindSpore 2.10, tiny sizes; a word-level vocabulary replaces the BPE merges file."""
import re
from collections import OrderedDict
from functools import lru_cache

import numpy as np

import mindspore as ms
from mindspore import Parameter, Tensor, mint, nn, ops
from mindspore.mint.nn import functional as F


# ----------------------------------------------------------------------------- clip/simple_tokenizer.py
@lru_cache()
def bytes_to_unicode():
    bs = list(range(ord("!"), ord("~") + 1)) + list(range(ord("¡"), ord("¬") + 1)) + list(range(ord("®"), ord("ÿ") + 1))
    cs = bs[:]
    n = 0
    for b in range(2 ** 8):
        if b not in bs:
            bs.append(b)
            cs.append(2 ** 8 + n)
            n += 1
    cs = [chr(n) for n in cs]
    return dict(zip(bs, cs))


def whitespace_clean(text):
    text = re.sub(r"\s+", " ", text)
    text = text.strip()
    return text


class SimpleTokenizer(object):
    def __init__(self, words):
        self.byte_encoder = bytes_to_unicode()
        self.byte_decoder = {v: k for k, v in self.byte_encoder.items()}
        vocab = list(bytes_to_unicode().values())
        vocab = vocab + [v + "</w>" for v in vocab]
        for word in words:
            vocab.append(word + "</w>")
        vocab.extend(["<|startoftext|>", "<|endoftext|>"])
        self.encoder = dict(zip(vocab, range(len(vocab))))
        self.decoder = {v: k for k, v in self.encoder.items()}
        self.cache = {"<|startoftext|>": "<|startoftext|>", "<|endoftext|>": "<|endoftext|>"}
        self.pat = re.compile(r"""<\|startoftext\|>|<\|endoftext\|>|'s|'t|'re|'ve|'m|'ll|'d|[a-z]+|[0-9]|[^\s a-z0-9]+""",
                              re.IGNORECASE)

    def bpe(self, token):
        if token in self.cache:
            return self.cache[token]
        if token + "</w>" in self.encoder:  # whole word known
            word = token + "</w>"
        else:  # byte-level fallback: one symbol per byte, the last one marks the end of the word
            word = " ".join(list(token[:-1]) + [token[-1] + "</w>"])
        self.cache[token] = word
        return word

    def encode(self, text):
        bpe_tokens = []
        text = whitespace_clean(text).lower()
        for token in re.findall(self.pat, text):
            token = "".join(self.byte_encoder[b] for b in token.encode("utf-8"))
            bpe_tokens.extend(self.encoder[bpe_token] for bpe_token in self.bpe(token).split(" "))
        return bpe_tokens

    def decode(self, tokens):
        text = "".join([self.decoder[token] for token in tokens])
        text = bytearray([self.byte_decoder[c] for c in text]).decode("utf-8", errors="replace").replace("</w>", " ")
        return text


WORDS = ["photo", "of", "the", "blurry", "drawing", "cat", "dog", "car"]
_tokenizer = SimpleTokenizer(WORDS)


def tokenize(texts, context_length=16, truncate=False):
    if isinstance(texts, str):
        texts = [texts]
    sot_token = _tokenizer.encoder["<|startoftext|>"]
    eot_token = _tokenizer.encoder["<|endoftext|>"]
    all_tokens = [[sot_token] + _tokenizer.encode(text) + [eot_token] for text in texts]
    result = mint.zeros((len(all_tokens), context_length), dtype=ms.int32)
    for i, tokens in enumerate(all_tokens):
        if len(tokens) > context_length:
            if truncate:
                tokens = tokens[:context_length]
                tokens[-1] = eot_token
            else:
                raise RuntimeError(f"Input {texts[i]} is too long for context length {context_length}")
        result[i, :len(tokens)] = Tensor(tokens, ms.int32)
    return result


# ----------------------------------------------------------------------------- clip/model.py
class LayerNorm(nn.LayerNorm):
    """Subclass torch's LayerNorm to handle fp16."""

    def construct(self, x):
        orig_type = x.dtype
        ret = super().construct(x.type(ms.float32))
        return ret.type(orig_type)


class QuickGELU(nn.Cell):
    def construct(self, x):
        return x * mint.sigmoid(1.702 * x)


class MultiheadAttention(nn.Cell):
    """nn.MultiheadAttention (batch_first=False) written out like F.multi_head_attention_forward."""

    def __init__(self, embed_dim, num_heads):
        super().__init__()
        self.embed_dim = embed_dim
        self.num_heads = num_heads
        self.head_dim = embed_dim // num_heads
        assert self.head_dim * num_heads == embed_dim, "embed_dim must be divisible by num_heads"
        bound = (6.0 / (embed_dim + 3 * embed_dim)) ** 0.5  # xavier_uniform_
        self.in_proj_weight = Parameter(ops.rand(3 * embed_dim, embed_dim) * 2 * bound - bound)
        self.in_proj_bias = Parameter(mint.zeros(3 * embed_dim))
        self.out_proj = mint.nn.Linear(embed_dim, embed_dim)

    def construct(self, query, key, value, need_weights=True, attn_mask=None):
        tgt_len, bsz, embed_dim = query.shape
        q, k, v = F.linear(query, self.in_proj_weight, self.in_proj_bias).chunk(3, dim=-1)
        q = q.contiguous().view(tgt_len, bsz * self.num_heads, self.head_dim).transpose(0, 1)
        k = k.contiguous().view(k.shape[0], bsz * self.num_heads, self.head_dim).transpose(0, 1)
        v = v.contiguous().view(v.shape[0], bsz * self.num_heads, self.head_dim).transpose(0, 1)
        q = q * (float(self.head_dim) ** -0.5)
        if attn_mask is not None:
            attn_output_weights = ops.baddbmm(attn_mask, q, k.transpose(-2, -1))
        else:
            attn_output_weights = mint.bmm(q, k.transpose(-2, -1))
        attn_output_weights = F.softmax(attn_output_weights, dim=-1)
        attn_output = mint.bmm(attn_output_weights, v)
        attn_output = attn_output.transpose(0, 1).contiguous().view(tgt_len * bsz, embed_dim)
        attn_output = self.out_proj(attn_output).view(tgt_len, bsz, attn_output.shape[1])
        if need_weights:
            attn_output_weights = attn_output_weights.view(bsz, self.num_heads, tgt_len, -1)
            return attn_output, attn_output_weights.mean(dim=1)
        return attn_output, None


class ResidualAttentionBlock(nn.Cell):
    def __init__(self, d_model, n_head, attn_mask=None):
        super().__init__()
        self.attn = MultiheadAttention(d_model, n_head)
        self.ln_1 = LayerNorm((d_model,))
        self.mlp = nn.SequentialCell(OrderedDict([
            ("c_fc", mint.nn.Linear(d_model, d_model * 4)),
            ("gelu", QuickGELU()),
            ("c_proj", mint.nn.Linear(d_model * 4, d_model))
        ]))
        self.ln_2 = LayerNorm((d_model,))
        self.attn_mask = attn_mask

    def attention(self, x):
        self.attn_mask = self.attn_mask.to(dtype=x.dtype) if self.attn_mask is not None else None
        return self.attn(x, x, x, need_weights=False, attn_mask=self.attn_mask)[0]

    def construct(self, x):
        x = x + self.attention(self.ln_1(x))
        x = x + self.mlp(self.ln_2(x))
        return x


class Transformer(nn.Cell):
    def __init__(self, width, layers, heads, attn_mask=None):
        super().__init__()
        self.width = width
        self.layers = layers
        self.resblocks = nn.SequentialCell(*[ResidualAttentionBlock(width, heads, attn_mask) for _ in range(layers)])

    def construct(self, x):
        return self.resblocks(x)


class VisionTransformer(nn.Cell):
    def __init__(self, input_resolution, patch_size, width, layers, heads, output_dim):
        super().__init__()
        self.input_resolution = input_resolution
        self.output_dim = output_dim
        self.conv1 = nn.Conv2d(3, width, kernel_size=patch_size, stride=patch_size, has_bias=False, pad_mode="valid")
        scale = width ** -0.5
        self.class_embedding = Parameter(scale * ops.randn(width))
        self.positional_embedding = Parameter(scale * ops.randn((input_resolution // patch_size) ** 2 + 1, width))
        self.ln_pre = LayerNorm((width,))
        self.transformer = Transformer(width, layers, heads)
        self.ln_post = LayerNorm((width,))
        self.proj = Parameter(scale * ops.randn(width, output_dim))

    def construct(self, x):
        x = self.conv1(x)  # shape = [*, width, grid, grid]
        x = x.reshape(x.shape[0], x.shape[1], -1)  # shape = [*, width, grid ** 2]
        x = x.permute(0, 2, 1)  # shape = [*, grid ** 2, width]
        x = mint.cat([self.class_embedding.to(x.dtype) + mint.zeros((x.shape[0], 1, x.shape[-1]), dtype=x.dtype), x], dim=1)
        x = x + self.positional_embedding.to(x.dtype)
        x = self.ln_pre(x)
        x = x.permute(1, 0, 2)  # NLD -> LND
        x = self.transformer(x)
        x = x.permute(1, 0, 2)  # LND -> NLD
        x = self.ln_post(x[:, 0, :])
        if self.proj is not None:
            x = x @ self.proj
        return x


class CLIP(nn.Cell):
    def __init__(self, embed_dim, image_resolution, vision_layers, vision_width, vision_patch_size,
                 context_length, vocab_size, transformer_width, transformer_heads, transformer_layers):
        super().__init__()
        self.context_length = context_length
        vision_heads = vision_width // 8
        self.visual = VisionTransformer(input_resolution=image_resolution, patch_size=vision_patch_size,
                                        width=vision_width, layers=vision_layers, heads=vision_heads,
                                        output_dim=embed_dim)
        self.transformer = Transformer(width=transformer_width, layers=transformer_layers, heads=transformer_heads,
                                       attn_mask=self.build_attention_mask())
        self.vocab_size = vocab_size
        self.token_embedding = nn.Embedding(vocab_size, transformer_width)
        self.positional_embedding = Parameter(mint.empty(self.context_length, transformer_width))
        self.ln_final = LayerNorm((transformer_width,))
        self.text_projection = Parameter(mint.empty(transformer_width, embed_dim))
        self.logit_scale = Parameter(Tensor(np.log(1 / 0.07), ms.float32))
        self.initialize_parameters()

    def initialize_parameters(self):
        self.token_embedding.embedding_table.set_data(ops.randn(*self.token_embedding.embedding_table.shape) * 0.02)
        self.positional_embedding.set_data(ops.randn(*self.positional_embedding.shape) * 0.01)
        self.text_projection.set_data(ops.randn(*self.text_projection.shape) * self.transformer.width ** -0.5)

    def build_attention_mask(self):
        # lazily create causal attention mask, with full attention between the vision tokens
        # pytorch uses additive attention mask; fill with -inf
        mask = mint.empty(self.context_length, self.context_length)
        mask = mask.fill(float("-inf"))
        mask = mask.triu(1)  # zero out the lower diagonal
        return mask

    @property
    def dtype(self):
        return self.visual.conv1.weight.dtype

    def encode_image(self, image):
        return self.visual(image.type(self.dtype))

    def encode_text(self, text):
        x = self.token_embedding(text).type(self.dtype)  # [batch_size, n_ctx, d_model]
        x = x + self.positional_embedding.type(self.dtype)
        x = x.permute(1, 0, 2)  # NLD -> LND
        x = self.transformer(x)
        x = x.permute(1, 0, 2)  # LND -> NLD
        x = self.ln_final(x).type(self.dtype)
        # x.shape = [batch_size, n_ctx, transformer.width]
        # take features from the eot embedding (eot_token is the highest number in each sequence)
        x = x[ops.arange(x.shape[0]), text.argmax(dim=-1)] @ self.text_projection
        return x

    def construct(self, image, text):
        image_features = self.encode_image(image)
        text_features = self.encode_text(text)
        # normalized features
        image_features = image_features / image_features.norm(dim=1, keepdim=True)
        text_features = text_features / text_features.norm(dim=1, keepdim=True)
        # cosine similarity as logits
        logit_scale = self.logit_scale.exp()
        logits_per_image = logit_scale * image_features @ text_features.t()
        logits_per_text = logits_per_image.t()
        # shape = [global_batch_size, global_batch_size]
        return logits_per_image, logits_per_text


class ClipLoss(nn.Cell):
    """Symmetric InfoNCE: image->text and text->image cross-entropy against the diagonal."""

    def __init__(self, model):
        super().__init__()
        self.model = model

    def construct(self, images, texts):
        logits_per_image, logits_per_text = self.model(images, texts)
        n = logits_per_image.shape[0]
        labels = ops.arange(n)
        loss_i = ops.cross_entropy(logits_per_image, labels)
        loss_t = ops.cross_entropy(logits_per_text, labels)
        total_loss = (loss_i + loss_t) / 2
        return {"loss": total_loss, "acc": (logits_per_image.argmax(dim=-1) == labels).float().mean().item()}


# ----------------------------------------------------------------------------- zero-shot classification
class ZeroShotClassifier(nn.Cell):
    def __init__(self, model, classnames, templates):
        super().__init__()
        self.model = model
        self.classnames = classnames
        self.templates = templates

    def zeroshot_classifier(self, classnames, templates):
        zeroshot_weights = []
        for classname in classnames:
            texts = [template.format(classname) for template in templates]  # format with class
            texts = tokenize(texts, context_length=self.model.context_length)  # tokenize
            class_embeddings = self.model.encode_text(texts)  # embed with text encoder
            class_embeddings /= class_embeddings.norm(dim=-1, keepdim=True)
            class_embedding = class_embeddings.mean(dim=0)
            class_embedding /= class_embedding.norm()
            zeroshot_weights.append(class_embedding)
        zeroshot_weights = ops.stack(zeroshot_weights, axis=1)
        return zeroshot_weights

    def construct(self, images):
        zeroshot_weights = self.zeroshot_classifier(self.classnames, self.templates)
        image_features = self.model.encode_image(images)
        image_features /= image_features.norm(dim=-1, keepdim=True)
        logits = 100. * image_features @ zeroshot_weights
        probs = logits.softmax(-1)
        top_probs, top_labels = probs.topk(min(5, len(self.classnames)), dim=-1)
        predictions = [[self.classnames[j] for j in row] for row in top_labels.tolist()]
        return {"probs": probs, "top_probs": top_probs, "top_labels": top_labels, "predictions": predictions}


CLASSNAMES = ["cat", "dog", "car"]
TEMPLATES = ["a photo of a {}.", "a blurry photo of a {}.", "a drawing of the {}."]


def build():
    ms.set_seed(0)
    np.random.seed(0)
    model = CLIP(embed_dim=16, image_resolution=32, vision_layers=2, vision_width=32, vision_patch_size=8,
                 context_length=16, vocab_size=len(_tokenizer.encoder), transformer_width=32,
                 transformer_heads=4, transformer_layers=2)
    return model, ClipLoss(model), ZeroShotClassifier(model, CLASSNAMES, TEMPLATES)


def inputs():
    images = Tensor(np.random.RandomState(1).randn(2, 3, 32, 32).astype(np.float32))
    texts = tokenize(["a photo of a cat.", "a blurry drawing of the dog."])
    return images, texts


if __name__ == "__main__":
    ms.set_context(mode=ms.PYNATIVE_MODE)
    model, loss_fn, classifier = build()
    images, texts = inputs()
    print("tokens", texts.asnumpy()[:, :10].tolist(), _tokenizer.decode(texts.asnumpy()[1, 1:8].tolist()))
    logits_per_image, logits_per_text = model(images, texts)
    print("logits_per_image", logits_per_image.shape, logits_per_image.asnumpy().round(4).tolist())
    out = loss_fn(images, texts)
    print("loss", out["loss"].asnumpy(), "acc", out["acc"])
    res = classifier(images)
    print("probs", res["probs"].asnumpy().round(4).tolist())
    print("top", res["top_labels"].asnumpy().tolist(), res["predictions"])
