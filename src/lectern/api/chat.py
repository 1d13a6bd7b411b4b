"""Seed 000 (rag-agent-api): ``/chat/run``, ``/chat/stream`` (SSE), session history and delete."""

from __future__ import annotations

import json
import time
import uuid
from collections.abc import AsyncIterator
from typing import Annotated, Any

from fastapi import APIRouter, Depends
from sse_starlette import EventSourceResponse, ServerSentEvent
from starlette.responses import Response

from lectern import errors
from lectern.api.chat_models import TOP_K_MAX, ChatRequest, ChatResponse, ConversationThread, path_uuid4
from lectern.api.errors import error_body, status_for_code
from lectern.api.services import Services, owner, services
from lectern.api.turns import Turn, shielded
from lectern.engine import AskOptions
from lectern.events import Done, Failed, Token

router = APIRouter(tags=["chat"])

Svc = Annotated[Services, Depends(services)]
Owner = Annotated[str | None, Depends(owner)]

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


def _turn(body: ChatRequest, key: str | None) -> Turn:
    return Turn(
        session_id=body.session_id or uuid.uuid4(),
        owner=key,
        question=body.message,
        options=AskOptions(top_k=body.top_k, threshold=body.similarity_threshold, max_top_k=TOP_K_MAX),
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
async def chat_run(body: ChatRequest, svc: Svc, key: Owner) -> Response:
    started = time.perf_counter()
    turn = _turn(body, key)
    conversation = await svc.turns.begin(turn, new=body.session_id is None)
    async for event in svc.turns.events(turn, conversation):
        if isinstance(event, Done):
            await svc.turns.complete(turn, event.answer, started)
            return _json(ChatResponse.of(event.answer, turn.session_id))
        if isinstance(event, Failed):
            raise EngineFailure(event)
    raise errors.LecternError("The engine ended without an answer.")


def _sse(kind: str, payload: dict[str, Any]) -> ServerSentEvent:
    return ServerSentEvent(data=json.dumps({"type": kind, **payload}, ensure_ascii=False), event=kind)


@router.post(
    "/chat/stream",
    summary="Ask a question; get the answer as Server-Sent Events",
    responses={
        200: {
            "description": "`token` events (`{type, content}`), then one `done` event whose `metadata` is "
            "the ChatResponse, or one `error` event (`{type, error: {code, message}}`).",
            "content": {"text/event-stream": {}},
        },
        **ERRORS,
    },
)
async def chat_stream(body: ChatRequest, svc: Svc, key: Owner) -> EventSourceResponse:
    started = time.perf_counter()
    turn = _turn(body, key)
    # Before the stream starts, so a foreign session is a real 404 and the question is stored.
    conversation = await svc.turns.begin(turn, new=body.session_id is None)

    async def events() -> AsyncIterator[ServerSentEvent]:
        async for event in svc.turns.events(turn, conversation):
            if isinstance(event, Token):
                if event.text:
                    yield _sse("token", {"content": event.text})
            elif isinstance(event, Done):
                await shielded(svc.turns.complete(turn, event.answer, started))
                metadata = ChatResponse.of(event.answer, turn.session_id).model_dump(mode="json")
                yield _sse("done", {"metadata": metadata})
                return
            elif isinstance(event, Failed):
                yield _sse("error", error_body(event.code, event.message))
                return

    return EventSourceResponse(
        events(), ping=15, headers={"Cache-Control": "no-cache", "X-Accel-Buffering": "no"}
    )


@router.get(
    "/session/{session_id}/history",
    tags=["sessions"],
    summary="A session's messages (the active window of the last 50)",
    response_model=ConversationThread,
    responses={k: v for k, v in ERRORS.items() if k in (400, 401, 404, 429)},
)
async def session_history(session_id: str, svc: Svc, key: Owner) -> Response:
    thread = await svc.store.get_thread(path_uuid4(session_id), owner=key)
    return _json(ConversationThread.of(thread))


@router.delete(
    "/session/{session_id}",
    tags=["sessions"],
    status_code=204,
    summary="Delete a session and everything in it",
    responses={k: v for k, v in ERRORS.items() if k in (400, 401, 404, 429)},
)
async def delete_session(session_id: str, svc: Svc, key: Owner) -> Response:
    sid = path_uuid4(session_id)
    await svc.store.delete_thread(sid, owner=key)
    for run in svc.generations:
        if run.turn.session_id == sid:
            run.cancel("session_deleted")
    return Response(status_code=204)
