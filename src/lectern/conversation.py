"""Conversation state of one session: a sliding window of messages whose first is the system message
(seed 001), seed 003's counters, and a per-session cache of identical retrievals."""

from __future__ import annotations

import uuid
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import Literal

from lectern.models import Citation, RetrievalResult

Role = Literal["system", "user", "assistant"]


def utc_now() -> datetime:
    return datetime.now(UTC)


def iso_timestamp(moment: datetime | None = None) -> str:
    """ISO 8601 in UTC with milliseconds and a Z, as the contracts show (2025-12-17T14:23:45.123Z)."""
    moment = (moment or utc_now()).astimezone(UTC)
    return moment.strftime("%Y-%m-%dT%H:%M:%S.") + f"{moment.microsecond // 1000:03d}Z"


@dataclass
class Message:
    role: Role
    content: str
    timestamp: datetime = field(default_factory=utc_now)
    confidence: float | None = None
    citations: list[Citation] = field(default_factory=list)


RetrievalKey = tuple[str, int, float, str, str]  # query, top_k, threshold, mode, filters


@dataclass
class Conversation:
    system_prompt: str
    max_history: int = 20
    session_id: str = field(default_factory=lambda: str(uuid.uuid4()))
    messages: list[Message] = field(default_factory=list)
    turns: int = 0
    retrievals: int = 0
    tokens: int = 0
    cache: dict[RetrievalKey, RetrievalResult] = field(default_factory=dict)

    def __post_init__(self) -> None:
        if not 1 <= self.max_history <= 100:
            raise ValueError("max_history must be between 1 and 100")
        if not self.messages or self.messages[0].role != "system":
            self.messages.insert(0, Message("system", self.system_prompt))
        self._slide()

    @property
    def history(self) -> list[Message]:
        """The turns after the system message, oldest first."""
        return self.messages[1:]

    def add(self, message: Message) -> None:
        if message.role == "system":
            raise ValueError("only the first message is a system message")
        self.messages.append(message)
        if message.role == "user":
            self.turns += 1
        self._slide()

    def reset(self) -> None:
        """Forget the turns, keep the system message (seed 001 RESET)."""
        del self.messages[1:]
        self.cache.clear()

    def _slide(self) -> None:
        # The window counts the system message, which always stays first.
        overflow = len(self.messages) - self.max_history
        if overflow > 0:
            del self.messages[1 : 1 + overflow]
