"""Query -> RetrievalResult: embed the query as a query, search the index, keep the chunks whose dense
cosine similarity passes the threshold, drop duplicate content, and time each stage (seed 002).

The index and the embedder are synchronous; `Retriever.retrieve` runs them in a worker thread so the
event loop never blocks. Identical retrievals within a session come from the session's cache.
"""

from __future__ import annotations

import asyncio
import json
import logging
import time
from collections.abc import Callable, MutableMapping, Sequence
from dataclasses import dataclass
from functools import cached_property
from typing import TypeVar

import numpy as np
from numpy.typing import NDArray

from lectern.answerability import is_compound, written_forms
from lectern.confidence import Thresholds, assess, has_sufficient_context
from lectern.conversation import RetrievalKey
from lectern.embeddings.base import Embedder
from lectern.english import with_question_mark
from lectern.errors import EmbedderMismatch, InvalidInput, LecternError, ProviderError, VectorIndexError
from lectern.index.base import SearchFilters, VectorIndex
from lectern.index.compat import ensure_query_embedder
from lectern.lru import LRU
from lectern.models import ConfidenceMetrics, RetrievalResult, RetrievalTimings, SearchHit, SearchModeName
from lectern.numbered_parts import as_numbered_parts
from lectern.sentences import SentenceVectors
from lectern.settings import Settings

T = TypeVar("T")
log = logging.getLogger(__name__)

CHAT_MAX_TOP_K = 10  # seed 000 ChatRequest / seed 001 retrieve_context
TOOL_MAX_TOP_K = 20  # seeds 002-004 retrieval requests
SEARCH_MODES: tuple[SearchModeName, ...] = ("hybrid", "dense", "keyword")
SESSION_CACHE_SIZE = 64
TERM_CACHE_SIZE = 50_000
RETRIEVE_ERROR = "Unable to retrieve content"  # seed 001 QDRANT_ERROR recovery message


# Hits past the top_k kept as the extractive writer's reserve (`RetrievalResult.reserve`): ranks 6-10 at
# the default top_k, which the search fetches anyway (`fetch_depth`). On the development questions
# (bench/reserve_study.py) answers with every keyword: tune 75.8 -> 76.9 %, train 81.6 -> 82.2 %.
RESERVE = 5

# The right file, the wrong chunk: an answer cites the file that holds its key fact, but the chunk that
# states it ranks neither among the passages nor in the reserve (other files' chunks outrank it), so the
# writer cannot quote it. The first passage's file's chunk nearest the query in meaning, of those not
# retrieved, joins the reserve (`Retriever._in_file`): quoted beside the passages as the reserve is,
# never measured (the decision reads the passages only). bench/infile_study.py: where the keyword chunk
# is not retrieved, it is its file's nearest unretrieved chunk by dense cosine for 17 of 48 tuned rows
# (BM25 7, best stored sentence 11, headings 4). End to end (bench/answer_quality.py, every tuned set):
# in-scope answers with every keyword 392 -> 397 of 631, none lost; cited files, near-miss refusals,
# the decision's scores and follow-ups unchanged. The first two files' chunks gained no more, two
# chunks of the first file one more (+6) for half as many answers changed again (116 against 78) and
# twice the extra reading. Cost: ~0.47 M instructions an answer (callgrind, 20 train questions with the
# query cached: 10.43 -> 10.90 M), the lookup itself ~55 us.
IN_FILE_FILES = 1


def fetch_depth(top_k: int) -> int:
    """Ask the index for more than top_k so the threshold and dedup still leave top_k chunks."""
    return min(top_k + max(5, top_k), 50)


@dataclass(frozen=True)
class RetrievalParams:
    """One validated retrieval request."""

    query: str
    top_k: int
    threshold: float
    mode: SearchModeName
    filters: SearchFilters | None = None

    def cache_key(self) -> RetrievalKey:
        return (
            " ".join(self.query.split()).lower(),
            self.top_k,
            self.threshold,
            self.mode,
            filters_key(self.filters),
        )


def filters_key(filters: SearchFilters | None) -> str:
    if filters is None or filters.is_empty():
        return ""
    return json.dumps({"eq": dict(filters.equals), "url": filters.url_prefix}, sort_keys=True, default=str)


