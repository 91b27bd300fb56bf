"""timm-style image classification training step, ported to MindSpore 2.10.

Port of (public) pytorch-image-models pieces: timm/data/mixup.py (Mixup / cutmix, elem and batch
modes), timm/loss/cross_entropy.py, timm/utils/model_ema.py (ModelEmaV2 + warm-up),
timm/scheduler/cosine_lr.py, train.py:train_one_epoch (grad clipping, grad accumulation), and a
tiny ResNet-ish model with BatchNorm and DropPath.  `python timm_train.py` runs it in PYNATIVE.
"""
import copy
import math

import numpy as np
import mindspore as ms
from mindspore import nn, ops, Tensor

# ----------------------------------------------------------------------------- mixup (timm/data/mixup.py)
def one_hot(x, num_classes, on_value=1., off_value=0.):
    x = x.long().view(-1)
    return ops.one_hot(x, num_classes, Tensor(on_value, ms.float32), Tensor(off_value, ms.float32))

def mixup_target(target, num_classes, lam=1., smoothing=0.0):
    off_value = smoothing / num_classes
    on_value = 1. - smoothing + off_value
    y1 = one_hot(target, num_classes, on_value=on_value, off_value=off_value)
    y2 = one_hot(target.flip((0,)), num_classes, on_value=on_value, off_value=off_value)
    return y1 * lam + y2 * (1. - lam)

