"""REFERENCE FIX of evoformer_ipa.py (see LABELS.md). Tiny AlphaFold2 / OpenFold-style model (Evoformer + IPA structure module) ported to MindSpore 2.10."""
import math
from dataclasses import dataclass
from functools import partial

import numpy as np
import mindspore as ms
from mindspore import nn, ops, mint, Tensor, Parameter

softmax = mint.nn.functional.softmax  # ops.softmax has no dim=

def permute_final_dims(t, inds):
    zero_index = -1 * len(inds)
    first_inds = list(range(len(t.shape[:zero_index])))
    return t.permute(first_inds + [zero_index + i for i in inds])

def flatten_final_dims(t, no_dims):
    return t.reshape(t.shape[:-no_dims] + (-1,))

def chunk_layer(layer, inputs, chunk_size, no_batch_dims):
    """OpenFold-style chunking: slice every input along the last batch dim and concat the outputs."""
    dim = no_batch_dims - 1
    n = inputs["q_x"].shape[dim]
    out = []
    for i in range(0, n, chunk_size):
        chunk = {}
        for k, v in inputs.items():
            if isinstance(v, list):
                chunk[k] = [b if b.shape[dim] == 1 else b[:, i:i + chunk_size] for b in v]
            else:
                chunk[k] = v[:, i:i + chunk_size]
        out.append(layer(**chunk))
    return mint.cat(out, dim=dim)

class Attention(nn.Cell):
    def __init__(self, c_q, c_k, c_v, c_hidden, no_heads, gating=True):
        super().__init__()
        self.c_hidden, self.no_heads = c_hidden, no_heads
        self.linear_q = nn.Dense(c_q, c_hidden * no_heads, has_bias=False)
        self.linear_k = nn.Dense(c_k, c_hidden * no_heads, has_bias=False)
        self.linear_v = nn.Dense(c_v, c_hidden * no_heads, has_bias=False)
        self.linear_o = nn.Dense(c_hidden * no_heads, c_q)
        self.linear_g = nn.Dense(c_q, c_hidden * no_heads) if gating else None

    def construct(self, q_x, kv_x, biases=None):
        if biases is None:
            biases = []
        q, k, v = self.linear_q(q_x), self.linear_k(kv_x), self.linear_v(kv_x)
        q = q.view(*q.shape[:-1], self.no_heads, -1).swapaxes(-2, -3)  # [*, H, Q, C]
        k = k.view(*k.shape[:-1], self.no_heads, -1).swapaxes(-2, -3)
        v = v.view(*v.shape[:-1], self.no_heads, -1).swapaxes(-2, -3)
        q = q / math.sqrt(self.c_hidden)
        a = mint.matmul(q, k.swapaxes(-1, -2))
        for b in biases:
            a += b
        a = softmax(a, dim=-1)
        o = mint.matmul(a, v).swapaxes(-2, -3)  # [*, Q, H, C]
        if self.linear_g is not None:
            g = self.linear_g(q_x).sigmoid()
            o = o * g.view(*g.shape[:-1], self.no_heads, -1)
        return self.linear_o(flatten_final_dims(o, 2))

class MSARowAttentionWithPairBias(nn.Cell):
    def __init__(self, c_m, c_z, c_hidden, no_heads, pair_bias=True):
        super().__init__()
        self.pair_bias = pair_bias
        self.layer_norm_m = nn.LayerNorm((c_m,))
        if pair_bias:
            self.layer_norm_z = nn.LayerNorm((c_z,))
            self.linear_z = nn.Dense(c_z, no_heads, has_bias=False)
        self.mha = Attention(c_m, c_m, c_m, c_hidden, no_heads)

    def construct(self, m, z=None, mask=None, chunk_size=None):
        if mask is None:
            mask = m.new_ones(m.shape[:-1])
        mask_bias = (1e9 * (mask - 1))[..., :, None, None, :]  # [*, S, 1, 1, R]
        biases = [mask_bias]
        if self.pair_bias and z is not None:
            z = self.linear_z(self.layer_norm_z(z))
            biases.append(permute_final_dims(z, (2, 0, 1)).unsqueeze(-4))  # [*, 1, H, R, R]
        m = self.layer_norm_m(m)
        if chunk_size is not None:
            return chunk_layer(self.mha, {"q_x": m, "kv_x": m, "biases": biases}, chunk_size,
                               no_batch_dims=len(m.shape[:-2]))
        return self.mha(q_x=m, kv_x=m, biases=biases)

