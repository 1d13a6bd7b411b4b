"""onnxruntime's per-channel weight quantisation, one array operation per weight instead of per channel.

`quantize_dynamic` quantises a weight's output channels one at a time in Python (`quantize_data` on
each of a MiniLM graph's 18,432 channels): most of the int8 graph's build. `vectorised` swaps in the
same arithmetic over whole arrays for the case the int8 recipe uses (8-bit weights, no per-channel
overrides, no minimum range) and leaves any other call to onnxruntime. Every step is the one
onnxruntime takes on each channel (float32 extremes widened to include 0, the range and scale in
float64, the scale stored as float32, the division, round-half-even, clip and cast), so the
quantised weights, scales and zero points are the same numbers; the graph's bytes are identical
(tests/integration/test_weight_quant.py builds it both ways).
"""

from __future__ import annotations

import threading
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

import numpy as np

_lock = threading.Lock()  # the swap is on onnxruntime's class: one quantisation at a time


@contextmanager
def vectorised() -> Iterator[None]:
    """Within the block, onnxruntime's per-channel weight quantisation runs over whole arrays."""
    from onnxruntime.quantization.base_quantizer import BaseQuantizer

    with _lock:
        original = BaseQuantizer.quantize_weight_per_channel_impl

        def fast(
            self: Any,
            weight_name: str,
            q_type: int,
            channel_axis: int,
            reduce_range: bool = True,
            keep_float_weight: bool = False,
        ) -> Any:
            done = _quantise(self, weight_name, q_type, channel_axis, reduce_range, keep_float_weight)
            if done is None:
                return original(self, weight_name, q_type, channel_axis, reduce_range, keep_float_weight)
            return done

        BaseQuantizer.quantize_weight_per_channel_impl = fast
        try:
            yield
        finally:
            BaseQuantizer.quantize_weight_per_channel_impl = original


def _quantise(
    quantizer: Any, name: str, q_type: int, axis: int, reduce_range: bool, keep_float_weight: bool
) -> tuple[str, str, str] | None:
    """onnxruntime's `quantize_weight_per_channel_impl` for 8-bit weights without overrides; None
    for any other case (onnxruntime's own code then runs)."""
    import onnx
    from onnx import TensorProto, numpy_helper
    from onnxruntime.quantization.quant_utils import (
        TENSOR_NAME_QUANT_SUFFIX,
        find_by_name,
        get_qmin_qmax_for_qType,
        normalize_axis,
        tensor_proto_to_array,
    )

    if q_type not in (TensorProto.INT8, TensorProto.UINT8) or keep_float_weight:
        return None
    if quantizer.min_real_range is not None or quantizer.tensor_quant_overrides.get(name):
        return None
    initializer = find_by_name(name, quantizer.model.initializer())
    if initializer is None or initializer.data_type != TensorProto.FLOAT:
        return None
    weights = tensor_proto_to_array(initializer)
    valid, axis = normalize_axis(axis, weights.ndim)
    if not valid or weights.dtype != np.float32:
        return None
    symmetric = bool(quantizer.is_weight_symmetric(q_type))
    reduce_range = bool(quantizer.reduce_range and reduce_range)
    qmin, qmax = get_qmin_qmax_for_qType(q_type, reduce_range, symmetric=symmetric)
    low, high = get_qmin_qmax_for_qType(q_type, reduce_range=False, symmetric=False)  # the clip's range
    rows = np.moveaxis(weights, axis, 0).reshape(weights.shape[axis], -1)  # one row a channel
    # compute_scale_zp, channel by channel in onnxruntime
    rmin = np.minimum(rows.min(axis=1), np.float32(0))
    rmax = np.maximum(rows.max(axis=1), np.float32(0))
    if symmetric:
        absmax = np.maximum(np.abs(rmin), np.abs(rmax))
        rmin, rmax = -absmax, absmax
    scale64 = (rmax.astype(np.float64) - rmin.astype(np.float64)) / (np.float64(qmax) - np.float64(qmin))
    flat = scale64 < np.finfo(np.float32).tiny
    if symmetric:
        zero_point = np.full(rows.shape[0], np.round((qmin + qmax) / np.float64(2.0)), dtype=qmin.dtype)
    else:
        with np.errstate(divide="ignore", invalid="ignore"):
            zero_point = np.round(qmin - rmin / np.where(flat, 1.0, scale64)).astype(qmin.dtype)
    scale = scale64.astype(np.float32)
    scale[flat] = 1.0
    zero_point[flat] = 0
    # quantize_nparray
    quantised = (rows / scale[:, None]).round() + zero_point[:, None]
    np.clip(quantised, low, high, out=quantised)
    shape = [weights.shape[axis], *(d for i, d in enumerate(weights.shape) if i != axis)]
    q_weights = np.moveaxis(quantised.astype(qmin.dtype).reshape(shape), 0, axis)

    q_name, zp_name, scale_name = name + TENSOR_NAME_QUANT_SUFFIX, name + "_zero_point", name + "_scale"
    dims = [initializer.dims[axis]]
    quantizer.model.initializer_extend(
        [
            onnx.helper.make_tensor(scale_name, initializer.data_type, dims, scale.tolist()),
            onnx.helper.make_tensor(zp_name, q_type, dims, zero_point.tolist()),
        ]
    )
    np_type = onnx.helper.tensor_dtype_to_np_dtype(q_type)
    q_weights = np.asarray(q_weights, dtype=np_type).reshape(initializer.dims)
    quantizer.model.initializer_extend([numpy_helper.from_array(q_weights, q_name)])
    return q_name, zp_name, scale_name
