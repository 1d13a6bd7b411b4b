"""The snapshot's vector matrix, copied a chunk at a time, is the vectors as read, in row order."""

from __future__ import annotations

import numpy as np
import pyarrow as pa

from lectern.index.lancedb_snapshot import _matrix


def _vectors(values: np.ndarray, dim: int) -> pa.FixedSizeListArray:
    return pa.FixedSizeListArray.from_arrays(pa.array(values.ravel()), dim)


def test_chunks_end_to_end_in_row_order() -> None:
    first = np.arange(12, dtype=np.float32).reshape(4, 3)
    second = -np.arange(6, dtype=np.float32).reshape(2, 3)
    column = pa.chunked_array([_vectors(first, 3), _vectors(second, 3)])
    matrix = _matrix(column)
    assert matrix.dtype == np.float32
    assert matrix.flags.c_contiguous
    assert np.array_equal(matrix, np.vstack([first, second]))


def test_a_sliced_column_starts_at_its_offset() -> None:
    rows = np.arange(18, dtype=np.float32).reshape(6, 3)
    column = pa.chunked_array([_vectors(rows, 3)]).slice(2, 3)
    assert np.array_equal(_matrix(column), rows[2:5])


def test_no_rows() -> None:
    column = pa.chunked_array([], type=pa.list_(pa.float32(), 3))
    assert _matrix(column).shape == (0, 3)
