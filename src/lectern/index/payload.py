"""How a chunk is stored in an engine: one flat record of payload keys, shared by both engines."""

from __future__ import annotations

import json
from collections.abc import Iterator, Mapping, Sequence
from contextlib import contextmanager
from typing import Any

import numpy as np
from numpy.typing import NDArray

from lectern.errors import InvalidInput, LecternError, VectorIndexError
from lectern.index.base import PAYLOAD_KEYS, DocumentSummary
from lectern.index.fusion import cosine_similarities
from lectern.models import Chunk, SearchHit, SearchModeName

INT_KEYS = frozenset({"chunk_index", "token_count", "page"})
STRING_KEYS = tuple(k for k in PAYLOAD_KEYS if k not in INT_KEYS)
# Stored next to the payload keys; not filterable by equality.
TEXT_KEYS = ("text", "search_text", "heading_hierarchy")


def chunk_record(chunk: Chunk) -> dict[str, Any]:
    """Payload keys, text, search text, heading path and ``extra`` (a dict) of one chunk."""
    record: dict[str, Any] = {key: getattr(chunk, key) for key in PAYLOAD_KEYS}
    record["text"] = chunk.text
    record["search_text"] = chunk.search_text
    record["heading_hierarchy"] = list(chunk.heading_hierarchy)
    record["extra"] = dict(chunk.extra)
    return record


def chunk_from_record(record: Mapping[str, Any]) -> Chunk:
    """Inverse of :func:`chunk_record`; ``extra`` may be a dict or its JSON text."""
    extra = record.get("extra") or {}
    if isinstance(extra, str | bytes):
        extra = json.loads(extra)
    fields: dict[str, Any] = {key: record.get(key) for key in PAYLOAD_KEYS}
    for key in STRING_KEYS:
        fields[key] = fields[key] or ""
    fields["chunk_index"] = fields["chunk_index"] or 0
    fields["token_count"] = fields["token_count"] or 0
    return Chunk(
        text=record.get("text") or "",
        heading_hierarchy=list(record.get("heading_hierarchy") or []),
        extra=extra,
        **fields,
    )


def coerce_int(key: str, value: Any) -> int:
    """Filter values arrive as strings from the CLI; integer keys compare as integers."""
    try:
        return int(value)
    except (TypeError, ValueError):
        raise InvalidInput(f"filter {key}={value!r}: {key} takes an integer") from None


def document_url(url: str) -> str:
    """A page's URL: a chunk's URL without its heading anchor."""
    return url.split("#", 1)[0]


def summarise_documents(rows: Sequence[Mapping[str, Any]]) -> list[DocumentSummary]:
    """One summary per source path from (source_path, title, url, chunk_index) rows, sorted by path."""
    firsts: dict[str, Mapping[str, Any]] = {}
    counts: dict[str, int] = {}
    for row in rows:
        path = row.get("source_path") or ""
        counts[path] = counts.get(path, 0) + 1
        best = firsts.get(path)
        if best is None or (row.get("chunk_index") or 0) < (best.get("chunk_index") or 0):
            firsts[path] = row
    return [
        DocumentSummary(
            source_path=path,
            title=firsts[path].get("title") or "",
            url=document_url(firsts[path].get("url") or ""),
            chunks=counts[path],
        )
        for path in sorted(firsts)
    ]


@contextmanager
def engine_errors(engine: str, action: str) -> Iterator[None]:
    """Any engine failure becomes a VectorIndexError naming the engine and what failed."""
    try:
        yield
    except LecternError:
        raise
    except Exception as exc:
        raise VectorIndexError(f"{engine}: {action} failed: {exc}") from exc


def ranked_hits(
    ranked: Sequence[tuple[Any, float]],
    chunks: Mapping[Any, Chunk],
    vectors: NDArray[np.float32],
    query: NDArray[np.float32] | None,
    keyword_scores: Mapping[Any, float],
    mode: SearchModeName,
) -> list[SearchHit]:
    """Hits in ranked order: every hit carries the exact cosine of its stored vector (row i of `vectors`
    for `ranked[i]`), its BM25 score when the keyword side found it, and the mode's ranking score."""
    sims = cosine_similarities(query, vectors)
    return [
        SearchHit(
            chunk=chunks[key],
            similarity=sim,
            keyword_score=keyword_scores.get(key),
            score=sim if mode == "dense" else score,
            rank=rank,
            # confidence diversity needs it; never serialised. A copy, not a row of `vectors`: a view
            # kept the whole matrix (every candidate's row) alive for as long as a session's cached
            # retrieval kept its few hits (~5 MB over 128 cached sessions on SciFact).
            vector=vec.copy(),
        )
        for rank, ((key, score), sim, vec) in enumerate(zip(ranked, sims, vectors, strict=True), start=1)
    ]
