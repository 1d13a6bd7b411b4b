"""Checks the commands run before they answer, so a mistake reads as what to do, not as a refusal."""

from __future__ import annotations

from typing import TYPE_CHECKING

from lectern.errors import InvalidInput, NotFound

if TYPE_CHECKING:
    from lectern.index.base import SearchFilters
    from lectern.ingest.manifest import CollectionSummary
    from lectern.runtime import Runtime

# Payload keys every chunk has; front-matter keys of the documents come on top.
CHUNK_KEYS = (
    "title",
    "chapter",
    "section",
    "module_name",
    "chapter_id",
    "url",
    "source_path",
    "page",
    "chunk_index",
)


class EmptyCollection(NotFound):
    code = "empty_collection"


def known_collections(runtime: Runtime) -> list[CollectionSummary]:
    """The collections ingested under this data directory (none when nothing was ever ingested)."""
    if not runtime.settings.state_db_path.exists():
        return []
    return runtime.manifest.collections()


def collection_problem(runtime: Runtime) -> NotFound | None:
    """Why the runtime's collection cannot answer (missing or empty), or None when it can."""
    name = runtime.collection
    if runtime.index.info() is None:
        names = [c.name for c in known_collections(runtime) if c.name != name]
        if not names:
            return NotFound(
                f"collection '{name}' does not exist: nothing has been ingested yet. "
                "Run: lectern ingest PATH"
                + (f" --collection {name}" if name != runtime.settings.collection else "")
            )
        return NotFound(
            f"collection '{name}' does not exist; collections: {', '.join(names)} (choose one with -c NAME)"
        )
    if runtime.index.count() == 0:
        return EmptyCollection(f"collection '{name}' is empty: run lectern ingest PATH -c {name}")
    return None


def require_collection(runtime: Runtime) -> None:
    problem = collection_problem(runtime)
    if problem is not None:
        raise problem


def check_filters(runtime: Runtime, filters: SearchFilters | None) -> None:
    """A filter that matches no chunk at all is a typo or a wrong value: say which, with the known keys."""
    if filters is None or filters.is_empty():
        return
    from lectern.index.base import SearchFilters

    info = runtime.index.info()
    if info is None:
        return
    import numpy as np

    probe = np.zeros(info.dimension, dtype=np.float32)  # any vector: only whether a chunk passes matters
    probe[0] = 1.0

    def matches(only: SearchFilters) -> bool:
        return bool(runtime.index.search(vector=probe, text="", mode="dense", top_k=1, filters=only))

    if matches(filters):
        return
    keys = ", ".join((*CHUNK_KEYS, "url_prefix"))
    for key, value in filters.equals.items():
        if not matches(SearchFilters(equals={key: value})):
            hint = "" if key in CHUNK_KEYS else f" ('{key}' is not a chunk key; it matches front-matter keys)"
            raise InvalidInput(
                f"no chunk in '{runtime.collection}' has {key}={value}{hint}. Known keys: {keys}, "
                "and any front-matter key"
            )
    if filters.url_prefix and not matches(SearchFilters(url_prefix=filters.url_prefix)):
        raise InvalidInput(
            f"no chunk in '{runtime.collection}' has a URL starting with {filters.url_prefix!r}"
        )
    raise InvalidInput(f"no chunk in '{runtime.collection}' passes all the filters together")
