"""What every remote embedder shares: batching, retries, token counting and result checks.

A provider module subclasses ``RemoteEmbedder`` and supplies one request (a batch of texts, documents
or query) and a ``classify`` for its SDK's exceptions.
"""

from __future__ import annotations

import math
from abc import ABC, abstractmethod
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from typing import Literal

import numpy as np
from tokenizers import Tokenizer as HFTokenizer

from lectern.embeddings import minilm_assets as assets
from lectern.embeddings.base import Vectors, l2_normalise
from lectern.embeddings.retry import Failure, RetryPolicy, call_with_retries
from lectern.errors import EmbedderMissing, ProviderError

InputKind = Literal["document", "query"]


@dataclass(frozen=True)
class ModelSpec:
    """What a provider's model is known to produce and read."""

    dimension: int
    max_tokens: int


def estimate_tokens(text: str) -> int:
    """Upper-bound guess without a tokenizer: BPE averages ~4 ASCII characters per token, so count
    one per 3, and one per non-ASCII character (CJK and emoji are often a token each, or more)."""
    ascii_chars = sum(1 for ch in text if ch.isascii())
    return math.ceil(ascii_chars / 3) + (len(text) - ascii_chars)


class FallbackTokenCounter:
    """Counts with the bundled MiniLM WordPiece tokenizer when installed (it over-counts relative to
    the providers' BPE tokenizers, which is the safe side for chunk budgets), else estimates."""

    def __init__(self) -> None:
        self._tokenizer: HFTokenizer | None
        try:
            self._tokenizer = assets.counting_tokenizer()
        except EmbedderMissing:
            self._tokenizer = None

    @property
    def exact_wordpiece(self) -> bool:
        return self._tokenizer is not None

    def count_tokens(self, text: str) -> int:
        return self.count_tokens_many([text])[0]

    def count_tokens_many(self, texts: Sequence[str]) -> list[int]:
        if not texts:
            return []
        if self._tokenizer is None:
            return [estimate_tokens(t) for t in texts]
        return assets.count_content_tokens(self._tokenizer, list(texts))


class RemoteEmbedder(ABC):
    """An ``Embedder`` over a remote API. Subclasses set ``provider`` and implement two methods."""

    provider: str = "remote"
    """Display name in errors and logs, e.g. "OpenAI"."""
    max_batch: int = 2048
    """The API's own limit on inputs per request."""
    max_request_tokens: int | None = None
    """The API's limit on tokens summed over one request, if it has one."""

    def __init__(
        self,
        *,
        name: str,
        model: str,
        max_tokens: int,
        batch_size: int,
        policy: RetryPolicy,
        dimension: int | None = None,
        config_hint: str = "",
    ) -> None:
        self._name = name
        self.model = model
        self._max_tokens = max_tokens
        self.batch_size = max(1, min(batch_size, self.max_batch))
        self.policy = policy
        self._dimension = dimension
        self.config_hint = config_hint
        self._counter = FallbackTokenCounter()

    # --- provider specifics --------------------------------------------------------------------
    @abstractmethod
    def _request(self, texts: list[str], kind: InputKind) -> list[list[float]]:
        """One API call: one vector per text, in order."""

    @abstractmethod
    def _classify(self, exc: BaseException) -> Failure | None:
        """Turn an SDK exception into a Failure; None for anything that is not a provider failure."""

    # --- Embedder ------------------------------------------------------------------------------
    @property
    def name(self) -> str:
        return self._name

    @property
    def dimension(self) -> int:
        """Known for the providers' own models; for others, learnt from one probe request."""
        if self._dimension is None:
            self._dimension = len(self._call(["dimension probe"], "query")[0])
        return self._dimension

    @property
    def max_tokens(self) -> int:
        return self._max_tokens

    def count_tokens(self, text: str) -> int:
        return self._counter.count_tokens(text)

    def count_tokens_many(self, texts: Sequence[str]) -> list[int]:
        return self._counter.count_tokens_many(texts)

    def embed_documents(self, texts: Sequence[str]) -> Vectors:
        vectors: list[list[float]] = []
        for batch in self._batches(list(texts)):
            vectors.extend(self._call(batch, "document"))
        return self._finish(vectors, len(texts))

    def embed_query(self, text: str) -> Vectors:
        vector: Vectors = self._finish(self._call([text], "query"), 1)[0]
        return vector

    # --- internals -----------------------------------------------------------------------------
    def _call(self, texts: list[str], kind: InputKind) -> list[list[float]]:
        vectors = call_with_retries(
            lambda: self._request(texts, kind),
            provider=self.provider,
            policy=self.policy,
            classify=self._classify,
            config_hint=self.config_hint,
        )
        if len(vectors) != len(texts):
            raise ProviderError(
                f"{self.provider} returned {len(vectors)} embeddings for {len(texts)} inputs "
                f"(model {self.model}); check that LECTERN_EMBEDDING_BASE_URL serves an embeddings API."
            )
        return vectors

    def _batches(self, texts: list[str]) -> Iterator[list[str]]:
        """At most ``batch_size`` texts and, where the API caps it, ``max_request_tokens`` per request."""
        limit = self.max_request_tokens
        if limit is None or self.batch_size * self._max_tokens <= limit:
            for start in range(0, len(texts), self.batch_size):
                yield texts[start : start + self.batch_size]
            return
        batch: list[str] = []
        tokens = 0
        for text, count in zip(texts, self.count_tokens_many(texts), strict=True):
            if batch and (len(batch) >= self.batch_size or tokens + count > limit):
                yield batch
                batch, tokens = [], 0
            batch.append(text)
            tokens += count
        if batch:
            yield batch

    def _finish(self, vectors: list[list[float]], expected: int) -> Vectors:
        if expected == 0:
            return np.zeros((0, self._dimension or 0), dtype=np.float32)
        array = np.asarray(vectors, dtype=np.float32)
        if array.ndim != 2 or (self._dimension is not None and array.shape[1] != self._dimension):
            got = array.shape[1] if array.ndim == 2 else "ragged"
            raise ProviderError(
                f"{self.provider} returned {got}-dimensional embeddings from model {self.model}, "
                f"expected {self._dimension}; check LECTERN_EMBEDDING_MODEL."
            )
        if self._dimension is None:
            self._dimension = int(array.shape[1])
        return l2_normalise(array)
