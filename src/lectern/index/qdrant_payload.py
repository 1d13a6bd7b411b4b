"""Qdrant payloads: filters, and the mapping of collections written by other pipelines (the seed-000
layout: one unnamed dense vector, payload ``text``, ``chapter``, ``section``, ``url``, ``chunk_index``,
``content_hash``; the rag-agent-api variant calls the text ``content``) into :class:`Chunk`."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from qdrant_client import models

from lectern.index.base import PAYLOAD_KEYS, SearchFilters
from lectern.index.payload import INT_KEYS, coerce_int
from lectern.models import Chunk, content_hash

# Where a foreign payload keeps each chunk field, first match wins.
LEGACY_ALIASES: dict[str, tuple[str, ...]] = {
    "text": ("text", "content", "chunk_text"),
    "url": ("url", "source_url"),
}
LEGACY_TEXT_FIELDS = LEGACY_ALIASES["text"]


def _first(payload: Mapping[str, Any], names: tuple[str, ...]) -> tuple[str | None, Any]:
    for name in names:
        if payload.get(name) not in (None, ""):
            return name, payload[name]
    return None, None


def legacy_chunk(payload: Mapping[str, Any]) -> Chunk:
    """A chunk from a foreign payload: known keys mapped, the rest kept in ``extra``."""
    used: set[str] = set()
    fields: dict[str, Any] = {}
    for target, names in LEGACY_ALIASES.items():
        name, value = _first(payload, names)
        fields[target] = value or ""
        used.update(n for n in [name] if n)
    for key in PAYLOAD_KEYS:
        if key in fields or key not in payload or payload[key] is None:
            continue
        fields[key] = payload[key]
        used.add(key)
    fields.setdefault("content_hash", content_hash(fields["text"]))
    hierarchy = payload.get("heading_hierarchy")
    if isinstance(hierarchy, list):
        fields["heading_hierarchy"] = [str(h) for h in hierarchy]
        used.add("heading_hierarchy")
    fields.setdefault("chunk_index", 0)
    fields.setdefault("token_count", 0)
    extra = {k: v for k, v in payload.items() if k not in used}
    return Chunk(extra=extra, **fields)


def legacy_hash(payload: Mapping[str, Any]) -> str:
    """The content hash `legacy_chunk` gives this payload, without building the chunk."""
    stored = payload.get("content_hash")
    if stored is not None:
        return str(stored)
    _, text = _first(payload, LEGACY_ALIASES["text"])
    return content_hash(text or "")


def _match(key: str, values: list[Any]) -> models.Condition:
    if key in INT_KEYS:
        ints = [coerce_int(key, v) for v in values]
        return models.FieldCondition(key=key, match=models.MatchAny(any=ints))
    if all(isinstance(v, bool) for v in values) and len(values) == 1:
        return models.FieldCondition(key=key, match=models.MatchValue(value=values[0]))
    strings = [str(v) for v in values]
    ints = [int(v) for v in strings if v.lstrip("-").isdigit()]
    conditions: list[models.Condition] = [models.FieldCondition(key=key, match=models.MatchAny(any=strings))]
    if ints:  # a CLI value "3" also matches a stored integer 3
        conditions.append(models.FieldCondition(key=key, match=models.MatchAny(any=ints)))
    return conditions[0] if len(conditions) == 1 else models.Filter(should=conditions)


def qdrant_filter(filters: SearchFilters | None, *, nested_extra: bool) -> models.Filter | None:
    """Equality (a list means any of) and URL prefix. Keys that are not payload keys live under
    ``extra.`` in Lectern's layout and at the top level of a foreign one."""
    if filters is None or filters.is_empty():
        return None
    must: list[models.Condition] = []
    for key, raw in filters.equals.items():
        values = list(raw) if isinstance(raw, list | tuple | set | frozenset) else [raw]
        if not values:
            return models.Filter(must=[models.HasIdCondition(has_id=[])])  # matches nothing
        path = key if key in PAYLOAD_KEYS or not nested_extra else f"extra.{key}"
        must.append(_match(path, values))
    if filters.url_prefix:
        must.append(models.FieldCondition(key="url", match=models.MatchPrefix(prefix=filters.url_prefix)))
    return models.Filter(must=must)
