"""A base for embedders that wrap another one and change only some of its calls.

The query cache and ingest's resumable embedder each alter one call (``embed_query``,
``embed_documents``); everything else (name, dimension, token counts) must stay the inner model's,
or a collection would record another embedder than the one that made its vectors.
"""

from __future__ import annotations

from collections.abc import Sequence

from lectern.embeddings.base import Embedder, Vectors


class WrappedEmbedder:
    """An ``Embedder`` that passes every call to ``inner``; subclasses override what they change."""

    def __init__(self, inner: Embedder) -> None:
        self.inner = inner

    @property
    def name(self) -> str:
        return self.inner.name

    @property
    def dimension(self) -> int:
        return self.inner.dimension

    @property
    def max_tokens(self) -> int:
        return self.inner.max_tokens

    def count_tokens(self, text: str) -> int:
        return self.inner.count_tokens(text)

    def count_tokens_many(self, texts: Sequence[str]) -> list[int]:
        return self.inner.count_tokens_many(texts)

    def embed_documents(self, texts: Sequence[str]) -> Vectors:
        return self.inner.embed_documents(texts)

    def embed_query(self, text: str) -> Vectors:
        return self.inner.embed_query(text)
