"""Tiny Mixture-of-Experts causal LM (Mixtral-style sparse MoE block, top-k routing),
ported from PyTorch (transformers MixtralSparseMoeBlock / makeMoE) to MindSpore 2.10."""
import math
from dataclasses import dataclass
from typing import Optional, Tuple

import numpy as np
import mindspore as ms
from mindspore import nn, ops, Tensor


@dataclass
class MoEConfig:
    vocab_size: int = 50
    d_model: int = 32
    n_heads: int = 4
    n_layers: int = 2
    num_experts: int = 4
    top_k: int = 2
    d_ff: int = 64
    max_seq_len: int = 16
    capacity_factor: float = 1.0
    router_aux_loss_coef: float = 0.02
    rope_theta: float = 10000.0
    eos_token_id: int = 2


@dataclass
class MoECausalLMOutput:
    logits: Tensor
    loss: Optional[Tensor] = None
    aux_loss: Optional[Tensor] = None
    router_logits: Optional[Tuple[Tensor, ...]] = None


def precompute_rope(head_dim, max_len, theta):
    inv_freq = 1.0 / (theta ** (np.arange(0, head_dim, 2, dtype=np.float32) / head_dim))
    t = np.arange(max_len, dtype=np.float32)
    freqs = np.outer(t, inv_freq)
    emb = np.concatenate([freqs, freqs], axis=-1)
    return Tensor(np.cos(emb), ms.float32), Tensor(np.sin(emb), ms.float32)


def rotate_half(x):
    x1, x2 = x.chunk(2, dim=-1)
    return ops.cat((-x2, x1), axis=-1)


def apply_rotary_pos_emb(q, k, cos, sin):
    cos = cos[None, None, :, :]
    sin = sin[None, None, :, :]
    return (q * cos) + (rotate_half(q) * sin), (k * cos) + (rotate_half(k) * sin)


def load_balancing_loss_func(gate_logits, num_experts, top_k):
    """Switch-Transformer auxiliary loss (as in transformers' Mixtral)."""
    if gate_logits is None or len(gate_logits) == 0:
        return 0
    concatenated_gate_logits = ops.cat([layer_gate for layer_gate in gate_logits], axis=0)
    routing_weights = ops.softmax(concatenated_gate_logits, axis=-1)
    _, selected_experts = ops.topk(routing_weights, top_k, dim=-1)
    expert_mask = ops.one_hot(selected_experts, num_experts)
    tokens_per_expert = expert_mask.float().mean(0)
    router_prob_per_expert = routing_weights.mean(0)
    overall_loss = (tokens_per_expert * router_prob_per_expert.unsqueeze(0)).sum()
    return overall_loss * num_experts


class CausalSelfAttention(nn.Cell):
    def __init__(self, cfg):
        super().__init__()
        self.n_heads = cfg.n_heads
        self.head_dim = cfg.d_model // cfg.n_heads
        self.qkv = nn.Dense(cfg.d_model, 3 * cfg.d_model, has_bias=False)
        self.o_proj = nn.Dense(cfg.d_model, cfg.d_model, has_bias=False)
        mask = np.triu(np.ones((cfg.max_seq_len, cfg.max_seq_len), dtype=np.bool_), k=1)
        self.causal_mask = Tensor(mask)

    def construct(self, x, cos, sin):
        B, T, C = x.shape
        q, k, v = self.qkv(x).split(C, dim=2)
        q = q.view(B, T, self.n_heads, self.head_dim).transpose(1, 2)
        k = k.view(B, T, self.n_heads, self.head_dim).transpose(1, 2)
        v = v.view(B, T, self.n_heads, self.head_dim).transpose(1, 2)
        q, k = apply_rotary_pos_emb(q, k, cos[:T], sin[:T])
        att = ops.matmul(q, k.transpose(-2, -1)) / math.sqrt(self.head_dim)
        att = att.masked_fill(self.causal_mask[:T, :T], float("-inf"))
        att = ops.softmax(att, axis=-1)
        y = ops.matmul(att, v)
        y = y.transpose(1, 2).contiguous().view(B, T, C)
        return self.o_proj(y)


