"""Mamba (selective SSM) LM: MindSpore 2.10 port of johnma2006/mamba-minimal + state-spaces/mamba's
selective_scan_ref and recurrent step() decoding. einsum/rearrange written with broadcast/transpose/view."""
import math
from dataclasses import dataclass

import numpy as np
import mindspore as ms
from mindspore import nn, ops, Tensor, Parameter


@dataclass
class ModelArgs:
    d_model: int = 16
    n_layer: int = 2
    vocab_size: int = 50
    d_state: int = 4
    expand: int = 2
    dt_rank: int = -1          # 'auto' in the original
    d_conv: int = 4
    pad_vocab_size_multiple: int = 8
    conv_bias: bool = True
    bias: bool = False

    def __post_init__(self):
        self.d_inner = int(self.expand * self.d_model)
        if self.dt_rank == -1:
            self.dt_rank = math.ceil(self.d_model / 16)
        if self.vocab_size % self.pad_vocab_size_multiple != 0:
            self.vocab_size += (self.pad_vocab_size_multiple
                                - self.vocab_size % self.pad_vocab_size_multiple)


class CharTokenizer:
    """Stand-in for the HF tokenizer of the demo: one id per character."""
    def __init__(self, alphabet="abcdefghijklmnopqrstuvwxyz .,!?"):
        self.itos = ["<eos>"] + list(alphabet)
        self.stoi = {c: i for i, c in enumerate(self.itos)}
        self.eos_token_id = 0

    def __call__(self, texts):
        return Tensor([[self.stoi[c] for c in t] for t in texts], ms.int32)

    def decode(self, ids):
        return "".join(self.itos[i] if i < len(self.itos) else "?" for i in ids)


class InferenceParams:
    """Per-layer (conv_state, ssm_state) caches for recurrent decoding (as in mamba_ssm.utils.generation)."""
    def __init__(self, max_seqlen, max_batch_size):
        self.max_seqlen = max_seqlen
        self.max_batch_size = max_batch_size
        self.seqlen_offset = 0
        self.key_value_memory_dict = {}


class RMSNorm(nn.Cell):
    def __init__(self, d_model, eps=1e-5):
        super().__init__()
        self.eps = eps
        self.weight = Parameter(ops.ones(d_model, ms.float32))

    def construct(self, x):
        output = x * ops.rsqrt(x.pow(2).mean(-1, keepdim=True) + self.eps) * self.weight
        return output


def selective_scan(u, delta, A, B, C, D=None, delta_bias=None, delta_softplus=False, return_last_state=False):
    """u, delta: (b, l, d_in); A: (d_in, n); B, C: (b, l, n) or (d_in, n); D: (d_in,)."""
    dtype_in = u.dtype
    u = u.float()
    delta = delta.float()
    if delta_bias is not None:
        delta = delta + delta_bias[None, None, :].float()
    if delta_softplus:
        delta = ops.softplus(delta)
    (b, l, d_in) = u.shape
    n = A.shape[1]
    is_variable_B = B.dim() >= 3
    is_variable_C = C.dim() >= 3
    # einsum(delta, A, 'b l d_in, d_in n -> b l d_in n')
    deltaA = ops.exp(delta.unsqueeze(-1) * A)
    if is_variable_B:
        # einsum(delta, B, u, 'b l d_in, b l n, b l d_in -> b l d_in n')
        deltaB_u = delta.unsqueeze(-1) * B.unsqueeze(2) * u.unsqueeze(-1)
    else:
        deltaB_u = delta.unsqueeze(-1) * B * u.unsqueeze(-1)
    x = A.new_zeros((b, d_in, n))
    last_state = None
    ys = []
    for i in range(l):
        x = deltaA[:, i] * x + deltaB_u[:, i]
        if is_variable_C:
            # einsum(x, C[:, i, :], 'b d_in n, b n -> b d_in')
            y = ops.matmul(x, C[:, i, :].unsqueeze(-1)).squeeze(-1)
        else:
            y = (x * C).sum(-1)
        if i == l - 1:
            last_state = x
        ys.append(y)
    y = ops.stack(ys, axis=1)  # (b, l, d_in)
    out = y if D is None else y + u * D
    out = out.to(dtype=dtype_in)
    return out if not return_last_state else (out, last_state)


