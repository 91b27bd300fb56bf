"""Reference fix (compiles at LAX and STRICT). MoCo v2 (facebookresearch/moco, moco/builder.py + main_moco.py accuracy + kNN monitor), MindSpore 2.10 port.

Tiny sizes: images 4x3x8x8, feature dim 8, queue K=16, batch 4.
`python moco.py` runs the training forward (query/key encoders, momentum update, shuffle, InfoNCE logits,
queue update) for three steps and the kNN-monitor / linear-eval inference helper, in PYNATIVE_MODE.
"""
import sys
import numpy as np
import mindspore as ms
from mindspore import nn, ops, mint, Tensor, Parameter


def normalize(x, dim=1, eps=1e-12):
    # torch.nn.functional.normalize(x, dim=dim)
    return x / x.norm(dim=dim, keepdim=True).clamp(min=eps)


class TinyConvNet(nn.Cell):
    """Stand-in for torchvision resnet50(num_classes=dim): conv-bn-relu, conv-relu, avgpool, fc."""

    def __init__(self, num_classes=8, width=8):
        super().__init__()
        self.conv1 = nn.Conv2d(3, width, 3, pad_mode="pad", padding=1, has_bias=False)
        self.bn1 = nn.BatchNorm2d(width)
        self.relu = nn.ReLU()
        self.conv2 = nn.Conv2d(width, width * 2, 3, stride=2, pad_mode="pad", padding=1, has_bias=True)
        self.fc = nn.Dense(width * 2, num_classes)

    def construct(self, x):
        x = self.relu(self.bn1(self.conv1(x)))
        x = self.relu(self.conv2(x))
        x = x.mean(dim=(2, 3))  # avgpool + flatten
        return self.fc(x)


class MoCo(nn.Cell):
    """Build a MoCo model with: a query encoder, a key encoder, and a queue."""

    def __init__(self, base_encoder, dim=8, K=16, m=0.999, T=0.07, mlp=False):
        super().__init__()
        self.K = K
        self.m = m
        self.T = T

        # create the encoders; num_classes is the output fc dimension
        self.encoder_q = base_encoder(num_classes=dim)
        self.encoder_k = base_encoder(num_classes=dim)

        if mlp:  # hack: brute-force replacement
            dim_mlp = self.encoder_q.fc.weight.shape[1]
            self.encoder_q.fc = nn.SequentialCell(nn.Dense(dim_mlp, dim_mlp), nn.ReLU(), self.encoder_q.fc)
            self.encoder_k.fc = nn.SequentialCell(nn.Dense(dim_mlp, dim_mlp), nn.ReLU(), self.encoder_k.fc)

        for param_q, param_k in zip(self.encoder_q.get_parameters(), self.encoder_k.get_parameters()):
            param_k.set_data(param_q.data.copy())  # initialize
            param_k.requires_grad = False  # not update by gradient

        # create the queue
        queue = Tensor(np.random.randn(dim, K).astype(np.float32))
        self.queue = Parameter(normalize(queue, dim=0), name="queue", requires_grad=False)
        self.queue_ptr = Parameter(Tensor(np.zeros(1), ms.int64), name="queue_ptr", requires_grad=False)
        self.params_q = ms.ParameterTuple(self.encoder_q.get_parameters())
        self.params_k = ms.ParameterTuple(self.encoder_k.get_parameters())

    def _momentum_update_key_encoder(self):
        """Momentum update of the key encoder"""
        for param_q, param_k in zip(self.params_q, self.params_k):
            ops.assign(param_k, param_k * self.m + param_q * (1.0 - self.m))

    def _dequeue_and_enqueue(self, keys):
        # gather keys before updating queue (single device: concat_all_gather is the identity)
        batch_size = keys.shape[0]

        ptr = int(self.queue_ptr)
        pass

        # replace the keys at ptr (dequeue and enqueue)
        self.queue[:, ptr:ptr + batch_size] = keys.T
        ptr = (ptr + batch_size) % self.K  # move pointer

        self.queue_ptr[0] = ptr

    def _batch_shuffle_single(self, x):
        """Batch shuffle, for making use of BatchNorm (one device: a random permutation of the batch)."""
        batch_size = x.shape[0]
        # random shuffle index
        idx_shuffle = ops.randperm(batch_size)
        # index for restoring
        idx_unshuffle = ops.argsort(idx_shuffle)
        return x[idx_shuffle], idx_unshuffle

    def _batch_unshuffle_single(self, x, idx_unshuffle):
        """Undo batch shuffle."""
        return x[idx_unshuffle]

    def construct(self, im_q, im_k):
        """
        Input:
            im_q: a batch of query images
            im_k: a batch of key images
        Output:
            logits, targets
        """
        # compute query features
        q = self.encoder_q(im_q)  # queries: NxC
        q = normalize(q, dim=1)

        # compute key features (torch: with torch.no_grad())
        self._momentum_update_key_encoder()  # update the key encoder

        # shuffle for making use of BN
        im_k, idx_unshuffle = self._batch_shuffle_single(im_k)

        k = self.encoder_k(im_k)  # keys: NxC
        k = normalize(k, dim=1)

        # undo shuffle
        k = self._batch_unshuffle_single(k, idx_unshuffle)
        k = ops.stop_gradient(k)

        # compute logits
        # positive logits: Nx1   (torch.einsum('nc,nc->n', [q, k]); Einsum has no CPU kernel)
        l_pos = (q * k).sum(dim=1).unsqueeze(-1)
        # negative logits: NxK   (torch.einsum('nc,ck->nk', [q, self.queue.clone().detach()]))
        l_neg = ops.matmul(q, ops.stop_gradient(self.queue))

        # logits: Nx(1+K)
        logits = mint.cat([l_pos, l_neg], dim=1)

        # apply temperature
        logits /= self.T

        # labels: positive key indicators
        labels = ops.zeros(logits.shape[0], dtype=ms.int32)

        # dequeue and enqueue
        self._dequeue_and_enqueue(k)

        return logits, labels


