"""Decision Transformer (kzl/decision-transformer: models/decision_transformer.py, models/trajectory_gpt2.py,
evaluation/evaluate_episodes.py) ported from PyTorch to MindSpore 2.10; a NumPy toy task replaces the gym env."""
from dataclasses import dataclass

import numpy as np

import mindspore as ms
from mindspore import Parameter, Tensor, mint, nn, ops


@dataclass
class GPT2Config:
    n_embd: int = 16
    n_layer: int = 2
    n_head: int = 2
    n_inner: int = None
    n_ctx: int = 64
    activation_function: str = "gelu"
    resid_pdrop: float = 0.1
    embd_pdrop: float = 0.1
    attn_pdrop: float = 0.1
    layer_norm_epsilon: float = 1e-5
    output_attentions: bool = False
    use_cache: bool = True
    use_return_dict: bool = True


ACT2FN = {"gelu": ops.gelu, "relu": ops.relu, "tanh": ops.tanh}


class Conv1D(nn.Cell):
    def __init__(self, nf, nx):
        super().__init__()
        self.nf = nf
        self.weight = Parameter(Tensor(np.random.normal(0.0, 0.02, (nx, nf)).astype(np.float32)), name="weight")
        self.bias = Parameter(ops.zeros(nf, ms.float32), name="bias")

    def construct(self, x):
        size_out = x.shape[:-1] + (self.nf,)
        x = ops.addmm(self.bias, x.view(-1, x.shape[-1]), self.weight)
        return x.view(*size_out)


