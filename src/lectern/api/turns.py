"""One conversational turn for every HTTP face: load the thread, store the question, run the engine,
store the answer.

Order matters: the user's message is stored *before* the engine runs, so a failing provider never loses
it; the assistant's message (with citations and confidence) is stored when the engine says ``Done`` and
before the face shows ``Done`` to the client, so a client that saw the answer finds it in the history.
"""

from __future__ import annotations

import time
from collections.abc import AsyncIterator, Awaitable
from dataclasses import dataclass, field
from typing import Any, Literal, TypeVar
from uuid import UUID

import anyio

from lectern import errors
from lectern.api.chat_models import Source, answer_confidence
from lectern.api.logs import LogSink, log
from lectern.conversation import Conversation
from lectern.conversation import Message as ConversationMessage
from lectern.engine import AskOptions, Engine
from lectern.events import Done, Event, Failed, Retrieved
from lectern.models import Answer, Citation
from lectern.store import ConversationStore, NewMessage
from lectern.store.models import WindowMessage

INTERNAL_ERROR = "internal_error"
T = TypeVar("T")


async def shielded(work: Awaitable[T]) -> T:
    """Database work inside a streaming response. A client that leaves cancels the response's anyio
    scope, which cancels *every* await in it, a transaction's rollback included: SQLite's write lock
    (or a pooled connection) would stay taken. Shielded, the work finishes first."""
    with anyio.CancelScope(shield=True):
        result = await work
    return result


@dataclass(frozen=True)
class Turn:
    session_id: UUID
    owner: str | None
    question: str
    options: AskOptions = field(default_factory=AskOptions)
    prompt_id: UUID | None = None


class Turns:
    def __init__(self, engine: Engine, store: ConversationStore, sink: LogSink, *, history: int) -> None:
        self.engine = engine
        self.store = store
        self.sink = sink
        self.history = history

    async def begin(self, turn: Turn, *, new: bool = False, may_create: bool = True) -> Conversation:
        """Store the question and load the engine's window of the thread before it (creating the thread
        if needed), in one transaction. ``new``: the id was just made, nothing to read. NotFound for
        another key's thread, or a missing one when ``may_create`` is False."""
        self.sink.emit(
            "query_received",
            thread_id=turn.session_id,
            query_length=len(turn.question),
            prompt_id=None if turn.prompt_id is None else str(turn.prompt_id),
        )
        window, _ = await self.store.start_turn(
            turn.session_id,
            NewMessage(role="user", content=turn.question, prompt_id=turn.prompt_id),
            owner=turn.owner,
            history=0 if new else self.history,
            create=new or may_create,  # created on first use (seed 000)
        )
        base = self.engine.new_conversation()
        messages = [_to_conversation(m) for m in window if m.role != "system"]
        conversation = Conversation(
            system_prompt=base.system_prompt,
            max_history=base.max_history,
            session_id=str(turn.session_id),
            messages=messages,
            turns=sum(m.role == "user" for m in messages),  # the turns in the window
        )
        return conversation

    async def events(self, turn: Turn, conversation: Conversation) -> AsyncIterator[Event]:
        """The engine's events, logged as seed 002 events, ending at ``Done`` or ``Failed``. An exception
        from the engine ends the stream with ``Failed`` (its message shown only when it is a
        LecternError, which is written for users). On ``Done`` the caller calls ``complete``."""
        try:
            async for event in self.engine.stream(turn.question, conversation, turn.options):
                if isinstance(event, Retrieved):
                    self._log_retrieval(turn, event)
                elif isinstance(event, Failed):
                    self.sink.emit(
                        "error", thread_id=turn.session_id, code=event.code, error_message=event.message
                    )
                yield event
                if isinstance(event, Done | Failed):
                    return
        except errors.LecternError as exc:
            self.sink.emit("error", thread_id=turn.session_id, code=exc.code, error_message=exc.message)
            yield Failed(exc.code, exc.message)
        except Exception:
            log.exception("engine failed", extra={"thread_id": str(turn.session_id)})
            self.sink.emit("error", thread_id=turn.session_id, code=INTERNAL_ERROR)
            yield Failed(INTERNAL_ERROR, "An unexpected error occurred while answering.")

    async def complete(self, turn: Turn, answer: Answer, started: float) -> None:
        """Store the answer; faces call this on ``Done`` before they show it."""
        await self._store_answer(turn, answer)
        self._log_done(turn, answer, started)

    async def save_partial(self, turn: Turn, text: str) -> None:
        """A cancelled generation keeps what it had written (seed 004: the partial turn is saved)."""
        if text:
            await self.store.append_messages(
                turn.session_id,
                [NewMessage(role="assistant", content=text, prompt_id=turn.prompt_id)],
                owner=turn.owner,
            )

    async def _store_answer(self, turn: Turn, answer: Answer) -> None:
        await self.store.append_messages(
            turn.session_id,
            [
                NewMessage(
                    role="assistant",
                    content=answer.text,
                    confidence=answer_confidence(answer),
                    sources=[_source(c) for c in answer.citations],
                    citations=[c.model_dump(mode="json") for c in answer.citations],
                    prompt_id=turn.prompt_id,
                )
            ],
            owner=turn.owner,
            retrievals=answer.retrieval_count,
            tokens=answer.usage.total_tokens,
        )

    def _log_retrieval(self, turn: Turn, event: Retrieved) -> None:
        timings = event.result.timings
        self.sink.emit(
            "embedding_generated",
            thread_id=turn.session_id,
            duration_ms=timings.embedding_ms,
            cached=timings.cached,
        )
        self.sink.emit(
            "retrieval_performed",
            thread_id=turn.session_id,
            duration_ms=timings.search_ms + timings.ranking_ms,
            results=len(event.result.hits),
            candidates=event.result.total_candidates,
            average_score=round(event.result.average_score, 4),
            confidence_level=event.confidence.confidence_level,
        )

    def _log_done(self, turn: Turn, answer: Answer, started: float) -> None:
        timings = answer.timings
        self.sink.emit(
            "response_sent",
            thread_id=turn.session_id,
            duration_ms=(time.perf_counter() - started) * 1000,
            confidence_level=answer.confidence.confidence_level,
            grounded=answer.grounded,
            citations=len(answer.citations),
            response_length=len(answer.text),
            model=answer.model_used,
            generation_ms=round(timings.generation_ms, 3),
            total_ms=round(timings.total_ms, 3),
        )


def _source(c: Citation) -> dict[str, Any]:
    return Source.of(c).model_dump(mode="json")


def _to_conversation(m: WindowMessage) -> ConversationMessage:
    # The engine reads roles and text from history; stored citations stay in the store.
    role: Literal["user", "assistant"] = "assistant" if m.role == "assistant" else "user"
    return ConversationMessage(role, m.content, m.timestamp, m.confidence)
