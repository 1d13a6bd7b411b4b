"""One conversational turn for every HTTP face: load the thread, store the question, run the engine,
store the answer.

Order matters: the user's message is stored *before* the engine runs, so a failing provider never loses
it; the assistant's message (with citations and confidence) is stored when the engine says ``Done`` and
before the face shows ``Done`` to the client, so a client that saw the answer finds it in the history.
"""

from __future__ import annotations

import contextlib
import json
import time
from collections import OrderedDict
from collections.abc import AsyncGenerator, Awaitable
from dataclasses import dataclass, field
from typing import Literal, TypeVar
from uuid import UUID

import anyio
from pydantic import TypeAdapter, ValidationError

from lectern import errors, metrics
from lectern.api.chat_models import Source, answer_confidence
from lectern.api.ids import random_uuid
from lectern.api.logs import LogSink, log
from lectern.api.session_queue import SessionQueue
from lectern.conversation import Conversation, RetrievalKey
from lectern.conversation import Message as ConversationMessage
from lectern.engine import AskOptions, Engine
from lectern.events import Done, Event, Failed, Retrieved
from lectern.models import Answer, Citation, RetrievalResult
from lectern.store import ConversationStore, NewMessage
from lectern.store.models import WindowMessage

INTERNAL_ERROR = "internal_error"
# Sessions whose retrieval cache is kept in this process. A cached retrieval holds its hits' vectors
# (float32 arrays from LanceDB, ~15 kB a search; other engines' Python floats, ~110 kB at top 8). A
# repeat comes within a session's recent turns; an evicted session's repeat only retrieves again.
CACHE_SESSIONS = 128
CACHE_ENTRIES = 64  # retrievals per session before its cache starts afresh
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
    # The turn's id (the generation API's prompt id), stored on its question and on its answer.
    prompt_id: UUID | None = field(default_factory=random_uuid)


