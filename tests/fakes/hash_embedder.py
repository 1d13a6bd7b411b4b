"""A deterministic bag-of-words embedder for unit tests: similar words, similar vectors."""

from __future__ import annotations

import hashlib
import re
from collections.abc import Sequence

import numpy as np

from lectern.embeddings.base import Vectors, l2_normalise

_WORD = re.compile(r"\w+")


class HashEmbedder:
    name = "fake:hash"
    dimension = 64
    max_tokens = 64

    def __init__(self) -> None:
        self.document_calls: list[int] = []
        self.query_calls = 0

    def _tokens(self, text: str) -> list[str]:
        return _WORD.findall(text.lower())

    def count_tokens(self, text: str) -> int:
        return len(self._tokens(text))

    def count_tokens_many(self, texts: Sequence[str]) -> list[int]:
        return [self.count_tokens(t) for t in texts]

    def _vector(self, text: str) -> np.ndarray:
        vec = np.zeros(self.dimension, dtype=np.float32)
        for token in self._tokens(text):
            vec[int(hashlib.md5(token.encode()).hexdigest(), 16) % self.dimension] += 1.0
        if not vec.any():
            vec[0] = 1.0
        return vec

    def embed_documents(self, texts: Sequence[str]) -> Vectors:
        self.document_calls.append(len(texts))
        return (
            l2_normalise(np.stack([self._vector(t) for t in texts]))
            if texts
            else np.zeros((0, self.dimension), np.float32)
        )

    def embed_query(self, text: str) -> Vectors:
        self.query_calls += 1
        return l2_normalise(self._vector(text)[None, :])[0]