class Retriever:
    def __init__(
        self, embedder: Embedder, index: VectorIndex, settings: Settings, *, collection: str = ""
    ) -> None:
        self.embedder = embedder
        self.index = index
        self.settings = settings
        self.collection = collection or settings.collection
        self.thresholds = Thresholds.from_settings(settings)
        self._embedder_checked = False
        self._vectors: LRU[str, NDArray[np.float32]] = LRU(4096)  # for engines whose hits come without
        self._terms: LRU[str, bool] = LRU(TERM_CACHE_SIZE)

    @cached_property
    def sentences(self) -> SentenceVectors:
        """Vectors of the retrieved chunks' sentences (stored at ingest, computed on first use otherwise)."""
        return SentenceVectors.for_data_dir(self.embedder, self.settings.data_dir)

    # --- parameters ---------------------------------------------------------------------------------
    def params(
        self,
        query: str,
        *,
        top_k: int | None = None,
        threshold: float | None = None,
        mode: SearchModeName | None = None,
        filters: SearchFilters | None = None,
        max_top_k: int = TOOL_MAX_TOP_K,
    ) -> RetrievalParams:
        """Validate a request (INVALID_INPUT); unset values come from settings."""
        if not query or not query.strip():
            raise InvalidInput("The search query is empty.")
        k = self.settings.top_k if top_k is None else top_k
        if not 1 <= k <= max_top_k:
            raise InvalidInput(f"top_k must be between 1 and {max_top_k}, got {k}.")
        t = self.settings.similarity_threshold if threshold is None else threshold
        if not 0.0 <= t <= 1.0:
            raise InvalidInput(f"The similarity threshold must be between 0.0 and 1.0, got {t}.")
        chosen = mode or self.settings.search_mode
        if chosen not in SEARCH_MODES:
            raise InvalidInput(f"Unknown search mode {chosen!r}; use hybrid, dense or keyword.")
        return RetrievalParams(query.strip(), min(k, max_top_k), float(t), chosen, filters)

    # --- retrieval ----------------------------------------------------------------------------------
    async def retrieve(
        self, params: RetrievalParams, cache: MutableMapping[RetrievalKey, RetrievalResult] | None = None
    ) -> RetrievalResult:
        """Retrieve off the event loop; a repeat of a retrieval in the same session is served from `cache`."""
        key = params.cache_key()
        if cache is not None and key in cache:
            return _from_cache(cache[key])
        result = await asyncio.to_thread(self.retrieve_sync, params)
        _remember(cache, key, result)
        return result

    async def retrieve_assessed(
        self, params: RetrievalParams, cache: MutableMapping[RetrievalKey, RetrievalResult] | None = None
    ) -> tuple[RetrievalResult, ConfidenceMetrics]:
        """`retrieve` and the result's `confidence`, both in the one worker call: the confidence's
        numpy work stays off the event loop."""
        result, confidence, _ = await self.retrieve_assessed_then(params, cache, _nothing)
        return result, confidence

    async def retrieve_assessed_then(
        self,
        params: RetrievalParams,
        cache: MutableMapping[RetrievalKey, RetrievalResult] | None,
        then: Callable[[RetrievalResult, ConfidenceMetrics], T],
    ) -> tuple[RetrievalResult, ConfidenceMetrics, T | None]:
        """`retrieve_assessed`, and what `then` makes of the result and its confidence in the same
        worker call (one hand-off to a thread and back instead of two); None when the result came
        from `cache`."""
        key = params.cache_key()
        if cache is not None and key in cache:
            result = _from_cache(cache[key])
            return result, self.confidence(result), None

        def work() -> tuple[RetrievalResult, ConfidenceMetrics, T]:
            result = self.retrieve_sync(params)
            confidence = self.confidence(result)
            return result, confidence, then(result, confidence)

        result, confidence, made = await asyncio.to_thread(work)
        _remember(cache, key, result)
        return result, confidence, made

    def remember(
        self,
        params: RetrievalParams,
        result: RetrievalResult,
        cache: MutableMapping[RetrievalKey, RetrievalResult] | None,
    ) -> None:
        """Keep `result`, retrieved for `params` with `retrieve_sync`, in the session's `cache`."""
        _remember(cache, params.cache_key(), result)

    def retrieve_sync(self, params: RetrievalParams) -> RetrievalResult:
        started = time.perf_counter()
        self._check_embedder()
        # The query's meaning with a part asked for by ordinal in the documents' form ("the fifth day" ->
        # "the day 5"): bench/numbered_parts_study.py. The keyword side keeps the words asked. A question
        # mark the reader left off is put back first (`with_question_mark`): bench/case_robustness.py.
        embedding = _QueryEmbedding(self.embedder, as_numbered_parts(with_question_mark(params.query)))
        try:
            # the index embeds when it needs the vector, and may search by keyword meanwhile
            found = self.index.search(
                vector=embedding,
                text=params.query,
                mode=params.mode,
                top_k=fetch_depth(params.top_k),
                filters=params.filters,
            )
        except (EmbedderMismatch, InvalidInput):
            raise
        except Exception as exc:  # seed 001 QDRANT_ERROR: any index failure
            if exc is embedding.error:  # the question could not be embedded: not an index failure
                raise
            log.exception("retrieval_failed", extra={"collection": self.collection})
            raise VectorIndexError(RETRIEVE_ERROR) from exc
        searched = time.perf_counter()
        # The search took what it took beyond embedding the query (which it may have overlapped).
        search_s = searched - started - embedding.seconds
        query_vector = embedding()  # an index that never needed the vector leaves it to us
        vector = np.asarray(query_vector, dtype=np.float32).reshape(-1)
        ranking_started = time.perf_counter()
        # The search asks for more than top_k anyway (`fetch_depth`): the next few are the writer's reserve.
        ranked = rank(found, params.threshold, params.top_k + RESERVE)
        hits = ranked[: params.top_k]
        # The reserve is quoted from, never measured: its chunk vectors need not stay in the session cache.
        reserve = [h.model_copy(update={"vector": None}) for h in ranked[params.top_k :]]
        reserve += self._in_file(hits, reserve, vector, params)
        self._attach_vectors(hits)
        average, sufficient = self._averaged(hits)
        done = time.perf_counter()
        result = RetrievalResult(
            query=params.query,
            hits=hits,
            average_score=average,
            has_sufficient_context=sufficient,
            timings=RetrievalTimings(
                embedding_ms=embedding.seconds * 1000,
                search_ms=search_s * 1000,
                ranking_ms=(done - ranking_started) * 1000,
            ),
            total_candidates=len(found),
            threshold=params.threshold,
            collection=self.collection,
            top_k=params.top_k,
            mode=params.mode,
            query_embedding=vector.tolist(),
            reserve=reserve,
        )
        result.hold_query_vector(vector)
        if log.isEnabledFor(logging.DEBUG):  # the timings are dumped only for a line that is written
            log.debug(
                "retrieval_performed",
                extra={"chunks": len(hits), "candidates": len(found), "timings": result.timings.model_dump()},
            )
        return result

    def narrowed(self, result: RetrievalResult, hits: list[SearchHit], top_k: int) -> RetrievalResult:
        """`result` with `hits` (a re-ranked `top_k` of its own) and the figures that follow from them."""
        average, sufficient = self._averaged(hits)
        # The pool's passages left out, best first, are the narrowed result's reserve.
        kept = {h.chunk.content_hash for h in hits}
        left = [h for h in [*result.hits, *result.reserve] if h.chunk.content_hash not in kept]
        return result.model_copy(
            update={
                "hits": hits,
                "reserve": left[:RESERVE],
                "top_k": top_k,
                "average_score": average,
                "has_sufficient_context": sufficient,
            }
        )

    def _in_file(
        self,
        hits: Sequence[SearchHit],
        reserve: Sequence[SearchHit],
        vector: NDArray[np.float32],
        params: RetrievalParams,
    ) -> list[SearchHit]:
        """For the files of the first passages (`IN_FILE_FILES`), the chunk of each nearest the query
        in meaning that is neither a passage nor in the reserve, past the similarity threshold: more
        reserve for the writer. An index without `nearest_in_files` (or a filtered search, whose
        filter such a chunk need not pass) gets none."""
        nearest = getattr(self.index, "nearest_in_files", None)
        if nearest is None or not hits or (params.filters is not None and not params.filters.is_empty()):
            return []
        files: list[str] = []
        for h in hits:
            if h.chunk.source_path not in files:
                files.append(h.chunk.source_path)
        files = files[:IN_FILE_FILES]
        exclude = [h.chunk.content_hash for h in [*hits, *reserve]]
        try:
            found = nearest(files, vector, exclude)
        except Exception:  # a reserve extra: never fail a turn over it
            log.warning("in_file_lookup_failed", exc_info=True)
            return []
        first = len(hits) + len(reserve) + 1
        kept = [h for h in found if h.similarity >= params.threshold]
        return [h.model_copy(update={"rank": first + i}) for i, h in enumerate(kept)]

    def _averaged(self, hits: Sequence[SearchHit]) -> tuple[float, bool]:
        """The hits' average similarity (within 0..1) and whether they are enough context."""
        average = sum(h.similarity for h in hits) / len(hits) if hits else 0.0
        return min(1.0, max(0.0, average)), has_sufficient_context(average, len(hits), self.thresholds)

    def knows(self, term: str) -> bool:
        """Whether any chunk of the collection contains `term` (a keyword search, cached).

        A compound name ("ros_gz_bridge", "slam_toolbox", "GPT-4o") must appear as written: a keyword
        search matches its parts ("ros", "bridge") anywhere. A failing lookup answers True: an
        infrastructure problem must not turn into a refusal.
        """
        compound = is_compound(term)
        # A compound is looked up as written ("ML-Agents" whole, "ml-agents" by its parts).
        key = term if compound else term.lower()
        cached = self._terms.get(key)
        if cached is not None:
            return cached
        try:
            hits = self.index.search(vector=None, text=term, mode="keyword", top_k=5)
        except Exception:
            log.warning("term_lookup_failed", exc_info=True)
            return True
        found = bool(hits)
        if found and compound:
            forms = written_forms(term)
            found = any(any(f in h.chunk.search_text.lower() for f in forms) for h in hits)
        self._terms.put(key, found)
        return found

    def confidence(self, result: RetrievalResult) -> ConfidenceMetrics:
        """Seed 000 metrics of a retrieval, diversity from the chunk vectors."""
        vectors = [h.vector for h in result.hits if h.vector is not None]
        return assess(result.scores, self.thresholds, vectors if len(vectors) == len(result.hits) else None)

    # --- internals ----------------------------------------------------------------------------------
    def _check_embedder(self) -> None:
        if self._embedder_checked:
            return
        try:
            info = self.index.info()
        except Exception as exc:
            log.exception("retrieval_failed", extra={"collection": self.collection})
            raise VectorIndexError(RETRIEVE_ERROR) from exc
        if info is None:
            return  # no collection yet: nothing to compare, the search finds nothing
        ensure_query_embedder(self.index, self.embedder.name, self.embedder.dimension)
        self._embedder_checked = True

    def _attach_vectors(self, hits: list[SearchHit]) -> None:
        """Give every hit its chunk vector; engines that return none get one embedded (and cached)."""
        missing = [h for h in hits if h.vector is None and self._vectors.get(h.chunk.content_hash) is None]
        if missing:
            try:
                fresh = self.embedder.embed_documents([h.chunk.search_text for h in missing])
            except Exception:  # diversity is informative only; never fail a turn over it
                log.warning("chunk_vectors_unavailable", exc_info=True)
                return
            for hit, vector in zip(missing, fresh, strict=True):
                self._vectors.put(hit.chunk.content_hash, vector)
        for hit in hits:
            if hit.vector is None:
                cached = self._vectors.get(hit.chunk.content_hash)
                if cached is not None:
                    hit.vector = cached


