"""BertForQuestionAnswering (HF modeling_bert.py) + SQuAD best-span search, ported to MindSpore 2.10."""
import math
from dataclasses import dataclass

import numpy as np
import mindspore as ms
from mindspore import nn, mint, ops

class BertConfig:
    def __init__(self, vocab_size=40, hidden_size=32, num_hidden_layers=2, num_attention_heads=2,
                 intermediate_size=64, hidden_act="gelu", hidden_dropout_prob=0.1,
                 attention_probs_dropout_prob=0.1, max_position_embeddings=64, type_vocab_size=2,
                 layer_norm_eps=1e-12, pad_token_id=0, initializer_range=0.02, chunk_size_feed_forward=0,
                 output_attentions=False, output_hidden_states=False, use_return_dict=True):
        self.vocab_size, self.hidden_size, self.num_hidden_layers = vocab_size, hidden_size, num_hidden_layers
        self.num_attention_heads, self.intermediate_size = num_attention_heads, intermediate_size
        self.hidden_act, self.hidden_dropout_prob = hidden_act, hidden_dropout_prob
        self.attention_probs_dropout_prob = attention_probs_dropout_prob
        self.max_position_embeddings, self.type_vocab_size = max_position_embeddings, type_vocab_size
        self.layer_norm_eps, self.pad_token_id, self.initializer_range = layer_norm_eps, pad_token_id, initializer_range
        self.chunk_size_feed_forward = chunk_size_feed_forward
        self.output_attentions, self.output_hidden_states = output_attentions, output_hidden_states
        self.use_return_dict = use_return_dict

class ModelOutput:
    """Minimal stand-in for transformers.utils.ModelOutput: attribute access plus tuple-style indexing."""

    def to_tuple(self):
        return tuple(getattr(self, k) for k in self.__dataclass_fields__ if getattr(self, k) is not None)

    def __getitem__(self, k):
        if isinstance(k, str):
            return getattr(self, k)
        return self.to_tuple()[k]

@dataclass
class BaseModelOutput(ModelOutput):
    last_hidden_state: ms.Tensor = None
    hidden_states: tuple = None
    attentions: tuple = None

@dataclass
class QuestionAnsweringModelOutput(ModelOutput):
    loss: ms.Tensor = None
    start_logits: ms.Tensor = None
    end_logits: ms.Tensor = None
    hidden_states: tuple = None
    attentions: tuple = None

ACT2FN = {"gelu": nn.GELU(approximate=False), "relu": mint.nn.ReLU(), "tanh": mint.nn.Tanh()}

def apply_chunking_to_forward(forward_fn, chunk_size, chunk_dim, *input_tensors):
    if chunk_size > 0:
        num_chunks = input_tensors[0].shape[chunk_dim] // chunk_size
        input_tensors_chunks = tuple(t.chunk(num_chunks, dim=chunk_dim) for t in input_tensors)
        output_chunks = tuple(forward_fn(*c) for c in zip(*input_tensors_chunks))
        return mint.cat(output_chunks, dim=chunk_dim)
    return forward_fn(*input_tensors)

