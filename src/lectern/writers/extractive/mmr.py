"""Which units the answer quotes: maximal marginal relevance over the quotable units, within the
answer's room and above its floors, and one swap for a reserve unit nearer the question in meaning.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence

from lectern.writers.extractive.candidates import _Candidate
from lectern.writers.extractive.labels import _SOLUTION, TELLING_LEAD_IN_WORDS

# Six sentences (two list items count as one), a floor at 0.4 of the best one's score and 180 words of
# picked prose: a slightly longer answer holds the key fact more often on questions it was not tuned on.
# Replayed (bench/writer_replay.py, answered in-scope answers with every keyword; 5 sentences, floor 0.5,
# 120 words before): tune 76.9 -> 80.2 %, train 82.2 -> 83.2 %, no answer lost on either, no book worse,
# citations unchanged, mean words 150 -> 166 (tune), 147 -> 167 (train). Lengths chosen on three books and
# measured on the fourth (leave one book out) never lost an answer there either. End to end one train
# follow-up loses its keyword (its first answer now cites one more file, which moves its passages). The extra
# sentence a question that asks two things ("..., and why?") got before is now every answer's: that rule
# (`_TWO_ASKS`) changed no keyword at this length, so it is gone.
MAX_SENTENCES = 6
MAX_PROSE_WORDS = 180
MMR_LAMBDA = 0.7
# A sentence from a source the answer does not quote yet gets this lift in the selection: the sentence
# that answers a reader's question often sits in the third or fourth passage (a glossary entry, a
# troubleshooting row), and without it the answer quotes the best passage's neighbours instead.
SOURCE_DIVERSITY = 0.03
RELATIVE_FLOOR = 0.4  # a sentence scoring below this share of the best one is not worth adding
DUPLICATE = 0.88
OWN_WORDS_SHARE = 0.4  # a further sentence shares at least this much of the best one's keyword score
# ... or is at least this near the question in meaning as the best one. The best one often wins on its
# heading's or its passage's rank, not its meaning: a unit nearly as near the question (a troubleshooting
# item, the reserve's exercise step that names the format asked for) was left out at 1.0 while the
# answer stopped short (34 words). Replayed (bench/kw_in_passages_study.py): answers with every keyword
# train 83.2 -> 83.8 %, tune 80.2 % (no change), dev2 60.0 -> 63.2 %, none lost on any set or
# follow-up set; 0.8-0.9 alike on dev2, 0.7-0.8 lose train answers; mean words +1 to +3.
MEANING_SHARE = 0.85
# The reserve's units (`scoring.RESERVE_GAP`) have no rank prior, so the top passage's list siblings far
# from the question in meaning (cosine 0.0-0.2, carried by the prior) fill the answer before a reserve
# unit that answers (bench/reserve_quote_study.py: of 21 reserve units holding a missing keyword and
# passed over, 19 were nearer the question than the answer's farthest unit, 11 by 0.15 or more). One
# swap (`_meaning_swap`): the answer's unit farthest in meaning gives way to the reserve's nearest when
# that is this much nearer.
# Tuned sets end to end: in-scope answers with every keyword 411 -> 417 (+8 -2), relevant cited
# 506 -> 509, follow-ups' keywords 336 -> 335, near misses unchanged; 340 of 1354 answers change.
MEANING_SWAP = 0.15


def _meaning_swap(
    chosen: list[_Candidate],
    candidates: list[_Candidate],
    sources: int,
    quotable: Sequence[_Candidate] | None = None,
) -> list[_Candidate]:
    """The answer's unit farthest from the question in meaning gives way to the reserve's unit nearest
    it (`MEANING_SWAP`): never the lead, nor a lead-in (it brings its list or code), nor a unit that
    shares more of the question's words than the newcomer; the newcomer is at least `MEANING_SWAP`
    nearer than the unit it replaces, and as near as `MEANING_SHARE` of the lead. `quotable`: the
    candidates' `_quotable` ones, when the caller has them."""
    held = [c for c in chosen[1:] if c.cosine is not None and not c.unit.lead_in]
    if not held:
        return chosen
    weakest = min(held, key=lambda c: c.cosine or 0.0)
    quoted = set(chosen)
    swap_floor = (weakest.cosine or 0.0) + MEANING_SWAP
    lead = chosen[0].cosine
    # Only a unit past both floors can replace: one below them would leave the answer as it is, so it
    # is left out before the duplicate check (its ~50 likenesses an answer were most of this step).
    pool = [
        c
        for c in (_quotable(candidates) if quotable is None else quotable)
        if c.source > sources
        and c not in quoted
        and c.cosine is not None
        and c.exposition
        and not c.cosine < swap_floor
        and not (lead is not None and c.cosine < MEANING_SHARE * lead)
    ]
    # The nearest that is no duplicate of a chosen unit; on a tie the better scored, then the first of
    # `_quotable_pool`'s order (a stable sort keeps it): checked nearest first, until one passes.
    pool.sort(key=lambda c: (c.cosine or 0.0, c.score), reverse=True)
    best = next((c for c in pool if all(_similarity(c, s) < DUPLICATE for s in chosen)), None)
    if best is None or weakest.lexical > best.lexical:
        return chosen
    return [best if c is weakest else c for c in chosen]


