"""Neural ODE classifier: MindSpore 2.10 port of rtqichen/torchdiffeq (odeint, dopri5, rk4, ODEFunc.nfe) and
the ODEBlock of examples/odenet_mnist.py, shrunk to vectors (state dim 4, hidden 16, batch 2)."""
import collections
from dataclasses import dataclass

import numpy as np
import mindspore as ms
from mindspore import Tensor, nn, ops, mint

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

_RungeKuttaState = collections.namedtuple('_RungeKuttaState', 'y1, f1, t0, t1, dt, interp_coeff')


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
    assert (t0 <= t) and (t <= t1), f'invalid interpolation, fails `t0 <= t <= t1`: {t0}, {t}, {t1}'
    x = (t - t0) / (t1 - t0)
    total = coefficients[0] + x * coefficients[1]
    x_power = x
    for coefficient in coefficients[2:]:
        x_power = x_power * x
        total = total + x_power * coefficient
    return total


def _optimal_step_size(last_step, error_ratio, safety=0.9, ifactor=10.0, dfactor=0.2, order=5):
    """Step size controller of torchdiffeq (on Python floats)."""
    if error_ratio == 0:
        return last_step * ifactor
    if error_ratio < 1:
        dfactor = 1.0
    exponent = 1.0 / order
    factor = min(ifactor, max(safety / error_ratio ** exponent, dfactor))
    return last_step * factor


class Dopri5Solver:
    """Adaptive Runge-Kutta solver: a plain Python object holding the solver state."""
    order = 5

    def __init__(self, func, y0, rtol, atol, first_step=None, max_num_steps=64, safety=0.9):
        self.func = func
        self.y0 = y0
        self.rtol = rtol
        self.atol = atol
        self.first_step = first_step
        self.max_num_steps = max_num_steps
        self.safety = safety
        self.n_steps = 0
        self.n_rejected = 0

    def _select_initial_step(self, t0, y0, f0):
        scale = self.atol + y0.abs() * self.rtol
        d0 = _rms_norm(y0 / scale).item()
        d1 = _rms_norm(f0 / scale).item()
        h0 = 1e-6 if (d0 < 1e-5 or d1 < 1e-5) else 0.01 * d0 / d1
        y1 = y0 + h0 * f0
        f1 = self.func(t0 + h0, y1)
        d2 = _rms_norm((f1 - f0) / scale).item() / h0
        if max(d1, d2) <= 1e-15:
            h1 = max(1e-6, h0 * 1e-3)
        else:
            h1 = (0.01 / max(d1, d2)) ** (1. / float(self.order + 1))
        return min(100 * h0, h1)

    def _runge_kutta_step(self, y0, f0, t0, dt):
        k = [f0]
        for alpha_i, beta_i in zip(DOPRI5_ALPHA, DOPRI5_BETA):
            ti = t0 + alpha_i * dt
            yi = y0 + _scaled_dot_product(dt, beta_i, k)
            k.append(self.func(ti, yi))
        y1 = y0 + _scaled_dot_product(dt, DOPRI5_C_SOL, k)
        y1_error = _scaled_dot_product(dt, DOPRI5_C_ERROR, k)
        return y1, k[-1], y1_error, k

    def _adaptive_step(self, rk_state):
        y0, f0, _, t0, dt, interp_coeff = rk_state
        assert t0 + dt > t0, f'underflow in dt {dt}'
        y1, f1, y1_error, k = self._runge_kutta_step(y0, f0, t0, dt)
        error_tol = self.atol + self.rtol * mint.maximum(y0.abs(), y1.abs())
        error_ratio = _rms_norm(y1_error / error_tol).item()
        accept_step = error_ratio <= 1
        if accept_step:
            y_mid = y0 + _scaled_dot_product(dt, DPS_C_MID, k)
            t_next = t0 + dt
            interp_coeff = _interp_fit(y0, y1, y_mid, f0, f1, dt)
            y_next, f_next = y1, f1
        else:
            t_next, y_next, f_next = t0, y0, f0
            self.n_rejected += 1
        dt_next = _optimal_step_size(dt, error_ratio, safety=self.safety, order=self.order)
        return _RungeKuttaState(y_next, f_next, t0, t_next, dt_next, interp_coeff)

    def integrate(self, t):
        assert t.dim() == 1, 't must be a 1-D grid'
        t0 = t[0].item()
        f0 = self.func(t[0], self.y0)
        if self.first_step is None:
            first_step = self._select_initial_step(t0, self.y0, f0)
        else:
            first_step = self.first_step
        self.rk_state = _RungeKuttaState(self.y0, f0, t0, t0, first_step, [self.y0] * 5)
        solution = [self.y0]
        for i in range(1, len(t)):
            next_t = t[i]
            while next_t > self.rk_state.t1:
                assert self.n_steps < self.max_num_steps, f'max_num_steps exceeded ({self.n_steps})'
                self.rk_state = self._adaptive_step(self.rk_state)
                self.n_steps += 1
            solution.append(_interp_evaluate(self.rk_state.interp_coeff, self.rk_state.t0,
                                             self.rk_state.t1, next_t))
        return ops.stack(solution, axis=0)


