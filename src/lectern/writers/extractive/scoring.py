"""What lifts or holds back a scored unit: its shape, the cue its question's kind calls for, and the
reserve's units kept just behind the sources' best.
"""

from __future__ import annotations

from functools import lru_cache

from lectern.writers.extractive.candidates import _Candidate
from lectern.writers.question_kind import QuestionKind, has_cue
from lectern.writers.units import Unit

# A sentence with the cue its question's kind calls for ("because" for why, a number for how long, a
# fix for a problem; `question_kind.py`) gets this lift.
CUE_BONUS = 0.06
# The retrieval's reserve (the hits ranked just below the sources, `RetrievalResult.reserve`) is quoted
# from too: a list item or a sentence there often holds a keyword the top passages miss. Measured with
# bench/reserve_study.py (answers with every keyword, tune 75.8 -> 76.9 %, train 81.6 -> 82.2 %; the
# top passages scored as without the reserve, its units at rank prior 0, its code left out, and never
# leading the answer: each of those rules cost answers when left out). `ExtractiveWriter.quotes_reserve`
# switches it.
RESERVE_GAP = 1e-6


def _behind_sources(candidates: list[_Candidate], sources: int) -> None:
    """A reserve unit (source number past `sources`) never leads the answer: its score stays just
    under the sources' best unit's, so it is quoted beside what the sources say, never instead."""
    best = max((c.score for c in candidates if c.source <= sources), default=None)
    if best is None:
        return
    for c in candidates:
        if c.source > sources and c.score >= best:
            c.score = best - RESERVE_GAP


def _favour_cues(candidates: list[_Candidate], kind: QuestionKind) -> None:
    """Lift the sentences that have the shape the question's kind calls for (`question_kind.has_cue`)."""
    for c in candidates:
        if _has_cue(c.unit.text, kind):
            c.score += CUE_BONUS


# `has_cue` by sentence and kind: passages, and so their sentences, recur across answers (~40 sentences
# an answer, a regular expression each); ~100 bytes an entry beside the texts the units cache keeps.
_has_cue = lru_cache(maxsize=32_768)(has_cue)


def _shape(unit: Unit) -> float:
    """Prefer complete, mid-length sentences over fragments and run-ons, and a chunk's opening units."""
    if unit.lead_in:
        return 0.3
    base = 1.0 if 8 <= unit.words <= 40 else 0.6 if unit.words >= 5 else 0.3
    return base if unit.position < 3 else 0.8 * base
