"""How a follow-up is searched next to the previous answer: the files that answer cited favoured, a
rewrite's search re-ranked by the same words without their bracketed context, and the question asked
again with the previous topic when it is refused as asked (`lectern.engine.Engine`)."""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence

from lectern.followups import has_pronoun, with_previous_topic, without_context
from lectern.models import RetrievalResult, SearchHit
from lectern.turn import _Turn

# A follow-up is about what was just said: of the passages its search finds (this many), those from the
# files the previous answer cited move up by this much of the fused score (a place near the top is worth
# ~0.0005, so up to ~6 places). Dependent follow-ups, every answer keyword among the five passages:
# tune split 10 -> 13 of 19, train sets 39 -> 40 of 43, best passage from a relevant file unchanged;
# 0.005 and 0.008 cost cited answers on the train sets. The pool is the same on every face: a face's
# `max_top_k` bounds the top_k a client asks for, not this (capped at the chat faces' 10, /v1 and /chat
# answered follow-ups unlike the bench: bench/answer_quality.py --via both).
FOLLOWUP_POOL = 20
PREVIOUS_SOURCE_BONUS = 0.003
# Only a previous file's best passages move up (this many each): moving up all of them let one file's
# passages fill the five and push out a better-ranked passage of the file that answers ("what's that
# called?" after a question about using both hands, asked of the grasping chapter: the dexterous-
# manipulation chapter ranked first, then fell out). Tuned follow-ups, relevant file cited 420 -> 425 of
# 443, every keyword +1; 1 each: 424 (tune split one fewer), 3 each: 424, halving the bonus for each
# further passage: 425 but keywords -1. Near misses asked as follow-ups refused the same (107 of 120).
PREVIOUS_SOURCE_PASSAGES = 2
# A rewrite's bracketed context ("... use (sensor simulation)?") keeps the search on the previous topic,
# but it also pulls towards the passages the previous answer came from. The passages found are ranked by
# the mean of their score with and without the context (`with_second_search`; weight 1.0 = the plain
# mean). Follow-ups, tune split: relevant file cited 30 -> 31 of 32, every keyword 22 of 32 both ways;
# train sets: every keyword 55 -> 57 of 66 (weights 0.25, 0.5 and 2.0 gained less or lost a cited one).
# No such second search when the bare query still has a pronoun ("which tools does it suggest for looking
# into it?"): the brackets are what it stands for (dev3: relevant cited 40 -> 41 of 48, nothing else moved).
CONTEXT_FREE_WEIGHT = 1.0


def _context_free(turn: _Turn) -> str | None:
    """A rewritten follow-up's query without its bracketed context, or None when it has none or the
    bare words keep a pronoun that only the brackets say what it stands for ("which tools does it
    suggest for looking into it?")."""
    bare = without_context(turn.search_query, turn.asked)
    return None if bare == turn.search_query or has_pronoun(bare) else bare


def _favours_previous_sources(turn: _Turn) -> bool:
    """A rewritten follow-up (no selection) whose previous answer cited files: searched with a
    preference for those files."""
    rewritten = turn.search_query != turn.asked
    return bool(turn.previous_sources) and rewritten and not turn.options.user_context


def _retry_query(turn: _Turn) -> str | None:
    """The question searched again with the previous topic (`Engine._with_previous_topic`), or None
    when it is not tried again."""
    if turn.options.user_context or turn.search_query != turn.asked or not turn.previous:
        return None
    query = with_previous_topic(turn.asked, turn.previous)
    return None if query == turn.asked else query


def _judged(result: RetrievalResult, as_asked: RetrievalResult) -> RetrievalResult:
    """A search with other words, judged with the embedding of the question as asked."""
    return result.model_copy(update={"query_embedding": as_asked.query_embedding})


def with_second_search(
    hits: Sequence[SearchHit], other: Sequence[SearchHit], weight: float = CONTEXT_FREE_WEIGHT
) -> list[SearchHit]:
    """`hits` scored by the weighted mean of their score and their score in a second search for the same
    turn (its lowest where it missed them), best first. The second search only re-ranks: what it
    alone found stays out, so the passages keep the topic the first query carries."""
    second = {h.chunk.id: h.score for h in other}
    floor = min(second.values(), default=0.0)
    rescored = [
        h.model_copy(update={"score": (h.score + weight * second.get(h.chunk.id, floor)) / (1 + weight)})
        for h in hits
    ]
    return sorted(rescored, key=lambda h: -h.score)


def favour_previous_sources(
    hits: Sequence[SearchHit], previous: frozenset[str], top_k: int
) -> list[SearchHit]:
    """The best `top_k` of a follow-up's hits once the best `PREVIOUS_SOURCE_PASSAGES` of each of the
    previous answer's files are moved up by `PREVIOUS_SOURCE_BONUS`, ranked 1..k."""
    seen: Counter[str] = Counter()

    def favoured(hit: SearchHit) -> float:
        path = hit.chunk.source_path
        if path not in previous:
            return hit.score
        seen[path] += 1
        return hit.score + PREVIOUS_SOURCE_BONUS * (seen[path] <= PREVIOUS_SOURCE_PASSAGES)

    by_score = sorted(hits, key=lambda h: -h.score)
    scored = [(favoured(h), h) for h in by_score]  # in score order: a file's best passages first
    kept = [h for _, h in sorted(scored, key=lambda pair: -pair[0])]
    return [h.model_copy(update={"rank": i}) for i, h in enumerate(kept[:top_k], start=1)]
