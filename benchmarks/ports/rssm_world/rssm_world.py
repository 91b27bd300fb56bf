"""Dreamer (V1) style world model, ported from PyTorch (dreamer-pytorch style) to MindSpore.

Conv encoder / decoder, RSSM (GRUCell deterministic path, Gaussian prior / posterior),
reward head, tanh-Normal actor, imagination rollout and a world-model loss with
KL balancing and free nats.
"""
import numpy as np
import mindspore as ms
from mindspore import nn, ops, Tensor


class Normal:
    """Small stand-in for torch.distributions.Normal."""

    def __init__(self, loc, scale):
        self.loc = loc
        self.scale = scale

    @property
    def mean(self):
        return self.loc

    def rsample(self):
        return self.loc + self.scale * ops.randn_like(self.scale)

    def log_prob(self, value):
        var = self.scale ** 2
        return -((value - self.loc) ** 2) / (2 * var) - ops.log(self.scale) - 0.5 * np.log(2 * np.pi)

    def entropy(self):
        return 0.5 + 0.5 * np.log(2 * np.pi) + ops.log(self.scale)


def kl_divergence(p, q):
    var_ratio = (p.scale / q.scale) ** 2
    t1 = ((p.loc - q.loc) / q.scale) ** 2
    return 0.5 * (var_ratio + t1 - 1 - ops.log(var_ratio))


class ConvEncoder(nn.Cell):
    def __init__(self, in_ch=3, depth=16):
        super().__init__()
        self.conv1 = nn.Conv2d(in_ch, depth, 4, stride=2, pad_mode='valid', has_bias=True)
        self.conv2 = nn.Conv2d(depth, 2 * depth, 3, stride=2, pad_mode='valid', has_bias=True)
        self.act = nn.ReLU()

    def construct(self, obs):
        batch_shape = obs.shape[:-3]
        x = obs.view(-1, *obs.shape[-3:])
        x = self.act(self.conv1(x))
        x = self.act(self.conv2(x))
        return x.view(*batch_shape, -1)


class ConvDecoder(nn.Cell):
    def __init__(self, feat_size, out_ch=3, depth=16):
        super().__init__()
        self.depth = depth
        self.fc = nn.Dense(feat_size, 2 * depth * 4 * 4)
        self.deconv1 = nn.Conv2dTranspose(2 * depth, depth, 4, stride=2, pad_mode='same', has_bias=True)
        self.deconv2 = nn.Conv2dTranspose(depth, out_ch, 4, stride=2, pad_mode='same', has_bias=True)
        self.act = nn.ReLU()

    def construct(self, feat):
        batch_shape = feat.shape[:-1]
        x = self.fc(feat.view(-1, feat.shape[-1]))
        x = x.view(-1, 2 * self.depth, 4, 4)
        x = self.act(self.deconv1(x))
        x = self.deconv2(x)
        return x.view(*batch_shape, *x.shape[1:])


class DenseHead(nn.Cell):
    def __init__(self, in_size, hidden=32, out_size=1):
        super().__init__()
        self.net = nn.SequentialCell([nn.Dense(in_size, hidden), nn.ELU(), nn.Dense(hidden, out_size)])

    def construct(self, feat):
        return self.net(feat).squeeze(-1)


class RSSM(nn.Cell):
    def __init__(self, action_size, embed_size, stoch=8, deter=16, hidden=16, min_std=0.1):
        super().__init__()
        self.stoch_size, self.deter_size, self.min_std = stoch, deter, min_std
        self.img_in = nn.Dense(stoch + action_size, hidden)
        self.cell = nn.GRUCell(hidden, deter)
        self.img_out = nn.Dense(deter, hidden)
        self.img_dist = nn.Dense(hidden, 2 * stoch)
        self.obs_out = nn.Dense(deter + embed_size, hidden)
        self.obs_dist = nn.Dense(hidden, 2 * stoch)
        self.act = nn.ELU()

    def initial_state(self, batch_size):
        return dict(mean=ops.zeros((batch_size, self.stoch_size), ms.float32),
                    std=ops.zeros((batch_size, self.stoch_size), ms.float32),
                    stoch=ops.zeros((batch_size, self.stoch_size), ms.float32),
                    deter=ops.zeros((batch_size, self.deter_size), ms.float32))

    def get_feat(self, state):
        return ops.cat([state['stoch'], state['deter']], axis=-1)

    def get_dist(self, state):
        return Normal(state['mean'], state['std'])

    def _stats(self, x):
        mean, std = x.chunk(2, axis=-1)
        std = ops.softplus(std) + self.min_std
        return mean, std

    def img_step(self, prev_state, prev_action):
        x = ops.cat([prev_state['stoch'], prev_action], axis=-1)
        x = self.act(self.img_in(x))
        deter = self.cell(x, prev_state['deter'])
        x = self.act(self.img_out(deter))
        mean, std = self._stats(self.img_dist(x))
        stoch = Normal(mean, std).rsample()
        return {'mean': mean, 'std': std, 'stoch': stoch, 'deter': deter}

    def obs_step(self, prev_state, prev_action, embed):
        prior = self.img_step(prev_state, prev_action)
        x = ops.cat([prior['deter'], embed], axis=-1)
        x = self.act(self.obs_out(x))
        mean, std = self._stats(self.obs_dist(x))
        stoch = Normal(mean, std).rsample()
        post = {'mean': mean, 'std': std, 'stoch': stoch, 'deter': prior['deter']}
        return post, prior

    def observe(self, embed, action, state=None):
        if state is None:
            state = self.initial_state(action.shape[0])
        posts, priors = [], []
        for e, a in zip(embed.unbind(1), action.unbind(1)):
            post, prior = self.obs_step(state, a, e)
            posts.append(post)
            priors.append(prior)
            state = post
        post = {k: ops.stack([s[k] for s in posts], 1) for k in posts[0]}
        prior = {k: ops.stack([s[k] for s in priors], 1) for k in priors[0]}
        return post, prior

    def imagine(self, policy, start, horizon):
        start = {k: ops.stop_gradient(v) for k, v in start.items()}
        state = {k: v.reshape(-1, *v.shape[2:]) for k, v in start.items()}
        states = []
        for _ in range(horizon):
            action = policy(ops.stop_gradient(self.get_feat(state)))
            state = self.img_step(state, action)
            states.append(state)
        return {k: ops.stack([s[k] for s in states], 0) for k in states[0]}


