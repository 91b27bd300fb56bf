"""Capsule Network with dynamic routing (Sabour et al. 2017), ported from PyTorch
(gram-ai/capsule-networks + higgsfield's CapsNet notebook) to MindSpore 2.10.

Tiny sizes: 12x12 single-channel images (28x28 MNIST downsampled), batch 2,
8 primary capsule maps, 4 classes, 3 routing iterations.
"""
import sys
import numpy as np
import mindspore as ms
from mindspore import nn, ops, mint, Tensor, Parameter
import mindspore.mint.nn.functional as F

NUM_CLASSES = 4
NUM_ROUTING_ITERATIONS = 3
IMG_SIZE = 12
USE_CUDA = False


def squash(x, dim=-1):
    # v = ||s||^2 / (1 + ||s||^2) * s / ||s||
    squared_norm = (x ** 2).sum(dim=dim, keepdim=True)
    scale = squared_norm / (1 + squared_norm)
    return scale * x / mint.sqrt(squared_norm + 1e-8)


class ConvLayer(nn.Cell):
    def __init__(self, in_channels=1, out_channels=16, kernel_size=5):
        super(ConvLayer, self).__init__()
        self.conv = nn.Conv2d(in_channels, out_channels, kernel_size, stride=1,
                              pad_mode='valid', has_bias=True)

    def construct(self, x):
        return F.relu(self.conv(x))


class PrimaryCaps(nn.Cell):
    def __init__(self, num_capsules=8, in_channels=16, out_channels=4, kernel_size=3):
        super(PrimaryCaps, self).__init__()
        self.num_capsules = num_capsules
        self.capsules = nn.CellList([
            nn.Conv2d(in_channels, out_channels, kernel_size, stride=2,
                      pad_mode='valid', has_bias=True)
            for _ in range(num_capsules)])

    def construct(self, x):
        u = [capsule(x) for capsule in self.capsules]
        u = ops.stack(u, axis=1)                       # [B, 8, C, H, W]
        u = u.view(x.shape[0], -1, self.num_capsules)   # [B, C*H*W, 8]
        return squash(u)


class DigitCaps(nn.Cell):
    def __init__(self, num_capsules=NUM_CLASSES, num_routes=4 * 3 * 3, in_channels=8,
                 out_channels=16, num_iterations=NUM_ROUTING_ITERATIONS):
        super(DigitCaps, self).__init__()
        self.in_channels = in_channels
        self.num_routes = num_routes
        self.num_capsules = num_capsules
        self.num_iterations = num_iterations
        w = np.random.randn(1, num_routes, num_capsules, out_channels, in_channels)
        self.W = Parameter(Tensor(w.astype(np.float32)), name='W')
        self.routing_history = []

    def construct(self, x):
        batch_size = x.shape[0]
        # [B, routes, in] -> [B, routes, 1, in, 1]
        x = x.unsqueeze(2).unsqueeze(-1)
        x = x.expand(batch_size, self.num_routes, self.num_capsules, self.in_channels, 1)
        W = self.W.expand(batch_size, -1, -1, -1, -1)
        u_hat = mint.matmul(W, x)                       # [B, routes, caps, out, 1]

        b_ij = ops.zeros((batch_size, self.num_routes, self.num_capsules, 1), ms.float32)
        self.routing_history = []
        for iteration in range(self.num_iterations):
            c_ij = F.softmax(b_ij, dim=2)               # coupling coefficients
            c_ij = c_ij.unsqueeze(4)                    # [B, routes, caps, 1, 1]
            s_j = (c_ij * u_hat).sum(dim=1, keepdim=True)   # [B, 1, caps, out, 1]
            v_j = squash(s_j, dim=-2)
            self.routing_history.append(c_ij)
            if iteration < self.num_iterations - 1:
                v_j1 = mint.cat([v_j] * self.num_routes, dim=1)
                a_ij = mint.matmul(u_hat.transpose(3, 4), v_j1)   # [B, routes, caps, 1, 1]
                b_ij = b_ij + a_ij.squeeze(4)
        return v_j.squeeze(1).squeeze(-1)               # [B, caps, out]


class Decoder(nn.Cell):
    def __init__(self, in_dim=16, hidden=32):
        super(Decoder, self).__init__()
        self.reconstruction_layers = nn.SequentialCell(
            mint.nn.Linear(in_dim * NUM_CLASSES, hidden),
            mint.nn.ReLU(),
            mint.nn.Linear(hidden, 64),
            mint.nn.ReLU(),
            mint.nn.Linear(64, IMG_SIZE * IMG_SIZE),
            mint.nn.Sigmoid(),
        )

    def construct(self, x, y=None):
        classes = (x ** 2).sum(dim=-1) ** 0.5
        classes = F.softmax(classes, dim=-1)
        if y is None:
            # In all batches, get the most active capsule.
            _, max_length_indices = classes.max(dim=1)
            y = mint.eye(NUM_CLASSES).index_select(dim=0, index=max_length_indices)
        reconstructions = self.reconstruction_layers((x * y[:, :, None]).view(x.shape[0], -1))
        reconstructions = reconstructions.view(-1, 1, IMG_SIZE, IMG_SIZE)
        return reconstructions, y


class CapsuleLoss(nn.Cell):
    def __init__(self, size_average=True):
        super(CapsuleLoss, self).__init__()
        self.reconstruction_loss = nn.MSELoss(reduction='sum')   # size_average=False
        self.size_average = size_average

    def construct(self, images, labels, classes, reconstructions):
        left = F.relu(0.9 - classes) ** 2
        right = F.relu(classes - 0.1) ** 2
        margin_loss = labels * left + 0.5 * (1. - labels) * right
        margin_loss = margin_loss.sum()

        assert images.numel() == reconstructions.numel()
        images = images.view(reconstructions.shape[0], -1)
        reconstruction_loss = self.reconstruction_loss(
            reconstructions.view(reconstructions.shape[0], -1), images)
        loss = margin_loss + 0.0005 * reconstruction_loss
        if self.size_average:
            loss = loss / images.shape[0]
        return loss