class MSAColumnAttention(nn.Cell):
    def __init__(self, c_m, c_hidden, no_heads):
        super().__init__()
        self._msa_att = MSARowAttentionWithPairBias(c_m, None, c_hidden, no_heads, pair_bias=False)

    def construct(self, m, mask=None, chunk_size=None):
        m = m.swapaxes(-2, -3)
        if mask is not None:
            mask = mask.swapaxes(-1, -2)
        m = self._msa_att(m, mask=mask, chunk_size=chunk_size)
        return m.swapaxes(-2, -3)

class Transition(nn.Cell):
    def __init__(self, c, n=4):
        super().__init__()
        self.layer_norm = nn.LayerNorm((c,))
        self.linear_1, self.relu, self.linear_2 = nn.Dense(c, n * c), nn.ReLU(), nn.Dense(n * c, c)

    def construct(self, x, mask=None):
        if mask is None:
            mask = x.new_ones(x.shape[:-1])
        x = self.layer_norm(x)
        return self.linear_2(self.relu(self.linear_1(x))) * mask.unsqueeze(-1)

class OuterProductMean(nn.Cell):
    def __init__(self, c_m, c_z, c_hidden, eps=1e-3):
        super().__init__()
        self.eps, self.c_hidden = eps, c_hidden
        self.layer_norm = nn.LayerNorm((c_m,))
        self.linear_1, self.linear_2 = nn.Dense(c_m, c_hidden), nn.Dense(c_m, c_hidden)
        self.linear_out = nn.Dense(c_hidden * c_hidden, c_z)

    def construct(self, m, mask=None, inplace_safe=False):
        if mask is None:
            mask = m.new_ones(m.shape[:-1])
        ln = self.layer_norm(m)
        mask = mask.unsqueeze(-1)
        a, b = self.linear_1(ln) * mask, self.linear_2(ln) * mask  # [*, S, R, C]
        # torch.einsum("...sic,...sje->...ijce") -- einsum is Ascend-only in MindSpore
        a = a.reshape(*a.shape[:-2], -1)
        b = b.reshape(*b.shape[:-2], -1)
        outer = mint.matmul(a.swapaxes(-1, -2), b)  # [*, R*C, R*C]
        n, c = m.shape[-2], self.c_hidden
        outer = permute_final_dims(outer.view(*outer.shape[:-2], n, c, n, c), (0, 2, 1, 3))
        outer = self.linear_out(outer.reshape(*outer.shape[:-2], -1))
        norm = mint.matmul(mask.squeeze(-1).swapaxes(-1, -2), mask.squeeze(-1)).unsqueeze(-1) + self.eps
        if inplace_safe:
            outer /= norm
        else:
            outer = outer / norm
        return outer

