"""PEFT-style LoRA (peft/tuners/lora) on a tiny BERT-like classifier, ported from PyTorch to MindSpore 2.10."""
import contextlib
import math
import warnings
from dataclasses import dataclass, field
from typing import Optional

import numpy as np
import mindspore as ms
from mindspore import nn, ops, Tensor
from mindspore.common.initializer import initializer, HeUniform, Zero
FP32_MIN = float(np.finfo(np.float32).min)

# ----------------------------------------------------------------------------- config / outputs
@dataclass
class BertConfig:
    vocab_size: int = 100
    hidden_size: int = 32
    num_hidden_layers: int = 2
    num_attention_heads: int = 4
    intermediate_size: int = 64
    max_position_embeddings: int = 16
    type_vocab_size: int = 2
    num_labels: int = 3
    hidden_dropout_prob: float = 0.0
    attention_probs_dropout_prob: float = 0.0
    layer_norm_eps: float = 1e-12
    use_return_dict: bool = True
    id2label: dict = field(default_factory=lambda: {0: "negative", 1: "neutral", 2: "positive"})


@dataclass
class SequenceClassifierOutput:
    loss: Optional[Tensor] = None
    logits: Optional[Tensor] = None
    pooler_output: Optional[Tensor] = None


# ----------------------------------------------------------------------------- encoder
class BertEmbeddings(nn.Cell):
    def __init__(self, config):
        super().__init__()
        self.word_embeddings = nn.Embedding(config.vocab_size, config.hidden_size, padding_idx=0)
        self.position_embeddings = nn.Embedding(config.max_position_embeddings, config.hidden_size)
        self.token_type_embeddings = nn.Embedding(config.type_vocab_size, config.hidden_size)
        self.LayerNorm = nn.LayerNorm((config.hidden_size,), epsilon=config.layer_norm_eps)
        self.dropout = nn.Dropout(p=config.hidden_dropout_prob)
        self.register_buffer("position_ids", ops.arange(config.max_position_embeddings).expand((1, -1)),
                             persistent=False)

    def construct(self, input_ids, token_type_ids=None):
        seq_length = input_ids.shape[1]
        position_ids = self.position_ids[:, :seq_length]
        if token_type_ids is None:
            token_type_ids = ops.zeros_like(input_ids)
        embeddings = self.word_embeddings(input_ids) + self.token_type_embeddings(token_type_ids)
        embeddings = embeddings + self.position_embeddings(position_ids)
        return self.dropout(self.LayerNorm(embeddings))


class BertSelfAttention(nn.Cell):
    def __init__(self, config):
        super().__init__()
        self.num_attention_heads = config.num_attention_heads
        self.attention_head_size = config.hidden_size // config.num_attention_heads
        self.all_head_size = self.num_attention_heads * self.attention_head_size
        self.query = nn.Dense(config.hidden_size, self.all_head_size)
        self.key = nn.Dense(config.hidden_size, self.all_head_size)
        self.value = nn.Dense(config.hidden_size, self.all_head_size)
        self.dropout = nn.Dropout(p=config.attention_probs_dropout_prob)

    def transpose_for_scores(self, x):
        new_x_shape = x.shape[:-1] + (self.num_attention_heads, self.attention_head_size)
        x = x.view(new_x_shape)
        return x.permute(0, 2, 1, 3)

    def construct(self, hidden_states, attention_mask=None):
        query_layer = self.transpose_for_scores(self.query(hidden_states))
        key_layer = self.transpose_for_scores(self.key(hidden_states))
        value_layer = self.transpose_for_scores(self.value(hidden_states))
        attention_scores = ops.matmul(query_layer, key_layer.swapaxes(-1, -2))
        attention_scores = attention_scores / math.sqrt(self.attention_head_size)
        if attention_mask is not None:
            attention_scores = attention_scores + attention_mask
        attention_probs = self.dropout(ops.softmax(attention_scores, axis=-1))
        context_layer = ops.matmul(attention_probs, value_layer)
        context_layer = context_layer.swapaxes(1, 2).contiguous()
        new_context_layer_shape = context_layer.shape[:-2] + (self.all_head_size,)
        return context_layer.view(new_context_layer_shape)


