"""Threads and their messages: get-or-create, append, history, delete, idle archiving."""

from __future__ import annotations

import inspect
import logging
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from typing import Any
from uuid import UUID, uuid4

import sqlalchemy as sa
from sqlalchemy.engine import Connection

from lectern.errors import InvalidInput, NotFound
from lectern.store import convert
from lectern.store import tables as t
from lectern.store.base import SUMMARY_EVERY, StoreBase
from lectern.store.models import Message, NewMessage, Thread, ThreadInfo, WindowMessage
from lectern.store.statements import Statements
from lectern.store.summary import clip_summary
from lectern.store.types import UTCDateTime

log = logging.getLogger(__name__)

# The append's statements, built once: a turn runs them twice, and building and hashing a statement
# costs about as much as executing it on SQLite.
_latest = sa.bindparam("latest", type_=UTCDateTime())
# Takes the thread's row lock (PostgreSQL) and reserves the next seqs in one statement; the owner is
# part of the match, so another key's thread is as missing as a missing one.
_CLAIM = (
    sa.update(t.threads)
    .where(
        t.threads.c.thread_id == sa.bindparam("tid"),
        t.threads.c.owner.is_not_distinct_from(sa.bindparam("b_owner", type_=sa.String())),
    )
    .values(
        message_count=t.threads.c.message_count + sa.bindparam("count"),
        turn_count=t.threads.c.turn_count + sa.bindparam("users"),
        retrieval_count=t.threads.c.retrieval_count + sa.bindparam("retrievals"),
        total_tokens=t.threads.c.total_tokens + sa.bindparam("tokens"),
        updated_at=sa.case((t.threads.c.updated_at > _latest, t.threads.c.updated_at), else_=_latest),
        last_active_at=sa.bindparam("now"),
        archived_at=None,
    )
    .returning(t.threads.c.message_count, t.threads.c.turn_count)
)
_INSERT = sa.insert(t.messages)
_ARCHIVE = (
    sa.update(t.messages)
    .where(
        t.messages.c.thread_id == sa.bindparam("tid"),
        t.messages.c.seq < sa.bindparam("below"),
        t.messages.c.archived.is_(False),
    )
    .values(archived=True)
)
_ANSWERS = (
    sa.select(sa.func.count())
    .select_from(t.messages)
    .where(t.messages.c.thread_id == sa.bindparam("tid"), t.messages.c.role == "assistant")
)
# A summary's input: the thread's newest questions (a window's worth).
_QUESTIONS = (
    sa.select(t.messages.c.content)
    .where(t.messages.c.thread_id == sa.bindparam("tid"), t.messages.c.role == "user")
    .order_by(t.messages.c.seq.desc())
    .limit(sa.bindparam("limit", type_=sa.Integer()))
)
_SUMMARY = (
    sa.update(t.threads)
    .where(t.threads.c.thread_id == sa.bindparam("tid"))
    .values(topic_summary=sa.bindparam("summary", type_=sa.String()))
)
# What the engine reads of the history: roles, text and confidence, and the citations of the newest
# answer only (a follow-up's search favours its files and section: `lectern.engine._last_sources`). The
# other rows' citations stay in the store: decoding their JSON (every passage's text) only to drop it
# cost more than the rest of the read. The newest answer: the first assistant row walking the
# (thread_id, seq) index back from the question, found once per statement on both dialects.
_tid = sa.bindparam("tid", type_=sa.Uuid())
_before = sa.bindparam("before", type_=sa.Integer())
_answers = t.messages.alias("answers")
_NEWEST_ANSWER = (
    sa.select(_answers.c.seq)
    .where(_answers.c.thread_id == _tid, _answers.c.seq < _before, _answers.c.role == "assistant")
    .order_by(_answers.c.seq.desc())
    .limit(1)
    .scalar_subquery()
)
_WINDOW = (
    sa.select(
        t.messages.c.seq,
        t.messages.c.role,
        t.messages.c.content,
        t.messages.c.timestamp,
        t.messages.c.confidence,
        # as text: parsed once, straight into the engine's citations (`lectern.api.turns`)
        sa.cast(sa.case((t.messages.c.seq == _NEWEST_ANSWER, t.messages.c.citations)), sa.Text()).label(
            "citations"
        ),
    )
    .where(
        t.messages.c.thread_id == _tid,
        t.messages.c.archived.is_(False),
        t.messages.c.seq < _before,
    )
    .order_by(t.messages.c.seq.desc())
    .limit(sa.bindparam("limit", type_=sa.Integer()))
)


@dataclass(frozen=True)
class _Appended:
    stored: list[Message]
    window: list[WindowMessage]
    # The questions to summarise (newest window's worth, oldest first) when this write completed a
    # summary's exchange, read in the write's transaction; None when no summary is due.
    summary_input: list[str] | None
    turn_count: int = 0  # the thread's turns after this write


