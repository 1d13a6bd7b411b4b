"""Seed 000 wire models (rag-agent-api): ChatRequest, ChatResponse, Source, ConversationThread.

Views of the core models, built here in the face; the validation messages are the contract's.
"""

from __future__ import annotations

import uuid
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, field_validator
from pydantic_core import PydanticCustomError

from lectern.conversation import iso_timestamp
from lectern.errors import InvalidInput
from lectern.models import Answer, Citation, ConfidenceLevel
from lectern.store.models import Message as StoredMessage
from lectern.store.models import Thread
from lectern.views import clip

MESSAGE_MAX = 1000
TOP_K_MAX = 10
SOURCE_TEXT_MAX = 500


def _invalid(message: str) -> PydanticCustomError:
    return PydanticCustomError("invalid_request", message)


def parse_uuid4(value: object, field: str) -> uuid.UUID:
    """A UUID v4 in its usual text form, else a 400 that names the field."""
    if isinstance(value, uuid.UUID):
        parsed = value
    else:
        try:
            parsed = uuid.UUID(str(value))
        except ValueError:
            raise _invalid(f"{field} must be a valid UUID v4") from None
    if parsed.version != 4:
        raise _invalid(f"{field} must be a valid UUID v4")
    return parsed


def path_uuid4(value: str) -> uuid.UUID:
    """A session id from the path; a malformed one is a 400 like in the body."""
    try:
        return parse_uuid4(value, "session_id")
    except PydanticCustomError as exc:
        raise InvalidInput(exc.message(), code="invalid_request") from None


class ChatRequest(BaseModel):
    model_config = ConfigDict(
        json_schema_extra={
            "examples": [
                {"message": "What is a ROS 2 node?", "stream": False, "top_k": 5, "similarity_threshold": 0.7}
            ]
        }
    )

    message: str = Field(description="The question, 1-1000 characters, not blank.")
    session_id: uuid.UUID | None = Field(
        None, description="UUID v4 of the conversation; a new one is made when left out."
    )
    stream: bool = Field(False, description="Accepted for compatibility; the endpoint decides the mode.")
    # Left out, both come from settings: thresholds are calibrated per embedding model (the contract's
    # 0.7 suits OpenAI's embeddings, not the local model's score scale).
    top_k: int | None = Field(None, description="Chunks to retrieve, 1-10 (default LECTERN_TOP_K, 5).")
    similarity_threshold: float | None = Field(
        None, description="Minimum cosine similarity, 0.0-1.0 (default LECTERN_SIMILARITY_THRESHOLD)."
    )

    @field_validator("message", mode="before")
    @classmethod
    def _message(cls, value: object) -> object:
        if not isinstance(value, str):
            raise _invalid("message must be a string")
        if not 1 <= len(value) <= MESSAGE_MAX:
            raise _invalid(f"Message length must be between 1 and {MESSAGE_MAX} characters")
        if not value.strip():
            raise _invalid("Message must not be blank")
        return value

    @field_validator("session_id", mode="before")
    @classmethod
    def _session_id(cls, value: object) -> object:
        return None if value is None else parse_uuid4(value, "session_id")

    @field_validator("top_k", mode="before")
    @classmethod
    def _top_k(cls, value: object) -> object:
        if value is None:
            return None
        if isinstance(value, bool) or not isinstance(value, int) or not 1 <= value <= TOP_K_MAX:
            raise _invalid(f"top_k must be an integer between 1 and {TOP_K_MAX}")
        return value

    @field_validator("similarity_threshold", mode="before")
    @classmethod
    def _threshold(cls, value: object) -> object:
        if value is None:
            return None
        if isinstance(value, bool) or not isinstance(value, int | float) or not 0.0 <= value <= 1.0:
            raise _invalid("similarity_threshold must be a number between 0.0 and 1.0")
        return float(value)


class Source(BaseModel):
    chunk_text: str = Field(max_length=SOURCE_TEXT_MAX)
    similarity_score: float = Field(ge=0.0, le=1.0)
    chapter: str
    section: str
    url: str
    chunk_index: int

    @classmethod
    def of(cls, citation: Citation) -> Source:
        return cls(
            chunk_text=clip(citation.chunk_text, SOURCE_TEXT_MAX),
            similarity_score=citation.similarity_score,
            chapter=citation.chapter,
            section=citation.section,
            url=citation.url,
            chunk_index=citation.chunk_index,
        )


class ChatResponse(BaseModel):
    response: str
    confidence: float = Field(ge=0.0, le=1.0)
    sources: list[Source]
    session_id: uuid.UUID
    timestamp: str = Field(description="ISO 8601 UTC, milliseconds, Z.")
    confidence_level: ConfidenceLevel
    should_answer: bool

    @classmethod
    def of(cls, answer: Answer, session_id: uuid.UUID) -> ChatResponse:
        return cls(
            response=answer.text,
            confidence=answer_confidence(answer),
            sources=[Source.of(c) for c in answer.citations],
            session_id=session_id,
            timestamp=answer.timestamp,
            confidence_level=answer.confidence.confidence_level,
            should_answer=answer.confidence.should_answer,
        )


def answer_confidence(answer: Answer) -> float:
    """Seed 000: the aggregate confidence is the average similarity of what was retrieved."""
    return min(max(answer.confidence.average_similarity, 0.0), 1.0)


class HistoryMessage(BaseModel):
    role: Literal["user", "assistant"]
    content: str
    timestamp: str
    confidence: float | None = None


class ConversationThread(BaseModel):
    thread_id: uuid.UUID
    messages: list[HistoryMessage] = Field(max_length=50)
    created_at: str
    updated_at: str
    topic_summary: str | None = None
    metadata: dict[str, Any] = Field(default_factory=dict)

    @classmethod
    def of(cls, thread: Thread) -> ConversationThread:
        return cls(
            thread_id=thread.thread_id,
            messages=[_history_message(m) for m in thread.messages if m.role != "system"][-50:],
            created_at=iso_timestamp(thread.created_at),
            updated_at=iso_timestamp(thread.updated_at),
            topic_summary=thread.topic_summary,
            metadata=thread.metadata,
        )


def _history_message(m: StoredMessage) -> HistoryMessage:
    return HistoryMessage(
        role="assistant" if m.role == "assistant" else "user",
        content=m.content,
        timestamp=iso_timestamp(m.timestamp),
        confidence=m.confidence if m.role == "assistant" else None,
    )
