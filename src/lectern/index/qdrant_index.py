"""Qdrant engine: a server or cluster (``qdrant_url`` + ``qdrant_api_key``) or local mode.

Layout: a named dense vector ``dense`` (cosine) and a sparse vector ``bm25`` (``modifier=IDF``) whose
document weights :mod:`lectern.index.sparse` computes. Hybrid search is one Query API call: two
prefetches fused by RRF on the server. The collection info lives in the collection metadata.
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
from lectern.index.fusion import candidate_depth, cosine_similarities, stack
from lectern.index.payload import (
    INT_KEYS,
    chunk_from_record,
    chunk_record,
    engine_errors,
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
        request: dict[str, Any] = {
            "limit": top_k,
            "query_filter": flt,
            "with_payload": True,
            "with_vectors": [DENSE],
        }
        if mode == "dense":
            request.update(query=query.tolist() if query is not None else None, using=DENSE)
        elif mode == "keyword":
            if keyword is None:
                return []
            request.update(query=keyword, using=SPARSE)
        else:
            depth = candidate_depth(top_k)
            prefetch = [
                models.Prefetch(query=q, using=using, filter=flt, limit=depth)
                for q, using in ((query.tolist() if query is not None else None, DENSE), (keyword, SPARSE))
                if q is not None
            ]
            if not prefetch:
                return []
            request.update(prefetch=prefetch, query=models.RrfQuery(rrf=models.Rrf(k=self.rrf_k)))
        with engine_errors(ENGINE, f"searching {self.name!r}"):
            points = self._client.query_points(self.name, **request).points
        return self._hits(query, points, mode)

    def _hits(
        self, query: NDArray[np.float32] | None, points: list[models.ScoredPoint], mode: SearchModeName
    ) -> list[SearchHit]:
        vectors = stack([_dense_of(p) for p in points])
        sims = cosine_similarities(query, vectors)
        return [
            SearchHit(
                chunk=self._chunk(p.payload),
                similarity=sim,
                # server-side fusion does not report each side's score
                keyword_score=p.score if mode == "keyword" else None,
                score=sim if mode == "dense" else p.score,
                rank=rank,
                vector=vec.tolist(),  # confidence diversity needs it; never serialised
            )
            for rank, (p, sim, vec) in enumerate(zip(points, sims, vectors, strict=True), start=1)
        ]


def _dense_of(point: models.ScoredPoint | models.Record) -> list[float]:
    raw = point.vector
    vector = raw.get(DENSE) if isinstance(raw, dict) else raw
    if not isinstance(vector, list) or (vector and not isinstance(vector[0], float | int)):
        raise VectorIndexError(f"{ENGINE}: point {point.id} came back without its dense vector")
    return [float(x) for x in vector]  # type: ignore[arg-type]
