"""SQL pieces of the pgvector engine: table layout, names and payload filters."""

from __future__ import annotations

import hashlib
from typing import Any

from psycopg import sql

from lectern.index.base import PAYLOAD_KEYS, SearchFilters
from lectern.index.payload import INT_KEYS, coerce_int

COLLECTIONS = "lectern_collections"
MAX_IDENTIFIER = 63  # PostgreSQL truncates longer names, which could merge two collections' tables
# Columns read back into a Chunk, in this order; the vector is read separately.
CHUNK_COLUMNS: tuple[str, ...] = (*PAYLOAD_KEYS, "text", "heading_hierarchy", "extra")
# HNSW build parameters: pgvector's defaults (m=16, ef_construction=64); see bench/search_latency.py.
HNSW_M = 16
HNSW_EF_CONSTRUCTION = 64


def table_name(collection: str) -> str:
    """The chunks table of a collection; long names keep a hash so two never share a table."""
    name = f"lectern_{collection}"
    if len(name) <= MAX_IDENTIFIER:
        return name
    digest = hashlib.sha1(collection.encode()).hexdigest()[:12]
    return f"lectern_{collection[:40]}_{digest}"


def ts_config(language: str, stem: bool) -> str:
    """The text search configuration of the keyword side: the language's snowball stemmer (which also
    drops its stop words), or 'simple' (lower-casing only) without stemming."""
    return language.lower() if stem else "simple"


def create_table(table: sql.Composable, dimension: int, config: str) -> sql.Composed:
    column_defs = sql.SQL(", ").join(
        sql.SQL("{} {}").format(sql.Identifier(key), sql.SQL("integer" if key in INT_KEYS else "text"))
        for key in PAYLOAD_KEYS
        if key != "content_hash"
    )
    return sql.SQL(
        "CREATE TABLE {table} ("
        " content_hash text PRIMARY KEY, {columns},"
        " text text NOT NULL, search_text text NOT NULL,"
        " heading_hierarchy jsonb NOT NULL DEFAULT '[]', extra jsonb NOT NULL DEFAULT '{{}}',"
        " embedding vector({dim}) NOT NULL,"
        " tsv tsvector GENERATED ALWAYS AS (to_tsvector({config}::regconfig, search_text)) STORED)"
    ).format(table=table, columns=column_defs, dim=sql.Literal(dimension), config=sql.Literal(config))


def index_name(table: str, suffix: str) -> str:
    name = f"{table}_{suffix}"
    return name if len(name) <= MAX_IDENTIFIER else f"{table[:50]}_{suffix}"


def where_clause(filters: SearchFilters | None) -> tuple[sql.Composable, list[Any]]:
    """``AND``-ed conditions (``TRUE`` for none) and their parameters. Payload keys are columns;
    any other key is looked up in ``extra`` and compared as text, as the CLI passes it."""
    if filters is None or filters.is_empty():
        return sql.SQL("TRUE"), []
    parts: list[sql.Composable] = []
    params: list[Any] = []
    for key, value in filters.equals.items():
        values = value if isinstance(value, list) else [value]
        if key in PAYLOAD_KEYS:
            column: sql.Composable = sql.Identifier(key)
            values = [coerce_int(key, v) if key in INT_KEYS else str(v) for v in values]
        else:
            column = sql.SQL("(extra ->> {})").format(sql.Literal(key))
            values = [_as_json_text(v) for v in values]
        parts.append(sql.SQL("{} = ANY(%s)").format(column))
        params.append(values)
    if filters.url_prefix:
        parts.append(sql.SQL("starts_with(url, %s)"))
        params.append(filters.url_prefix)
    return sql.SQL(" AND ").join(parts), params


def _as_json_text(value: Any) -> str:
    """How ``->>`` spells a JSON scalar: booleans in lower case."""
    if isinstance(value, bool):
        return "true" if value else "false"
    return str(value)
