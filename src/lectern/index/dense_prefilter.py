"""A cheap first pass over a large in-memory matrix: int8 scores with a proven error bound.

The exact dense search reads every float32 vector on each query (15.6 MB at 10k rows of 384: ~0.8 ms
of memory-bound CPU). An int8 copy of the unit rows is a quarter of that, and onnxruntime's
MatMulInteger multiplies it by an int8 query in ~0.3 ms. The int8 scores are only used to choose the
rows worth scoring exactly: every row whose int8 score is within twice the bound of the n-th best is
scored again in float32, by the same product on just those rows, and the search ranks those exact
scores as before. Since no row's exact score is further than the bound from its int8 score, every row
scoring at the n-th place or better (ties included) is among them: the ranking and its scores are the
exact search's, bit for bit (the product of a row does not depend on the other rows it is computed
with; tests/unit/test_dense_prefilter.py checks both).

The bound, for the unit row u (the stored row r times its float32 inverse norm, exactly, in float64)
and the query q with their int8 copies û, q̂ (each a scale times small integers, multiplied exactly):
|q.u - q̂.û| <= |q - q̂| |u| + |q̂| |u - û|, and float32's sum of 384 products is within
384 eps / (1 - 384 eps) |q| |u| of q.u (any order of summation, fused or not). The int8 scores are
worked out in float32 (an exact integer times two float32 scales: two roundings), and the bound takes
those roundings in too, each term of it with room to spare.
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np
from numpy.typing import NDArray

# Rows from which the first pass pays: below this the float32 product is small enough (1k rows ~0.1 ms)
MIN_ROWS = 4096
_ROW_LEVELS = 127  # a row's values as -127..127 times its scale
# The query's as -63..63 stored with 64 added (uint8 1..127): x86's u8 x s8 kernels without VNNI sum
# pairs of products in saturating int16, which 127 * 127 * 2 = 32258 never reaches.
_QUERY_LEVELS = 63
_QUERY_ZERO = 64
_BLOCK = 256  # rows converted at a time while quantising (float64 temporaries stay small)
_EPS32 = float(np.finfo(np.float32).eps) / 2  # float32's unit roundoff


class Int8Prefilter:
    """The int8 copy of a matrix's unit rows and the session that scores a query against it."""

    def __init__(self, matrix: NDArray[np.float32], inverse_norms: NDArray[np.float32]) -> None:
        rows, dim = matrix.shape
        levels = np.empty((dim, rows), dtype=np.int8)  # transposed, as the product takes them
        self.scales = np.empty(rows, dtype=np.float32)  # float32 values, û = levels * scale exactly
        unit_norm, error = 0.0, 0.0
        for at in range(0, rows, _BLOCK):
            unit = matrix[at : at + _BLOCK].astype(np.float64) * inverse_norms[at : at + _BLOCK, None]
            peak = np.abs(unit).max(axis=1)
            scale = np.where(peak > 0, peak / _ROW_LEVELS, 1.0).astype(np.float32).astype(np.float64)
            quantised = np.clip(np.rint(unit / scale[:, None]), -_ROW_LEVELS, _ROW_LEVELS)
            levels[:, at : at + _BLOCK] = quantised.T
            self.scales[at : at + _BLOCK] = scale
            unit_norm = max(unit_norm, float(np.sqrt((unit * unit).sum(axis=1)).max(initial=0.0)))
            unit -= quantised * scale[:, None]  # now the rows' residuals
            error = max(error, float(np.sqrt((unit * unit).sum(axis=1)).max(initial=0.0)))
        self.unit_norm, self.error = unit_norm, error  # the largest |u| and |u - û| of any row
        self._fp32 = dim * _EPS32 / (1 - dim * _EPS32)  # float32's relative error in a sum of dim products
        self._session = _session([levels])
        # `_session` took the only reference: the levels are freed once in the graph (the peak: ~4 copies)

    def candidates(self, query: NDArray[np.float32], rows: NDArray[np.intp], n: int) -> NDArray[np.intp]:
        """The `rows` (ascending) that may score at the n-th place among them or better (0 < n <
        len(rows)), in ascending order: a superset of them, usually a few dozen more."""
        exact = query.astype(np.float64)
        peak = float(np.abs(exact).max())
        scale = float(np.float32(peak / _QUERY_LEVELS)) if peak > 0 else 1.0
        # as np.clip, without its Python-level argument handling (~4 us a search)
        levels = np.minimum(np.maximum(np.rint(exact / scale), -_QUERY_LEVELS), _QUERY_LEVELS)
        q_norm = float(np.sqrt(exact @ exact))
        q_hat_norm = float(np.sqrt(levels @ levels)) * scale
        bound = (
            float(np.sqrt(((exact - levels * scale) ** 2).sum())) * self.unit_norm
            + q_hat_norm * self.error
            + 4 * self._fp32 * q_norm * self.unit_norm  # the float32 scores' own rounding, 4x over
            # the int8 scores' two float32 products below (exact integers times the scales), 4x over
            + 8 * _EPS32 * q_hat_norm * (self.unit_norm + self.error)
            + 1e-6  # and the float64 arithmetic here
        )
        if not math.isfinite(bound):
            return rows  # every row, scored exactly
        feed = (levels + _QUERY_ZERO).astype(np.uint8)[None]
        (products,) = self._session.run(None, {"q": feed})
        # In float32, in place: few temporaries (each block under the server heap's own-mapping size,
        # and freed blocks at the heap's top are handed back and faulted in again at the next call).
        every = len(rows) == len(self.scales)  # rows is every row (in order): no gathers of 10k values
        approx = products[0].astype(np.float32) if every else products[0][rows].astype(np.float32)
        approx *= self.scales if every else self.scales[rows]  # |products| < 2**24: exact in float32
        approx *= np.float32(scale)
        nth = float(np.partition(approx, len(approx) - n)[len(approx) - n])
        floor = nth - 2 * bound
        limit = np.float32(floor)
        if float(limit) > floor:  # rounded up to float32: one step down, never a candidate less
            limit = np.nextafter(limit, np.float32(-np.inf))
        near = np.flatnonzero(approx >= limit)
        kept: NDArray[np.intp] = near if every else rows[near]
        return kept


