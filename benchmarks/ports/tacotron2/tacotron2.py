"""Tacotron 2 (tiny), ported from NVIDIA/tacotron2 (model.py, layers.py, utils.py) to MindSpore 2.10:
conv+BiLSTM encoder, location-sensitive attention, decoder with an always-on prenet dropout, postnet,
teacher-forced forward and the `inference` loop (gate threshold / max_decoder_steps)."""
from dataclasses import dataclass
from math import sqrt

import numpy as np

import mindspore as ms
from mindspore import Tensor, nn, ops

@dataclass
class HParams:
    n_symbols: int = 20; symbols_embedding_dim: int = 16; n_mel_channels: int = 8; n_frames_per_step: int = 1
    encoder_embedding_dim: int = 16; encoder_n_convolutions: int = 3; encoder_kernel_size: int = 5
    attention_rnn_dim: int = 16; decoder_rnn_dim: int = 16; prenet_dim: int = 8; prenet_dropout: float = 0.5
    max_decoder_steps: int = 12; gate_threshold: float = 0.476  # (untrained demo weights)
    p_attention_dropout: float = 0.1; p_decoder_dropout: float = 0.1; attention_dim: int = 8
    attention_location_n_filters: int = 4; attention_location_kernel_size: int = 5
    postnet_embedding_dim: int = 8; postnet_kernel_size: int = 5; postnet_n_convolutions: int = 5
    mask_padding: bool = True

def get_mask_from_lengths(lengths):
    max_len = lengths.max().item()
    ids = ops.arange(0, max_len, dtype=ms.int32)
    mask = (ids < lengths.unsqueeze(1)).bool()
    return mask

def LinearNorm(in_dim, out_dim, bias=True):
    return nn.Dense(in_dim, out_dim, has_bias=bias, weight_init="xavier_uniform")

def ConvNorm(in_channels, out_channels, kernel_size=1, bias=True):
    return nn.Conv1d(in_channels, out_channels, kernel_size, pad_mode="pad", padding=int((kernel_size - 1) / 2),
                     has_bias=bias, weight_init="xavier_uniform")

class LocationLayer(nn.Cell):
    def __init__(self, attention_n_filters, attention_kernel_size, attention_dim):
        super().__init__()
        self.location_conv = ConvNorm(2, attention_n_filters, kernel_size=attention_kernel_size, bias=False)
        self.location_dense = LinearNorm(attention_n_filters, attention_dim, bias=False)

    def construct(self, attention_weights_cat):
        processed_attention = self.location_conv(attention_weights_cat)
        processed_attention = processed_attention.transpose(1, 2)
        processed_attention = self.location_dense(processed_attention)
        return processed_attention

class Attention(nn.Cell):
    def __init__(self, attention_rnn_dim, embedding_dim, attention_dim, n_filters, kernel_size):
        super().__init__()
        self.query_layer = LinearNorm(attention_rnn_dim, attention_dim, bias=False)
        self.memory_layer = LinearNorm(embedding_dim, attention_dim, bias=False)
        self.v = LinearNorm(attention_dim, 1, bias=False)
        self.location_layer = LocationLayer(n_filters, kernel_size, attention_dim)
        self.score_mask_value = -float("inf")

    def get_alignment_energies(self, query, processed_memory, attention_weights_cat):
        processed_query = self.query_layer(query.unsqueeze(1))
        processed_attention_weights = self.location_layer(attention_weights_cat)
        energies = self.v(ops.tanh(processed_query + processed_attention_weights + processed_memory))
        energies = energies.squeeze(-1)
        return energies

    def construct(self, attention_hidden_state, memory, processed_memory, attention_weights_cat, mask):
        alignment = self.get_alignment_energies(attention_hidden_state, processed_memory, attention_weights_cat)
        if mask is not None:
            alignment = alignment.masked_fill(mask, self.score_mask_value)
        attention_weights = ops.softmax(alignment, axis=1)
        attention_context = ops.bmm(attention_weights.unsqueeze(1), memory)
        attention_context = attention_context.squeeze(1)
        return attention_context, attention_weights

class Prenet(nn.Cell):
    def __init__(self, in_dim, sizes, p=0.5):
        super().__init__()
        in_sizes = [in_dim] + sizes[:-1]
        self.layers = nn.CellList([LinearNorm(i, o, bias=False) for (i, o) in zip(in_sizes, sizes)])
        self.p = p

    def construct(self, x):
        for linear in self.layers:
            x = ops.dropout(ops.relu(linear(x)), p=self.p, training=True)  # always on, also at inference
        return x

