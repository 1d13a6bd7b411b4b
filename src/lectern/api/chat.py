"""Seed 000 (rag-agent-api): ``/chat/run``, ``/chat/stream`` (SSE), session history and delete."""

from __future__ import annotations

import asyncio
import contextlib
import json
import time
from collections.abc import AsyncIterator, Callable
from typing import Annotated, Any

import anyio
from fastapi import APIRouter, Depends, Path, Request
from sse_starlette import EventSourceResponse, ServerSentEvent
from starlette.responses import Response
from starlette.types import Receive, Scope, Send

from lectern import debug, errors
from lectern.api.chat_models import (
    TOP_K_MAX,
    UUID4_SCHEMA,
    ChatRequest,
    ChatResponse,
    ConversationThread,
    path_uuid4,
)
from lectern.api.errors import error_body, status_for_code
from lectern.api.ids import random_uuid
from lectern.api.services import Services, owner, owner_of, services, services_of
from lectern.api.turns import Turn, shielded, sources_of
from lectern.engine import AskOptions
from lectern.events import Done, Event, Failed, Token

router = APIRouter(tags=["chat"])

Svc = Annotated[Services, Depends(services)]
Owner = Annotated[str | None, Depends(owner)]
# Declared as a UUID v4 in /openapi.json; checked by path_uuid4 (a 400 in the contract's words).
SessionPath = Annotated[str, Path(description="The session's UUID v4.", json_schema_extra=UUID4_SCHEMA)]

ERRORS: dict[int | str, dict[str, Any]] = {
    400: {"description": "Invalid request (the message names the field)."},
    401: {"description": "Missing or invalid API key."},
    404: {"description": "The session does not exist or belongs to another key."},
    413: {"description": "Request body too large."},
    429: {"description": "Rate limit exceeded; see Retry-After."},
    503: {"description": "A dependency (index, embedder, model provider) is unavailable."},
}


class EngineFailure(errors.LecternError):
    """An engine ``Failed`` event, mapped to HTTP by its code like the exception it stands for."""

    def __init__(self, failed: Failed) -> None:
        super().__init__(failed.message, code=failed.code)
        self.http_status = status_for_code(failed.code)


def _turn(body: ChatRequest, key: str | None, *, stream_tokens: bool = True) -> Turn:
    """`stream_tokens`: False where only the whole answer is sent (see `AskOptions.stream_tokens`)."""
    return Turn(
        session_id=body.session_id or random_uuid(),
        owner=key,
        question=body.message,
        options=AskOptions(
            top_k=body.top_k,
            threshold=body.similarity_threshold,
            max_top_k=TOP_K_MAX,
            user_context=body.user_context,
            selected_text_only=body.selected_text_only,
            stream_tokens=stream_tokens,
        ),
    )


def _json(model: ChatResponse | ConversationThread) -> Response:
    # Unset optional fields are left out (a user message has no confidence), as the contract shows.
    return Response(model.model_dump_json(exclude_none=True), media_type="application/json")


@router.post(
    "/chat/run",
    summary="Ask a question; get the whole answer with its sources",
    response_model=ChatResponse,
    responses=ERRORS,
)
async def chat_run(body: ChatRequest, request: Request) -> Response:
    # The services and the key from the request itself: as dependencies they cost FastAPI's
    # dependency resolution twice more per request, on the busiest route.
    started = time.perf_counter()
    svc, key = services_of(request), owner_of(request)
    turn = _turn(body, key, stream_tokens=False)
    async with svc.turns.queue.turn(turn.session_id):  # the session's earlier question first
        conversation = await svc.turns.begin(turn, new=body.session_id is None)
        # Closed here at Done: an async generator left open is closed later through the event loop
        # (a self-pipe write that gives up the GIL, a loop wake-up and a task, per answer).
        async with contextlib.aclosing(svc.turns.events(turn, conversation)) as events:
            async for event in events:
                if isinstance(event, Done):
                    sources = sources_of(event.answer)  # stored and shown: built once
                    seq = await svc.turns.complete(turn, event.answer, started, sources=sources)
                    response = _json(ChatResponse.of(event.answer, turn.session_id, seq, sources=sources))
                    response.headers["Server-Timing"] = debug.server_timing(event.answer)
                    return response
                if isinstance(event, Failed):
                    raise EngineFailure(event)
    raise errors.LecternError("The engine ended without an answer.")


def _sse(kind: str, payload: dict[str, Any], seq: int) -> ServerSentEvent:
    """An unnamed event (a browser's ``EventSource.onmessage`` receives it) whose JSON says its ``type``;
    ``id`` counts the events of the stream from 0."""
    return ServerSentEvent(data=json.dumps({"type": kind, **payload}, ensure_ascii=False), id=str(seq))


