"""What every face reports about how a turn went, beside the answer: seed 002's stage timings (as a
``timings`` field and, where a face answers with one response, a ``Server-Timing`` header) and the
answer's warnings (a TOKEN_LIMIT trim of the history, an empty collection)."""

from __future__ import annotations

from typing import Any

from lectern.models import Answer


def timings(answer: Answer) -> dict[str, Any]:
    t = answer.timings
    return {
        "embedding_ms": round(t.retrieval.embedding_ms, 3),
        "search_ms": round(t.retrieval.search_ms, 3),
        "ranking_ms": round(t.retrieval.ranking_ms, 3),
        "generation_ms": round(t.generation_ms, 3),
        "total_ms": round(t.total_ms, 3),
        "retrieval_cached": t.retrieval.cached,
    }


def server_timing(answer: Answer) -> str:
    """The W3C ``Server-Timing`` header (browsers' developer tools show it)."""
    t = answer.timings
    parts = [
        f"embedding;dur={t.retrieval.embedding_ms:.3f}",
        f"search;dur={t.retrieval.search_ms:.3f}",
        f"ranking;dur={t.retrieval.ranking_ms:.3f}",
        f"generation;dur={t.generation_ms:.3f}",
        f"total;dur={t.total_ms:.3f}",
    ]
    if t.retrieval.cached:
        parts.append('cache;desc="retrieval from the session cache"')
    return ", ".join(parts)


def report(answer: Answer) -> dict[str, Any]:
    """``timings`` always; ``warnings`` when there are any (e.g. ``TOKEN_LIMIT: ... left out``)."""
    out: dict[str, Any] = {"timings": timings(answer)}
    if answer.warnings:
        out["warnings"] = list(answer.warnings)
    return out