class Postnet(nn.Cell):
    def __init__(self, hp):
        super().__init__()
        self.convolutions = nn.CellList()
        dims = [hp.n_mel_channels] + [hp.postnet_embedding_dim] * (hp.postnet_n_convolutions - 1) + [hp.n_mel_channels]
        for i in range(hp.postnet_n_convolutions):
            self.convolutions.append(nn.SequentialCell(ConvNorm(dims[i], dims[i + 1], hp.postnet_kernel_size),
                                                       nn.BatchNorm1d(dims[i + 1])))

    def construct(self, x):
        for i in range(len(self.convolutions) - 1):
            x = ops.dropout(ops.tanh(self.convolutions[i](x)), 0.5, self.training)
        x = ops.dropout(self.convolutions[-1](x), 0.5, self.training)
        return x

class Encoder(nn.Cell):
    def __init__(self, hp):
        super().__init__()
        convolutions = []
        for _ in range(hp.encoder_n_convolutions):
            convolutions.append(nn.SequentialCell(
                ConvNorm(hp.encoder_embedding_dim, hp.encoder_embedding_dim, hp.encoder_kernel_size),
                nn.BatchNorm1d(hp.encoder_embedding_dim)))
        self.convolutions = nn.CellList(convolutions)
        self.lstm = nn.LSTM(hp.encoder_embedding_dim, int(hp.encoder_embedding_dim / 2), 1,
                            batch_first=True, bidirectional=True)

    def construct(self, x, input_lengths):
        for conv in self.convolutions:
            x = ops.dropout(ops.relu(conv(x)), 0.5, self.training)
        x = x.transpose(1, 2)
        # no pack_padded_sequence in MindSpore: the LSTM takes the lengths directly
        outputs, _ = self.lstm(x, seq_length=input_lengths)
        return outputs

    def inference(self, x):
        for conv in self.convolutions:
            x = ops.dropout(ops.relu(conv(x)), 0.5, self.training)
        x = x.transpose(1, 2)
        outputs, _ = self.lstm(x)
        return outputs

