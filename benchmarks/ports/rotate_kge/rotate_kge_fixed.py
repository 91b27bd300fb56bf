"""Reference fix of rotate_kge.py (fixes F1-F4 of LABELS.md); run: python rotate_kge_fixed.py [pynative|lax|strict].
RotatE / TransE / DistMult knowledge-graph embedding (port of
DeepGraphLearning/KnowledgeGraphEmbedding codes/model.py, KGEModel) to MindSpore.
Tiny sizes: 30 entities, 5 relations, hidden dim 8, batch 2, 4 negatives."""
import sys
from dataclasses import dataclass

import numpy as np
import mindspore as ms
from mindspore import nn, ops, mint, Tensor, Parameter
from mindspore.common.initializer import initializer, Uniform

NENTITY, NRELATION, HIDDEN, BATCH, NEG = 30, 5, 8, 2, 4


@dataclass
class Args:
    negative_adversarial_sampling: bool = True
    adversarial_temperature: float = 1.0
    uni_weight: bool = False
    regularization: float = 0.01


class KGEModel(nn.Cell):
    def __init__(self, model_name, nentity, nrelation, hidden_dim, gamma,
                 double_entity_embedding=False, double_relation_embedding=False):
        super(KGEModel, self).__init__()
        self.model_name = model_name
        self.nentity = nentity
        self.nrelation = nrelation
        self.hidden_dim = hidden_dim
        self.epsilon = 2.0

        self.gamma = Parameter(Tensor([gamma], ms.float32), name='gamma', requires_grad=False)
        self.embedding_range = Parameter(
            Tensor([(self.gamma.item() + self.epsilon) / hidden_dim], ms.float32),
            name='embedding_range', requires_grad=False)

        self.entity_dim = hidden_dim * 2 if double_entity_embedding else hidden_dim
        self.relation_dim = hidden_dim * 2 if double_relation_embedding else hidden_dim

        self.entity_embedding = Parameter(
            initializer(Uniform(self.embedding_range.item()), (nentity, self.entity_dim), ms.float32),
            name='entity_embedding')
        self.relation_embedding = Parameter(
            initializer(Uniform(self.embedding_range.item()), (nrelation, self.relation_dim), ms.float32),
            name='relation_embedding')

        if model_name == 'pRotatE':
            self.modulus = Parameter(Tensor([[0.5 * self.embedding_range.item()]], ms.float32), name='modulus')

        if model_name not in ['TransE', 'DistMult', 'ComplEx', 'RotatE', 'pRotatE']:
            raise ValueError('model %s not supported' % model_name)
        if model_name == 'RotatE' and (not double_entity_embedding or double_relation_embedding):
            raise ValueError('RotatE should use --double_entity_embedding')

    def construct(self, sample, mode='single'):
        if mode == 'single':
            batch_size, negative_sample_size = sample.shape[0], 1
            head = ops.index_select(self.entity_embedding, axis=0, index=sample[:, 0]).unsqueeze(1)
            relation = ops.index_select(self.relation_embedding, axis=0, index=sample[:, 1]).unsqueeze(1)
            tail = ops.index_select(self.entity_embedding, axis=0, index=sample[:, 2]).unsqueeze(1)
        elif mode == 'head-batch':
            tail_part, head_part = sample
            batch_size, negative_sample_size = head_part.shape[0], head_part.shape[1]
            head = ops.index_select(self.entity_embedding, axis=0,
                                    index=head_part.view(-1)).view(batch_size, negative_sample_size, -1)
            relation = ops.index_select(self.relation_embedding, axis=0, index=tail_part[:, 1]).unsqueeze(1)
            tail = ops.index_select(self.entity_embedding, axis=0, index=tail_part[:, 2]).unsqueeze(1)
        elif mode == 'tail-batch':
            head_part, tail_part = sample
            batch_size, negative_sample_size = tail_part.shape[0], tail_part.shape[1]
            head = ops.index_select(self.entity_embedding, axis=0, index=head_part[:, 0]).unsqueeze(1)
            relation = ops.index_select(self.relation_embedding, axis=0, index=head_part[:, 1]).unsqueeze(1)
            tail = ops.index_select(self.entity_embedding, axis=0,
                                    index=tail_part.view(-1)).view(batch_size, negative_sample_size, -1)
        else:
            raise ValueError('mode %s not supported' % mode)

        model_func = {
            'TransE': self.TransE,
            'DistMult': self.DistMult,
            'ComplEx': self.ComplEx,
            'RotatE': self.RotatE,
            'pRotatE': self.pRotatE,
        }
        if self.model_name in model_func:
            score = model_func[self.model_name](head, relation, tail, mode)
        else:
            raise ValueError('model %s not supported' % self.model_name)
        return score

    def TransE(self, head, relation, tail, mode):
        if mode == 'head-batch':
            score = head + (relation - tail)
        else:
            score = (head + relation) - tail
        score = self.gamma.item() - ops.norm(score, ord=1, dim=2)
        return score

    def DistMult(self, head, relation, tail, mode):
        if mode == 'head-batch':
            score = head * (relation * tail)
        else:
            score = (head * relation) * tail
        score = score.sum(dim=2)
        return score

    def ComplEx(self, head, relation, tail, mode):
        re_head, im_head = mint.chunk(head, 2, dim=2)
        re_relation, im_relation = mint.chunk(relation, 2, dim=2)
        re_tail, im_tail = mint.chunk(tail, 2, dim=2)
        if mode == 'head-batch':
            re_score = re_relation * re_tail + im_relation * im_tail
            im_score = re_relation * im_tail - im_relation * re_tail
            score = re_head * re_score + im_head * im_score
        else:
            re_score = re_head * re_relation - im_head * im_relation
            im_score = re_head * im_relation + im_head * re_relation
            score = re_score * re_tail + im_score * im_tail
        score = score.sum(dim=2)
        return score

    def RotatE(self, head, relation, tail, mode):
        pi = 3.14159265358979323846
        re_head, im_head = mint.chunk(head, 2, dim=2)
        re_tail, im_tail = mint.chunk(tail, 2, dim=2)

        # Make phases of relations uniformly distributed in [-pi, pi]
        phase_relation = relation / (self.embedding_range.item() / pi)
        re_relation = ops.cos(phase_relation)
        im_relation = ops.sin(phase_relation)

        if mode == 'head-batch':
            re_score = re_relation * re_tail + im_relation * im_tail
            im_score = re_relation * im_tail - im_relation * re_tail
            re_score = re_score - re_head
            im_score = im_score - im_head
        else:
            re_score = re_head * re_relation - im_head * im_relation
            im_score = re_head * im_relation + im_head * re_relation
            re_score = re_score - re_tail
            im_score = im_score - im_tail

        score = ops.stack([re_score, im_score], axis=0)
        score = score.norm(dim=0)
        score = self.gamma.item() - score.sum(dim=2)
        return score

    def pRotatE(self, head, relation, tail, mode):
        pi = 3.14159262358979323846
        phase_head = head / (self.embedding_range.item() / pi)
        phase_relation = relation / (self.embedding_range.item() / pi)
        phase_tail = tail / (self.embedding_range.item() / pi)
        if mode == 'head-batch':
            score = phase_head + (phase_relation - phase_tail)
        else:
            score = (phase_head + phase_relation) - phase_tail
        score = ops.sin(score)
        score = ops.abs(score)
        score = self.gamma.item() - score.sum(dim=2) * self.modulus
        return score