class Actor(nn.Cell):
    def __init__(self, feat_size, action_size, hidden=32, init_std=5.0, min_std=1e-4, mean_scale=5.0):
        super().__init__()
        self.fc1 = nn.Dense(feat_size, hidden)
        self.fc2 = nn.Dense(hidden, 2 * action_size)
        self.act = nn.ELU()
        self.raw_init_std = float(np.log(np.exp(init_std) - 1))
        self.min_std, self.mean_scale = min_std, mean_scale

    def construct(self, feat):
        x = self.fc2(self.act(self.fc1(feat)))
        mean, std = x.chunk(2, axis=-1)
        mean = self.mean_scale * ops.tanh(mean / self.mean_scale)
        std = ops.softplus(std + self.raw_init_std) + self.min_std
        return ops.tanh(Normal(mean, std).rsample())


class WorldModel(nn.Cell):
    def __init__(self, action_size=2, channels=3, image=16, depth=16, stoch=8, deter=16):
        super().__init__()
        self.encoder = ConvEncoder(channels, depth)
        s = ((image - 4) // 2 + 1 - 3) // 2 + 1
        embed_size = 2 * depth * s * s
        feat_size = stoch + deter
        self.rssm = RSSM(action_size, embed_size, stoch, deter)
        self.decoder = ConvDecoder(feat_size, channels, depth)
        self.reward = DenseHead(feat_size)
        self.actor = Actor(feat_size, action_size)


class DreamerLoss(nn.Cell):
    """World-model loss (reconstruction + reward + balanced KL) and imagined rewards."""

    def __init__(self, model, free_nats=0.5, kl_balance=0.8, kl_scale=1.0, horizon=3):
        super().__init__()
        self.model = model
        self.free_nats = free_nats
        self.kl_balance = kl_balance
        self.kl_scale = kl_scale
        self.horizon = horizon
        self.metrics = {}

    def kl_loss(self, post, prior):
        rssm = self.model.rssm
        sg = lambda s: {k: ops.stop_gradient(v) for k, v in s.items()}
        kl_lhs = kl_divergence(rssm.get_dist(sg(post)), rssm.get_dist(prior)).sum(dim=-1).mean()
        kl_rhs = kl_divergence(rssm.get_dist(post), rssm.get_dist(sg(prior))).sum(dim=-1).mean()
        free = Tensor(self.free_nats, ms.float32)
        kl_lhs = ops.maximum(kl_lhs, free)
        kl_rhs = ops.maximum(kl_rhs, free)
        return self.kl_balance * kl_lhs + (1 - self.kl_balance) * kl_rhs

    def construct(self, obs, actions, rewards=None):
        if rewards is None:  # toy reward target so the cell takes only (obs, actions)
            rewards = obs.mean(axis=(2, 3, 4))
        m = self.model
        embed = m.encoder(obs)
        post, prior = m.rssm.observe(embed, actions)
        feat = m.rssm.get_feat(post)
        recon = m.decoder(feat)
        recon_loss = -Normal(recon, ops.ones_like(recon)).log_prob(obs).sum(dim=[2, 3, 4]).mean()
        reward_pred = m.reward(feat)
        reward_loss = -Normal(reward_pred, ops.ones_like(reward_pred)).log_prob(rewards).mean()
        kl = self.kl_loss(post, prior)
        loss = recon_loss + reward_loss + self.kl_scale * kl
        self.metrics['recon'] = recon_loss.item()
        self.metrics['reward'] = reward_loss.item()
        self.metrics['kl'] = kl.item()
        imag = m.rssm.imagine(m.actor, post, self.horizon)
        imag_reward = m.reward(m.rssm.get_feat(imag))
        return loss, imag_reward


def build(batch=2, T=4, channels=3, image=16, action_size=2):
    ms.set_seed(0)
    np.random.seed(0)
    model = WorldModel(action_size, channels, image)
    return DreamerLoss(model)


def make_inputs(seed=0, batch=2, T=4, channels=3, image=16, action_size=2):
    rng = np.random.RandomState(seed)
    obs = Tensor(rng.rand(batch, T, channels, image, image).astype(np.float32))
    act = Tensor(rng.uniform(-1, 1, (batch, T, action_size)).astype(np.float32))
    return obs, act


if __name__ == '__main__':
    ms.set_context(mode=ms.PYNATIVE_MODE)
    net = build()
    obs, act = make_inputs(0)
    loss, imag_reward = net(obs, act)
    print('loss', loss)
    print('imag_reward', imag_reward.shape, imag_reward.sum())
    print('metrics', net.metrics)
