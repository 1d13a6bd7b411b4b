"""Scoring helpers shared by the index engines: candidate depth, reciprocal rank fusion and the
dense cosine similarity that every hit carries whatever the search mode."""

from __future__ import annotations

from collections.abc import Hashable, Iterable, Sequence
from operator import itemgetter
from typing import Any, TypeVar

import numpy as np
from numpy.typing import NDArray

from lectern.embeddings.base import row_norms, vector_norm

K = TypeVar("K", bound=Hashable)
C = TypeVar("C", bound=tuple[Any, ...])

# Each side of a hybrid search fetches this many candidates at least, so fusion has something to fuse
# even for top_k=1; a chunk found by both sides then rises above one found by either alone.
MIN_CANDIDATES = 40
CANDIDATES_PER_RESULT = 4


def candidate_depth(top_k: int) -> int:
    return max(top_k * CANDIDATES_PER_RESULT, MIN_CANDIDATES)


def best_first(candidates: Iterable[C]) -> list[C]:
    """Candidates (key first, score last: a content hash and its score) best first, equal scores in
    key order: the one order of every side of every engine's search, before it is cut to its depth
    or fused (pgvector's keyword SQL says the same: ``ORDER BY score DESC, content_hash``).

    Without it, rows with equal scores came in whatever order served the search: LanceDB's FTS index
    orders them by its search internals, the in-memory keyword index (built in the background, so
    serving from some moment on) in table order. A tie's order is a rank, and a rank is an RRF
    score: one 3-turn follow-up's answer changed between runs of the same bench. The content hash
    is the key every engine and path knows, and it does not change with the table's layout (row ids
    and table order do, on compaction). The in-memory paths (`KeywordIndex.top`, `TableSnapshot.top`)
    rank in this order by themselves."""
    return sorted(candidates, key=_best_first)


def _best_first(candidate: tuple[Any, ...]) -> tuple[float, Any]:
    return -candidate[-1], candidate[0]


def tied_at_nth_or_better(scores: NDArray[np.float32], n: int) -> NDArray[np.bool_]:
    """Where `scores` reach the n-th best (0 < n < len(scores)): every score tied with the n-th too,
    so that ordering these by `best_first`'s rule and cutting to n keeps the first n of the whole
    ranking, not whichever of its ties a partition happened to leave."""
    kept: NDArray[np.bool_] = scores >= np.partition(scores, len(scores) - n)[len(scores) - n]
    return kept


def cut_inside_ties(scores: Sequence[float], n: int, asked: int) -> bool:
    """Whether a search asked for `asked` (> n) rows, in any order, was cut inside the ties at the n-th
    place: it returned all it was asked for and the last of them ties with the n-th, so the engine
    chose which of the tied rows to return; ask for more."""
    if n <= 0 or len(scores) < asked:
        return False
    ranked = sorted(scores, reverse=True)
    return bool(ranked[-1] >= ranked[n - 1])


def rrf_fuse(rankings: Sequence[Sequence[K]], k: int) -> list[tuple[K, float]]:
    """Reciprocal rank fusion: score(d) = sum over rankings of 1 / (k + rank), rank starting at 1.

    Ties keep the order of first appearance (dense side first): with each ranking in `best_first`
    order, the fused order is the same whichever path served each side.
    """
    weights = _reciprocals(k, max((len(r) for r in rankings), default=0))
    scores: dict[K, float] = {}
    rest = rankings
    if rankings:
        # the first ranking's keys as they come (0.0 + w is w): one dict build, not a lookup and a
        # store per key; a ranking naming a key twice sums it, as below
        scores = dict(zip(rankings[0], weights, strict=False))
        if len(scores) == len(rankings[0]):
            rest = rankings[1:]
        else:
            scores = {}
    for ranking in rest:
        get = scores.get
        for key, weight in zip(ranking, weights, strict=False):
            scores[key] = get(key, 0.0) + weight
    # sorted() is stable and dicts keep insertion order, hence first appearance breaks ties
    return sorted(scores.items(), key=_SCORE, reverse=True)


def _reciprocals(k: int, n: int) -> list[float]:
    """1 / (k + rank) for ranks 1..n (at least), worked out once per k: the same floats each time."""
    held = _RECIPROCALS.get(k)
    if held is None or len(held) < n:
        held = [1.0 / (k + rank) for rank in range(1, max(n, 64) + 1)]
        _RECIPROCALS[k] = held
    return held


_RECIPROCALS: dict[int, list[float]] = {}


_SCORE = itemgetter(1)


def unit(vector: NDArray[np.float32]) -> NDArray[np.float32]:
    """The vector scaled to length 1 (a zero vector stays zero)."""
    v = np.asarray(vector, dtype=np.float32).reshape(-1)
    norm = vector_norm(v)
    return v / norm if norm > 0 else v


def stack(vectors: Sequence[Sequence[float] | NDArray[np.float32]]) -> NDArray[np.float32]:
    """Rows as a float32 matrix; an empty list gives an empty matrix."""
    if not vectors:
        return np.zeros((0, 0), dtype=np.float32)
    return np.asarray(vectors, dtype=np.float32)


def cosine_similarities(query: NDArray[np.float32] | None, vectors: NDArray[np.float32]) -> list[float]:
    """Cosine similarity of each row with the query, clipped to [0, 1]; zeros without a query.

    Computed from the stored vectors rather than taken from the engine's distance, so it is exact
    even when an ANN index quantises vectors, and present for hits only the keyword side found.
    """
    if query is None or len(vectors) == 0:
        return [0.0] * len(vectors)
    matrix = np.asarray(vectors, dtype=np.float32)
    norms = row_norms(matrix)
    norms[norms == 0] = 1.0
    sims = (matrix @ unit(query)) / norms
    # clipped to [0, 1] as `np.clip` does it (NaN kept), without its argument handling (~4 us a search)
    clipped: list[float] = np.minimum(np.maximum(sims, 0.0), 1.0).tolist()  # Python floats, as float()
    return clipped
