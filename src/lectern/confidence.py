"""Seed 000 ConfidenceMetrics: how well the retrieved chunks support an answer.

The rules are the seed's, verbatim; only the similarity thresholds come from settings, because every
embedding model has its own cosine scale (see docs/confidence-calibration.md for the local model's):

    avg >= high   and n >= 5  -> "high"          answer
    avg >= medium and n >= 3  -> "medium"        answer
    avg >= low    and n >= 2  -> "low"           answer with a disclaimer
    otherwise                 -> "insufficient"  refuse
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
from numpy.typing import NDArray

from lectern.embeddings.base import row_norms
from lectern.models import ConfidenceLevel, ConfidenceMetrics, Vector
from lectern.settings import Settings

HIGH_MIN_CHUNKS = 5
MEDIUM_MIN_CHUNKS = 3
LOW_MIN_CHUNKS = 2

LEVEL_ORDER: dict[ConfidenceLevel, int] = {"insufficient": 0, "low": 1, "medium": 2, "high": 3}


@dataclass(frozen=True)
class Thresholds:
    high: float
    medium: float
    low: float

    def __post_init__(self) -> None:
        if not 0.0 <= self.low <= self.medium <= self.high <= 1.0:
            raise ValueError("confidence thresholds must satisfy 0 <= low <= medium <= high <= 1")

    @classmethod
    def from_settings(cls, settings: Settings) -> Thresholds:
        return cls(settings.confidence_high, settings.confidence_medium, settings.confidence_low)


def classify(average: float, num_chunks: int, t: Thresholds) -> ConfidenceLevel:
    """The seed's level table."""
    if average >= t.high and num_chunks >= HIGH_MIN_CHUNKS:
        return "high"
    if average >= t.medium and num_chunks >= MEDIUM_MIN_CHUNKS:
        return "medium"
    if average >= t.low and num_chunks >= LOW_MIN_CHUNKS:
        return "low"
    return "insufficient"


def has_sufficient_context(average: float, num_chunks: int, t: Thresholds) -> bool:
    """Seed 000 RetrievalResult rule (avg >= 0.75 and >= 3 chunks), with the calibrated medium threshold."""
    return average >= t.medium and num_chunks >= MEDIUM_MIN_CHUNKS


def chunk_diversity(vectors: NDArray[np.float32] | Sequence[Vector] | None) -> float:
    """1 - mean pairwise cosine similarity of the chunk embeddings; 0.0 with fewer than two."""
    if vectors is None:
        return 0.0
    matrix = np.asarray(vectors, dtype=np.float32)
    if matrix.ndim != 2 or matrix.shape[0] < 2:
        return 0.0
    norms = row_norms(matrix, keepdims=True)
    norms[norms == 0] = 1.0
    unit = matrix / norms
    sims = unit @ unit.T
    n = matrix.shape[0]
    mean_pairwise = (float(sims.sum()) - float(np.trace(sims))) / (n * (n - 1))
    return float(min(1.0, max(0.0, 1.0 - mean_pairwise)))


def assess(
    similarities: Sequence[float],
    thresholds: Thresholds,
    vectors: NDArray[np.float32] | Sequence[Vector] | None = None,
) -> ConfidenceMetrics:
    """The metrics of one retrieval: `similarities` are the dense cosines of the chunks that passed."""
    n = len(similarities)
    if n == 0:
        return no_context()
    clipped = [min(1.0, max(0.0, float(s))) for s in similarities]
    average = sum(clipped) / n
    # Rounding noise must not break min <= avg <= max.
    low, high = min(clipped), max(clipped)
    average = min(high, max(low, average))
    level = classify(average, n, thresholds)
    return ConfidenceMetrics(
        average_similarity=average,
        min_similarity=low,
        max_similarity=high,
        num_chunks=n,
        chunk_diversity=chunk_diversity(vectors),
        confidence_level=level,
        should_answer=level != "insufficient",
    )


def no_context() -> ConfidenceMetrics:
    """Nothing was retrieved: insufficient, refuse."""
    return ConfidenceMetrics(
        average_similarity=0.0,
        min_similarity=0.0,
        max_similarity=0.0,
        num_chunks=0,
        chunk_diversity=0.0,
        confidence_level="insufficient",
        should_answer=False,
    )


def refused(metrics: ConfidenceMetrics) -> ConfidenceMetrics:
    """The same measurements with the decision turned to a refusal (a guardrail overruled them)."""
    return metrics.model_copy(update={"confidence_level": "insufficient", "should_answer": False})


def better(a: ConfidenceMetrics, b: ConfidenceMetrics) -> bool:
    """Whether `a` supports an answer better than `b`: higher level first, then higher average."""
    key_a = (LEVEL_ORDER[a.confidence_level], a.average_similarity)
    key_b = (LEVEL_ORDER[b.confidence_level], b.average_similarity)
    return key_a > key_b
