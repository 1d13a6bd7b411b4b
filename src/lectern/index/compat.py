"""A collection answers only queries embedded by the embedder that built it, and takes only vectors
of its dimension."""

from __future__ import annotations

import numpy as np
from numpy.typing import NDArray

from lectern.errors import EmbedderMismatch, InvalidInput
from lectern.index.base import VectorIndex
from lectern.index.fusion import unit
from lectern.models import CollectionInfo, SearchModeName

# A collection written by another pipeline does not say which embedder it used; only its
# dimension can be checked.
UNKNOWN_EMBEDDER = ""


def check_compatible(existing: CollectionInfo, embedder_name: str, dimension: int) -> None:
    """Raise EmbedderMismatch when vectors from this embedder cannot be compared with the collection's."""
    same_name = existing.embedder_name in (UNKNOWN_EMBEDDER, embedder_name)
    if same_name and existing.dimension == dimension:
        return
    built = existing.embedder_name or "an unknown embedder"
    raise EmbedderMismatch(
        f"collection {existing.name!r} was built with {built} ({existing.dimension} dimensions), "
        f"not {embedder_name} ({dimension} dimensions): use the same embedder, or re-ingest into a "
        "new collection"
    )


def ensure_query_embedder(index: VectorIndex, embedder_name: str, dimension: int) -> None:
    """What a caller runs before a query: refuse one embedded by another model. A collection that
    does not exist yet accepts any embedder (the search then finds nothing)."""
    info = index.info()
    if info is not None:
        check_compatible(info, embedder_name, dimension)


def checked_matrix(
    count: int, vectors: NDArray[np.float32], dimension: int, collection: str
) -> NDArray[np.float32]:
    """The vectors to write, as float32 rows, one per chunk, of the collection's dimension."""
    matrix = np.asarray(vectors, dtype=np.float32)
    if matrix.ndim != 2 or len(matrix) != count:
        raise InvalidInput(f"upsert: {count} chunks but vectors of shape {matrix.shape}")
    if matrix.shape[1] != dimension:
        raise EmbedderMismatch(
            f"collection {collection!r} holds {dimension}-d vectors, got {matrix.shape[1]}-d"
        )
    return matrix


def checked_query(
    vector: NDArray[np.float32] | None, mode: SearchModeName, dimension: int, collection: str
) -> NDArray[np.float32] | None:
    """The query vector at unit length; None for a keyword search without one."""
    if vector is None:
        if mode != "keyword":
            raise InvalidInput(f"{mode} search needs a query vector")
        return None
    query = unit(vector)
    if query.shape[0] != dimension:
        raise EmbedderMismatch(
            f"collection {collection!r} holds {dimension}-d vectors, the query is {query.shape[0]}-d"
        )
    return query
