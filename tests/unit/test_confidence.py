"""Seed 000 ConfidenceMetrics: the level table at its boundaries, diversity, and the invariants."""

from __future__ import annotations

import math

import numpy as np
import pytest

from lectern.confidence import (
    Thresholds,
    assess,
    better,
    chunk_diversity,
    classify,
    has_sufficient_context,
    refused,
)

SEED = Thresholds(high=0.85, medium=0.75, low=0.60)


@pytest.mark.parametrize(
    ("average", "n", "level"),
    [
        (0.85, 5, "high"),
        (0.99, 10, "high"),
        (0.8499, 5, "medium"),  # avg just under high
        (0.85, 4, "medium"),  # too few chunks for high
        (0.75, 3, "medium"),
        (0.7499, 3, "low"),
        (0.75, 2, "low"),  # too few chunks for medium
        (0.60, 2, "low"),
        (0.5999, 2, "insufficient"),
        (0.99, 1, "insufficient"),  # one chunk is never enough
        (0.0, 0, "insufficient"),
    ],
)
def test_level_table(average: float, n: int, level: str) -> None:
    assert classify(average, n, SEED) == level


@pytest.mark.parametrize(
    ("average", "n", "expected"),
    [(0.75, 3, True), (0.7499, 3, False), (0.9, 2, False), (0.76, 10, True)],
)
def test_sufficient_context_rule(average: float, n: int, expected: bool) -> None:
    assert has_sufficient_context(average, n, SEED) is expected


def test_should_answer_follows_level() -> None:
    for sims, answer in (
        ([0.9] * 5, True),
        ([0.8] * 3, True),
        ([0.65] * 2, True),
        ([0.5] * 5, False),
        ([], False),
    ):
        metrics = assess(sims, SEED)
        assert metrics.should_answer is answer
        assert metrics.should_answer == (metrics.confidence_level != "insufficient")


def test_min_avg_max_and_count() -> None:
    metrics = assess([0.9, 0.8, 0.7], SEED)
    assert metrics.min_similarity == pytest.approx(0.7)
    assert metrics.max_similarity == pytest.approx(0.9)
    assert metrics.average_similarity == pytest.approx(0.8)
    assert metrics.num_chunks == 3
    assert metrics.min_similarity <= metrics.average_similarity <= metrics.max_similarity


def test_empty_retrieval_is_insufficient_with_zeros() -> None:
    metrics = assess([], SEED)
    assert (metrics.average_similarity, metrics.num_chunks, metrics.chunk_diversity) == (0.0, 0, 0.0)
    assert metrics.confidence_level == "insufficient"


def test_diversity_identical_orthogonal_and_single() -> None:
    v = np.array([1.0, 0.0, 0.0], dtype=np.float32)
    assert chunk_diversity(np.stack([v, v, v])) == pytest.approx(0.0, abs=1e-6)
    assert chunk_diversity(np.eye(3, dtype=np.float32)) == pytest.approx(1.0)
    assert chunk_diversity(v[None, :]) == 0.0
    assert chunk_diversity(None) == 0.0


def test_diversity_is_one_minus_mean_pairwise_cosine() -> None:
    a, b, c = [1.0, 0.0], [math.sqrt(0.5), math.sqrt(0.5)], [0.0, 1.0]
    pairwise = [a[0] * b[0] + a[1] * b[1], a[0] * c[0] + a[1] * c[1], b[0] * c[0] + b[1] * c[1]]
    assert chunk_diversity([a, b, c]) == pytest.approx(1.0 - sum(pairwise) / 3)


def test_diversity_unnormalised_vectors_use_cosine() -> None:
    assert chunk_diversity([[2.0, 0.0], [5.0, 0.0]]) == pytest.approx(0.0, abs=1e-6)


def test_assess_uses_vectors_for_diversity() -> None:
    metrics = assess([0.9, 0.9], SEED, np.eye(2, dtype=np.float32))
    assert metrics.chunk_diversity == pytest.approx(1.0)


def test_thresholds_must_be_ordered() -> None:
    with pytest.raises(ValueError, match="low <= medium <= high"):
        Thresholds(high=0.5, medium=0.6, low=0.1)


def test_refused_and_better() -> None:
    high = assess([0.9] * 5, SEED)
    low = assess([0.65] * 2, SEED)
    assert better(high, low)
    assert not better(low, high)
    assert refused(high).confidence_level == "insufficient"
    assert not refused(high).should_answer
    assert refused(high).average_similarity == high.average_similarity
