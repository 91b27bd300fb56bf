"""PPO actor-critic agent (CleanRL ppo.py / ppo_continuous_action.py style), ported to MindSpore 2.10.
REFERENCE FIX of ppo_agent.py: compiles at LAX and STRICT, same outputs and gradients as PYNATIVE.

Agent with actor and critic MLPs, hand-written Categorical / Normal distributions, a rollout buffer,
GAE, the clipped surrogate loss with KL early stopping, and a tiny numpy control task.
"""
import math

import numpy as np
import mindspore as ms
from mindspore import nn, ops, Tensor, Parameter
from mindspore.common.initializer import Orthogonal, Constant, initializer

OBS_DIM, N_ACTIONS, HIDDEN = 4, 2, 16
NUM_STEPS, NUM_ENVS = 16, 2
STATS_KEYS = ("pg_loss", "v_loss", "entropy", "old_approx_kl", "approx_kl", "clipfrac")


class ToyBalanceEnv:
    """A tiny cart-pole-like task in numpy, vectorised over envs, with auto-reset."""

    def __init__(self, num_envs, continuous=False, seed=0):
        self.num_envs, self.continuous = num_envs, continuous
        self.rng = np.random.RandomState(seed)
        self.state = np.zeros((num_envs, OBS_DIM), dtype=np.float32)
        self.t = np.zeros(num_envs, dtype=np.int64)

    def reset(self):
        self.state = self.rng.uniform(-0.05, 0.05, size=(self.num_envs, OBS_DIM)).astype(np.float32)
        self.t[:] = 0
        return self.state.copy()

    def step(self, action):
        if self.continuous:
            force = np.clip(action[:, 0], -1.0, 1.0) * 10.0
        else:
            force = np.where(action == 1, 10.0, -10.0)
        x, x_dot, th, th_dot = self.state.T
        th_acc = (9.8 * np.sin(th) - np.cos(th) * force * 0.05) / 0.5
        x_acc = force / 1.1 - 0.05 * th_acc * np.cos(th)
        self.state = np.stack([x + 0.02 * x_dot, x_dot + 0.02 * x_acc,
                               th + 0.02 * th_dot, th_dot + 0.02 * th_acc], axis=1).astype(np.float32)
        self.t += 1
        done = (np.abs(self.state[:, 0]) > 2.4) | (np.abs(self.state[:, 2]) > 0.2095) | (self.t >= 12)
        reward = np.ones(self.num_envs, dtype=np.float32)
        if done.any():
            self.state[done] = self.rng.uniform(-0.05, 0.05, size=(int(done.sum()), OBS_DIM))
            self.t[done] = 0
        return self.state.copy(), reward, done.astype(np.float32)


def layer_init(layer, std=np.sqrt(2), bias_const=0.0):
    layer.weight.set_data(initializer(Orthogonal(gain=std), layer.weight.shape, ms.float32))
    layer.bias.set_data(initializer(Constant(bias_const), layer.bias.shape, ms.float32))
    return layer


def categorical(logits, action=None):
    """torch.distributions.Categorical(logits=...): sample / log_prob / entropy."""
    logits = logits - logits.logsumexp(dim=-1, keepdim=True)
    probs = logits.exp()
    if action is None:
        action = ops.multinomial(probs, 1).squeeze(-1)
    logprob = logits.gather(-1, action.long().unsqueeze(-1)).squeeze(-1)
    entropy = -(probs * logits).sum(dim=-1)
    return action, logprob, entropy


def normal(loc, scale, action=None):
    """torch.distributions.Normal(loc, scale): sample / log_prob / entropy (summed over the action dim)."""
    if action is None:
        action = ops.stop_gradient(loc + scale * ops.randn(loc.shape))
    var = scale ** 2
    logprob = -((action - loc) ** 2) / (2 * var) - scale.log() - math.log(math.sqrt(2 * math.pi))
    entropy = 0.5 + 0.5 * math.log(2 * math.pi) + scale.log()
    return action, logprob.sum(1), entropy.sum(1)


