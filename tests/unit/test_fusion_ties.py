from __future__ import annotations

import numpy as np

from lectern.index.fusion import cosine_similarities, cut_inside_ties, rrf_fuse, tied_at_nth_or_better


def test_a_page_cut_inside_ties_asks_for_more() -> None:
    assert cut_inside_ties([0.9, 0.5, 0.5], 2, asked=3)  # the third ties with the second
    assert not cut_inside_ties([0.9, 0.5, 0.4], 2, asked=3)  # the third scores below
    assert not cut_inside_ties([0.5, 0.5, 0.5], 2, asked=4)  # fewer than asked: every row came
    assert not cut_inside_ties([0.5, 0.5], 0, asked=1)


def test_every_score_tied_with_the_nth_is_kept() -> None:
    scores = np.array([0.2, 0.7, 0.5, 0.5, 0.1, 0.5], dtype=np.float32)
    assert tied_at_nth_or_better(scores, 2).tolist() == [False, True, True, True, False, True]


def _rrf_by_the_formula(rankings: list[list[str]], k: int) -> list[tuple[str, float]]:
    scores: dict[str, float] = {}
    for ranking in rankings:
        for rank, key in enumerate(ranking, start=1):
            scores[key] = scores.get(key, 0.0) + 1.0 / (k + rank)
    return sorted(scores.items(), key=lambda item: item[1], reverse=True)


def test_rrf_fuse_sums_one_over_k_plus_rank_in_order_of_first_sight() -> None:
    rng = np.random.default_rng(7)
    for _ in range(300):
        rankings = [
            [f"c{int(i)}" for i in rng.integers(0, 50, int(rng.integers(0, 90)))]
            for _ in range(rng.integers(0, 4))
        ]
        if rng.random() < 0.5:  # most rankings name each key once
            rankings = [list(dict.fromkeys(r)) for r in rankings]
        for k in (1, 60):
            assert rrf_fuse(rankings, k) == _rrf_by_the_formula(rankings, k)


def test_cosine_similarities_clip_as_np_clip() -> None:
    rng = np.random.default_rng(3)
    matrix = rng.standard_normal((12, 8)).astype(np.float32)
    matrix[3] = 0.0  # a zero row: similarity 0
    query = rng.standard_normal(8).astype(np.float32)
    matrix[4] = query * 2  # the query's own direction: at or just past 1 before the clip
    matrix[5] = -query  # opposite: below 0 before the clip
    norms = np.linalg.norm(matrix, axis=1)
    norms[norms == 0] = 1.0
    raw = (matrix @ (query / np.sqrt(query.dot(query)))) / norms
    assert cosine_similarities(query, matrix) == np.clip(raw, 0.0, 1.0).tolist()
    nan = np.full((1, 8), np.nan, dtype=np.float32)
    assert np.isnan(cosine_similarities(query, nan)[0])  # NaN passes through, as np.clip leaves it