class TriangleMultiplicativeUpdate(nn.Cell):
    def __init__(self, c_z, c_hidden, outgoing=True):
        super().__init__()
        self._outgoing = outgoing
        self.linear_a_p, self.linear_a_g = nn.Dense(c_z, c_hidden), nn.Dense(c_z, c_hidden)
        self.linear_b_p, self.linear_b_g = nn.Dense(c_z, c_hidden), nn.Dense(c_z, c_hidden)
        self.linear_g, self.linear_z = nn.Dense(c_z, c_z), nn.Dense(c_hidden, c_z)
        self.layer_norm_in, self.layer_norm_out = nn.LayerNorm((c_z,)), nn.LayerNorm((c_hidden,))

    def _combine_projections(self, a, b):
        if self._outgoing:
            a, b = permute_final_dims(a, (2, 0, 1)), permute_final_dims(b, (2, 1, 0))
        else:
            a, b = permute_final_dims(a, (2, 1, 0)), permute_final_dims(b, (2, 0, 1))
        return permute_final_dims(mint.matmul(a, b), (1, 2, 0))

    def construct(self, z, mask=None, inplace_safe=False):
        if mask is None:
            mask = z.new_ones(z.shape[:-1])
        mask = mask.unsqueeze(-1)
        z = self.layer_norm_in(z)
        a = mask * self.linear_a_g(z).sigmoid() * self.linear_a_p(z)
        b = mask * self.linear_b_g(z).sigmoid() * self.linear_b_p(z)
        x = self.linear_z(self.layer_norm_out(self._combine_projections(a, b)))
        g = self.linear_g(z).sigmoid()
        if inplace_safe:
            x *= g
        else:
            x = x * g
        return x

class TriangleAttention(nn.Cell):
    def __init__(self, c_in, c_hidden, no_heads, starting=True):
        super().__init__()
        self.starting = starting
        self.layer_norm = nn.LayerNorm((c_in,))
        self.linear = nn.Dense(c_in, no_heads, has_bias=False)
        self.mha = Attention(c_in, c_in, c_in, c_hidden, no_heads)

    def construct(self, x, mask=None, chunk_size=None):
        if mask is None:
            mask = x.new_ones(x.shape[:-1])
        if not self.starting:
            x, mask = x.swapaxes(-2, -3), mask.swapaxes(-1, -2)
        x = self.layer_norm(x)
        mask_bias = (1e9 * (mask - 1))[..., :, None, None, :]
        triangle_bias = permute_final_dims(self.linear(x), (2, 0, 1)).unsqueeze(-4)
        biases = [mask_bias, triangle_bias]
        if chunk_size is not None:
            x = chunk_layer(self.mha, {"q_x": x, "kv_x": x, "biases": biases}, chunk_size,
                            no_batch_dims=len(x.shape[:-2]))
        else:
            x = self.mha(q_x=x, kv_x=x, biases=biases)
        if not self.starting:
            x = x.swapaxes(-2, -3)
        return x

class EvoformerBlock(nn.Cell):
    def __init__(self, c_m, c_z, c_hidden, no_heads):
        super().__init__()
        self.msa_att_row = MSARowAttentionWithPairBias(c_m, c_z, c_hidden, no_heads)
        self.msa_att_col = MSAColumnAttention(c_m, c_hidden, no_heads)
        self.msa_transition = Transition(c_m)
        self.outer_product_mean = OuterProductMean(c_m, c_z, c_hidden)
        self.tri_mul_out = TriangleMultiplicativeUpdate(c_z, c_hidden, outgoing=True)
        self.tri_mul_in = TriangleMultiplicativeUpdate(c_z, c_hidden, outgoing=False)
        self.tri_att_start = TriangleAttention(c_z, c_hidden, no_heads, starting=True)
        self.tri_att_end = TriangleAttention(c_z, c_hidden, no_heads, starting=False)
        self.pair_transition = Transition(c_z)

    def construct(self, m, z, msa_mask=None, pair_mask=None, chunk_size=None, inplace_safe=False):
        m = m + self.msa_att_row(m, z=z, mask=msa_mask, chunk_size=chunk_size)
        m = m + self.msa_att_col(m, mask=msa_mask, chunk_size=chunk_size)
        m = m + self.msa_transition(m, mask=msa_mask)
        opm = self.outer_product_mean(m, mask=msa_mask, inplace_safe=inplace_safe)
        if inplace_safe:
            z += opm
        else:
            z = z + opm
        z = z + self.tri_mul_out(z, mask=pair_mask, inplace_safe=inplace_safe)
        z = z + self.tri_mul_in(z, mask=pair_mask, inplace_safe=inplace_safe)
        z = z + self.tri_att_start(z, mask=pair_mask, chunk_size=chunk_size)
        z = z + self.tri_att_end(z, mask=pair_mask, chunk_size=chunk_size)
        z = z + self.pair_transition(z, mask=pair_mask)
        return m, z

