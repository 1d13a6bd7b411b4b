"""Rows to public models: the only place that knows both shapes."""

from __future__ import annotations

from typing import Any

from pydantic import BaseModel
from sqlalchemy.engine import Row

from lectern.store.models import (
    Delta,
    LogEvent,
    Message,
    Prompt,
    PromptStatus,
    Thread,
    ThreadInfo,
    WindowMessage,
)


def new_row_fields(model: type[BaseModel]) -> tuple[str, ...]:
    """What a new row takes from `model`: every field but the timestamp, which the store settles."""
    return tuple(name for name in model.model_fields if name != "timestamp")


def attributes(model: BaseModel, fields: tuple[str, ...]) -> dict[str, Any]:
    """`fields` of `model` as they are: model_dump would copy every nested dict (sources, citations,
    details) at ~10x the time."""
    return {name: getattr(model, name) for name in fields}


def thread_info(row: Row[Any]) -> ThreadInfo:
    m = row._mapping
    return ThreadInfo(
        thread_id=m["thread_id"],
        owner=m["owner"],
        created_at=m["created_at"],
        updated_at=m["updated_at"],
        last_active_at=m["last_active_at"],
        archived_at=m["archived_at"],
        topic_summary=m["topic_summary"],
        metadata=m["metadata"] or {},
        message_count=m["message_count"],
        turn_count=m["turn_count"],
        retrieval_count=m["retrieval_count"],
        total_tokens=m["total_tokens"],
    )


def thread(info: ThreadInfo, messages: list[Message]) -> Thread:
    return Thread(**dict(info), messages=messages)


def message(row: Row[Any]) -> Message:
    m = row._mapping
    return Message(
        thread_id=m["thread_id"],
        seq=m["seq"],
        role=m["role"],
        content=m["content"],
        timestamp=m["timestamp"],
        confidence=m["confidence"],
        sources=m["sources"],
        citations=m["citations"],
        prompt_id=m["prompt_id"],
        archived=m["archived"],
    )


def window_message(row: Row[Any]) -> WindowMessage:
    m = row._mapping
    return WindowMessage(
        seq=m["seq"],
        role=m["role"],
        content=m["content"],
        timestamp=m["timestamp"],
        confidence=m["confidence"],
    )


def prompt(row: Row[Any]) -> Prompt:
    m = row._mapping
    return Prompt(
        prompt_id=m["prompt_id"],
        thread_id=m["thread_id"],
        owner=m["owner"],
        text=m["text"],
        idempotency_key=m["idempotency_key"],
        status=PromptStatus(m["status"]),
        token_count=m["token_count"],
        delta_count=m["delta_count"],
        error_code=m["error_code"],
        error_message=m["error_message"],
        created_at=m["created_at"],
        finished_at=m["finished_at"],
        heartbeat_at=m.get("heartbeat_at"),
    )


def delta(row: Row[Any]) -> Delta:
    m = row._mapping
    return Delta(
        prompt_id=m["prompt_id"],
        seq=m["seq"],
        type=m["type"],
        text=m["text"],
        role=m["role"],
        metadata=m["metadata"],
    )


def log_event(row: Row[Any]) -> LogEvent:
    m = row._mapping
    return LogEvent(
        event_id=m["event_id"],
        timestamp=m["timestamp"],
        event_type=m["event_type"],
        thread_id=m["thread_id"],
        details=m["details"] or {},
        duration_ms=m["duration_ms"],
    )