def _similarity(a: _Candidate, b: _Candidate) -> float:
    if a.vector is not None and b.vector is not None:
        # `dot`, not `@`: the same float32 dot product of two rows (numpy's matmul calls it for two
        # vectors), without the generalised ufunc's dispatch (~0.7 us a call, ~90 calls an answer)
        return float(a.vector.dot(b.vector))
    union = a.unit.terms | b.unit.terms
    return len(a.unit.terms & b.unit.terms) / len(union) if union else 0.0


def _quotable_pool(
    candidates: list[_Candidate], quotable: Sequence[_Candidate] | None = None
) -> list[_Candidate]:
    """The candidates that may be quoted on their own, best first.

    A bare lead-in ("Run the following:") says nothing without what follows; `_with_code` adds it
    with its code. One that says something ("System identification involves: ...", "Solution: use
    CycloneDDS:") can lead the answer, and brings its list (`_with_context`) or its code
    (`_with_introduced_code`)."""
    return sorted(_quotable(candidates) if quotable is None else quotable, key=lambda c: -c.score)


def _quotable(candidates: list[_Candidate]) -> Iterator[_Candidate]:
    """`_quotable_pool`'s candidates in their own order, for a caller that needs no ranking."""
    items = {(c.source, c.unit.position) for c in candidates if c.unit.bullet}
    return (
        c
        for c in candidates
        if not c.unit.lead_in
        or (c.source, c.unit.position + 1) in items
        or c.unit.items
        or c.unit.words >= TELLING_LEAD_IN_WORDS
        or _SOLUTION.match(c.unit.text)  # "Solution: check X:" says what to do (and brings its code)
    )