class Agent(nn.Cell):
    def __init__(self, obs_dim, n_actions, hidden=HIDDEN, continuous=False):
        super().__init__()
        self.continuous = continuous
        self.critic = nn.SequentialCell(
            layer_init(nn.Dense(obs_dim, hidden)), nn.Tanh(),
            layer_init(nn.Dense(hidden, hidden)), nn.Tanh(),
            layer_init(nn.Dense(hidden, 1), std=1.0))
        self.actor = nn.SequentialCell(
            layer_init(nn.Dense(obs_dim, hidden)), nn.Tanh(),
            layer_init(nn.Dense(hidden, hidden)), nn.Tanh(),
            layer_init(nn.Dense(hidden, n_actions), std=0.01))
        if continuous:
            self.actor_logstd = Parameter(ops.zeros((1, n_actions), ms.float32), name="actor_logstd")

    def get_value(self, x):
        return self.critic(x).view(-1)

    def get_action_and_value(self, x, action=None):
        if x.ndim == 1:
            x = x.unsqueeze(0)
        if self.continuous:
            action_mean = self.actor(x)
            action_std = self.actor_logstd.expand_as(action_mean).exp()
            action, logprob, entropy = normal(action_mean, action_std, action)
        else:
            action, logprob, entropy = categorical(self.actor(x), action)
        return action, logprob, entropy, self.critic(x).view(-1)

    def construct(self, x, action=None):
        return self.get_action_and_value(x, action)


class RolloutBuffer:
    def __init__(self):
        self.obs, self.actions, self.logprobs, self.rewards, self.dones, self.values = [], [], [], [], [], []

    def append(self, obs, action, logprob, reward, done, value):
        self.obs.append(obs)
        self.actions.append(action)
        self.logprobs.append(logprob)
        self.rewards.append(reward)
        self.dones.append(done)
        self.values.append(value)

    def clear(self):
        for lst in (self.obs, self.actions, self.logprobs, self.rewards, self.dones, self.values):
            lst.clear()

    def stacked(self):
        return {k: ops.stack(getattr(self, k)) for k in ("obs", "actions", "logprobs", "rewards", "dones", "values")}


class GAE(nn.Cell):
    def __init__(self, gamma=0.99, gae_lambda=0.95):
        super().__init__()
        self.gamma, self.gae_lambda = gamma, gae_lambda

    def construct(self, rewards, values, dones, next_value, next_done):
        num_steps = rewards.shape[0]
        advantages = ops.zeros_like(rewards)
        lastgaelam = 0
        for t in reversed(range(num_steps)):
            if t == num_steps - 1:
                nextnonterminal = 1.0 - next_done
                nextvalues = next_value
            else:
                nextnonterminal = 1.0 - dones[t + 1]
                nextvalues = values[t + 1]
            delta = rewards[t] + self.gamma * nextvalues * nextnonterminal - values[t]
            advantages[t] = lastgaelam = delta + self.gamma * self.gae_lambda * nextnonterminal * lastgaelam
        returns = advantages + values
        return advantages, returns


class PPOLoss(nn.Cell):
    def __init__(self, agent, clip_coef=0.2, ent_coef=0.01, vf_coef=0.5, norm_adv=True, clip_vloss=True):
        super().__init__()
        self.agent = agent
        self.clip_coef, self.ent_coef, self.vf_coef = clip_coef, ent_coef, vf_coef
        self.norm_adv, self.clip_vloss = norm_adv, clip_vloss

    def construct(self, obs, actions, logprobs, advantages, returns, values):
        _, newlogprob, entropy, newvalue = self.agent.get_action_and_value(obs, actions)
        logratio = newlogprob - logprobs
        ratio = logratio.exp()
        old_approx_kl = ops.stop_gradient((-logratio).mean())
        approx_kl = ops.stop_gradient(((ratio - 1) - logratio).mean())
        clipfrac = ((ratio - 1.0).abs() > self.clip_coef).float().mean().item()
        if self.norm_adv:
            advantages = (advantages - advantages.mean()) / (advantages.std() + 1e-8)
        pg_loss1 = -advantages * ratio
        pg_loss2 = -advantages * ops.clamp(ratio, 1 - self.clip_coef, 1 + self.clip_coef)
        pg_loss = ops.maximum(pg_loss1, pg_loss2).mean()
        newvalue = newvalue.view(-1)
        if self.clip_vloss:
            v_loss_unclipped = (newvalue - returns) ** 2
            v_clipped = values + ops.clamp(newvalue - values, -self.clip_coef, self.clip_coef)
            v_loss_clipped = (v_clipped - returns) ** 2
            v_loss = 0.5 * ops.maximum(v_loss_unclipped, v_loss_clipped).mean()
        else:
            v_loss = 0.5 * ((newvalue - returns) ** 2).mean()
        entropy_loss = entropy.mean()
        loss = pg_loss - self.ent_coef * entropy_loss + v_loss * self.vf_coef
        # a tuple, not a dict: STRICT graph mode hands a dict back as a tuple (see STATS_KEYS)
        return loss, (pg_loss, v_loss, entropy_loss, old_approx_kl, approx_kl, clipfrac)


