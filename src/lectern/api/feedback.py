"""``POST /feedback`` (a reader's thumbs up/down and comment on one answer; publishable keys allowed)
and ``GET /report`` (the docs team's report as JSON; secret keys only)."""

from __future__ import annotations

import uuid
from datetime import UTC, datetime, timedelta
from typing import Annotated, Literal

from fastapi import APIRouter, Depends, Query
from pydantic import BaseModel, Field, field_validator
from starlette.responses import Response

from lectern.api.chat_models import UUID4_SCHEMA, parse_uuid4
from lectern.api.services import Services, owner, services
from lectern.report import Report, make_report

router = APIRouter(tags=["feedback"])

Svc = Annotated[Services, Depends(services)]
Owner = Annotated[str | None, Depends(owner)]
COMMENT_MAX = 2000
MAX_DAYS = 366


class FeedbackRequest(BaseModel):
    session_id: uuid.UUID = Field(
        description="The session the answer belongs to.", json_schema_extra=UUID4_SCHEMA
    )
    message_seq: int = Field(
        ge=0, le=2**31 - 1, description="The answer's `message_seq`, from the chat response."
    )
    rating: Literal["up", "down"]
    comment: str | None = Field(None, max_length=COMMENT_MAX, description="What was missing or wrong.")

    @field_validator("session_id", mode="before")
    @classmethod
    def _session_id(cls, value: object) -> object:
        return parse_uuid4(value, "session_id")


@router.post(
    "/feedback",
    status_code=204,
    summary="Rate an answer (thumbs up or down, optional comment)",
    responses={
        400: {"description": "Invalid request."},
        404: {"description": "No such session (for this key) or no such answer in it."},
    },
)
async def post_feedback(body: FeedbackRequest, svc: Svc, key: Owner) -> Response:
    comment = (body.comment or "").strip() or None
    await svc.store.record_feedback(body.session_id, body.message_seq, body.rating, comment, owner=key)
    return Response(status_code=204)


@router.get(
    "/report",
    tags=["report"],
    summary="What readers asked, the documentation's gaps, feedback and cited pages (secret keys only)",
    response_model=Report,
)
async def get_report(
    svc: Svc,
    days: Annotated[int, Query(ge=1, le=MAX_DAYS, description="The window: the last N days.")] = 7,
) -> Report:
    until = datetime.now(UTC)
    return await make_report(
        svc.store,
        svc.engine.retriever.index,
        svc.engine.retriever.embedder,
        since=until - timedelta(days=days),
        until=until,
        low_below=svc.settings.confidence_medium,
    )