def prefilter_for(matrix: NDArray[np.float32], inverse_norms: NDArray[np.float32]) -> Int8Prefilter | None:
    """The first pass for a matrix this large, or None (small, or onnxruntime cannot run it)."""
    if len(matrix) < MIN_ROWS:
        return None
    if not (math.isfinite(float(matrix.max())) and math.isfinite(float(matrix.min()))):
        return None  # a NaN or an infinity (max and min pass both on) would void any bound
    try:
        return Int8Prefilter(matrix, inverse_norms)
    except Exception:  # onnxruntime raises its own untyped errors; the exact product still serves
        return None


def _session(held: list[NDArray[np.int8]]) -> Any:
    """MatMulInteger of a [1, dim] uint8 query (zero point 64) by the [dim, rows] int8 levels (the one
    item of `held`, taken out: each copy on the way is let go as soon as the next is made): the integer
    products, exact in int32 (dim * 63 * 127 is far below 2**31)."""
    import onnxruntime as ort
    from onnx import TensorProto, helper, numpy_helper

    levels = held.pop()
    dim, rows = levels.shape
    initializer = numpy_helper.from_array(levels, "levels")
    del levels
    graph = helper.make_graph(
        [helper.make_node("MatMulInteger", ["q", "levels", "zero"], ["products"])],
        "int8-prefilter",
        [helper.make_tensor_value_info("q", TensorProto.UINT8, [1, dim])],
        [helper.make_tensor_value_info("products", TensorProto.INT32, [1, rows])],
        [initializer, numpy_helper.from_array(np.array(_QUERY_ZERO, dtype=np.uint8), "zero")],
    )
    del initializer
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)], ir_version=8)
    del graph
    serialised = model.SerializeToString()
    del model
    opts = ort.SessionOptions()
    opts.intra_op_num_threads = 1  # one query's product: a second thread only waits for a core
    opts.inter_op_num_threads = 1
    opts.add_session_config_entry("session.intra_op.allow_spinning", "0")
    opts.log_severity_level = 3
    return ort.InferenceSession(serialised, opts, providers=["CPUExecutionProvider"])
