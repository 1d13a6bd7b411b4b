"""`vector_norm` and `row_norms` give np.linalg.norm's very bits (its arithmetic without its argument
handling): search scores and diversities computed with them must not move."""

from __future__ import annotations

import numpy as np

from lectern.embeddings.base import l2_normalise, row_norms, vector_norm


def test_the_same_bits_as_numpys_norm() -> None:
    rng = np.random.default_rng(11)
    for dim in (3, 48, 384, 385):
        for rows in (1, 2, 10, 37):
            matrix = (rng.standard_normal((rows, dim)) * rng.uniform(0.01, 100)).astype(np.float32)
            matrix[0, : dim // 2] = 0.0
            assert np.array_equal(row_norms(matrix), np.linalg.norm(matrix, axis=1))
            kept = row_norms(matrix, keepdims=True)
            assert kept.shape == (rows, 1)
            assert np.array_equal(kept, np.linalg.norm(matrix, axis=-1, keepdims=True))
            for vector in (matrix[-1], matrix[:, 0].copy()):
                assert vector_norm(vector) == float(np.linalg.norm(vector))


def test_l2_normalise_leaves_a_zero_row_zero() -> None:
    matrix = np.array([[3.0, 4.0], [0.0, 0.0]], dtype=np.float32)
    assert l2_normalise(matrix).tolist() == [[0.6000000238418579, 0.800000011920929], [0.0, 0.0]]