class ExpertMLP(nn.Cell):
    """SwiGLU expert (MixtralBlockSparseTop2MLP)."""
    def __init__(self, cfg):
        super().__init__()
        self.w1 = nn.Dense(cfg.d_model, cfg.d_ff, has_bias=False)
        self.w2 = nn.Dense(cfg.d_ff, cfg.d_model, has_bias=False)
        self.w3 = nn.Dense(cfg.d_model, cfg.d_ff, has_bias=False)

    def construct(self, x):
        return self.w2(ops.silu(self.w1(x)) * self.w3(x))


class SparseMoeBlock(nn.Cell):
    def __init__(self, cfg):
        super().__init__()
        self.hidden_dim = cfg.d_model
        self.num_experts = cfg.num_experts
        self.top_k = cfg.top_k
        self.capacity_factor = cfg.capacity_factor
        self.gate = nn.Dense(cfg.d_model, cfg.num_experts, has_bias=False)
        self.experts = nn.CellList([ExpertMLP(cfg) for _ in range(cfg.num_experts)])
        self.dropped_tokens = 0

    def expert_capacity(self, num_tokens):
        return max(1, math.ceil(self.capacity_factor * num_tokens * self.top_k / self.num_experts))

    def construct(self, hidden_states):
        batch_size, sequence_length, hidden_dim = hidden_states.shape
        hidden_states = hidden_states.view(-1, hidden_dim)
        router_logits = self.gate(hidden_states)

        routing_weights = ops.softmax(router_logits, axis=1, dtype=ms.float32)
        routing_weights, selected_experts = ops.topk(routing_weights, self.top_k, dim=-1)
        routing_weights /= routing_weights.sum(dim=-1, keepdim=True)
        routing_weights = routing_weights.astype(hidden_states.dtype)

        final_hidden_states = ops.zeros((batch_size * sequence_length, hidden_dim), dtype=hidden_states.dtype)
        # (num_experts, top_k, num_tokens): which token picked which expert in which slot
        expert_mask = ops.one_hot(selected_experts, self.num_experts).permute(2, 1, 0)
        capacity = self.expert_capacity(batch_size * sequence_length)

        dropped = 0
        for expert_idx in range(self.num_experts):
            expert_layer = self.experts[expert_idx]
            nz = expert_mask[expert_idx].nonzero()          # torch.where(expert_mask[expert_idx])
            idx, top_x = nz[:, 0], nz[:, 1]
            if top_x.shape[0] == 0:
                continue
            if top_x.shape[0] > capacity:                   # expert capacity: drop the overflow
                dropped += top_x.shape[0] - capacity
                idx, top_x = idx[:capacity], top_x[:capacity]
            current_state = hidden_states[None, top_x].reshape(-1, hidden_dim)
            current_hidden_states = expert_layer(current_state) * routing_weights[top_x, idx, None]
            final_hidden_states[top_x] += current_hidden_states  # index_add_(0, top_x, ...)
        self.dropped_tokens = dropped
        final_hidden_states = final_hidden_states.reshape(batch_size, sequence_length, hidden_dim)
        return final_hidden_states, router_logits


class DecoderLayer(nn.Cell):
    def __init__(self, cfg):
        super().__init__()
        self.ln1 = nn.LayerNorm((cfg.d_model,))
        self.attn = CausalSelfAttention(cfg)
        self.ln2 = nn.LayerNorm((cfg.d_model,))
        self.moe = SparseMoeBlock(cfg)

    def construct(self, x, cos, sin):
        x = x + self.attn(self.ln1(x), cos, sin)
        moe_out, router_logits = self.moe(self.ln2(x))
        x = x + moe_out
        return x, router_logits


