"""Reference fix of neural_ode.py (compiles at LAX and STRICT).
Run: python neural_ode_fixed.py [pynative|lax|strict]. Compared with neural_ode.py in PYNATIVE on the seeded inputs
(ms.set_seed(0), np.random.seed(0), x = randn(2, 4), t_grid = [0, .5, 1]): dopri5 pred equal, probs max abs diff
5.96e-08, nfe 14 = 14; rk4 logits/trajectory max abs diff 0.0, nfe 16 = 16 (same at pynative, lax, strict).
Fixes: solver objects -> functions; run-time floats/namedtuple/if -> 0-d Tensors and ops.where; nfe counter ->
Parameter + ops.assign/assign_add; no attribute writes; rk4 output writes by mask; tuple outputs."""
import sys
from dataclasses import dataclass

import numpy as np
import mindspore as ms
from mindspore import Tensor, Parameter, nn, ops, mint

# Dormand-Prince-Shampine Butcher tableau (torchdiffeq/_impl/dopri5.py), as plain lists
DOPRI5_ALPHA = [1 / 5, 3 / 10, 4 / 5, 8 / 9, 1., 1.]
DOPRI5_BETA = [
    [1 / 5],
    [3 / 40, 9 / 40],
    [44 / 45, -56 / 15, 32 / 9],
    [19372 / 6561, -25360 / 2187, 64448 / 6561, -212 / 729],
    [9017 / 3168, -355 / 33, 46732 / 5247, 49 / 176, -5103 / 18656],
    [35 / 384, 0, 500 / 1113, 125 / 192, -2187 / 6784, 11 / 84],
]
DOPRI5_C_SOL = [35 / 384, 0, 500 / 1113, 125 / 192, -2187 / 6784, 11 / 84, 0]
DOPRI5_C_ERROR = [
    35 / 384 - 1951 / 21600, 0, 500 / 1113 - 22642 / 50085, 125 / 192 - 451 / 720,
    -2187 / 6784 + 12231 / 42400, 11 / 84 - 649 / 6300, -1. / 60.,
]
DPS_C_MID = [
    6025192743 / 30085553152 / 2, 0, 51252292925 / 65400821598 / 2, -2691868925 / 45128329728 / 2,
    187940372067 / 1594534317056 / 2, -1776094331 / 19743644256 / 2, 11237099 / 235043384 / 2,
]

def _rms_norm(tensor):
    return tensor.abs().pow(2).mean().sqrt()


def _scaled_dot_product(scale, coeffs, ks):
    total = 0.
    for c, k in zip(coeffs, ks):
        if c != 0:
            total = total + (scale * c) * k
    return total


def _interp_fit(y0, y1, y_mid, f0, f1, dt):
    a = 2 * dt * (f1 - f0) - 8 * (y1 + y0) + 16 * y_mid
    b = dt * (5 * f0 - 3 * f1) + 18 * y0 + 14 * y1 - 32 * y_mid
    c = dt * (f1 - 4 * f0) - 11 * y0 - 5 * y1 + 16 * y_mid
    d = dt * f0
    e = y0
    return [e, d, c, b, a]


def _interp_evaluate(coefficients, t0, t1, t):
    x = (t - t0) / (t1 - t0)
    total = coefficients[0] + x * coefficients[1]
    x_power = x
    for n in range(2, 5):
        coefficient = coefficients[n]
        x_power = x_power * x
        total = total + x_power * coefficient
    return total


def _optimal_step_size(last_step, error_ratio, safety=0.9, ifactor=10.0, dfactor=0.2, order=5):
    """Step size controller of torchdiffeq, on 0-d Tensors (FIX: no Python if/min/max on run-time values)."""
    dfactor = ops.where(error_ratio < 1, ops.ones_like(error_ratio), ops.full_like(error_ratio, dfactor))
    factor = ops.minimum(ops.full_like(error_ratio, ifactor), ops.maximum(safety / error_ratio ** (1.0 / order), dfactor))
    factor = ops.where(error_ratio == 0, ops.full_like(error_ratio, ifactor), factor)
    return last_step * factor


