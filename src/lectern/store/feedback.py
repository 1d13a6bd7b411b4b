"""Readers' feedback on answers, and the turns a gaps report reads (questions with their answers)."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from typing import Any, Literal
from uuid import UUID

import sqlalchemy as sa
from sqlalchemy.engine import Connection

from lectern.errors import NotFound
from lectern.store import tables as t
from lectern.store.base import StoreBase

Rating = Literal["up", "down"]


@dataclass(frozen=True)
class ReportTurn:
    """One answered question: what was asked, what came back, and what the reader said of it."""

    thread_id: UUID
    asked_at: datetime
    question: str
    answer: str
    confidence: float | None
    citations: list[dict[str, Any]]
    rating: str | None = None
    comment: str | None = None


class FeedbackOps(StoreBase):
    async def record_feedback(
        self,
        thread_id: UUID,
        message_seq: int,
        rating: Rating,
        comment: str | None = None,
        *,
        owner: str | None = None,
    ) -> None:
        """Keep a reader's rating of the answer at ``message_seq``, replacing an earlier one. NotFound
        for another key's session or a seq that is not an answer."""
        now = self._now()

        def work(conn: Connection) -> None:
            self._thread_row(conn, thread_id, owner)
            role = conn.execute(
                sa.select(t.messages.c.role).where(
                    t.messages.c.thread_id == thread_id, t.messages.c.seq == message_seq
                )
            ).scalar()
            if role is None:
                raise NotFound(f"No message {message_seq} in session {thread_id}", code="message_not_found")
            if role != "assistant":
                # Only answers are rated: a question's seq names no answer (a 404 like a missing one).
                raise NotFound(
                    f"Message {message_seq} in session {thread_id} is a question, not an answer",
                    code="message_not_found",
                )
            conn.execute(
                sa.delete(t.feedback).where(
                    t.feedback.c.thread_id == thread_id, t.feedback.c.message_seq == message_seq
                )
            )
            conn.execute(
                sa.insert(t.feedback).values(
                    thread_id=thread_id,
                    message_seq=message_seq,
                    rating=rating,
                    comment=comment or None,
                    created_at=now,
                )
            )

        await self._write(work)

    async def report_turns(
        self, since: datetime, until: datetime, *, limit: int = 50_000
    ) -> list[ReportTurn]:
        """Questions asked in [since, until) with the answer that followed each (the next message of the
        thread) and its feedback, oldest first. A question without a stored answer is left out."""
        q = t.messages.alias("q")
        a = t.messages.alias("a")
        query = (
            sa.select(
                q.c.thread_id,
                q.c.timestamp,
                q.c.content,
                a.c.content.label("answer"),
                a.c.confidence,
                a.c.citations,
                t.feedback.c.rating,
                t.feedback.c.comment,
            )
            .join(a, sa.and_(a.c.thread_id == q.c.thread_id, a.c.seq == q.c.seq + 1, a.c.role == "assistant"))
            .outerjoin(
                t.feedback,
                sa.and_(t.feedback.c.thread_id == a.c.thread_id, t.feedback.c.message_seq == a.c.seq),
            )
            .where(q.c.role == "user", q.c.timestamp >= since, q.c.timestamp < until)
            .order_by(q.c.timestamp)
            .limit(limit)
        )

        def work(conn: Connection) -> list[ReportTurn]:
            return [
                ReportTurn(
                    thread_id=r.thread_id,
                    asked_at=r.timestamp,
                    question=r.content,
                    answer=r.answer,
                    confidence=r.confidence,
                    citations=list(r.citations or []),
                    rating=r.rating,
                    comment=r.comment,
                )
                for r in conn.execute(query).all()
            ]

        return await self._read(work)