class MoEForCausalLM(nn.Cell):
    def __init__(self, cfg):
        super().__init__()
        self.config = cfg
        self.embed_tokens = nn.Embedding(cfg.vocab_size, cfg.d_model)
        self.layers = nn.CellList([DecoderLayer(cfg) for _ in range(cfg.n_layers)])
        self.norm = nn.LayerNorm((cfg.d_model,))
        self.lm_head = nn.Dense(cfg.d_model, cfg.vocab_size, has_bias=False)
        self.cos, self.sin = precompute_rope(cfg.d_model // cfg.n_heads, cfg.max_seq_len, cfg.rope_theta)

    def construct(self, input_ids, labels=None):
        x = self.embed_tokens(input_ids)
        all_router_logits = []
        for layer in self.layers:
            x, router_logits = layer(x, self.cos, self.sin)
            all_router_logits.append(router_logits)
        logits = self.lm_head(self.norm(x))

        aux_loss = load_balancing_loss_func(all_router_logits, self.config.num_experts, self.config.top_k)
        loss = None
        if labels is not None:
            shift_logits = logits[:, :-1, :].reshape(-1, self.config.vocab_size)
            shift_labels = labels[:, 1:].reshape(-1)
            loss = ops.cross_entropy(shift_logits, shift_labels, ignore_index=-100)
            loss = loss + self.config.router_aux_loss_coef * aux_loss
        return MoECausalLMOutput(logits=logits, loss=loss, aux_loss=aux_loss,
                                 router_logits=tuple(all_router_logits))

    def generate(self, input_ids, max_new_tokens=6, temperature=1.0, top_k=None, eos_token_id=None):
        finished = ops.zeros((input_ids.shape[0], 1), dtype=ms.bool_)
        for _ in range(max_new_tokens):
            idx_cond = input_ids if input_ids.shape[1] <= self.config.max_seq_len \
                else input_ids[:, -self.config.max_seq_len:]
            logits = self(idx_cond).logits[:, -1, :]
            if temperature == 0.0:
                next_token = logits.argmax(dim=-1, keepdim=True)
            else:
                logits = logits / temperature
                if top_k is not None:
                    v, _ = ops.topk(logits, min(top_k, logits.shape[-1]))
                    logits[logits < v[:, [-1]]] = -float("inf")
                probs = ops.softmax(logits, axis=-1)
                next_token = ops.multinomial(probs, num_samples=1)
            if eos_token_id is not None:
                next_token = next_token.masked_fill(finished, eos_token_id)
                finished = finished | (next_token == eos_token_id)
            input_ids = ops.cat((input_ids, next_token.astype(input_ids.dtype)), axis=1)
            if eos_token_id is not None and finished.all():
                break
        return input_ids


class MoEGenerator(nn.Cell):
    """The decoding path, as a Cell so that it can be put under GRAPH_MODE / jit."""
    def __init__(self, model, max_new_tokens=6, temperature=0.0, top_k=None, eos_token_id=None):
        super().__init__()
        self.model = model
        self.max_new_tokens = max_new_tokens
        self.temperature = temperature
        self.top_k = top_k
        self.eos_token_id = eos_token_id

    def construct(self, input_ids):
        return self.model.generate(input_ids, self.max_new_tokens, self.temperature, self.top_k,
                                   self.eos_token_id)


def main():
    ms.set_context(mode=ms.PYNATIVE_MODE)
    ms.set_seed(0)
    np.random.seed(0)
    cfg = MoEConfig()
    model = MoEForCausalLM(cfg)
    model.set_train(False)
    input_ids = Tensor(np.random.randint(3, cfg.vocab_size, size=(2, 8)), ms.int32)
    out = model(input_ids, labels=input_ids)
    print("logits", out.logits.shape, "sum %.6f" % out.logits.sum().item())
    print("loss %.6f aux %.6f" % (out.loss.item(), out.aux_loss.item()))
    print("dropped tokens per layer", [layer.moe.dropped_tokens for layer in model.layers])
    greedy = MoEGenerator(model, max_new_tokens=6, temperature=0.0, eos_token_id=cfg.eos_token_id)
    print("greedy", greedy(input_ids[:, :4]).asnumpy().tolist())
    ms.set_seed(1)
    sampler = MoEGenerator(model, max_new_tokens=6, temperature=0.8, top_k=5, eos_token_id=cfg.eos_token_id)
    print("sampled", sampler(input_ids[:, :4]).asnumpy().tolist())
    stopper = MoEGenerator(model, max_new_tokens=6, temperature=0.0, eos_token_id=5)
    print("greedy, stops at eos=5", stopper(input_ids[:1, :4]).asnumpy().tolist())


if __name__ == "__main__":
    main()