def accuracy(output, target, topk=(1,)):
    """Computes the accuracy over the k top predictions for the specified values of k (main_moco.py)"""
    maxk = max(topk)
    batch_size = target.shape[0]

    _, pred = output.topk(maxk, 1, True, True)
    pred = pred.t()
    correct = pred.eq(target.view(1, -1).expand_as(pred))

    res = []
    for k in topk:
        correct_k = correct[:k].reshape(-1).float().sum(0, keepdims=True)
        res.append(correct_k.mul_(100.0 / batch_size))
    return res


class MoCoTrainStep(nn.Cell):
    """The training-step forward people put under jit: model, InfoNCE loss (cross entropy), acc@1/acc@5."""

    def __init__(self, model):
        super().__init__()
        self.model = model
        self.criterion = nn.CrossEntropyLoss()

    def construct(self, im_q, im_k):
        output, target = self.model(im_q, im_k)
        loss = self.criterion(output, target)
        acc1, acc5 = accuracy(output, target, topk=(1, 5))
        return loss, output, acc1, acc5


def knn_predict(feature, feature_bank, feature_labels, classes, knn_k, knn_t):
    # compute cos similarity between each feature vector and feature bank ---> [B, N]
    sim_matrix = ops.matmul(feature, feature_bank)
    # [B, K]
    sim_weight, sim_indices = sim_matrix.topk(k=knn_k, dim=-1)
    # [B, K]
    sim_labels = ops.broadcast_to(feature_labels, (feature.shape[0], -1)).gather(dim=-1, index=sim_indices)
    sim_weight = (sim_weight / knn_t).exp()

    # counts for each class
    one_hot_label = ops.zeros((feature.shape[0] * knn_k, classes))
    # [B*K, C]
    one_hot_label = one_hot_label.scatter(-1, sim_labels.view(-1, 1), 1.0)
    # weighted score ---> [B, C]
    pred_scores = (one_hot_label.view(feature.shape[0], -1, classes) * sim_weight.unsqueeze(dim=-1)).sum(dim=1)

    pred_labels = ops.argsort(pred_scores, axis=-1, descending=True)
    return pred_labels