class BertEmbeddings(nn.Cell):
    def __init__(self, config):
        super().__init__()
        self.word_embeddings = nn.Embedding(config.vocab_size, config.hidden_size, padding_idx=config.pad_token_id)
        self.position_embeddings = nn.Embedding(config.max_position_embeddings, config.hidden_size)
        self.token_type_embeddings = nn.Embedding(config.type_vocab_size, config.hidden_size)
        self.LayerNorm = nn.LayerNorm((config.hidden_size,), epsilon=config.layer_norm_eps)
        self.dropout = mint.nn.Dropout(config.hidden_dropout_prob)
        self.register_buffer("position_ids", ops.arange(config.max_position_embeddings).expand((1, -1)),
                             persistent=False)
        self.register_buffer("token_type_ids", mint.zeros(self.position_ids.shape, dtype=ms.int32), persistent=False)

    def construct(self, input_ids=None, token_type_ids=None, position_ids=None, inputs_embeds=None,
                  past_key_values_length=0):
        input_shape = input_ids.shape if input_ids is not None else inputs_embeds.shape[:-1]
        seq_length = input_shape[1]
        if position_ids is None:
            position_ids = self.position_ids[:, past_key_values_length: seq_length + past_key_values_length]
        if token_type_ids is None:
            if hasattr(self, "token_type_ids"):
                buffered_token_type_ids = self.token_type_ids[:, :seq_length]
                token_type_ids = buffered_token_type_ids.expand(input_shape[0], seq_length)
            else:
                token_type_ids = mint.zeros(input_shape, dtype=ms.int32)
        if inputs_embeds is None:
            inputs_embeds = self.word_embeddings(input_ids)
        embeddings = inputs_embeds + self.token_type_embeddings(token_type_ids)
        embeddings += self.position_embeddings(position_ids)
        embeddings = self.LayerNorm(embeddings)
        return self.dropout(embeddings)

class BertSelfAttention(nn.Cell):
    def __init__(self, config):
        super().__init__()
        if config.hidden_size % config.num_attention_heads != 0:
            raise ValueError(f"hidden size {config.hidden_size} not a multiple of heads {config.num_attention_heads}")
        self.num_attention_heads = config.num_attention_heads
        self.attention_head_size = int(config.hidden_size / config.num_attention_heads)
        self.all_head_size = self.num_attention_heads * self.attention_head_size
        self.query = mint.nn.Linear(config.hidden_size, self.all_head_size)
        self.key = mint.nn.Linear(config.hidden_size, self.all_head_size)
        self.value = mint.nn.Linear(config.hidden_size, self.all_head_size)
        self.dropout = mint.nn.Dropout(config.attention_probs_dropout_prob)

    def transpose_for_scores(self, x):
        new_x_shape = x.shape[:-1] + (self.num_attention_heads, self.attention_head_size)
        x = x.view(new_x_shape)
        return x.permute(0, 2, 1, 3)

    def construct(self, hidden_states, attention_mask=None, head_mask=None, output_attentions=False):
        mixed_query_layer = self.query(hidden_states)
        key_layer = self.transpose_for_scores(self.key(hidden_states))
        value_layer = self.transpose_for_scores(self.value(hidden_states))
        query_layer = self.transpose_for_scores(mixed_query_layer)
        attention_scores = mint.matmul(query_layer, key_layer.transpose(-1, -2))
        attention_scores = attention_scores / math.sqrt(self.attention_head_size)
        if attention_mask is not None:
            attention_scores = attention_scores + attention_mask
        attention_probs = mint.nn.functional.softmax(attention_scores, dim=-1)
        attention_probs = self.dropout(attention_probs)
        if head_mask is not None:
            attention_probs = attention_probs * head_mask
        context_layer = mint.matmul(attention_probs, value_layer)
        context_layer = context_layer.permute(0, 2, 1, 3).contiguous()
        new_context_layer_shape = context_layer.shape[:-2] + (self.all_head_size,)
        context_layer = context_layer.view(new_context_layer_shape)
        outputs = (context_layer, attention_probs) if output_attentions else (context_layer,)
        return outputs

class BertSelfOutput(nn.Cell):
    def __init__(self, config):
        super().__init__()
        self.dense = mint.nn.Linear(config.hidden_size, config.hidden_size)
        self.LayerNorm = nn.LayerNorm((config.hidden_size,), epsilon=config.layer_norm_eps)
        self.dropout = mint.nn.Dropout(config.hidden_dropout_prob)

    def construct(self, hidden_states, input_tensor):
        hidden_states = self.dropout(self.dense(hidden_states))
        return self.LayerNorm(hidden_states + input_tensor)

class BertAttention(nn.Cell):
    def __init__(self, config):
        super().__init__()
        self.self = BertSelfAttention(config)
        self.output = BertSelfOutput(config)

    def construct(self, hidden_states, attention_mask=None, head_mask=None, output_attentions=False):
        self_outputs = self.self(hidden_states, attention_mask, head_mask, output_attentions)
        attention_output = self.output(self_outputs[0], hidden_states)
        return (attention_output,) + self_outputs[1:]

