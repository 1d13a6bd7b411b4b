"""Index engines, chosen by ``settings.index_engine`` through a registry."""

from __future__ import annotations

from collections.abc import Callable

from lectern.errors import ConfigError
from lectern.index.base import PAYLOAD_KEYS, DocumentSummary, SearchFilters, VectorIndex
from lectern.index.compat import check_compatible, ensure_query_embedder
from lectern.index.lancedb_import import defer_rest_client, import_lancedb
from lectern.settings import Settings

IndexFactory = Callable[[Settings, str | None], VectorIndex]

# Here, before any submodule can import lancedb (lancedb_index does): see lancedb_import.
defer_rest_client()


# Engines import lazily: a LanceDB user never pays for importing qdrant-client, and the reverse.
def _lancedb(settings: Settings, collection: str | None) -> VectorIndex:
    import_lancedb()  # before lancedb_index imports it: see lancedb_import
    from lectern.index.lancedb_index import LanceDBIndex

    return LanceDBIndex.from_settings(settings, collection)


def _qdrant(settings: Settings, collection: str | None) -> VectorIndex:
    from lectern.index.qdrant_index import QdrantIndex

    return QdrantIndex.from_settings(settings, collection)


def _pgvector(settings: Settings, collection: str | None) -> VectorIndex:
    from lectern.index.pgvector_index import PgVectorIndex

    return PgVectorIndex.from_settings(settings, collection)


ENGINES: dict[str, IndexFactory] = {"lancedb": _lancedb, "qdrant": _qdrant, "pgvector": _pgvector}


def open_index(settings: Settings, collection: str | None = None) -> VectorIndex:
    """The configured engine's index on ``collection`` (default: ``settings.collection``)."""
    try:
        factory = ENGINES[settings.index_engine]
    except KeyError:
        raise ConfigError(
            f"LECTERN_INDEX_ENGINE: unknown engine {settings.index_engine!r}; one of {', '.join(ENGINES)}"
        ) from None
    return factory(settings, collection)


__all__ = [
    "ENGINES",
    "PAYLOAD_KEYS",
    "DocumentSummary",
    "SearchFilters",
    "VectorIndex",
    "check_compatible",
    "ensure_query_embedder",
    "open_index",
]