def _select_initial_step(func, t0, y0, f0, rtol, atol, order):
    scale = atol + y0.abs() * rtol
    d0 = _rms_norm(y0 / scale)
    d1 = _rms_norm(f0 / scale)
    h0 = ops.where((d0 < 1e-5) | (d1 < 1e-5), ops.full_like(d0, 1e-6), 0.01 * d0 / d1)
    y1 = y0 + h0 * f0
    f1 = func(t0 + h0, y1)
    d2 = _rms_norm((f1 - f0) / scale) / h0
    dmax = ops.maximum(d1, d2)
    h1 = ops.where(dmax <= 1e-15, ops.maximum(ops.full_like(h0, 1e-6), h0 * 1e-3), (0.01 / dmax) ** (1. / float(order + 1)))
    return ops.minimum(100 * h0, h1)


def _runge_kutta_step(func, y0, f0, t0, dt):
    k = [f0]
    for alpha_i, beta_i in zip(DOPRI5_ALPHA, DOPRI5_BETA):
        ti = t0 + alpha_i * dt
        yi = y0 + _scaled_dot_product(dt, beta_i, k)
        k.append(func(ti, yi))
    y1 = y0 + _scaled_dot_product(dt, DOPRI5_C_SOL, k)
    y1_error = _scaled_dot_product(dt, DOPRI5_C_ERROR, k)
    return y1, k[-1], y1_error, k


def dopri5_integrate(func, y0, t, rtol, atol, max_num_steps=64, safety=0.9, order=5):
    """FIX: functions instead of a solver object; loop state = Tensors of fixed shape."""
    t0 = t[0]
    f0 = func(t0, y0)
    dt = _select_initial_step(func, t0, y0, f0, rtol, atol, order)
    state_t0, state_t1 = t0, t0
    y_cur, f_cur = y0, f0
    coeff = ops.stack([y0] * 5, axis=0)
    n_steps = Tensor(0, ms.int32)
    solution = [y0]
    for i in range(1, t.shape[0]):
        next_t = t[i]
        while (next_t > state_t1) & (n_steps < max_num_steps):
            step_t0 = state_t1
            y1, f1, y1_error, k = _runge_kutta_step(func, y_cur, f_cur, step_t0, dt)
            error_tol = atol + rtol * mint.maximum(y_cur.abs(), y1.abs())
            error_ratio = _rms_norm(y1_error / error_tol)
            accept = error_ratio <= 1
            y_mid = y_cur + _scaled_dot_product(dt, DPS_C_MID, k)
            new_coeff = ops.stack(_interp_fit(y_cur, y1, y_mid, f_cur, f1, dt), axis=0)
            coeff = ops.where(accept, new_coeff, coeff)
            state_t1 = ops.where(accept, step_t0 + dt, step_t0)
            state_t0 = step_t0
            y_cur = ops.where(accept, y1, y_cur)
            f_cur = ops.where(accept, f1, f_cur)
            dt = _optimal_step_size(dt, error_ratio, safety=safety, order=order)
            n_steps = n_steps + 1
        solution.append(_interp_evaluate(coeff, state_t0, state_t1, next_t))
    return ops.stack(solution, axis=0)


def rk4_integrate(func, y0, t, step_size=0.25):
    """FIX: fixed-grid rk4 with a Tensor loop index and masked writes instead of `while j < len(t) and ...`."""
    start, end = t[0], t[-1]
    niters = ops.ceil((end - start) / step_size + 1).astype(ms.int32)
    n_out = t.shape[0]
    solution = ops.stack([y0] * n_out, axis=0)
    filled = ops.arange(0, n_out) == 0
    i = Tensor(0, ms.int32)
    while i < niters - 1:
        t0 = start + i.astype(t.dtype) * step_size
        t1 = ops.where(i + 2 >= niters, end, t0 + step_size)
        dt = t1 - t0
        k1 = func(t0, y0)
        k2 = func(t0 + dt / 3, y0 + dt * k1 / 3)
        k3 = func(t0 + dt * 2 / 3, y0 + dt * (k2 - k1 / 3))
        k4 = func(t0 + dt, y0 + dt * (k1 - k2 + k3))
        y1 = y0 + (k1 + 3 * (k2 + k3) + k4) * dt * 0.125
        hit = (t1 >= t) & ops.logical_not(filled)
        frac = ((t - t0) / (t1 - t0)).reshape(-1, 1, 1)
        solution = ops.where(hit.reshape(-1, 1, 1), y0.expand_dims(0) + frac * (y1 - y0).expand_dims(0), solution)
        filled = filled | hit
        y0 = y1
        i = i + 1
    return solution