class KNNMonitor(nn.Cell):
    """kNN monitor + linear-eval head on the frozen query encoder (the inference helper)."""

    def __init__(self, net, classes=4, knn_k=3, knn_t=0.1, feat_dim=8):
        super().__init__()
        self.net = net
        self.classes = classes
        self.knn_k = knn_k
        self.knn_t = knn_t
        self.linear = nn.Dense(feat_dim, classes)

    def construct(self, memory_images, memory_labels, test_images, test_targets):
        # generate feature bank
        feature_bank = []
        for i in range(0, memory_images.shape[0], 4):
            feature = self.net(memory_images[i:i + 4])
            feature = normalize(feature, dim=1)
            feature_bank.append(feature)
        # [D, N]
        feature_bank = mint.cat(feature_bank, dim=0).T
        # loop test data to predict the label by weighted knn search
        feature = normalize(self.net(test_images), dim=1)
        pred_labels = knn_predict(feature, feature_bank, memory_labels, self.classes, self.knn_k, self.knn_t)
        total_top1 = (pred_labels[:, 0] == test_targets).float().sum().item()
        # linear-eval head on frozen features
        logits = self.linear(ops.stop_gradient(self.net(test_images)))
        lin_pred = logits.argmax(dim=1)
        # a tuple, not a dict: STRICT hands a dict back as a tuple
        return pred_labels[:, 0], total_top1 / test_images.shape[0] * 100, lin_pred, logits


def make_inputs(step, batch=4):
    rng = np.random.RandomState(100 + step)
    img = rng.rand(batch, 3, 8, 8).astype(np.float32)
    im_q = Tensor(img + 0.1 * rng.randn(*img.shape).astype(np.float32))
    im_k = Tensor(img + 0.1 * rng.randn(*img.shape).astype(np.float32))
    return im_q, im_k


def build(seed=0):
    ms.set_seed(seed)
    np.random.seed(seed)
    model = MoCo(TinyConvNet, dim=8, K=16, m=0.99, T=0.2, mlp=True)
    return model


def main():
    mode = sys.argv[1] if len(sys.argv) > 1 else "pynative"
    if mode == "pynative":
        ms.set_context(mode=ms.PYNATIVE_MODE)
    else:
        ms.set_context(mode=ms.GRAPH_MODE)
        if mode == "strict":
            ms.set_context(jit_syntax_level=ms.STRICT)
    model = build()
    step = MoCoTrainStep(model)
    for i in range(3):
        im_q, im_k = make_inputs(i)
        if i > 0:  # stand-in for the optimizer step on the query encoder (outside the jitted forward)
            prng = np.random.RandomState(50 + i)
            for p in model.encoder_q.trainable_params():
                p.set_data(p.data + Tensor(0.05 * prng.randn(*p.shape).astype(np.float32)))
        loss, output, acc1, acc5 = step(im_q, im_k)
        print(f"step {i}: loss {float(loss):.6f} logits_sum {float(output.sum()):.6f} "
              f"acc1 {acc1.asnumpy()} acc5 {acc5.asnumpy()} ptr {model.queue_ptr.asnumpy()} "
              f"queue_sum {float(model.queue.sum()):.6f} k_fc_w {float(model.encoder_k.fc[2].weight.sum()):.6f}")
    rng = np.random.RandomState(7)
    monitor = KNNMonitor(model.encoder_q, classes=4, feat_dim=8)
    mem = Tensor(rng.rand(8, 3, 8, 8).astype(np.float32))
    mem_labels = Tensor(np.array([0, 1, 2, 3, 0, 1, 2, 3]), ms.int64)
    test = Tensor(rng.rand(4, 3, 8, 8).astype(np.float32))
    targets = Tensor(np.array([0, 1, 2, 3]), ms.int64)
    out = monitor(mem, mem_labels, test, targets)
    print("monitor:", dict(zip(["knn_pred", "knn_acc", "lin_pred", "lin_logits"], out)))


if __name__ == "__main__":
    main()
