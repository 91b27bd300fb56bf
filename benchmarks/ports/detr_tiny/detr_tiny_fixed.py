"""Reference fix of detr_tiny.py: compiles in GRAPH_MODE at LAX and STRICT (python detr_tiny_fixed.py [lax|strict]).
Changes: no NestedTensor object inside graphs (tensor + mask travel as a pair), swapaxes instead of torch-style
transpose(1, 2), ops.max(x, -1) for (values, indices), graphs return tuples (dicts are rebuilt in Python), and the
Hungarian matching (scipy) runs in Python between two graphs: matcher cost matrix -> linear_sum_assignment -> losses."""
import copy
import math

import numpy as np
import mindspore as ms
from mindspore import nn, ops, Tensor
from mindspore.common.initializer import Normal
from scipy.optimize import linear_sum_assignment

def box_cxcywh_to_xyxy(x):
    x_c, y_c, w, h = x.unbind(-1)
    b = [(x_c - 0.5 * w), (y_c - 0.5 * h), (x_c + 0.5 * w), (y_c + 0.5 * h)]
    return ops.stack(b, axis=-1)

def box_iou(boxes1, boxes2):
    area1 = (boxes1[:, 2] - boxes1[:, 0]) * (boxes1[:, 3] - boxes1[:, 1])
    area2 = (boxes2[:, 2] - boxes2[:, 0]) * (boxes2[:, 3] - boxes2[:, 1])
    lt = ops.maximum(boxes1[:, None, :2], boxes2[:, :2])
    rb = ops.minimum(boxes1[:, None, 2:], boxes2[:, 2:])
    wh = (rb - lt).clamp(min=0)
    inter = wh[:, :, 0] * wh[:, :, 1]
    union = area1[:, None] + area2 - inter
    return inter / union, union

def generalized_box_iou(boxes1, boxes2):
    # degenerate boxes give inf / nan results, so do an early check
    assert (boxes1[:, 2:] >= boxes1[:, :2]).all()
    assert (boxes2[:, 2:] >= boxes2[:, :2]).all()
    iou, union = box_iou(boxes1, boxes2)
    lt = ops.minimum(boxes1[:, None, :2], boxes2[:, :2])
    rb = ops.maximum(boxes1[:, None, 2:], boxes2[:, 2:])
    wh = (rb - lt).clamp(min=0)
    area = wh[:, :, 0] * wh[:, :, 1]
    return iou - (area - union) / area

def _max_by_axis(the_list):
    maxes = the_list[0]
    for sublist in the_list[1:]:
        for index, item in enumerate(sublist):
            maxes[index] = max(maxes[index], item)
    return maxes

def nested_tensor_from_tensor_list(tensor_list):
    max_size = _max_by_axis([list(img.shape) for img in tensor_list])
    batch_shape = [len(tensor_list)] + max_size
    b, c, h, w = batch_shape
    tensor = ops.zeros(batch_shape, dtype=tensor_list[0].dtype)
    mask = ops.ones((b, h, w), dtype=ms.bool_)
    for i, img in enumerate(tensor_list):
        tensor[i, : img.shape[0], : img.shape[1], : img.shape[2]] = img
        mask[i, : img.shape[1], : img.shape[2]] = False
    return tensor, mask

class Backbone(nn.Cell):
    def __init__(self, num_channels=16):
        super().__init__()
        self.body = nn.SequentialCell([
            nn.Conv2d(3, 8, 3, stride=2, pad_mode='pad', padding=1, has_bias=True), nn.ReLU(),
            nn.Conv2d(8, num_channels, 3, stride=2, pad_mode='pad', padding=1, has_bias=True), nn.ReLU()])
        self.num_channels = num_channels

    def construct(self, tensors, m):
        x = self.body(tensors)
        mask = ops.interpolate(m[None].float(), size=x.shape[-2:]).bool()[0]
        return x, mask

