"""Threads and their messages: get-or-create, append, history, delete, idle archiving."""

from __future__ import annotations

import inspect
import logging
from collections.abc import Mapping, Sequence
from datetime import UTC, datetime, timedelta
from typing import Any
from uuid import UUID, uuid4

import sqlalchemy as sa
from sqlalchemy.ext.asyncio import AsyncConnection

from lectern.errors import InvalidInput, NotFound
from lectern.store import convert
from lectern.store import tables as t
from lectern.store.base import SUMMARY_EVERY, StoreBase
from lectern.store.models import Message, NewMessage, Thread, ThreadInfo
from lectern.store.summary import clip_summary

log = logging.getLogger(__name__)


class ThreadOps(StoreBase):
    async def get_or_create_thread(
        self,
        thread_id: UUID | None = None,
        *,
        owner: str | None = None,
        metadata: Mapping[str, Any] | None = None,
    ) -> tuple[ThreadInfo, bool]:
        """The thread (resumed if archived) and whether this call created it.

        A missing ``thread_id`` makes a new UUID v4. ``metadata`` is stored only when the thread is new.
        Race-safe: two requests creating the same id get one thread, and one of them ``created=True``.
        """
        tid = thread_id or uuid4()

        async def work(conn: AsyncConnection) -> tuple[ThreadInfo, bool]:
            now = self._now()
            insert = self._insert_ignore(t.threads).values(
                thread_id=tid,
                owner=owner,
                created_at=now,
                updated_at=now,
                last_active_at=now,
                metadata=dict(metadata or {}),
            )
            created = (await conn.execute(insert.returning(t.threads.c.thread_id))).first() is not None
            if created:
                row = await self._thread_row(conn, tid, owner)
                return convert.thread_info(row), True
            return await self._resume(conn, tid, owner, now), False

        return await self._write(work)

    async def get_thread(self, thread_id: UUID, *, owner: str | None = None) -> Thread:
        """Seed 000's ConversationThread: the thread and its active window, oldest first.

        Reading does not resume an archived thread (reads never write); ``archived_at`` tells.
        """

        async def work(conn: AsyncConnection) -> Thread:
            info = convert.thread_info(await self._thread_row(conn, thread_id, owner))
            query = (
                sa.select(t.messages)
                .where(t.messages.c.thread_id == thread_id, t.messages.c.archived.is_(False))
                .order_by(t.messages.c.seq)
            )
            messages = [convert.message(r) for r in await conn.execute(query)]
            return convert.thread(info, messages)

        return await self._read(work)

    async def get_messages(
        self,
        thread_id: UUID,
        *,
        owner: str | None = None,
        include_archived: bool = False,
        before_seq: int | None = None,
        limit: int | None = None,
    ) -> list[Message]:
        """Messages oldest first. ``include_archived`` reaches behind the active window; ``before_seq``
        and ``limit`` page backwards (the ``limit`` newest messages before ``before_seq``)."""

        async def work(conn: AsyncConnection) -> list[Message]:
            await self._thread_row(conn, thread_id, owner)
            query = sa.select(t.messages).where(t.messages.c.thread_id == thread_id)
            if not include_archived:
                query = query.where(t.messages.c.archived.is_(False))
            if before_seq is not None:
                query = query.where(t.messages.c.seq < before_seq)
            query = query.order_by(t.messages.c.seq.desc())
            if limit is not None:
                query = query.limit(limit)
            return [convert.message(r) for r in reversed((await conn.execute(query)).all())]

        return await self._read(work)

    async def list_threads(
        self,
        *,
        owner: str | None = None,
        archived: bool | None = None,
        limit: int = 50,
        offset: int = 0,
    ) -> list[ThreadInfo]:
        """This owner's threads, most recently updated first. ``archived``: None all, True/False filter."""
        query = sa.select(t.threads).where(t.threads.c.owner.is_not_distinct_from(owner))
        if archived is not None:
            column = t.threads.c.archived_at
            query = query.where(column.is_not(None) if archived else column.is_(None))
        query = query.order_by(t.threads.c.updated_at.desc(), t.threads.c.thread_id)
        query = query.limit(limit).offset(offset)

        async def work(conn: AsyncConnection) -> list[ThreadInfo]:
            return [convert.thread_info(r) for r in await conn.execute(query)]

        return await self._read(work)

    async def append_messages(
        self,
        thread_id: UUID,
        messages: Sequence[NewMessage],
        *,
        owner: str | None = None,
        retrievals: int = 0,
        tokens: int = 0,
    ) -> list[Message]:
        """Append in order, atomically, and count the exchange (seed 003: turns, retrievals, tokens).

        The thread row is locked (FOR UPDATE on PostgreSQL, the IMMEDIATE write lock on SQLite) while the
        next seq is read and bumped, so concurrent appends never collide or leave gaps. Messages that
        fall out of the active window are flagged archived, never deleted. Resumes an archived thread.
        """
        if not messages:
            raise InvalidInput("append_messages needs at least one message")
        if retrievals < 0 or tokens < 0:
            raise InvalidInput("retrievals and tokens cannot be negative")

        async def work(conn: AsyncConnection) -> tuple[list[Message], bool]:
            row = await self._thread_row(conn, thread_id, owner, lock=True)
            now = self._now()
            start: int = row.message_count
            stored = [
                Message(thread_id=thread_id, seq=start + i, timestamp=_utc(m.timestamp or now), **_fields(m))
                for i, m in enumerate(messages)
            ]
            await conn.execute(sa.insert(t.messages), [s.model_dump(exclude={"archived"}) for s in stored])
            end = start + len(stored)
            users = sum(m.role == "user" for m in messages)
            await conn.execute(
                sa.update(t.threads)
                .where(t.threads.c.thread_id == thread_id)
                .values(
                    message_count=end,
                    turn_count=t.threads.c.turn_count + users,
                    retrieval_count=t.threads.c.retrieval_count + retrievals,
                    total_tokens=t.threads.c.total_tokens + tokens,
                    updated_at=max(row.updated_at, *(s.timestamp for s in stored)),
                    last_active_at=now,
                    archived_at=None,
                )
            )
            if end > self._window:
                await conn.execute(
                    sa.update(t.messages)
                    .where(
                        t.messages.c.thread_id == thread_id,
                        t.messages.c.seq < end - self._window,
                        t.messages.c.archived.is_(False),
                    )
                    .values(archived=True)
                )
            stored = [s.model_copy(update={"archived": s.seq < end - self._window}) for s in stored]
            return stored, await self._summary_due(conn, row, messages)

        stored, summary_due = await self._write(work)
        if summary_due:
            await self._refresh_summary(thread_id)
        return stored

    async def _summary_due(
        self, conn: AsyncConnection, row: sa.Row[Any], batch: Sequence[NewMessage]
    ) -> bool:
        """True when this batch completes the 5th (10th, ...) user+assistant exchange."""
        users_in = sum(m.role == "user" for m in batch)
        answers_in = sum(m.role == "assistant" for m in batch)
        if not (users_in or answers_in):
            return False
        answers_after: int = (
            await conn.execute(
                sa.select(sa.func.count())
                .select_from(t.messages)
                .where(t.messages.c.thread_id == row.thread_id, t.messages.c.role == "assistant")
            )
        ).scalar_one()
        turns: int = row.turn_count
        before = min(turns, answers_after - answers_in)
        after = min(turns + users_in, answers_after)
        return after // SUMMARY_EVERY > before // SUMMARY_EVERY

    async def _refresh_summary(self, thread_id: UUID) -> None:
        """Outside the append's transaction: a summariser may be a slow model call, and holding the
        thread lock through it would stall that session's other requests."""
        query = (
            sa.select(t.messages.c.content)
            .where(t.messages.c.thread_id == thread_id, t.messages.c.role == "user")
            .order_by(t.messages.c.seq.desc())
            .limit(self._window)
        )

        async def read(conn: AsyncConnection) -> list[str]:
            return list(reversed((await conn.execute(query)).scalars().all()))

        try:
            result = self._summarizer(await self._read(read))
            summary = clip_summary(await result if inspect.isawaitable(result) else result)
        except Exception:
            # The exchange is stored already; a failed summary must not fail the request.
            log.warning("topic summary failed for thread %s", thread_id, exc_info=True)
            return

        async def write(conn: AsyncConnection) -> None:
            await conn.execute(
                sa.update(t.threads).where(t.threads.c.thread_id == thread_id).values(topic_summary=summary)
            )

        await self._write(write)

    async def delete_thread(self, thread_id: UUID, *, owner: str | None = None) -> None:
        """Delete the thread, its messages, prompts, deltas (by cascade) and its log events."""

        async def work(conn: AsyncConnection) -> None:
            delete = (
                sa.delete(t.threads)
                .where(t.threads.c.thread_id == thread_id, t.threads.c.owner.is_not_distinct_from(owner))
                .returning(t.threads.c.thread_id)
            )
            if (await conn.execute(delete)).first() is None:
                raise NotFound(f"Session {thread_id} not found", code="session_not_found")
            await conn.execute(sa.delete(t.log_events).where(t.log_events.c.thread_id == thread_id))

        await self._write(work)

    async def archive_idle(self, now: datetime | None = None) -> int:
        """Archive every active thread idle for longer than ``idle_archive_s``; returns how many.

        Archived threads keep all their rows; any later write on one (get-or-create, append, prompt)
        resumes it.
        """
        at = now or self._now()
        cutoff = at - timedelta(seconds=self._idle_archive_s)
        update = (
            sa.update(t.threads)
            .where(t.threads.c.archived_at.is_(None), t.threads.c.last_active_at < cutoff)
            .values(archived_at=at)
        )

        async def work(conn: AsyncConnection) -> int:
            return (await conn.execute(update)).rowcount

        return await self._write(work)


def _fields(m: NewMessage) -> dict[str, Any]:
    return m.model_dump(exclude={"timestamp"})


def _utc(at: datetime) -> datetime:
    return at.astimezone(UTC)