class BertIntermediate(nn.Cell):
    def __init__(self, config):
        super().__init__()
        self.dense = mint.nn.Linear(config.hidden_size, config.intermediate_size)
        self.intermediate_act_fn = (ACT2FN[config.hidden_act] if isinstance(config.hidden_act, str)
                                    else config.hidden_act)

    def construct(self, hidden_states):
        return self.intermediate_act_fn(self.dense(hidden_states))

class BertOutput(nn.Cell):
    def __init__(self, config):
        super().__init__()
        self.dense = mint.nn.Linear(config.intermediate_size, config.hidden_size)
        self.LayerNorm = nn.LayerNorm((config.hidden_size,), epsilon=config.layer_norm_eps)
        self.dropout = mint.nn.Dropout(config.hidden_dropout_prob)

    def construct(self, hidden_states, input_tensor):
        hidden_states = self.dropout(self.dense(hidden_states))
        return self.LayerNorm(hidden_states + input_tensor)

class BertLayer(nn.Cell):
    def __init__(self, config):
        super().__init__()
        self.chunk_size_feed_forward = config.chunk_size_feed_forward
        self.seq_len_dim = 1
        self.attention = BertAttention(config)
        self.intermediate = BertIntermediate(config)
        self.output = BertOutput(config)

    def construct(self, hidden_states, attention_mask=None, head_mask=None, output_attentions=False):
        self_attention_outputs = self.attention(hidden_states, attention_mask, head_mask,
                                                output_attentions=output_attentions)
        attention_output = self_attention_outputs[0]
        outputs = self_attention_outputs[1:]
        layer_output = apply_chunking_to_forward(self.feed_forward_chunk, self.chunk_size_feed_forward,
                                                 self.seq_len_dim, attention_output)
        return (layer_output,) + outputs

    def feed_forward_chunk(self, attention_output):
        intermediate_output = self.intermediate(attention_output)
        return self.output(intermediate_output, attention_output)

class BertEncoder(nn.Cell):
    def __init__(self, config):
        super().__init__()
        self.config = config
        self.layer = nn.CellList([BertLayer(config) for _ in range(config.num_hidden_layers)])

    def construct(self, hidden_states, attention_mask=None, head_mask=None, output_attentions=False,
                  output_hidden_states=False, return_dict=True):
        all_hidden_states = () if output_hidden_states else None
        all_self_attentions = () if output_attentions else None
        for i, layer_module in enumerate(self.layer):
            if output_hidden_states:
                all_hidden_states = all_hidden_states + (hidden_states,)
            layer_head_mask = head_mask[i] if head_mask is not None else None
            layer_outputs = layer_module(hidden_states, attention_mask, layer_head_mask, output_attentions)
            hidden_states = layer_outputs[0]
            if output_attentions:
                all_self_attentions = all_self_attentions + (layer_outputs[1],)
        if output_hidden_states:
            all_hidden_states = all_hidden_states + (hidden_states,)
        if not return_dict:
            return tuple(v for v in [hidden_states, all_hidden_states, all_self_attentions] if v is not None)
        return BaseModelOutput(last_hidden_state=hidden_states, hidden_states=all_hidden_states,
                               attentions=all_self_attentions)

