"""Tiny Segment Anything (SAM) ported from PyTorch (facebookresearch/segment-anything) to MindSpore.

Layout follows the original: image_encoder.py, prompt_encoder.py, transformer.py, mask_decoder.py,
sam.py, predictor.py (+ utils/transforms.py ResizeLongestSide), plus a small training loss Cell.
"""
import math
from copy import deepcopy
from dataclasses import dataclass
from typing import Any, Dict, List, Optional, Tuple

import numpy as np
import mindspore as ms
from mindspore import Tensor, nn, ops

# ----------------------------------------------------------------- common.py
class MLPBlock(nn.Cell):
    def __init__(self, embedding_dim, mlp_dim, act=nn.GELU):
        super().__init__()
        self.lin1 = nn.Dense(embedding_dim, mlp_dim)
        self.lin2 = nn.Dense(mlp_dim, embedding_dim)
        self.act = act()
    def construct(self, x):
        return self.lin2(self.act(self.lin1(x)))

class LayerNorm2d(nn.Cell):
    def __init__(self, num_channels, eps=1e-6):
        super().__init__()
        self.weight = ms.Parameter(ops.ones(num_channels))
        self.bias = ms.Parameter(ops.zeros(num_channels))
        self.eps = eps
    def construct(self, x):
        u = x.mean(1, keepdim=True)
        s = (x - u).pow(2).mean(1, keepdim=True)
        x = (x - u) / ops.sqrt(s + self.eps)
        return self.weight[:, None, None] * x + self.bias[:, None, None]

# ----------------------------------------------------------- image_encoder.py
class PatchEmbed(nn.Cell):
    def __init__(self, kernel_size=(8, 8), stride=(8, 8), in_chans=3, embed_dim=32):
        super().__init__()
        self.proj = nn.Conv2d(in_chans, embed_dim, kernel_size=kernel_size, stride=stride,
                              pad_mode="valid", has_bias=True)
    def construct(self, x):
        return self.proj(x).permute(0, 2, 3, 1)  # B C H W -> B H W C

