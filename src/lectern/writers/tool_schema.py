"""The `retrieve_context` tool: its JSON schema, argument validation, and the tool-result JSON.

Schema: seed 001 / `retrieval-agent.functions.yaml` (`query`, `top_k`, `threshold`) plus `filters`
(payload keys, seed 003's future extension). `top_k` is 1-10 as seed 001 and the reference functions
file say for the *tool*; seed 003's 1-20 is the range of the configured default (`LECTERN_TOP_K`), not
of what a model may ask for. Ten 500-character passages a call, three calls a turn, bound what the
tool loop can add to the prompt.

Tool result: seed 003's `RetrievalToolResponse.to_json()` keys (`results`, `total`, `query`, `error`,
`message`, `execution_time`), each result with `text` (at most 500 characters), `url`, `title`,
`score` (3 decimals), plus `section` and `source` — the number `n` the model cites as `[n]`.
Arguments the model got wrong come back as a result with `error` and `message` (and no results), so
the model can correct itself; they never raise.
"""

from __future__ import annotations

import json
import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from lectern.index.base import SearchFilters
from lectern.models import SearchHit
from lectern.writers.base import RetrieveCall

TOOL_NAME = "retrieve_context"
MAX_TOOL_TOP_K = 10
TOOL_TEXT_CHARS = 500
URL_PREFIX_FILTER = "url_prefix"

# Stable error codes a tool result can carry.
INVALID_ARGUMENTS = "INVALID_ARGUMENTS"
UNKNOWN_TOOL = "UNKNOWN_TOOL"
TOOL_CALL_LIMIT = "TOOL_CALL_LIMIT"
EMPTY_RETRIEVAL = "EMPTY_RETRIEVAL"

RETRIEVE_CONTEXT_TOOL: dict[str, Any] = {
    "type": "function",
    "function": {
        "name": TOOL_NAME,
        "description": (
            "Search the documentation for passages relevant to a query. Returns numbered passages "
            "(`source`) with their text, title, section, URL and similarity score; cite a passage as "
            "[source] in the answer. Call it before answering any question about the documents."
        ),
        "parameters": {
            "type": "object",
            "properties": {
                "query": {
                    "type": "string",
                    "description": "A standalone search query: the topic or question, pronouns resolved.",
                },
                "top_k": {
                    "type": "integer",
                    "description": "How many passages to return (default: the configured one, usually 5).",
                    "minimum": 1,
                    "maximum": MAX_TOOL_TOP_K,
                },
                "threshold": {
                    "type": "number",
                    "description": "Minimum similarity of a passage, 0 to 1 (default: the configured one).",
                    "minimum": 0.0,
                    "maximum": 1.0,
                },
                "filters": {
                    "type": "object",
                    "description": (
                        "Optional exact-match filters on passage metadata, e.g. "
                        '{"chapter": "Chapter 2"} or '
                        '{"module_name": ["Module 1 Ros2", "Module 2 Digital Twin"]}; '
                        f'"{URL_PREFIX_FILTER}" restricts to URLs starting with a prefix.'
                    ),
                    "additionalProperties": {
                        "anyOf": [
                            {"type": ["string", "number", "boolean"]},
                            {"type": "array", "items": {"type": ["string", "number", "boolean"]}},
                        ]
                    },
                },
            },
            "required": ["query"],
        },
    },
}


@dataclass(frozen=True)
class ToolArgumentError:
    """Why a tool call's arguments were refused (sent back to the model as the tool result)."""

    message: str
    query: str = ""


def _is_scalar(value: object) -> bool:
    return isinstance(value, str | bool | int | float) and not (
        isinstance(value, float) and not math.isfinite(value)
    )


def _parse_filters(raw: object) -> SearchFilters | str:
    """A `SearchFilters`, or the reason the value is not one."""
    if not isinstance(raw, Mapping):
        return "filters must be an object of metadata keys to values"
    equals: dict[str, Any] = {}
    prefix: str | None = None
    for key, value in raw.items():
        if not isinstance(key, str) or not key.strip():
            return "filter keys must be non-empty strings"
        if key == URL_PREFIX_FILTER:
            if not isinstance(value, str) or not value:
                return f"filters.{URL_PREFIX_FILTER} must be a non-empty string"
            prefix = value
        elif _is_scalar(value):
            equals[key] = value
        elif isinstance(value, list) and value and all(_is_scalar(v) for v in value):
            equals[key] = list(value)
        else:
            return f"filters.{key} must be a string, number, boolean or a non-empty list of them"
    return SearchFilters(equals=equals, url_prefix=prefix)