def _nothing(result: RetrievalResult, confidence: ConfidenceMetrics) -> None:
    return None


def _from_cache(hit: RetrievalResult) -> RetrievalResult:
    return hit.model_copy(update={"timings": hit.timings.model_copy(update={"cached": True})})


def _remember(
    cache: MutableMapping[RetrievalKey, RetrievalResult] | None, key: RetrievalKey, result: RetrievalResult
) -> None:
    if cache is not None:
        while len(cache) >= SESSION_CACHE_SIZE:
            cache.pop(next(iter(cache)))
        cache[key] = result


class _QueryEmbedding:
    """The query's vector, embedded on the first call and kept; how long embedding took."""

    def __init__(self, embedder: Embedder, query: str) -> None:
        self._embedder = embedder
        self._query = query
        self._vector: NDArray[np.float32] | None = None
        self.seconds = 0.0  # until embedded
        self.error: LecternError | None = None

    def __call__(self) -> NDArray[np.float32]:
        if self._vector is None:
            started = time.perf_counter()
            try:
                self._vector = self._embedder.embed_query(self._query)
            except LecternError as exc:
                self.error = exc
                raise
            except Exception as exc:  # a provider or model failure the embedder did not classify
                log.exception("embedding_failed")
                self.error = ProviderError("Unable to embed the question.")
                raise self.error from exc
            self.seconds = time.perf_counter() - started
        return self._vector


def rank(found: Sequence[SearchHit], threshold: float, top_k: int) -> list[SearchHit]:
    """Threshold on dense similarity, dedup by content hash (best score kept), re-ranked 1..n."""
    best: dict[str, SearchHit] = {}
    order: list[str] = []
    for hit in found:
        if hit.similarity < threshold:
            continue
        key = hit.chunk.content_hash
        if key not in best:
            order.append(key)
            best[key] = hit
        elif hit.score > best[key].score:
            best[key] = hit
    kept = sorted((best[k] for k in order), key=lambda h: -h.score)[:top_k]
    # A hit already at its rank (the index ranks its hits 1..n; nothing dropped before it) is kept as
    # it is: a copy per hit, ten an answer, cost more than the rest of the ranking.
    return [h if h.rank == i else h.model_copy(update={"rank": i}) for i, h in enumerate(kept, start=1)]
