"""Helpers shared by the conversation store suites: the backends to run on and a controllable clock."""

from __future__ import annotations

from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest

from lectern.store import ConversationStore, upgrade_database
from lectern.store.summary import Summarizer

# Every store test runs once per backend; the PostgreSQL leg carries the `postgres` marker.
BACKENDS = ["sqlite", pytest.param("postgres", marks=pytest.mark.postgres)]


class FakeClock:
    def __init__(self, start: datetime | None = None) -> None:
        self.now = start or datetime(2025, 12, 17, 14, 20, tzinfo=UTC)

    def __call__(self) -> datetime:
        return self.now

    def advance(self, seconds: float) -> datetime:
        self.now += timedelta(seconds=seconds)
        return self.now


def backend_url(request: pytest.FixtureRequest, tmp_path: Path) -> str:
    """A migrated-or-not database for this test: a SQLite file in tmp_path, or the run's PostgreSQL
    database (shared by the run; tests keep apart by using fresh thread ids and owners)."""
    if request.param == "sqlite":
        return f"sqlite+aiosqlite:///{tmp_path / 'store.sqlite3'}"
    url: str = request.getfixturevalue("postgres_url")
    return url


@asynccontextmanager
async def open_store(
    url: str, *, clock: FakeClock | None = None, summarizer: Summarizer | None = None, window: int = 50
) -> AsyncIterator[ConversationStore]:
    await upgrade_database(url)
    store = ConversationStore.from_url(
        url, clock=clock or FakeClock(), summarizer=summarizer, window=window, idle_archive_s=3600
    )
    try:
        yield store
    finally:
        await store.close()
