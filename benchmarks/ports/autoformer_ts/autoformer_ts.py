"""Autoformer (thuml/Autoformer) ported to MindSpore 2.10: decomposition + Auto-Correlation forecaster."""
import math
from dataclasses import dataclass

import numpy as np
import mindspore as ms
from mindspore import Tensor, mint, nn, ops

ms.set_context(mode=ms.PYNATIVE_MODE)

@dataclass
class Config:
    enc_in: int = 3
    dec_in: int = 3
    c_out: int = 3
    seq_len: int = 24
    label_len: int = 12
    pred_len: int = 6
    d_model: int = 16
    n_heads: int = 2
    e_layers: int = 2
    d_layers: int = 1
    d_ff: int = 32
    moving_avg: int = 5
    factor: int = 1
    dropout: float = 0.0
    mark_dim: int = 4
    output_attention: bool = False

class StandardScaler:
    """Informer's scaler: NumPy statistics, works on arrays and on tensors."""

    def __init__(self):
        self.mean = 0.
        self.std = 1.

    def fit(self, data):
        self.mean = data.mean(0)
        self.std = data.std(0)

    def transform(self, data):
        mean = Tensor.from_numpy(self.mean).astype(data.dtype) if isinstance(data, Tensor) else self.mean
        std = Tensor.from_numpy(self.std).astype(data.dtype) if isinstance(data, Tensor) else self.std
        return (data - mean) / std

    def inverse_transform(self, data):
        mean = Tensor.from_numpy(self.mean).astype(data.dtype) if isinstance(data, Tensor) else self.mean
        std = Tensor.from_numpy(self.std).astype(data.dtype) if isinstance(data, Tensor) else self.std
        if data.shape[-1] != mean.shape[-1]:
            mean = mean[-1:]
            std = std[-1:]
        return (data * std) + mean

def time_features(hours):
    """freq='h' features (HourOfDay, DayOfWeek, DayOfMonth, DayOfYear) scaled to [-0.5, 0.5]."""
    hour = hours % 24
    day = hours // 24
    feats = [hour / 23.0 - 0.5, (day % 7) / 6.0 - 0.5, (day % 30) / 29.0 - 0.5, (day % 365) / 364.0 - 0.5]
    return np.stack(feats, axis=-1).astype(np.float32)