class Attention(nn.Cell):
    def __init__(self, nx, n_ctx, config, scale=False):
        super().__init__()
        assert nx % config.n_head == 0
        self.bias = Tensor(np.tril(np.ones((n_ctx, n_ctx), dtype=np.uint8))).view(1, 1, n_ctx, n_ctx)
        self.masked_bias = Tensor(-1e4)
        self.n_head = config.n_head
        self.split_size = nx
        self.scale = scale
        self.is_cross_attention = False
        self.c_attn = Conv1D(3 * nx, nx)
        self.c_proj = Conv1D(nx, nx)
        self.attn_dropout = nn.Dropout(p=config.attn_pdrop)
        self.resid_dropout = nn.Dropout(p=config.resid_pdrop)

    def _attn(self, q, k, v, attention_mask=None, head_mask=None, output_attentions=False):
        w = ops.matmul(q, k)
        if self.scale:
            w = w / (float(v.shape[-1]) ** 0.5)
        nd, ns = w.shape[-2], w.shape[-1]
        if not self.is_cross_attention:
            mask = self.bias[:, :, ns - nd: ns, :ns]
            w = ops.where(mask.bool(), w, self.masked_bias.to(w.dtype))
        if attention_mask is not None:
            w = w + attention_mask  # Apply the attention mask
        w = nn.Softmax(axis=-1)(w)
        w = self.attn_dropout(w)
        if head_mask is not None:
            w = w * head_mask
        outputs = [ops.matmul(w, v)]
        if output_attentions:
            outputs.append(w)
        return outputs

    def merge_heads(self, x):
        x = x.permute(0, 2, 1, 3).contiguous()
        new_x_shape = x.shape[:-2] + (x.shape[-2] * x.shape[-1],)
        return x.view(*new_x_shape)

    def split_heads(self, x, k=False):
        new_x_shape = x.shape[:-1] + (self.n_head, x.shape[-1] // self.n_head)
        x = x.view(*new_x_shape)
        if k:
            return x.permute(0, 2, 3, 1)  # (batch, head, head_features, seq_length)
        else:
            return x.permute(0, 2, 1, 3)  # (batch, head, seq_length, head_features)

    def construct(self, hidden_states, layer_past=None, attention_mask=None, head_mask=None,
                  use_cache=False, output_attentions=False):
        query, key, value = self.c_attn(hidden_states).split(self.split_size, dim=2)
        query = self.split_heads(query)
        key = self.split_heads(key, k=True)
        value = self.split_heads(value)
        if layer_past is not None:
            past_key, past_value = layer_past[0].transpose(-2, -1), layer_past[1]  # transpose back cf below
            key = mint.cat((past_key, key), dim=-1)
            value = mint.cat((past_value, value), dim=-2)
        if use_cache is True:
            present = ops.stack((key.transpose(-2, -1), value))  # transpose to have same shapes for stacking
        else:
            present = (None,)
        attn_outputs = self._attn(query, key, value, attention_mask, head_mask, output_attentions)
        a = self.merge_heads(attn_outputs[0])
        a = self.resid_dropout(self.c_proj(a))
        outputs = [a, present] + attn_outputs[1:]
        return outputs  # a, present, (attentions)


class MLP(nn.Cell):
    def __init__(self, n_state, config):
        super().__init__()
        self.c_fc = Conv1D(n_state, config.n_embd)
        self.c_proj = Conv1D(config.n_embd, n_state)
        self.act = ACT2FN[config.activation_function]
        self.dropout = nn.Dropout(p=config.resid_pdrop)

    def construct(self, x):
        h = self.act(self.c_fc(x))
        return self.dropout(self.c_proj(h))


class Block(nn.Cell):
    def __init__(self, n_ctx, config, scale=False):
        super().__init__()
        hidden_size = config.n_embd
        inner_dim = config.n_inner if config.n_inner is not None else 4 * hidden_size
        self.ln_1 = nn.LayerNorm((hidden_size,), epsilon=config.layer_norm_epsilon)
        self.attn = Attention(hidden_size, n_ctx, config, scale)
        self.ln_2 = nn.LayerNorm((hidden_size,), epsilon=config.layer_norm_epsilon)
        self.mlp = MLP(inner_dim, config)

    def construct(self, hidden_states, layer_past=None, attention_mask=None, head_mask=None,
                  use_cache=False, output_attentions=False):
        attn_outputs = self.attn(self.ln_1(hidden_states), layer_past=layer_past, attention_mask=attention_mask,
                                 head_mask=head_mask, use_cache=use_cache, output_attentions=output_attentions)
        outputs = attn_outputs[1:]  # output_attn: a, present, (attentions)
        hidden_states = attn_outputs[0] + hidden_states  # residual connection
        feed_forward_hidden_states = self.mlp(self.ln_2(hidden_states))
        hidden_states = hidden_states + feed_forward_hidden_states  # residual connection
        outputs = [hidden_states] + outputs
        return outputs  # hidden_states, present, (attentions)


class GPT2Model(nn.Cell):
    def __init__(self, config):
        super().__init__()
        self.config = config
        self.dtype = ms.float32
        self.drop = nn.Dropout(p=config.embd_pdrop)
        self.h = nn.CellList([Block(config.n_ctx, config, scale=True) for _ in range(config.n_layer)])
        self.ln_f = nn.LayerNorm((config.n_embd,), epsilon=config.layer_norm_epsilon)
        self.use_layers = None

    def construct(self, inputs_embeds=None, past_key_values=None, attention_mask=None, head_mask=None,
                  use_cache=None, output_attentions=None, return_dict=None):
        output_attentions = output_attentions if output_attentions is not None else self.config.output_attentions
        use_cache = use_cache if use_cache is not None else self.config.use_cache
        return_dict = return_dict if return_dict is not None else self.config.use_return_dict
        if inputs_embeds is None:
            raise ValueError("You have to specify inputs_embeds (this GPT-2 has no token embeddings)")
        input_shape = inputs_embeds.shape[:-1]
        batch_size = inputs_embeds.shape[0]
        if past_key_values is None:
            past_key_values = [None] * len(self.h)
        if attention_mask is not None:
            assert batch_size > 0, "batch_size has to be defined and > 0"
            attention_mask = attention_mask.view(batch_size, -1)
            attention_mask = attention_mask[:, None, None, :]
            attention_mask = attention_mask.to(dtype=self.dtype)  # fp16 compatibility
            attention_mask = (1.0 - attention_mask) * -10000.0
        if head_mask is None:
            head_mask = [None] * self.config.n_layer
        hidden_states = self.drop(inputs_embeds)  # + position_embeds
        output_shape = input_shape + (hidden_states.shape[-1],)
        presents = () if use_cache else None
        all_self_attentions = () if output_attentions else None
        for i, (block, layer_past) in enumerate(zip(self.h, past_key_values)):
            if self.use_layers is not None and i >= self.use_layers:
                break
            outputs = block(hidden_states, layer_past=layer_past, attention_mask=attention_mask,
                            head_mask=head_mask[i], use_cache=use_cache, output_attentions=output_attentions)
            hidden_states, present = outputs[:2]
            if use_cache is True:
                presents = presents + (present,)
            if output_attentions:
                all_self_attentions = all_self_attentions + (outputs[2],)
        hidden_states = self.ln_f(hidden_states)
        hidden_states = hidden_states.view(*output_shape)
        if not return_dict:
            return tuple(v for v in [hidden_states, presents, all_self_attentions] if v is not None)
        return dict(last_hidden_state=hidden_states, past_key_values=presents, attentions=all_self_attentions)


class DecisionTransformer(nn.Cell):
    """This model uses GPT to model (Return_1, state_1, action_1, Return_2, state_2, ...)"""
    def __init__(self, state_dim, act_dim, hidden_size, max_length=None, max_ep_len=4096, action_tanh=True,
                 **kwargs):
        super().__init__()
        self.state_dim, self.act_dim, self.max_length, self.hidden_size = state_dim, act_dim, max_length, hidden_size
        config = GPT2Config(n_embd=hidden_size, **kwargs)
        self.transformer = GPT2Model(config)
        self.embed_timestep = nn.Embedding(max_ep_len, hidden_size)
        self.embed_return = nn.Dense(1, hidden_size)
        self.embed_state = nn.Dense(self.state_dim, hidden_size)
        self.embed_action = nn.Dense(self.act_dim, hidden_size)
        self.embed_ln = nn.LayerNorm((hidden_size,))
        self.predict_state = nn.Dense(hidden_size, self.state_dim)
        self.predict_action = nn.SequentialCell(
            *([nn.Dense(hidden_size, self.act_dim)] + ([nn.Tanh()] if action_tanh else [])))
        self.predict_return = nn.Dense(hidden_size, 1)

    def construct(self, states, actions, rewards, returns_to_go, timesteps, attention_mask=None):
        batch_size, seq_length = states.shape[0], states.shape[1]
        if attention_mask is None:
            attention_mask = mint.ones((batch_size, seq_length), dtype=ms.int64)
        state_embeddings = self.embed_state(states)
        action_embeddings = self.embed_action(actions)
        returns_embeddings = self.embed_return(returns_to_go)
        time_embeddings = self.embed_timestep(timesteps)
        state_embeddings = state_embeddings + time_embeddings
        action_embeddings = action_embeddings + time_embeddings
        returns_embeddings = returns_embeddings + time_embeddings
        # this makes the sequence look like (R_1, s_1, a_1, R_2, s_2, a_2, ...)
        stacked_inputs = ops.stack(
            (returns_embeddings, state_embeddings, action_embeddings), axis=1
        ).permute(0, 2, 1, 3).reshape(batch_size, 3 * seq_length, self.hidden_size)
        stacked_inputs = self.embed_ln(stacked_inputs)
        # to make the attention mask fit the stacked inputs, have to stack it as well
        stacked_attention_mask = ops.stack(
            (attention_mask, attention_mask, attention_mask), axis=1
        ).permute(0, 2, 1).reshape(batch_size, 3 * seq_length)
        transformer_outputs = self.transformer(inputs_embeds=stacked_inputs, attention_mask=stacked_attention_mask)
        x = transformer_outputs['last_hidden_state']
        x = x.reshape(batch_size, seq_length, 3, self.hidden_size).permute(0, 2, 1, 3)
        return_preds = self.predict_return(x[:, 2])  # predict next return given state and action
        state_preds = self.predict_state(x[:, 2])  # predict next state given state and action
        action_preds = self.predict_action(x[:, 1])  # predict next action given state
        return state_preds, action_preds, return_preds

    def get_action(self, states, actions, rewards, returns_to_go, timesteps, **kwargs):
        states = states.reshape(1, -1, self.state_dim)
        actions = actions.reshape(1, -1, self.act_dim)
        returns_to_go = returns_to_go.reshape(1, -1, 1)
        timesteps = timesteps.reshape(1, -1)
        if self.max_length is not None:
            states = states[:, -self.max_length:]
            actions = actions[:, -self.max_length:]
            returns_to_go = returns_to_go[:, -self.max_length:]
            timesteps = timesteps[:, -self.max_length:]
            attention_mask = mint.cat([mint.zeros(self.max_length - states.shape[1]), mint.ones(states.shape[1])])
            attention_mask = attention_mask.to(dtype=ms.int64).reshape(1, -1)
            states = mint.cat([mint.zeros((states.shape[0], self.max_length - states.shape[1], self.state_dim)),
                               states], dim=1).to(dtype=ms.float32)
            actions = mint.cat([mint.zeros((actions.shape[0], self.max_length - actions.shape[1], self.act_dim)),
                                actions], dim=1).to(dtype=ms.float32)
            returns_to_go = mint.cat([mint.zeros((returns_to_go.shape[0], self.max_length - returns_to_go.shape[1], 1)),
                                      returns_to_go], dim=1).to(dtype=ms.float32)
            timesteps = mint.cat([mint.zeros((timesteps.shape[0], self.max_length - timesteps.shape[1]),
                                             dtype=ms.int64), timesteps], dim=1).to(dtype=ms.int64)
        else:
            attention_mask = None
        _, action_preds, return_preds = self.construct(
            states, actions, None, returns_to_go, timesteps, attention_mask=attention_mask, **kwargs)
        return action_preds[0, -1]


class DTPolicy(nn.Cell):
    """Inference Cell: normalise the state history and ask the Decision Transformer for the next action."""
    def __init__(self, model, state_mean, state_std):
        super().__init__()
        self.model = model
        self.state_mean = Tensor.from_numpy(state_mean)
        self.state_std = Tensor.from_numpy(state_std)
        self.num_calls = 0

    def construct(self, states, actions, rewards, target_return, timesteps):
        self.num_calls += 1
        return self.model.get_action(
            (states.to(dtype=ms.float32) - self.state_mean) / self.state_std, actions.to(dtype=ms.float32),
            rewards.to(dtype=ms.float32), target_return.to(dtype=ms.float32), timesteps.to(dtype=ms.int64))


class ToyEnv:
    """Deterministic point-mass task (stands in for a gym env): push the state towards the origin."""
    def __init__(self, state_dim=3, act_dim=2, horizon=6):
        self.state_dim, self.act_dim, self.horizon = state_dim, act_dim, horizon
        self.proj = np.linspace(-1.0, 1.0, state_dim * act_dim).reshape(state_dim, act_dim)

    def reset(self):
        self.t = 0
        self.pos = np.linspace(1.0, -0.5, self.state_dim)
        return self.pos.copy()

    def step(self, action):
        action = np.clip(action, -1.0, 1.0)
        self.t += 1
        self.pos = 0.9 * self.pos + 0.3 * (self.proj @ action)
        reward = 1.0 - float(np.abs(self.pos).sum())
        done = self.t >= self.horizon
        return self.pos.copy(), reward, done, {}


class EvaluateEpisodeRTG(nn.Cell):
    """evaluate_episode_rtg as a Cell: one rollout conditioned on a target return."""
    def __init__(self, env, policy, state_dim, act_dim, max_ep_len=1000, scale=1000., mode='normal'):
        super().__init__()
        self.env, self.policy = env, policy
        self.state_dim, self.act_dim = state_dim, act_dim
        self.max_ep_len, self.scale, self.mode = max_ep_len, scale, mode

    def construct(self, target_return):
        state = self.env.reset()
        if self.mode == 'noise':
            state = state + np.random.normal(0, 0.1, size=state.shape)
        states = Tensor.from_numpy(state).reshape(1, self.state_dim).to(dtype=ms.float32)
        actions = mint.zeros((0, self.act_dim), dtype=ms.float32)
        rewards = mint.zeros(0, dtype=ms.float32)
        ep_return = target_return
        target_return = Tensor(ep_return, dtype=ms.float32).reshape(1, 1)
        timesteps = Tensor(0, dtype=ms.int64).reshape(1, 1)
        episode_return, episode_length = 0, 0
        for t in range(self.max_ep_len):
            actions = mint.cat([actions, mint.zeros((1, self.act_dim))], dim=0)
            rewards = mint.cat([rewards, mint.zeros(1)])
            action = self.policy(states, actions, rewards, target_return, timesteps)
            actions[-1] = action
            action = action.asnumpy()
            state, reward, done, _ = self.env.step(action)
            cur_state = Tensor.from_numpy(state).reshape(1, self.state_dim).to(dtype=ms.float32)
            states = mint.cat([states, cur_state], dim=0)
            rewards[-1] = reward
            if self.mode != 'delayed':
                pred_return = target_return[0, -1] - (reward / self.scale)
            else:
                pred_return = target_return[0, -1]
            target_return = mint.cat([target_return, pred_return.reshape(1, 1)], dim=1)
            timesteps = mint.cat([timesteps, mint.ones((1, 1), dtype=ms.int64) * (t + 1)], dim=1)
            episode_return += reward
            episode_length += 1
            if done:
                break
        return episode_return, episode_length, actions


STATE_DIM, ACT_DIM, MAX_LENGTH, MAX_EP_LEN = 3, 2, 4, 16


def build(seed=0):
    np.random.seed(seed)
    ms.set_seed(seed)
    model = DecisionTransformer(STATE_DIM, ACT_DIM, hidden_size=16, max_length=MAX_LENGTH, max_ep_len=MAX_EP_LEN,
                                n_layer=2, n_head=2, n_inner=32, activation_function='relu', resid_pdrop=0.1,
                                attn_pdrop=0.1)
    model.set_train(False)  # model.eval()
    policy = DTPolicy(model, np.array([0.1, -0.2, 0.05], np.float32), np.array([0.9, 1.1, 0.8], np.float32))
    evaluator = EvaluateEpisodeRTG(ToyEnv(STATE_DIM, ACT_DIM, horizon=6), policy, STATE_DIM, ACT_DIM,
                                   max_ep_len=MAX_EP_LEN, scale=10.)
    return model, policy, evaluator


def history(n, b=1, seed=1):  # (states, actions, rewards, returns_to_go, timesteps) of b episodes
    rng = np.random.RandomState(seed)
    f = lambda *shape: Tensor(rng.randn(b, n, *shape).astype(np.float32))
    return f(STATE_DIM), f(ACT_DIM), f(1), f(1), Tensor(np.tile(np.arange(n), (b, 1)).astype(np.int64))


if __name__ == "__main__":
    ms.set_context(mode=ms.PYNATIVE_MODE)
    model, policy, evaluator = build()
    mask = Tensor(np.array([[0, 1, 1, 1], [1, 1, 1, 1]], np.int64))
    state_preds, action_preds, return_preds = model(*history(MAX_LENGTH, b=2, seed=2), attention_mask=mask)
    print("forward action_preds", action_preds.shape, action_preds.sum())
    for n in (2, 4, 6):  # padded, exact, truncated context
        print(f"get_action with {n} steps:", policy(*history(n)))
    ep_return, ep_len, actions = evaluator(3.6)
    print("episode return", ep_return, "length", ep_len, "policy calls", policy.num_calls, "actions", actions)
