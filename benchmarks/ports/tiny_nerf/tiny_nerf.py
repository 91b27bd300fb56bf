"""Tiny NeRF: MindSpore 2.10 port of yenchenlin/nerf-pytorch (run_nerf.py, run_nerf_helpers.py).
4x4 image = 16 rays, 8 coarse + 8 fine samples, width 32, depth 4, L=4 frequencies."""
import functools
import numpy as np
import mindspore as ms
from mindspore import nn, ops, Tensor

DEBUG = False

class Embedder:
    def __init__(self, **kwargs):
        self.kwargs = kwargs
        self.create_embedding_fn()
    def create_embedding_fn(self):
        embed_fns = []
        d = self.kwargs['input_dims']
        out_dim = 0
        if self.kwargs['include_input']:
            embed_fns.append(lambda x: x)
            out_dim += d
        max_freq = self.kwargs['max_freq_log2']
        N_freqs = self.kwargs['num_freqs']
        freq_bands = 2. ** ops.linspace(0., max_freq, steps=N_freqs)
        for freq in freq_bands:
            for p_fn in self.kwargs['periodic_fns']:
                embed_fns.append(lambda x, p_fn=p_fn, freq=freq: p_fn(x * freq))
                out_dim += d
        self.embed_fns = embed_fns
        self.out_dim = out_dim
    def embed(self, inputs):
        return ops.cat([fn(inputs) for fn in self.embed_fns], -1)

def get_embedder(multires, i=0):
    embed_kwargs = {'include_input': True, 'input_dims': 3, 'max_freq_log2': multires - 1, 'num_freqs': multires,
                    'periodic_fns': [ops.sin, ops.cos]}
    embedder_obj = Embedder(**embed_kwargs)
    embed = lambda x, eo=embedder_obj: eo.embed(x)
    return embed, embedder_obj.out_dim