class EvoformerStack(nn.Cell):
    def __init__(self, c_m, c_z, c_hidden, no_heads, no_blocks, c_s):
        super().__init__()
        self.blocks = nn.CellList([EvoformerBlock(c_m, c_z, c_hidden, no_heads) for _ in range(no_blocks)])
        self.linear = nn.Dense(c_m, c_s)

    def construct(self, m, z, msa_mask, pair_mask, chunk_size=None, inplace_safe=False):
        blocks = [partial(b, msa_mask=msa_mask, pair_mask=pair_mask, chunk_size=chunk_size,
                          inplace_safe=inplace_safe) for b in self.blocks]
        for b in blocks:
            m, z = b(m, z)
        return m, z, self.linear(m[..., 0, :, :])

# ---------------------------------------------------------------- rigid-frame helpers (openfold/utils/rigid_utils.py)
def _make_qtr_mat():
    mat = np.zeros((4, 4, 3, 3), dtype=np.float32)
    mat[0, 0], mat[1, 1] = np.eye(3), np.diag([1, -1, -1])
    mat[2, 2], mat[3, 3] = np.diag([-1, 1, -1]), np.diag([-1, -1, 1])
    for i, j, r, c, v in [(1, 2, 0, 1, 2), (1, 2, 1, 0, 2), (1, 3, 0, 2, 2), (1, 3, 2, 0, 2), (2, 3, 1, 2, 2),
                          (2, 3, 2, 1, 2), (0, 1, 1, 2, -2), (0, 1, 2, 1, 2), (0, 2, 0, 2, 2), (0, 2, 2, 0, -2),
                          (0, 3, 0, 1, -2), (0, 3, 1, 0, 2)]:
        mat[i, j, r, c] = v
    return mat

_QTR_MAT = _make_qtr_mat()

def quat_to_rot(quat):
    quat = quat[..., None] * quat[..., None, :]  # [*, 4, 4]
    mat = Tensor(_QTR_MAT, dtype=quat.dtype)
    shaped_qtr_mat = mat.view((1,) * len(quat.shape[:-2]) + mat.shape)
    return (quat[..., None, None] * shaped_qtr_mat).sum(dim=(-3, -4))

def rot_apply(rot, pts):
    return mint.matmul(rot, pts.unsqueeze(-1)).squeeze(-1)


def rigid_identity(shape, dtype):
    return ops.eye(3, 3, dtype).broadcast_to(tuple(shape) + (3, 3)), ops.zeros(tuple(shape) + (3,), dtype)


def rigid_compose(r1, r2):
    return mint.matmul(r1[0], r2[0]), rot_apply(r1[0], r2[1]) + r1[1]


def rigid_apply(r, pts):
    return rot_apply(r[0], pts) + r[1]


def rigid_invert_apply(r, pts):
    return rot_apply(r[0].swapaxes(-1, -2), pts - r[1])


def rigid_compose_q_update_vec(r, q_update_vec):
    q_vec, t_vec = q_update_vec[..., :3], q_update_vec[..., 3:]
    quat = mint.cat([q_vec.new_ones(q_vec.shape[:-1] + (1,)), q_vec], dim=-1)
    quat = quat / ops.norm(quat, dim=-1, keepdim=True)
    return rigid_compose(r, (quat_to_rot(quat), t_vec))


def rigid_to_tensor_4x4(r):
    top = mint.cat([r[0], r[1].unsqueeze(-1)], dim=-1)  # [*, 3, 4]
    bottom = ops.zeros(top.shape[:-2] + (1, 4), top.dtype)
    bottom[..., 0, 3] = 1.0
    return mint.cat([top, bottom], dim=-2)

