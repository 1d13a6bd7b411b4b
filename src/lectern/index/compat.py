"""A collection answers only queries embedded by the embedder that built it."""

from __future__ import annotations

from lectern.errors import EmbedderMismatch
from lectern.index.base import VectorIndex
from lectern.models import CollectionInfo

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