class MambaBlock(nn.Cell):
    def __init__(self, args: ModelArgs, layer_idx=None):
        super().__init__()
        self.args = args
        self.layer_idx = layer_idx
        self.in_proj = nn.Dense(args.d_model, args.d_inner * 2, has_bias=args.bias)
        self.conv1d = nn.Conv1d(args.d_inner, args.d_inner, kernel_size=args.d_conv, group=args.d_inner,
                                pad_mode="pad", padding=args.d_conv - 1, has_bias=args.conv_bias)
        # x_proj takes in `x` and outputs the input-specific delta, B, C
        self.x_proj = nn.Dense(args.d_inner, args.dt_rank + args.d_state * 2, has_bias=False)
        self.dt_proj = nn.Dense(args.dt_rank, args.d_inner, has_bias=True)
        # dt bias: inverse softplus of dt ~ LogUniform(dt_min, dt_max), as in state-spaces/mamba
        dt_min, dt_max = 1e-3, 1e-1
        dt = np.exp(np.random.rand(args.d_inner) * (math.log(dt_max) - math.log(dt_min)) + math.log(dt_min))
        dt = np.clip(dt, 1e-4, None)
        inv_dt = dt + np.log(-np.expm1(-dt))
        self.dt_proj.bias.set_data(Tensor(inv_dt, ms.float32))
        A = np.tile(np.arange(1, args.d_state + 1, dtype=np.float32), (args.d_inner, 1))  # 'n -> d n'
        self.A_log = Parameter(Tensor(np.log(A)), name="A_log")
        self.D = Parameter(ops.ones(args.d_inner, ms.float32), name="D")
        self.out_proj = nn.Dense(args.d_inner, args.d_model, has_bias=args.bias)

    def construct(self, x, inference_params=None):
        (b, l, d) = x.shape
        conv_state, ssm_state = None, None
        if inference_params is not None:
            conv_state, ssm_state = self._get_states_from_cache(inference_params, b)
            if inference_params.seqlen_offset > 0:
                return self.step(x, conv_state, ssm_state)
        x_and_res = self.in_proj(x)  # (b, l, 2 * d_in)
        (x, res) = x_and_res.split(split_size=[self.args.d_inner, self.args.d_inner], dim=-1)
        x = x.transpose(1, 2)  # rearrange 'b l d_in -> b d_in l'
        if conv_state is not None:
            conv_state.copy_(x[:, :, -self.args.d_conv:])  # keep the last d_conv inputs
        x = self.conv1d(x)[:, :, :l]
        x = x.transpose(1, 2)  # rearrange 'b d_in l -> b l d_in'
        x = ops.silu(x)
        y = self.ssm(x, ssm_state)
        y = y * ops.silu(res)
        output = self.out_proj(y)
        return output

    def ssm(self, x, ssm_state=None):
        (d_in, n) = self.A_log.shape
        (b, l, _) = x.shape
        A = -ops.exp(self.A_log.float())  # (d_in, n)
        D = self.D.float()
        x_dbl = self.x_proj(x.view(b * l, d_in))  # rearrange 'b l d -> (b l) d'
        x_dbl = x_dbl.view(b, l, -1)  # (b, l, dt_rank + 2*n)
        (delta, B, C) = x_dbl.split(split_size=[self.args.dt_rank, n, n], dim=-1)
        delta = ops.matmul(delta, self.dt_proj.weight.t())  # dt_proj without its bias: passed as delta_bias
        y = selective_scan(x, delta, A, B, C, D, delta_bias=self.dt_proj.bias.float(), delta_softplus=True,
                           return_last_state=ssm_state is not None)
        if ssm_state is not None:
            y, last_state = y
            ssm_state.copy_(last_state)
        return y

    def step(self, x, conv_state, ssm_state):
        """One decoding step. x: (b, 1, d); conv_state: (b, d_in, d_conv); ssm_state: (b, d_in, n)."""
        (d_in, n) = self.A_log.shape
        x_and_res = self.in_proj(x.squeeze(1))  # (b, 2 * d_in)
        (x, res) = x_and_res.split(split_size=[d_in, d_in], dim=-1)
        # torch.roll(conv_state, shifts=-1, dims=-1) (Roll has no CPU kernel)
        conv_state.copy_(ops.cat([conv_state[:, :, 1:], conv_state[:, :, :1]], axis=-1))
        conv_state[:, :, -1] = x
        x = ops.sum(conv_state * self.conv1d.weight.view(d_in, -1), dim=-1)  # 'd 1 1 w -> d w'
        x = x + self.conv1d.bias
        x = ops.silu(x)
        x_db = self.x_proj(x)  # (b, dt_rank + 2*n)
        (dt, B, C) = x_db.split(split_size=[self.args.dt_rank, n, n], dim=-1)
        dt = ops.softplus(ops.matmul(dt, self.dt_proj.weight.t()) + self.dt_proj.bias)
        A = -ops.exp(self.A_log.float())
        dA = ops.exp(dt.unsqueeze(-1) * A)  # einsum('bd,dn->bdn')
        dB = dt.unsqueeze(-1) * B.unsqueeze(1)  # einsum('bd,bn->bdn')
        ssm_state.copy_(ssm_state * dA + x.unsqueeze(-1) * dB)
        y = ops.matmul(ssm_state, C.unsqueeze(-1)).squeeze(-1)  # einsum('bdn,bn->bd')
        y = y + self.D * x
        y = y * ops.silu(res)
        return self.out_proj(y).unsqueeze(1)

    def _get_states_from_cache(self, inference_params, batch_size):
        if self.layer_idx not in inference_params.key_value_memory_dict:
            conv_state = ops.zeros((batch_size, self.args.d_inner, self.args.d_conv), ms.float32)
            ssm_state = ops.zeros((batch_size, self.args.d_inner, self.args.d_state), ms.float32)
            inference_params.key_value_memory_dict[self.layer_idx] = (conv_state, ssm_state)
        else:
            conv_state, ssm_state = inference_params.key_value_memory_dict[self.layer_idx]
        return conv_state, ssm_state