def parse_tool_arguments(raw: str | None) -> RetrieveCall | ToolArgumentError:
    """Validate the model's `retrieve_context` arguments (a JSON string) into a `RetrieveCall`."""
    text = (raw or "").strip() or "{}"
    try:
        args = json.loads(text)
    except json.JSONDecodeError as exc:
        return ToolArgumentError(f"arguments are not valid JSON ({exc.msg} at position {exc.pos})")
    if not isinstance(args, dict):
        return ToolArgumentError("arguments must be a JSON object")

    query = args.get("query")
    if not isinstance(query, str) or not query.strip():
        return ToolArgumentError('"query" is required and must be a non-empty string')
    query = query.strip()

    top_k = args.get("top_k")
    if top_k is not None:
        if isinstance(top_k, float) and top_k.is_integer():
            top_k = int(top_k)
        if isinstance(top_k, bool) or not isinstance(top_k, int):
            return ToolArgumentError('"top_k" must be an integer', query)
        if not 1 <= top_k <= MAX_TOOL_TOP_K:
            return ToolArgumentError(f'"top_k" must be between 1 and {MAX_TOOL_TOP_K}, got {top_k}', query)

    threshold = args.get("threshold")
    if threshold is not None:
        if isinstance(threshold, bool) or not isinstance(threshold, int | float):
            return ToolArgumentError('"threshold" must be a number', query)
        if not (math.isfinite(threshold) and 0.0 <= threshold <= 1.0):
            return ToolArgumentError(f'"threshold" must be between 0 and 1, got {threshold}', query)
        threshold = float(threshold)

    filters: SearchFilters | None = None
    raw_filters = args.get("filters")
    if raw_filters is not None:
        parsed = _parse_filters(raw_filters)
        if isinstance(parsed, str):
            return ToolArgumentError(parsed, query)
        filters = None if parsed.is_empty() else parsed

    return RetrieveCall(query=query, top_k=top_k, threshold=threshold, filters=filters)


def truncate_text(text: str, limit: int = TOOL_TEXT_CHARS) -> str:
    """At most `limit` characters, cut at a word boundary when one is near, ending with '…' when cut."""
    text = text.strip()
    if len(text) <= limit:
        return text
    cut = text[: limit - 1]
    space = cut.rfind(" ")
    if space >= limit - 60:
        cut = cut[:space]
    return cut.rstrip() + "…"


def hit_entry(number: int, hit: SearchHit) -> dict[str, Any]:
    """One result of the tool response: seed 003's keys plus `section` and the citation number."""
    chunk = hit.chunk
    title = chunk.title or (chunk.heading_hierarchy[0] if chunk.heading_hierarchy else "")
    section = chunk.section or " > ".join(chunk.heading_hierarchy[1:] or chunk.heading_hierarchy)
    return {
        "source": number,
        "text": truncate_text(chunk.text),
        "url": chunk.url or chunk.source_path,
        "title": title,
        "section": section,
        "score": round(hit.similarity, 3),
    }


def _dump(payload: dict[str, Any]) -> str:
    return json.dumps(payload, ensure_ascii=False, separators=(",", ":"))


def tool_response_json(
    *,
    query: str,
    entries: Sequence[dict[str, Any]],
    execution_time_s: float,
    message: str | None = None,
) -> str:
    """Seed 003 `RetrievalToolResponse` for a retrieval that ran (possibly with no results)."""
    return _dump(
        {
            "results": list(entries),
            "total": len(entries),
            "query": query,
            "error": None,
            "message": message,
            "execution_time": round(execution_time_s, 2),
        }
    )


def tool_error_json(*, error: str, message: str, query: str = "", execution_time_s: float = 0.0) -> str:
    """Seed 003 `RetrievalToolResponse` for a failure: no results, `error` and `message` set."""
    return _dump(
        {
            "results": [],
            "total": 0,
            "query": query,
            "error": error,
            "message": message,
            "execution_time": round(execution_time_s, 2),
        }
    )