class Decoder(nn.Cell):
    def __init__(self, hp):
        super().__init__()
        self.n_mel_channels = hp.n_mel_channels
        self.n_frames_per_step = hp.n_frames_per_step
        self.encoder_embedding_dim = hp.encoder_embedding_dim
        self.attention_rnn_dim = hp.attention_rnn_dim
        self.decoder_rnn_dim = hp.decoder_rnn_dim
        self.max_decoder_steps = hp.max_decoder_steps
        self.gate_threshold = hp.gate_threshold
        self.p_attention_dropout = hp.p_attention_dropout
        self.p_decoder_dropout = hp.p_decoder_dropout
        self.prenet = Prenet(hp.n_mel_channels * hp.n_frames_per_step, [hp.prenet_dim, hp.prenet_dim],
                             hp.prenet_dropout)
        self.attention_rnn = nn.LSTMCell(hp.prenet_dim + hp.encoder_embedding_dim, hp.attention_rnn_dim)
        self.attention_layer = Attention(hp.attention_rnn_dim, hp.encoder_embedding_dim, hp.attention_dim,
                                         hp.attention_location_n_filters, hp.attention_location_kernel_size)
        self.decoder_rnn = nn.LSTMCell(hp.attention_rnn_dim + hp.encoder_embedding_dim, hp.decoder_rnn_dim)
        self.linear_projection = LinearNorm(hp.decoder_rnn_dim + hp.encoder_embedding_dim,
                                            hp.n_mel_channels * hp.n_frames_per_step)
        self.gate_layer = LinearNorm(hp.decoder_rnn_dim + hp.encoder_embedding_dim, 1, bias=True)

    def get_go_frame(self, memory):
        B = memory.shape[0]
        decoder_input = memory.new_zeros((B, self.n_mel_channels * self.n_frames_per_step))
        return decoder_input

    def initialize_decoder_states(self, memory, mask):
        B, MAX_TIME = memory.shape[0], memory.shape[1]
        self.attention_hidden = memory.new_zeros((B, self.attention_rnn_dim))
        self.attention_cell = memory.new_zeros((B, self.attention_rnn_dim))
        self.decoder_hidden = memory.new_zeros((B, self.decoder_rnn_dim))
        self.decoder_cell = memory.new_zeros((B, self.decoder_rnn_dim))
        self.attention_weights = memory.new_zeros((B, MAX_TIME))
        self.attention_weights_cum = memory.new_zeros((B, MAX_TIME))
        self.attention_context = memory.new_zeros((B, self.encoder_embedding_dim))
        self.memory = memory
        self.processed_memory = self.attention_layer.memory_layer(memory)
        self.mask = mask

    def parse_decoder_inputs(self, decoder_inputs):
        # (B, n_mel_channels, T_out) -> (B, T_out, n_mel_channels) -> (T_out, B, n_mel_channels)
        decoder_inputs = decoder_inputs.transpose(1, 2)
        decoder_inputs = decoder_inputs.view(decoder_inputs.shape[0],
                                             int(decoder_inputs.shape[1] / self.n_frames_per_step), -1)
        decoder_inputs = decoder_inputs.transpose(0, 1)
        return decoder_inputs

    def parse_decoder_outputs(self, mel_outputs, gate_outputs, alignments):
        alignments = ops.stack(alignments).transpose(0, 1)
        gate_outputs = ops.stack(gate_outputs).transpose(0, 1)
        gate_outputs = gate_outputs.contiguous()
        mel_outputs = ops.stack(mel_outputs).transpose(0, 1).contiguous()
        mel_outputs = mel_outputs.view(mel_outputs.shape[0], -1, self.n_mel_channels)
        mel_outputs = mel_outputs.transpose(1, 2)
        return mel_outputs, gate_outputs, alignments

    def decode(self, decoder_input):
        cell_input = ops.cat((decoder_input, self.attention_context), -1)
        self.attention_hidden, self.attention_cell = self.attention_rnn(
            cell_input, (self.attention_hidden, self.attention_cell))
        self.attention_hidden = ops.dropout(self.attention_hidden, self.p_attention_dropout, self.training)
        attention_weights_cat = ops.cat((self.attention_weights.unsqueeze(1),
                                         self.attention_weights_cum.unsqueeze(1)), 1)
        self.attention_context, self.attention_weights = self.attention_layer(
            self.attention_hidden, self.memory, self.processed_memory, attention_weights_cat, self.mask)
        self.attention_weights_cum += self.attention_weights
        decoder_input = ops.cat((self.attention_hidden, self.attention_context), -1)
        self.decoder_hidden, self.decoder_cell = self.decoder_rnn(
            decoder_input, (self.decoder_hidden, self.decoder_cell))
        self.decoder_hidden = ops.dropout(self.decoder_hidden, self.p_decoder_dropout, self.training)
        decoder_hidden_attention_context = ops.cat((self.decoder_hidden, self.attention_context), 1)
        decoder_output = self.linear_projection(decoder_hidden_attention_context)
        gate_prediction = self.gate_layer(decoder_hidden_attention_context)
        return decoder_output, gate_prediction, self.attention_weights

    def construct(self, memory, decoder_inputs, memory_lengths):
        decoder_input = self.get_go_frame(memory).unsqueeze(0)
        decoder_inputs = self.parse_decoder_inputs(decoder_inputs)
        decoder_inputs = ops.cat((decoder_input, decoder_inputs), 0)
        decoder_inputs = self.prenet(decoder_inputs)
        self.initialize_decoder_states(memory, mask=~get_mask_from_lengths(memory_lengths))
        mel_outputs, gate_outputs, alignments = [], [], []
        while len(mel_outputs) < decoder_inputs.shape[0] - 1:
            decoder_input = decoder_inputs[len(mel_outputs)]
            mel_output, gate_output, attention_weights = self.decode(decoder_input)
            mel_outputs += [mel_output.squeeze(1)]
            gate_outputs += [gate_output.squeeze(1)]
            alignments += [attention_weights]
        return self.parse_decoder_outputs(mel_outputs, gate_outputs, alignments)

    def inference(self, memory):
        decoder_input = self.get_go_frame(memory)
        self.initialize_decoder_states(memory, mask=None)
        mel_outputs, gate_outputs, alignments = [], [], []
        while True:
            decoder_input = self.prenet(decoder_input)
            mel_output, gate_output, alignment = self.decode(decoder_input)
            mel_outputs += [mel_output.squeeze(1)]
            gate_outputs += [gate_output]
            alignments += [alignment]
            if ops.sigmoid(gate_output) > self.gate_threshold:
                break
            elif len(mel_outputs) == self.max_decoder_steps:
                print("Warning! Reached max decoder steps")
                break
            decoder_input = mel_output
        return self.parse_decoder_outputs(mel_outputs, gate_outputs, alignments)

