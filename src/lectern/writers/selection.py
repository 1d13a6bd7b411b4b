"""Text the user selected, as a source: it is cited like a retrieved chunk, titled "Selected text".

For a writer the engine retrieved for, the sources of a turn are the retrieval's hits, then the
selection (when there is one); `sources_of` builds that list. A writer that quotes the retrieval's
reserve numbers it after them (`quotable_of`), and the engine numbers citations from that list.
"""

from __future__ import annotations

from collections.abc import Sequence

from lectern.followups import content_words
from lectern.models import Chunk, ConfidenceMetrics, SearchHit, content_hash
from lectern.writers.base import WriteRequest

SELECTED_TITLE = "Selected text"
SELECTED_PATH = "selected-text"
MAX_USER_CONTEXT_CHARS = 10_000  # seed 002 AgentQuery.user_context
SHORT_SELECTION_WORDS = 10


def selection_hit(user_context: str, similarity: float = 1.0) -> SearchHit:
    text = user_context.strip()
    chunk = Chunk(
        text=text,
        content_hash=content_hash(text),
        chunk_index=0,
        token_count=len(text.split()),
        title=SELECTED_TITLE,
        section=SELECTED_TITLE,
        source_path=SELECTED_PATH,
    )
    return SearchHit(chunk=chunk, similarity=min(1.0, max(0.0, similarity)), score=similarity, rank=1)


def sources_of(request: WriteRequest) -> list[SearchHit]:
    hits = list(request.retrieval.hits) if request.retrieval is not None else []
    if request.user_context and request.user_context.strip():
        selected = selection_hit(request.user_context)
        if all(h.chunk.content_hash != selected.chunk.content_hash for h in hits):
            hits.append(selected)
    return hits


def reserve_of(request: WriteRequest, sources: Sequence[SearchHit] | None = None) -> list[SearchHit]:
    """The retrieval's reserve (`RetrievalResult.reserve`) less any passage already a source; none
    without a retrieved hit (an answer from the selection alone quotes the selection). `sources`: the
    request's `sources_of`, when the caller has them already."""
    if request.retrieval is None or not request.retrieval.hits:
        return []
    have = {h.chunk.content_hash for h in (sources_of(request) if sources is None else sources)}
    return [h for h in request.retrieval.reserve if h.chunk.content_hash not in have]


def quotable_of(request: WriteRequest) -> list[SearchHit]:
    """What a writer that quotes the reserve may cite, numbered: the sources (`sources_of`), then the
    reserve. An answer cites a reserve passage as `[n]` with n past the sources, and the engine maps
    its citations with this same list, so a reserve passage is listed only when it is cited."""
    sources = sources_of(request)
    return sources + reserve_of(request, sources)


def selection_coverage(question: str, user_context: str) -> float:
    """Share of the question's topic words that occur in the selection; 1.0 for a question that names
    no topic of its own ("Explain this in simpler terms")."""
    own = {w.lower() for w in content_words(question)}
    if not own:
        return 1.0
    text = user_context.lower()
    found = sum(1 for w in own if w in text or (len(w) > 4 and w[:-1] in text))
    return found / len(own)


SELECTION_RELATED = 0.5  # share of the question's topic words found in the selection


def _selection_confidence(question: str, context: str) -> ConfidenceMetrics:
    """Confidence of an answer from the user's selection: one source, scored by how much of the
    question's topic the selection contains (no embedding: the selection alone is consulted)."""
    share = selection_coverage(question, context)
    related = share >= SELECTION_RELATED
    return ConfidenceMetrics(
        average_similarity=share,
        min_similarity=share,
        max_similarity=share,
        num_chunks=1,
        chunk_diversity=0.0,
        confidence_level="medium" if related else "insufficient",
        should_answer=related,
    )