class MovingAvg(nn.Cell):
    def __init__(self, kernel_size, stride):
        super().__init__()
        self.kernel_size = kernel_size
        self.avg = nn.AvgPool1d(kernel_size=kernel_size, stride=stride)

    def construct(self, x):
        # padding on the both ends of time series
        front = x[:, 0:1, :].tile(1, (self.kernel_size - 1) // 2, 1)
        end = x[:, -1:, :].tile(1, (self.kernel_size - 1) // 2, 1)
        x = ops.cat([front, x, end], axis=1)
        x = self.avg(x.permute(0, 2, 1))
        return x.permute(0, 2, 1)

class SeriesDecomp(nn.Cell):
    def __init__(self, kernel_size):
        super().__init__()
        self.moving_avg = MovingAvg(kernel_size, stride=1)

    def construct(self, x):
        moving_mean = self.moving_avg(x)
        res = x - moving_mean
        return res, moving_mean

def roll(x, shift, dim=-1):
    """torch.roll along the last dim (Roll has no CPU kernel)."""
    n = x.shape[dim]
    shift = shift % n
    if shift == 0:
        return x
    return ops.cat([x[..., n - shift:], x[..., :n - shift]], axis=dim)

class AutoCorrelation(nn.Cell):
    def __init__(self, factor=1, output_attention=False):
        super().__init__()
        self.factor = factor
        self.output_attention = output_attention

    def time_delay_agg_training(self, values, corr):
        head, channel, length = values.shape[1], values.shape[2], values.shape[3]
        top_k = int(self.factor * math.log(length))
        mean_value = corr.mean(dim=1).mean(dim=1)
        index = ops.topk(mean_value.mean(dim=0), top_k, dim=-1)[1]
        weights = ops.stack([mean_value[:, index[i]] for i in range(top_k)], axis=-1)
        tmp_corr = ops.softmax(weights, axis=-1)
        delays_agg = ops.zeros_like(values).float()
        for i in range(top_k):
            pattern = roll(values, -index[i].item(), -1)
            delays_agg = delays_agg + pattern * tmp_corr[:, i].unsqueeze(1).unsqueeze(1).unsqueeze(1).tile(
                1, head, channel, length)
        return delays_agg

    def time_delay_agg_inference(self, values, corr):
        batch, head, channel, length = values.shape
        init_index = ops.arange(length).unsqueeze(0).unsqueeze(0).unsqueeze(0).tile(batch, head, channel, 1)
        top_k = int(self.factor * math.log(length))
        mean_value = corr.mean(dim=1).mean(dim=1)
        weights, delay = ops.topk(mean_value, top_k, dim=-1)
        tmp_corr = ops.softmax(weights, axis=-1)
        tmp_values = values.tile(1, 1, 1, 2)
        delays_agg = ops.zeros_like(values).float()
        for i in range(top_k):
            tmp_delay = init_index + delay[:, i].unsqueeze(1).unsqueeze(1).unsqueeze(1).tile(1, head, channel, length)
            pattern = mint.gather(tmp_values, -1, tmp_delay)
            delays_agg = delays_agg + pattern * tmp_corr[:, i].unsqueeze(1).unsqueeze(1).unsqueeze(1).tile(
                1, head, channel, length)
        return delays_agg

    def construct(self, queries, keys, values, attn_mask=None):
        B, L, H, E = queries.shape
        _, S, _, D = values.shape
        if L > S:
            zeros = ops.zeros_like(queries[:, :(L - S), :]).float()
            values = ops.cat([values, zeros], axis=1)
            keys = ops.cat([keys, zeros], axis=1)
        else:
            values = values[:, :L, :, :]
            keys = keys[:, :L, :, :]
        # period-based dependencies
        q_fft = ops.rfft(queries.permute(0, 2, 3, 1).contiguous(), dim=-1)
        k_fft = ops.rfft(keys.permute(0, 2, 3, 1).contiguous(), dim=-1)
        res = q_fft * ops.conj(k_fft)
        corr = ops.irfft(res, n=L, dim=-1)
        # time delay aggregation
        if self.training:
            V = self.time_delay_agg_training(values.permute(0, 2, 3, 1).contiguous(), corr).permute(0, 3, 1, 2)
        else:
            V = self.time_delay_agg_inference(values.permute(0, 2, 3, 1).contiguous(), corr).permute(0, 3, 1, 2)
        if self.output_attention:
            return V.contiguous(), corr.permute(0, 3, 1, 2)
        return V.contiguous(), None

class AutoCorrelationLayer(nn.Cell):
    def __init__(self, correlation, d_model, n_heads):
        super().__init__()
        d_keys = d_model // n_heads
        self.inner_correlation = correlation
        self.query_projection = mint.nn.Linear(d_model, d_keys * n_heads)
        self.key_projection = mint.nn.Linear(d_model, d_keys * n_heads)
        self.value_projection = mint.nn.Linear(d_model, d_keys * n_heads)
        self.out_projection = mint.nn.Linear(d_keys * n_heads, d_model)
        self.n_heads = n_heads

    def construct(self, queries, keys, values, attn_mask=None):
        B, L, _ = queries.shape
        _, S, _ = keys.shape
        H = self.n_heads
        queries = self.query_projection(queries).view(B, L, H, -1)
        keys = self.key_projection(keys).view(B, S, H, -1)
        values = self.value_projection(values).view(B, S, H, -1)
        out, attn = self.inner_correlation(queries, keys, values, attn_mask)
        out = out.view(B, L, -1)
        return self.out_projection(out), attn

class MyLayernorm(nn.Cell):
    """Special designed layernorm for the seasonal part."""

    def __init__(self, channels):
        super().__init__()
        self.layernorm = nn.LayerNorm((channels,))

    def construct(self, x):
        x_hat = self.layernorm(x)
        bias = x_hat.mean(dim=1).unsqueeze(1).tile(1, x.shape[1], 1)
        return x_hat - bias

class CircularConv1d(nn.Cell):
    """nn.Conv1d(..., padding=1, padding_mode='circular') of the original."""

    def __init__(self, c_in, c_out, kernel_size=3, has_bias=False):
        super().__init__()
        self.pad = (kernel_size - 1) // 2
        self.conv = nn.Conv1d(c_in, c_out, kernel_size, pad_mode='valid', has_bias=has_bias)

    def construct(self, x):
        return self.conv(ops.pad(x, (self.pad, self.pad), mode='circular'))

class EncoderLayer(nn.Cell):
    def __init__(self, attention, d_model, d_ff, moving_avg, dropout):
        super().__init__()
        self.attention = attention
        self.conv1 = nn.Conv1d(d_model, d_ff, 1, has_bias=False)
        self.conv2 = nn.Conv1d(d_ff, d_model, 1, has_bias=False)
        self.decomp1 = SeriesDecomp(moving_avg)
        self.decomp2 = SeriesDecomp(moving_avg)
        self.dropout = mint.nn.Dropout(dropout)

    def construct(self, x, attn_mask=None):
        new_x, attn = self.attention(x, x, x, attn_mask=attn_mask)
        x = x + self.dropout(new_x)
        x, _ = self.decomp1(x)
        y = self.dropout(ops.relu(self.conv1(x.transpose(-1, 1))))
        y = self.dropout(self.conv2(y).transpose(-1, 1))
        res, _ = self.decomp2(x + y)
        return res, attn

class Encoder(nn.Cell):
    def __init__(self, attn_layers, norm_layer=None):
        super().__init__()
        self.attn_layers = nn.CellList(attn_layers)
        self.norm = norm_layer

    def construct(self, x, attn_mask=None):
        attns = []
        for attn_layer in self.attn_layers:
            x, attn = attn_layer(x, attn_mask=attn_mask)
            attns.append(attn)
        if self.norm is not None:
            x = self.norm(x)
        return x, attns

class DecoderLayer(nn.Cell):
    def __init__(self, self_attention, cross_attention, d_model, c_out, d_ff, moving_avg, dropout):
        super().__init__()
        self.self_attention = self_attention
        self.cross_attention = cross_attention
        self.conv1 = nn.Conv1d(d_model, d_ff, 1, has_bias=False)
        self.conv2 = nn.Conv1d(d_ff, d_model, 1, has_bias=False)
        self.decomp1 = SeriesDecomp(moving_avg)
        self.decomp2 = SeriesDecomp(moving_avg)
        self.decomp3 = SeriesDecomp(moving_avg)
        self.dropout = mint.nn.Dropout(dropout)
        self.projection = CircularConv1d(d_model, c_out, 3)

    def construct(self, x, cross, x_mask=None, cross_mask=None):
        x = x + self.dropout(self.self_attention(x, x, x, attn_mask=x_mask)[0])
        x, trend1 = self.decomp1(x)
        x = x + self.dropout(self.cross_attention(x, cross, cross, attn_mask=cross_mask)[0])
        x, trend2 = self.decomp2(x)
        y = self.dropout(ops.relu(self.conv1(x.transpose(-1, 1))))
        y = self.dropout(self.conv2(y).transpose(-1, 1))
        x, trend3 = self.decomp3(x + y)
        residual_trend = trend1 + trend2 + trend3
        residual_trend = self.projection(residual_trend.permute(0, 2, 1)).transpose(1, 2)
        return x, residual_trend

class Decoder(nn.Cell):
    def __init__(self, layers, norm_layer=None, projection=None):
        super().__init__()
        self.layers = nn.CellList(layers)
        self.norm = norm_layer
        self.projection = projection

    def construct(self, x, cross, x_mask=None, cross_mask=None, trend=None):
        for layer in self.layers:
            x, residual_trend = layer(x, cross, x_mask=x_mask, cross_mask=cross_mask)
            trend = trend + residual_trend
        if self.norm is not None:
            x = self.norm(x)
        if self.projection is not None:
            x = self.projection(x)
        return x, trend

class PositionalEmbedding(nn.Cell):
    def __init__(self, d_model, max_len=5000):
        super().__init__()
        pe = ops.zeros((max_len, d_model), ms.float32)
        position = ops.arange(0, max_len).float().unsqueeze(1)
        div_term = (ops.arange(0, d_model, 2).float() * -(math.log(10000.0) / d_model)).exp()
        pe[:, 0::2] = ops.sin(position * div_term)
        pe[:, 1::2] = ops.cos(position * div_term)
        self.pe = pe.unsqueeze(0)  # buffer

    def construct(self, x):
        return self.pe[:, :x.shape[1]]

class DataEmbedding(nn.Cell):
    def __init__(self, c_in, d_model, mark_dim, dropout=0.1):
        super().__init__()
        self.value_embedding = CircularConv1d(c_in, d_model, 3)
        self.position_embedding = PositionalEmbedding(d_model)
        self.temporal_embedding = mint.nn.Linear(mark_dim, d_model, bias=False)  # TimeFeatureEmbedding
        self.dropout = mint.nn.Dropout(dropout)

    def construct(self, x, x_mark):
        x = self.value_embedding(x.permute(0, 2, 1)).transpose(1, 2)
        x = x + self.temporal_embedding(x_mark) + self.position_embedding(x)
        return self.dropout(x)

class Autoformer(nn.Cell):
    def __init__(self, cfg: Config):
        super().__init__()
        self.seq_len, self.label_len, self.pred_len = cfg.seq_len, cfg.label_len, cfg.pred_len
        self.output_attention = cfg.output_attention
        self.decomp = SeriesDecomp(cfg.moving_avg)
        self.enc_embedding = DataEmbedding(cfg.enc_in, cfg.d_model, cfg.mark_dim, cfg.dropout)
        self.dec_embedding = DataEmbedding(cfg.dec_in, cfg.d_model, cfg.mark_dim, cfg.dropout)

        def corr_layer():
            return AutoCorrelationLayer(AutoCorrelation(cfg.factor, cfg.output_attention), cfg.d_model, cfg.n_heads)
        self.encoder = Encoder([EncoderLayer(corr_layer(), cfg.d_model, cfg.d_ff, cfg.moving_avg, cfg.dropout)
                                for _ in range(cfg.e_layers)], norm_layer=MyLayernorm(cfg.d_model))
        self.decoder = Decoder([DecoderLayer(corr_layer(), corr_layer(), cfg.d_model, cfg.c_out, cfg.d_ff,
                                             cfg.moving_avg, cfg.dropout) for _ in range(cfg.d_layers)],
                               norm_layer=MyLayernorm(cfg.d_model),
                               projection=mint.nn.Linear(cfg.d_model, cfg.c_out, bias=True))

    def construct(self, x_enc, x_mark_enc, x_dec, x_mark_dec):
        # decomp init
        mean = x_enc.mean(dim=1).unsqueeze(1).tile(1, self.pred_len, 1)
        zeros = ops.zeros([x_dec.shape[0], self.pred_len, x_dec.shape[2]], ms.float32)
        seasonal_init, trend_init = self.decomp(x_enc)
        trend_init = ops.cat([trend_init[:, -self.label_len:, :], mean], axis=1)
        seasonal_init = ops.cat([seasonal_init[:, -self.label_len:, :], zeros], axis=1)
        enc_out = self.enc_embedding(x_enc, x_mark_enc)
        enc_out, attns = self.encoder(enc_out)
        dec_out = self.dec_embedding(seasonal_init, x_mark_dec)
        seasonal_part, trend_part = self.decoder(dec_out, enc_out, trend=trend_init)
        dec_out = trend_part + seasonal_part
        if self.output_attention:
            return dec_out[:, -self.pred_len:, :], attns
        return dec_out[:, -self.pred_len:, :]

class Forecaster(nn.Cell):
    """Rolling forecast over a horizon longer than pred_len, back in the data's units."""

    def __init__(self, model, scaler, cfg: Config):
        super().__init__()
        self.model = model
        self.scaler = scaler
        self.label_len, self.pred_len = cfg.label_len, cfg.pred_len

    def construct(self, x_enc, x_mark_enc, future_marks, horizon):
        n_windows = math.ceil(horizon / self.pred_len)
        preds = []
        for w in range(n_windows):
            x_dec = ops.cat([x_enc[:, -self.label_len:, :], ops.zeros_like(x_enc[:, :self.pred_len, :])], axis=1)
            next_marks = future_marks[:, w * self.pred_len:(w + 1) * self.pred_len, :]
            x_mark_dec = ops.cat([x_mark_enc[:, -self.label_len:, :], next_marks], axis=1)
            out = self.model(x_enc, x_mark_enc, x_dec, x_mark_dec)
            preds.append(out)
            x_enc = ops.cat([x_enc[:, self.pred_len:, :], out], axis=1)
            x_mark_enc = ops.cat([x_mark_enc[:, self.pred_len:, :], next_marks], axis=1)
        pred = ops.cat(preds, axis=1)[:, :horizon]
        return {"pred": self.scaler.inverse_transform(pred), "pred_scaled": pred}

def make_data(cfg, batch=2, horizon=12, seed=0):
    rng = np.random.RandomState(seed)
    total = 200
    t = np.arange(total, dtype=np.float32)
    raw = np.stack([10 + 3 * np.sin(2 * np.pi * t / 24), 5 + np.cos(2 * np.pi * t / 12) + 0.05 * t,
                    20 + 2 * np.sin(2 * np.pi * t / 7)], axis=-1) + rng.randn(total, 3) * 0.3
    scaler = StandardScaler()
    scaler.fit(raw[:150])
    data = scaler.transform(raw).astype(np.float32)
    marks = time_features(t.astype(np.int64))
    starts = [40, 100][:batch]
    x_enc = np.stack([data[s:s + cfg.seq_len] for s in starts])
    x_mark = np.stack([marks[s:s + cfg.seq_len] for s in starts])
    fut = np.stack([marks[s + cfg.seq_len:s + cfg.seq_len + horizon] for s in starts])
    y = np.stack([data[s + cfg.seq_len:s + cfg.seq_len + cfg.pred_len] for s in starts])
    return scaler, Tensor(x_enc), Tensor(x_mark), Tensor(fut), Tensor(y)

def main():
    ms.set_seed(0)
    np.random.seed(0)
    cfg = Config()
    model = Autoformer(cfg)
    scaler, x_enc, x_mark, fut, y = make_data(cfg)
    # one training-mode forward (top-k delays shared over the batch, rolled)
    model.set_train(True)
    x_dec = ops.cat([x_enc[:, -cfg.label_len:, :], ops.zeros_like(y)], axis=1)
    x_mark_dec = ops.cat([x_mark[:, -cfg.label_len:, :], fut[:, :cfg.pred_len, :]], axis=1)
    train_out = model(x_enc, x_mark, x_dec, x_mark_dec)
    loss = ((train_out - y) ** 2).mean()
    print("train-mode loss:", loss.item())
    model.set_train(False)
    forecaster = Forecaster(model, scaler, cfg)
    out = forecaster(x_enc, x_mark, fut, 10)
    print("pred_scaled[0, :, 0]:", out["pred_scaled"][0, :, 0])
    print("pred[1, -1]:", out["pred"][1, -1])
    return train_out, out

if __name__ == "__main__":
    main()
