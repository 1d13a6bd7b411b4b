"""Candidates: every unit of the retrieved passages (sentence, list item, table row, code block)
with its keyword scores and rank prior, and its stored vector where there is one.
"""

from __future__ import annotations

import logging
import math
import re
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass
from functools import lru_cache
from itertools import chain
from typing import TYPE_CHECKING

import numpy as np
from numpy.typing import NDArray

from lectern.content_kind import ContentKind, kind_of
from lectern.models import SearchHit
from lectern.writers.units import Unit, passage_terms, stem_terms, with_parts

if TYPE_CHECKING:
    from lectern.sentences import SentenceVectors


log = logging.getLogger(__name__)

# A sentence that announces what a chapter will teach or has taught ("In this chapter, you will learn to
# ...", "By the end of this module you will be able to:"): it names topics, it explains none.
_AIMS = re.compile(
    r"^(?:in\s+this\s+(?:chapter|module|section|lesson|unit|part),?\s+(?:you|we)\b|"
    r"by\s+the\s+end\b|this\s+(?:chapter|module|section|lesson)\s+(?:covers|introduces|"
    r"teaches|will)\b|you\s+(?:will|'ll)\s+(?:learn|be\s+able)\b)",
    re.IGNORECASE,
)


# eq=False: a candidate is one unit of one source, so identity is its equality, and `in`, `remove`
# and `index` over lists of them (thousands of calls an answer) need not compare field by field.
@dataclass(eq=False, slots=True)
class _Candidate:
    unit: Unit
    source: int  # 1-based source number
    hit: SearchHit
    lexical: float
    chunk: float = 0.0
    """Keyword overlap of the unit's whole chunk (heading path included)."""
    heading: float = 0.0
    """Keyword overlap of the chunk's innermost two headings."""
    rank_prior: float = 0.0
    """1 for the best-ranked source, falling towards 0 for the last."""
    score: float = 0.0
    cosine: float | None = None
    """Similarity in meaning to the query (None: the unit has no vector)."""
    vector: NDArray[np.float32] | None = None
    exposition: bool = True
    """False for quizzes, exercise prompts, objectives and summaries (quoted when nothing else is left)."""


def _by_source(candidates: Sequence[_Candidate]) -> dict[int, list[_Candidate]]:
    """The candidates source by source, each source's in their order: one pass for the look-ups of a
    source's units that would otherwise each go over every candidate."""
    grouped: dict[int, list[_Candidate]] = {}
    for c in candidates:
        found = grouped.get(c.source)
        if found is None:
            grouped[c.source] = [c]
        else:
            found.append(c)
    return grouped


def _attach_vectors(
    candidates: list[_Candidate],
    sources: Sequence[SearchHit],
    sentences: SentenceVectors,
    query_vector: NDArray[np.float32],
) -> None:
    """Each candidate's stored sentence vector (row `position` of its chunk's unit matrix) and its cosine
    to the question."""
    try:
        stored = sentences.of([hit.chunk for hit in sources])
    except Exception:  # ranking by meaning is an improvement, never a reason to fail an answer
        log.warning("sentence_vectors_unavailable", exc_info=True)
        return
    for c in candidates:
        _, matrix = stored[c.source - 1]
        if c.unit.position >= matrix.shape[0]:
            continue
        # A code block's row is zero when nothing says in words what it does: it has no vector.
        if c.unit.kind == "sentence" or matrix[c.unit.position].any():
            c.vector = matrix[c.unit.position]
            c.cosine = float(c.vector.dot(query_vector))  # `_similarity`: dot, not @


def _shared(per_source: Sequence[Sequence[Unit]], query_terms: frozenset[str]) -> list[list[frozenset[str]]]:
    """Each unit's terms that are the query's, source by source."""
    return [[unit.terms & query_terms for unit in units] for units in per_source]


def _idf(shared: Sequence[Sequence[frozenset[str]]], query_terms: frozenset[str]) -> dict[str, float]:
    """IDF over the units at hand (each one's query terms, `_shared`): a term every sentence has says
    little about which one answers."""
    # counted in C (`Counter` over the units' terms end to end), not a dict update a term in Python
    df = Counter(chain.from_iterable(chain.from_iterable(shared)))
    total = sum(map(len, shared))
    return {t: math.log(1.0 + (total + 1) / (1 + df[t])) for t in query_terms}


def _unit_candidates(
    hits: Sequence[SearchHit],
    per_hit: Sequence[Sequence[Unit]],
    shared_per_hit: Sequence[Sequence[frozenset[str]]],
    first: int,
    idf: dict[str, float],
    query_terms: frozenset[str],
    asked: frozenset[ContentKind] = frozenset(),
    *,
    ranked: bool,
) -> tuple[list[_Candidate], list[_Candidate]]:
    """The units of `hits` (source numbers from `first`) scored by words (`shared_per_hit`: each unit's
    query terms); `ranked`: with a rank prior (1 for the first hit, falling towards 0), else none."""
    norm = sum(idf.values()) or 1.0
    weight = idf.__getitem__  # summed over `map`, not a generator: ~30 sums an answer
    sentences: list[_Candidate] = []
    codes: list[_Candidate] = []
    for offset, (hit, units, shared_units) in enumerate(zip(hits, per_hit, shared_per_hit, strict=True)):
        # A chunk whose heading names the question ("Error: Model explodes in Gazebo") answers it even
        # when its sentences ("Cause: unrealistic inertia") share no word with the question.
        chunk_terms = passage_terms(hit.chunk.search_text) & query_terms
        chunk_score = sum(map(weight, chunk_terms)) / norm
        # The innermost headings name what the section answers; the chapter title is everyone's.
        heading_terms = _inner_heading_terms(tuple(hit.chunk.heading_hierarchy[-2:])) & query_terms
        heading_score = sum(map(weight, heading_terms)) / norm
        rank_prior = 1.0 - offset / len(hits) if ranked else 0.0
        kind = kind_of(hit.chunk)
        exposition = kind == "prose" or kind in asked
        # "what are the learning objectives?" wants the list a sentence announcing the aims leads
        announced_exposition = exposition and "overview" in asked
        announced = False  # inside a list led by a sentence that announces the chapter's aims
        source = first + offset
        for unit, shared in zip(units, shared_units, strict=True):
            if not unit.bullet:
                announced = _announces(unit.text)
            # most units share no word: no generator for them
            overlap = sum(map(weight, shared)) / norm if shared else 0.0
            candidate = _Candidate(
                unit,
                source,
                hit,
                overlap,
                chunk_score,
                heading_score,
                rank_prior,
                exposition=announced_exposition if announced else exposition,
            )
            (codes if unit.kind == "code" else sentences).append(candidate)
    return sentences, codes


@lru_cache(maxsize=4096)
def _inner_heading_terms(headings: tuple[str, ...]) -> frozenset[str]:
    """The terms of a chunk's innermost headings and of their hyphenated words' parts. Cached by the
    headings: every answer asks it of each passage it reads, and passages share their headings."""
    return with_parts(stem_terms(" ".join(headings)))


@lru_cache(maxsize=32_768)
def _announces(text: str) -> bool:
    """Whether a unit announces a chapter's aims (`_AIMS`). Cached by text, as `_has_cue`: every unit
    of an answer's ~10 passages is asked each time a passage comes back (~10 searches an answer)."""
    return _AIMS.search(text) is not None