@router.post(
    "/chat/stream",
    summary="Ask a question; get the answer as Server-Sent Events",
    responses={
        200: {
            "description": "Unnamed `data:` events, each with an `id:` (0, 1, ...), whose JSON carries "
            "`type`: `token` (`{type, content}`), then one `done` (`{type, metadata}`, metadata being the "
            "ChatResponse) or one `error` (`{type, error, message, details, timestamp, request_id}`, the "
            "Error body).",
            "content": {"text/event-stream": {}},
        },
        **ERRORS,
    },
)
async def chat_stream(body: ChatRequest, request: Request) -> EventSourceResponse:
    started = time.perf_counter()
    svc, key = services_of(request), owner_of(request)
    turn = _turn(body, key)
    # The session's turn is held until the stream ends, however it ends (TurnStream's on_close).
    release = await svc.turns.queue.acquire(turn.session_id)
    try:
        # Before the stream starts, so a foreign session is a real 404 and the question is stored.
        conversation = await svc.turns.begin(turn, new=body.session_id is None)
    except BaseException:
        release()
        raise

    async def events() -> AsyncIterator[bytes]:
        seq = 0
        async for burst in bursts(svc.turns.events(turn, conversation)):
            chunk: list[bytes] = []
            for event in burst:
                if isinstance(event, Token):
                    if event.text:
                        chunk.append(_sse("token", {"content": event.text}, seq).encode())
                        seq += 1
                    continue
                if chunk:  # the tokens before it go out first: storing the answer takes a while
                    yield b"".join(chunk)
                    chunk = []
                if isinstance(event, Done):
                    try:
                        sources = sources_of(event.answer)
                        stored = await shielded(
                            svc.turns.complete(turn, event.answer, started, sources=sources)
                        )
                    except errors.LecternError as exc:  # the database went away: say so, no traceback
                        yield _sse(
                            "error", error_body(exc.code, exc.message, status=exc.http_status), seq
                        ).encode()
                        return
                    metadata = ChatResponse.of(
                        event.answer, turn.session_id, stored, sources=sources
                    ).model_dump(mode="json", exclude_none=True)
                    yield _sse("done", {"metadata": metadata}, seq).encode()
                    return
                if isinstance(event, Failed):
                    body = error_body(
                        event.code, event.message, status=status_for_code(event.code), family="chat"
                    )
                    yield _sse("error", body, seq).encode()
                    return
            if chunk:
                yield b"".join(chunk)

    return TurnStream(
        events(), on_close=release, ping=15, headers={"Cache-Control": "no-cache", "X-Accel-Buffering": "no"}
    )


async def bursts(events: AsyncIterator[Event]) -> AsyncIterator[list[Event]]:
    """The events in bursts: each holds what the engine produced while the previous burst was being
    sent (at least one event). A writer that has its whole text at once (the extractive writer) yields
    a hundred tokens back to back: one socket write for all of them instead of one per token (each
    write: a send through five ASGI layers, a timeout scope and a syscall, ~50 us of the event loop).
    The bytes on the wire are the same events, ids and order; a token is never held back waiting
    for the next one.

    The engine runs in its own task; when the stream ends early (the client left) that task is
    cancelled and waited for, so the engine has stopped before the session's turn is released."""
    queue: asyncio.Queue[Event | None] = asyncio.Queue()

    async def pump() -> None:
        try:
            async for event in events:
                queue.put_nowait(event)
        finally:
            queue.put_nowait(None)

    task = asyncio.ensure_future(pump())
    try:
        while True:
            first = await queue.get()
            if first is None:
                break
            burst = [first]
            while not queue.empty():
                event = queue.get_nowait()
                if event is None:
                    yield burst
                    return
                burst.append(event)
            yield burst
    finally:
        if not task.done():
            task.cancel()
        with anyio.CancelScope(shield=True):
            await asyncio.wait([task])
        if not task.cancelled() and task.exception() is not None:
            raise task.exception()  # type: ignore[misc]


class TurnStream(EventSourceResponse):
    """An SSE response that ends the session's turn however it ends (a client that left included: the
    event generator may then never run, so its own ``finally`` cannot be relied on)."""

    def __init__(self, *args: Any, on_close: Callable[[], None], **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self._on_close = on_close

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        try:
            await super().__call__(scope, receive, send)
        finally:
            self._on_close()


@router.get(
    "/session/{session_id}/history",
    tags=["sessions"],
    summary="A session's messages (the active window of the last 50)",
    response_model=ConversationThread,
    responses={k: v for k, v in ERRORS.items() if k in (400, 401, 404, 429)},
)
async def session_history(session_id: SessionPath, svc: Svc, key: Owner) -> Response:
    thread = await svc.store.get_thread(path_uuid4(session_id), owner=key)
    return _json(ConversationThread.of(thread))


@router.delete(
    "/session/{session_id}",
    tags=["sessions"],
    status_code=204,
    summary="Delete a session and everything in it",
    responses={k: v for k, v in ERRORS.items() if k in (400, 401, 404, 429)},
)
async def delete_session(session_id: SessionPath, svc: Svc, key: Owner) -> Response:
    sid = path_uuid4(session_id)
    await svc.store.delete_thread(sid, owner=key)
    svc.turns.forget(sid)
    for run in svc.generations:
        if run.turn.session_id == sid:
            run.cancel("session_deleted")
    return Response(status_code=204)
