"""The LanceDB table layout: Arrow schema, chunk rows, collection info in the schema metadata, and
SQL filters with every value escaped."""

from __future__ import annotations

import json
from collections.abc import Iterator, Sequence
from typing import Any

import numpy as np
import pyarrow as pa
from numpy.typing import NDArray

from lectern.index.base import SearchFilters
from lectern.index.payload import INT_KEYS, STRING_KEYS, chunk_record, coerce_int
from lectern.models import Chunk, CollectionInfo

VECTOR = "vector"
SEARCH_TEXT = "search_text"
INFO_KEY = b"lectern.collection"
# Lance writes are fastest to scan when they arrive in Arrow batches of about this many rows.
WRITE_BATCH_ROWS = 4096


def table_schema(info: CollectionInfo) -> pa.Schema:
    fields = [
        pa.field("content_hash", pa.string(), nullable=False),
        pa.field("text", pa.string()),
        pa.field(SEARCH_TEXT, pa.string()),
        pa.field("heading_hierarchy", pa.list_(pa.string())),
        *(pa.field(key, pa.string()) for key in STRING_KEYS if key != "content_hash"),
        *(pa.field(key, pa.int64()) for key in sorted(INT_KEYS)),
        # Lance's JSON type: filterable with json_get_string(extra, 'key'), read back as text.
        pa.field("extra", pa.json_(pa.utf8())),
        pa.field(VECTOR, pa.list_(pa.float32(), info.dimension)),
    ]
    return pa.schema(fields, metadata={INFO_KEY: info.model_dump_json().encode()})


def info_from_schema(schema: pa.Schema) -> CollectionInfo | None:
    raw = (schema.metadata or {}).get(INFO_KEY)
    return CollectionInfo.model_validate_json(raw) if raw else None


# Every column but the vector: what a hit or a listed chunk needs.
def chunk_columns(schema: pa.Schema) -> list[str]:
    return [name for name in schema.names if name not in (VECTOR, SEARCH_TEXT)]


def record_batches(
    schema: pa.Schema, chunks: Sequence[Chunk], vectors: NDArray[np.float32]
) -> Iterator[pa.Table]:
    """Tables of at most WRITE_BATCH_ROWS rows, in the table's schema."""
    for start in range(0, len(chunks), WRITE_BATCH_ROWS):
        part = chunks[start : start + WRITE_BATCH_ROWS]
        rows = [chunk_record(c) for c in part]
        columns: dict[str, Any] = {name: [r[name] for r in rows] for name in schema.names if name in rows[0]}
        columns["extra"] = [json.dumps(r["extra"], sort_keys=True) for r in rows]
        block = np.ascontiguousarray(vectors[start : start + len(part)], dtype=np.float32)
        dim = block.shape[1]
        columns[VECTOR] = pa.FixedSizeListArray.from_arrays(pa.array(block.reshape(-1)), dim)
        yield pa.Table.from_pydict(columns, schema=schema)


def sql_string(value: object) -> str:
    """A SQL string literal: single quotes doubled (DataFusion treats backslashes literally)."""
    return "'" + str(value).replace("'", "''") + "'"


def _json_text(value: object) -> str:
    # json_get_string renders JSON numbers and booleans as their JSON text
    return json.dumps(value) if isinstance(value, bool) else str(value)


def where_clause(filters: SearchFilters | None) -> str | None:
    """SQL for the filters: equality (a list means any of) on columns, on ``extra`` keys through
    Lance's JSON functions, and a URL prefix."""
    if filters is None or filters.is_empty():
        return None
    clauses: list[str] = []
    for key, raw in filters.equals.items():
        values = list(raw) if isinstance(raw, list | tuple | set | frozenset) else [raw]
        if not values:
            clauses.append("FALSE")
        elif key in INT_KEYS:
            clauses.append(f"{key} IN ({', '.join(str(coerce_int(key, v)) for v in values)})")
        elif key in STRING_KEYS:
            clauses.append(f"{key} IN ({', '.join(sql_string(v) for v in values)})")
        else:
            literals = ", ".join(sql_string(_json_text(v)) for v in values)
            clauses.append(f"json_get_string(extra, {sql_string(key)}) IN ({literals})")
    if filters.url_prefix:
        clauses.append(f"starts_with(url, {sql_string(filters.url_prefix)})")
    return " AND ".join(f"({c})" for c in clauses)
