"""What one turn of the engine carries: the question's options, the state the turn gathers as it
retrieves, decides and writes, and what the decision reads from it."""

from __future__ import annotations

import time
from dataclasses import dataclass, field

from lectern import answerability
from lectern.confidence import better
from lectern.errors import InvalidInput
from lectern.index.base import SearchFilters
from lectern.models import ConfidenceMetrics, RefusalReason, RetrievalResult, SearchModeName
from lectern.retrieval import TOOL_MAX_TOP_K
from lectern.verification import StreamGate
from lectern.writers.base import WriteRequest, Written
from lectern.writers.selection import MAX_USER_CONTEXT_CHARS

MAX_QUESTION_CHARS = 10_000


@dataclass(frozen=True)
class AskOptions:
    """Per-question options; None means the settings' default."""

    top_k: int | None = None
    threshold: float | None = None
    filters: SearchFilters | None = None
    mode: SearchModeName | None = None
    user_context: str | None = None
    selected_text_only: bool = False
    max_top_k: int = TOOL_MAX_TOP_K
    """Faces narrow this (chat: 10, seed 000)."""
    stream_tokens: bool = True
    """False where the caller reads only the `Done` answer (`Engine.run`, ``/chat/run``): the writer's
    words and a refusal then come as one `Token` each, not word by word. The answer is the same
    (citation renumbering gives one text however the stream is split); a stream of ~60 words passed
    through each layer of generators cost ~0.5 ms of CPU per answer."""


@dataclass
class _Turn:
    """What one turn has gathered so far."""

    question: str
    search_query: str
    options: AskOptions
    previous: list[str] = field(default_factory=list)
    """The conversation's earlier user questions, oldest first."""
    previous_sources: frozenset[str] = frozenset()
    """The files the previous answer cited."""
    previous_section: str = ""
    """Where the previous answer's first source sits: its outermost and innermost headings
    (`_last_section`); empty after a refusal."""
    spelled: str | None = None
    """The question as read (`plain`) with its misspelt words put right (`lectern.spelling`), when that
    differs from the question as asked."""
    plain: str | None = None
    """The question with its courtesy words, greeting or preamble that carries no content left out
    (`lectern.courtesy.without_courtesy`: "Hi! How do I X?" -> "How do I X?"), when it had any. The
    question as asked (`question`) is what is stored, shown and echoed."""
    started: float = field(default_factory=time.perf_counter)
    retrievals: list[tuple[RetrievalResult, ConfidenceMetrics]] = field(default_factory=list)
    text: list[str] = field(default_factory=list)
    generation_ms: float = 0.0
    written: Written | None = None
    warnings: list[str] = field(default_factory=list)
    given: list[RetrievalResult] = field(default_factory=list)
    """What a tool-calling writer's searches returned: the passages the model actually saw."""
    gate: StreamGate | None = None
    """An LLM writer's words held back until verified, sentence by sentence."""

    @property
    def asked(self) -> str:
        """The question as the user meant it: what a search that is not rewritten looks for."""
        return self.spelled or self.plain or self.question

    @property
    def read(self) -> str:
        """The question as the writer and a selection read it: courtesy left out, spelt as asked."""
        return self.plain or self.question

    def best(self) -> tuple[RetrievalResult, ConfidenceMetrics] | None:
        best: tuple[RetrievalResult, ConfidenceMetrics] | None = None
        for pair in self.retrievals:
            if best is None or better(pair[1], best[1]):
                best = pair
        return best


Decided = tuple[ConfidenceMetrics, RefusalReason | None]
"""The answerability decision: the confidence to answer with, or the reason to refuse."""


@dataclass(frozen=True)
class _Prepared:
    """What the retrieval's worker call worked out beyond the retrieval (nothing when it came from the
    session's cache): the answerability signals, the decision on them, and for an answer the write
    request with the answer a `ComposingWriter` composed for it."""

    signals: answerability.Signals | None = None
    decided: Decided | None = None
    request: WriteRequest | None = None
    retry: _Retry | None = None  # a refusal's second search with the previous topic (`_retry_here`)


@dataclass(frozen=True)
class _Retry:
    """The search with the previous topic (`Engine._with_previous_topic`): its result and confidence,
    the result as judged (with the question's own embedding), and its answerability signals (None:
    worked out when deciding)."""

    query: str
    result: RetrievalResult
    confidence: ConfidenceMetrics
    judged: RetrievalResult
    signals: answerability.Signals | None


def _decision_query(turn: _Turn) -> str:
    """What the answerability decision reads: with a selection the search query carries the
    selection's words, and only the question's count."""
    return turn.asked if turn.options.user_context else turn.search_query


def _carried(turn: _Turn) -> frozenset[str]:
    """The words a follow-up's rewrite carried from the previous turn in brackets: the decision counts
    them only where a passage has them (`answerability.carried_words`)."""
    return answerability.carried_words(_decision_query(turn), turn.asked)


def _validate(question: str, options: AskOptions) -> str:
    if not isinstance(question, str) or not question.strip():
        raise InvalidInput("The question is empty; please type a question.")
    if len(question) > MAX_QUESTION_CHARS:
        raise InvalidInput(f"The question is longer than {MAX_QUESTION_CHARS} characters.")
    context = options.user_context
    if context is not None and len(context) > MAX_USER_CONTEXT_CHARS:
        raise InvalidInput(f"The selected text is longer than {MAX_USER_CONTEXT_CHARS} characters.")
    if options.selected_text_only and not (context and context.strip()):
        raise InvalidInput("selected_text_only needs the selected text (user_context).")
    return " ".join(question.split())