class BertLayer(nn.Cell):
    def __init__(self, config):
        super().__init__()
        self.attention = BertSelfAttention(config)
        self.attention_output = nn.Dense(config.hidden_size, config.hidden_size)
        self.attention_norm = nn.LayerNorm((config.hidden_size,), epsilon=config.layer_norm_eps)
        self.intermediate = nn.Dense(config.hidden_size, config.intermediate_size)
        self.intermediate_act_fn = nn.GELU(approximate=False)
        self.output = nn.Dense(config.intermediate_size, config.hidden_size)
        self.output_norm = nn.LayerNorm((config.hidden_size,), epsilon=config.layer_norm_eps)
        self.dropout = nn.Dropout(p=config.hidden_dropout_prob)

    def construct(self, hidden_states, attention_mask=None):
        attn = self.attention(hidden_states, attention_mask)
        attn = self.attention_norm(self.dropout(self.attention_output(attn)) + hidden_states)
        inter = self.intermediate_act_fn(self.intermediate(attn))
        return self.output_norm(self.dropout(self.output(inter)) + attn)


class BertModel(nn.Cell):
    def __init__(self, config):
        super().__init__()
        self.config = config
        self.embeddings = BertEmbeddings(config)
        self.layer = nn.CellList([BertLayer(config) for _ in range(config.num_hidden_layers)])
        self.pooler = nn.Dense(config.hidden_size, config.hidden_size)
        self.pooler_act = nn.Tanh()

    def get_extended_attention_mask(self, attention_mask, dtype):
        extended_attention_mask = attention_mask[:, None, None, :].to(dtype)
        return (1.0 - extended_attention_mask) * FP32_MIN

    def construct(self, input_ids, attention_mask=None, token_type_ids=None):
        if attention_mask is None:
            attention_mask = ops.ones(input_ids.shape, ms.float32)
        hidden_states = self.embeddings(input_ids, token_type_ids)
        extended_attention_mask = self.get_extended_attention_mask(attention_mask, hidden_states.dtype)
        for layer_module in self.layer:
            hidden_states = layer_module(hidden_states, extended_attention_mask)
        pooled_output = self.pooler_act(self.pooler(hidden_states[:, 0]))
        return {"last_hidden_state": hidden_states, "pooler_output": pooled_output}


class BertForSequenceClassification(nn.Cell):
    def __init__(self, config):
        super().__init__()
        self.config = config
        self.num_labels = config.num_labels
        self.bert = BertModel(config)
        self.dropout = nn.Dropout(p=config.hidden_dropout_prob)
        self.classifier = nn.Dense(config.hidden_size, config.num_labels)

    def construct(self, input_ids, attention_mask=None, labels=None, return_dict=None):
        return_dict = return_dict if return_dict is not None else self.config.use_return_dict
        outputs = self.bert(input_ids, attention_mask=attention_mask)
        pooled_output = outputs["pooler_output"]
        logits = self.classifier(self.dropout(pooled_output))
        loss = None
        if labels is not None:
            loss = ops.cross_entropy(logits.view(-1, self.num_labels), labels.view(-1))
        if not return_dict:
            output = (logits, pooled_output)
            return ((loss,) + output) if loss is not None else output
        return (logits, pooled_output) if loss is None else (loss, logits, pooled_output)


# ----------------------------------------------------------------------------- LoRA (peft/tuners/lora)
@dataclass
class LoraConfig:
    r: int = 8
    lora_alpha: int = 8
    lora_dropout: float = 0.0
    target_modules: list = field(default_factory=lambda: ["query", "value"])
    init_lora_weights: bool = True


