"""The SQLite hot path (lectern.store.statements) writes exactly what SQLAlchemy writes, and fails the
way SQLAlchemy fails (so the store's retries and outage handling still apply)."""

from __future__ import annotations

import asyncio
import sqlite3
import threading
import uuid
from collections.abc import Callable
from datetime import UTC, datetime
from functools import partial
from pathlib import Path
from typing import Any

import pytest
import sqlalchemy as sa
from sqlalchemy.exc import IntegrityError, OperationalError

from lectern.errors import NotFound
from lectern.store import NewMessage, upgrade_database
from lectern.store import runner as runner_module
from lectern.store import tables as t
from lectern.store.engine import create_sqlite_sync_engine, is_transient
from lectern.store.runner import ThreadedSqlite
from lectern.store.statements import CoreStatements, PreparedCache, Statements, sqlite_transaction
from lectern.store.threads import _CLAIM, _INSERT, _WINDOW
from tests.integration.store_support import open_store

pytestmark = pytest.mark.integration

AT = datetime(2026, 1, 2, 3, 4, 5, 678901, tzinfo=UTC)


def _turn(ex: Statements, tid: uuid.UUID, *, seq: int) -> list[Any]:
    """Create a thread, claim a seq, insert a message with JSON and UUID columns, read the window."""
    if seq == 0:
        ex.run(
            sa.insert(t.threads),
            {"thread_id": tid, "owner": "key-1", "created_at": AT, "updated_at": AT,
             "last_active_at": AT, "metadata": {"a": [1, "é"]}},
        )  # fmt: skip
    claimed = ex.rows(
        _CLAIM,
        {"tid": tid, "b_owner": "key-1", "count": 1, "users": 1, "retrievals": 2, "tokens": 3,
         "latest": AT, "now": AT},
    )  # fmt: skip
    ex.run(
        _INSERT,
        [
            {"thread_id": tid, "seq": seq, "role": "assistant", "content": "hi", "timestamp": AT,
             "confidence": 0.5, "sources": [{"url": "u", "n": 1}], "citations": None,
             "prompt_id": uuid.UUID(int=7)},
        ],
    )  # fmt: skip
    window = ex.rows(_WINDOW, {"tid": tid, "before": 99, "limit": 10})
    return [tuple(claimed[0]), [tuple(r) for r in window]]


def _dump(engine: sa.Engine, table: sa.Table) -> list[tuple[Any, ...]]:
    """The stored values as SQLite holds them (no type processing)."""
    with engine.connect() as conn:
        return [tuple(r) for r in conn.exec_driver_sql(f"SELECT * FROM {table.name} ORDER BY 1, 2")]


async def _migrated(path: Path) -> sa.Engine:
    url = f"sqlite+aiosqlite:///{path}"
    await upgrade_database(url)
    return create_sqlite_sync_engine(url)


async def test_the_hot_path_stores_and_reads_what_sqlalchemy_does(tmp_path: Path) -> None:
    core, fast = await _migrated(tmp_path / "core.sqlite3"), await _migrated(tmp_path / "fast.sqlite3")
    tid = uuid.UUID(int=42)
    with core.begin() as conn:
        core_results = [_turn(CoreStatements(conn), tid, seq=0)]
    with core.begin() as conn:
        core_results.append(_turn(CoreStatements(conn), tid, seq=1))
    cache = PreparedCache(fast.dialect)
    pooled = fast.raw_connection()
    try:
        raw: sqlite3.Connection = pooled.driver_connection  # type: ignore[assignment]
        fast_results = [
            sqlite_transaction(raw, cache, partial(_turn, tid=tid, seq=n), begin="IMMEDIATE") for n in (0, 1)
        ]
    finally:
        pooled.close()
    assert fast_results == core_results
    assert fast_results[1][0] == (2, 2)  # message_count, turn_count after two claims
    assert fast_results[1][1][0][3] == AT  # the window's timestamps come back aware, in UTC
    for table in (t.threads, t.messages):
        assert _dump(fast, table) == _dump(core, table)
    core.dispose()
    fast.dispose()


async def test_a_failing_work_rolls_back_and_driver_errors_read_as_sqlalchemy_errors(tmp_path: Path) -> None:
    engine = await _migrated(tmp_path / "s.sqlite3")
    cache = PreparedCache(engine.dialect)
    tid = uuid.UUID(int=1)
    pooled = engine.raw_connection()
    raw: sqlite3.Connection = pooled.driver_connection  # type: ignore[assignment]

    def twice(ex: Statements) -> None:
        _turn(ex, tid, seq=0)
        _turn(ex, tid, seq=0)  # the same (thread, seq) again: a constraint violation

    with pytest.raises(IntegrityError):
        sqlite_transaction(raw, cache, twice, begin="IMMEDIATE")
    assert not raw.in_transaction
    assert _dump(engine, t.threads) == []  # the first insert was rolled back with the rest

    # Another connection holds the write lock: "database is locked", which the store retries.
    other = sqlite3.connect(tmp_path / "s.sqlite3", isolation_level=None)
    other.execute("BEGIN IMMEDIATE")
    raw.execute("PRAGMA busy_timeout=50")
    with pytest.raises(OperationalError) as caught:
        sqlite_transaction(raw, cache, lambda ex: None, begin="IMMEDIATE")
    assert is_transient(caught.value)
    other.rollback()
    other.close()
    pooled.close()
    engine.dispose()