class InvariantPointAttention(nn.Cell):
    def __init__(self, c_s, c_z, c_hidden, no_heads, no_qk_points, no_v_points, inf=1e5, eps=1e-8):
        super().__init__()
        self.c_hidden, self.no_heads, self.inf, self.eps = c_hidden, no_heads, inf, eps
        self.no_qk_points, self.no_v_points = no_qk_points, no_v_points
        hc = c_hidden * no_heads
        self.linear_q, self.linear_kv = nn.Dense(c_s, hc), nn.Dense(c_s, 2 * hc)
        self.linear_q_points = nn.Dense(c_s, no_heads * no_qk_points * 3)
        self.linear_kv_points = nn.Dense(c_s, no_heads * (no_qk_points + no_v_points) * 3)
        self.linear_b = nn.Dense(c_z, no_heads)
        self.head_weights = Parameter(Tensor(np.full((no_heads,), 0.541324854612918, np.float32)))
        self.linear_out = nn.Dense(no_heads * (c_z + c_hidden + no_v_points * 4), c_s)

    def construct(self, s, z, r, mask):
        q = self.linear_q(s).view(*s.shape[:-1], self.no_heads, -1)  # [*, N, H, C]
        kv = self.linear_kv(s).view(*s.shape[:-1], self.no_heads, -1)
        k, v = kv[..., :self.c_hidden], kv[..., self.c_hidden:]
        q_pts = self.linear_q_points(s)
        q_pts = q_pts.view(*q_pts.shape[:-1], 3, -1).swapaxes(-1, -2)  # [*, N, H*P, 3]
        q_pts = rigid_apply((r[0][..., None, :, :], r[1][..., None, :]), q_pts)
        q_pts = q_pts.view(*q_pts.shape[:-2], self.no_heads, self.no_qk_points, 3)
        kv_pts = self.linear_kv_points(s)
        kv_pts = kv_pts.view(*kv_pts.shape[:-1], 3, -1).swapaxes(-1, -2)
        kv_pts = rigid_apply((r[0][..., None, :, :], r[1][..., None, :]), kv_pts)
        kv_pts = kv_pts.view(*kv_pts.shape[:-2], self.no_heads, -1, 3)
        k_pts, v_pts = kv_pts.split([self.no_qk_points, self.no_v_points], dim=-2)
        b = self.linear_b(z)  # [*, N, N, H]
        a = mint.matmul(permute_final_dims(q, (1, 0, 2)), permute_final_dims(k, (1, 2, 0)))
        a *= math.sqrt(1.0 / (3 * self.c_hidden))
        a += math.sqrt(1.0 / 3) * permute_final_dims(b, (2, 0, 1))
        pt_att = (q_pts.unsqueeze(-4) - k_pts.unsqueeze(-5)) ** 2  # [*, N, N, H, P, 3]
        pt_att = sum(pt_att.unbind(dim=-1))
        head_weights = ops.softplus(self.head_weights).view(*((1,) * len(pt_att.shape[:-2]) + (-1, 1)))
        head_weights = head_weights * math.sqrt(1.0 / (3 * (self.no_qk_points * 9.0 / 2)))
        pt_att = (pt_att * head_weights).sum(dim=-1) * (-0.5)
        square_mask = self.inf * (mask.unsqueeze(-1) * mask.unsqueeze(-2) - 1)
        a = a + permute_final_dims(pt_att, (2, 0, 1)) + square_mask.unsqueeze(-3)
        a = softmax(a, dim=-1)  # [*, H, N, N]
        o = flatten_final_dims(mint.matmul(a, v.swapaxes(-2, -3)).swapaxes(-2, -3), 2)
        o_pt = (a[..., None, :, :, None] * permute_final_dims(v_pts, (1, 3, 0, 2))[..., None, :, :]).sum(dim=-2)
        o_pt = rigid_invert_apply((r[0][..., None, None, :, :], r[1][..., None, None, :]), permute_final_dims(o_pt, (2, 0, 3, 1)))  # [*, N, H, P, 3]
        o_pt_norm = flatten_final_dims(ops.sqrt((o_pt ** 2).sum(dim=-1) + self.eps), 2)
        o_pt = o_pt.reshape(*o_pt.shape[:-3], -1, 3)
        o_pair = flatten_final_dims(mint.matmul(a.swapaxes(-2, -3), z.to(a.dtype)), 2)
        return self.linear_out(mint.cat((o, *o_pt.unbind(dim=-1), o_pt_norm, o_pair), dim=-1))