class LoraLayer:
    adapter_layer_names = ("lora_A", "lora_B")

    def __init__(self, base_layer):
        self.base_layer = base_layer
        self.r = {}
        self.lora_alpha = {}
        self.scaling = {}
        self.use_dora = {}
        self.lora_dropout = nn.CellDict()
        self.lora_A = nn.CellDict()
        self.lora_B = nn.CellDict()
        self._disable_adapters = False
        self._active_adapter = "default"
        self.merged_adapters = []
        self.in_features = base_layer.in_channels
        self.out_features = base_layer.out_channels
        self._adapter_ids = {}
        self._active_t = ms.Parameter(Tensor(np.zeros(8, np.float32)), name="active_t", requires_grad=False)

    @property
    def merged(self):
        return bool(self.merged_adapters)

    @property
    def disable_adapters(self):
        return self._disable_adapters

    @property
    def active_adapters(self):
        if isinstance(self._active_adapter, str):
            return [self._active_adapter]
        return self._active_adapter

    def update_layer(self, adapter_name, r, lora_alpha, lora_dropout, init_lora_weights):
        self.r[adapter_name] = r
        self.lora_alpha[adapter_name] = lora_alpha
        self.lora_dropout[adapter_name] = nn.Dropout(p=lora_dropout) if lora_dropout > 0.0 else nn.Identity()
        self.lora_A[adapter_name] = nn.Dense(self.in_features, r, has_bias=False)
        self.lora_B[adapter_name] = nn.Dense(r, self.out_features, has_bias=False)
        self.scaling[adapter_name] = lora_alpha / r
        self.use_dora[adapter_name] = False
        self._adapter_ids.setdefault(adapter_name, len(self._adapter_ids))
        if init_lora_weights:
            self.reset_lora_parameters(adapter_name)
        self.set_adapter(self.active_adapters)

    def reset_lora_parameters(self, adapter_name):
        weight_a = self.lora_A[adapter_name].weight
        weight_a.set_data(initializer(HeUniform(negative_slope=math.sqrt(5)), weight_a.shape, weight_a.dtype))
        weight_b = self.lora_B[adapter_name].weight
        weight_b.set_data(initializer(Zero(), weight_b.shape, weight_b.dtype))

    def set_adapter(self, adapter_names):
        if isinstance(adapter_names, str):
            adapter_names = [adapter_names]
        for layer_name in self.adapter_layer_names:
            module_dict = getattr(self, layer_name)
            for key, layer in module_dict.items():
                layer.weight.requires_grad = key in adapter_names
        self._active_adapter = adapter_names
        self._sync_state()

    def enable_adapters(self, enabled):
        if not enabled and self.merged:
            self.unmerge()  # in Python, not inside construct
        self._disable_adapters = not enabled
        self._sync_state()

    def _sync_state(self):  # graph-visible copy of the Python-side adapter state, one gate per adapter
        gates = np.zeros(8, np.float32)
        for name in self.active_adapters:
            if name in self._adapter_ids:
                gates[self._adapter_ids[name]] = 1.0
        gates *= 0.0 if self._disable_adapters else 1.0
        gates *= 0.0 if self.merged else 1.0
        ops.assign(self._active_t, Tensor(gates))  # (set_data would also re-sync every weight of the graph)

    def get_delta_weight(self, adapter):
        return (self.lora_B[adapter].weight @ self.lora_A[adapter].weight) * self.scaling[adapter]

    def merge(self, safe_merge=False, adapter_names=None):
        if adapter_names is None:
            adapter_names = [a for a in self.active_adapters if a not in self.merged_adapters]
        for active_adapter in adapter_names:
            if active_adapter in self.lora_A.keys():
                delta_weight = self.get_delta_weight(active_adapter)
                if safe_merge and not ops.isfinite(self.base_layer.weight + delta_weight).all():
                    raise ValueError(f"NaNs detected in the merged weights of adapter {active_adapter}")
                self.base_layer.weight.set_data(self.base_layer.weight + delta_weight)
                self.merged_adapters.append(active_adapter)
        self._sync_state()

    def unmerge(self):
        if not self.merged:
            warnings.warn("Already unmerged. Nothing to do.")
            return
        while len(self.merged_adapters) > 0:
            active_adapter = self.merged_adapters.pop()
            if active_adapter in self.lora_A.keys():
                self.base_layer.weight.set_data(self.base_layer.weight - self.get_delta_weight(active_adapter))
        self._sync_state()