def rand_bbox(img_shape, lam, margin=0., count=None):
    ratio = np.sqrt(1 - lam)
    img_h, img_w = img_shape[-2:]
    cut_h, cut_w = int(img_h * ratio), int(img_w * ratio)
    margin_y, margin_x = int(margin * cut_h), int(margin * cut_w)
    cy = np.random.randint(0 + margin_y, img_h - margin_y, size=count)
    cx = np.random.randint(0 + margin_x, img_w - margin_x, size=count)
    yl = int(np.clip(cy - cut_h // 2, 0, img_h))
    yh = int(np.clip(cy + cut_h // 2, 0, img_h))
    xl = int(np.clip(cx - cut_w // 2, 0, img_w))
    xh = int(np.clip(cx + cut_w // 2, 0, img_w))
    return yl, yh, xl, xh

def cutmix_bbox_and_lam(img_shape, lam, correct_lam=True):
    yl, yu, xl, xu = rand_bbox(img_shape, lam)
    if correct_lam:
        bbox_area = (yu - yl) * (xu - xl)
        lam = 1. - bbox_area / float(img_shape[-2] * img_shape[-1])
    return (yl, yu, xl, xu), lam

class Mixup:
    def __init__(self, mixup_alpha=1., cutmix_alpha=1., prob=1.0, switch_prob=0.5, mode='batch',
                 correct_lam=True, label_smoothing=0.1, num_classes=4):
        self.mixup_alpha = mixup_alpha
        self.cutmix_alpha = cutmix_alpha
        self.mix_prob = prob
        self.switch_prob = switch_prob
        self.label_smoothing = label_smoothing
        self.num_classes = num_classes
        self.mode = mode
        self.correct_lam = correct_lam
        self.mixup_enabled = True

    def _params_per_elem(self, batch_size):
        lam = np.ones(batch_size, dtype=np.float32)
        use_cutmix = np.zeros(batch_size, dtype=bool)
        if self.mixup_enabled:
            use_cutmix = np.random.rand(batch_size) < self.switch_prob
            lam_mix = np.where(use_cutmix,
                               np.random.beta(self.cutmix_alpha, self.cutmix_alpha, size=batch_size),
                               np.random.beta(self.mixup_alpha, self.mixup_alpha, size=batch_size))
            lam = np.where(np.random.rand(batch_size) < self.mix_prob, lam_mix.astype(np.float32), lam)
        return lam, use_cutmix

    def _params_per_batch(self):
        lam = 1.
        use_cutmix = False
        if self.mixup_enabled and np.random.rand() < self.mix_prob:
            use_cutmix = np.random.rand() < self.switch_prob
            lam_mix = np.random.beta(self.cutmix_alpha, self.cutmix_alpha) if use_cutmix else \
                np.random.beta(self.mixup_alpha, self.mixup_alpha)
            lam = float(lam_mix)
        return lam, use_cutmix

    def _mix_elem(self, x):
        batch_size = len(x)
        lam_batch, use_cutmix = self._params_per_elem(batch_size)
        x_orig = x.copy()  # keep an unmodified original as mixing source
        for i in range(batch_size):
            j = batch_size - i - 1
            lam = lam_batch[i]
            if lam != 1.:
                if use_cutmix[i]:
                    (yl, yh, xl, xh), lam = cutmix_bbox_and_lam(x[i].shape, lam, correct_lam=self.correct_lam)
                    x[i][:, yl:yh, xl:xh] = x_orig[j][:, yl:yh, xl:xh]
                    lam_batch[i] = lam
                else:
                    x[i] = x[i] * lam + x_orig[j] * (1 - lam)
        return Tensor(lam_batch, dtype=x.dtype).unsqueeze(1)

    def _mix_batch(self, x):
        lam, use_cutmix = self._params_per_batch()
        if lam == 1.:
            return 1.
        if use_cutmix:
            (yl, yh, xl, xh), lam = cutmix_bbox_and_lam(x.shape, lam, correct_lam=self.correct_lam)
            x[:, :, yl:yh, xl:xh] = x.flip((0,))[:, :, yl:yh, xl:xh]
        else:
            x.copy_(x * lam + x.flip((0,)) * (1. - lam))  # was x.mul_(lam).add_(x_flipped)
        return lam

    def __call__(self, x, target):
        assert len(x) % 2 == 0, 'Batch size should be even when using this'
        if self.mode == 'elem':
            lam = self._mix_elem(x)
        else:
            lam = self._mix_batch(x)
        target = mixup_target(target, self.num_classes, lam, self.label_smoothing)
        return x, target

# ----------------------------------------------------------------------------- losses (timm/loss/cross_entropy.py)
class LabelSmoothingCrossEntropy(nn.Cell):
    def __init__(self, smoothing=0.1):
        super().__init__()
        assert smoothing < 1.0
        self.smoothing = smoothing
        self.confidence = 1. - smoothing

    def construct(self, x, target):
        logprobs = ops.log_softmax(x, axis=-1)
        nll_loss = -logprobs.gather(dim=-1, index=target.unsqueeze(1))
        nll_loss = nll_loss.squeeze(1)
        smooth_loss = -logprobs.mean(dim=-1)
        loss = self.confidence * nll_loss + self.smoothing * smooth_loss
        return loss.mean()

class SoftTargetCrossEntropy(nn.Cell):
    def construct(self, x, target):
        loss = ops.sum(-target * ops.log_softmax(x, axis=-1), dim=-1)
        return loss.mean()

# ----------------------------------------------------------------------------- model
class DropPath(nn.Cell):
    def __init__(self, drop_prob=0., scale_by_keep=True):
        super().__init__()
        self.drop_prob = drop_prob
        self.scale_by_keep = scale_by_keep

    def construct(self, x):
        if self.drop_prob == 0. or not self.training:
            return x
        keep_prob = 1 - self.drop_prob
        shape = (x.shape[0],) + (1,) * (x.ndim - 1)
        random_tensor = (ops.rand(shape, dtype=x.dtype) < keep_prob).float()
        if keep_prob > 0.0 and self.scale_by_keep:
            random_tensor = random_tensor / keep_prob
        return x * random_tensor

class BasicBlock(nn.Cell):
    def __init__(self, dim, drop_path=0.):
        super().__init__()
        self.conv1 = nn.Conv2d(dim, dim, 3, pad_mode='pad', padding=1, has_bias=False)
        self.bn1 = nn.BatchNorm2d(dim)
        self.conv2 = nn.Conv2d(dim, dim, 3, pad_mode='pad', padding=1, has_bias=False)
        self.bn2 = nn.BatchNorm2d(dim)
        self.act = nn.ReLU()
        self.drop_path = DropPath(drop_path) if drop_path > 0. else nn.Identity()

    def construct(self, x):
        shortcut = x
        x = self.act(self.bn1(self.conv1(x)))
        x = self.bn2(self.conv2(x))
        x = self.drop_path(x) + shortcut
        return self.act(x)

class TinyResNet(nn.Cell):
    def __init__(self, in_chans=3, dim=8, depth=2, num_classes=4, drop_path_rate=0.1):
        super().__init__()
        self.stem = nn.SequentialCell(nn.Conv2d(in_chans, dim, 3, pad_mode='pad', padding=1, has_bias=False),
                                      nn.BatchNorm2d(dim), nn.ReLU())
        dpr = [x.item() for x in ops.linspace(0, drop_path_rate, depth)]
        self.blocks = nn.SequentialCell([BasicBlock(dim, dpr[i]) for i in range(depth)])
        self.fc = nn.Dense(dim, num_classes)

    def construct(self, x):
        x = self.blocks(self.stem(x))
        x = x.mean((2, 3))  # global average pool
        return self.fc(x)

# ----------------------------------------------------------------------------- EMA (timm/utils/model_ema.py)
class ModelEmaV2:
    def __init__(self, model, decay=0.9, warmup=True):
        self.module = copy.deepcopy(model)
        self.module.set_train(False)
        self.decay = decay
        self.warmup = warmup
        self.updates = 0

    def get_decay(self):
        if self.warmup:
            return min(self.decay, (1 + self.updates) / (10 + self.updates))
        return self.decay

    def update(self, model):
        decay = self.get_decay()
        self.updates += 1
        for ema_v, model_v in zip(self.module.get_parameters(), model.get_parameters()):
            ema_v.copy_(ema_v * decay + (1. - decay) * model_v)

# ----------------------------------------------------------------------------- scheduler (timm/scheduler/cosine_lr.py)
class CosineLRScheduler:
    def __init__(self, optimizer, t_initial, lr_min=0., warmup_t=0, warmup_lr_init=0.):
        self.optimizer = optimizer
        self.base_lr = float(optimizer.learning_rate.asnumpy())
        self.t_initial = t_initial
        self.lr_min = lr_min
        self.warmup_t = warmup_t
        self.warmup_lr_init = warmup_lr_init
        self.warmup_step = (self.base_lr - warmup_lr_init) / warmup_t if warmup_t else 1.

    def _get_lr(self, t):
        if t < self.warmup_t:
            return self.warmup_lr_init + t * self.warmup_step
        t = t - self.warmup_t
        return self.lr_min + 0.5 * (self.base_lr - self.lr_min) * (1 + math.cos(math.pi * t / self.t_initial))

    def step_update(self, num_updates):
        lr = self._get_lr(num_updates)
        ops.assign(self.optimizer.learning_rate, Tensor(lr, ms.float32))
        return lr

class AverageMeter:
    def __init__(self):
        self.val, self.sum, self.count, self.avg = 0., 0., 0, 0.

    def update(self, val, n=1):
        self.val = val
        self.sum += val * n
        self.count += n
        self.avg = self.sum / self.count

def clip_grad_norm_(grads, max_norm):
    norms = [g.norm() for g in grads]
    total_norm = ops.stack(norms).norm()
    clip_coef = max_norm / (total_norm + 1e-6)
    clip_coef_clamped = clip_coef.clamp(max=1.0)
    for g in grads:
        g.copy_(g * clip_coef_clamped)
    return total_norm

# ----------------------------------------------------------------------------- train / eval steps (train.py)
class TrainStep(nn.Cell):
    """train_one_epoch's body: mixup -> loss -> grads (accumulated) -> clip -> lr -> optimizer -> EMA."""
    def __init__(self, model, loss_fn, optimizer, mixup_fn, ema, scheduler, accum_steps=2, clip_grad=1.0):
        super().__init__()
        self.model = model
        self.loss_fn = loss_fn
        self.optimizer = optimizer
        self.mixup_fn = mixup_fn
        self.ema = ema
        self.scheduler = scheduler
        self.accum_steps = accum_steps
        self.clip_grad = clip_grad
        self.state = {'step': 0, 'num_updates': 0, 'grads': None}
        self.losses_m = AverageMeter()
        self.grad_fn = ms.value_and_grad(self.forward_fn, None, optimizer.parameters, has_aux=True)

    def forward_fn(self, x, target):
        output = self.model(x)
        loss = self.loss_fn(output, target)
        if isinstance(self.loss_fn, LabelSmoothingCrossEntropy):
            loss = loss * 1.0
        return loss / self.accum_steps, output

    def construct(self, x, y):
        if self.mixup_fn is not None:
            x, y = self.mixup_fn(x, y)
        (loss, output), grads = self.grad_fn(x, y)
        acc = self.state['grads']
        self.state['grads'] = grads if acc is None else tuple(a + g for a, g in zip(acc, grads))
        self.state['step'] += 1
        metrics = {'loss': loss * self.accum_steps, 'lr': 0., 'grad_norm': 0.}
        if self.state['step'] % self.accum_steps == 0:
            grads = self.state['grads']
            norm = clip_grad_norm_(grads, self.clip_grad)
            metrics['lr'] = self.scheduler.step_update(self.state['num_updates'])
            self.optimizer(grads)
            self.ema.update(self.model)
            self.state['grads'] = None
            self.state['num_updates'] += 1
            metrics['grad_norm'] = norm
        self.losses_m.update(metrics['loss'].item(), x.shape[0])
        return metrics

def accuracy(output, target, topk=(1,)):
    maxk = min(max(topk), output.shape[1])
    batch_size = target.shape[0]
    _, pred = output.topk(maxk, 1, True, True)
    pred = pred.t()
    correct = pred == target.reshape(1, -1).expand_as(pred)
    return [correct[:min(k, maxk)].reshape(-1).float().sum(0) * 100. / batch_size for k in topk]

class EvalStep(nn.Cell):
    def __init__(self, ema, loss_fn):
        super().__init__()
        self.ema = ema
        self.loss_fn = loss_fn

    def construct(self, x, y):
        output = self.ema.module(x)
        loss = self.loss_fn(output, y)
        acc1, acc2 = accuracy(output, y, topk=(1, 2))
        return {'loss': loss, 'top1': acc1, 'top2': acc2}

def build(mode='batch', drop_path_rate=0.1, seed=0, accum_steps=2):
    ms.set_seed(seed)
    np.random.seed(seed)
    model = TinyResNet(in_chans=3, dim=8, depth=2, num_classes=4, drop_path_rate=drop_path_rate)
    ema = ModelEmaV2(model, decay=0.9)
    optimizer = nn.Momentum(model.trainable_params(), learning_rate=0.1, momentum=0.9)
    scheduler = CosineLRScheduler(optimizer, t_initial=10, warmup_t=1, warmup_lr_init=0.01)
    mixup_fn = Mixup(mode=mode, num_classes=4)
    step = TrainStep(model, SoftTargetCrossEntropy(), optimizer, mixup_fn, ema, scheduler, accum_steps=accum_steps)
    step.set_train()
    evaluator = EvalStep(ema, LabelSmoothingCrossEntropy(0.1))
    return model, ema, step, evaluator

def make_batch(i):
    rs = np.random.RandomState(100 + i)
    x = Tensor(rs.randn(4, 3, 8, 8).astype(np.float32))
    y = Tensor(rs.randint(0, 4, size=(4,)).astype(np.int32))
    return x, y

if __name__ == '__main__':
    ms.set_context(mode=ms.PYNATIVE_MODE)
    model, ema, step, evaluator = build()
    for i in range(4):
        x, y = make_batch(i)
        m = step(x, y)
        print(f"step {i}: loss {m['loss'].item():.6f} lr {float(m['lr']):.5f} grad_norm {float(m['grad_norm']):.6f} "
              f"avg {step.losses_m.avg:.6f}")
    x, y = make_batch(9)
    out = evaluator(x, y)
    print('eval', {k: round(v.item(), 6) for k, v in out.items()})
    print('fc.weight', model.fc.weight.asnumpy().ravel()[:4], 'ema fc.weight', ema.module.fc.weight.asnumpy().ravel()[:4])
