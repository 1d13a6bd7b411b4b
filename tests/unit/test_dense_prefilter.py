"""The int8 first pass of the in-memory dense search leaves its ranking and scores exactly as they were."""

from __future__ import annotations

import numpy as np
import pyarrow as pa
import pytest

from lectern.index.dense_prefilter import MIN_ROWS, prefilter_for
from lectern.index.lancedb_snapshot import TableSnapshot, _scores


def _snapshot(matrix: np.ndarray) -> TableSnapshot:
    norms = np.linalg.norm(matrix, axis=1)
    hashes = [f"h{(i * 7919) % len(matrix):06d}" for i in range(len(matrix))]  # tie order unlike row order
    return TableSnapshot(
        version=1,
        rows=pa.table({"content_hash": hashes}),
        hashes=hashes,
        row_ids=np.arange(len(matrix), dtype=np.uint64),
        matrix=matrix,
        inverse_norms=np.divide(1.0, norms, out=np.zeros_like(norms), where=norms > 0),
        searchable=np.flatnonzero(norms > 0),
        positions={h: i for i, h in enumerate(hashes)},
    )


def _matrix(rows: int, seed: int) -> np.ndarray:
    """Clustered rows, not unit length, with exact duplicates (ties) and a zero row."""
    rng = np.random.default_rng(seed)
    centres = rng.standard_normal((20, 48)).astype(np.float32)
    matrix = centres[rng.integers(0, 20, rows)] + 0.3 * rng.standard_normal((rows, 48)).astype(np.float32)
    matrix *= rng.uniform(0.5, 2.0, (rows, 1)).astype(np.float32)
    matrix[rows // 2 : rows // 2 + 40] = matrix[7]  # forty rows tied with row 7
    matrix[3] = 0.0
    return matrix


@pytest.mark.parametrize("seed", [0, 1])
def test_the_same_hits_and_scores_as_the_whole_product(seed: int) -> None:
    snapshot = _snapshot(_matrix(MIN_ROWS + 500, seed))
    assert snapshot.prefilter is not None
    exact = _snapshot(snapshot.matrix)
    exact.__dict__["prefilter"] = None  # the cached property, set: the float32 product over every row
    rng = np.random.default_rng(seed + 10)
    queries = [snapshot.matrix[7], snapshot.matrix[100], *rng.standard_normal((30, 48)).astype(np.float32)]
    allowed = np.sort(rng.choice(snapshot.searchable, MIN_ROWS + 100, replace=False))
    for query in queries:
        query = (query / np.linalg.norm(query)).astype(np.float32)
        for n in (1, 5, 40, 60):
            assert snapshot.top(query, n) == exact.top(query, n)
            assert snapshot.top(query, n, allowed) == exact.top(query, n, allowed)


def test_candidates_hold_every_row_at_the_nth_place_or_better() -> None:
    snapshot = _snapshot(_matrix(MIN_ROWS, 3))
    matrix, rows, prefilter = snapshot.matrix, snapshot.searchable, snapshot.prefilter
    assert prefilter is not None
    query = (matrix[7] / np.linalg.norm(matrix[7])).astype(np.float32)
    scores = (np.einsum("ij,j->i", matrix, query) * snapshot.inverse_norms)[rows]
    kept = prefilter.candidates(query, rows, 10)
    nth = np.sort(scores)[-10]
    assert set(rows[scores >= nth]) <= set(kept)
    assert len(kept) < len(rows) // 4  # and a first pass that leaves most rows out


def test_a_rows_product_does_not_depend_on_the_other_rows() -> None:
    rng = np.random.default_rng(5)
    matrix = rng.standard_normal((3000, 384)).astype(np.float32)
    query = rng.standard_normal(384).astype(np.float32)
    whole = np.einsum("ij,j->i", matrix, query)
    for size in (1, 2, 3, 17, 64, 65, 300):
        rows = np.sort(rng.choice(3000, size, replace=False))
        assert np.array_equal(np.einsum("ij,j->i", matrix[rows], query), whole[rows])
        assert np.array_equal(_scores(matrix, rows, query), whole[rows])  # gathered a few rows at a time


def test_small_matrices_have_no_first_pass() -> None:
    matrix = np.ones((MIN_ROWS - 1, 4), dtype=np.float32)
    assert prefilter_for(matrix, np.ones(MIN_ROWS - 1, dtype=np.float32)) is None


def test_no_first_pass_over_a_matrix_with_a_row_not_finite() -> None:
    matrix = _matrix(MIN_ROWS, 4)
    matrix[10, 3] = np.nan
    assert prefilter_for(matrix, np.ones(MIN_ROWS, dtype=np.float32)) is None
