"""The default offline writer: answers with the retrieved sentences that best answer the question.

1. Every source chunk is split into units (sentences, list items, fenced code blocks; `units.py`).
2. A cheap first pass scores every sentence by IDF-weighted keyword overlap with the search query
   (generic words left out, but for a yes/no question's: "does it need to know ...?" turns on them) and
   the chunk's own similarity; only the best few go on, so the model is never run on many sentences.
3. Those are embedded in one batch (vectors cached by text) and scored by cosine with the query vector
   the retriever already computed, plus the keyword score.
   A sentence with the cue its question's kind calls for (a cause for why, a number for how long, a
   fix for a problem; `question_kind.py`) gets a small lift.
4. Maximal marginal relevance picks a few sentences that do not repeat each other, with a small lift
   for a source not quoted yet; a how-to question (or a problem) also gets the best matching code
   block, whole, with the sentence that introduces it (the block after one the question quotes: that
   one is the symptom). A quoted sentence brings the code a short lead-in ties to it ("Cause: ..." /
   "Solution:" / code) and the fix list after it ("Symptom: ..." / "Solutions:" / "1. Update the
   driver:" / code / "2. ..."), past a list of causes when a stated problem ("Issue: ...") has one; a
   short "Solution: check X:" may lead the answer with its code; a quoted sentence that names a file
   ("`send_goal.py` - Send goals") brings that file's code, and one that comments on the block above
   it ("Rationale: ...") brings that block; a quoted block cut by the chunk split on an open value
   ("pauses = {") brings that value's lines from the listing's next chunk. A best-ranked source with nothing
   but code is quoted by its code, or by the chunk of the same listing that matches the question
   best; a code line may answer on its own, matched with its identifiers split and its abbreviations
   spelled out ("horizontal_fov" for "field of view"), or, for a quantity question, a line that sets a
   number with fewer of the question's words, and a line that heads a list written in comments with
   that list. A question that names a file brings the block that is that file; a block whose lead-in,
   title or comments are about as near the question in meaning as the best quoted sentence comes with
   an answer that is not a how-to one (`CODE_MEANING_OUTMATCH`), and with a how-to one that no block
   answers in the question's words (unless it starts inside a listing). A text diagram (boxes
   and arrows in a fence) never stands for the code a how-to question asks for. A question that asks
   what a program prints gets a quoted source's console output. A list quoted nearly whole ends with
   its last items.
5. Sentences are grouped by source (best source first) and kept in the author's order within a
   source; each group ends with its source number, `[n]` = the n-th source of the turn
   (`writers/sources.py`).

The writer never invents a sentence: every sentence of the answer is a sentence of a cited chunk.
"""

from __future__ import annotations

import asyncio
import dataclasses
import logging
import math
import re
import textwrap
from collections.abc import AsyncIterator, Iterator, Sequence
from dataclasses import dataclass
from functools import lru_cache
from typing import TYPE_CHECKING

import numpy as np
from numpy.typing import NDArray

from lectern.content_kind import ContentKind, asked_kinds, kind_of
from lectern.embeddings.base import Embedder
from lectern.events import Token
from lectern.followups import GENERIC_WORDS, STOP_WORDS, without_context
from lectern.lru import LRU
from lectern.models import SearchHit, TokenUsage
from lectern.writers.base import WriteRequest, WriterEvent, Written
from lectern.writers.console import asks_for_output, is_output
from lectern.writers.question_kind import QuestionKind, has_cue, question_kind
from lectern.writers.selection import reserve_of, sources_of
from lectern.writers.units import (
    Unit,
    count_tokens,
    passage_terms,
    split_tokens,
    stem_terms,
    units_of,
    with_parts,
)

if TYPE_CHECKING:
    from lectern.sentences import SentenceVectors

log = logging.getLogger(__name__)

NAME = "extractive"
FIRST_PASS = 8  # sentences embedded per answer at most
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
# A sentence with the cue its question's kind calls for ("because" for why, a number for how long, a
# fix for a problem; `question_kind.py`) gets this lift.
CUE_BONUS = 0.06
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
# The retrieval's reserve (the hits ranked just below the sources, `RetrievalResult.reserve`) is quoted
# from too: a list item or a sentence there often holds a keyword the top passages miss. Measured with
# bench/reserve_study.py (answers with every keyword, tune 75.8 -> 76.9 %, train 81.6 -> 82.2 %; the
# top passages scored as without the reserve, its units at rank prior 0, its code left out, and never
# leading the answer: each of those rules cost answers when left out). `ExtractiveWriter.quotes_reserve`
# switches it.
RESERVE_GAP = 1e-6
# ... but its units have no rank prior, so the top passage's list siblings far from the question in
# meaning (cosine 0.0-0.2, carried by the prior) fill the answer before a reserve unit that answers
# (bench/reserve_quote_study.py: of 21 reserve units holding a missing keyword and passed over, 19 were
# nearer the question than the answer's farthest unit, 11 by 0.15 or more). One swap (`_meaning_swap`):
# the answer's unit farthest in meaning gives way to the reserve's nearest when that is this much nearer.
# Tuned sets end to end: in-scope answers with every keyword 411 -> 417 (+8 -2), relevant cited
# 506 -> 509, follow-ups' keywords 336 -> 335, near misses unchanged; 340 of 1354 answers change.
MEANING_SWAP = 0.15
# A code block that shares at least this share of the question's words, and more than any sentence the
# answer quotes, comes with the answer when it is at most this many lines long (fence included).
CODE_OUTMATCH_MIN = 0.3
CODE_OUTMATCH_LINES = 20
# A code block has no vector of its own, but its chunk's similarity to the question says what it is
# about: with this weight, a block of a chunk nearer the question in meaning beats one that merely
# ranks higher ("flip the elbow joint": the URDF joint, not the first-ranked slider script). On replay,
# weights 0.5-2.0 alike: train +1 cited and +1 with every keyword, two other answers shorter or on
# point, tune unchanged.
CODE_MEANING = 1.0
# A block's section heading says what the block does ("Step 1: Install NVIDIA Container Toolkit" over the
# apt commands) when the block's own words do not: the question's words in the innermost headings count
# as much as in the code. On replay of the tuned sets (bench/writer_census.py: the keyword an answer
# missed sat in a block of another passage of the cited file), 0.5-2.0 alike: answers with every keyword
# +2 -0 (dev2 "what do I install before the GPU works in Docker", follow-ups dev), 4 answers of 874
# change, cited files unchanged.
CODE_HEADING = 1.0
# A code block has a vector of its own too when something says in words what it does (its lead-in,
# title or comments, `code_gist`). A block at least this near the question in meaning, relative to the
# best quoted sentence, comes with an answer that is not a how-to one: the command or setting asked
# for in other words ("how often do messages arrive" / "# Get topic statistics" / `ros2 topic hz`).
# Replayed (bench/code_vectors_study.py): 0.6-0.9 gain 4-5 answers with every keyword over the
# development sets and lose none; 36 of 576 answers change, ~50 words longer each. A how-to question
# that no block answers in its own words gets such a block too (`_whole_nearer_in_meaning`; tuned-set
# replay: answers with every keyword +1 -0, 9 of 874 answers change, cited unchanged).
CODE_MEANING_OUTMATCH = 0.8
# How a sentence with a stored vector is scored: meaning first, then its passage's rank, the question's
# words in it, in its section's headings and in its chunk, and its shape. Searched on the tune split of
# the development questions with bench/tune_writer.py (rank 0.12 -> 0.24, meaning 0.5 -> 0.4: answers
# with every keyword 52 -> 58 %).
MEANING_WEIGHTS = {"cosine": 0.4, "lexical": 0.15, "heading": 0.1, "chunk": 0.05, "rank": 0.24, "shape": 0.08}
# Score factor for sentences of quizzes, exercises, objectives and summaries, and for a sentence that
# announces what a chapter teaches ("In this chapter, you will learn ...") with the list it leads.
NOT_EXPOSITION = 0.6