def odeint(func, y0, t, rtol=1e-7, atol=1e-9, method='dopri5', step_size=0.25):
    if method == 'dopri5':
        return dopri5_integrate(func, y0, t, rtol, atol)
    if method == 'rk4':
        return rk4_integrate(func, y0, t, step_size)
    raise ValueError('Invalid method')


class ConcatLinear(nn.Cell):
    def __init__(self, dim_in, dim_out):
        super().__init__()
        self.layer = nn.Dense(dim_in + 1, dim_out)

    def construct(self, t, x):
        tt = ops.ones_like(x[:, :1]) * t
        ttx = mint.cat([tt, x], dim=1)
        return self.layer(ttx)


class ODEFunc(nn.Cell):
    def __init__(self, dim, hidden):
        super().__init__()
        self.fc1 = ConcatLinear(dim, hidden)
        self.fc2 = ConcatLinear(hidden, dim)
        self.act = nn.Tanh()
        self.nfe = Parameter(Tensor(0, ms.int32), name='nfe', requires_grad=False)  # FIX: counter as Parameter

    def construct(self, t, x):
        ops.assign_add(self.nfe, Tensor(1, ms.int32))
        out = self.act(self.fc1(t, x))
        return self.fc2(t, out)


class ODEBlock(nn.Cell):
    def __init__(self, odefunc, tol=1e-2, method='dopri5'):
        super().__init__()
        self.odefunc = odefunc
        self.integration_time = Tensor([0, 1], ms.float32)
        self.tol = tol
        self.method = method

    def construct(self, x):
        integration_time = self.integration_time.type_as(x)  # FIX: local, no attribute write
        out = odeint(self.odefunc, x, integration_time, rtol=self.tol, atol=self.tol, method=self.method)
        return out[1]


@dataclass
class ODEOutput:
    logits: Tensor
    trajectory: Tensor
    nfe: int


class ODENet(nn.Cell):
    def __init__(self, in_dim=4, state_dim=4, hidden=16, num_classes=3, tol=1e-2):
        super().__init__()
        self.encoder = nn.Dense(in_dim, state_dim)
        self.odefunc = ODEFunc(state_dim, hidden)
        self.block = ODEBlock(self.odefunc, tol=tol)
        self.head = nn.Dense(state_dim, num_classes)
        self.tol = tol

    def construct(self, x, t_grid):
        """Training-time forward: trajectory on a time grid (fixed step rk4)."""
        ops.assign(self.odefunc.nfe, Tensor(0, ms.int32))
        h = self.encoder(x)
        traj = odeint(self.odefunc, h, t_grid, method='rk4', step_size=0.25)
        logits = self.head(traj[-1])
        return logits, traj, ops.depend(self.odefunc.nfe.value(), logits)  # FIX: tuple, nfe read after the solve


class ODEClassifierInference(nn.Cell):
    """Inference path: integrate from t0 to t1 with dopri5, return predictions and NFE."""

    def __init__(self, net):
        super().__init__()
        self.net = net

    def construct(self, x):
        ops.assign(self.net.odefunc.nfe, Tensor(0, ms.int32))  # FIX
        h = self.net.encoder(x)
        h1 = self.net.block(h)
        logits = self.net.head(h1)
        probs = mint.softmax(logits, dim=-1)
        return logits.argmax(dim=-1), probs, ops.depend(self.net.odefunc.nfe.value(), probs)  # FIX: tuple


def main():
    mode = sys.argv[1] if len(sys.argv) > 1 else 'pynative'
    if mode != 'pynative':
        ms.set_context(mode=ms.GRAPH_MODE, jit_syntax_level=ms.STRICT if mode == 'strict' else ms.LAX)
    ms.set_seed(0)
    np.random.seed(0)
    net = ODENet()
    net.set_train(False)
    x = Tensor(np.random.randn(2, 4).astype(np.float32))
    t_grid = Tensor(np.linspace(0, 1, 3).astype(np.float32))
    logits, traj, nfe = net(x, t_grid)
    print('rk4 logits', logits.asnumpy().round(5), 'nfe', int(nfe), 'traj', traj.shape)
    infer = ODEClassifierInference(net)
    pred, probs, nfe = infer(x)
    print('dopri5 pred', pred.asnumpy(), 'probs', probs.asnumpy().round(5), 'nfe', int(nfe))


if __name__ == '__main__':
    main()
