"""The engine's event stream. Every face renders these four events and nothing else."""

from __future__ import annotations

from dataclasses import dataclass

from lectern.models import Answer, ConfidenceMetrics, RetrievalResult


@dataclass(frozen=True)
class Retrieved:
    """Retrieval finished (once per retrieval; an LLM writer may retrieve up to 3 times a turn)."""

    result: RetrievalResult
    confidence: ConfidenceMetrics


@dataclass(frozen=True, slots=True)
class Token:
    """A piece of the answer text, in order; the pieces joined are the answer's text."""

    text: str


@dataclass(frozen=True)
class Done:
    answer: Answer


@dataclass(frozen=True)
class Failed:
    """The turn ended without an answer. `code` is stable (seed error states); `message` is for people."""

    code: str
    message: str


Event = Retrieved | Token | Done | Failed
