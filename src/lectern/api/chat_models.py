"""Seed 000 wire models (rag-agent-api): ChatRequest, ChatResponse, Source, ConversationThread.

Views of the core models, built here in the face; the validation messages are the contract's.
"""

from __future__ import annotations

import uuid
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, field_validator
from pydantic_core import PydanticCustomError

from lectern import debug
from lectern.conversation import iso_timestamp
from lectern.errors import InvalidInput
from lectern.models import Answer, Citation, ConfidenceLevel, RefusalReason, Verification
from lectern.store.models import Message as StoredMessage
from lectern.store.models import Thread
from lectern.views import clip
from lectern.writers.selection import MAX_USER_CONTEXT_CHARS

MESSAGE_MAX = 1000
TOP_K_MAX = 10
SOURCE_TEXT_MAX = 500


# What /openapi.json declares for the checks the validators below make themselves (their messages are
# the contract's), so a generated client or a fuzzer sees the same rules the server enforces.
UUID4_PATTERN = "^[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-4[0-9a-fA-F]{3}-[89abAB][0-9a-fA-F]{3}-[0-9a-fA-F]{12}$"
UUID4_SCHEMA: dict[str, Any] = {"format": "uuid", "pattern": UUID4_PATTERN}
NOT_BLANK = r"\S"  # a JSON Schema pattern is a search: at least one character that is not a space


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
            ],
            # selected_text_only=true needs the selection itself.
            "if": {"properties": {"selected_text_only": {"const": True}}, "required": ["selected_text_only"]},
            "then": {
                "required": ["user_context"],
                "properties": {"user_context": {"type": "string", "pattern": NOT_BLANK}},
            },
        }
    )

    message: str = Field(
        description="The question, 1-1000 characters, not blank.",
        json_schema_extra={"minLength": 1, "maxLength": MESSAGE_MAX, "pattern": NOT_BLANK},
    )
    session_id: uuid.UUID | None = Field(
        None,
        description="UUID v4 of the conversation; a new one is made when left out.",
        json_schema_extra={"anyOf": [{"type": "string", **UUID4_SCHEMA}, {"type": "null"}]},
    )
    stream: bool = Field(
        False, strict=True, description="Accepted for compatibility; the endpoint decides the mode."
    )
    # Left out, both come from settings: thresholds are calibrated per embedding model (the contract's
    # 0.7 suits OpenAI's embeddings, not the local model's score scale).
    top_k: int | None = Field(
        None,
        description="Chunks to retrieve, 1-10 (default LECTERN_TOP_K, 5).",
        json_schema_extra={
            "anyOf": [{"type": "integer", "minimum": 1, "maximum": TOP_K_MAX}, {"type": "null"}]
        },
    )
    similarity_threshold: float | None = Field(
        None,
        description="Minimum cosine similarity, 0.0-1.0 (default LECTERN_SIMILARITY_THRESHOLD).",
        json_schema_extra={"anyOf": [{"type": "number", "minimum": 0, "maximum": 1}, {"type": "null"}]},
    )
    user_context: str | None = Field(
        None,
        max_length=MAX_USER_CONTEXT_CHARS,
        description="Text the reader selected on the page; the answer takes it into account.",
    )
    selected_text_only: bool = Field(
        False, strict=True, description="Answer from user_context alone, without searching the documents."
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
        if isinstance(value, float) and value.is_integer():
            value = int(value)  # 5.0 is an integer in JSON Schema's sense
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
    number: int = Field(ge=1, description="`[number]` in the answer cites this source; sources[i] is [i+1].")
    chunk_text: str = Field(max_length=SOURCE_TEXT_MAX)
    similarity_score: float = Field(ge=0.0, le=1.0)
    chapter: str
    section: str
    url: str
    chunk_index: int

    @classmethod
    def of(cls, citation: Citation) -> Source:
        return cls(
            number=citation.number,
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
    refusal_reason: RefusalReason | None = Field(
        None, description="Why the question was refused (sources stay empty); left out when answered."
    )
    related: list[Source] = Field(
        default_factory=list,
        description="On a refusal: up to three of the closest sections, as further reading (not sources).",
    )
    message_seq: int | None = Field(
        None, description="The stored answer's position in the session; POST /feedback names it."
    )
    verification: Verification | None = Field(
        None,
        description="An LLM answer's check against the passages the model was given; left out otherwise.",
    )
    timings: dict[str, Any] | None = Field(
        None, description="Stage timings of this turn in ms (embedding, search, ranking, generation, total)."
    )
    warnings: list[str] | None = Field(
        None, description="What limited the answer, e.g. a TOKEN_LIMIT trim of the history; left out if none."
    )

    @classmethod
    def of(
        cls,
        answer: Answer,
        session_id: uuid.UUID,
        message_seq: int | None = None,
        *,
        sources: list[Source] | None = None,
    ) -> ChatResponse:
        """``sources``: the answer's citations as Sources when built already (turns.sources_of)."""
        if sources is None:
            sources = [Source.of(c) for c in answer.citations]
        return cls(
            **debug.report(answer),
            related=[Source.of(c) for c in answer.related],
            refusal_reason=answer.refusal_reason,
            message_seq=message_seq,
            verification=answer.verification,
            response=answer.text,
            confidence=answer_confidence(answer),
            # A refusal cites nothing; what it points to is `related`.
            sources=[] if answer.refusal_reason else sources,
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
    # Lectern: the message's place in the session, and the turn it belongs to (a question and its answer
    # share it; the generation API's prompt id).
    seq: int | None = None
    turn_id: uuid.UUID | None = None


class ConversationThread(BaseModel):
    thread_id: uuid.UUID
    messages: list[HistoryMessage] = Field(max_length=50)
    created_at: str
    updated_at: str
    topic_summary: str | None = None
    metadata: dict[str, Any] = Field(default_factory=dict)
    # Lectern: seed 003's counters and whether the session is archived (idle).
    turn_count: int | None = None
    retrieval_count: int | None = None
    total_tokens: int | None = None
    archived: bool | None = None

    @classmethod
    def of(cls, thread: Thread) -> ConversationThread:
        return cls(
            turn_count=thread.turn_count,
            retrieval_count=thread.retrieval_count,
            total_tokens=thread.total_tokens,
            archived=thread.archived,
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
        seq=m.seq,
        turn_id=m.prompt_id,
    )
