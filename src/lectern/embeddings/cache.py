"""An LRU cache of query embeddings, by exact text, in front of any embedder.

Docs Q&A sees the same questions again and again ("How do I install ROS 2?"), and embedding one costs
5-15 ms of CPU locally or a paid round trip remotely; a cached vector costs a dictionary lookup.
Documents are never cached: ingestion embeds each chunk once, and holding them would only grow memory.
"""

from __future__ import annotations

import threading
from collections import OrderedDict
from dataclasses import dataclass

from lectern.embeddings.base import Embedder, Vectors
from lectern.embeddings.wrapper import WrappedEmbedder


@dataclass(frozen=True)
class CacheStats:
    hits: int
    misses: int
    size: int
    capacity: int


class CachedEmbedder(WrappedEmbedder):
    """An ``Embedder`` whose ``embed_query`` remembers the last ``capacity`` texts. Thread-safe:
    retrievals run in worker threads. Two threads missing on one text both embed it, which is rarer and
    cheaper than making one wait for the other."""

    def __init__(self, inner: Embedder, capacity: int) -> None:
        if capacity < 1:
            raise ValueError("capacity must be at least 1")
        super().__init__(inner)
        self.capacity = capacity
        self._vectors: OrderedDict[str, Vectors] = OrderedDict()
        self._lock = threading.Lock()
        self._hits = 0
        self._misses = 0

    def embed_query(self, text: str) -> Vectors:
        with self._lock:
            vector = self._vectors.get(text)
            if vector is not None:
                self._vectors.move_to_end(text)
                self._hits += 1
                return vector.copy()  # callers own what they get, as with an uncached embedder
            self._misses += 1
        vector = self.inner.embed_query(text)
        stored = vector.copy()
        stored.flags.writeable = False
        with self._lock:
            self._vectors[text] = stored
            self._vectors.move_to_end(text)
            while len(self._vectors) > self.capacity:
                self._vectors.popitem(last=False)
        return vector

    def stats(self) -> CacheStats:
        with self._lock:
            return CacheStats(self._hits, self._misses, len(self._vectors), self.capacity)


def with_query_cache(embedder: Embedder, capacity: int) -> Embedder:
    """``embedder`` behind a query cache of ``capacity`` texts; 0 leaves it uncached."""
    return CachedEmbedder(embedder, capacity) if capacity > 0 else embedder


def uncached(embedder: Embedder) -> Embedder:
    """The embedder behind any query cache: for health probes, which must reach the real model."""
    return embedder.inner if isinstance(embedder, CachedEmbedder) else embedder
