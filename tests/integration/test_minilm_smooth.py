"""The int8-smooth chunk graph's preparation (minilm_smooth): the fp32 graph it prepares computes the same
vectors, and the int8 graph quantised from it stays close to fp32 with every product 8-bit."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from lectern.embeddings import minilm_assets as assets
from lectern.embeddings import minilm_smooth
from lectern.embeddings.local import _embedding_tokenizer
from lectern.embeddings.minilm_graphs import graph_path, quantise
from lectern.embeddings.minilm_onnx import SKIP_NORM_FUSION, WORD_VECTORS

pytestmark = pytest.mark.integration

# Not the calibration texts, and no book's.
TEXTS = [
    "Hello world.",
    "",
    "How long does a kettle take to boil a litre of water?",
    "The orchestra tuned up while the audience found their seats.",
    "x = [i * i for i in range(10) if i % 2]",
    "Dans quel ordre faut-il lire ces chapitres ?",
    "Quarterly revenue grew 4% while costs stayed flat; margins widened.",
    "what is a good name for a grey cat",
]


def _vectors(graph: Any) -> np.ndarray[Any, Any]:
    import onnxruntime as ort

    source = graph if isinstance(graph, str) else graph.SerializeToString()
    session = ort.InferenceSession(
        source, providers=["CPUExecutionProvider"], disabled_optimizers=[SKIP_NORM_FUSION]
    )
    words = assets.WordRows(assets.model_dir() / "model.safetensors")
    rows = []
    for text in TEXTS:
        ids = np.asarray([_embedding_tokenizer().encode(text).ids], np.int64)
        (pooled,) = session.run(
            ["pooled"], {WORD_VECTORS: words.take(ids), "attention_mask": np.ones_like(ids)}
        )
        rows.append(pooled[0] / np.linalg.norm(pooled[0]))
    return np.stack(rows)


@pytest.fixture(scope="module")
def fp32_graph() -> Path:
    return graph_path(Path(os.environ["LECTERN_MODEL_CACHE"]), "fused", "fp32")


def test_the_prepared_fp32_graph_gives_the_same_vectors(fp32_graph: Path) -> None:
    import onnx

    prepared = minilm_smooth.prepare(onnx.load(str(fp32_graph)))
    ops = [n.op_type for n in prepared.graph.node]
    assert ops.count("Div") - [n.op_type for n in onnx.load(str(fp32_graph)).graph.node].count("Div") == 6
    np.testing.assert_allclose(_vectors(prepared), _vectors(str(fp32_graph)), atol=1e-5)


def test_smoothing_moves_the_outliers_into_the_weights(fp32_graph: Path) -> None:
    """The calibrated inputs' channels spread far less after the division than before it."""
    import onnx

    model = onnx.load(str(fp32_graph))
    peaks = minilm_smooth.calibrate(model)
    assert len(peaks) == 12  # the QKV and up products of six layers
    smoothed = minilm_smooth.smooth(model, peaks)
    inverse = {
        t.name: onnx.numpy_helper.to_array(t)
        for t in smoothed.graph.initializer
        if t.name.endswith(".smooth")
    }
    for name, peak in peaks.items():
        after = peak * inverse[name + ".smooth"]
        assert after.max() / np.median(after) < peak.max() / np.median(peak)


def test_every_product_of_the_int8_graph_is_8_bit_and_close_to_fp32(fp32_graph: Path, tmp_path: Path) -> None:
    import onnx

    target = tmp_path / "int8.onnx"
    quantise(fp32_graph, target, smooth=True)
    ops = [n.op_type for n in onnx.load(str(target), load_external_data=False).graph.node]
    assert "MatMul" not in ops
    assert ops.count("Attention") == 0
    assert ops.count("QAttention") == 6
    assert ops.count("MatMulInteger") + ops.count("DynamicQuantizeMatMul") == 18  # out, up and down, 6 layers
    cosines = (_vectors(str(target)) * _vectors(str(fp32_graph))).sum(axis=1)
    assert cosines.min() >= 0.99, cosines  # the int8 graph (down projections fp32): 0.985
