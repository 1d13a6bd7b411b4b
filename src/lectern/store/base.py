"""What every part of the store shares: the engine, the clock, and transactions with retry."""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable
from datetime import UTC, datetime
from typing import Any, TypeVar
from uuid import UUID

import sqlalchemy as sa
from sqlalchemy.dialects import postgresql, sqlite
from sqlalchemy.engine import Connection
from sqlalchemy.exc import DBAPIError
from sqlalchemy.ext.asyncio import AsyncEngine

from lectern.errors import NotFound, StoreUnavailable
from lectern.store import convert
from lectern.store import tables as t
from lectern.store.engine import is_outage, is_transient
from lectern.store.models import ThreadInfo
from lectern.store.outage import OutageLog
from lectern.store.runner import Runner, StatementsWork, Work
from lectern.store.summary import Summarizer, extractive_summary

T = TypeVar("T")
Clock = Callable[[], datetime]

DEFAULT_WINDOW = 50
DEFAULT_IDLE_ARCHIVE_S = 3600
UNAVAILABLE = "The conversation database is unavailable. Try again shortly."
SUMMARY_EVERY = 5  # exchanges; seed 000 writes the topic summary once a thread reaches 5


def utcnow() -> datetime:
    return datetime.now(UTC)


class StoreBase:
    def __init__(
        self,
        engine: AsyncEngine,
        runner: Runner,
        *,
        window: int = DEFAULT_WINDOW,
        idle_archive_s: int = DEFAULT_IDLE_ARCHIVE_S,
        summarizer: Summarizer | None = None,
        clock: Clock = utcnow,
        max_attempts: int = 5,
    ) -> None:
        if window < 1:
            raise ValueError("window must be at least 1")
        if idle_archive_s < 1:
            raise ValueError("idle_archive_s must be at least 1")
        self._engine = engine
        self._runner = runner
        self._window = window
        self._idle_archive_s = idle_archive_s
        self._summarizer: Summarizer = summarizer or extractive_summary
        self._clock = clock
        self._max_attempts = max_attempts
        self.outage = OutageLog()
        # Built once: the dialect is fixed, and building a statement costs about as much as running it.
        self._create_thread_stmt = self._insert_ignore(t.threads).returning(*t.threads.c)
        # The same without RETURNING, for a caller that claims the thread next.
        self._create_thread_quietly = self._insert_ignore(t.threads)

    @property
    def engine(self) -> AsyncEngine:
        """An async engine on the same database, for ad-hoc queries (tests, tools); the store's own
        transactions go through its runner."""
        return self._engine

    @property
    def dialect(self) -> str:
        return self._runner.dialect

    def _now(self) -> datetime:
        now = self._clock()
        if now.tzinfo is None:
            raise ValueError("the store's clock must return timezone-aware datetimes")
        return now.astimezone(UTC)

    async def _read(self, work: Work[T]) -> T:
        """One consistent snapshot for the whole read (deferred BEGIN on SQLite)."""
        try:
            result = await self._runner.read(work)
        except Exception as exc:
            if self._outage(exc):
                raise StoreUnavailable(UNAVAILABLE) from exc
            raise
        self.outage.succeeded()
        return result

    async def _write(self, work: Work[T]) -> T:
        """Run ``work`` in one write transaction; retry the whole of it on lock timeouts and deadlocks."""
        return await self._write_with(self._runner.write, work)

    async def _write_statements(self, work: StatementsWork[T]) -> T:
        """``_write`` for a hot write written over ``Statements`` (lectern.store.statements)."""
        return await self._write_with(self._runner.write_statements, work)

    async def _write_with(self, write: Callable[[Any], Awaitable[T]], work: Any) -> T:
        for attempt in range(1, self._max_attempts + 1):
            try:
                result = await write(work)
            except DBAPIError as exc:
                transient = is_transient(exc)
                if attempt == self._max_attempts or not transient:
                    # a lock that no retry got (another process stopped while it writes) is a 503 to
                    # try again, logged like an outage, never a 500
                    if transient or is_outage(exc):
                        self.outage.failed(exc)
                        raise StoreUnavailable(UNAVAILABLE) from exc
                    raise
            except Exception as exc:
                if self._outage(exc):
                    raise StoreUnavailable(UNAVAILABLE) from exc
                raise
            else:
                self.outage.succeeded()
                return result
            await asyncio.sleep(0.02 * 2**attempt)
        raise AssertionError("unreachable")

    def _outage(self, exc: Exception) -> bool:
        """A failure that means the database is out of reach (raised as ``StoreUnavailable``: a 503 with
        Retry-After), logged once per outage interval; anything else is raised as it was."""
        if not is_outage(exc):
            return False
        self.outage.failed(exc)
        return True

    def _insert_ignore(self, table: sa.Table) -> Any:
        """INSERT ... ON CONFLICT DO NOTHING in this dialect's spelling (both have one)."""
        if self.dialect == "postgresql":
            return postgresql.insert(table).on_conflict_do_nothing()
        return sqlite.insert(table).on_conflict_do_nothing()

    def _thread_row(self, conn: Connection, thread_id: UUID, owner: str | None) -> sa.Row[Any]:
        """The thread row, or NotFound; another key's thread is indistinguishable from a missing one."""
        row = conn.execute(sa.select(t.threads).where(t.threads.c.thread_id == thread_id)).first()
        if row is None or row.owner != owner:
            raise NotFound(f"Session {thread_id} not found", code="session_not_found")
        return row

    def _resume(self, conn: Connection, thread_id: UUID, owner: str | None, now: datetime) -> ThreadInfo:
        """Mark activity and bring an archived thread back; NotFound for a missing or foreign thread."""
        update = (
            sa.update(t.threads)
            .where(t.threads.c.thread_id == thread_id, t.threads.c.owner.is_not_distinct_from(owner))
            .values(last_active_at=now, archived_at=None)
            .returning(*t.threads.c)
        )
        row = conn.execute(update).first()
        if row is None:
            raise NotFound(f"Session {thread_id} not found", code="session_not_found")
        return convert.thread_info(row)