class ViTAttention(nn.Cell):
    def __init__(self, dim, num_heads=2):
        super().__init__()
        self.num_heads = num_heads
        self.scale = (dim // num_heads) ** -0.5
        self.qkv = nn.Dense(dim, dim * 3)
        self.proj = nn.Dense(dim, dim)
    def construct(self, x):
        B, H, W, _ = x.shape
        qkv = self.qkv(x).reshape(B, H * W, 3, self.num_heads, -1).permute(2, 0, 3, 1, 4)
        q, k, v = qkv.reshape(3, B * self.num_heads, H * W, -1).unbind(0)
        attn = (q * self.scale) @ k.transpose(-2, -1)
        attn = attn.softmax(-1)
        x = (attn @ v).view(B, self.num_heads, H, W, -1).permute(0, 2, 3, 1, 4).reshape(B, H, W, -1)
        return self.proj(x)

class Block(nn.Cell):
    def __init__(self, dim, num_heads, mlp_ratio=2.0):
        super().__init__()
        self.norm1 = nn.LayerNorm((dim,))
        self.attn = ViTAttention(dim, num_heads)
        self.norm2 = nn.LayerNorm((dim,))
        self.mlp = MLPBlock(dim, int(dim * mlp_ratio))
    def construct(self, x):
        x = x + self.attn(self.norm1(x))
        return x + self.mlp(self.norm2(x))

class ImageEncoderViT(nn.Cell):
    def __init__(self, img_size=32, patch_size=8, in_chans=3, embed_dim=32, depth=2, num_heads=2, out_chans=16):
        super().__init__()
        self.img_size = img_size
        self.patch_embed = PatchEmbed((patch_size, patch_size), (patch_size, patch_size), in_chans, embed_dim)
        self.pos_embed = ms.Parameter(ops.zeros((1, img_size // patch_size, img_size // patch_size, embed_dim)))
        self.blocks = nn.CellList([Block(embed_dim, num_heads) for _ in range(depth)])
        self.neck = nn.SequentialCell(
            nn.Conv2d(embed_dim, out_chans, kernel_size=1, has_bias=False), LayerNorm2d(out_chans),
            nn.Conv2d(out_chans, out_chans, kernel_size=3, padding=1, pad_mode="pad", has_bias=False),
            LayerNorm2d(out_chans))
    def construct(self, x):
        x = self.patch_embed(x)
        if self.pos_embed is not None:
            x = x + self.pos_embed
        for blk in self.blocks:
            x = blk(x)
        return self.neck(x.permute(0, 3, 1, 2))

# ------------------------------------------------------------- transformer.py
class Attention(nn.Cell):
    def __init__(self, embedding_dim, num_heads, downsample_rate=1):
        super().__init__()
        self.internal_dim = embedding_dim // downsample_rate
        self.num_heads = num_heads
        self.q_proj = nn.Dense(embedding_dim, self.internal_dim)
        self.k_proj = nn.Dense(embedding_dim, self.internal_dim)
        self.v_proj = nn.Dense(embedding_dim, self.internal_dim)
        self.out_proj = nn.Dense(self.internal_dim, embedding_dim)
    def _separate_heads(self, x, num_heads):
        b, n, c = x.shape
        x = x.reshape(b, n, num_heads, c // num_heads)
        return x.transpose(1, 2)  # B x N_heads x N_tokens x C_per_head
    def _recombine_heads(self, x):
        b, n_heads, n_tokens, c_per_head = x.shape
        return x.transpose(1, 2).reshape(b, n_tokens, n_heads * c_per_head)
    def construct(self, q, k, v):
        q = self._separate_heads(self.q_proj(q), self.num_heads)
        k = self._separate_heads(self.k_proj(k), self.num_heads)
        v = self._separate_heads(self.v_proj(v), self.num_heads)
        _, _, _, c_per_head = q.shape
        attn = q @ k.permute(0, 1, 3, 2)
        attn = attn / math.sqrt(c_per_head)
        attn = ops.softmax(attn, axis=-1)
        return self.out_proj(self._recombine_heads(attn @ v))

class TwoWayAttentionBlock(nn.Cell):
    def __init__(self, embedding_dim, num_heads, mlp_dim=32, attention_downsample_rate=2, skip_first_layer_pe=False):
        super().__init__()
        self.self_attn = Attention(embedding_dim, num_heads)
        self.norm1 = nn.LayerNorm((embedding_dim,))
        self.cross_attn_token_to_image = Attention(embedding_dim, num_heads, attention_downsample_rate)
        self.norm2 = nn.LayerNorm((embedding_dim,))
        self.mlp = MLPBlock(embedding_dim, mlp_dim, nn.ReLU)
        self.norm3 = nn.LayerNorm((embedding_dim,))
        self.norm4 = nn.LayerNorm((embedding_dim,))
        self.cross_attn_image_to_token = Attention(embedding_dim, num_heads, attention_downsample_rate)
        self.skip_first_layer_pe = skip_first_layer_pe
    def construct(self, queries, keys, query_pe, key_pe):
        if self.skip_first_layer_pe:
            queries = self.self_attn(q=queries, k=queries, v=queries)
        else:
            q = queries + query_pe
            queries = queries + self.self_attn(q=q, k=q, v=queries)
        queries = self.norm1(queries)
        q, k = queries + query_pe, keys + key_pe
        queries = self.norm2(queries + self.cross_attn_token_to_image(q=q, k=k, v=keys))
        queries = self.norm3(queries + self.mlp(queries))
        q, k = queries + query_pe, keys + key_pe
        keys = self.norm4(keys + self.cross_attn_image_to_token(q=k, k=q, v=queries))
        return queries, keys

class TwoWayTransformer(nn.Cell):
    def __init__(self, depth, embedding_dim, num_heads, mlp_dim, attention_downsample_rate=2):
        super().__init__()
        self.layers = nn.CellList([
            TwoWayAttentionBlock(embedding_dim, num_heads, mlp_dim, attention_downsample_rate, skip_first_layer_pe=(i == 0))
            for i in range(depth)])
        self.final_attn_token_to_image = Attention(embedding_dim, num_heads, attention_downsample_rate)
        self.norm_final_attn = nn.LayerNorm((embedding_dim,))
    def construct(self, image_embedding, image_pe, point_embedding):
        bs, c, h, w = image_embedding.shape
        image_embedding = image_embedding.flatten(2).permute(0, 2, 1)
        image_pe = image_pe.flatten(2).permute(0, 2, 1)
        queries, keys = point_embedding, image_embedding
        for layer in self.layers:
            queries, keys = layer(queries=queries, keys=keys, query_pe=point_embedding, key_pe=image_pe)
        q, k = queries + point_embedding, keys + image_pe
        queries = self.norm_final_attn(queries + self.final_attn_token_to_image(q=q, k=k, v=keys))
        return queries, keys

# ------------------------------------------------------------ mask_decoder.py
class MLP(nn.Cell):
    def __init__(self, input_dim, hidden_dim, output_dim, num_layers, sigmoid_output=False):
        super().__init__()
        self.num_layers = num_layers
        h = [hidden_dim] * (num_layers - 1)
        self.layers = nn.CellList([nn.Dense(n, k) for n, k in zip([input_dim] + h, h + [output_dim])])
        self.sigmoid_output = sigmoid_output
    def construct(self, x):
        for i, layer in enumerate(self.layers):
            x = ops.relu(layer(x)) if i < self.num_layers - 1 else layer(x)
        if self.sigmoid_output:
            x = ops.sigmoid(x)
        return x

class MaskDecoder(nn.Cell):
    def __init__(self, transformer_dim, transformer, num_multimask_outputs=3, iou_head_depth=2, iou_head_hidden_dim=32):
        super().__init__()
        self.transformer = transformer
        self.iou_token = nn.Embedding(1, transformer_dim)
        self.num_mask_tokens = num_multimask_outputs + 1
        self.mask_tokens = nn.Embedding(self.num_mask_tokens, transformer_dim)
        self.output_upscaling = nn.SequentialCell(
            nn.Conv2dTranspose(transformer_dim, transformer_dim // 4, kernel_size=2, stride=2, has_bias=True),
            LayerNorm2d(transformer_dim // 4), nn.GELU(),
            nn.Conv2dTranspose(transformer_dim // 4, transformer_dim // 8, kernel_size=2, stride=2, has_bias=True),
            nn.GELU())
        self.output_hypernetworks_mlps = nn.CellList(
            [MLP(transformer_dim, transformer_dim, transformer_dim // 8, 3) for i in range(self.num_mask_tokens)])
        self.iou_prediction_head = MLP(transformer_dim, iou_head_hidden_dim, self.num_mask_tokens, iou_head_depth)
    def construct(self, image_embeddings, image_pe, sparse_prompt_embeddings, dense_prompt_embeddings, multimask_output):
        masks, iou_pred = self.predict_masks(image_embeddings, image_pe, sparse_prompt_embeddings, dense_prompt_embeddings)
        if multimask_output:
            mask_slice = slice(1, None)
        else:
            mask_slice = slice(0, 1)
        return masks[:, mask_slice, :, :], iou_pred[:, mask_slice]
    def predict_masks(self, image_embeddings, image_pe, sparse_prompt_embeddings, dense_prompt_embeddings):
        output_tokens = ops.cat([self.iou_token.embedding_table, self.mask_tokens.embedding_table], axis=0)
        output_tokens = output_tokens.unsqueeze(0).expand(sparse_prompt_embeddings.shape[0], -1, -1)
        tokens = ops.cat((output_tokens, sparse_prompt_embeddings), axis=1)
        src = image_embeddings.repeat_interleave(tokens.shape[0], dim=0)
        src = src + dense_prompt_embeddings
        pos_src = image_pe.repeat_interleave(tokens.shape[0], dim=0)
        b, c, h, w = src.shape
        hs, src = self.transformer(src, pos_src, tokens)
        iou_token_out = hs[:, 0, :]
        mask_tokens_out = hs[:, 1: (1 + self.num_mask_tokens), :]
        src = src.transpose(1, 2).view(b, c, h, w)
        upscaled_embedding = self.output_upscaling(src)
        hyper_in_list = []
        for i in range(self.num_mask_tokens):
            hyper_in_list.append(self.output_hypernetworks_mlps[i](mask_tokens_out[:, i, :]))
        hyper_in = ops.stack(hyper_in_list, axis=1)
        b, c, h, w = upscaled_embedding.shape
        masks = (hyper_in @ upscaled_embedding.view(b, c, h * w)).view(b, -1, h, w)
        return masks, self.iou_prediction_head(iou_token_out)

# ---------------------------------------------------------- prompt_encoder.py
class PositionEmbeddingRandom(nn.Cell):
    def __init__(self, num_pos_feats=8, scale=None):
        super().__init__()
        if scale is None or scale <= 0.0:
            scale = 1.0
        # register_buffer("positional_encoding_gaussian_matrix", scale * torch.randn((2, num_pos_feats)))
        self.positional_encoding_gaussian_matrix = scale * ops.randn((2, num_pos_feats))
    def _pe_encoding(self, coords):
        coords = 2 * coords - 1
        coords = coords @ self.positional_encoding_gaussian_matrix
        coords = 2 * np.pi * coords
        return ops.cat([ops.sin(coords), ops.cos(coords)], axis=-1)
    def construct(self, size):
        h, w = size
        grid = ops.ones((h, w), ms.float32)
        y_embed = (grid.cumsum(dim=0) - 0.5) / h
        x_embed = (grid.cumsum(dim=1) - 0.5) / w
        pe = self._pe_encoding(ops.stack([x_embed, y_embed], axis=-1))
        return pe.permute(2, 0, 1)  # C x H x W
    def forward_with_coords(self, coords_input, image_size):
        coords = coords_input.copy()
        coords[:, :, 0] = coords[:, :, 0] / image_size[1]
        coords[:, :, 1] = coords[:, :, 1] / image_size[0]
        return self._pe_encoding(coords.float())

class PromptEncoder(nn.Cell):
    def __init__(self, embed_dim, image_embedding_size, input_image_size, mask_in_chans, activation=nn.GELU):
        super().__init__()
        self.embed_dim = embed_dim
        self.input_image_size = input_image_size
        self.image_embedding_size = image_embedding_size
        self.pe_layer = PositionEmbeddingRandom(embed_dim // 2)
        self.point_embeddings = nn.CellList([nn.Embedding(1, embed_dim) for i in range(4)])
        self.not_a_point_embed = nn.Embedding(1, embed_dim)
        self.mask_downscaling = nn.SequentialCell(
            nn.Conv2d(1, mask_in_chans // 4, kernel_size=2, stride=2, pad_mode="valid", has_bias=True),
            LayerNorm2d(mask_in_chans // 4), activation(),
            nn.Conv2d(mask_in_chans // 4, mask_in_chans, kernel_size=2, stride=2, pad_mode="valid", has_bias=True),
            LayerNorm2d(mask_in_chans), activation(),
            nn.Conv2d(mask_in_chans, embed_dim, kernel_size=1, has_bias=True))
        self.no_mask_embed = nn.Embedding(1, embed_dim)
    def get_dense_pe(self):
        return self.pe_layer(self.image_embedding_size).unsqueeze(0)
    def _embed_points(self, points, labels, pad):
        points = points + 0.5  # Shift to center of pixel
        if pad:
            padding_point = ops.zeros((points.shape[0], 1, 2))
            padding_label = -ops.ones((labels.shape[0], 1), dtype=labels.dtype)
            points = ops.cat([points, padding_point], axis=1)
            labels = ops.cat([labels, padding_label], axis=1)
        point_embedding = self.pe_layer.forward_with_coords(points, self.input_image_size)
        point_embedding[labels == -1] = 0.0
        point_embedding[labels == -1] += self.not_a_point_embed.embedding_table
        point_embedding[labels == 0] += self.point_embeddings[0].embedding_table
        point_embedding[labels == 1] += self.point_embeddings[1].embedding_table
        return point_embedding
    def _embed_boxes(self, boxes):
        boxes = boxes + 0.5
        coords = boxes.reshape(-1, 2, 2)
        corner_embedding = self.pe_layer.forward_with_coords(coords, self.input_image_size)
        corner_embedding[:, 0, :] += self.point_embeddings[2].embedding_table
        corner_embedding[:, 1, :] += self.point_embeddings[3].embedding_table
        return corner_embedding
    def _get_batch_size(self, points, boxes, masks):
        if points is not None:
            return points[0].shape[0]
        elif boxes is not None:
            return boxes.shape[0]
        elif masks is not None:
            return masks.shape[0]
        else:
            return 1
    def construct(self, points, boxes, masks):
        bs = self._get_batch_size(points, boxes, masks)
        sparse_embeddings = ops.zeros((bs, 0, self.embed_dim))  # torch.empty((bs, 0, embed_dim))
        if points is not None:
            coords, labels = points
            point_embeddings = self._embed_points(coords, labels, pad=(boxes is None))
            sparse_embeddings = ops.cat([sparse_embeddings, point_embeddings], axis=1)
        if boxes is not None:
            sparse_embeddings = ops.cat([sparse_embeddings, self._embed_boxes(boxes)], axis=1)
        if masks is not None:
            dense_embeddings = self.mask_downscaling(masks)
        else:
            dense_embeddings = self.no_mask_embed.embedding_table.reshape(1, -1, 1, 1).expand(
                bs, -1, self.image_embedding_size[0], self.image_embedding_size[1])
        return sparse_embeddings, dense_embeddings

# --------------------------------------------------------------------- sam.py
class Sam(nn.Cell):
    mask_threshold: float = 0.0
    image_format: str = "RGB"
    def __init__(self, image_encoder, prompt_encoder, mask_decoder,
                 pixel_mean=[123.675, 116.28, 103.53], pixel_std=[58.395, 57.12, 57.375]):
        super().__init__()
        self.image_encoder = image_encoder
        self.prompt_encoder = prompt_encoder
        self.mask_decoder = mask_decoder
        self.pixel_mean = Tensor(pixel_mean, ms.float32).view(-1, 1, 1)  # register_buffer(..., False)
        self.pixel_std = Tensor(pixel_std, ms.float32).view(-1, 1, 1)
    @ms._no_grad()  # @torch.no_grad()
    def construct(self, batched_input: List[Dict[str, Any]], multimask_output: bool):
        input_images = ops.stack([self.preprocess(x["image"]) for x in batched_input], axis=0)
        image_embeddings = self.image_encoder(input_images)
        outputs = []
        for image_record, curr_embedding in zip(batched_input, image_embeddings):
            if "point_coords" in image_record:
                points = (image_record["point_coords"], image_record["point_labels"])
            else:
                points = None
            sparse_embeddings, dense_embeddings = self.prompt_encoder(
                points=points, boxes=image_record.get("boxes", None), masks=image_record.get("mask_inputs", None))
            low_res_masks, iou_predictions = self.mask_decoder(
                image_embeddings=curr_embedding.unsqueeze(0), image_pe=self.prompt_encoder.get_dense_pe(),
                sparse_prompt_embeddings=sparse_embeddings, dense_prompt_embeddings=dense_embeddings,
                multimask_output=multimask_output)
            masks = self.postprocess_masks(low_res_masks, input_size=image_record["image"].shape[-2:],
                                           original_size=image_record["original_size"])
            masks = masks > self.mask_threshold
            outputs.append({"masks": masks, "iou_predictions": iou_predictions, "low_res_logits": low_res_masks})
        return outputs
    def postprocess_masks(self, masks, input_size: Tuple[int, ...], original_size: Tuple[int, ...]):
        masks = ops.interpolate(masks, size=(self.image_encoder.img_size, self.image_encoder.img_size),
                                mode="bilinear", align_corners=False)
        masks = masks[..., : input_size[0], : input_size[1]]
        return ops.interpolate(masks, size=original_size, mode="bilinear", align_corners=False)
    def preprocess(self, x):
        x = (x - self.pixel_mean) / self.pixel_std
        h, w = x.shape[-2:]
        padh = self.image_encoder.img_size - h
        padw = self.image_encoder.img_size - w
        return ops.pad(x, (0, padw, 0, padh))

# ------------------------------------------------- utils/transforms.py + predictor.py
class ResizeLongestSide:
    def __init__(self, target_length):
        self.target_length = target_length
    def apply_image(self, image):  # nearest-neighbour resize in NumPy (original uses PIL)
        h, w = self.get_preprocess_shape(image.shape[0], image.shape[1], self.target_length)
        ys = (np.arange(h) * image.shape[0] / h).astype(np.int64)
        xs = (np.arange(w) * image.shape[1] / w).astype(np.int64)
        return image[ys][:, xs]
    def apply_coords(self, coords, original_size):
        old_h, old_w = original_size
        new_h, new_w = self.get_preprocess_shape(original_size[0], original_size[1], self.target_length)
        coords = deepcopy(coords).astype(float)
        coords[..., 0] = coords[..., 0] * (new_w / old_w)
        coords[..., 1] = coords[..., 1] * (new_h / old_h)
        return coords
    @staticmethod
    def get_preprocess_shape(oldh, oldw, long_side_length):
        scale = long_side_length * 1.0 / max(oldh, oldw)
        return (int(oldh * scale + 0.5), int(oldw * scale + 0.5))

@dataclass
class Prediction:
    masks: Tensor
    iou_predictions: Tensor
    low_res_logits: Tensor
    best_mask: Tensor

class SamPredictor(nn.Cell):
    def __init__(self, sam_model):
        super().__init__()
        self.model = sam_model
        self.transform = ResizeLongestSide(sam_model.image_encoder.img_size)
        self.reset_image()
    def set_image(self, image, image_format="RGB"):
        if image_format != self.model.image_format:
            image = image[..., ::-1]
        input_image = self.transform.apply_image(image)
        input_image_torch = Tensor(input_image, ms.float32).permute(2, 0, 1).contiguous()[None, :, :, :]
        self.set_torch_image(input_image_torch, image.shape[:2])
    def set_torch_image(self, transformed_image, original_image_size):
        self.reset_image()
        self.original_size = original_image_size
        self.input_size = tuple(transformed_image.shape[-2:])
        self.features = self.model.image_encoder(self.model.preprocess(transformed_image))
        self.is_image_set = True
    def predict(self, point_coords, point_labels, multimask_output=True):
        point_coords = self.transform.apply_coords(point_coords, self.original_size)
        coords_torch = Tensor(point_coords, ms.float32)[None, :, :]
        labels_torch = Tensor(point_labels, ms.int32)[None, :]
        masks, iou_predictions, low_res_masks = self.predict_torch(coords_torch, labels_torch, None, multimask_output)
        return masks[0].asnumpy(), iou_predictions[0].asnumpy(), low_res_masks[0].asnumpy()
    def predict_torch(self, point_coords, point_labels, boxes=None, multimask_output=True, return_logits=False):
        if not self.is_image_set:
            raise RuntimeError("An image must be set with .set_image(...) before mask prediction.")
        points = (point_coords, point_labels) if point_coords is not None else None
        sparse_embeddings, dense_embeddings = self.model.prompt_encoder(points=points, boxes=boxes, masks=None)
        low_res_masks, iou_predictions = self.model.mask_decoder(
            image_embeddings=self.features, image_pe=self.model.prompt_encoder.get_dense_pe(),
            sparse_prompt_embeddings=sparse_embeddings, dense_prompt_embeddings=dense_embeddings,
            multimask_output=multimask_output)
        masks = self.model.postprocess_masks(low_res_masks, self.input_size, self.original_size)
        if not return_logits:
            masks = masks > self.model.mask_threshold
        return masks, iou_predictions, low_res_masks
    def construct(self, image, point_coords, point_labels, multimask_output=True):
        self.set_torch_image(image, image.shape[-2:])
        masks, iou_predictions, low_res_masks = self.predict_torch(point_coords, point_labels, None, multimask_output)
        best = iou_predictions[0].argmax().item()
        return Prediction(masks, iou_predictions, low_res_masks, best_mask=masks[0, best])
    def reset_image(self):
        self.is_image_set = False
        self.features = None
        self.original_size = None
        self.input_size = None

# ------------------------------------------------------------------- loss
class SamLoss(nn.Cell):
    def __init__(self, sam, alpha=0.25, gamma=2.0):
        super().__init__()
        self.sam, self.alpha, self.gamma = sam, alpha, gamma
    def construct(self, image, point_coords, point_labels, gt_mask):
        features = self.sam.image_encoder(self.sam.preprocess(image))
        sparse, dense = self.sam.prompt_encoder(points=(point_coords, point_labels), boxes=None, masks=None)
        low_res, iou_pred = self.sam.mask_decoder(features, self.sam.prompt_encoder.get_dense_pe(), sparse, dense, False)
        logits = self.sam.postprocess_masks(low_res, image.shape[-2:], gt_mask.shape[-2:])
        num_masks = max(gt_mask.sum().item(), 1.0)
        prob = ops.sigmoid(logits)
        ce = ops.binary_cross_entropy_with_logits(logits, gt_mask, reduction="none")
        p_t = prob * gt_mask + (1 - prob) * (1 - gt_mask)
        focal = (self.alpha * gt_mask + (1 - self.alpha) * (1 - gt_mask)) * ce * (1 - p_t) ** self.gamma
        dice = 1 - (2 * (prob * gt_mask).sum() + 1) / (prob.sum() + gt_mask.sum() + 1)
        pred = (logits > 0).float()
        iou_true = (pred * gt_mask).sum() / ((pred + gt_mask) > 0).float().sum().clamp(min=1.0)
        losses = {"focal": 20.0 * focal.sum() / num_masks, "dice": dice,
                  "iou": ops.mse_loss(iou_pred.reshape(-1), ops.stop_gradient(iou_true).reshape(-1))}
        return sum(losses.values())

# ------------------------------------------------------------------- build + demo
def build_sam_tiny(img_size=32, patch=8, enc_dim=32, prompt_dim=16):
    emb = img_size // patch
    return Sam(ImageEncoderViT(img_size, patch, 3, enc_dim, depth=2, num_heads=2, out_chans=prompt_dim),
               PromptEncoder(prompt_dim, (emb, emb), (img_size, img_size), mask_in_chans=8),
               MaskDecoder(prompt_dim, TwoWayTransformer(2, prompt_dim, 2, 32), 3, 2, 32))

def make_inputs(seed):
    rng = np.random.default_rng(seed)
    f = lambda *s: Tensor(rng.uniform(0, 255, s).astype(np.float32))
    batched_input = [
        {"image": f(3, 32, 24), "original_size": (40, 30),
         "point_coords": Tensor(rng.uniform(0, 24, (1, 2, 2)).astype(np.float32)),
         "point_labels": Tensor(np.array([[1, 0]], np.int32))},
        {"image": f(3, 24, 32), "original_size": (30, 40),
         "boxes": Tensor(np.sort(rng.uniform(0, 24, (1, 2, 2)), axis=1).reshape(1, 4).astype(np.float32))},
    ]
    image = f(1, 3, 32, 32)
    coords = Tensor(rng.uniform(0, 32, (1, 2, 2)).astype(np.float32))
    labels = Tensor(np.array([[1, 1]], np.int32))
    gt = Tensor((rng.uniform(0, 1, (1, 1, 32, 32)) > 0.5).astype(np.float32))
    return batched_input, image, coords, labels, gt

if __name__ == "__main__":
    ms.set_context(mode=ms.PYNATIVE_MODE)
    ms.set_seed(0)
    sam = build_sam_tiny()
    batched_input, image, coords, labels, gt = make_inputs(0)
    for i, out in enumerate(sam(batched_input, multimask_output=True)):
        print(f"sam[{i}]", {k: v.shape for k, v in out.items()}, out["iou_predictions"].asnumpy().round(4))
    predictor = SamPredictor(sam)
    predictor.set_image(np.random.default_rng(1).integers(0, 256, (40, 30, 3)).astype(np.uint8))
    m, s, lr = predictor.predict(np.array([[10.0, 12.0]]), np.array([1]))
    print("predict", m.shape, s.round(4), lr.shape)
    p = predictor(image, coords, labels, True)
    print("predictor cell", p.masks.shape, p.iou_predictions.asnumpy().round(4), p.best_mask.shape)
    print("loss", SamLoss(sam)(image, coords, labels, gt).item())