class BertModel(nn.Cell):
    def __init__(self, config, add_pooling_layer=True):
        super().__init__()
        self.config = config
        self.embeddings = BertEmbeddings(config)
        self.encoder = BertEncoder(config)
        self.pooler = None  # BertForQuestionAnswering uses add_pooling_layer=False

    @property
    def dtype(self):
        return next(iter(self.get_parameters())).dtype

    def get_extended_attention_mask(self, attention_mask, input_shape, dtype=None):
        if dtype is None:
            dtype = self.dtype
        if attention_mask.dim() == 3:
            extended_attention_mask = attention_mask[:, None, :, :]
        elif attention_mask.dim() == 2:
            extended_attention_mask = attention_mask[:, None, None, :]
        else:
            raise ValueError(f"Wrong shape for input_ids (shape {input_shape}) or attention_mask "
                             f"(shape {attention_mask.shape})")
        extended_attention_mask = extended_attention_mask.to(dtype=dtype)
        extended_attention_mask = (1.0 - extended_attention_mask) * np.finfo(ms.dtype_to_nptype(dtype)).min
        return extended_attention_mask

    def construct(self, input_ids=None, attention_mask=None, token_type_ids=None, position_ids=None,
                  head_mask=None, inputs_embeds=None, output_attentions=None, output_hidden_states=None,
                  return_dict=None):
        output_attentions = output_attentions if output_attentions is not None else self.config.output_attentions
        output_hidden_states = (output_hidden_states if output_hidden_states is not None
                                else self.config.output_hidden_states)
        return_dict = return_dict if return_dict is not None else self.config.use_return_dict
        if input_ids is not None and inputs_embeds is not None:
            raise ValueError("You cannot specify both input_ids and inputs_embeds at the same time")
        elif input_ids is not None:
            input_shape = input_ids.shape
        elif inputs_embeds is not None:
            input_shape = inputs_embeds.shape[:-1]
        else:
            raise ValueError("You have to specify either input_ids or inputs_embeds")
        batch_size, seq_length = input_shape
        if attention_mask is None:
            attention_mask = mint.ones((batch_size, seq_length))
        extended_attention_mask = self.get_extended_attention_mask(attention_mask, input_shape)
        head_mask = [None] * self.config.num_hidden_layers if head_mask is None else head_mask
        embedding_output = self.embeddings(input_ids=input_ids, position_ids=position_ids,
                                           token_type_ids=token_type_ids, inputs_embeds=inputs_embeds)
        encoder_outputs = self.encoder(embedding_output, attention_mask=extended_attention_mask, head_mask=head_mask,
                                       output_attentions=output_attentions,
                                       output_hidden_states=output_hidden_states, return_dict=return_dict)
        sequence_output = encoder_outputs[0]
        pooled_output = self.pooler(sequence_output) if self.pooler is not None else None
        if not return_dict:
            return (sequence_output, pooled_output) + encoder_outputs[1:]
        return BaseModelOutput(last_hidden_state=sequence_output, hidden_states=encoder_outputs.hidden_states,
                               attentions=encoder_outputs.attentions)

class BertForQuestionAnswering(nn.Cell):
    def __init__(self, config):
        super().__init__()
        self.config = config
        self.num_labels = 2
        self.bert = BertModel(config, add_pooling_layer=False)
        self.qa_outputs = mint.nn.Linear(config.hidden_size, self.num_labels)

    def construct(self, input_ids=None, attention_mask=None, token_type_ids=None, position_ids=None,
                  head_mask=None, inputs_embeds=None, start_positions=None, end_positions=None,
                  output_attentions=None, output_hidden_states=None, return_dict=None):
        return_dict = return_dict if return_dict is not None else self.config.use_return_dict
        outputs = self.bert(input_ids, attention_mask=attention_mask, token_type_ids=token_type_ids,
                            position_ids=position_ids, head_mask=head_mask, inputs_embeds=inputs_embeds,
                            output_attentions=output_attentions, output_hidden_states=output_hidden_states,
                            return_dict=return_dict)
        sequence_output = outputs[0]
        logits = self.qa_outputs(sequence_output)
        start_logits, end_logits = logits.split(1, dim=-1)
        start_logits = start_logits.squeeze(-1).contiguous()
        end_logits = end_logits.squeeze(-1).contiguous()
        total_loss = None
        if start_positions is not None and end_positions is not None:
            if len(start_positions.shape) > 1:
                start_positions = start_positions.squeeze(-1)
            if len(end_positions.shape) > 1:
                end_positions = end_positions.squeeze(-1)
            ignored_index = start_logits.shape[1]
            start_positions = start_positions.clamp(0, ignored_index)
            end_positions = end_positions.clamp(0, ignored_index)
            loss_fct = nn.CrossEntropyLoss(ignore_index=ignored_index)
            start_loss = loss_fct(start_logits, start_positions)
            end_loss = loss_fct(end_logits, end_positions)
            total_loss = (start_loss + end_loss) / 2
        if not return_dict:
            output = (start_logits, end_logits) + outputs[2:]
            return ((total_loss,) + output) if total_loss is not None else output
        return QuestionAnsweringModelOutput(loss=total_loss, start_logits=start_logits, end_logits=end_logits,
                                            hidden_states=outputs.hidden_states, attentions=outputs.attentions)