class Linear(nn.Cell, LoraLayer):
    def __init__(self, base_layer, adapter_name, r=8, lora_alpha=8, lora_dropout=0.0, init_lora_weights=True):
        nn.Cell.__init__(self)
        LoraLayer.__init__(self, base_layer)
        self._active_adapter = adapter_name
        self.update_layer(adapter_name, r, lora_alpha, lora_dropout, init_lora_weights)

    def construct(self, x, *args, **kwargs):
        result = self.base_layer(x, *args, **kwargs)
        torch_result_dtype = result.dtype
        for active_adapter in self.lora_A.keys():  # every adapter; _active_t says if it is on
            lora_A = self.lora_A[active_adapter]
            lora_B = self.lora_B[active_adapter]
            dropout = self.lora_dropout[active_adapter]
            scaling = self.scaling[active_adapter]
            x = x.to(lora_A.weight.dtype)
            if not self.use_dora[active_adapter]:
                gate = self._active_t[self._adapter_ids[active_adapter]]  # 0.0 if inactive/disabled/merged
                result = result + lora_B(lora_A(dropout(x))) * scaling * gate
            else:
                raise NotImplementedError("DoRA is not part of this port")
        result = result.to(torch_result_dtype)
        return result


class LoraModel(nn.Cell):
    prefix = "lora_"

    def __init__(self, model, config, adapter_name="default"):
        super().__init__()
        self.model = model
        self.peft_config = {}
        self.active_adapter = adapter_name
        self.inject_adapter(config, adapter_name)

    def _get_submodules(self, key):
        parent = self.model
        *path, target_name = key.split(".")
        for name in path:
            parent = getattr(parent, name)
        return parent, getattr(parent, target_name), target_name

    def inject_adapter(self, config, adapter_name):
        self.peft_config[adapter_name] = config
        key_list = [key for key, _ in self.model.cells_and_names()]
        for key in key_list:
            if not any(key == t or key.endswith("." + t) for t in config.target_modules):
                continue
            parent, target, target_name = self._get_submodules(key)
            if isinstance(target, LoraLayer):
                target.update_layer(adapter_name, config.r, config.lora_alpha, config.lora_dropout,
                                    config.init_lora_weights)
            else:
                new_module = Linear(target, adapter_name, config.r, config.lora_alpha, config.lora_dropout,
                                    config.init_lora_weights)
                setattr(parent, target_name, new_module)
        self._mark_only_adapters_as_trainable()
        self.update_parameters_name()  # full dotted names, else the optimizer sees duplicates

    def _mark_only_adapters_as_trainable(self):
        for name, param in self.model.parameters_and_names():
            if self.prefix not in name:
                param.requires_grad = False

    def _lora_layers(self):
        return [cell for _, cell in self.model.cells_and_names() if isinstance(cell, LoraLayer)]

    def add_adapter(self, adapter_name, config):
        self.inject_adapter(config, adapter_name)
        self.set_adapter(self.active_adapter)

    def set_adapter(self, adapter_name):
        for module in self._lora_layers():
            module.set_adapter(adapter_name)
        self.active_adapter = adapter_name

    def _set_adapter_layers(self, enabled=True):
        for module in self._lora_layers():
            module.enable_adapters(enabled)

    @contextlib.contextmanager
    def disable_adapter(self):
        self._set_adapter_layers(enabled=False)
        try:
            yield
        finally:
            self._set_adapter_layers(enabled=True)

    def merge_adapter(self):
        for module in self._lora_layers():
            module.merge()

    def merge_and_unload(self):
        for key in [key for key, _ in self.model.cells_and_names() if key and self.prefix not in key]:
            try:
                parent, target, target_name = self._get_submodules(key)
            except AttributeError:
                continue
            if isinstance(target, LoraLayer):
                target.merge()
                setattr(parent, target_name, target.base_layer)
        return self.model

    def construct(self, *args, **kwargs):
        return self.model(*args, **kwargs)


