"""Seed 004 (streaming-rag generation service): sessions, NDJSON generation, cancel."""

from __future__ import annotations

import json
from collections.abc import AsyncIterator, Callable
from typing import Annotated, Any

from fastapi import APIRouter, Body, Depends
from starlette.responses import Response, StreamingResponse
from starlette.types import Receive, Scope, Send

from lectern import errors
from lectern.api.chat import SessionPath
from lectern.api.chat_models import path_uuid4
from lectern.api.generation_models import (
    CancelRequest,
    GenerationDelta,
    PromptRequest,
    SessionRequest,
    SessionResponse,
    SessionState,
)
from lectern.api.generations import Wire
from lectern.api.services import Services, owner, services
from lectern.api.turns import Turn
from lectern.conversation import iso_timestamp
from lectern.engine import AskOptions
from lectern.index.base import SearchFilters

router = APIRouter(prefix="/api/generation", tags=["generation"])

Svc = Annotated[Services, Depends(services)]
Owner = Annotated[str | None, Depends(owner)]

ERRORS: dict[int | str, dict[str, Any]] = {
    400: {"description": "Invalid request: empty prompt, topK outside 1-20, malformed ids."},
    401: {"description": "Missing or invalid API key."},
    404: {"description": "Unknown session or prompt (or another key's)."},
    429: {"description": "Rate limit exceeded; see Retry-After."},
}


class NDJSONResponse(StreamingResponse):
    """One JSON object per line. ``on_close`` runs however the response ends, a client that went away
    included (the stream is cancelled then, and a generator's own ``finally`` may never run)."""

    media_type = "application/x-ndjson"

    def __init__(
        self,
        deltas: AsyncIterator[Wire],
        *,
        on_close: Callable[[], None] | None = None,
        headers: dict[str, str] | None = None,
    ) -> None:
        super().__init__(
            _lines(deltas),
            headers={"Cache-Control": "no-cache", "X-Accel-Buffering": "no", **(headers or {})},
        )
        self._on_close = on_close

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        try:
            await super().__call__(scope, receive, send)
        finally:
            if self._on_close is not None:
                self._on_close()


async def _lines(deltas: AsyncIterator[Wire]) -> AsyncIterator[bytes]:
    async for d in deltas:
        yield (json.dumps(d, ensure_ascii=False, separators=(",", ":")) + "\n").encode()


@router.post(
    "/session",
    status_code=201,
    summary="Create a generation session",
    response_model=SessionResponse,
    responses={k: v for k, v in ERRORS.items() if k in (400, 401, 429)},
)
async def create_session(
    svc: Svc, key: Owner, body: Annotated[SessionRequest | None, Body()] = None
) -> Response:
    metadata: dict[str, Any] = {}
    if body is not None and body.owner is not None:
        metadata["owner"] = body.owner
    if body is not None and body.context:
        metadata["context"] = body.context
    info, _ = await svc.store.get_or_create_thread(None, owner=key, metadata=metadata)
    return Response(
        json.dumps({"sessionId": str(info.thread_id)}), status_code=201, media_type="application/json"
    )


@router.get(
    "/session/{session_id}",
    summary="A session's status and counters",
    response_model=SessionState,
    responses={k: v for k, v in ERRORS.items() if k in (400, 401, 404, 429)},
)
async def session_state(session_id: SessionPath, svc: Svc, key: Owner) -> Response:
    info, status = await svc.store.session_status(path_uuid4(session_id), owner=key)
    owner_label = info.metadata.get("owner")
    state = SessionState(
        sessionId=info.thread_id,
        owner=owner_label if isinstance(owner_label, str) else None,
        createdAt=iso_timestamp(info.created_at),
        lastActiveAt=iso_timestamp(info.last_active_at),
        status=status,
        turnCount=info.turn_count,
        retrievalCount=info.retrieval_count,
        totalTokens=info.total_tokens,
        messageCount=info.message_count,
    )
    return Response(state.model_dump_json(by_alias=True), media_type="application/json")


@router.post(
    "/stream",
    summary="Generate an answer as NDJSON GenerationDelta lines",
    responses={
        200: {
            "description": "GenerationDelta objects, one per line: `token`s with `seq` from 0, then one "
            "`done` or `error`. The `X-Prompt-Id` header names the prompt (to cancel it) before the "
            "first line.",
            "content": {"application/x-ndjson": {"schema": GenerationDelta.model_json_schema()}},
        },
        **ERRORS,
    },
)
async def stream(body: PromptRequest, svc: Svc, key: Owner) -> Response:
    turn = Turn(
        session_id=body.session_id,
        owner=key,
        question=body.prompt,
        options=AskOptions(
            top_k=body.top_k, filters=SearchFilters(equals=body.filters) if body.filters else None
        ),
    )
    generations = svc.generations
    prompt, run, created = await generations.open(turn, body.idempotency_key)
    headers = {"X-Prompt-Id": str(prompt.prompt_id)}
    if not created:
        headers["X-Idempotent-Replay"] = "true"
    if run is None:
        # A repeat of a finished prompt (or one running on another replica): its stored deltas.
        return NDJSONResponse(generations.replay(prompt), headers=headers)
    run.join()
    return NDJSONResponse(run.follow(), on_close=run.leave, headers=headers)


@router.post(
    "/cancel",
    status_code=204,
    summary="Cancel an in-flight prompt",
    responses={
        **{k: v for k, v in ERRORS.items() if k in (400, 401, 404, 429)},
        409: {"description": "The prompt has already finished."},
    },
)
async def cancel(body: CancelRequest, svc: Svc, key: Owner) -> Response:
    run = svc.generations.get(body.prompt_id)
    if run is not None and run.turn.owner == key and run.turn.session_id == body.session_id:
        if not run.cancel("client_cancelled"):
            raise _finished(body)
        return Response(status_code=204)
    prompt = await svc.store.get_prompt(body.prompt_id, owner=key, thread_id=body.session_id)
    if prompt.status.finished:
        raise _finished(body)
    await svc.generations.cancel(prompt)
    return Response(status_code=204)


def _finished(body: CancelRequest) -> errors.Conflict:
    return errors.Conflict(f"Prompt {body.prompt_id} has already finished.", code="prompt_finished")
