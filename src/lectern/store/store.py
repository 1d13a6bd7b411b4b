"""``ConversationStore``: threads, messages, prompts and log events on SQLite or PostgreSQL."""

from __future__ import annotations

from types import TracebackType

import sqlalchemy as sa

from lectern.settings import Settings
from lectern.store.base import DEFAULT_IDLE_ARCHIVE_S, DEFAULT_WINDOW, Clock, utcnow
from lectern.store.engine import create_store_engine
from lectern.store.feedback import FeedbackOps
from lectern.store.logs import LogOps
from lectern.store.prompts import PromptOps
from lectern.store.runner import AsyncDriver, Runner, ThreadedSqlite
from lectern.store.summary import Summarizer
from lectern.store.threads import ThreadOps


class ConversationStore(ThreadOps, PromptOps, LogOps, FeedbackOps):
    """One async store for every face; the same code runs on SQLite (default) and PostgreSQL.

    Create it with ``from_url`` or ``from_settings`` after ``upgrade_database`` has run, share one
    instance per process, and ``close`` it at shutdown. Every method taking ``owner`` (an API key id, or
    None when auth is off) treats another owner's thread or prompt as not found.
    """

    @classmethod
    def from_url(
        cls,
        url: str,
        *,
        window: int = DEFAULT_WINDOW,
        idle_archive_s: int = DEFAULT_IDLE_ARCHIVE_S,
        summarizer: Summarizer | None = None,
        clock: Clock = utcnow,
        busy_timeout_ms: int = 10_000,
    ) -> ConversationStore:
        engine = create_store_engine(url, busy_timeout_ms=busy_timeout_ms)
        runner: Runner
        if engine.dialect.name == "sqlite":
            runner = ThreadedSqlite(url, busy_timeout_ms=busy_timeout_ms)
        else:
            runner = AsyncDriver(engine)
        return cls(
            engine, runner, window=window, idle_archive_s=idle_archive_s, summarizer=summarizer, clock=clock
        )

    @classmethod
    def from_settings(
        cls, settings: Settings, *, summarizer: Summarizer | None = None, clock: Clock = utcnow
    ) -> ConversationStore:
        return cls.from_url(
            settings.effective_database_url,
            idle_archive_s=settings.session_idle_archive_s,
            summarizer=summarizer,
            clock=clock,
        )

    async def close(self) -> None:
        await self._runner.close()
        await self._engine.dispose()

    async def ping(self) -> None:
        """One trivial query through the store's own connections (the readiness probe)."""
        await self._read(lambda conn: conn.execute(sa.text("SELECT 1")).scalar_one())

    async def __aenter__(self) -> ConversationStore:
        return self

    async def __aexit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        await self.close()