class RK4Solver:
    """Fixed-grid solver (torchdiffeq FixedGridODESolver + rk4 alt step)."""

    def __init__(self, func, y0, rtol=None, atol=None, step_size=0.25):
        self.func = func
        self.y0 = y0
        self.step_size = step_size

    def _grid_constructor(self, t):
        start, end = t[0], t[-1]
        niters = int(ops.ceil((end - start) / self.step_size + 1).item())
        t_infer = ops.arange(0, niters).astype(t.dtype) * self.step_size + start
        t_infer[-1] = t[-1]
        return t_infer

    def _step(self, t0, dt, y0):
        k1 = self.func(t0, y0)
        k2 = self.func(t0 + dt / 3, y0 + dt * k1 / 3)
        k3 = self.func(t0 + dt * 2 / 3, y0 + dt * (k2 - k1 / 3))
        k4 = self.func(t0 + dt, y0 + dt * (k1 - k2 + k3))
        return (k1 + 3 * (k2 + k3) + k4) * dt * 0.125

    def integrate(self, t):
        time_grid = self._grid_constructor(t)
        solution = ops.zeros((len(t), *self.y0.shape), self.y0.dtype)
        solution[0] = self.y0
        j = 1
        y0 = self.y0
        for t0, t1 in zip(time_grid[:-1], time_grid[1:]):
            dy = self._step(t0, t1 - t0, y0)
            y1 = y0 + dy
            while j < len(t) and t1 >= t[j]:
                solution[j] = y0 + (t[j] - t0) / (t1 - t0) * (y1 - y0)
                j += 1
            y0 = y1
        return solution


SOLVERS = {'dopri5': Dopri5Solver, 'rk4': RK4Solver}


def odeint(func, y0, t, rtol=1e-7, atol=1e-9, method='dopri5', options=None):
    if options is None:
        options = {}
    if method not in SOLVERS:
        raise ValueError(f'Invalid method "{method}". Must be one of {list(SOLVERS)}')
    solver = SOLVERS[method](func=func, y0=y0, rtol=rtol, atol=atol, **options)
    return solver.integrate(t)


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
        self.nfe = 0

    def construct(self, t, x):
        self.nfe += 1
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
        self.integration_time = self.integration_time.type_as(x)
        out = odeint(self.odefunc, x, self.integration_time, rtol=self.tol, atol=self.tol, method=self.method)
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
        self.odefunc.nfe = 0
        h = self.encoder(x)
        traj = odeint(self.odefunc, h, t_grid, method='rk4', options=dict(step_size=0.25))
        logits = self.head(traj[-1])
        return ODEOutput(logits=logits, trajectory=traj, nfe=self.odefunc.nfe)


class ODEClassifierInference(nn.Cell):
    """Inference path: integrate from t0 to t1 with dopri5, return predictions and NFE."""

    def __init__(self, net):
        super().__init__()
        self.net = net

    def construct(self, x):
        self.net.odefunc.nfe = 0
        h = self.net.encoder(x)
        h1 = self.net.block(h)
        logits = self.net.head(h1)
        probs = mint.softmax(logits, dim=-1)
        return {'pred': logits.argmax(dim=-1), 'probs': probs, 'nfe': self.net.odefunc.nfe}


def main():
    ms.set_seed(0)
    np.random.seed(0)
    net = ODENet()
    net.set_train(False)
    x = Tensor(np.random.randn(2, 4).astype(np.float32))
    t_grid = Tensor(np.linspace(0, 1, 3).astype(np.float32))
    out = net(x, t_grid)
    print('rk4 logits', out.logits.asnumpy().round(5), 'nfe', out.nfe, 'traj', out.trajectory.shape)
    infer = ODEClassifierInference(net)
    res = infer(x)
    print('dopri5 pred', res['pred'].asnumpy(), 'probs', res['probs'].asnumpy().round(5), 'nfe', res['nfe'])


if __name__ == '__main__':
    main()
