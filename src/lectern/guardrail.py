"""What Lectern says instead of an answer, and when (seed 000 layers 2 and 3).

Layer 3, confidence filtering, is `ConfidenceMetrics.should_answer`. Layer 2 here overrules it when the
retrieved text plainly is not about the question: the question names something the retrieved chunks
never mention. With a small embedding model, "How do I simulate a robot in Webots?" scores like an
in-scope question over a robotics book (it is about simulating robots), yet no chunk says "Webots".

A distinctive term of the question (a content word that is not a how-to verb) that no retrieved chunk
contains makes the question unanswered when

- it is a *name* (an acronym, a word with digits, a capital inside the sentence: Webots, ESP32, MoveIt),
  or
- the collection does not contain it anywhere (`known(term)` is False): the documents never talk
  about quadcopters, so a quadcopter question is refused even though PID control is covered.

An ordinary word the collection does use elsewhere ("When is it *worth* creating custom messages?")
does not refuse: the chunks may say it in other words.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from functools import lru_cache

from lectern.content_kind import kind_of
from lectern.followups import ACTION_WORDS, STOP_WORDS, content_words, words
from lectern.models import ConfidenceMetrics, SearchHit
from lectern.writers.units import passage_terms, stem_terms

# The question is never echoed: it may carry Markdown, HTML or links, and a paraphrase of it reads badly.
REFUSAL = "I don't have information about that in the documents."
LOW_CONFIDENCE_DISCLAIMER = "The documents cover this only in part, so this answer may be incomplete. "
SELECTION_MISMATCH = (
    "I don't have information about that in the selected text. In selected-text-only mode I answer "
    "from the selection alone: ask about the selection, or turn that mode off to search the documents."
)
RELATED_MAX = 3  # related sections offered with a refusal
RELATED_MIN_SIMILARITY = 0.3  # below this a section is not "close" to the question
SHORT_SELECTION_NOTE = "\n\n(A longer selection would allow a more detailed answer.)"

KnownTerm = Callable[[str], bool]


def selection_mismatch(question: str) -> str:
    return SELECTION_MISMATCH


def related_sections(hits: Sequence[SearchHit], limit: int = RELATED_MAX) -> list[SearchHit]:
    """The closest sections to offer as further reading with a refusal: one per page section, close
    enough to be on the question's subject, best first."""
    seen: set[tuple[str, str]] = set()
    out: list[SearchHit] = []
    for hit in sorted(hits, key=lambda h: -h.similarity):
        if hit.similarity < RELATED_MIN_SIMILARITY or kind_of(hit.chunk) != "prose":
            continue
        key = (hit.chunk.source_path, hit.chunk.url or " > ".join(hit.chunk.heading_hierarchy))
        if key in seen:
            continue
        seen.add(key)
        out.append(hit)
        if len(out) == limit:
            break
    return out


@lru_cache(maxsize=8192)
def is_name(word: str, first: bool = False) -> bool:
    """An acronym, a versioned or code-like word, or a capitalised word inside the sentence. Cached:
    a question's words recur (each is asked about again per passage set and across questions)."""
    if any(c.isdigit() for c in word) or (len(word) > 1 and word.isupper()):
        return True
    if any(c in word for c in "_./") and len(word) > 2:
        return True  # ros_gz_bridge, cmd_vel, setup.py: code names
    if any(c.isupper() for c in word[1:]):
        return True  # MoveIt, PyBullet, micro-ROS
    return word[0].isupper() and not first


@dataclass(frozen=True)
class Coverage:
    """The question's distinctive terms, those no retrieved chunk contains, and those of them that
    make the question unanswered (see the module docstring)."""

    terms: tuple[str, ...]
    missing: tuple[str, ...]
    unknown: tuple[str, ...]

    @property
    def covered(self) -> bool:
        return not self.unknown


def distinctive_terms(query: str) -> list[tuple[str, bool]]:
    """(word, is_name) for each content word of the query that is not a how-to verb."""
    tokens = words(query)
    first = next((w for w in tokens if w.lower() not in STOP_WORDS), "")
    out: list[tuple[str, bool]] = []
    for word in content_words(query):
        if word.lower() in ACTION_WORDS or len(word) < 3:
            continue
        out.append((word, is_name(word, first=word == first)))
    return out


_NAME_VERSION = re.compile(r"^([a-z]+)[-_ ]?(\d[\w.]*)$")


def _present(word: str, present: set[str]) -> bool:
    if stem_terms(word) <= present:
        return True
    # A name and its version written apart or together: "ROS 2" / "ROS2", "GPT-4" / "GPT4".
    lower = word.lower()
    if any(term.startswith(lower) and _NAME_VERSION.match(term) for term in present):
        return True
    versioned = _NAME_VERSION.match(lower)
    if versioned and (
        {versioned.group(1), versioned.group(2)} <= present
        or versioned.group(1) + versioned.group(2) in present
    ):
        return True
    # A hyphenated ordinary word is there when its parts are ("box-shaped": box ... shaped).
    parts = [p for p in word.split("-") if p]
    return len(parts) > 1 and not is_name(word) and all(stem_terms(p) <= present for p in parts)


def coverage(query: str, hits: Sequence[SearchHit], known: KnownTerm | None = None) -> Coverage:
    terms = distinctive_terms(query)
    present: set[str] = set()
    for hit in hits:
        present |= passage_terms(hit.chunk.search_text)
    missing = [(w, name) for w, name in terms if not _present(w, present)]
    unknown = tuple(w for w, name in missing if name or (known is not None and not known(w)))
    return Coverage(tuple(w for w, _ in terms), tuple(w for w, _ in missing), unknown)


def should_refuse(confidence: ConfidenceMetrics, cover: Coverage | None = None) -> bool:
    if not confidence.should_answer:
        return True
    return cover is not None and not cover.covered