class StructureModule(nn.Cell):
    def __init__(self, c_s, c_z, c_ipa, no_heads, no_qk_points, no_v_points, no_blocks, trans_scale_factor=10.0):
        super().__init__()
        self.no_blocks, self.trans_scale_factor = no_blocks, trans_scale_factor
        self.layer_norm_s, self.layer_norm_z = nn.LayerNorm((c_s,)), nn.LayerNorm((c_z,))
        self.linear_in = nn.Dense(c_s, c_s)
        self.ipa = InvariantPointAttention(c_s, c_z, c_ipa, no_heads, no_qk_points, no_v_points)
        self.layer_norm_ipa = nn.LayerNorm((c_s,))
        self.transition = nn.SequentialCell(nn.Dense(c_s, c_s), nn.ReLU(), nn.Dense(c_s, c_s))
        self.bb_update = nn.Dense(c_s, 6)

    def construct(self, evoformer_output_dict, mask=None, inplace_safe=False):
        s = self.layer_norm_s(evoformer_output_dict["single"])
        z = self.layer_norm_z(evoformer_output_dict["pair"])
        if mask is None:
            mask = s.new_ones(s.shape[:-1])
        s = self.linear_in(s)
        rigids = rigid_identity(s.shape[:-1], s.dtype)
        outputs = []
        for i in range(self.no_blocks):
            s = s + self.ipa(s, z, rigids, mask)
            s = self.layer_norm_ipa(s)
            s = s + self.transition(s)
            rigids = rigid_compose_q_update_vec(rigids, self.bb_update(s))
            scaled_rigids = (rigids[0], rigids[1] * self.trans_scale_factor)
            outputs.append({"frames": rigid_to_tensor_4x4(scaled_rigids), "positions": scaled_rigids[1], "states": s})
            rigids = (ops.stop_gradient(rigids[0]), rigids[1])
        outputs = {"frames": ops.stack([d["frames"] for d in outputs], axis=0),
                   "positions": ops.stack([d["positions"] for d in outputs], axis=0),
                   "states": ops.stack([d["states"] for d in outputs], axis=0)}
        outputs["single"] = s
        return outputs

def compute_plddt(logits):
    num_bins = logits.shape[-1]
    bin_width = 1.0 / num_bins
    bounds = ops.arange(0.5 * bin_width, 1.0, bin_width)
    probs = softmax(logits, dim=-1)
    return (probs * bounds.view(*((1,) * len(probs.shape[:-1])), *bounds.shape)).sum(dim=-1) * 100

_DISTO_CENTERS = np.linspace(2.3125, 21.6875, 16).astype(np.float32)

class ConfidenceMetrics(nn.Cell):
    """Inference-time metrics (pLDDT, expected distances) -- a small graph entry of its own."""
    def construct(self, lddt_logits, distogram_logits, seq_mask):
        plddt = compute_plddt(lddt_logits)
        probs = softmax(distogram_logits, dim=-1)
        expected_dist = (probs * Tensor(_DISTO_CENTERS)).sum(dim=-1)
        mean_plddt = (plddt * seq_mask).sum() / seq_mask.sum()
        return plddt, expected_dist, mean_plddt.item(), float((plddt > 50).float().mean().item())

    def __call__(self, *args):
        o = super().__call__(*args)
        return {"plddt": o[0], "expected_distance": o[1], "mean_plddt": o[2], "frac_confident": o[3]}