# ----------------------------------------------------------------------------- training / inference
class TrainStep(nn.Cell):
    def __init__(self, model, optimizer, label_smoothing=0.1):
        super().__init__()
        self.model = model
        self.optimizer = optimizer
        self.label_smoothing = label_smoothing
        self.global_step = ms.Parameter(Tensor(0, ms.int32), name="global_step", requires_grad=False)
        self.grad_fn = ms.value_and_grad(self.forward_fn, None, optimizer.parameters, has_aux=True)

    def forward_fn(self, input_ids, attention_mask, labels):
        outputs = self.model(input_ids=input_ids, attention_mask=attention_mask)
        loss = ops.cross_entropy(outputs[0], labels, label_smoothing=self.label_smoothing)
        return loss, outputs[0]

    def construct(self, input_ids, attention_mask, labels):
        (loss, logits), grads = self.grad_fn(input_ids, attention_mask, labels)
        self.optimizer(grads)
        self.global_step += 1
        accuracy = (logits.argmax(-1) == labels).float().mean()
        return loss.item(), accuracy.item(), self.global_step + 0  # caller zips the names in


class TopKClassifier(nn.Cell):
    def __init__(self, model, id2label, k=2):
        super().__init__()
        self.model = model
        self.id2label = id2label
        self.k = k

    def construct(self, input_ids, attention_mask):
        logits = self.model(input_ids, attention_mask=attention_mask)[0]
        scores, indices = ops.softmax(logits, axis=-1).topk(self.k, dim=-1)
        labels = indices  # the caller maps ids with self.id2label: strings cannot leave a graph
        return scores, labels


def build(seed=0):
    ms.set_seed(seed)
    np.random.seed(seed)
    config = BertConfig()
    base = BertForSequenceClassification(config)
    lora_config = LoraConfig(r=4, lora_alpha=8, target_modules=["query", "value"], init_lora_weights=False)
    return LoraModel(base, lora_config, adapter_name="default")


def inputs(seed=0):
    rng = np.random.RandomState(seed)
    input_ids = rng.randint(1, 100, size=(4, 12))
    attention_mask = np.ones((4, 12), dtype=np.int64)
    attention_mask[1, 9:] = 0
    attention_mask[3, 6:] = 0
    labels = rng.randint(0, 3, size=(4,))
    return Tensor(input_ids, ms.int64), Tensor(attention_mask, ms.int64), Tensor(labels, ms.int64)


if __name__ == "__main__":
    ms.set_context(mode=ms.PYNATIVE_MODE)
    input_ids, attention_mask, labels = inputs(0)
    model = build(0)
    print("one adapter  :", model(input_ids, attention_mask=attention_mask)[0])
    model.add_adapter("second", LoraConfig(r=2, lora_alpha=4, init_lora_weights=False))
    model.set_adapter(["default", "second"])
    print("two adapters :", model(input_ids, attention_mask=attention_mask)[0])
    model.set_adapter("second")
    print("set_adapter  :", model(input_ids, attention_mask=attention_mask)[0])
    with model.disable_adapter():
        print("disabled     :", model(input_ids, attention_mask=attention_mask)[0])
    model.set_adapter("default")
    model.set_train(True)
    optimizer = nn.AdamWeightDecay(model.trainable_params(), learning_rate=1e-2)
    trainer = TrainStep(model, optimizer)
    for _ in range(2):
        print("train        :", trainer(input_ids, attention_mask, labels))
    model.set_train(False)
    model.merge_adapter()
    print("merged       :", model(input_ids, attention_mask=attention_mask)[0])
    merged = model.merge_and_unload()
    print("top-k        :", TopKClassifier(merged, merged.config.id2label)(input_ids, attention_mask))
