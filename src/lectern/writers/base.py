"""The answer-writer protocol.

The engine owns retrieval, confidence and the guardrail; a writer only turns retrieved text into an
answer. A writer that calls tools (an LLM) retrieves through the `retrieve` callback the engine gives
it, so every retrieval is counted, cached, capped and reported as a `Retrieved` event.
"""

from __future__ import annotations

from collections.abc import AsyncIterator, Awaitable, Callable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Protocol

from lectern.conversation import Message
from lectern.events import Token
from lectern.index.base import SearchFilters
from lectern.models import ConfidenceMetrics, RetrievalResult, TokenUsage

if TYPE_CHECKING:
    from lectern.sentences import SentenceVectors


@dataclass(frozen=True)
class RetrieveCall:
    """Arguments of the `retrieve_context` tool (seed 001 / reference functions)."""

    query: str
    top_k: int | None = None
    threshold: float | None = None
    filters: SearchFilters | None = None


Retrieve = Callable[[RetrieveCall], Awaitable[RetrievalResult]]


@dataclass
class WriteRequest:
    question: str
    """The user's message as asked."""
    search_query: str
    """A standalone form of the question (follow-ups rewritten with the conversation)."""
    history: list[Message]
    """Earlier turns, oldest first, without the system message."""
    system_prompt: str
    retrieval: RetrievalResult | None
    """What the engine retrieved before writing (None when the writer retrieves through tools)."""
    confidence: ConfidenceMetrics | None
    user_context: str | None
    retrieve: Retrieve
    extra: dict[str, Any] = field(default_factory=dict)
    sentences: SentenceVectors | None = None
    """Vectors of the sources' sentences (the extractive writer ranks sentences by meaning with them)."""


@dataclass(frozen=True)
class Written:
    """The writer's last event: the full text, which numbered sources it cites, and token usage."""

    text: str
    cited: list[int]
    """1-based positions in the list of hits the engine gave (or the union of tool retrievals)."""
    usage: TokenUsage
    model: str
    warnings: list[str] = field(default_factory=list)
    """Things the answer's reader should know (e.g. seed 001 TOKEN_LIMIT: oldest history left out)."""


WriterEvent = Token | Written


class AnswerWriter(Protocol):
    @property
    def name(self) -> str:
        """Reported as `model_used`."""
        ...

    @property
    def retrieves_itself(self) -> bool:
        """True when the writer retrieves through tool calls instead of the engine retrieving first."""
        ...

    def write(self, request: WriteRequest) -> AsyncIterator[WriterEvent]: ...
