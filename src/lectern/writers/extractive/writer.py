"""`ExtractiveWriter`: scores the passages' units and composes the answer with the package's other
modules (the steps: the package's docstring).
"""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator, Sequence

import numpy as np
from numpy.typing import NDArray

from lectern.content_kind import ContentKind, asked_kinds
from lectern.embeddings.base import Embedder
from lectern.events import Token
from lectern.followups import without_context
from lectern.lru import LRU
from lectern.models import SearchHit, TokenUsage
from lectern.writers.base import WriteRequest, WriterEvent, Written
from lectern.writers.console import asks_for_output
from lectern.writers.extractive.candidates import (
    _attach_vectors,
    _by_source,
    _Candidate,
    _idf,
    _shared,
    _unit_candidates,
)
from lectern.writers.extractive.code_choice import (
    _answering,
    _best_code,
    _best_of_listing,
    _nearer_in_meaning,
    _outmatching,
    _whole_nearer_in_meaning,
    _with_top_code,
)
from lectern.writers.extractive.code_files import _with_asked_file, _with_named_code
from lectern.writers.extractive.code_lines import _code_line_terms, _with_code_lines
from lectern.writers.extractive.code_quoting import (
    _with_code,
    _with_commented_code,
    _with_following_code,
    _with_introduced_code,
)
from lectern.writers.extractive.context import _with_context
from lectern.writers.extractive.lead_ins import _with_lead_ins, _without_dangling_lead_ins
from lectern.writers.extractive.listings import _with_listing_continued
from lectern.writers.extractive.mmr import MAX_SENTENCES, _meaning_swap, _mmr, _quotable
from lectern.writers.extractive.output import _with_asked_output
from lectern.writers.extractive.query import _HOW_TO, _query_terms
from lectern.writers.extractive.render import _fallback, _render
from lectern.writers.extractive.scoring import _behind_sources, _favour_cues, _shape
from lectern.writers.question_kind import question_kind
from lectern.writers.selection import reserve_of, sources_of
from lectern.writers.units import count_tokens, split_tokens, units_of

NAME = "extractive"
FIRST_PASS = 8  # sentences embedded per answer at most
# How a sentence with a stored vector is scored: meaning first, then its passage's rank, the question's
# words in it, in its section's headings and in its chunk, and its shape. Searched on the tune split of
# the development questions with bench/tune_writer.py (rank 0.12 -> 0.24, meaning 0.5 -> 0.4: answers
# with every keyword 52 -> 58 %).
MEANING_WEIGHTS = {"cosine": 0.4, "lexical": 0.15, "heading": 0.1, "chunk": 0.05, "rank": 0.24, "shape": 0.08}
# Score factor for sentences of quizzes, exercises, objectives and summaries, and for a sentence that
# announces what a chapter teaches ("In this chapter, you will learn ...") with the list it leads.
NOT_EXPOSITION = 0.6


class ExtractiveWriter:
    """Picks, orders and cites sentences of the sources; streams them word by word."""

    quotes_reserve = True  # `ReserveQuoting`: it quotes the retrieval's reserve (why: `scoring.RESERVE_GAP`)

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
        quotable = list(_quotable(candidates))  # once, for the pick and the swap
        picked = _meaning_swap(_mmr(candidates, MAX_SENTENCES, quotable), candidates, len(sources), quotable)
        # the sentences by source, once for the context's and the lead-ins' look-ups (the list is final)
        by_source = _by_source(candidates)
        chosen = _with_introduced_code(_with_context(picked, candidates, by_source), codes)
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
        chosen = _without_dangling_lead_ins(_with_lead_ins(chosen, candidates, by_source))
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