class Turns:
    def __init__(
        self,
        engine: Engine,
        store: ConversationStore,
        sink: LogSink,
        *,
        history: int,
        queue: SessionQueue | None = None,
    ) -> None:
        self.engine = engine
        self.store = store
        self.sink = sink
        self.history = history
        # One turn at a time per session; faces hold `queue.turn(session_id)` from begin to complete.
        self.queue = queue or SessionQueue()
        # Seed 001's per-session retrieval cache, kept between a session's requests (LRU of sessions).
        self._caches: OrderedDict[UUID, dict[RetrievalKey, RetrievalResult]] = OrderedDict()

    def forget(self, session_id: UUID) -> None:
        """A deleted session's cached retrievals go with it."""
        self._caches.pop(session_id, None)

    def cache_for(self, session_id: UUID) -> dict[RetrievalKey, RetrievalResult]:
        cache = self._caches.pop(session_id, None)
        if cache is None or len(cache) > CACHE_ENTRIES:
            cache = {}
        self._caches[session_id] = cache
        while len(self._caches) > CACHE_SESSIONS:
            self._caches.popitem(last=False)
        return cache

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
        started = await self.store.begin_turn(
            turn.session_id,
            NewMessage(role="user", content=turn.question, prompt_id=turn.prompt_id),
            owner=turn.owner,
            history=0 if new else self.history,
            create=new or may_create,  # created on first use (seed 000)
        )
        base = self.engine.new_conversation(str(turn.session_id))  # no throwaway id (an os.urandom)
        messages = [_to_conversation(m) for m in started.window if m.role != "system"]
        conversation = Conversation(
            system_prompt=base.system_prompt,
            max_history=base.max_history,
            session_id=str(turn.session_id),
            messages=messages,
            turns=started.turn_number - 1,  # the session's turns before this one, not the window's
            cache=self.cache_for(turn.session_id),
        )
        return conversation

    async def events(self, turn: Turn, conversation: Conversation) -> AsyncGenerator[Event, None]:
        """The engine's events, logged as seed 002 events, ending at ``Done`` or ``Failed``. An exception
        from the engine ends the stream with ``Failed`` (its message shown only when it is a
        LecternError, which is written for users). On ``Done`` the caller calls ``complete``."""
        try:
            # closed here at Done, not later through the event loop (see Engine.stream)
            async with contextlib.aclosing(
                self.engine.stream(turn.question, conversation, turn.options)
            ) as events:
                async for event in events:
                    if isinstance(event, Retrieved):
                        self._log_retrieval(turn, event)
                    elif isinstance(event, Failed):
                        metrics.observe_failure(event.code)
                        self.sink.emit(
                            "error", thread_id=turn.session_id, code=event.code, error_message=event.message
                        )
                    yield event
                    if isinstance(event, Done | Failed):
                        return
        except errors.LecternError as exc:
            metrics.observe_failure(exc.code)
            self.sink.emit("error", thread_id=turn.session_id, code=exc.code, error_message=exc.message)
            yield Failed(exc.code, exc.message)
        except Exception:
            log.exception("engine failed", extra={"thread_id": str(turn.session_id)})
            metrics.observe_failure(INTERNAL_ERROR)
            self.sink.emit("error", thread_id=turn.session_id, code=INTERNAL_ERROR)
            yield Failed(INTERNAL_ERROR, "An unexpected error occurred while answering.")

    async def complete(
        self, turn: Turn, answer: Answer, started: float, *, sources: list[Source] | None = None
    ) -> int:
        """Store the answer; faces call this on ``Done`` before they show it. Returns the stored
        message's seq (feedback names it). ``sources``: the answer's citations as Sources
        (`sources_of`), when the face has built them for its response already."""
        with metrics.StoreTimer():
            seq = await self._store_answer(turn, answer, sources_of(answer) if sources is None else sources)
        metrics.observe_answer(answer)
        self._log_done(turn, answer, started)
        return seq

    async def save_partial(self, turn: Turn, text: str) -> None:
        """A cancelled generation keeps what it had written (seed 004: the partial turn is saved)."""
        if text:
            await self.store.append_messages(
                turn.session_id,
                [NewMessage(role="assistant", content=text, prompt_id=turn.prompt_id)],
                owner=turn.owner,
            )

    async def _store_answer(self, turn: Turn, answer: Answer, sources: list[Source]) -> int:
        confidence = answer_confidence(answer)
        # Built without validating again: the dicts are the dumps of models validated just now
        # (Source, Citation), and an assistant message without a timestamp passes NewMessage's checks
        # (a NaN confidence, which they refuse, still goes through them). Validation copied every
        # source's and citation's dict, key by key (~2x this construction).
        build = NewMessage.model_construct if 0.0 <= confidence <= 1.0 else NewMessage
        stored = await self.store.append_messages(
            turn.session_id,
            [
                build(
                    role="assistant",
                    content=answer.text,
                    confidence=confidence,
                    sources=[s.model_dump(mode="json") for s in sources],
                    citations=[c.model_dump(mode="json") for c in answer.citations],
                    prompt_id=turn.prompt_id,
                )
            ],
            owner=turn.owner,
            retrievals=answer.retrieval_count,
            tokens=answer.usage.total_tokens,
        )
        return stored[0].seq

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


def sources_of(answer: Answer) -> list[Source]:
    """Every citation of the answer as a Source: what the stored message keeps, and (unless it is a
    refusal) what the response shows. Built once a turn for both (a Source costs ~6 us to build)."""
    return [Source.of(c) for c in answer.citations]


def _to_conversation(m: WindowMessage) -> ConversationMessage:
    """The engine's message for a window's message. The newest answer keeps its citations (the window
    carries no other's): a follow-up's search favours the files it cited and, refused, is searched again
    within its section (`lectern.engine._last_sources`, `_last_section`), as in process."""
    role: Literal["user", "assistant"] = "assistant" if m.role == "assistant" else "user"
    return ConversationMessage(role, m.content, m.timestamp, m.confidence, _citations(m.citations_json))


def _citations(stored: str | None) -> list[Citation]:
    """Stored citations (the JSON of Citations' dumps) as Citations, parsed and built in one pass; one
    that does not read as one (a message another client appended) is left out."""
    if not stored:
        return []
    try:
        return _CITATIONS.validate_json(stored)
    except ValidationError:
        pass
    try:
        given = json.loads(stored)
    except ValueError:
        given = None
    out = []
    for c in given if isinstance(given, list) else ():
        try:
            out.append(Citation.model_validate(c))
        except ValidationError:
            log.warning("a stored citation that is not one left out of the window")
    return out


_CITATIONS = TypeAdapter(list[Citation])
