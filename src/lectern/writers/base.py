"""The answer-writer protocol.

The engine owns retrieval, confidence and the guardrail; a writer only turns retrieved text into an
answer. A writer that calls tools (an LLM) retrieves through the `retrieve` callback the engine gives
it, so every retrieval is counted, cached, capped and reported as a `Retrieved` event.
"""

from __future__ import annotations

from collections.abc import AsyncIterator, Awaitable, Callable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Protocol, runtime_checkable

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
    """The user's message as read: as asked, with courtesy words, a greeting or a preamble that carries
    no content left out (`lectern.courtesy.without_courtesy`; "Hi! How do I X?" -> "How do I X?"). The
    history keeps the messages as asked."""
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
    stream: bool = True
    """False where nobody reads the words as they come (`AskOptions.stream_tokens`): a writer may then
    send its text as one `Token`."""
    composed: Composed | None = None
    """What a `ComposingWriter` already composed for this very request (the engine has it composed in
    the retrieval's worker call, one hand-off to a thread per answer): the writer sends it as is."""


@dataclass(frozen=True)
class Composed:
    """An answer composed ahead of `AnswerWriter.write`: its text, the sources it cites, and how long
    composing took (counted as the answer's generation time)."""

    text: str
    cited: list[int]
    ms: float


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


@runtime_checkable
class ComposingWriter(Protocol):
    """A writer whose answer is a plain function of the request (no model, no I/O): the engine may
    compose it in a worker thread it already uses and pass it on as `WriteRequest.composed`."""

    def compose(self, request: WriteRequest) -> tuple[str, list[int]]:
        """The answer text and the (1-based) source numbers it cites."""
        ...


@runtime_checkable
class ReserveQuoting(Protocol):
    """A writer that may quote the retrieval's reserve (`RetrievalResult.reserve`) when its
    `quotes_reserve` is true: its answers cite reserve passages by numbers past the sources
    (`selection.quotable_of`), and the engine lists those. Any other writer's markers past its sources
    name nothing and are dropped."""

    quotes_reserve: bool
