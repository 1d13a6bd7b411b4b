"""Reading a Qdrant collection another pipeline wrote: one unnamed dense vector and a flat payload
(seed 000: ``text``, ``chapter``, ``section``, ``url``, ``chunk_index``, ``content_hash``).

Dense search works as is. Keyword search needs a full-text payload index on the text field (local
mode matches text without one): the points holding any query word are fetched by a text filter and
ranked by BM25 here. As every point with a query term is a candidate, document frequencies are
exact; past ``MAX_KEYWORD_CANDIDATES`` matches they are estimates. Hybrid fuses both by RRF here.
Equal scores rank by content hash on both sides, as on every engine (`fusion.best_first`).
"""

from __future__ import annotations

from typing import Any

import numpy as np
from numpy.typing import NDArray
from qdrant_client import QdrantClient, models

from lectern.errors import VectorIndexError
from lectern.index.fusion import (
    best_first,
    candidate_depth,
    cosine_similarities,
    cut_inside_ties,
    rrf_fuse,
    stack,
)
from lectern.index.payload import engine_errors
from lectern.index.qdrant_payload import LEGACY_TEXT_FIELDS, legacy_chunk, legacy_hash
from lectern.index.sparse import ENGLISH_STOP_WORDS, KeywordAnalyzer, bm25_scores
from lectern.models import Chunk, SearchHit, SearchModeName

ENGINE = "qdrant"
MAX_KEYWORD_CANDIDATES = 2000
MAX_QUERY_WORDS = 32


class LegacyReader:
    def __init__(
        self, client: QdrantClient, name: str, config: models.CollectionInfo, *, local: bool, rrf_k: int
    ) -> None:
        self._client = client
        self._name = name
        self._rrf_k = rrf_k
        self.keyword_field = self._text_field(config, local)

    def _text_field(self, config: models.CollectionInfo, local: bool) -> str | None:
        """The payload field with a full-text index, or in local mode the text field points carry."""
        schema = config.payload_schema or {}
        for name in LEGACY_TEXT_FIELDS:
            if name in schema and schema[name].data_type == models.PayloadSchemaType.TEXT:
                return name
        if local:
            with engine_errors(ENGINE, f"reading {self._name!r}"):
                points, _ = self._client.scroll(self._name, limit=1, with_payload=True)
            payload = points[0].payload or {} if points else {}
            return next((n for n in LEGACY_TEXT_FIELDS if isinstance(payload.get(n), str)), None)
        return None

    def chunk(self, payload: dict[str, Any]) -> Chunk:
        return legacy_chunk(payload)

    def search(
        self,
        query: NDArray[np.float32] | None,
        text: str,
        mode: SearchModeName,
        top_k: int,
        flt: models.Filter | None,
        analyzer: KeywordAnalyzer,
    ) -> list[SearchHit]:
        depth = top_k if mode != "hybrid" else candidate_depth(top_k)
        dense = self._dense(query, flt, depth) if mode != "keyword" else []
        keyword = self._keyword(text, flt, depth, analyzer) if mode != "dense" else []
        records = {str(p.id): p for p, _ in [*keyword, *dense]}
        bm25 = {str(p.id): score for p, score in keyword}
        ranked: list[tuple[str, float]]
        if mode == "hybrid":
            ranked = rrf_fuse([[str(p.id) for p, _ in dense], list(bm25)], self._rrf_k)[:top_k]
        else:
            ranked = [(str(p.id), score) for p, score in (keyword if mode == "keyword" else dense)][:top_k]
        vectors = [_vector(records[key]) for key, _ in ranked]
        sims = cosine_similarities(query, stack(vectors))
        return [
            SearchHit(
                chunk=legacy_chunk(records[key].payload or {}),
                similarity=sim,
                keyword_score=bm25.get(key),
                score=sim if mode == "dense" else score,
                rank=rank,
                vector=vector,
            )
            for rank, ((key, score), sim, vector) in enumerate(
                zip(ranked, sims, vectors, strict=True), start=1
            )
        ]

    def _dense(
        self, query: NDArray[np.float32] | None, flt: models.Filter | None, n: int
    ) -> list[tuple[models.ScoredPoint | models.Record, float]]:
        """The n nearest points, in `best_first` order (equal scores by content hash): asked for one more,
        and while that one ties with the n-th, for twice as many (`fusion.cut_inside_ties`), as Qdrant
        picks which of the points tied at the n-th place it returns."""
        if query is None:
            return []
        limit = n + 1
        while True:
            with engine_errors(ENGINE, f"searching {self._name!r}"):
                points = self._client.query_points(
                    self._name,
                    query=query.tolist(),
                    query_filter=flt,
                    limit=limit,
                    with_payload=True,
                    with_vectors=True,
                ).points
            ranked = _best_first([(p, p.score) for p in points])
            if not cut_inside_ties([score for _, score in ranked], n, limit):
                return ranked[:n]
            limit *= 2

    def _keyword(
        self, text: str, flt: models.Filter | None, limit: int, analyzer: KeywordAnalyzer
    ) -> list[tuple[models.ScoredPoint | models.Record, float]]:
        field = self.keyword_field
        # the server's text index knows words, not our stems: match on the words as typed
        words = [
            w for w in dict.fromkeys(KeywordAnalyzer(stem=False).terms(text)) if w not in ENGLISH_STOP_WORDS
        ]
        if field is None or not words:
            return []
        any_word = models.Filter(
            should=[
                models.FieldCondition(key=field, match=models.MatchText(text=w))
                for w in words[:MAX_QUERY_WORDS]
            ]
        )
        must: list[models.Condition] = [any_word, *([flt] if flt is not None else [])]
        with engine_errors(ENGINE, f"searching {self._name!r}"):
            points, _ = self._client.scroll(
                self._name,
                scroll_filter=models.Filter(must=must),
                limit=MAX_KEYWORD_CANDIDATES,
                with_payload=True,
                with_vectors=True,
            )
            total = self._client.count(self._name, exact=True).count
        texts = [str((p.payload or {}).get(field) or "") for p in points]
        scores = bm25_scores(analyzer, text, texts, total)
        return [(p, s) for p, s in _best_first(list(zip(points, scores, strict=True)))[:limit] if s > 0]


def _best_first(
    scored: list[tuple[models.ScoredPoint | models.Record, float]],
) -> list[tuple[models.ScoredPoint | models.Record, float]]:
    """Best first, equal scores by content hash (`fusion.best_first`: the other engines' order)."""
    keyed = best_first([(legacy_hash(p.payload or {}), p, score) for p, score in scored])
    return [(p, score) for _, p, score in keyed]


def _vector(point: models.ScoredPoint | models.Record) -> list[float]:
    vector = point.vector
    if not isinstance(vector, list) or (vector and not isinstance(vector[0], float | int)):
        raise VectorIndexError(f"{ENGINE}: point {point.id} came back without its vector")
    return [float(x) for x in vector]  # type: ignore[arg-type]