class Tacotron2(nn.Cell):
    def __init__(self, hp):
        super().__init__()
        self.mask_padding = hp.mask_padding
        self.n_mel_channels = hp.n_mel_channels
        self.n_frames_per_step = hp.n_frames_per_step
        self.embedding = nn.Embedding(hp.n_symbols, hp.symbols_embedding_dim)
        std = sqrt(2.0 / (hp.n_symbols + hp.symbols_embedding_dim))
        val = sqrt(3.0) * std  # uniform bounds for std
        self.embedding.embedding_table.set_data(Tensor(
            np.random.uniform(-val, val, (hp.n_symbols, hp.symbols_embedding_dim)).astype(np.float32)))
        self.encoder = Encoder(hp)
        self.decoder = Decoder(hp)
        self.postnet = Postnet(hp)

    def parse_batch(self, batch):
        text_padded, input_lengths, mel_padded, gate_padded, output_lengths = batch
        text_padded = text_padded.long()
        input_lengths = input_lengths.long()
        max_len = ops.max(input_lengths)[0].item()
        return ((text_padded, input_lengths, mel_padded.float(), max_len, output_lengths.long()),
                (mel_padded.float(), gate_padded.float()))

    def parse_output(self, outputs, output_lengths=None):
        if self.mask_padding and output_lengths is not None:
            mask = ~get_mask_from_lengths(output_lengths)
            mask = mask.expand(self.n_mel_channels, mask.shape[0], mask.shape[1])
            mask = mask.permute(1, 0, 2)
            outputs[0][mask] = 0.0
            outputs[1][mask] = 0.0
            outputs[2][mask[:, 0, :]] = 1e3  # gate energies
        return outputs

    def construct(self, inputs):
        text_inputs, text_lengths, mels, max_len, output_lengths = inputs
        embedded_inputs = self.embedding(text_inputs).transpose(1, 2)
        encoder_outputs = self.encoder(embedded_inputs, text_lengths)
        mel_outputs, gate_outputs, alignments = self.decoder(encoder_outputs, mels, memory_lengths=text_lengths)
        mel_outputs_postnet = self.postnet(mel_outputs)
        mel_outputs_postnet = mel_outputs + mel_outputs_postnet
        return self.parse_output([mel_outputs, mel_outputs_postnet, gate_outputs, alignments], output_lengths)

    def inference(self, inputs):
        embedded_inputs = self.embedding(inputs).transpose(1, 2)
        encoder_outputs = self.encoder.inference(embedded_inputs)
        mel_outputs, gate_outputs, alignments = self.decoder.inference(encoder_outputs)
        mel_outputs_postnet = self.postnet(mel_outputs)
        mel_outputs_postnet = mel_outputs + mel_outputs_postnet
        return self.parse_output([mel_outputs, mel_outputs_postnet, gate_outputs, alignments])

def make_batch(seed=0, hp=HParams()):
    rng = np.random.RandomState(seed)
    text_lengths, output_lengths = np.array([7, 5], np.int32), np.array([6, 4], np.int32)
    text, mels, gates = np.zeros((2, 7), np.int32), np.zeros((2, hp.n_mel_channels, 6), np.float32), np.zeros((2, 6), np.float32)
    for b in range(2):
        text[b, :text_lengths[b]] = rng.randint(1, hp.n_symbols, text_lengths[b])
        mels[b, :, :output_lengths[b]] = rng.randn(hp.n_mel_channels, output_lengths[b])
        gates[b, output_lengths[b] - 1:] = 1.0
    return tuple(Tensor(a) for a in (text, text_lengths, mels, gates, output_lengths))

if __name__ == "__main__":
    np.random.seed(1)
    ms.set_seed(1)
    model = Tacotron2(HParams())
    model.set_train(False)
    x, y = model.parse_batch(make_batch(0))
    mel, mel_post, gate, align = model(x)
    print("forward:", mel.shape, mel_post.shape, gate.shape, align.shape)
    print("mel_post sum %.6f  gate[:, -1] %s" % (float(mel_post.sum()), gate[:, -1]))
    text = Tensor(np.array([[3, 7, 1, 12, 5]], np.int32))
    mel, mel_post, gate, align = model.inference(text)
    print("inference: %d frames" % mel.shape[2], mel_post.shape, "gate", ops.sigmoid(gate).view(-1))
    print("mel_post sum %.6f" % float(mel_post.sum()))
