"""Seed 004 wire models (streaming-rag generation service): sessions, prompts, cancel, GenerationDelta."""

from __future__ import annotations

import uuid
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, field_validator
from pydantic_core import PydanticCustomError

from lectern.api.chat_models import NOT_BLANK, UUID4_SCHEMA, parse_uuid4

TOP_K_MAX = 20
_CAMEL = ConfigDict(populate_by_name=True)


def _invalid(message: str) -> PydanticCustomError:
    return PydanticCustomError("invalid_request", message)


def _uuid(value: object, field: str) -> uuid.UUID:
    if isinstance(value, uuid.UUID):
        return value
    try:
        return uuid.UUID(str(value))
    except ValueError:
        raise _invalid(f"{field} must be a UUID") from None


class SessionRequest(BaseModel):
    owner: str | None = Field(None, max_length=200, description="Optional organisation or repository id.")
    context: dict[str, str] | None = Field(
        None, description="Optional string metadata kept with the session."
    )


class SessionResponse(BaseModel):
    model_config = _CAMEL
    session_id: uuid.UUID = Field(alias="sessionId")


class SessionState(BaseModel):
    """Seed 004's Session with seed 003's counters."""

    model_config = _CAMEL
    session_id: uuid.UUID = Field(alias="sessionId")
    owner: str | None = None
    created_at: str = Field(alias="createdAt")
    last_active_at: str = Field(alias="lastActiveAt")
    status: Literal["Active", "Completed", "Cancelled", "Error"]
    turn_count: int = Field(alias="turnCount", ge=0)
    retrieval_count: int = Field(alias="retrievalCount", ge=0)
    total_tokens: int = Field(alias="totalTokens", ge=0)
    message_count: int = Field(alias="messageCount", ge=0)


class PromptRequest(BaseModel):
    model_config = ConfigDict(
        populate_by_name=True,
        json_schema_extra={
            "examples": [
                {
                    "sessionId": "f47ac10b-58cc-4372-a567-0e02b2c3d479",
                    "prompt": "How does RAG work?",
                    "idempotencyKey": "client-req-001",
                    "topK": 5,
                }
            ]
        },
    )

    session_id: uuid.UUID = Field(alias="sessionId", json_schema_extra=UUID4_SCHEMA)
    prompt: str = Field(json_schema_extra={"minLength": 1, "pattern": NOT_BLANK})
    idempotency_key: str | None = Field(None, alias="idempotencyKey", max_length=255)
    top_k: int = Field(
        5,
        alias="topK",
        description="Documents to retrieve, 1-20.",
        json_schema_extra={"minimum": 1, "maximum": 20},
    )
    filters: dict[str, str] | None = Field(None, description="Equality filters on chunk metadata.")

    @field_validator("session_id", mode="before")
    @classmethod
    def _session(cls, value: object) -> object:
        return parse_uuid4(value, "sessionId")

    @field_validator("prompt", mode="before")
    @classmethod
    def _prompt(cls, value: object) -> object:
        if not isinstance(value, str) or not value.strip():
            raise _invalid("Prompt text cannot be empty")
        return value

    @field_validator("top_k", mode="before")
    @classmethod
    def _top_k(cls, value: object) -> object:
        if isinstance(value, float) and value.is_integer():
            value = int(value)  # 5.0 is an integer in JSON Schema's sense
        if isinstance(value, bool) or not isinstance(value, int) or not 1 <= value <= TOP_K_MAX:
            raise _invalid(f"TopK must be between 1 and {TOP_K_MAX}")
        return value


class CancelRequest(BaseModel):
    model_config = _CAMEL
    session_id: uuid.UUID = Field(alias="sessionId")
    prompt_id: uuid.UUID = Field(alias="promptId")

    @field_validator("session_id", mode="before")
    @classmethod
    def _session(cls, value: object) -> object:
        return _uuid(value, "sessionId")

    @field_validator("prompt_id", mode="before")
    @classmethod
    def _prompt(cls, value: object) -> object:
        return _uuid(value, "promptId")


DeltaType = Literal["token", "done", "error"]
DeltaRole = Literal["assistant", "system", "user"]


class GenerationDelta(BaseModel):
    """One NDJSON line. ``text`` is set on tokens; an error carries ``metadata.code`` and ``.message``."""

    model_config = _CAMEL
    prompt_id: uuid.UUID = Field(alias="promptId")
    type: DeltaType
    seq: int = Field(ge=0)
    text: str | None = None
    role: DeltaRole = "assistant"
    metadata: dict[str, Any] | None = None