class ResidualBlock(nn.Cell):
    def __init__(self, args: ModelArgs, layer_idx=None):
        super().__init__()
        self.mixer = MambaBlock(args, layer_idx)
        self.norm = RMSNorm(args.d_model)

    def construct(self, x, inference_params=None):
        output = self.mixer(self.norm(x), inference_params) + x
        return output


class Mamba(nn.Cell):
    def __init__(self, args: ModelArgs):
        super().__init__()
        self.args = args
        self.embedding = nn.Embedding(args.vocab_size, args.d_model)
        self.layers = nn.CellList([ResidualBlock(args, layer_idx=i) for i in range(args.n_layer)])
        self.norm_f = RMSNorm(args.d_model)
        self.lm_head = nn.Dense(args.d_model, args.vocab_size, has_bias=False)
        self.lm_head.weight = self.embedding.embedding_table  # tie output projection to embedding weights

    def construct(self, input_ids, inference_params=None):
        x = self.embedding(input_ids)
        for layer in self.layers:
            x = layer(x, inference_params)
        x = self.norm_f(x)
        logits = self.lm_head(x)
        return logits

    def generate(self, input_ids, n_tokens_to_gen=4, sample=True, top_k=None, eos_token_id=None, use_cache=False):
        inference_params = None
        if use_cache:
            inference_params = InferenceParams(max_seqlen=input_ids.shape[1] + n_tokens_to_gen,
                                               max_batch_size=input_ids.shape[0])
        for token_n in range(n_tokens_to_gen):
            if inference_params is None or inference_params.seqlen_offset == 0:
                logits = self(input_ids, inference_params)
            else:
                logits = self(input_ids[:, -1:], inference_params)
            if inference_params is not None:
                inference_params.seqlen_offset += logits.shape[1]
            next_token_logits = logits[:, -1]
            probs = ops.softmax(next_token_logits, axis=-1)
            (batch, vocab_size) = probs.shape
            if top_k is not None:
                (values, indices) = ops.topk(probs, k=top_k)
                probs[probs < values[:, -1, None]] = 0
                probs = probs / probs.sum(axis=1, keepdims=True)
            if sample:
                next_indices = ops.multinomial(probs, num_samples=1)
            else:
                next_indices = ops.argmax(probs, dim=-1)[:, None]
            input_ids = ops.cat([input_ids, next_indices.astype(input_ids.dtype)], axis=1)
            if eos_token_id is not None and (next_indices == eos_token_id).all():
                break
        return input_ids


class MambaGenerator(nn.Cell):
    """The decoding path as a Cell, so it can be run under GRAPH_MODE / jit."""
    def __init__(self, model, n_tokens_to_gen=4, sample=False, top_k=None, eos_token_id=None, use_cache=False):
        super().__init__()
        self.model = model
        self.n_tokens_to_gen = n_tokens_to_gen
        self.sample = sample
        self.top_k = top_k
        self.eos_token_id = eos_token_id
        self.use_cache = use_cache

    def construct(self, input_ids):
        return self.model.generate(input_ids, self.n_tokens_to_gen, self.sample, self.top_k, self.eos_token_id,
                                   self.use_cache)


def build(seed=0):
    ms.set_seed(seed)
    np.random.seed(seed)
    args = ModelArgs()
    model = Mamba(args)
    model.set_train(False)
    return args, model


def main():
    ms.set_context(mode=ms.PYNATIVE_MODE)
    args, model = build(0)
    tok = CharTokenizer()
    input_ids = tok(["mamba is", "a snake!"])  # (2, 8)
    logits = model(input_ids)
    print("logits", logits.shape, float(logits.sum()), float(logits[0, -1, :5].abs().sum()))
    greedy = MambaGenerator(model, n_tokens_to_gen=4, sample=False, eos_token_id=tok.eos_token_id)
    out = greedy(input_ids)
    print("greedy", out.asnumpy().tolist(), [tok.decode(row.tolist()) for row in out])
    cached = MambaGenerator(model, n_tokens_to_gen=4, sample=False, eos_token_id=tok.eos_token_id, use_cache=True)
    out_c = cached(input_ids)
    print("greedy (recurrent, cached) ids", out_c.asnumpy().tolist(), "same:", bool((out_c == out).all()))
    ms.set_seed(1)
    topk = MambaGenerator(model, n_tokens_to_gen=4, sample=True, top_k=5)
    out = topk(input_ids)
    print("top-k", out.asnumpy().tolist(), [tok.decode(row.tolist()) for row in out])


if __name__ == "__main__":
    main()