class TrainStepLossCell(nn.Cell):
    """train_step of the original, minus backward/optimizer: the negative-sampling loss."""

    def __init__(self, model, args):
        super().__init__()
        self.model = model
        self.args = args

    def construct(self, positive_sample, negative_sample, subsampling_weight, mode):
        args = self.args
        negative_score = self.model((positive_sample, negative_sample), mode=mode)
        if args.negative_adversarial_sampling:
            # In self-adversarial sampling, we do not apply back-propagation on the sampling weight
            negative_score = (ops.stop_gradient(
                mint.nn.functional.softmax(negative_score * args.adversarial_temperature, dim=1))
                              * ops.logsigmoid(-negative_score)).sum(dim=1)
        else:
            negative_score = ops.logsigmoid(-negative_score).mean(dim=1)

        positive_score = self.model(positive_sample)
        positive_score = ops.logsigmoid(positive_score).squeeze(axis=1)

        if args.uni_weight:
            positive_sample_loss = - positive_score.mean()
            negative_sample_loss = - negative_score.mean()
        else:
            positive_sample_loss = - (subsampling_weight * positive_score).sum() / subsampling_weight.sum()
            negative_sample_loss = - (subsampling_weight * negative_score).sum() / subsampling_weight.sum()

        loss = (positive_sample_loss + negative_sample_loss) / 2

        if args.regularization != 0.0:
            # Use L3 regularization for ComplEx and DistMult
            regularization = args.regularization * (
                ops.norm(self.model.entity_embedding.view(-1), 3) ** 3 +
                ops.norm(self.model.relation_embedding.view(-1), 3) ** 3
            )
            loss = loss + regularization
            log = {'regularization': regularization.item()}
        else:
            log = {}

        log['positive_sample_loss'] = positive_sample_loss.item()
        log['negative_sample_loss'] = negative_sample_loss.item()
        log['loss'] = loss.item()
        return loss, tuple(log.values())