class NeRF(nn.Cell):
    def __init__(self, D=8, W=256, input_ch=3, input_ch_views=3, output_ch=4, skips=[4], use_viewdirs=False):
        super().__init__()
        self.input_ch, self.input_ch_views = input_ch, input_ch_views
        self.skips = skips
        self.use_viewdirs = use_viewdirs
        self.pts_linears = nn.CellList(
            [nn.Dense(input_ch, W)] +
            [nn.Dense(W, W) if i not in self.skips else nn.Dense(W + input_ch, W) for i in range(D - 1)])
        self.views_linears = nn.CellList([nn.Dense(input_ch_views + W, W // 2)])
        if use_viewdirs:
            self.feature_linear = nn.Dense(W, W)
            self.alpha_linear = nn.Dense(W, 1)
            self.rgb_linear = nn.Dense(W // 2, 3)
        else:
            self.output_linear = nn.Dense(W, output_ch)
    def construct(self, x):
        input_pts, input_views = x.split([self.input_ch, self.input_ch_views], dim=-1)
        h = input_pts
        for i, l in enumerate(self.pts_linears):
            h = self.pts_linears[i](h)
            h = ops.relu(h)
            if i in self.skips:
                h = ops.cat([input_pts, h], -1)
        if self.use_viewdirs:
            alpha = self.alpha_linear(h)
            feature = self.feature_linear(h)
            h = ops.cat([feature, input_views], -1)
            for i, l in enumerate(self.views_linears):
                h = self.views_linears[i](h)
                h = ops.relu(h)
            rgb = self.rgb_linear(h)
            outputs = ops.cat([rgb, alpha], -1)
        else:
            outputs = self.output_linear(h)
        return outputs

def batchify(fn, chunk):
    if chunk is None:
        return fn
    def ret(inputs):
        return ops.cat([fn(inputs[i:i + chunk]) for i in range(0, inputs.shape[0], chunk)], 0)
    return ret

def run_network(inputs, viewdirs, fn, embed_fn, embeddirs_fn, netchunk=1024 * 64):
    inputs_flat = inputs.view(-1, inputs.shape[-1])
    embedded = embed_fn(inputs_flat)
    if viewdirs is not None:
        input_dirs = viewdirs[:, None].expand(inputs.shape)
        input_dirs_flat = input_dirs.view(-1, input_dirs.shape[-1])
        embedded_dirs = embeddirs_fn(input_dirs_flat)
        embedded = ops.cat([embedded, embedded_dirs], -1)
    outputs_flat = batchify(fn, netchunk)(embedded)
    outputs = outputs_flat.view(list(inputs.shape[:-1]) + [outputs_flat.shape[-1]])
    return outputs

def get_rays(H, W, K, c2w):
    i, j = ops.meshgrid(ops.linspace(0, W - 1, W), ops.linspace(0, H - 1, H), indexing='ij')
    i, j = i.t(), j.t()
    dirs = ops.stack([(i - K[0][2]) / K[0][0], -(j - K[1][2]) / K[1][1], -ops.ones_like(i)], -1)
    rays_d = ops.sum(dirs[..., None, :] * c2w[:3, :3], -1)
    rays_o = c2w[:3, -1].expand(rays_d.shape)
    return rays_o, rays_d

def pose_spherical(theta, phi, radius):
    ph, th = phi / 180. * np.pi, theta / 180. * np.pi
    trans_t = np.eye(4); trans_t[2, 3] = radius
    rot_phi = np.array([[1, 0, 0, 0], [0, np.cos(ph), -np.sin(ph), 0], [0, np.sin(ph), np.cos(ph), 0], [0, 0, 0, 1]])
    rot_theta = np.array([[np.cos(th), 0, -np.sin(th), 0], [0, 1, 0, 0], [np.sin(th), 0, np.cos(th), 0], [0, 0, 0, 1]])
    c2w = np.array([[-1, 0, 0, 0], [0, 0, 1, 0], [0, 1, 0, 0], [0, 0, 0, 1]]) @ rot_theta @ rot_phi @ trans_t
    return c2w.astype(np.float32)

def ndc_rays(H, W, focal, near, rays_o, rays_d):
    t = -(near + rays_o[..., 2]) / rays_d[..., 2]
    rays_o = rays_o + t[..., None] * rays_d
    o0 = -1. / (W / (2. * focal)) * rays_o[..., 0] / rays_o[..., 2]
    o1 = -1. / (H / (2. * focal)) * rays_o[..., 1] / rays_o[..., 2]
    o2 = 1. + 2. * near / rays_o[..., 2]
    d0 = -1. / (W / (2. * focal)) * (rays_d[..., 0] / rays_d[..., 2] - rays_o[..., 0] / rays_o[..., 2])
    d1 = -1. / (H / (2. * focal)) * (rays_d[..., 1] / rays_d[..., 2] - rays_o[..., 1] / rays_o[..., 2])
    d2 = -2. * near / rays_o[..., 2]
    rays_o = ops.stack([o0, o1, o2], -1)
    rays_d = ops.stack([d0, d1, d2], -1)
    return rays_o, rays_d

def raw2outputs(raw, z_vals, rays_d, raw_noise_std=0, white_bkgd=False, pytest=False):
    raw2alpha = lambda raw, dists, act_fn=ops.relu: 1. - ops.exp(-act_fn(raw) * dists)
    dists = z_vals[..., 1:] - z_vals[..., :-1]
    dists = ops.cat([dists, Tensor([1e10]).expand(dists[..., :1].shape)], -1)
    dists = dists * ops.norm(rays_d[..., None, :], dim=-1)
    rgb = ops.sigmoid(raw[..., :3])
    noise = 0.
    if raw_noise_std > 0.:
        noise = ops.randn(raw[..., 3].shape) * raw_noise_std
        if pytest:
            np.random.seed(0)
            noise = np.random.rand(*list(raw[..., 3].shape)) * raw_noise_std
            noise = Tensor(noise, ms.float32)
    alpha = raw2alpha(raw[..., 3] + noise, dists)
    weights = alpha * ops.cumprod(ops.cat([ops.ones((alpha.shape[0], 1)), 1. - alpha + 1e-10], -1), dim=-1)[:, :-1]
    rgb_map = ops.sum(weights[..., None] * rgb, -2)
    depth_map = ops.sum(weights * z_vals, -1)
    disp_map = 1. / ops.maximum(1e-10 * ops.ones_like(depth_map), depth_map / ops.sum(weights, -1))
    acc_map = ops.sum(weights, -1)
    if white_bkgd:
        rgb_map = rgb_map + (1. - acc_map[..., None])
    return rgb_map, disp_map, acc_map, weights, depth_map

def sample_pdf(bins, weights, N_samples, det=False, pytest=False):
    weights = weights + 1e-5
    pdf = weights / ops.sum(weights, -1, keepdim=True)
    cdf = ops.cumsum(pdf, -1)
    cdf = ops.cat([ops.zeros_like(cdf[..., :1]), cdf], -1)
    if det:
        u = ops.linspace(0., 1., steps=N_samples)
        u = u.expand(list(cdf.shape[:-1]) + [N_samples])
    else:
        u = ops.rand(list(cdf.shape[:-1]) + [N_samples])
    if pytest:
        np.random.seed(0)
        new_shape = list(cdf.shape[:-1]) + [N_samples]
        if det:
            u = np.linspace(0., 1., N_samples)
            u = np.broadcast_to(u, new_shape)
        else:
            u = np.random.rand(*new_shape)
        u = Tensor(u, ms.float32)
    u = u.contiguous()
    inds = ops.searchsorted(cdf, u, right=True)
    below = ops.maximum(ops.zeros_like(inds - 1), inds - 1)
    above = ops.minimum((cdf.shape[-1] - 1) * ops.ones_like(inds), inds)
    inds_g = ops.stack([below, above], -1)
    matched_shape = [inds_g.shape[0], inds_g.shape[1], cdf.shape[-1]]
    cdf_g = cdf.unsqueeze(1).expand(matched_shape).gather(2, inds_g)
    bins_g = bins.unsqueeze(1).expand(matched_shape).gather(2, inds_g)
    denom = (cdf_g[..., 1] - cdf_g[..., 0])
    denom[denom < 1e-5] = 1.
    t = (u - cdf_g[..., 0]) / denom
    samples = bins_g[..., 0] + t * (bins_g[..., 1] - bins_g[..., 0])
    return samples

def render_rays(ray_batch, network_fn, network_query_fn, N_samples, lindisp=False, perturb=0.,
                N_importance=0, network_fine=None, white_bkgd=False, raw_noise_std=0., pytest=False):
    N_rays = ray_batch.shape[0]
    rays_o, rays_d = ray_batch[:, 0:3], ray_batch[:, 3:6]
    viewdirs = ray_batch[:, -3:] if ray_batch.shape[-1] > 8 else None
    bounds = ops.reshape(ray_batch[..., 6:8], [-1, 1, 2])
    near, far = bounds[..., 0], bounds[..., 1]
    t_vals = ops.linspace(0., 1., steps=N_samples)
    if not lindisp:
        z_vals = near * (1. - t_vals) + far * t_vals
    else:
        z_vals = 1. / (1. / near * (1. - t_vals) + 1. / far * t_vals)
    z_vals = z_vals.expand([N_rays, N_samples])
    if perturb > 0.:
        mids = .5 * (z_vals[..., 1:] + z_vals[..., :-1])
        upper = ops.cat([mids, z_vals[..., -1:]], -1)
        lower = ops.cat([z_vals[..., :1], mids], -1)
        t_rand = ops.rand(z_vals.shape)
        if pytest:
            np.random.seed(0)
            t_rand = np.random.rand(*list(z_vals.shape))
            t_rand = Tensor(t_rand, ms.float32)
        z_vals = lower + (upper - lower) * t_rand
    pts = rays_o[..., None, :] + rays_d[..., None, :] * z_vals[..., :, None]
    raw = network_query_fn(pts, viewdirs, network_fn)
    rgb_map, disp_map, acc_map, weights, depth_map = raw2outputs(raw, z_vals, rays_d, raw_noise_std, white_bkgd,
                                                                 pytest=pytest)
    if N_importance > 0:
        rgb_map_0, disp_map_0, acc_map_0 = rgb_map, disp_map, acc_map
        z_vals_mid = .5 * (z_vals[..., 1:] + z_vals[..., :-1])
        z_samples = sample_pdf(z_vals_mid, weights[..., 1:-1], N_importance, det=(perturb == 0.), pytest=pytest)
        z_samples = ops.stop_gradient(z_samples)
        z_vals, _ = ops.sort(ops.cat([z_vals, z_samples], -1), -1)
        pts = rays_o[..., None, :] + rays_d[..., None, :] * z_vals[..., :, None]
        run_fn = network_fn if network_fine is None else network_fine
        raw = network_query_fn(pts, viewdirs, run_fn)
        rgb_map, disp_map, acc_map, weights, depth_map = raw2outputs(raw, z_vals, rays_d, raw_noise_std,
                                                                     white_bkgd, pytest=pytest)
    ret = {'rgb_map': rgb_map, 'disp_map': disp_map, 'acc_map': acc_map}
    if N_importance > 0:
        ret['rgb0'] = rgb_map_0
        ret['disp0'] = disp_map_0
        ret['acc0'] = acc_map_0
        ret['z_std'] = ops.std(z_samples, -1, ddof=0)
    for k in ret:
        if (ops.isnan(ret[k]).any().item() or ops.isinf(ret[k]).any().item()) and DEBUG:
            print(f"! [Numerical Error] {k} contains nan or inf.")
    return ret

def batchify_rays(rays_flat, chunk=1024 * 32, **kwargs):
    all_ret = {}
    for i in range(0, rays_flat.shape[0], chunk):
        ret = render_rays(rays_flat[i:i + chunk], **kwargs)
        for k in ret:
            if k not in all_ret:
                all_ret[k] = []
            all_ret[k].append(ret[k])
    all_ret = {k: ops.cat(all_ret[k], 0) for k in all_ret}
    return all_ret

def render(H, W, K, chunk=1024 * 32, rays=None, c2w=None, ndc=True, near=0., far=1., use_viewdirs=False,
           **kwargs):
    if c2w is not None:
        rays_o, rays_d = get_rays(H, W, K, c2w)
    else:
        rays_o, rays_d = rays
    if use_viewdirs:
        viewdirs = rays_d
        viewdirs = viewdirs / ops.norm(viewdirs, dim=-1, keepdim=True)
        viewdirs = ops.reshape(viewdirs, [-1, 3]).float()
    sh = rays_d.shape
    if ndc:
        rays_o, rays_d = ndc_rays(H, W, K[0][0].item(), 1., rays_o, rays_d)
    rays_o = ops.reshape(rays_o, [-1, 3]).float()
    rays_d = ops.reshape(rays_d, [-1, 3]).float()
    near, far = near * ops.ones_like(rays_d[..., :1]), far * ops.ones_like(rays_d[..., :1])
    rays = ops.cat([rays_o, rays_d, near, far], -1)
    if use_viewdirs:
        rays = ops.cat([rays, viewdirs], -1)
    all_ret = batchify_rays(rays, chunk, **kwargs)
    for k in all_ret:
        k_sh = list(sh[:-1]) + list(all_ret[k].shape[1:])
        all_ret[k] = ops.reshape(all_ret[k], k_sh)
    k_extract = ['rgb_map', 'disp_map', 'acc_map']
    ret_list = [all_ret[k] for k in k_extract]
    ret_dict = {k: all_ret[k] for k in all_ret if k not in k_extract}
    return ret_list + [ret_dict]

def create_nerf(multires=4, multires_views=2, netdepth=4, netwidth=32, N_samples=8, N_importance=8, netchunk=64):
    embed_fn, input_ch = get_embedder(multires)
    embeddirs_fn, input_ch_views = get_embedder(multires_views)
    model, model_fine = [NeRF(D=netdepth, W=netwidth, input_ch=input_ch, output_ch=5, skips=[2],
                              input_ch_views=input_ch_views, use_viewdirs=True) for _ in range(2)]
    network_query_fn = functools.partial(run_network, embed_fn=embed_fn, embeddirs_fn=embeddirs_fn,
                                         netchunk=netchunk)
    render_kwargs = {'network_query_fn': network_query_fn, 'perturb': 1., 'N_importance': N_importance,
                     'network_fine': model_fine, 'N_samples': N_samples, 'network_fn': model,
                     'use_viewdirs': True, 'white_bkgd': False, 'raw_noise_std': 1., 'pytest': True}
    return render_kwargs, model, model_fine

class NeRFRenderer(nn.Cell):
    """Inference path a user puts under GRAPH_MODE: render a 4x4 view (16 rays) coarse + fine."""
    def __init__(self, H, W, K, chunk, render_kwargs):
        super().__init__()
        self.H, self.W, self.K, self.chunk = H, W, K, chunk
        self.render_kwargs = render_kwargs
    def construct(self, c2w):
        rgb, disp, acc, extras = render(self.H, self.W, self.K, chunk=self.chunk, c2w=c2w[:3, :4],
                                        **self.render_kwargs)
        return {'rgb': rgb, 'disp': disp, 'acc': acc, 'rgb0': extras['rgb0'], 'z_std': extras['z_std']}

def main():
    ms.set_context(mode=ms.PYNATIVE_MODE); ms.set_seed(0); np.random.seed(0)
    renderer = NeRFRenderer(4, 4, np.array([[5., 0, 2.], [0, 5., 2.], [0, 0, 1]]), 8, create_nerf()[0])
    out = renderer(Tensor(pose_spherical(30., -30., 4.), ms.float32))
    for k in out:
        print(k, tuple(out[k].shape), np.round(out[k].asnumpy().reshape(-1)[:6], 5))
    print("psnr vs gray", round((-10. * ops.log(ops.mean((out['rgb'] - 0.5) ** 2)) / np.log(10.)).item(), 4))
if __name__ == '__main__':
    main()