async def test_a_missing_parameter_is_an_error_not_a_null(tmp_path: Path) -> None:
    engine = await _migrated(tmp_path / "s.sqlite3")
    pooled = engine.raw_connection()
    raw: sqlite3.Connection = pooled.driver_connection  # type: ignore[assignment]
    cache = PreparedCache(engine.dialect)
    no_tid = {"before": 1, "limit": 2}
    with pytest.raises(KeyError, match="tid"):
        sqlite_transaction(raw, cache, lambda ex: ex.rows(_WINDOW, no_tid), begin="DEFERRED")
    pooled.close()
    engine.dispose()


async def test_the_store_recovers_after_a_failed_hot_write(tmp_path: Path) -> None:
    """A failed write drops the writer's held connection; the next write works on a fresh one."""
    async with open_store(f"sqlite+aiosqlite:///{tmp_path / 's.sqlite3'}") as store:
        thread, _ = await store.get_or_create_thread()
        await store.append_messages(thread.thread_id, [NewMessage(role="user", content="first")])
        runner: Any = store._runner
        runner._held.driver_connection.close()  # the writer's connection breaks
        with pytest.raises(sa.exc.ProgrammingError):
            await store.append_messages(thread.thread_id, [NewMessage(role="user", content="lost")])
        await store.append_messages(thread.thread_id, [NewMessage(role="user", content="kept")])
        assert [m.content for m in await store.get_messages(thread.thread_id)] == ["first", "kept"]


def _new_thread(tid: uuid.UUID) -> Callable[[Statements], uuid.UUID]:
    def work(ex: Statements) -> uuid.UUID:
        ex.run(
            sa.insert(t.threads),
            {"thread_id": tid, "owner": None, "created_at": AT, "updated_at": AT, "last_active_at": AT,
             "metadata": {}},
        )  # fmt: skip
        return tid

    return work


async def test_hot_writes_queued_behind_a_busy_writer_commit_together_and_fail_alone(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A group commit: the writes that queue while the writer thread is busy run in one transaction,
    each in its own savepoint. One that raises is rolled back alone and gets its own exception; the
    others commit and get their results; one whose caller stopped waiting never runs."""
    path = tmp_path / "s.sqlite3"
    await _migrated(path)
    runner = ThreadedSqlite(f"sqlite+aiosqlite:///{path}", busy_timeout_ms=1000)
    batches: list[int] = []
    real_batch = runner_module.sqlite_batch

    def counted(raw: sqlite3.Connection, cache: PreparedCache, works: Any, *, begin: str) -> Any:
        batches.append(len(works))
        return real_batch(raw, cache, works, begin=begin)

    monkeypatch.setattr(runner_module, "sqlite_batch", counted)
    release = threading.Event()
    started = threading.Event()

    def busy(ex: Statements) -> str:
        started.set()
        release.wait(5)
        return "busy"

    ok, broken, cancelled, later = (uuid.UUID(int=n) for n in (1, 2, 3, 4))

    def half_then_fail(ex: Statements) -> None:
        _new_thread(broken)(ex)
        raise NotFound("no such session")

    first = asyncio.ensure_future(runner.write_statements(busy))
    assert await asyncio.to_thread(started.wait, 5)
    queued = [
        asyncio.ensure_future(runner.write_statements(work))
        for work in (_new_thread(ok), half_then_fail, _new_thread(cancelled), _new_thread(later))
    ]
    await asyncio.sleep(0)  # all four are queued
    queued[2].cancel()
    release.set()
    results = await asyncio.gather(first, *queued, return_exceptions=True)
    assert results[0] == "busy"
    assert results[1] == ok
    assert isinstance(results[2], NotFound)
    assert isinstance(results[3], asyncio.CancelledError)
    assert results[4] == later
    assert batches == [3]  # the cancelled one was left out
    engine = create_sqlite_sync_engine(f"sqlite+aiosqlite:///{path}")
    assert sorted(row[0] for row in _dump(engine, t.threads)) == sorted(u.hex for u in (ok, later))
    engine.dispose()
    # A lone write (the thread idle) is a transaction of its own, as before.
    assert await runner.write_statements(_new_thread(cancelled)) == cancelled
    assert batches == [3]
    await runner.close()


async def test_a_batch_whose_transaction_fails_fails_every_write_in_it(tmp_path: Path) -> None:
    """BEGIN cannot take the write lock: every write of the batch gets the (transient) error, and none
    of them is stored."""
    path = tmp_path / "s.sqlite3"
    await _migrated(path)
    runner = ThreadedSqlite(f"sqlite+aiosqlite:///{path}", busy_timeout_ms=50)
    release = threading.Event()
    busy = runner._writes.submit(release.wait, 5)  # the writer thread is busy, the lock free
    queued = [asyncio.ensure_future(runner.write_statements(_new_thread(uuid.UUID(int=n)))) for n in (1, 2)]
    await asyncio.sleep(0)
    other = sqlite3.connect(path, isolation_level=None)
    other.execute("BEGIN IMMEDIATE")  # another process holds the write lock when the batch begins
    release.set()
    try:
        results = await asyncio.gather(*queued, return_exceptions=True)
    finally:
        other.rollback()
        other.close()
    assert busy.result() is True
    assert all(isinstance(r, OperationalError) and is_transient(r) for r in results)
    engine = create_sqlite_sync_engine(f"sqlite+aiosqlite:///{path}")
    assert _dump(engine, t.threads) == []
    engine.dispose()
    await runner.close()