class PositionEmbeddingSine(nn.Cell):
    def __init__(self, num_pos_feats=64, temperature=10000, normalize=False, scale=None):
        super().__init__()
        self.num_pos_feats, self.temperature, self.normalize = num_pos_feats, temperature, normalize
        self.scale = 2 * math.pi if scale is None else scale

    def construct(self, mask):
        not_mask = ~mask
        y_embed = not_mask.cumsum(1, dtype=ms.float32)
        x_embed = not_mask.cumsum(2, dtype=ms.float32)
        if self.normalize:
            eps = 1e-6
            y_embed = y_embed / (y_embed[:, -1:, :] + eps) * self.scale
            x_embed = x_embed / (x_embed[:, :, -1:] + eps) * self.scale
        dim_t = ops.arange(self.num_pos_feats, dtype=ms.float32)
        dim_t = self.temperature ** (2 * (dim_t // 2) / self.num_pos_feats)
        pos_x = x_embed[:, :, :, None] / dim_t
        pos_y = y_embed[:, :, :, None] / dim_t
        pos_x = ops.stack((pos_x[:, :, :, 0::2].sin(), pos_x[:, :, :, 1::2].cos()), axis=4).flatten(3)
        pos_y = ops.stack((pos_y[:, :, :, 0::2].sin(), pos_y[:, :, :, 1::2].cos()), axis=4).flatten(3)
        return ops.cat((pos_y, pos_x), axis=3).permute(0, 3, 1, 2)

class Joiner(nn.SequentialCell):
    def __init__(self, backbone, position_embedding):
        super().__init__([backbone, position_embedding])

    def construct(self, tensors, mask):
        x, mask = self[0](tensors, mask)
        return [(x, mask)], [self[1](mask).astype(x.dtype)]

def _get_clones(module, N):
    return nn.CellList([copy.deepcopy(module) for i in range(N)])

class TransformerEncoderLayer(nn.Cell):
    def __init__(self, d_model, nhead, dim_feedforward=64, dropout=0.1):
        super().__init__()
        self.self_attn = nn.MultiheadAttention(d_model, nhead, dropout=dropout)
        self.linear1 = nn.Dense(d_model, dim_feedforward)
        self.linear2 = nn.Dense(dim_feedforward, d_model)
        self.norm1, self.norm2 = nn.LayerNorm((d_model,)), nn.LayerNorm((d_model,))
        self.dropout, self.dropout1 = nn.Dropout(p=dropout), nn.Dropout(p=dropout)
        self.dropout2 = nn.Dropout(p=dropout)
        self.activation = ops.relu

    def with_pos_embed(self, tensor, pos):
        return tensor if pos is None else tensor + pos

    def construct(self, src, src_key_padding_mask=None, pos=None):
        q = k = self.with_pos_embed(src, pos)
        src2 = self.self_attn(q, k, src, key_padding_mask=src_key_padding_mask)[0]
        src = self.norm1(src + self.dropout1(src2))
        src2 = self.linear2(self.dropout(self.activation(self.linear1(src))))
        return self.norm2(src + self.dropout2(src2))

class TransformerDecoderLayer(TransformerEncoderLayer):
    def __init__(self, d_model, nhead, dim_feedforward=64, dropout=0.1):
        super().__init__(d_model, nhead, dim_feedforward, dropout)
        self.multihead_attn = nn.MultiheadAttention(d_model, nhead, dropout=dropout)
        self.norm3, self.dropout3 = nn.LayerNorm((d_model,)), nn.Dropout(p=dropout)

    def construct(self, tgt, memory, memory_key_padding_mask=None, pos=None, query_pos=None):
        q = k = self.with_pos_embed(tgt, query_pos)
        tgt2 = self.self_attn(q, k, tgt)[0]
        tgt = self.norm1(tgt + self.dropout1(tgt2))
        tgt2 = self.multihead_attn(self.with_pos_embed(tgt, query_pos), self.with_pos_embed(memory, pos),
                                   memory, key_padding_mask=memory_key_padding_mask)[0]
        tgt = self.norm2(tgt + self.dropout2(tgt2))
        tgt2 = self.linear2(self.dropout(self.activation(self.linear1(tgt))))
        return self.norm3(tgt + self.dropout3(tgt2))

class Transformer(nn.Cell):
    def __init__(self, d_model=32, nhead=2, num_encoder_layers=1, num_decoder_layers=2, dim_feedforward=64,
                 dropout=0.1, return_intermediate_dec=True):
        super().__init__()
        self.encoder_layers = _get_clones(TransformerEncoderLayer(d_model, nhead, dim_feedforward, dropout),
                                          num_encoder_layers)
        self.decoder_layers = _get_clones(TransformerDecoderLayer(d_model, nhead, dim_feedforward, dropout),
                                          num_decoder_layers)
        self.decoder_norm = nn.LayerNorm((d_model,))
        self.return_intermediate, self.d_model = return_intermediate_dec, d_model

    def construct(self, src, mask, query_embed, pos_embed):
        bs, c, h, w = src.shape
        src = src.flatten(2).permute(2, 0, 1)
        pos_embed = pos_embed.flatten(2).permute(2, 0, 1)
        query_embed = query_embed.unsqueeze(1).tile((1, bs, 1))
        mask = mask.flatten(1)
        tgt = ops.zeros_like(query_embed)
        memory = src
        for layer in self.encoder_layers:
            memory = layer(memory, src_key_padding_mask=mask, pos=pos_embed)
        output = tgt
        intermediate = []
        for layer in self.decoder_layers:
            output = layer(output, memory, memory_key_padding_mask=mask, pos=pos_embed, query_pos=query_embed)
            if self.return_intermediate:
                intermediate.append(self.decoder_norm(output))
        if self.decoder_norm is not None:
            output = self.decoder_norm(output)
            if self.return_intermediate:
                intermediate.pop()
                intermediate.append(output)
        hs = ops.stack(intermediate) if self.return_intermediate else output.unsqueeze(0)
        return hs.swapaxes(1, 2), memory.permute(1, 2, 0).view(bs, c, h, w)

class MLP(nn.Cell):
    def __init__(self, input_dim, hidden_dim, output_dim, num_layers):
        super().__init__()
        self.num_layers = num_layers
        h = [hidden_dim] * (num_layers - 1)
        self.layers = nn.CellList([nn.Dense(n, k) for n, k in zip([input_dim] + h, h + [output_dim])])

    def construct(self, x):
        for i, layer in enumerate(self.layers):
            x = ops.relu(layer(x)) if i < self.num_layers - 1 else layer(x)
        return x

class DETR(nn.Cell):
    def __init__(self, backbone, transformer, num_classes, num_queries, aux_loss=True):
        super().__init__()
        self.transformer = transformer
        hidden_dim = transformer.d_model
        self.class_embed = nn.Dense(hidden_dim, num_classes + 1)
        self.bbox_embed = MLP(hidden_dim, hidden_dim, 4, 3)
        self.query_embed = nn.Embedding(num_queries, hidden_dim, embedding_table=Normal(1.0))
        self.input_proj = nn.Conv2d(backbone[0].num_channels, hidden_dim, kernel_size=1, has_bias=True)
        self.backbone = backbone
        self.aux_loss = aux_loss

    def construct(self, samples):
        tensors, mask = nested_tensor_from_tensor_list(samples)
        features, pos = self.backbone(tensors, mask)
        src, mask = features[-1]
        hs = self.transformer(self.input_proj(src), mask, self.query_embed.embedding_table, pos[-1])[0]
        return self.class_embed(hs), self.bbox_embed(hs).sigmoid()

def to_outputs(outputs_class, outputs_coord, aux_loss=True):
    """Python side: the graph returns the per-layer stacks, the dict is built here."""
    out = {'pred_logits': outputs_class[-1], 'pred_boxes': outputs_coord[-1]}
    if aux_loss:
        out['aux_outputs'] = [{'pred_logits': outputs_class[i], 'pred_boxes': outputs_coord[i]}
                              for i in range(outputs_class.shape[0] - 1)]
    return out

class HungarianMatcher(nn.Cell):
    def __init__(self, cost_class=1, cost_bbox=5, cost_giou=2):
        super().__init__()
        self.cost_class, self.cost_bbox, self.cost_giou = cost_class, cost_bbox, cost_giou

    def construct(self, outputs, targets):
        """Graph part: the (bs, num_queries, total targets) cost matrix."""
        bs, num_queries = outputs["pred_logits"].shape[:2]
        out_prob = outputs["pred_logits"].flatten(0, 1).softmax(-1)
        out_bbox = outputs["pred_boxes"].flatten(0, 1)
        tgt_ids = ops.cat([v["labels"] for v in targets])
        tgt_bbox = ops.cat([v["boxes"] for v in targets])
        cost_class = -out_prob[:, tgt_ids]
        cost_bbox = ops.cdist(out_bbox, tgt_bbox, p=1.0)
        cost_giou = -generalized_box_iou(box_cxcywh_to_xyxy(out_bbox), box_cxcywh_to_xyxy(tgt_bbox))
        C = self.cost_bbox * cost_bbox + self.cost_class * cost_class + self.cost_giou * cost_giou
        return C.view(bs, num_queries, -1)

    def match(self, outputs, targets):
        """Python part (outside the graph): scipy's assignment on each image's block of the cost matrix."""
        C = self(outputs, targets).asnumpy()
        sizes = np.cumsum([0] + [len(v["boxes"]) for v in targets])
        indices = [linear_sum_assignment(C[i, :, sizes[i]:sizes[i + 1]]) for i in range(len(targets))]
        return [(Tensor(i, ms.int64), Tensor(j, ms.int64)) for i, j in indices]

class SetCriterion(nn.Cell):
    def __init__(self, num_classes, matcher, weight_dict, eos_coef, losses, num_aux=1):
        super().__init__()
        self.num_classes, self.matcher, self.weight_dict = num_classes, matcher, weight_dict
        self.eos_coef, self.losses = eos_coef, losses
        names = {'labels': ['loss_ce', 'class_error'], 'cardinality': ['cardinality_error'],
                 'boxes': ['loss_bbox', 'loss_giou']}
        self.loss_keys = [k for loss in losses for k in names[loss]]
        self.loss_keys += [k + f'_{i}' for i in range(num_aux) for loss in losses for k in names[loss]
                           if k != 'class_error']
        empty_weight = ops.ones(self.num_classes + 1, ms.float32)
        empty_weight[-1] = self.eos_coef
        self.empty_weight = empty_weight

    def loss_labels(self, outputs, targets, indices, num_boxes, log=True):
        src_logits = outputs['pred_logits']
        idx = self._get_src_permutation_idx(indices)
        target_classes_o = ops.cat([t["labels"][J] for t, (_, J) in zip(targets, indices)])
        target_classes = ops.full(src_logits.shape[:2], self.num_classes, dtype=ms.int64)
        target_classes[idx] = target_classes_o
        loss_ce = ops.cross_entropy(src_logits.swapaxes(1, 2), target_classes, self.empty_weight)
        losses = {'loss_ce': loss_ce}
        if log:
            losses['class_error'] = 100 - (src_logits[idx].argmax(-1) == target_classes_o).float().mean() * 100
        return losses

    def loss_cardinality(self, outputs, targets, indices, num_boxes):
        pred_logits = outputs['pred_logits']
        tgt_lengths = Tensor([len(v["labels"]) for v in targets], ms.float32)
        card_pred = (pred_logits.argmax(-1) != pred_logits.shape[-1] - 1).sum(1)
        return {'cardinality_error': ops.l1_loss(card_pred.float(), tgt_lengths)}

    def loss_boxes(self, outputs, targets, indices, num_boxes):
        idx = self._get_src_permutation_idx(indices)
        src_boxes = outputs['pred_boxes'][idx]
        target_boxes = ops.cat([t['boxes'][i] for t, (_, i) in zip(targets, indices)], axis=0)
        loss_bbox = ops.l1_loss(src_boxes, target_boxes, reduction='none')
        loss_giou = 1 - generalized_box_iou(box_cxcywh_to_xyxy(src_boxes),
                                            box_cxcywh_to_xyxy(target_boxes)).diagonal()
        return {'loss_bbox': loss_bbox.sum() / num_boxes, 'loss_giou': loss_giou.sum() / num_boxes}

    def _get_src_permutation_idx(self, indices):
        batch_idx = ops.cat([ops.full_like(src, i) for i, (src, _) in enumerate(indices)])
        src_idx = ops.cat([src for (src, _) in indices])
        return batch_idx, src_idx

    def get_loss(self, loss, outputs, targets, indices, num_boxes, **kwargs):
        loss_map = {'labels': self.loss_labels, 'cardinality': self.loss_cardinality, 'boxes': self.loss_boxes}
        assert loss in loss_map, f'do you really want to compute {loss} loss?'
        return loss_map[loss](outputs, targets, indices, num_boxes, **kwargs)

    def compute(self, outputs, targets):
        """Python side: match (scipy) for the last layer and each aux layer, then one graph for all the losses."""
        outputs_without_aux = {k: v for k, v in outputs.items() if k != 'aux_outputs'}
        all_indices = [self.matcher.match(outputs_without_aux, targets)]
        all_indices += [self.matcher.match(aux, targets) for aux in outputs.get('aux_outputs', [])]
        return dict(zip(self.loss_keys, self(outputs, targets, all_indices)))

    def construct(self, outputs, targets, all_indices):
        indices = all_indices[0]
        num_boxes = sum(len(t["labels"]) for t in targets)
        num_boxes = Tensor([num_boxes], ms.float32)
        num_boxes = ops.clamp(num_boxes, min=1).item()
        losses = {}
        for loss in self.losses:
            losses.update(self.get_loss(loss, outputs, targets, indices, num_boxes))
        if 'aux_outputs' in outputs:
            for i, aux_outputs in enumerate(outputs['aux_outputs']):
                indices = all_indices[i + 1]
                for loss in self.losses:
                    kwargs = {'log': False} if loss == 'labels' else {}
                    l_dict = self.get_loss(loss, aux_outputs, targets, indices, num_boxes, **kwargs)
                    losses.update({k + f'_{i}': v for k, v in l_dict.items()})
        return tuple(losses[k] for k in self.loss_keys)

class PostProcess(nn.Cell):
    """Converts the model output to [{'scores', 'labels', 'boxes'}] per image, boxes in absolute xyxy."""
    def __init__(self, top_k=5, threshold=0.2):
        super().__init__()
        self.top_k, self.threshold = top_k, threshold

    def construct(self, outputs, target_sizes):
        out_logits, out_bbox = outputs['pred_logits'], outputs['pred_boxes']
        assert len(out_logits) == len(target_sizes)
        assert target_sizes.shape[1] == 2
        prob = ops.softmax(out_logits, -1)
        scores, labels = ops.max(prob[..., :-1], -1)  # (values, indices) at every level
        boxes = box_cxcywh_to_xyxy(out_bbox)
        img_h, img_w = target_sizes.unbind(1)
        scale_fct = ops.stack([img_w, img_h, img_w, img_h], axis=1)
        boxes = boxes * scale_fct[:, None, :]
        results = []
        for s, l, b in zip(scores, labels, boxes):
            top_s, top_i = s.topk(min(self.top_k, s.shape[0]))
            keep = top_s > self.threshold
            results.append((top_s[keep], l[top_i][keep], b[top_i][keep]))
        return tuple(results)

def to_results(results):
    return [{'scores': s, 'labels': l, 'boxes': b} for s, l, b in results]

def build(num_classes=4, num_queries=6, hidden_dim=32):
    backbone = Joiner(Backbone(16), PositionEmbeddingSine(hidden_dim // 2, normalize=True))
    model = DETR(backbone, Transformer(d_model=hidden_dim), num_classes, num_queries, aux_loss=True)
    matcher = HungarianMatcher(cost_class=1, cost_bbox=5, cost_giou=2)
    weight_dict = {'loss_ce': 1, 'loss_bbox': 5, 'loss_giou': 2}
    criterion = SetCriterion(num_classes, matcher, weight_dict, 0.1, losses=['labels', 'boxes', 'cardinality'])
    return model, criterion, PostProcess(top_k=5, threshold=0.3165)

def make_inputs(seed=0):
    rng = np.random.RandomState(seed)
    images = [Tensor(rng.randn(3, 32, 32).astype(np.float32)), Tensor(rng.randn(3, 28, 24).astype(np.float32))]
    targets = [{'labels': Tensor(rng.randint(0, 4, n), ms.int64),
                'boxes': Tensor(np.concatenate([rng.uniform(0.3, 0.7, (n, 2)), rng.uniform(0.1, 0.4, (n, 2))], 1),
                                ms.float32)} for n in (2, 3)]
    return images, targets, Tensor([[32, 32], [28, 24]], ms.float32)

def run(images, targets, target_sizes, model, criterion, postprocessors):
    outputs = to_outputs(*model(images))
    return outputs, criterion.compute(outputs, targets), to_results(postprocessors(outputs, target_sizes))

if __name__ == "__main__":
    import sys
    level = sys.argv[1] if len(sys.argv) > 1 else 'pynative'
    ms.set_context(mode=ms.PYNATIVE_MODE)
    ms.set_seed(0)
    model, criterion, postprocessors = build()
    model.set_train(False)
    images, targets, target_sizes = make_inputs()
    if level != 'pynative':
        ms.set_context(mode=ms.GRAPH_MODE, jit_syntax_level=ms.STRICT if level == 'strict' else ms.LAX)
    outputs, losses, results = run(images, targets, target_sizes, model, criterion, postprocessors)
    print("pred_logits", outputs['pred_logits'].shape, "pred_boxes[0, :2]", outputs['pred_boxes'][0, :2])
    total = sum(losses[k] * criterion.weight_dict[k] for k in losses.keys() if k in criterion.weight_dict)
    for k, v in sorted(losses.items()):
        print(f"{k}: {float(v):.6f}")
    print("weighted loss:", float(total))
    for i, r in enumerate(results):
        print(f"image {i}: scores {r['scores']} labels {r['labels']} boxes {r['boxes']}")