def best_span(start_logits, end_logits, context_mask, n_best_size=5, max_answer_length=4):
    """SQuAD post-processing: best (start, end) per example among the top-k start/end indices."""
    best_starts, best_ends, best_scores = [], [], []
    for b in range(start_logits.shape[0]):
        _, start_indexes = ops.topk(start_logits[b], n_best_size)
        _, end_indexes = ops.topk(end_logits[b], n_best_size)
        prelim_predictions = []
        for start_index in start_indexes.tolist():
            for end_index in end_indexes.tolist():
                if not context_mask[b, start_index] or not context_mask[b, end_index]:
                    continue
                if end_index < start_index or end_index - start_index + 1 > max_answer_length:
                    continue
                prelim_predictions.append({"score": start_logits[b, start_index].item() + end_logits[b, end_index].item(),
                                           "start": start_index, "end": end_index})
        if len(prelim_predictions) == 0:
            prelim_predictions.append({"score": 0.0, "start": 0, "end": 0})
        best = sorted(prelim_predictions, key=lambda x: x["score"], reverse=True)[0]
        best_starts.append(best["start"])
        best_ends.append(best["end"])
        best_scores.append(best["score"])
    return ms.Tensor(best_starts), ms.Tensor(best_ends), ms.Tensor(best_scores, ms.float32)

class SpanSearch(nn.Cell):
    def __init__(self, n_best_size=5, max_answer_length=4):
        super().__init__()
        self.n_best_size = n_best_size
        self.max_answer_length = max_answer_length

    def construct(self, start_logits, end_logits, context_mask):
        return best_span(start_logits, end_logits, context_mask, self.n_best_size, self.max_answer_length)

def build():
    ms.set_seed(0)
    np.random.seed(0)
    model = BertForQuestionAnswering(BertConfig())
    model.set_train(False)
    return model

def make_inputs(seed=0, batch=2, seq=12, vocab=40):
    rng = np.random.RandomState(seed)
    input_ids = rng.randint(1, vocab, size=(batch, seq)).astype(np.int32)
    attention_mask, token_type_ids = np.ones((batch, seq), np.int32), np.zeros((batch, seq), np.int32)
    attention_mask[1, -3:], token_type_ids[:, 4:], token_type_ids[1, -3:] = 0, 1, 0
    return ms.Tensor(input_ids), ms.Tensor(attention_mask), ms.Tensor(token_type_ids)

if __name__ == "__main__":
    model = build()
    input_ids, attention_mask, token_type_ids = make_inputs()
    out = model(input_ids, attention_mask, token_type_ids)
    print("start_logits", out.start_logits.shape, out.start_logits)
    print("end_logits", out.end_logits.shape, out.end_logits)
    loss_out = model(input_ids, attention_mask, token_type_ids, start_positions=ms.Tensor([5, 7], ms.int32),
                     end_positions=ms.Tensor([6, 20], ms.int32))
    print("loss", loss_out.loss)
    full = model(input_ids, attention_mask, token_type_ids, output_attentions=True, output_hidden_states=True)
    print("hidden_states", len(full.hidden_states), "attentions", len(full.attentions), full.attentions[0].shape)
    starts, ends, scores = SpanSearch()(out.start_logits, out.end_logits, token_type_ids)
    print("best spans", starts, ends, scores)