@dataclass(frozen=True)
class TurnStart:
    """What a turn's first write returns: the window before the question, the stored question, and the
    turn's number in the session (1 for its first question, counting every turn, not the window's)."""

    window: list[WindowMessage]
    question: Message
    turn_number: int


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

        def work(conn: Connection) -> tuple[ThreadInfo, bool]:
            now = self._now()
            row = self._create_thread(conn, tid, owner, now, metadata)
            if row is not None:
                return convert.thread_info(row), True
            return self._resume(conn, tid, owner, now), False

        return await self._write(work)

    def _create_thread(
        self,
        conn: Connection,
        thread_id: UUID,
        owner: str | None,
        now: datetime,
        metadata: Mapping[str, Any] | None = None,
    ) -> sa.Row[Any] | None:
        """The new thread's row, or None when the id is taken (by this owner or another)."""
        values = {
            "thread_id": thread_id,
            "owner": owner,
            "created_at": now,
            "updated_at": now,
            "last_active_at": now,
            "metadata": dict(metadata or {}),
        }
        row: sa.Row[Any] | None = conn.execute(self._create_thread_stmt, values).first()
        return row

    async def get_thread(self, thread_id: UUID, *, owner: str | None = None) -> Thread:
        """Seed 000's ConversationThread: the thread and its active window, oldest first.

        Reading does not resume an archived thread (reads never write); ``archived_at`` tells.
        """

        def work(conn: Connection) -> Thread:
            info = convert.thread_info(self._thread_row(conn, thread_id, owner))
            query = (
                sa.select(t.messages)
                .where(t.messages.c.thread_id == thread_id, t.messages.c.archived.is_(False))
                .order_by(t.messages.c.seq)
            )
            messages = [convert.message(r) for r in conn.execute(query)]
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

        def work(conn: Connection) -> list[Message]:
            self._thread_row(conn, thread_id, owner)
            query = sa.select(t.messages).where(t.messages.c.thread_id == thread_id)
            if not include_archived:
                query = query.where(t.messages.c.archived.is_(False))
            if before_seq is not None:
                query = query.where(t.messages.c.seq < before_seq)
            query = query.order_by(t.messages.c.seq.desc())
            if limit is not None:
                query = query.limit(limit)
            return [convert.message(r) for r in reversed(conn.execute(query).all())]

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

        def work(conn: Connection) -> list[ThreadInfo]:
            return [convert.thread_info(r) for r in conn.execute(query)]

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

        The thread row is locked (by the UPDATE on PostgreSQL, the IMMEDIATE write lock on SQLite) while
        the next seq is reserved, so concurrent appends never collide or leave gaps. Messages that fall
        out of the active window are flagged archived, never deleted. Resumes an archived thread.
        """
        if not messages:
            raise InvalidInput("append_messages needs at least one message")
        if retrievals < 0 or tokens < 0:
            raise InvalidInput("retrievals and tokens cannot be negative")

        def work(ex: Statements) -> _Appended:
            return self._append(ex, thread_id, messages, owner, retrievals=retrievals, tokens=tokens)

        appended = await self._write_statements(work)
        if appended.summary_input is not None:
            await self._refresh_summary(thread_id, appended.summary_input)
        return appended.stored

    async def start_turn(
        self,
        thread_id: UUID,
        question: NewMessage,
        *,
        owner: str | None = None,
        history: int = 0,
        create: bool = True,
    ) -> tuple[list[WindowMessage], Message]:
        """A turn's first write, in one transaction: store the question and read the ``history`` newest
        messages of the active window before it (oldest first; roles, text and confidence, and the newest
        answer's citations).

        ``create``: a missing thread is created (seed 000 makes sessions on first use), else NotFound.
        Another owner's thread is NotFound either way; an archived one is resumed.
        """

        started = await self.begin_turn(thread_id, question, owner=owner, history=history, create=create)
        return started.window, started.question

    async def begin_turn(
        self,
        thread_id: UUID,
        question: NewMessage,
        *,
        owner: str | None = None,
        history: int = 0,
        create: bool = True,
    ) -> TurnStart:
        """``start_turn`` with the turn's number in the session."""

        def work(ex: Statements) -> _Appended:
            return self._append(ex, thread_id, [question], owner, history=history, create=create)

        appended = await self._write_statements(work)
        if appended.summary_input is not None:
            await self._refresh_summary(thread_id, appended.summary_input)
        return TurnStart(appended.window, appended.stored[0], appended.turn_count)

    def _append(
        self,
        ex: Statements,
        thread_id: UUID,
        messages: Sequence[NewMessage],
        owner: str | None,
        *,
        retrievals: int = 0,
        tokens: int = 0,
        history: int = 0,
        create: bool = False,
    ) -> _Appended:
        now = self._now()
        times = [_utc(m.timestamp or now) for m in messages]
        users = sum(m.role == "user" for m in messages)
        answers = sum(m.role == "assistant" for m in messages)
        claim = {
            "tid": thread_id,
            "b_owner": owner,
            "count": len(messages),
            "users": users,
            "retrievals": retrievals,
            "tokens": tokens,
            "latest": max(times),
            "now": now,
        }
        claimed = ex.rows(_CLAIM, claim)
        # Claim first, create on a miss: most turns continue a thread, and the failed UPDATE is cheap.
        # Claim again even when the insert found the id taken: a concurrent first request may have just
        # created it (PostgreSQL's next statement sees that commit).
        if not claimed and create:
            ex.run(self._create_thread_quietly, _new_thread(thread_id, owner, now))
            claimed = ex.rows(_CLAIM, claim)
        if not claimed:
            raise NotFound(f"Session {thread_id} not found", code="session_not_found")
        end: int = claimed[0][0]
        turn_count: int = claimed[0][1]
        start = end - len(messages)
        window = self._window_before(ex, thread_id, start, history) if history else []
        rows = [
            {"thread_id": thread_id, "seq": start + i, "timestamp": at, **_fields(m)}
            for i, (m, at) in enumerate(zip(messages, times, strict=True))
        ]
        ex.run(_INSERT, rows)
        archive_below = end - self._window
        if archive_below > 0:
            ex.run(_ARCHIVE, {"tid": thread_id, "below": archive_below})
        # Built from values NewMessage validated and the store made: validating them again (the
        # sources' and citations' dicts, key by key) cost as much as storing them.
        stored = [Message.model_construct(**row, archived=row["seq"] < archive_below) for row in rows]
        turns_before = turn_count - users
        due = self._summary_due(ex, thread_id, start, turns_before, users, answers)
        texts = None
        if due:
            questions = ex.rows(_QUESTIONS, {"tid": thread_id, "limit": self._window})
            texts = [r[0] for r in reversed(questions)]
        return _Appended(stored, window, texts, int(turn_count))

    @staticmethod
    def _window_before(ex: Statements, thread_id: UUID, seq: int, limit: int) -> list[WindowMessage]:
        rows = ex.rows(_WINDOW, {"tid": thread_id, "before": seq, "limit": limit})
        return [
            WindowMessage(
                seq=r[0], role=r[1], content=r[2], timestamp=r[3], confidence=r[4], citations_json=r[5]
            )
            for r in reversed(rows)
        ]

    @staticmethod
    def _summary_due(
        ex: Statements, thread_id: UUID, messages_before: int, turns: int, users_in: int, answers_in: int
    ) -> bool:
        """True when this batch completes the 5th (10th, ...) user+assistant exchange.

        An exchange is complete when a question has its answer: min(user messages, assistant messages).
        Questions alone complete one only if answers outnumbered questions before, which the counters
        rule out without a query in the usual case (assistant messages <= all messages - questions).
        """
        if not (users_in or answers_in):
            return False
        if not answers_in and messages_before - turns <= turns:
            return False
        answers_after: int = ex.rows(_ANSWERS, {"tid": thread_id})[0][0]
        before = min(turns, answers_after - answers_in)
        after = min(turns + users_in, answers_after)
        return after // SUMMARY_EVERY > before // SUMMARY_EVERY

    async def _refresh_summary(self, thread_id: UUID, questions: list[str]) -> None:
        """Outside the append's transaction (which read ``questions``): a summariser may be a slow model
        call, and holding the thread lock through it would stall that session's other requests."""
        try:
            result = self._summarizer(questions)
            summary = clip_summary(await result if inspect.isawaitable(result) else result)
        except Exception:
            # The exchange is stored already; a failed summary must not fail the request.
            log.warning("topic summary failed for thread %s", thread_id, exc_info=True)
            return

        def write(ex: Statements) -> None:
            ex.run(_SUMMARY, {"tid": thread_id, "summary": summary})

        await self._write_statements(write)

    async def delete_thread(self, thread_id: UUID, *, owner: str | None = None) -> None:
        """Delete the thread, its messages, prompts, deltas (by cascade) and its log events."""

        def work(conn: Connection) -> None:
            delete = (
                sa.delete(t.threads)
                .where(t.threads.c.thread_id == thread_id, t.threads.c.owner.is_not_distinct_from(owner))
                .returning(t.threads.c.thread_id)
            )
            if conn.execute(delete).first() is None:
                raise NotFound(f"Session {thread_id} not found", code="session_not_found")
            conn.execute(sa.delete(t.log_events).where(t.log_events.c.thread_id == thread_id))

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

        def work(conn: Connection) -> int:
            return conn.execute(update).rowcount

        return await self._write(work)


def _new_thread(thread_id: UUID, owner: str | None, now: datetime) -> dict[str, Any]:
    """A new thread's row (the counters start at their server defaults)."""
    return {
        "thread_id": thread_id,
        "owner": owner,
        "created_at": now,
        "updated_at": now,
        "last_active_at": now,
        "metadata": {},
    }


_MESSAGE_FIELDS = convert.new_row_fields(NewMessage)


def _fields(m: NewMessage) -> dict[str, Any]:
    return convert.attributes(m, _MESSAGE_FIELDS)


def _utc(at: datetime) -> datetime:
    return at.astimezone(UTC)