def train(continuous=False, num_updates=2, update_epochs=4, num_minibatches=2, target_kl=0.015, seed=1):
    np.random.seed(seed)
    ms.set_seed(seed)
    env = ToyBalanceEnv(NUM_ENVS, continuous, seed)
    agent = Agent(OBS_DIM, N_ACTIONS, continuous=continuous)
    gae, loss_fn = GAE(), PPOLoss(agent)
    optimizer = nn.Adam(agent.trainable_params(), learning_rate=2.5e-3, eps=1e-5)
    grad_fn = ms.value_and_grad(loss_fn, None, optimizer.parameters, has_aux=True)
    buf = RolloutBuffer()
    next_obs, next_done = Tensor(env.reset()), ops.zeros(NUM_ENVS, ms.float32)
    batch_size = NUM_STEPS * NUM_ENVS
    minibatch_size = batch_size // num_minibatches
    for update in range(1, num_updates + 1):
        buf.clear()
        for step in range(NUM_STEPS):
            action, logprob, _, value = agent(next_obs)
            obs_np, reward, done = env.step(action.asnumpy())
            buf.append(next_obs, action, logprob, Tensor(reward), next_done, value)
            next_obs, next_done = Tensor(obs_np), Tensor(done)
        b = buf.stacked()
        advantages, returns = gae(b["rewards"], b["values"], b["dones"], agent.get_value(next_obs), next_done)
        b_obs = b["obs"].view(-1, OBS_DIM)
        b_actions = b["actions"].view(-1, N_ACTIONS) if continuous else b["actions"].view(-1)
        b_logprobs, b_values = b["logprobs"].view(-1), b["values"].view(-1)
        b_advantages, b_returns = advantages.view(-1), returns.view(-1)
        b_inds = np.arange(batch_size)
        clipfracs = []
        for epoch in range(update_epochs):
            np.random.shuffle(b_inds)
            for start in range(0, batch_size, minibatch_size):
                mb = Tensor(b_inds[start:start + minibatch_size])
                (loss, stats_t), grads = grad_fn(b_obs[mb], b_actions[mb], b_logprobs[mb],
                                               b_advantages[mb], b_returns[mb], b_values[mb])
                stats = dict(zip(STATS_KEYS, stats_t))
                grads = ops.clip_by_global_norm(grads, 0.5)
                optimizer(grads)
                clipfracs.append(stats["clipfrac"])
            if stats["approx_kl"].item() > target_kl:
                break
        y_pred, y_true = b_values.asnumpy(), b_returns.asnumpy()
        var_y = np.var(y_true)
        explained_var = np.nan if var_y == 0 else 1 - np.var(y_true - y_pred) / var_y
        print(f"[{'cont' if continuous else 'disc'}] update {update} epochs {epoch + 1} loss {loss.item():.6f} "
              f"approx_kl {stats['approx_kl'].item():.6f} clipfrac {np.mean(clipfracs):.4f} "
              f"adv[0] {b_advantages[0].item():.6f} ev {explained_var:.4f}")
    return agent


if __name__ == "__main__":
    ms.set_context(mode=ms.PYNATIVE_MODE)
    for continuous in (False, True):
        agent = train(continuous=continuous)
        ms.set_seed(0)
        obs = Tensor(np.random.RandomState(3).uniform(-0.05, 0.05, size=(NUM_ENVS, OBS_DIM)).astype(np.float32))
        action, logprob, _, value = agent(obs)
        print("act:", action, "logprob:", logprob, "value:", value)