# A sentence that announces what a chapter will teach or has taught ("In this chapter, you will learn to
# ...", "By the end of this module you will be able to:"): it names topics, it explains none.
_AIMS = re.compile(
    r"^(?:in\s+this\s+(?:chapter|module|section|lesson|unit|part),?\s+(?:you|we)\b|"
    r"by\s+the\s+end\b|this\s+(?:chapter|module|section|lesson)\s+(?:covers|introduces|"
    r"teaches|will)\b|you\s+(?:will|'ll)\s+(?:learn|be\s+able)\b)",
    re.IGNORECASE,
)
_IGNORED = frozenset(stem_terms(" ".join(STOP_WORDS | GENERIC_WORDS)))
# A question that asks for a yes or a no ("Does the publisher need to know who reads?", "Can the robot
# combine pointing with speech?"), not a request to the assistant ("Can you show me ...").
_YES_NO = re.compile(
    r"^\s*(?:can|could|does|do|did|is|are|was|were|should|will|would|has|have)\b(?!\s+you\b)", re.I
)
_STOP = frozenset(stem_terms(" ".join(STOP_WORDS)))
_HOW_TO = re.compile(
    r"\b(how\s+(do|can|to|should|would)|install|command|commands|run|launch|create|write|code|example|"
    r"implement|configure|set\s*up|setup|build|syntax|snippet)\b|\bhow\s*\?\s*$",
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


class ExtractiveWriter:
    """Picks, orders and cites sentences of the sources; streams them word by word."""

    quotes_reserve = True  # `ReserveQuoting`: it quotes the retrieval's reserve (why: above `RESERVE_GAP`)

    def __init__(
        self, embedder: Embedder | None = None, *, embed_sentences: bool = False, cache_size: int = 20_000
    ) -> None:
        self.embedder = embedder
        self.embed_sentences = embed_sentences
        self._vectors: LRU[str, NDArray[np.float32]] = LRU(cache_size)  # answers compose in threads

    @property
    def name(self) -> str:
        return NAME

    @property
    def retrieves_itself(self) -> bool:
        return False

    async def write(self, request: WriteRequest) -> AsyncIterator[WriterEvent]:
        composed = request.composed
        text, cited = (
            (composed.text, composed.cited)
            if composed is not None
            else await asyncio.to_thread(self.compose, request)
        )
        if request.stream:
            tokens = split_tokens(text)
            for token in tokens:
                yield Token(token)
            count = len(tokens)
        else:
            if text:
                yield Token(text)  # the tokens join to the text
            count = count_tokens(text)
        yield Written(text=text, cited=cited, usage=TokenUsage(completion_tokens=count), model=NAME)

    # --- composition --------------------------------------------------------------------------------
    def compose(self, request: WriteRequest) -> tuple[str, list[int]]:
        """The answer text and the source numbers it cites."""
        sources = sources_of(request)
        if not sources:
            return "", []
        # A rewritten follow-up's bracketed context ("... (the previous topic)") keeps the search on the
        # conversation's topic; the sentences are chosen for what the follow-up itself asks.
        query = without_context(request.search_query or request.question, request.question)
        query_terms = _query_terms(request.question, query)
        reserve = reserve_of(request, sources) if self.quotes_reserve else []
        candidates, codes = self._candidates(sources, query_terms, reserve, asked_kinds(request.question))
        if not any(c.source <= len(sources) for c in candidates):
            # An answer the sources give by their code alone stays theirs.
            candidates, reserve = [], []
        query_vector = self._query_vector(request)
        if query_vector is not None and request.sentences is not None:
            _attach_vectors(candidates + codes, [*sources, *reserve], request.sentences, query_vector)
        self._score(candidates, query_vector)
        kind = question_kind(request.question)
        _favour_cues(candidates, kind)
        _behind_sources(candidates, len(sources))
        picked = _meaning_swap(_mmr(candidates, MAX_SENTENCES), candidates, len(sources))
        chosen = _with_introduced_code(_with_context(picked, candidates), codes)
        chosen = _with_commented_code(_with_following_code(chosen, codes), codes)
        # A problem ("RViz2 warns that a frame does not exist") is fixed by a command as often as a
        # how-to question is answered by one.
        # (the query searched apart only where it is not the question itself: the same scan twice)
        how_to = (
            bool(_HOW_TO.search(request.question) or (query != request.question and _HOW_TO.search(query)))
            or kind == "problem"
        )
        asked = _code_line_terms(f"{request.question}\n{query}")  # identifiers split like a code line's
        answering = _answering(codes, asked)
        # A short block that shares more of the question's words than any quoted sentence answers it too
        # ("waiting for the answer or not": the two calls that do).
        outmatched = bool(chosen) and not how_to and _outmatching(answering, chosen)
        # a why or a comparison is answered in words: a listing near it in meaning only makes it longer
        explains = kind in ("why", "compare")
        nearer = (
            [] if how_to or explains or not chosen or outmatched else _nearer_in_meaning(answering, chosen)
        )
        if nearer:
            code = _best_code(nearer, chosen, strict=False)
            if code is not None:
                chosen = _with_code(code, chosen, candidates)
        elif how_to or not chosen or outmatched:
            # Only code came back (a long listing split over chunks): its introduction and the code it is.
            lead = chosen[0].source if chosen else None
            code = _best_code(answering, chosen, strict=bool(chosen), lead=lead)
            if code is not None:
                chosen = _with_code(
                    _best_of_listing(code, answering, candidates, query_terms), chosen, candidates
                )
            else:
                # No block shares the how-to's words ("list the microphones" / "# List available audio
                # devices" / `query_devices()`): one whose lead-in, title or comments say it in other
                # words, as near the question as the best quoted sentence.
                code = _best_code(_whole_nearer_in_meaning(answering, chosen), chosen, strict=False)
                if code is not None:
                    chosen = _with_code(code, chosen, candidates)
        chosen = _with_top_code(chosen, answering, candidates, query_terms)
        chosen = _with_named_code(chosen, codes, candidates)
        chosen = _with_asked_file(chosen, codes, candidates, f"{request.question}\n{query}")
        if not chosen:
            return _fallback(sources[0], 1)
        chosen = _with_code_lines(chosen, codes, candidates, query, query_terms, quantity=kind == "quantity")
        if asks_for_output(request.question):
            chosen = _with_asked_output(chosen, codes, candidates)
        chosen = _with_listing_continued(chosen, codes)
        chosen = _without_dangling_lead_ins(_with_lead_ins(chosen, candidates))
        return _render(chosen)

    def _candidates(
        self,
        sources: Sequence[SearchHit],
        query_terms: frozenset[str],
        reserve: Sequence[SearchHit] = (),
        asked: frozenset[ContentKind] = frozenset(),
    ) -> tuple[list[_Candidate], list[_Candidate]]:
        """Every unit of the sources as a candidate (sentences, then code blocks), and the reserve's
        sentences, list items and table rows (not its code: a how-to's block is the sources' to give),
        numbered after the sources with no rank prior. The sources' units are scored as without the
        reserve: its units would move every term's IDF. Chunks of a kind in `asked` (the question names
        a lab, a quiz, the prerequisites) count as exposition."""
        per_source = [units_of(hit.chunk.text) for hit in sources]
        # each unit's words in the query, worked out once for both IDFs and the scores
        shared = _shared(per_source, query_terms)
        own = _idf(shared, query_terms)
        sentences, codes = _unit_candidates(
            sources, per_source, shared, 1, own, query_terms, asked, ranked=True
        )
        if reserve:
            per_reserve = [units_of(hit.chunk.text) for hit in reserve]
            shared_reserve = _shared(per_reserve, query_terms)
            wider = _idf(shared + shared_reserve, query_terms)
            more, _ = _unit_candidates(
                reserve,
                per_reserve,
                shared_reserve,
                len(sources) + 1,
                wider,
                query_terms,
                asked,
                ranked=False,
            )
            sentences += more
        return sentences, codes

    def _query_vector(self, request: WriteRequest) -> NDArray[np.float32] | None:
        retrieval = request.retrieval
        if retrieval is None or retrieval.query_embedding is None:
            return None  # no vector (selected-text-only): keyword scoring alone, no model call
        return retrieval.query_vector()

    def _score(self, candidates: list[_Candidate], query_vector: NDArray[np.float32] | None) -> None:
        if query_vector is not None and any(c.vector is not None for c in candidates):
            # Every sentence has its stored vector: rank by meaning first, words second. (The weights
            # read once, not six dict lookups a candidate; the same sum in the same order.)
            w = MEANING_WEIGHTS
            cos_w, lex_w, head_w = w["cosine"], w["lexical"], w["heading"]
            chunk_w, rank_w, shape_w = w["chunk"], w["rank"], w["shape"]
            for c in candidates:
                cosine = c.cosine if c.cosine is not None else 0.0  # worked out with its vector
                c.score = (
                    cos_w * cosine
                    + lex_w * c.lexical
                    + head_w * c.heading
                    + chunk_w * c.chunk
                    + rank_w * c.rank_prior
                    + shape_w * _shape(c.unit)
                )
                if not c.exposition:
                    c.score *= NOT_EXPOSITION
            return
        # By words alone (no stored vectors): worked out only here, the meaning scores replace them.
        for c in candidates:
            shape = _shape(c.unit)
            c.score = 0.3 * c.lexical + 0.25 * c.heading + 0.15 * c.chunk + 0.2 * c.rank_prior + 0.1 * shape
        if (
            query_vector is None
            or self.embedder is None
            or not self.embed_sentences
            or query_vector.shape != (self.embedder.dimension,)
        ):
            return
        candidates.sort(key=lambda c: -c.score)
        head = candidates[:FIRST_PASS]
        missing = [c.unit.text for c in head if self._vectors.get(c.unit.text) is None]
        if missing:
            for text, vector in zip(missing, self.embedder.embed_documents(missing), strict=True):
                self._vectors.put(text, np.asarray(vector, dtype=np.float32))
        for c in head:
            c.vector = self._vectors.get(c.unit.text)
            if c.vector is not None:
                cosine = float(c.vector @ query_vector)
                c.cosine = cosine
                c.score = (
                    0.35 * cosine
                    + 0.2 * c.lexical
                    + 0.15 * c.heading
                    + 0.1 * c.chunk
                    + 0.15 * c.rank_prior
                    + 0.05 * _shape(c.unit)
                )
        # Sentences not embedded stay behind the embedded ones.
        for c in candidates[FIRST_PASS:]:
            c.score *= 0.5


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
    df: dict[str, int] = {}
    total = 0
    for units in shared:
        for terms in units:
            total += 1
            for term in terms:
                df[term] = df.get(term, 0) + 1
    return {t: math.log(1.0 + (total + 1) / (1 + df.get(t, 0))) for t in query_terms}


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
        aims_asked = "overview" in asked  # "what are the learning objectives?" wants that list
        announced = False  # inside a list led by a sentence that announces the chapter's aims
        for unit, shared in zip(units, shared_units, strict=True):
            if not unit.bullet:
                announced = _announces(unit.text)
            # most units share no word: no generator for them
            overlap = sum(map(weight, shared)) / norm if shared else 0.0
            candidate = _Candidate(
                unit,
                first + offset,
                hit,
                overlap,
                chunk_score,
                heading_score,
                rank_prior,
                exposition=exposition and (aims_asked or not announced),
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


def _behind_sources(candidates: list[_Candidate], sources: int) -> None:
    """A reserve unit (source number past `sources`) never leads the answer: its score stays just
    under the sources' best unit's, so it is quoted beside what the sources say, never instead."""
    best = max((c.score for c in candidates if c.source <= sources), default=None)
    if best is None:
        return
    for c in candidates:
        if c.source > sources and c.score >= best:
            c.score = best - RESERVE_GAP


def _meaning_swap(chosen: list[_Candidate], candidates: list[_Candidate], sources: int) -> list[_Candidate]:
    """The answer's unit farthest from the question in meaning gives way to the reserve's unit nearest
    it (`MEANING_SWAP`): never the lead, nor a lead-in (it brings its list or code), nor a unit that
    shares more of the question's words than the newcomer; the newcomer is at least `MEANING_SWAP`
    nearer than the unit it replaces, and as near as `MEANING_SHARE` of the lead."""
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
        for c in _quotable(candidates)
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


def _query_terms(question: str, query: str) -> frozenset[str]:
    """The query's terms that say what it is about: generic words ("need", "use", "point") say little
    in "what do I need?", but a yes/no question turns on its verb ("does it need to know who reads?"
    is answered by "publishers don't need to know their subscribers"), so there they count."""
    terms = stem_terms(query)
    if _YES_NO.match(question):
        return terms - _STOP or terms
    return terms - _IGNORED or terms


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


def _similarity(a: _Candidate, b: _Candidate) -> float:
    if a.vector is not None and b.vector is not None:
        # `dot`, not `@`: the same float32 dot product of two rows (numpy's matmul calls it for two
        # vectors), without the generalised ufunc's dispatch (~0.7 us a call, ~90 calls an answer)
        return float(a.vector.dot(b.vector))
    union = a.unit.terms | b.unit.terms
    return len(a.unit.terms & b.unit.terms) / len(union) if union else 0.0


def _quotable_pool(candidates: list[_Candidate]) -> list[_Candidate]:
    """The candidates that may be quoted on their own, best first.

    A bare lead-in ("Run the following:") says nothing without what follows; `_with_code` adds it
    with its code. One that says something ("System identification involves: ...", "Solution: use
    CycloneDDS:") can lead the answer, and brings its list (`_with_context`) or its code
    (`_with_introduced_code`)."""
    return sorted(_quotable(candidates), key=lambda c: -c.score)


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


def _mmr(candidates: list[_Candidate], limit: int = MAX_SENTENCES) -> list[_Candidate]:
    pool = _quotable_pool(candidates)
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
    worthy = {c for c in pool if not c.score < floor}
    merit = {c for c in pool if c in worthy and _own_merit(c, top)}
    following = _following(top)
    # Each candidate's greatest similarity to the chosen ones, brought up to date with each new pick
    # (`seen` of them): the same maxima as over all of `chosen` every round, without recomputing them.
    closest: dict[_Candidate, float] = {}
    seen: dict[_Candidate, int] = {}
    while pool and room < limit and words < MAX_PROSE_WORDS:
        # a lead-in after a chosen unit heads another list or block: it needs merit of its own
        eligible = [
            c
            for c in pool
            if c in merit or (c in worthy and not c.unit.lead_in and (c.source, c.unit.position) in following)
        ]
        if not eligible:
            break
        n = len(chosen)
        latest = chosen[-1]
        for c in eligible:
            done = seen.get(c, 0)
            if done < n:  # only the units chosen since the candidate was last brought up to date
                # most often just the last pick: its likeness itself, without a generator and a max
                # (and for two vectors `_similarity`'s dot inline, without the call)
                if done < n - 1:
                    nearest = max(_similarity(c, s) for s in chosen[done:])
                elif c.vector is not None and latest.vector is not None:
                    nearest = float(c.vector.dot(latest.vector))
                else:
                    nearest = _similarity(c, latest)
                closest[c] = max(closest[c], nearest) if done else nearest
                seen[c] = n
        pick, value = _best(eligible, closest, quoted)
        pool.remove(pick)
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


LIST_ITEMS = 8  # a list the best sentence belongs to is quoted whole, up to this many items
TELLING_LEAD_IN_WORDS = 6  # a lead-in this long says something of its own
SHORT_LIST = 5  # the first steps of a fix quoted after its problem
# Another list the answer quotes from comes whole (up to LIST_ITEMS items) when the rest of it is this
# short in words: eight terse items ("Executor: runs the parsed actions") read better whole, five long
# ones bury the answer (on the training questions: +1 answer with every keyword, and shorter answers,
# than a limit of five items).
SHORT_LIST_WORDS = 50
MAX_CONTEXT_WORDS = 160  # ... and while the answer is still this short
_SOLUTION = re.compile(r"^(solution|fix|workaround|resolution|answer)s?\b", re.IGNORECASE)
# ... and says what it is ("Solution: spawn above ground level:", not a bare "Solution:")
_STATED_SOLUTION = re.compile(_SOLUTION.pattern + r"\s*:\s*\w", re.IGNORECASE)
# A unit that states a problem ("Issue: Grasp attempts fail repeatedly", "Problem: ..."): its fix may
# come after a list of causes, before the next problem of the same passage.
_ISSUE = re.compile(r"^(issue|problem|error|symptom|challenge|bug)s?\s*:", re.IGNORECASE)
ISSUE_REACH = 12  # units after a problem searched for its solution


_ANAPHOR = re.compile(r"^(it|its|this|these|that|those|they|their|such|both|each)\b", re.I)


def _with_context(chosen: list[_Candidate], candidates: list[_Candidate]) -> list[_Candidate]:
    """The chosen sentences' context in their passages: the whole list the best one belongs to (and
    any other short list an answer quotes from: "Experience replay" alone hides its two siblings), the
    sentence before the best one when it points back ("It enables: ..."), and the solution that
    follows a quoted symptom ("Symptom: the robot forgets ..." / "Solution: ...")."""
    if not chosen:
        return chosen
    best = chosen[0]
    out = list(chosen)
    words = sum(c.unit.words for c in out)
    # each source's units by position, made once per source (not again for each chosen unit of it)
    of_source: dict[int, dict[int, _Candidate]] = {}
    for c in chosen:
        same = of_source.get(c.source)
        if same is None:
            same = of_source[c.source] = {u.unit.position: u for u in candidates if u.source == c.source}
        introduces = c.unit.lead_in and c.unit.position + 1 in same and same[c.unit.position + 1].unit.bullet
        if c.unit.bullet or introduces:
            items = _list_items(same, c.unit.position + (1 if introduces else 0))
            if c is best and len(items) > LIST_ITEMS:
                items = items[:LIST_ITEMS]
            elif c is not best and (
                sum(1 for i in items if i.unit.bullet) > LIST_ITEMS
                or sum(i.unit.words for i in items if i not in out) > SHORT_LIST_WORDS
                or words > MAX_CONTEXT_WORDS
            ):
                # Too long to quote whole: a lead-in chosen for how well it names the question ("X offers
                # these features:") says nothing without its list, so its best item answers for it.
                bullets = [i for i in items if i.unit.bullet]
                if introduces and bullets and not any(i in out for i in bullets):
                    pick = max(bullets, key=lambda i: i.score)
                    out.append(pick)
                    words += pick.unit.words
                continue
            for item in items:
                if item not in out:
                    out.append(item)
                    words += item.unit.words
        elif c is best and _ANAPHOR.match(c.unit.text):
            before = same.get(c.unit.position - 1)
            if before is not None and before not in out:
                out.append(before)
        after = same.get(c.unit.position + 1)
        if after is not None and _ISSUE.match(c.unit.text) and not _SOLUTION.match(after.unit.text):
            after = _solution_after(same, c.unit.position) or after
        if after is not None and after not in out and _SOLUTION.match(after.unit.text):
            out.append(after)
        elif after is not None and after not in out and _SOLUTION.match(after.unit.intro):
            # "Fix:" over a list: the fix's first steps
            steps = _list_items(same, after.unit.position, through_code=True)[:SHORT_LIST]
            out.extend(i for i in steps if i not in out)
    return out


def _solution_after(same: dict[int, _Candidate], pos: int) -> _Candidate | None:
    """The solution of the problem stated at `pos` ("Issue: ..." / "Possible causes:" / a list /
    "Solutions:" / a list): the first unit that opens or heads a fix before the next problem."""
    for p in range(pos + 1, pos + 1 + ISSUE_REACH):
        u = same.get(p)
        if u is None:
            continue  # a code block (not in `same`) between the problem and its fix
        if _ISSUE.match(u.unit.text):
            return None
        if _SOLUTION.match(u.unit.text) or _SOLUTION.match(u.unit.intro):
            return u
    return None


def _with_introduced_code(chosen: list[_Candidate], codes: list[_Candidate]) -> list[_Candidate]:
    """A quoted sentence that introduces a code block ("Solution: preserve the context:") brings it."""
    out = list(chosen)
    for c in chosen:
        if c.unit.lead_in:
            follows = [k for k in codes if k.source == c.source and k.unit.position == c.unit.position + 1]
            out.extend(k for k in follows if k not in out)
    return out


# A sentence that comments on what comes before it ("Rationale: slower than wheeled robots ...").
_COMMENTARY = re.compile(r"^(rationale|effect|result|explanation|why)s?\s*:", re.IGNORECASE)


def _with_commented_code(chosen: list[_Candidate], codes: list[_Candidate]) -> list[_Candidate]:
    """A quoted sentence that comments on the code block right above it ("Rationale: ...", "Effect:
    ...") brings that block: the comment says why, the block says what (the values asked for)."""
    out = list(chosen)
    for c in chosen:
        if c.unit.kind == "code" or not _COMMENTARY.match(c.unit.text):
            continue
        for k in codes:
            if k.source == c.source and k.unit.position == c.unit.position - 1 and k not in out:
                out.append(k)
    return out


def _with_following_code(chosen: list[_Candidate], codes: list[_Candidate]) -> list[_Candidate]:
    """A quoted sentence brings the code right after it when a short lead-in introduces that code
    ("Cause: package not built." / "Solution:" / the build commands; "Scenario: 0.9 m doorway." /
    "Adjust:" / the settings): the sentence alone does not say what to do."""
    out = list(chosen)
    for c in chosen:
        if c.unit.kind == "code":
            continue
        for k in codes:
            after = k.source == c.source and k.unit.position == c.unit.position + 1
            if after and k.unit.intro and k not in out:  # a bare block after prose may be anything
                out.append(k)
    return out


QUOTED_CODE_SHARE = 0.8  # a code block whose words the question repeats this much is the question's own


def _answering(codes: list[_Candidate], asked: frozenset[str]) -> list[_Candidate]:
    """The code blocks that can answer: one the question quotes ("fails with 'Failed to create Vulkan
    instance'") shows the symptom, so the block after it in its chunk (the fix) stands in for it."""
    out: list[_Candidate] = []
    for c in codes:
        if _drawing(c.unit.text):
            continue
        if not _quoted_by(c, asked):
            out.append(c)
            continue
        later = [k for k in codes if k.source == c.source and 0 < k.unit.position - c.unit.position <= 2]
        if later:
            fix = min(later, key=lambda k: k.unit.position)
            # The fix inherits the symptom's match: it is what the question asks for.
            out.append(dataclasses.replace(fix, lexical=max(fix.lexical, c.lexical)))
    return out


# Box-drawing characters and arrows: a fenced block drawn with them is a diagram, not code to run.
_DRAWN = re.compile(r"[\u2190-\u21ff\u2500-\u259f\u25b2-\u25c5]")
DRAWN_SHARE = 0.3


@lru_cache(maxsize=4096)
def _drawing(block: str) -> bool:
    """Whether a fenced block is a text diagram (boxes and arrows): it shows a design, it does not say
    what to type, so it never stands for the code a how-to question asks for. Cached by block, as
    `_code_lines`: the same blocks come back across answers, and the search scans the whole block."""
    if not _DRAWN.search(block):  # most blocks: no such character at all, one search instead of a line's
        return False
    lines = [line for line in block.split("\n")[1:-1] if line.strip()]
    return bool(lines) and sum(1 for line in lines if _DRAWN.search(line)) >= DRAWN_SHARE * len(lines)


def _quoted_by(code: _Candidate, asked: frozenset[str]) -> bool:
    body = frozenset().union(*(terms for _, terms in _code_lines(code.unit.text)[1:-1]))  # inside the fence
    return len(body) >= 2 and len(body & asked) >= QUOTED_CODE_SHARE * len(body)


def _without_dangling_lead_ins(chosen: list[_Candidate]) -> list[_Candidate]:
    """Drop a lead-in ("Example trace:", "You will build a robot that can:") whose list or code is not
    quoted after it; only the best sentence stays, whatever follows it."""
    if not chosen:
        return chosen
    best = chosen[0]
    quoted = {(c.source, c.unit.position) for c in chosen}
    return [
        c
        for c in chosen
        if not c.unit.lead_in
        or c.unit.items  # its list comes with it
        or (c is best and c.unit.words >= TELLING_LEAD_IN_WORDS)
        or (c.source, c.unit.position + 1) in quoted
        or _SOLUTION.match(c.unit.intro)  # the first step of a fix ("Fix:" / "1. Add limits:")
        # "Solution: spawn above ground level:" says the fix in its own words (and `_quotable` offers it
        # for that): its code (a reserve passage's is never quoted) only shows how
        or _STATED_SOLUTION.match(c.unit.text)
    ]


def _list_items(same: dict[int, _Candidate], pos: int, *, through_code: bool = False) -> list[_Candidate]:
    """The list holding the item at `pos`, its lead-in first when it has one. `through_code` goes on
    past a step's code block ("1. Update the driver:" / code / "2. Verify Vulkan support:")."""
    p = _list_start(same, pos)
    items: list[_Candidate] = []
    while p in same and (same[p].unit.bullet or (same[p].unit.lead_in and not items)):
        if items and same[p].unit.intro:
            break  # "Solutions:" starts another list
        items.append(same[p])
        p += 1
        # Positions missing from `same` are code blocks: one right after a step that introduces it
        step = through_code and same[p - 1].unit.lead_in and p not in same
        if step and p + 1 in same and same[p + 1].unit.bullet:
            p += 1
    return items


def _list_start(same: dict[int, _Candidate], pos: int) -> int:
    """Where the list holding the item at `pos` starts: its lead-in, or its first item."""
    p = pos
    while p - 1 in same and same[p - 1].unit.bullet and not same[p].unit.intro:
        p -= 1
    return p - 1 if p - 1 in same and same[p - 1].unit.lead_in else p


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


def _best_code(
    codes: list[_Candidate], chosen: list[_Candidate], *, strict: bool = True, lead: int | None = None
) -> _Candidate | None:
    """The code block that best matches a how-to question, favouring the sources already quoted.
    `strict` wants the code itself to share the question's words; otherwise its chunk may, and so may
    a block of the `lead` source (the one the answer's best sentence comes from): a command seldom
    repeats the reader's words ("tf2_echo map base_link" under "Frame [X] does not exist")."""
    quoted = {c.source for c in chosen}
    best: _Candidate | None = None
    best_score = 0.0
    for c in codes:
        score = c.lexical + 0.5 * c.chunk + 0.3 * c.rank_prior + (0.2 if c.source in quoted else 0.0)
        score += CODE_MEANING * c.hit.similarity + CODE_HEADING * c.heading
        if (c.lexical >= 0.2 or not strict or c.source == lead) and score > best_score:
            best, best_score = c, score
    return best


def _nearer_in_meaning(codes: list[_Candidate], chosen: list[_Candidate]) -> list[_Candidate]:
    """The code blocks about as near the question in meaning as the best quoted sentence, or nearer."""
    best = max((c.cosine for c in chosen if c.cosine is not None), default=None)
    if best is None or best <= 0:
        return []
    return [k for k in codes if k.cosine is not None and k.cosine >= CODE_MEANING_OUTMATCH * best]


def _whole_nearer_in_meaning(codes: list[_Candidate], chosen: list[_Candidate]) -> list[_Candidate]:
    """`_nearer_in_meaning`, less the blocks that start inside a listing: a file's middle chunk says
    nothing on its own of what the file is for (its opening is what `_with_named_code` quotes)."""
    return [k for k in _nearer_in_meaning(codes, chosen) if not _continues(k.unit.text)]


def _outmatching(codes: list[_Candidate], chosen: list[_Candidate]) -> bool:
    """Whether a short code block shares more of the question's words than every quoted sentence."""
    best = max(c.lexical for c in chosen)
    return any(
        k.lexical >= CODE_OUTMATCH_MIN and k.lexical > best and k.unit.text.count("\n") <= CODE_OUTMATCH_LINES
        for k in codes
    )


def _with_top_code(
    chosen: list[_Candidate], codes: list[_Candidate], candidates: list[_Candidate], asked: frozenset[str]
) -> list[_Candidate]:
    """The best-ranked source's code when that source has nothing else to quote (a code block, perhaps
    under a lead-in): retrieval put it first, and sentence scoring alone never reaches it. `codes` are
    the answering blocks (`_answering`): the fix stands in for a block the question quotes; another
    chunk of the same listing stands in for it when it matches the question better."""
    if any(c.source == 1 for c in chosen):
        return chosen
    if any(c.source == 1 and not c.unit.lead_in for c in candidates):
        return chosen
    top = [c for c in codes if c.source == 1]
    if not top:
        return chosen
    return _with_code(_best_of_listing(top[0], codes, candidates, asked), chosen, candidates)


def _best_of_listing(
    code: _Candidate, codes: list[_Candidate], candidates: list[_Candidate], asked: frozenset[str]
) -> _Candidate:
    """A long listing is split over chunks, and retrieval may rank its tail first: of the code-only
    chunks of the code's section, the block that shares the most of the question's words (identifiers
    split: "temperature_limits" names what no comment may)."""
    prose = {c.source for c in candidates if not c.unit.lead_in}
    if code.source in prose:
        return code
    listing = [c for c in codes if c.source not in prose and _same_section(c.hit, code.hit)]
    return max(listing, key=lambda c: (len(_code_block_terms(c.unit.text) & asked), c is code, -c.source))


# A file a sentence names ("`send_goal.py` - Send goals from a script"): a program or configuration file.
_FILE_NAME = re.compile(
    r"\b[\w-]+\.(?:py|cpp|hpp|cc|h|c|cs|js|ts|java|rs|go|yaml|yml|xml|urdf|xacro|sdf|json|sh|bash|toml|cfg|ini)\b"
)
FILE_TITLE_LINES = 2  # a block names its file in its fence (title="...") or its first line ("# File: ...")


def _with_named_code(
    chosen: list[_Candidate], codes: list[_Candidate], candidates: list[_Candidate]
) -> list[_Candidate]:
    """A quoted sentence that names a file brings the code block of that file ("`send_goal.py` - Send
    goals programmatically" and the block titled "send_goal.py"): the file is the answer it points
    to. One block, for the best sentence that names one, when the answer quotes no code yet."""
    if not codes or any(c.unit.kind == "code" for c in chosen):
        return chosen
    for c in chosen:
        for name in dict.fromkeys(m.group(0) for m in _FILE_NAME.finditer(c.unit.text)):
            named = re.compile(rf"(?<![\w-]){re.escape(name)}\b")
            files = [k for k in codes if named.search("\n".join(k.unit.text.split("\n")[:FILE_TITLE_LINES]))]
            if files:
                # A long file is split over chunks: its opening part (not indented) says what it is.
                code = min(files, key=lambda k: (_continues(k.unit.text), k.source))
                return _with_code(code, chosen, candidates)
    return chosen


def _titled(block: str, name: str) -> bool:
    """Whether a fenced block is the file `name`: its fence titles it (title="scripts/name") or its
    first line is a comment that names it ("# config/name", "// File: name")."""
    named = re.compile(rf"(?<![\w-]){re.escape(name)}\b")
    fence, *rest = block.split("\n")
    if "title=" in fence and named.search(fence):
        return True
    first = rest[0].strip() if rest else ""
    return (
        first.startswith(("#", "//", "<!--", "--", ";"))
        and not first.startswith("#!")
        and bool(named.search(first))
    )


def _with_asked_file(
    chosen: list[_Candidate], codes: list[_Candidate], candidates: list[_Candidate], asked: str
) -> list[_Candidate]:
    """A question that names a file ("how long does record_data.sh record for?") asks about that file's
    contents: the block that is that file comes, whatever else the answer quotes."""
    for name in dict.fromkeys(m.group(0) for m in _FILE_NAME.finditer(asked)):
        files = [k for k in codes if _titled(k.unit.text, name)]
        if files and not any(c.unit.kind == "code" and _titled(c.unit.text, name) for c in chosen):
            code = min(files, key=lambda k: (_continues(k.unit.text), k.source))
            return _with_code(code, chosen, candidates)
    return chosen


def _continues(block: str) -> bool:
    """Whether a fenced block starts inside a listing (its first line is indented)."""
    lines = block.split("\n")
    return len(lines) > 1 and lines[1][:1] in (" ", "\t")


def _same_section(a: SearchHit, b: SearchHit) -> bool:
    return (
        a.chunk.source_path == b.chunk.source_path and a.chunk.heading_hierarchy == b.chunk.heading_hierarchy
    )


def _with_code(code: _Candidate, chosen: list[_Candidate], candidates: list[_Candidate]) -> list[_Candidate]:
    """Add the code block, with the sentence that introduces it when the chunk has one."""
    if any(c.source == code.source and c.unit.position == code.unit.position for c in chosen):
        return chosen
    out = [*chosen, code]
    intro = [c for c in candidates if c.source == code.source and c.unit.position == code.unit.position - 1]
    if intro and intro[0] not in out:
        out.append(intro[0])
    else:
        out += _cited_with(code, chosen, candidates)
    return out


def _cited_with(code: _Candidate, chosen: list[_Candidate], candidates: list[_Candidate]) -> list[_Candidate]:
    """A code block is never quoted alone: when the answer quotes nothing else of its source, the
    source's best sentence comes with it (and carries the citation)."""
    if any(c.source == code.source for c in chosen):
        return []
    same = [c for c in candidates if c.source == code.source]
    return [max(same, key=lambda c: c.score)] if same else []


CODE_LINE_SHARE = 0.4  # a code line quoted for itself holds at least this share of the question's words
CODE_LINE_TERMS = 2  # ... and at least this many of them
# For "how much / at what force" a line that sets a number is the answer's shape: it needs less of the
# question's words.
QUANTITY_LINE_SHARE = 0.3
_VALUE = re.compile(r"[=:]\s*\(?-?\d")
_IDENTIFIER_PARTS = re.compile(r"[\W_]+|(?<=[a-z])(?=[A-Z])")


def _code_line_terms(line: str) -> frozenset[str]:
    """A code line's terms with its identifiers split ("intimate_zone", "maxVelocity")."""
    return stem_terms(line) | stem_terms(" ".join(_IDENTIFIER_PARTS.split(line)))


@lru_cache(maxsize=4096)
def _code_block_terms(block: str) -> frozenset[str]:
    """`_code_line_terms` of a whole block."""
    return frozenset().union(*(terms for _, terms in _code_lines(block)))


@lru_cache(maxsize=4096)
def _code_lines(block: str) -> tuple[tuple[str, frozenset[str]], ...]:
    """Each line of a fenced block with its terms (cached: the same blocks come back across answers,
    and only the chosen block is split again to quote it)."""
    return tuple((line, _code_line_terms(line)) for line in block.split("\n"))


MIN_ABBREVIATION = 3  # shorter initials ("hd", "tf") match too much by chance
MAX_ABBREVIATED_WORDS = 4


def _abbreviations(query: str) -> dict[str, frozenset[str]]:
    """The initials of each run of the query's words that starts and ends with a content word, with the
    run's terms: code names a thing by its initials ("horizontal_fov" for "field of view")."""
    tokens = re.findall(r"[A-Za-z0-9]+", query)
    out: dict[str, frozenset[str]] = {}
    for start in range(len(tokens)):
        for end in range(start + 1, min(len(tokens), start + MAX_ABBREVIATED_WORDS)):
            run = tokens[start : end + 1]
            if any(stem_terms(run[k]) <= _IGNORED for k in (0, -1)):
                continue
            initials = "".join(w[0] for w in run).lower()
            if len(initials) >= MIN_ABBREVIATION:
                out[initials] = stem_terms(" ".join(run)) - _IGNORED
    return out


def _spelled_out(terms: frozenset[str], short: dict[str, frozenset[str]]) -> frozenset[str]:
    """The query terms that a line's abbreviations stand for."""
    return frozenset().union(*(short[t] for t in terms if t in short))


def _with_code_lines(
    chosen: list[_Candidate],
    codes: list[_Candidate],
    candidates: list[_Candidate],
    query: str,
    query_terms: frozenset[str],
    *,
    quantity: bool = False,
) -> list[_Candidate]:
    """The line of a code block that says what was asked ("self.intimate_zone = (0.0, 0.45)  # 0-1.5
    feet"), with the lines around it, when no sentence says it and the answer quotes no code: a value
    that lives only in a configuration or an example is still the documents' answer."""
    if not query_terms or not codes or any(c.unit.kind == "code" for c in chosen):
        return chosen
    quoted = {c.source for c in chosen}
    short = _abbreviations(query)
    best: tuple[float, _Candidate, int] | None = None
    for code in codes:
        for i, (line, terms) in enumerate(_code_lines(code.unit.text)[1:-1], start=1):
            found = (terms | _spelled_out(terms, short)) & query_terms
            share = len(found) / len(query_terms)
            enough = share >= CODE_LINE_SHARE or (
                quantity and share >= QUANTITY_LINE_SHARE and _VALUE.search(line) is not None
            )
            if len(found) < CODE_LINE_TERMS or not enough:
                continue
            score = share + 0.2 * code.rank_prior + (0.2 if code.source in quoted else 0.0)
            if best is None or score > best[0]:
                best = (score, code, i)
    if best is None:
        return chosen
    _, code, i = best
    # The line and its neighbours still inside the block, in the block's fence
    lines = code.unit.text.split("\n")
    end = min(len(lines) - 1, i + 2)
    # A line that heads a list written in comments ("# Recommended effects:" / "# - Bloom: ...") brings
    # the whole list: its items are what it names.
    while end < len(lines) - 1 and end - i <= COMMENT_LIST_LINES and _COMMENT_ITEM.match(lines[end]):
        end += 1
    body = [line for line in lines[max(1, i - 1) : end] if line.strip()]
    excerpt = "\n".join([lines[0], textwrap.dedent("\n".join(body)), lines[-1]])
    unit = dataclasses.replace(
        code.unit, text=excerpt, terms=_code_line_terms(excerpt), words=len(excerpt.split())
    )
    excerpted = dataclasses.replace(code, unit=unit)
    return [*chosen, excerpted, *_cited_with(excerpted, chosen, candidates)]


def _with_asked_output(
    chosen: list[_Candidate], codes: list[_Candidate], candidates: list[_Candidate]
) -> list[_Candidate]:
    """A question that asks what a program prints ("how many items should it report?") gets the first
    console output block of a source the answer quotes, unless it quotes one already: the output is the
    answer, and it shares few of the question's words (`writers/console.py`). Replayed on the tuned
    sets: answers with every keyword +1 -0, one answer changed (bench/code_diagram_keyword_study.py)."""
    if any(c.unit.kind == "code" and is_output(c.unit.text) for c in chosen):
        return chosen
    quoted = {c.source for c in chosen}
    have = {(c.source, c.unit.position) for c in chosen}
    shown = [
        k
        for k in codes
        if k.source in quoted and (k.source, k.unit.position) not in have and is_output(k.unit.text)
    ]
    if not shown:
        return chosen
    return _with_code(min(shown, key=lambda k: (k.source, k.unit.position)), chosen, candidates)


COMMENT_LIST_LINES = 8  # items of a list written in comments quoted after the line that heads it
_COMMENT_ITEM = re.compile(r"^\s*(?:#|//|--|;|%)\s*(?:[-*•]|\d+[.)])\s+\S")


CONTINUED_LINES = 12  # lines of a split listing's next chunk quoted to close what its last line opened
# A line that opens a value ("pauses = {", "camera = Camera(", "gains: ["), not a block of statements
# ("if (ready) {", "void Start() {", a bare "{").
_OPENS_VALUE = re.compile(
    r"^(?!(?:if|else|elif|for|foreach|while|switch|try|catch|do|def|class|function|with)\b).*[\w=:,]\s*[\[({]$"
)


def _opened(line: str) -> int:
    """How many brackets the code line leaves open (negative: it closes more than it opens)."""
    return sum(line.count(b) for b in "([{") - sum(line.count(b) for b in ")]}")


def _with_listing_continued(chosen: list[_Candidate], codes: list[_Candidate]) -> list[_Candidate]:
    """A quoted code block that ends its chunk on an open bracket ("pauses = {") was cut where a long
    listing is split over chunks: the values it opens are in the next chunk of the listing. When that
    chunk was retrieved too, its opening lines up to where the bracket closes come after the block."""
    out = list(chosen)
    for c in chosen:
        if c.unit.kind != "code":
            continue
        lines = c.unit.text.split("\n")[1:-1]  # inside the fence
        body = [line for line in lines if line.strip()]
        if not body or _opened(body[-1]) <= 0 or not _OPENS_VALUE.match(body[-1].strip()):
            continue
        chunk = c.hit.chunk
        if any(k.source == c.source and k.unit.position > c.unit.position for k in codes):
            continue  # the block does not end its chunk
        nxt = [
            k
            for k in codes
            if k.unit.position == 0
            and k.hit.chunk.source_path == chunk.source_path
            and k.hit.chunk.chunk_index == chunk.chunk_index + 1
            and all(o.source != k.source or o.unit.kind != "code" for o in out)
        ]
        if not nxt:
            continue
        k = nxt[0]
        fence, *rest = k.unit.text.split("\n")
        depth, taken = _opened(body[-1]), []
        for line in rest[:-1][:CONTINUED_LINES]:
            taken.append(line)
            depth += _opened(line)
            if depth <= 0:
                break
        if depth > 0 or not taken:
            continue
        excerpt = "\n".join([fence, *taken, rest[-1]])
        unit = dataclasses.replace(
            k.unit, text=excerpt, terms=_code_line_terms(excerpt), words=len(excerpt.split())
        )
        out.append(dataclasses.replace(k, unit=unit))
    return out


PROSE_LEAD_WORDS = 25  # a lead-in this short comes with the sentence that completes it
LIST_TAIL_ITEMS = 2  # the last items of a list quoted nearly whole come too, up to this many
LIST_TAIL_WORDS = 60  # ... and this many words


def _with_lead_ins(chosen: list[_Candidate], candidates: list[_Candidate]) -> list[_Candidate]:
    """A chosen list item brings the sentence that introduces its list ("Lectern remembers ...:"), and a
    chosen sentence the short lead-in it completes ("It's calculated as:" / the formula)."""
    out = list(chosen)
    for c in chosen:
        if not c.unit.bullet:
            out.extend(lead for lead in _completed(c, candidates) if lead not in out)
            continue
        # the item's source's units listed once, not again for each of its lead-ins
        of_source = [u for u in candidates if u.source == c.source]
        for lead in of_source:
            if not lead.unit.lead_in or lead in out:
                continue
            # only list items between the lead-in and this item
            if all(
                u.unit.bullet for u in of_source if lead.unit.position < u.unit.position < c.unit.position
            ):
                out.append(lead)
    # Items between two chosen items of one list come too: a list is not quoted with holes.
    for source in {c.source for c in out if c.unit.bullet}:
        items = sorted(c.unit.position for c in out if c.source == source and c.unit.bullet)
        between = [c for c in candidates if c.source == source and items[0] < c.unit.position < items[-1]]
        if all(c.unit.bullet for c in between):
            out.extend(c for c in between if c not in out)
        # ... and a list quoted nearly whole is not cut just before its last items.
        same = {c.unit.position: c for c in candidates if c.source == source}
        if items[-1] not in same:
            continue
        whole = [c for c in _list_items(same, items[-1]) if c.unit.bullet]
        tail = [c for c in whole if c.unit.position > items[-1]]
        quoted = [c for c in whole if c in out]
        if (
            0 < len(tail) <= LIST_TAIL_ITEMS
            and len(quoted) >= 2 * len(tail)
            and sum(c.unit.words for c in tail) <= LIST_TAIL_WORDS
        ):
            out.extend(tail)
    return out


def _completed(c: _Candidate, candidates: list[_Candidate]) -> list[_Candidate]:
    """The short lead-in right before a prose sentence, which the sentence completes ('"Relocalization"
    refers to:' / "A) ... B) ..."; "It's calculated as:" / the formula): without it the sentence does
    not say what it is about."""
    if c.unit.kind != "sentence":
        return []
    return [
        u
        for u in candidates
        if u.source == c.source
        and u.unit.position == c.unit.position - 1
        and u.unit.lead_in
        and u.unit.words <= PROSE_LEAD_WORDS
    ]


_STATED_LEAD_IN = re.compile(r"(?:^|[.!?]\s)[^.!?]*?\w+\s+\w+\s+\w+[^.!?]*:$")


def _closed(text: str) -> str:
    """A lead-in quoted without what it leads into ("Solution: spawn above ground level:", its code
    left out) ends as the statement it is, not with a colon pointing at nothing; a bare label
    ("Solution:") keeps its colon."""
    # Only a text ending in a colon (`$`: or a colon and a final line break) can match: the others,
    # most units, skip the search: its lazy scan from each sentence start was ~8 % of an answer's
    # instructions with the query cached (bench/callgrind_answers.py).
    return f"{text[:-1]}." if text.endswith((":", ":\n")) and _STATED_LEAD_IN.search(text) else text


def _cite(sentence: str, number: int) -> str:
    if sentence and sentence[-1] in ".!?:;":
        return f"{sentence[:-1]} [{number}]{sentence[-1]}"
    return f"{sentence} [{number}]"


def _render(chosen: list[_Candidate]) -> tuple[str, list[int]]:
    """Best source first, the author's order within a source; prose sentences run together, list items
    stay list items, code blocks stand alone. Each source's last sentence or item carries its `[n]`.
    A quoted run of units is headed by its section's heading when its own words do not name it
    ("Simbody:" over "Pros: highly accurate")."""
    rank: dict[int, float] = {}
    for c in chosen:
        rank[c.source] = max(rank.get(c.source, -1e9), c.score)
    blocks: list[tuple[str, list[str]]] = []  # ("prose" | "list" | "code" | "heading", pieces)

    def add(kind: str, text: str) -> tuple[int, int]:
        """Add a piece; where it went (block, piece)."""
        if blocks and blocks[-1][0] == kind and kind not in ("code", "heading"):
            blocks[-1][1].append(text)
        else:
            blocks.append((kind, [text]))
        return len(blocks) - 1, len(blocks[-1][1]) - 1

    for source in sorted(rank, key=lambda s: -rank[s]):
        group = sorted((c for c in chosen if c.source == source), key=lambda c: c.unit.position)
        units = [c.unit for c in group]
        cited = max((i for i, u in enumerate(units) if u.kind == "sentence"), default=-1)
        headings = [_heading_of(c) for c in group]
        shown = ""
        label: tuple[int, int] | None = None  # the last heading or code lead-in shown for this source
        for i, unit in enumerate(units):
            heading = headings[i]
            if heading and heading != shown:
                shown = heading
                under = [u for u, h in zip(units, headings, strict=True) if h == heading]
                # Code alone names nothing a reader sees: its heading says what it is (and is cited).
                if cited < 0 or not _names(under, heading):
                    label = add("heading", heading)
            if unit.kind == "code":
                if unit.intro:  # "Solution:" says what the code is for
                    label = add("prose", unit.intro)
                add("code", unit.text)
                continue
            if unit.intro:  # "Solutions:" says what the list is
                add("prose", unit.intro)
            following = units[i + 1].position if i + 1 < len(units) else None
            continued = bool(unit.items) or following == unit.position + 1
            body = unit.text if continued else _closed(unit.text)
            text = _cite(body, source) if i == cited else body
            add("list" if unit.bullet else "prose", text)
            for item in unit.items:  # short items quoted with the unit above them
                add("list", item)
        if cited < 0 and label is not None:
            # Only code quoted: the line over it carries the source's number, so the source is cited.
            b, p = label
            blocks[b][1][p] = _cite(blocks[b][1][p], source)
    # A heading is a paragraph of its own: the plain text and the rendered Markdown then read the same
    # (a single line break would join it to the next sentence in a browser).
    rendered = [
        " ".join(pieces)
        if kind == "prose"
        else "\n".join(f"- {p}" for p in pieces)
        if kind == "list"
        else _heading_line(pieces[0])
        if kind == "heading"
        else pieces[0]
        for kind, pieces in blocks
    ]
    return "\n\n".join(rendered), sorted(rank)


def _heading_line(heading: str) -> str:
    """A heading as the line over what it heads: "Costmaps:", but "What is URDF?" as it is."""
    return heading if heading.endswith(("?", "!")) else f"{heading}:"


# Headings made only of these words name no topic ("Key Takeaways", "Next Steps", "Overview").
_HEADING_FILLER = """overview introduction summary conclusion background details notes note example examples
exercise exercises prerequisites solution solutions key takeaways learning objectives next steps quiz review
questions concepts what you will learn you'll"""
_GENERIC_HEADING_WORDS = frozenset(_HEADING_FILLER.split())
_NUMBERING = re.compile(
    r"^(?:(?:chapter|module|part|section|step|week|lesson)\s+)?[0-9IVX]+(?:\.[0-9]+)*[.:)]?\s+", re.IGNORECASE
)
MAX_HEADING_WORDS = 8


def _heading_of(c: _Candidate) -> str:
    """The heading that names the unit's section, unless it names nothing ("Overview", "Summary")."""
    path = c.hit.chunk.heading_hierarchy
    return _heading_text(c.unit.section or (path[-1] if path else ""))


@lru_cache(maxsize=4096)
def _heading_text(raw: str) -> str:
    """`_heading_of` of a heading as written; cached: an answer asks it of each unit it quotes."""
    text = _NUMBERING.sub("", raw.strip()).strip(" :")
    words = text.lower().split()
    if not words or len(words) > MAX_HEADING_WORDS or set(words) <= _GENERIC_HEADING_WORDS:
        return ""
    return text


def _names(units: Sequence[Unit], heading: str) -> bool:
    """Whether the quoted units (their texts run together) already say what the heading says."""
    wanted = stem_terms(heading) - _IGNORED
    if not wanted:
        return True
    # A unit's terms hold its text's terms (and may add the parts of hyphenated words, its short
    # items' terms): a heading word that none of them has is not in the text either, and the text is
    # not stemmed (most quoted runs miss a heading word: ~80 % on the train questions).
    if not wanted <= frozenset().union(*(u.terms for u in units)):
        return False
    return wanted <= stem_terms(" ".join(u.text for u in units))


def _fallback(hit: SearchHit, number: int) -> tuple[str, list[int]]:
    """No sentence-like unit at all (a chunk of headings or a table): quote the chunk's opening words."""
    words = hit.chunk.text.split()
    text = " ".join(words[:60]) + ("…" if len(words) > 60 else "")
    return f"{text} [{number}]", [number]
