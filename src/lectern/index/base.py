"""The vector index protocol: one collection of chunks with vectors, text and metadata,
searched densely, by keyword (BM25) or both fused by reciprocal rank."""

from __future__ import annotations

import logging
from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Protocol, runtime_checkable

import numpy as np
from numpy.typing import NDArray

from lectern.models import Chunk, CollectionInfo, IndexStats, SearchHit, SearchModeName

log = logging.getLogger(__name__)

# Chunk fields that every engine stores as first-class, filterable payload keys.
PAYLOAD_KEYS: tuple[str, ...] = (
    "content_hash",
    "chunk_index",
    "token_count",
    "title",
    "chapter",
    "section",
    "module_name",
    "chapter_id",
    "url",
    "source_path",
    "page",
)


# A query vector, or the function that embeds it: an engine may search by keyword meanwhile.
QueryVector = NDArray[np.float32] | Callable[[], NDArray[np.float32]]


def resolve_vector(vector: QueryVector | None) -> NDArray[np.float32] | None:
    return vector() if callable(vector) else vector


@dataclass(frozen=True)
class SearchFilters:
    """Equality on payload keys (a list value means any of), plus a URL prefix."""

    equals: Mapping[str, Any] = field(default_factory=dict)
    url_prefix: str | None = None

    def is_empty(self) -> bool:
        return not self.equals and not self.url_prefix

    @classmethod
    def parse(cls, pairs: Sequence[str]) -> SearchFilters:
        """From CLI ``key=value`` pairs; ``url_prefix=...`` sets the prefix."""
        equals: dict[str, Any] = {}
        prefix: str | None = None
        for pair in pairs:
            key, sep, value = pair.partition("=")
            if not sep or not key.strip():
                raise ValueError(f"filter {pair!r} is not of the form key=value")
            key = key.strip()
            if key == "url_prefix":
                prefix = value
            elif key in equals:
                existing = equals[key]
                equals[key] = [*existing, value] if isinstance(existing, list) else [existing, value]
            else:
                equals[key] = value
        return cls(equals=equals, url_prefix=prefix)


@dataclass(frozen=True)
class DocumentSummary:
    source_path: str
    title: str
    url: str
    chunks: int


@runtime_checkable
class VectorIndex(Protocol):
    """One collection in one engine. Implementations are synchronous; the server calls them
    from a thread pool."""

    engine: str

    def info(self) -> CollectionInfo | None:
        """What the collection was built with, or None when it does not exist yet."""
        ...

    def create(self, info: CollectionInfo) -> None:
        """Create the collection if missing; refuse (EmbedderMismatch) if it exists with another embedder."""
        ...

    def upsert(self, chunks: Sequence[Chunk], vectors: NDArray[np.float32]) -> None:
        """Insert or replace chunks keyed by content hash."""
        ...

    def delete_hashes(self, hashes: Sequence[str]) -> None: ...

    def hashes(self) -> set[str]:
        """Every content hash stored (used to reconcile after a crash)."""
        ...

    def search(
        self,
        *,
        vector: QueryVector | None,
        text: str,
        mode: SearchModeName = "hybrid",
        top_k: int = 5,
        filters: SearchFilters | None = None,
    ) -> list[SearchHit]:
        """Best hits first. Every hit carries its dense cosine similarity, whatever the mode.
        A callable `vector` is called (once) whenever the engine needs the vector."""
        ...

    def count(self) -> int: ...

    def stats(self) -> IndexStats: ...

    def documents(self) -> list[DocumentSummary]: ...

    def chunks_of(self, source_path: str) -> list[Chunk]:
        """A document's chunks in chunk order."""
        ...

    def optimize(self) -> None:
        """Build or refresh keyword/ANN indexes after writes. Cheap when nothing changed."""
        ...

    def drop(self) -> None: ...


@runtime_checkable
class PreparesInMemory(Protocol):
    """An index that holds in-memory structures for searching (LanceDB: the table and its keyword
    index), which a server builds before it serves so that no answer waits for them."""

    def prepare(self) -> bool:
        """Build them now; whether the index could."""
        ...


def prepare_in_memory(index: VectorIndex) -> None:
    """The index's in-memory structures built before the first question (an index that has any:
    `PreparesInMemory`), so no answer waits for them or runs the index's slower path meanwhile.
    A failure leaves the index as it was: questions build them later, as without this."""
    if not isinstance(index, PreparesInMemory):
        return
    try:
        index.prepare()
    except Exception:
        log.warning("index_not_prepared", exc_info=True)


@runtime_checkable
class ListsEveryChunk(Protocol):
    """An index that can read every chunk of every collection kept beside its own (LanceDB: the tables
    of the data dir), so that what only dead chunks need can be dropped (`lectern.prune`). Engines where
    that is impossible or costly (a shared server) do not implement it, and nothing is pruned."""

    def collection_names(self) -> list[str]:
        """Every collection kept beside this one, this one included."""
        ...

    def every_chunk_text(self) -> Iterator[tuple[str, str, str]] | None:
        """(content_hash, text, search_text) of every chunk of every collection, a batch at a time;
        None when one of them cannot be read (a table not made by Lectern)."""
        ...
