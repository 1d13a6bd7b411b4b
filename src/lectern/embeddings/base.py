"""The embedder protocol. Documents and queries are embedded differently by some providers
(Cohere's ``input_type``), so the protocol keeps the two calls apart."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Protocol, runtime_checkable

import numpy as np
from numpy.typing import NDArray

Vectors = NDArray[np.float32]


@runtime_checkable
class Tokenizer(Protocol):
    """Counts tokens the way the embedder will see them (special tokens excluded)."""

    def count_tokens(self, text: str) -> int: ...

    def count_tokens_many(self, texts: Sequence[str]) -> list[int]: ...


@runtime_checkable
class Embedder(Tokenizer, Protocol):
    """Turns text into L2-normalised float32 vectors of a fixed dimension."""

    @property
    def name(self) -> str:
        """Stable identifier stored with a collection, e.g. ``local:all-MiniLM-L6-v2``."""
        ...

    @property
    def dimension(self) -> int: ...

    @property
    def max_tokens(self) -> int:
        """Largest number of content tokens (special tokens excluded) the model reads without cutting."""
        ...

    def embed_documents(self, texts: Sequence[str]) -> Vectors:
        """Shape (len(texts), dimension)."""
        ...

    def embed_query(self, text: str) -> Vectors:
        """Shape (dimension,)."""
        ...


def l2_normalise(vectors: Vectors) -> Vectors:
    norms = row_norms(vectors, keepdims=True)
    norms[norms == 0] = 1.0
    normalised: Vectors = (vectors / norms).astype(np.float32, copy=False)
    return normalised


# np.linalg.norm's own arithmetic without its argument handling (~3 us a call, a few calls a search):
# the same operations in the same order, so the same bits.


def vector_norm(vector: NDArray[np.floating]) -> float:
    """`float(np.linalg.norm(vector))` of a 1-d float array: its sqrt(v . v)."""
    return float(np.sqrt(vector.dot(vector)))


def row_norms(matrix: NDArray[np.floating], *, keepdims: bool = False) -> NDArray[np.floating]:
    """`np.linalg.norm(matrix, axis=-1, keepdims=keepdims)` of a float array: the square root of the
    sum of its last axis' squares, as numpy's norm takes it with an axis."""
    squares = matrix * matrix
    summed = np.add.reduce(squares, axis=-1, keepdims=True) if keepdims else np.add.reduce(squares, axis=-1)
    norms: NDArray[np.floating] = np.sqrt(summed)
    return norms
