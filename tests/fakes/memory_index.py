"""An in-memory VectorIndex for unit tests: exact dense search, naive keyword overlap, RRF hybrid."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
from numpy.typing import NDArray

from lectern.errors import EmbedderMismatch
from lectern.index.base import DocumentSummary, QueryVector, SearchFilters, resolve_vector
from lectern.models import Chunk, CollectionInfo, IndexStats, SearchHit, SearchModeName


class MemoryIndex:
    engine = "memory"

    def __init__(self, collection: str = "test") -> None:
        self.collection = collection
        self._info: CollectionInfo | None = None
        self.rows: dict[str, tuple[Chunk, NDArray[np.float32]]] = {}
        self.upserts = 0
        self.searches = 0

    def info(self) -> CollectionInfo | None:
        return self._info

    def create(self, info: CollectionInfo) -> None:
        if self._info and (self._info.embedder_name, self._info.dimension) != (
            info.embedder_name,
            info.dimension,
        ):
            raise EmbedderMismatch("collection built with another embedder")
        self._info = self._info or info

    def upsert(self, chunks: Sequence[Chunk], vectors: NDArray[np.float32]) -> None:
        self.upserts += 1
        for chunk, vector in zip(chunks, vectors, strict=True):
            self.rows[chunk.content_hash] = (chunk, vector)

    def delete_hashes(self, hashes: Sequence[str]) -> None:
        for h in hashes:
            self.rows.pop(h, None)

    def hashes(self) -> set[str]:
        return set(self.rows)

    def _matches(self, chunk: Chunk, filters: SearchFilters | None) -> bool:
        if filters is None:
            return True
        data = {**chunk.extra, **chunk.model_dump()}
        for key, want in filters.equals.items():
            wanted = want if isinstance(want, list) else [want]
            if str(data.get(key)) not in {str(w) for w in wanted}:
                return False
        return not filters.url_prefix or chunk.url.startswith(filters.url_prefix)

    def search(
        self,
        *,
        vector: QueryVector | None,
        text: str,
        mode: SearchModeName = "hybrid",
        top_k: int = 5,
        filters: SearchFilters | None = None,
    ) -> list[SearchHit]:
        self.searches += 1
        vector = resolve_vector(vector)
        rows = [(c, v) for c, v in self.rows.values() if self._matches(c, filters)]
        sims = {
            c.content_hash: float(np.clip(v @ vector, 0, 1)) if vector is not None else 0.0 for c, v in rows
        }
        terms = set(text.lower().split())
        kw = {c.content_hash: float(len(terms & set(c.search_text.lower().split()))) for c, _ in rows}
        dense = sorted(rows, key=lambda r: -sims[r[0].content_hash])
        keyword = sorted((r for r in rows if kw[r[0].content_hash] > 0), key=lambda r: -kw[r[0].content_hash])
        if mode == "dense":
            ranked = [(c, sims[c.content_hash]) for c, _ in dense]
        elif mode == "keyword":
            ranked = [(c, kw[c.content_hash]) for c, _ in keyword]
        else:
            fused: dict[str, float] = {}
            for ranking in (dense, keyword):
                for rank, (c, _) in enumerate(ranking, 1):
                    fused[c.content_hash] = fused.get(c.content_hash, 0.0) + 1 / (60 + rank)
            by_hash = {c.content_hash: c for c, _ in rows}
            ranked = [(by_hash[h], s) for h, s in sorted(fused.items(), key=lambda x: -x[1])]
        return [
            SearchHit(
                chunk=c,
                similarity=sims[c.content_hash],
                keyword_score=kw[c.content_hash] or None,
                score=s,
                rank=i,
            )
            for i, (c, s) in enumerate(ranked[:top_k], 1)
        ]

    def count(self) -> int:
        return len(self.rows)

    def stats(self) -> IndexStats:
        return IndexStats(
            engine=self.engine,
            collection=self.collection,
            chunks=self.count(),
            documents=len(self.documents()),
        )

    def documents(self) -> list[DocumentSummary]:
        by_path: dict[str, list[Chunk]] = {}
        for chunk, _ in self.rows.values():
            by_path.setdefault(chunk.source_path, []).append(chunk)
        return [
            DocumentSummary(p, cs[0].title, cs[0].url.split("#")[0], len(cs))
            for p, cs in sorted(by_path.items())
        ]

    def chunks_of(self, source_path: str) -> list[Chunk]:
        return sorted(
            (c for c, _ in self.rows.values() if c.source_path == source_path), key=lambda c: c.chunk_index
        )

    def optimize(self) -> None:
        pass

    def drop(self) -> None:
        self.rows.clear()
        self._info = None
