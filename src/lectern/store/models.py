"""What the store takes and returns: plain, frozen pydantic models (no ORM object ever leaves the store).

A *thread* (seed 000) and a *session* (seeds 003 and 004) are the same thing here: one id, one row.
"""

from __future__ import annotations

from datetime import datetime
from enum import StrEnum
from typing import Any, Literal
from uuid import UUID

from pydantic import BaseModel, ConfigDict, Field, model_validator

Role = Literal["user", "assistant", "system"]
DeltaType = Literal["token", "done", "error"]
EventType = Literal["query_received", "embedding_generated", "retrieval_performed", "response_sent", "error"]

TOPIC_SUMMARY_MAX = 200


class _Frozen(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid")


class PromptStatus(StrEnum):
    """Seed 004 lifecycle: a prompt leaves InFlight exactly once."""

    IN_FLIGHT = "InFlight"
    DONE = "Done"
    CANCELLED = "Cancelled"
    ERROR = "Error"

    @property
    def finished(self) -> bool:
        return self is not PromptStatus.IN_FLIGHT


# --- threads and messages -------------------------------------------------------------------------


class NewMessage(_Frozen):
    """A message to append; the store assigns its ``seq``."""

    role: Role
    content: str
    confidence: float | None = Field(None, ge=0.0, le=1.0)
    sources: list[dict[str, Any]] | None = None
    citations: list[dict[str, Any]] | None = None
    prompt_id: UUID | None = None
    timestamp: datetime | None = Field(None, description="Defaults to the store's clock; must be aware.")

    @model_validator(mode="after")
    def _check(self) -> NewMessage:
        if self.confidence is not None and self.role != "assistant":
            raise ValueError("confidence is for assistant messages only")
        if self.timestamp is not None and self.timestamp.tzinfo is None:
            raise ValueError("timestamp must be timezone-aware")
        return self


class Message(_Frozen):
    thread_id: UUID
    seq: int
    role: Role
    content: str
    timestamp: datetime
    confidence: float | None = None
    sources: list[dict[str, Any]] | None = None
    citations: list[dict[str, Any]] | None = None
    prompt_id: UUID | None = None
    archived: bool = False


class WindowMessage(_Frozen):
    """A message of the active window as a turn's engine reads it: no sources, and citations on the
    window's newest assistant message only (whose cited files and section a follow-up's search reads),
    as the stored JSON text, parsed once by the reader; None on every other message."""

    seq: int
    role: Role
    content: str
    timestamp: datetime
    confidence: float | None = None
    citations_json: str | None = None


class ThreadInfo(_Frozen):
    """A thread without its messages: what listings return."""

    thread_id: UUID
    owner: str | None
    created_at: datetime
    updated_at: datetime
    last_active_at: datetime
    archived_at: datetime | None
    topic_summary: str | None
    metadata: dict[str, Any]
    message_count: int
    turn_count: int
    retrieval_count: int
    total_tokens: int

    @property
    def archived(self) -> bool:
        return self.archived_at is not None


class Thread(ThreadInfo):
    """Seed 000 ConversationThread: the thread with its active window of messages, oldest first."""

    messages: list[Message]


# --- prompts --------------------------------------------------------------------------------------


class Prompt(_Frozen):
    prompt_id: UUID
    thread_id: UUID
    owner: str | None
    text: str
    idempotency_key: str | None
    status: PromptStatus
    token_count: int
    delta_count: int
    error_code: str | None
    error_message: str | None
    created_at: datetime
    finished_at: datetime | None
    heartbeat_at: datetime | None = None


class NewDelta(_Frozen):
    """A generation delta to store. Leave ``seq`` out to have the store number it; give it to check it."""

    type: DeltaType
    text: str | None = None
    role: Role = "assistant"
    metadata: dict[str, Any] | None = None
    seq: int | None = Field(None, ge=0)

    @model_validator(mode="after")
    def _check(self) -> NewDelta:
        # The rules of streaming-rag.generation-delta.schema.json.
        if self.type == "token" and self.text is None:
            raise ValueError("a token delta needs text")
        if self.type == "error" and not {"code", "message"} <= set(self.metadata or {}):
            raise ValueError("an error delta needs metadata with code and message")
        return self


class Delta(_Frozen):
    """A stored delta, ready to replay as seed 004's GenerationDelta."""

    prompt_id: UUID
    seq: int
    type: DeltaType
    text: str | None
    role: Role
    metadata: dict[str, Any] | None


# --- log events (seed 002 AgentLogEntry) ----------------------------------------------------------


class NewLogEvent(_Frozen):
    event_type: EventType
    thread_id: UUID | None = None
    details: dict[str, Any] = Field(default_factory=dict)
    duration_ms: float | None = Field(None, ge=0.0)
    timestamp: datetime | None = None

    @model_validator(mode="after")
    def _check(self) -> NewLogEvent:
        if self.timestamp is not None and self.timestamp.tzinfo is None:
            raise ValueError("timestamp must be timezone-aware")
        return self


class LogEvent(_Frozen):
    event_id: int
    timestamp: datetime
    event_type: EventType
    thread_id: UUID | None
    details: dict[str, Any]
    duration_ms: float | None