class CapsNet(nn.Cell):
    def __init__(self, config=None):
        super(CapsNet, self).__init__()
        config = config or {}
        self.conv_layer = ConvLayer(1, config.get('conv_channels', 16), 5)
        self.primary_capsules = PrimaryCaps(8, config.get('conv_channels', 16), 4, 3)
        self.digit_capsules = DigitCaps(NUM_CLASSES, 4 * 3 * 3, 8, 16)
        self.decoder = Decoder(16, 32)
        self.capsule_loss = CapsuleLoss()
        self.mse_loss = nn.MSELoss()

    def construct(self, data, y=None):
        output = self.digit_capsules(self.primary_capsules(self.conv_layer(data)))
        reconstructions, masked = self.decoder(output, y)
        return output, reconstructions, masked

    def margin_loss(self, x, labels, size_average=True):
        # higgsfield-style margin loss on the DigitCaps output
        batch_size = x.shape[0]
        v_c = mint.sqrt((x ** 2).sum(dim=2, keepdim=True))
        left = F.relu(0.9 - v_c).view(batch_size, -1)
        right = F.relu(v_c - 0.1).view(batch_size, -1)
        loss = labels * left + 0.5 * (1.0 - labels) * right
        loss = loss.sum(dim=1)
        if size_average:
            loss = loss.mean()
        return loss

    def reconstruction_loss(self, data, reconstructions):
        loss = self.mse_loss(reconstructions.view(reconstructions.shape[0], -1),
                             data.view(reconstructions.shape[0], -1))
        return loss * 0.0005

    def loss(self, data, x, target, reconstructions):
        return self.margin_loss(x, target) + self.reconstruction_loss(data, reconstructions)


class CapsNetWithLoss(nn.Cell):
    """forward + gram-ai CapsuleLoss, used for training."""
    def __init__(self, net):
        super(CapsNetWithLoss, self).__init__()
        self.net = net

    def construct(self, images, labels):
        output, reconstructions, _ = self.net(images, labels)
        classes = (output ** 2).sum(dim=-1) ** 0.5
        return self.net.capsule_loss(images, labels, classes, reconstructions)


class CapsNetPredict(nn.Cell):
    """inference path: class predictions + per-class lengths as a dict."""
    def __init__(self, net):
        super(CapsNetPredict, self).__init__()
        self.net = net

    def construct(self, images):
        output, reconstructions, masked = self.net(images)
        lengths = (output ** 2).sum(dim=-1) ** 0.5
        pred = lengths.argmax(dim=1)
        result = {'pred': pred, 'lengths': lengths, 'masked': masked}
        result['reconstructions'] = reconstructions
        return result


class CapsNetHiggsLoss(nn.Cell):
    """higgsfield-style: margin_loss + reconstruction_loss via the model's methods."""
    def __init__(self, net):
        super(CapsNetHiggsLoss, self).__init__()
        self.net = net

    def construct(self, images, target):
        output, reconstructions, masked = self.net(images)
        loss = self.net.loss(images, output, target, reconstructions)
        return loss


def accuracy(predict_net, images, labels):
    result = predict_net(images)
    correct = (result['pred'] == labels.argmax(dim=1)).sum().item()
    return correct / images.shape[0]


def make_batch(seed, batch=2):
    rng = np.random.RandomState(seed)
    imgs28 = rng.rand(batch, 1, 28, 28).astype(np.float32)
    # downsample 28x28 -> 12x12 (MNIST-like, crop 4 px border then 2x2 average pool)
    imgs = imgs28[:, :, 2:26, 2:26].reshape(batch, 1, IMG_SIZE, 2, IMG_SIZE, 2).mean(axis=(3, 5))
    target = rng.randint(0, NUM_CLASSES, size=batch)
    labels = np.eye(NUM_CLASSES, dtype=np.float32)[target]
    return Tensor(imgs), Tensor(labels)


def build(seed=0):
    ms.set_seed(seed)
    np.random.seed(seed)
    net = CapsNet()
    return net


def make_train_step(net, lr=1e-3):
    loss_net = CapsNetWithLoss(net)
    optimizer = nn.Adam(net.trainable_params(), learning_rate=lr)
    grad_fn = ms.value_and_grad(loss_net, None, optimizer.parameters)

    def train_step(images, labels):
        loss, grads = grad_fn(images, labels)
        optimizer(grads)
        return loss
    return train_step


def main():
    ms.set_context(mode=ms.PYNATIVE_MODE)
    net = build(0)
    images, labels = make_batch(1)
    output, reconstructions, masked = net(images)
    print('digit caps', output.shape, float(output.abs().sum()))
    print('reconstructions', reconstructions.shape, float(reconstructions.sum()))
    print('masked', masked.asnumpy())
    print('routing steps cached', len(net.digit_capsules.routing_history))
    loss_net = CapsNetWithLoss(net)
    print('capsule loss', float(loss_net(images, labels)))
    print('higgsfield loss', float(CapsNetHiggsLoss(net)(images, labels)))
    predict = CapsNetPredict(net)
    res = predict(images)
    print('pred', res['pred'].asnumpy(), 'lengths', res['lengths'].asnumpy())
    print('accuracy', accuracy(predict, images, labels))
    train_step = make_train_step(net)
    for step in range(2):
        loss = train_step(images, labels)
        print('train step', step, float(loss))


if __name__ == '__main__':
    main()