class TrainStepLoss:
    """Plain-Python wrapper: the graph returns the log values as a tuple; the dict is built here."""

    def __init__(self, model, args):
        self.cell = TrainStepLossCell(model, args)
        self.args = args

    def __call__(self, *inputs):
        loss, values = self.cell(*inputs)
        keys = (['regularization'] if self.args.regularization != 0.0 else []) + \
            ['positive_sample_loss', 'negative_sample_loss', 'loss']
        return loss, dict(zip(keys, values))


class TestStepCell(nn.Cell):
    """test_step of the original for one batch: filtered ranking metrics."""

    def __init__(self, model):
        super().__init__()
        self.model = model

    def construct(self, positive_sample, negative_sample, filter_bias, mode='tail-batch'):
        logs = []
        batch_size = positive_sample.shape[0]
        score = self.model((positive_sample, negative_sample), mode)
        score += filter_bias

        # Explicitly sort all the entities to ensure that there is no test exposure bias
        argsort = ops.argsort(score, axis=1, descending=True)

        if mode == 'head-batch':
            positive_arg = positive_sample[:, 0]
        elif mode == 'tail-batch':
            positive_arg = positive_sample[:, 2]
        else:
            raise ValueError('mode %s not supported' % mode)

        for i in range(batch_size):
            # Notice that argsort is not ranking
            ranking = ops.argmax((argsort[i, :] == positive_arg[i]).astype(ms.int32))

            # ranking + 1 is the true ranking used in evaluation metrics
            ranking = 1 + ranking.item()
            logs.append({
                'MRR': 1.0 / ranking,
                'MR': float(ranking),
                'HITS@1': 1.0 if ranking <= 1 else 0.0,
                'HITS@3': 1.0 if ranking <= 3 else 0.0,
                'HITS@10': 1.0 if ranking <= 10 else 0.0,
            })

        metrics = {}
        for metric in logs[0].keys():
            metrics[metric] = sum([log[metric] for log in logs]) / len(logs)
        return tuple(metrics.values())


class TestStep:
    """Plain-Python wrapper: the graph returns the metric values as a tuple; the dict is built here."""
    KEYS = ('MRR', 'MR', 'HITS@1', 'HITS@3', 'HITS@10')

    def __init__(self, cell):
        self.cell = cell
        self.model = cell.model

    def __call__(self, *inputs):
        return dict(zip(self.KEYS, self.cell(*inputs)))


def build():
    ms.set_seed(0)
    model = KGEModel('RotatE', NENTITY, NRELATION, HIDDEN, gamma=12.0, double_entity_embedding=True)
    return TestStep(TestStepCell(model))


def make_inputs(seed):
    rng = np.random.RandomState(seed)
    pos = np.stack([rng.randint(0, NENTITY, BATCH), rng.randint(0, NRELATION, BATCH),
                    rng.randint(0, NENTITY, BATCH)], axis=1).astype(np.int32)
    neg = rng.randint(0, NENTITY, (BATCH, NEG)).astype(np.int32)
    weight = (1.0 / np.sqrt(rng.randint(4, 10, BATCH))).astype(np.float32)
    all_ent = np.tile(np.arange(NENTITY, dtype=np.int32), (BATCH, 1))
    bias = np.zeros((BATCH, NENTITY), np.float32)
    for b in range(BATCH):  # filter: mask one random "known true" entity other than the answer
        j = (pos[b, 2] + 1 + rng.randint(0, NENTITY - 1)) % NENTITY
        bias[b, j] = -1.0
    return Tensor(pos), Tensor(neg), Tensor(weight), Tensor(all_ent), Tensor(bias)


def main():
    level = sys.argv[1] if len(sys.argv) > 1 else 'pynative'
    if level == 'pynative':
        ms.set_context(mode=ms.PYNATIVE_MODE)
    else:
        ms.set_context(mode=ms.GRAPH_MODE, jit_syntax_level=ms.LAX if level == 'lax' else ms.STRICT)
    ms.set_seed(0)
    np.random.seed(0)
    test_step = build()
    model = test_step.model
    loss_fn = TrainStepLoss(model, Args())
    pos, neg, weight, all_ent, bias = make_inputs(1)
    print('single', model(pos))
    print('head-batch', model((pos, neg), mode='head-batch'))
    print('tail-batch', model((pos, neg), mode='tail-batch'))
    loss, log = loss_fn(pos, neg, weight, 'tail-batch')
    print('loss', loss, log)
    print('test tail', test_step(pos, all_ent, bias))
    print('test head', test_step(pos, all_ent, bias, 'head-batch'))


if __name__ == '__main__':
    main()