class AlphaFold(nn.Cell):
    def __init__(self, tf_dim=22, msa_dim=49, c_m=16, c_z=16, c_s=16, c_hidden=8, no_heads=2, no_blocks=2,
                 relpos_k=4, no_bins=16):
        super().__init__()
        self.relpos_k = relpos_k
        self.linear_tf_z_i, self.linear_tf_z_j = nn.Dense(tf_dim, c_z), nn.Dense(tf_dim, c_z)
        self.linear_tf_m, self.linear_msa_m = nn.Dense(tf_dim, c_m), nn.Dense(msa_dim, c_m)
        self.linear_relpos = nn.Dense(2 * relpos_k + 1, c_z)
        self.rc_layer_norm_m, self.rc_layer_norm_z = nn.LayerNorm((c_m,)), nn.LayerNorm((c_z,))
        self.rc_linear = nn.Dense(15, c_z)
        self.evoformer = EvoformerStack(c_m, c_z, c_hidden, no_heads, no_blocks, c_s)
        self.structure_module = StructureModule(c_s, c_z, c_hidden, no_heads, 4, 4, no_blocks)
        self.distogram_head = nn.Dense(c_z, no_bins)
        self.plddt_head = nn.SequentialCell(nn.LayerNorm((c_s,)), nn.Dense(c_s, c_s), nn.ReLU(), nn.Dense(c_s, no_bins))
        self.confidence = ConfidenceMetrics()

    def __call__(self, *args, **kwargs):  # python-side bookkeeping outside the graph
        o = super().__call__(*args, **kwargs)  # graph returns a flat tuple; rebuild the dict here
        out = {"msa": o[0], "pair": o[1], "single": o[2],
               "sm": {"frames": o[3], "positions": o[4], "states": o[5], "single": o[6]},
               "final_atom_positions": o[7], "distogram_logits": o[8], "lddt_logits": o[9], "plddt": o[10]}
        self.num_iters = kwargs.get("num_recycle", 1) + 1
        return out

    def relpos(self, ri):
        d = ri[..., None] - ri[..., None, :]
        boundaries = ops.arange(-self.relpos_k, self.relpos_k + 1).to(d.dtype)
        am = ops.argmin(ops.abs(d[..., None] - boundaries), axis=-1)
        return self.linear_relpos(ops.one_hot(am, len(boundaries), Tensor(1.0), Tensor(0.0)))

    def recycle_embed(self, m_1_prev, z_prev, x_prev):
        squared_bins = ops.linspace(3.25, 20.75, 15) ** 2
        upper = mint.cat([squared_bins[1:], Tensor([1e9], ms.float32)], dim=-1)
        d = ((x_prev[..., None, :] - x_prev[..., None, :, :]) ** 2).sum(dim=-1, keepdim=True)
        d = ((d > squared_bins) * (d < upper)).to(x_prev.dtype)
        return self.rc_layer_norm_m(m_1_prev), self.rc_layer_norm_z(z_prev) + self.rc_linear(d)

    def iteration(self, tf, msa_feat, ri, msa_mask, seq_mask, m_1_prev, z_prev, x_prev, chunk_size, inplace_safe):
        pair_mask = seq_mask[..., :, None] * seq_mask[..., None, :]
        z = self.linear_tf_z_i(tf)[..., None, :] + self.linear_tf_z_j(tf)[..., None, :, :] + self.relpos(ri)
        m = self.linear_msa_m(msa_feat) + self.linear_tf_m(tf).unsqueeze(-3)
        if m_1_prev is None:
            m_1_prev = m.new_zeros(m.shape[:-3] + m.shape[-2:])
            z_prev = z.new_zeros(z.shape)
            x_prev = z.new_zeros(z.shape[:-2] + (3,))
        m_1_prev_emb, z_prev_emb = self.recycle_embed(m_1_prev, z_prev, x_prev)
        m[..., 0, :, :] += m_1_prev_emb
        z = z + z_prev_emb
        m, z, s = self.evoformer(m, z, msa_mask=msa_mask, pair_mask=pair_mask, chunk_size=chunk_size,
                                 inplace_safe=inplace_safe)
        outputs = {"msa": m, "pair": z, "single": s}
        outputs["sm"] = self.structure_module(outputs, mask=seq_mask, inplace_safe=inplace_safe)
        outputs["final_atom_positions"] = outputs["sm"]["positions"][-1]
        return outputs, m[..., 0, :, :], z, outputs["final_atom_positions"]

    def construct(self, target_feat, msa_feat, residue_index, seq_mask=None, msa_mask=None, num_recycle=1,
                  chunk_size=None, inplace_safe=False):
        if seq_mask is None:
            seq_mask = target_feat.new_ones(target_feat.shape[:-1])
        if msa_mask is None:
            msa_mask = msa_feat.new_ones(msa_feat.shape[:-1])
        m_1_prev, z_prev, x_prev = None, None, None
        args = (target_feat, msa_feat, residue_index.to(ms.float32), msa_mask, seq_mask)
        for cycle_no in range(num_recycle):
            _, m_1_prev, z_prev, x_prev = self.iteration(*args, m_1_prev, z_prev, x_prev, chunk_size, inplace_safe)
            m_1_prev, z_prev, x_prev = [ops.stop_gradient(t) for t in (m_1_prev, z_prev, x_prev)]
        outputs, _, _, _ = self.iteration(*args, m_1_prev, z_prev, x_prev, chunk_size, inplace_safe)
        outputs["distogram_logits"] = self.distogram_head(outputs["pair"])
        outputs["distogram_logits"] += outputs["distogram_logits"].swapaxes(-2, -3)
        outputs["lddt_logits"] = self.plddt_head(outputs["sm"]["single"])
        outputs["plddt"] = compute_plddt(outputs["lddt_logits"])
        sm = outputs["sm"]
        return (outputs["msa"], outputs["pair"], outputs["single"], sm["frames"], sm["positions"], sm["states"],
                sm["single"], outputs["final_atom_positions"], outputs["distogram_logits"], outputs["lddt_logits"],
                outputs["plddt"])

