"""Qdrant engine: a server or cluster (``qdrant_url`` + ``qdrant_api_key``) or local mode.

Layout: a named dense vector ``dense`` (cosine) and a sparse vector ``bm25`` (``modifier=IDF``) whose
document weights :mod:`lectern.index.sparse` computes. Hybrid search ranks both sides in one batch of
Query API calls (content hashes and scores only) and fuses them here, by the other engines' code, then
reads the fused top_k. The collection info lives in the collection metadata.
Collections written by other pipelines (one unnamed vector) are read through
:mod:`lectern.index.qdrant_legacy`.

Local mode (tests, laptops) is qdrant-client's pure-Python engine: IDF, sparse vectors, prefetch and
RRF work; payload indexes and HNSW do not exist there (every search is exact), so none are created.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from typing import Any, Literal

import numpy as np
from numpy.typing import NDArray
from qdrant_client import QdrantClient, models

from lectern.errors import VectorIndexError
from lectern.index.base import PAYLOAD_KEYS, DocumentSummary, QueryVector, SearchFilters, resolve_vector
from lectern.index.compat import UNKNOWN_EMBEDDER, check_compatible, checked_matrix, checked_query
from lectern.index.fusion import best_first, candidate_depth, cut_inside_ties, rrf_fuse, stack
from lectern.index.payload import (
    INT_KEYS,
    chunk_from_record,
    chunk_record,
    engine_errors,
    ranked_hits,
    summarise_documents,
)
from lectern.index.qdrant_connect import Connection, connect
from lectern.index.qdrant_legacy import LegacyReader
from lectern.index.qdrant_payload import qdrant_filter
from lectern.index.sparse import KeywordAnalyzer, average_length, document_vector, query_vector
from lectern.models import Chunk, CollectionInfo, IndexStats, SearchHit, SearchModeName, chunk_point_id
from lectern.settings import Settings

ENGINE = "qdrant"
DENSE = "dense"
SPARSE = "bm25"
META = "lectern"
WRITE_BATCH = 256  # points per request: keeps each HTTP body a few MB at 1536 dimensions
SCROLL_PAGE = 1024
Layout = Literal["lectern", "legacy"]


@dataclass(frozen=True)
class ClusterLayout:
    """How a new collection is spread over a Qdrant cluster (set once, at creation)."""

    shards: int = 1
    replication_factor: int = 1
    write_consistency: int = 1


class QdrantIndex:
    engine = ENGINE

    def __init__(
        self,
        connection: Connection,
        collection: str,
        *,
        rrf_k: int = 60,
        analyzer: KeywordAnalyzer | None = None,
    ) -> None:
        self.name = collection
        self.rrf_k = rrf_k
        self._conn = connection
        self._client: QdrantClient = connection.client
        self._default_analyzer = analyzer or KeywordAnalyzer()
        self._layout: Layout | None = None
        self._meta: dict[str, Any] = {}
        self._legacy: LegacyReader | None = None
        self._analyzer: KeywordAnalyzer | None = None
        self.cluster = ClusterLayout()

    @classmethod
    def from_settings(cls, settings: Settings, collection: str | None = None) -> QdrantIndex:
        analyzer = KeywordAnalyzer(
            language=settings.keyword_language,
            stem=settings.keyword_stem,
            stop_words=settings.keyword_stop_words,
        )
        with engine_errors(ENGINE, "connecting"):
            connection = connect(settings)
        index = cls(connection, collection or settings.collection, rrf_k=settings.rrf_k, analyzer=analyzer)
        index.cluster = ClusterLayout(
            shards=settings.qdrant_shards,
            replication_factor=settings.qdrant_replication_factor,
            write_consistency=settings.qdrant_write_consistency,
        )
        return index

    def close(self) -> None:
        self._conn.release()

    # --- collection ----------------------------------------------------------------------------------
    def _describe(self) -> Layout | None:
        """Read the collection's layout and metadata once; None when it does not exist."""
        if self._layout is not None:
            return self._layout
        with engine_errors(ENGINE, f"reading collection {self.name!r}"):
            if not self._client.collection_exists(self.name):
                return None
            config = self._client.get_collection(self.name)
        vectors = config.config.params.vectors
        if isinstance(vectors, dict) and DENSE in vectors:
            self._layout = "lectern"
            self._meta = dict((config.config.metadata or {}).get(META) or {})
            # the vector config is the truth on dimension, whoever created the collection
            self._meta["dimension"] = vectors[DENSE].size
            keyword = self._meta.get("keyword")
            self._analyzer = KeywordAnalyzer(**keyword) if keyword else None
        elif isinstance(vectors, models.VectorParams):
            self._layout = "legacy"
            self._meta = {"embedder_name": UNKNOWN_EMBEDDER, "dimension": vectors.size}
            self._legacy = LegacyReader(
                self._client, self.name, config, local=self._conn.local, rrf_k=self.rrf_k
            )
        else:
            raise VectorIndexError(
                f"{ENGINE}: collection {self.name!r} has neither a '{DENSE}' vector nor a single unnamed one"
            )
        return self._layout

    @property
    def analyzer(self) -> KeywordAnalyzer:
        """The analyzer the collection was written with, so queries spell terms as documents do."""
        return self._analyzer or self._default_analyzer

    def info(self) -> CollectionInfo | None:
        if self._describe() is None:
            return None
        return CollectionInfo(
            name=self.name,
            embedder_name=self._meta.get("embedder_name", UNKNOWN_EMBEDDER),
            dimension=int(self._meta["dimension"]),
        )

    def create(self, info: CollectionInfo) -> None:
        existing = self.info()
        if existing is not None:
            check_compatible(existing, info.embedder_name, info.dimension)
            return
        a = self._default_analyzer
        meta = {
            "embedder_name": info.embedder_name,
            "dimension": info.dimension,
            "keyword": {"language": a.language, "stem": a.stem, "stop_words": a.stop_words},
        }
        with engine_errors(ENGINE, f"creating {self.name!r}"):
            self._client.create_collection(
                self.name,
                vectors_config={
                    DENSE: models.VectorParams(size=info.dimension, distance=models.Distance.COSINE)
                },
                sparse_vectors_config={SPARSE: models.SparseVectorParams(modifier=models.Modifier.IDF)},
                metadata={META: meta},
                # a server spreads the collection by these; local mode ignores them
                shard_number=self.cluster.shards,
                replication_factor=self.cluster.replication_factor,
                write_consistency_factor=self.cluster.write_consistency,
            )
            if not self._conn.local:  # local mode has no payload indexes (and warns about them)
                self._create_payload_indexes()
        self._layout = None
        self._describe()

    def _create_payload_indexes(self) -> None:
        for key in PAYLOAD_KEYS:
            if key in INT_KEYS:
                self._client.create_payload_index(
                    self.name, key, field_schema=models.PayloadSchemaType.INTEGER
                )
            elif key == "url":
                self._create_url_index()
            else:
                self._client.create_payload_index(
                    self.name, key, field_schema=models.PayloadSchemaType.KEYWORD
                )

    def _create_url_index(self) -> None:
        """A keyword index with prefixes serves url_prefix filters; a server that does not know the
        option still gets a plain keyword index."""
        prefixed = models.KeywordIndexParams(type=models.KeywordIndexType.KEYWORD, prefix=True)
        try:
            self._client.create_payload_index(self.name, "url", field_schema=prefixed)
        except Exception:
            self._client.create_payload_index(self.name, "url", field_schema=models.PayloadSchemaType.KEYWORD)

    def drop(self) -> None:
        with engine_errors(ENGINE, f"dropping {self.name!r}"):
            if self._client.collection_exists(self.name):
                self._client.delete_collection(self.name)
        self._layout, self._meta, self._legacy, self._analyzer = None, {}, None, None

    # --- writes --------------------------------------------------------------------------------------
    def _writable(self) -> None:
        layout = self._describe()
        if layout is None:
            raise VectorIndexError(f"{ENGINE}: collection {self.name!r} does not exist; create it first")
        if layout == "legacy":
            raise VectorIndexError(
                f"{ENGINE}: collection {self.name!r} was written by another pipeline and is read-only here; "
                "ingest into a new collection"
            )

    def upsert(self, chunks: Sequence[Chunk], vectors: NDArray[np.float32]) -> None:
        if not chunks:
            return
        self._writable()
        matrix = checked_matrix(len(chunks), vectors, int(self._meta["dimension"]), self.name)
        analyzer = self.analyzer
        avgdl = self._average_length(analyzer, [c.search_text for c in chunks])
        with engine_errors(ENGINE, f"writing to {self.name!r}"):
            for start in range(0, len(chunks), WRITE_BATCH):
                points = [
                    self._point(chunk, vector, analyzer, avgdl)
                    for chunk, vector in zip(
                        chunks[start : start + WRITE_BATCH], matrix[start : start + WRITE_BATCH], strict=True
                    )
                ]
                self._client.upsert(self.name, points=points, wait=True)

    def _average_length(self, analyzer: KeywordAnalyzer, texts: list[str]) -> float:
        """BM25's avgdl, estimated from the first write and kept, so every document of a collection is
        normalised by the same length."""
        avgdl = self._meta.get("avgdl")
        if not avgdl:
            avgdl = average_length(analyzer, texts) or 1.0
            self._meta["avgdl"] = avgdl
            with engine_errors(ENGINE, f"updating {self.name!r}"):
                self._client.update_collection(self.name, metadata={META: self._meta})
        return float(avgdl)

    @staticmethod
    def _point(
        chunk: Chunk, vector: NDArray[np.float32], analyzer: KeywordAnalyzer, avgdl: float
    ) -> models.PointStruct:
        payload = chunk_record(chunk)
        sparse = document_vector(analyzer, payload.pop("search_text"), avgdl)
        return models.PointStruct(
            id=chunk_point_id(chunk.content_hash),
            vector={
                DENSE: vector.tolist(),
                SPARSE: models.SparseVector(indices=sparse.indices, values=sparse.values),
            },
            payload=payload,
        )

    def delete_hashes(self, hashes: Sequence[str]) -> None:
        if not hashes or self._describe() is None:
            return
        self._writable()
        ids: list[models.ExtendedPointId] = [chunk_point_id(h) for h in hashes]
        with engine_errors(ENGINE, f"deleting from {self.name!r}"):
            for start in range(0, len(ids), SCROLL_PAGE):
                selector = models.PointIdsList(points=ids[start : start + SCROLL_PAGE])
                self._client.delete(self.name, points_selector=selector, wait=True)

    def optimize(self) -> None:
        """Nothing to do: a Qdrant server indexes in the background, local mode has no indexes."""

    # --- reads ---------------------------------------------------------------------------------------
    def _chunk(self, payload: dict[str, Any] | None) -> Chunk:
        if self._layout == "legacy" and self._legacy is not None:
            return self._legacy.chunk(payload or {})
        return chunk_from_record(payload or {})

    def _scroll(self, fields: list[str] | bool, flt: models.Filter | None = None) -> Iterator[dict[str, Any]]:
        offset: models.ExtendedPointId | None = None
        while True:
            with engine_errors(ENGINE, f"reading {self.name!r}"):
                points, offset = self._client.scroll(
                    self.name, scroll_filter=flt, limit=SCROLL_PAGE, offset=offset, with_payload=fields
                )
            for point in points:
                yield point.payload or {}
            if offset is None:
                return

    def count(self) -> int:
        if self._describe() is None:
            return 0
        with engine_errors(ENGINE, f"counting {self.name!r}"):
            return int(self._client.count(self.name, exact=True).count)

    def hashes(self) -> set[str]:
        if self._describe() is None:
            return set()
        fields = True if self._layout == "legacy" else ["content_hash"]
        return {self._chunk(p).content_hash for p in self._scroll(fields)}

    def documents(self) -> list[DocumentSummary]:
        if self._describe() is None:
            return []
        fields = True if self._layout == "legacy" else ["source_path", "title", "url", "chunk_index"]
        rows = [self._chunk(p).model_dump() for p in self._scroll(fields)]
        return summarise_documents(rows)

    def chunks_of(self, source_path: str) -> list[Chunk]:
        if self._describe() is None:
            return []
        flt = models.Filter(
            must=[models.FieldCondition(key="source_path", match=models.MatchValue(value=source_path))]
        )
        return sorted((self._chunk(p) for p in self._scroll(True, flt)), key=lambda c: c.chunk_index)

    def stats(self) -> IndexStats:
        info = self.info()
        if info is None:
            return IndexStats(engine=ENGINE, collection=self.name, chunks=0, documents=0)
        legacy = self._legacy
        return IndexStats(
            engine=ENGINE,
            collection=self.name,
            chunks=self.count(),
            documents=len(self.documents()),
            embedder_name=info.embedder_name,
            dimension=info.dimension,
            has_ann_index=not self._conn.local,
            has_keyword_index=legacy.keyword_field is not None if legacy else True,
            details={"layout": self._layout, "local": self._conn.local, "avgdl": self._meta.get("avgdl")},
        )

    # --- search --------------------------------------------------------------------------------------
    def search(
        self,
        *,
        vector: QueryVector | None,
        text: str,
        mode: SearchModeName = "hybrid",
        top_k: int = 5,
        filters: SearchFilters | None = None,
    ) -> list[SearchHit]:
        layout = self._describe()
        if layout is None:
            return []
        query = checked_query(resolve_vector(vector), mode, int(self._meta["dimension"]), self.name)
        flt = qdrant_filter(filters, nested_extra=layout == "lectern")
        if self._legacy is not None:
            return self._legacy.search(query, text, mode, top_k, flt, self.analyzer)
        sparse = query_vector(self.analyzer, text)
        keyword = (
            models.SparseVector(indices=sparse.indices, values=sparse.values) if sparse.indices else None
        )
        sides: list[tuple[list[float] | models.SparseVector, str]] = []
        if query is not None and mode != "keyword":
            sides.append((query.tolist(), DENSE))
        if keyword is not None and mode != "dense":
            sides.append((keyword, SPARSE))
        if not sides:
            return []
        # one side alone: its candidates are the hits, read whole (one row more than asked for);
        # hybrid: the sides rank on keys, and only the fused top_k are read whole
        whole = mode != "hybrid"
        depth = top_k if whole else candidate_depth(top_k)
        points: dict[str, models.ScoredPoint | models.Record]
        with engine_errors(ENGINE, f"searching {self.name!r}"):
            found = self._candidates(sides, flt, depth, whole)
            dense = found[0] if mode != "keyword" and query is not None else []
            bm25 = found[-1] if mode != "dense" and keyword is not None else []
            if mode == "hybrid":
                rankings = [[key for key, _, _ in side] for side in (dense, bm25)]
                ranked = rrf_fuse(rankings, self.rrf_k)[:top_k]
                points = self._points([key for key, _ in ranked])
            else:
                ranked = [(key, score) for key, _, score in found[0]]
                points = {key: point for key, point, _ in found[0]}
        ranked = [(key, score) for key, score in ranked if key in points]  # deleted since: left out
        vectors = stack([_dense_of(points[key]) for key, _ in ranked])
        chunks = {key: chunk_from_record(points[key].payload or {}) for key, _ in ranked}
        keyword_scores = {key: score for key, _, score in bm25}
        return ranked_hits(ranked, chunks, vectors, query, keyword_scores, mode)

    def _candidates(
        self,
        sides: list[tuple[list[float] | models.SparseVector, str]],
        flt: models.Filter | None,
        n: int,
        whole: bool,
    ) -> list[list[tuple[str, models.ScoredPoint, float]]]:
        """Each side's n best (content hash, point, score), in `best_first` order, all sides in one
        request (`query_batch_points`); `whole`: the points carry their payload and dense vector, else
        only their content hash. Ranked here, not fused on the server: Qdrant orders equal scores its
        own way, and picks which of the points tied at the n-th place it returns; each side asks for one
        point more, and while that point ties with the n-th, for twice as many (as LanceDB's and
        pgvector's searches, `fusion.cut_inside_ties`). Its RRF counts ranks from 0 besides, the other
        engines from 1 (`fusion.rrf_fuse`)."""
        limits = [n + 1] * len(sides)
        found: list[list[tuple[str, models.ScoredPoint, float]]] = [[] for _ in sides]
        pending = list(range(len(sides)))
        while pending:
            requests = [
                models.QueryRequest(
                    query=sides[i][0],
                    using=sides[i][1],
                    filter=flt,
                    limit=limits[i],
                    with_payload=True if whole else ["content_hash"],
                    with_vector=[DENSE] if whole else False,
                )
                for i in pending
            ]
            responses = self._client.query_batch_points(self.name, requests=requests)
            waiting = []
            for i, response in zip(pending, responses, strict=True):
                ranked = best_first([(_hash_of(p), p, p.score) for p in response.points])
                if cut_inside_ties([score for *_, score in ranked], n, limits[i]):
                    limits[i] *= 2
                    waiting.append(i)
                else:
                    found[i] = ranked[:n]
            pending = waiting
        return found

    def _points(self, keys: list[str]) -> dict[str, models.ScoredPoint | models.Record]:
        """The points of these content hashes, with payload and dense vector (a point deleted since is
        left out)."""
        if not keys:
            return {}
        ids: list[models.ExtendedPointId] = [chunk_point_id(key) for key in keys]
        records = self._client.retrieve(self.name, ids=ids, with_payload=True, with_vectors=[DENSE])
        return {_hash_of(r): r for r in records}


def _hash_of(point: models.ScoredPoint | models.Record) -> str:
    return str((point.payload or {}).get("content_hash") or "")


def _dense_of(point: models.ScoredPoint | models.Record) -> list[float]:
    raw = point.vector
    vector = raw.get(DENSE) if isinstance(raw, dict) else raw
    if not isinstance(vector, list) or (vector and not isinstance(vector[0], float | int)):
        raise VectorIndexError(f"{ENGINE}: point {point.id} came back without its dense vector")
    return [float(x) for x in vector]  # type: ignore[arg-type]
