"""BERT forward pass of all-MiniLM-L6-v2 in plain numpy, with mean pooling.

The reference backend: no extra runtime, every step visible. Weights are rearranged once at load
(transposed, Q/K/V fused into one matrix) so each layer is four matrix products.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from numpy.typing import NDArray

from lectern.embeddings.minilm_assets import BertConfig, Weights

F32 = NDArray[np.float32]
I64 = NDArray[np.int64]
_FFN_ROWS = 64


@dataclass(frozen=True)
class _Layer:
    qkv_w: F32  # (hidden, 3 * hidden)
    qkv_b: F32
    out_w: F32
    out_b: F32
    ln1_g: F32
    ln1_b: F32
    up_w: F32
    up_b: F32
    down_w: F32
    down_b: F32
    ln2_g: F32
    ln2_b: F32


def gelu(x: F32) -> F32:
    """Exact (erf) GELU as BERT uses it, not the tanh approximation.

    numpy has no erf and scipy is not a dependency, so erf comes from Abramowitz & Stegun 7.1.26
    (|error| < 1.5e-7). With y = 1 - erf(|x|/sqrt 2): gelu(x) = max(x, 0) - |x| * y / 2 for either sign.
    Written in place because these element-wise passes, not the matrix products, dominate numpy's time.
    """
    ax = np.abs(x)
    z = ax * np.float32(0.7071067811865476)
    t = z * np.float32(0.3275911)
    t += 1
    np.reciprocal(t, out=t)
    y = t * np.float32(1.061405429)
    for coef in (-1.453152027, 1.421413741, -0.284496736, 0.254829592):
        y += np.float32(coef)
        y *= t
    np.square(z, out=z)
    np.negative(z, out=z)
    np.exp(z, out=z)
    y *= z
    y *= ax
    y *= np.float32(0.5)
    out = np.maximum(x, np.float32(0))
    out -= y
    return out


def layer_norm(x: F32, gamma: F32, beta: F32, eps: float) -> F32:
    mean = x.mean(axis=-1, keepdims=True)
    centred = x - mean
    var = np.mean(centred * centred, axis=-1, keepdims=True)
    normed: F32 = (centred / np.sqrt(var + np.float32(eps)) * gamma + beta).astype(np.float32, copy=False)
    return normed


class NumpyMiniLM:
    """Token ids and attention mask in, mean-pooled (not yet normalised) sentence vectors out."""

    def __init__(self, weights: Weights, config: BertConfig) -> None:
        self.config = config
        emb = "embeddings."
        self._word = weights[emb + "word_embeddings.weight"]
        # token_type_ids are always 0 for single sentences, so that row folds into the positions.
        self._pos = (
            weights[emb + "position_embeddings.weight"] + weights[emb + "token_type_embeddings.weight"][0]
        )
        self._emb_g = weights[emb + "LayerNorm.weight"]
        self._emb_b = weights[emb + "LayerNorm.bias"]
        self._layers = [self._layer(weights, f"encoder.layer.{i}.") for i in range(config.num_layers)]

    @staticmethod
    def _layer(w: Weights, p: str) -> _Layer:
        att = p + "attention."
        qkv_w = np.concatenate([w[f"{att}self.{n}.weight"] for n in ("query", "key", "value")], axis=0)
        qkv_b = np.concatenate([w[f"{att}self.{n}.bias"] for n in ("query", "key", "value")])
        return _Layer(
            qkv_w=np.ascontiguousarray(qkv_w.T),
            qkv_b=qkv_b,
            out_w=np.ascontiguousarray(w[att + "output.dense.weight"].T),
            out_b=w[att + "output.dense.bias"],
            ln1_g=w[att + "output.LayerNorm.weight"],
            ln1_b=w[att + "output.LayerNorm.bias"],
            up_w=np.ascontiguousarray(w[p + "intermediate.dense.weight"].T),
            up_b=w[p + "intermediate.dense.bias"],
            down_w=np.ascontiguousarray(w[p + "output.dense.weight"].T),
            down_b=w[p + "output.dense.bias"],
            ln2_g=w[p + "output.LayerNorm.weight"],
            ln2_b=w[p + "output.LayerNorm.bias"],
        )

    def __call__(self, input_ids: I64, attention_mask: I64) -> F32:
        cfg = self.config
        batch, seq = input_ids.shape
        x = layer_norm(self._word[input_ids] + self._pos[:seq], self._emb_g, self._emb_b, cfg.layer_norm_eps)
        mask = attention_mask.astype(np.float32)
        # Additive mask: padded keys get a large negative score, so softmax gives them ~0 weight.
        bias = ((1.0 - mask) * np.float32(-1e9))[:, None, None, :]
        scale = np.float32(1.0 / np.sqrt(cfg.head_dim))
        for layer in self._layers:
            x = self._block(x, layer, bias, scale, batch, seq)
        summed = np.einsum("bsh,bs->bh", x, mask)
        counts = np.maximum(mask.sum(axis=1, keepdims=True), np.float32(1e-9))
        pooled: F32 = (summed / counts).astype(np.float32, copy=False)
        return pooled

    def _block(self, x: F32, layer: _Layer, bias: F32, scale: np.float32, batch: int, seq: int) -> F32:
        cfg = self.config
        heads, dim = cfg.num_heads, cfg.head_dim
        qkv = x @ layer.qkv_w + layer.qkv_b  # (b, s, 3h)
        qkv = qkv.reshape(batch, seq, 3, heads, dim).transpose(2, 0, 3, 1, 4)  # (3, b, heads, s, dim)
        q, k, v = qkv[0], qkv[1], qkv[2]
        scores = (q * scale) @ k.transpose(0, 1, 3, 2) + bias  # (b, heads, s, s)
        scores -= scores.max(axis=-1, keepdims=True)
        np.exp(scores, out=scores)
        scores /= scores.sum(axis=-1, keepdims=True)
        ctx = (scores @ v).transpose(0, 2, 1, 3).reshape(batch, seq, cfg.hidden_size)
        x = layer_norm(ctx @ layer.out_w + layer.out_b + x, layer.ln1_g, layer.ln1_b, cfg.layer_norm_eps)
        flat = x.reshape(batch * seq, cfg.hidden_size)
        out = np.empty_like(flat)
        # The feed-forward part runs in row blocks so its 4x wider activations stay in cache.
        for start in range(0, flat.shape[0], _FFN_ROWS):
            rows = flat[start : start + _FFN_ROWS]
            hidden = gelu(rows @ layer.up_w + layer.up_b)
            out[start : start + _FFN_ROWS] = layer_norm(
                hidden @ layer.down_w + layer.down_b + rows, layer.ln2_g, layer.ln2_b, cfg.layer_norm_eps
            )
        return out.reshape(batch, seq, cfg.hidden_size)