def make_inputs(seed, batch=1, n_seq=4, n_res=8, tf_dim=22, msa_dim=49, masked=False):
    rng = np.random.RandomState(seed)
    feats = {"target_feat": Tensor(rng.randn(batch, n_res, tf_dim).astype(np.float32)),
             "msa_feat": Tensor(rng.randn(batch, n_seq, n_res, msa_dim).astype(np.float32)),
             "residue_index": Tensor(np.tile(np.arange(n_res), (batch, 1)).astype(np.int32))}
    if masked:
        seq_mask = np.ones((batch, n_res), np.float32)
        seq_mask[:, -2:] = 0
        msa_mask = (rng.rand(batch, n_seq, n_res) > 0.2).astype(np.float32) * seq_mask[:, None]
        feats.update(seq_mask=Tensor(seq_mask), msa_mask=Tensor(msa_mask))
    return feats

if __name__ == "__main__":
    import sys
    mode = sys.argv[1] if len(sys.argv) > 1 else "pynative"
    if mode == "pynative":
        ms.set_context(mode=ms.PYNATIVE_MODE)
    else:
        ms.set_context(mode=ms.GRAPH_MODE, jit_syntax_level=ms.LAX if mode == "lax" else ms.STRICT)
    print("mode", mode)
    ms.set_seed(0)
    np.random.seed(0)
    model = AlphaFold()
    model.set_train(False)
    feats = make_inputs(1)
    out = model(**feats, num_recycle=1)
    print("frames", out["sm"]["frames"].shape, float(out["sm"]["frames"].sum()))
    print("positions[-1]", out["final_atom_positions"].asnumpy()[0, :2])
    print("plddt", out["plddt"].asnumpy().round(3))
    feats2 = make_inputs(2, masked=True)
    out2 = model(**feats2, num_recycle=2, chunk_size=2)
    conf = model.confidence(out2["lddt_logits"], out2["distogram_logits"], feats2["seq_mask"])
    print("mean_plddt", conf["mean_plddt"], "frac_confident", conf["frac_confident"], "iters", model.num_iters)
    print("expected_distance", conf["expected_distance"].asnumpy()[0, 0, :4])