def _mmr(
    candidates: list[_Candidate], limit: int = MAX_SENTENCES, quotable: Sequence[_Candidate] | None = None
) -> list[_Candidate]:
    """The units the answer quotes, best first (module docstring); `quotable`: the candidates'
    `_quotable` ones, when the caller has them (`_meaning_swap` reads them too)."""
    pool = _quotable_pool(candidates, quotable)
    if not pool:
        return []
    top = pool[0]
    chosen = [pool.pop(0)]
    words = top.unit.words
    # List items are short: two take the room of one sentence (the room taken so far, kept up to date).
    room = 0.5 if top.unit.bullet else 1.0
    quoted = {top.source}
    # `_adds_to` worked out once per candidate, not once per candidate and round: only whether it
    # follows a chosen unit changes as units are chosen (`following`: the places one or two on).
    # Candidates are their own keys (identity: `_Candidate` is eq=False).
    floor = RELATIVE_FLOOR * top.score
    # Only a unit past the floor can be eligible: the rounds look at those alone (in the pool's order),
    # not again at every unit below it.
    live = [c for c in pool if not c.score < floor]
    merit = {c for c in live if _own_merit(c, top)}
    following = _following(top)
    # Each candidate's greatest similarity to the chosen ones, brought up to date with each new pick
    # (`seen` of them): the same maxima as over all of `chosen` every round, without recomputing them.
    closest: dict[_Candidate, float] = {}
    seen: dict[_Candidate, int] = {}
    while live and room < limit and words < MAX_PROSE_WORDS:
        # a lead-in after a chosen unit heads another list or block: it needs merit of its own
        eligible = [
            c for c in live if c in merit or (not c.unit.lead_in and (c.source, c.unit.position) in following)
        ]
        if not eligible:
            break
        n = len(chosen)
        latest = chosen[-1]
        latest_vector = latest.vector
        for c in eligible:
            done = seen.get(c, 0)
            if done < n:  # only the units chosen since the candidate was last brought up to date
                # most often just the last pick: its likeness itself, without a generator and a max
                # (and for two vectors `_similarity`'s dot inline, without the call)
                if done < n - 1:
                    nearest = max(_similarity(c, s) for s in chosen[done:])
                elif c.vector is not None and latest_vector is not None:
                    nearest = float(c.vector.dot(latest_vector))
                else:
                    nearest = _similarity(c, latest)
                if done:  # `max(closest[c], nearest)` without a call: the held one unless the new is greater
                    held = closest[c]
                    closest[c] = nearest if nearest > held else held
                else:
                    closest[c] = nearest
                seen[c] = n
        pick, value = _best(eligible, closest, quoted)
        live.remove(pick)
        if value <= 0 or closest[pick] >= DUPLICATE:
            continue
        chosen.append(pick)
        room += 0.5 if pick.unit.bullet else 1.0
        quoted.add(pick.source)
        following |= _following(pick)
        words += pick.unit.words
    return chosen


def _mmr_value(c: _Candidate, closest: float, quoted: set[int]) -> float:
    """Maximal marginal relevance: the score less the likeness to what is chosen, and a little for a
    source not quoted yet (`_best` works it out inline)."""
    return (
        MMR_LAMBDA * c.score
        - (1 - MMR_LAMBDA) * closest
        + (SOURCE_DIVERSITY if c.source not in quoted else 0.0)
    )


def _best(
    eligible: list[_Candidate], closest: dict[_Candidate, float], quoted: set[int]
) -> tuple[_Candidate, float]:
    """The first candidate of greatest `_mmr_value`, and that value: one loop with the value worked out
    inline, the same expression (as `max` with a key function finds the first best: a later one must
    be greater), not a key function and `_mmr_value` calls, a candidate a round (~270 calls a
    10k-chunk answer)."""
    keep, drop = MMR_LAMBDA, 1 - MMR_LAMBDA
    candidates = iter(eligible)
    pick = next(candidates)
    best = keep * pick.score - drop * closest[pick] + (SOURCE_DIVERSITY if pick.source not in quoted else 0.0)
    for c in candidates:
        value = keep * c.score - drop * closest[c] + (SOURCE_DIVERSITY if c.source not in quoted else 0.0)
        if value > best:
            pick, best = c, value
    return pick, best


def _adds_to(c: _Candidate, top: _Candidate, chosen: list[_Candidate]) -> bool:
    """Worth a place next to the best sentence: nearly as good, and either about the question in its own
    words or the next lines of a chosen sentence (a "Cause:" line and its "Solution" items)."""
    if c.score < RELATIVE_FLOOR * top.score:
        return False
    # a lead-in after a chosen unit starts another list or block, not the lines that go on from it
    follows = not c.unit.lead_in and any((c.source, c.unit.position) in _following(s) for s in chosen)
    return follows or _own_merit(c, top)


def _following(chosen: _Candidate) -> set[tuple[int, int]]:
    """The (source, position) of the two units after a chosen one: the lines that follow it."""
    position = chosen.unit.position
    return {(chosen.source, position + 1), (chosen.source, position + 2)}


def _own_merit(c: _Candidate, top: _Candidate) -> bool:
    """`_adds_to` whatever else is chosen: about the question in its own words, or in meaning."""
    # A sentence nearer the question in meaning than the best one is about it, whatever its words: a
    # heading that shares the question's words lifts every sentence under it past one that answers.
    closer = c.cosine is not None and top.cosine is not None and c.cosine >= MEANING_SHARE * top.cosine
    return closer or c.lexical + c.heading >= OWN_WORDS_SHARE * (top.lexical + top.heading)
