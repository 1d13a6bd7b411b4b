"""How a store transaction runs. Store operations are plain functions of a SQLAlchemy ``Connection``;
a runner gives them one, inside a transaction, without blocking the event loop.

* SQLite: the whole transaction runs in one worker thread on the standard library's driver. aiosqlite
  hops threads for every statement, fetch and cursor close: a 2-statement write cost ~0.9 ms of CPU
  that way, ~0.25 ms in one hop. Writes run on a single dedicated thread, so this process's writers
  queue in order instead of meeting at SQLite's busy handler, which polls with sleeps of up to 100 ms;
  other processes still take turns through the database lock (busy_timeout). With the statements of
  ``ThreadOps`` a chat turn went from 5.5 to 1.0 ms of CPU, and from 8.7 ms with a 1.6 s p99 to 1.0 ms
  with a 59 ms p99 at 32 concurrent turns (bench/store_turn.py). Hot writes (``write_statements``: a
  turn's question and answer, the log events) skip SQLAlchemy's per-execution work as well, on a driver
  connection the writer thread keeps (lectern.store.statements).
* PostgreSQL: the async engine (asyncpg) runs the function through ``AsyncConnection.run_sync``.

Hot writes that queue up while the writer thread is busy run together, each in its own savepoint of
one transaction (a group commit, ``sqlite_batch``): one BEGIN and one COMMIT, and one wake-up of the
event loop, for the batch instead of one each. Each caller still gets its own result or exception, and
only once the batch is committed: an acknowledged write is on disk as before. Nothing waits to make a
batch; a write that finds the thread idle runs at once, alone.

A caller cancelled while a threaded transaction runs stops waiting, but the transaction itself still
finishes (commits or rolls back) in its thread: a cancel can never leave the write lock held. A hot
write cancelled before its batch starts is skipped.
"""

from __future__ import annotations

import asyncio
import contextlib
import sqlite3
import threading
from collections import defaultdict
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from typing import Any, Protocol, TypeVar

from sqlalchemy.engine import Connection, Engine
from sqlalchemy.exc import DBAPIError
from sqlalchemy.ext.asyncio import AsyncEngine
from sqlalchemy.pool import PoolProxiedConnection

from lectern.store.engine import create_sqlite_sync_engine, parse_url, writer
from lectern.store.statements import (
    CoreStatements,
    Outcome,
    PreparedCache,
    Statements,
    sqlite_batch,
    sqlite_transaction,
)
from lectern.store.turn import TURN_WAIT_S, WriteTurn, turn_path

T = TypeVar("T")
Work = Callable[[Connection], T]
StatementsWork = Callable[[Statements], T]

SQLITE_READERS = 4  # WAL readers never wait on the writer, so a few threads read side by side


class Runner(Protocol):
    @property
    def dialect(self) -> str: ...

    async def read(self, work: Work[T]) -> T:
        """``work`` in a read transaction: one consistent snapshot."""
        ...

    async def write(self, work: Work[T]) -> T:
        """``work`` in a write transaction, committed when it returns, rolled back when it raises."""
        ...

    async def write_statements(self, work: StatementsWork[T]) -> T:
        """``write`` for work written over ``Statements`` (a hot write: see lectern.store.statements)."""
        ...

    async def close(self) -> None: ...


@dataclass(frozen=True)
class _Queued:
    work: StatementsWork[Any]
    future: asyncio.Future[Any]
    loop: asyncio.AbstractEventLoop


class ThreadedSqlite:
    def __init__(self, url: str, *, busy_timeout_ms: int) -> None:
        self._engine = create_sqlite_sync_engine(url, busy_timeout_ms=busy_timeout_ms)
        self._writer_engine = writer(self._engine)
        self._writes = ThreadPoolExecutor(1, thread_name_prefix="lectern-store-write")
        self._reads = ThreadPoolExecutor(SQLITE_READERS, thread_name_prefix="lectern-store-read")
        self._prepared = PreparedCache(self._engine.dialect)
        # The writer thread's own driver connection for hot writes, kept between them (a pool checkout
        # and return cost as much as a statement); only that one thread touches it.
        self._held: PoolProxiedConnection | None = None
        # Hot writes waiting for the writer thread, and whether a drain is queued or running there.
        self._queued: list[_Queued] = []
        self._queue_lock = threading.Lock()
        self._draining = False
        # Other processes on the same file (`serve --workers N`) write in turns, at most wait_s apart.
        self._turn = WriteTurn(
            turn_path(parse_url(url).database or ""), wait_s=min(TURN_WAIT_S, busy_timeout_ms / 1000)
        )

    @property
    def dialect(self) -> str:
        return "sqlite"

    async def read(self, work: Work[T]) -> T:
        return await asyncio.get_running_loop().run_in_executor(self._reads, _transaction, self._engine, work)

    async def write(self, work: Work[T]) -> T:
        loop = asyncio.get_running_loop()
        return await loop.run_in_executor(self._writes, self._write_in_turn, work)

    def _write_in_turn(self, work: Work[T]) -> T:
        with self._turn.taken():
            return _transaction(self._writer_engine, work)

    async def write_statements(self, work: StatementsWork[T]) -> T:
        loop = asyncio.get_running_loop()
        future: asyncio.Future[T] = loop.create_future()
        with self._queue_lock:
            self._queued.append(_Queued(work, future, loop))
            start, self._draining = not self._draining, True
        if start:
            try:
                self._writes.submit(self._drain)
            except RuntimeError:  # shut down
                with self._queue_lock:
                    self._queued.clear()
                    self._draining = False
                raise
        return await future

    def _drain(self) -> None:
        """On the writer thread: run what is queued, in batches, until nothing is."""
        try:
            while True:
                with self._queue_lock:
                    batch, self._queued = self._queued, []
                    if not batch:
                        self._draining = False
                        return
                batch = [q for q in batch if not q.future.cancelled()]  # its caller stopped waiting
                if batch:
                    _deliver(batch, self._run_batch([q.work for q in batch]))
        except BaseException:
            with self._queue_lock:
                self._draining = False  # never a queue that no drain will empty
            raise

    def _run_batch(self, works: list[StatementsWork[Any]]) -> list[Outcome]:
        with self._turn.taken():
            return self._run_batch_in_turn(works)

    def _run_batch_in_turn(self, works: list[StatementsWork[Any]]) -> list[Outcome]:
        if self._held is None:
            # From the pool, so set up like every other (busy_timeout, WAL, foreign keys, autocommit).
            self._held = self._engine.raw_connection()
        raw: sqlite3.Connection = self._held.driver_connection  # type: ignore[assignment]
        try:
            if len(works) == 1:
                return [(True, sqlite_transaction(raw, self._prepared, works[0], begin="IMMEDIATE"))]
            outcomes = sqlite_batch(raw, self._prepared, works, begin="IMMEDIATE")
        except BaseException as exc:
            if isinstance(exc, DBAPIError):
                self._release_held()  # whatever went wrong, the next write starts on a fresh connection
            return [(False, exc)] * len(works)
        if any(not ok and isinstance(value, DBAPIError) for ok, value in outcomes):
            self._release_held()
        return outcomes

    def _release_held(self) -> None:
        held, self._held = self._held, None
        if held is not None:
            held.close()

    async def close(self) -> None:
        def shutdown() -> None:
            with contextlib.suppress(RuntimeError):  # closed already
                self._writes.submit(self._release_held)  # after the queued writes, on the writer thread
            self._writes.shutdown(wait=True)  # queued writes finish first
            self._turn.close()
            self._reads.shutdown(wait=True)
            self._engine.dispose()

        await asyncio.to_thread(shutdown)


def _deliver(batch: list[_Queued], outcomes: list[Outcome]) -> None:
    """Each caller's outcome, on its own loop: one wake-up per loop for the whole batch."""
    by_loop: dict[asyncio.AbstractEventLoop, list[tuple[asyncio.Future[Any], Outcome]]] = defaultdict(list)
    for queued, outcome in zip(batch, outcomes, strict=True):
        by_loop[queued.loop].append((queued.future, outcome))
    for loop, settled in by_loop.items():
        with contextlib.suppress(RuntimeError):  # the loop is closed: nobody is waiting any more
            loop.call_soon_threadsafe(_settle, settled)


def _settle(settled: list[tuple[asyncio.Future[Any], Outcome]]) -> None:
    for future, (ok, value) in settled:
        if future.done():  # cancelled while its transaction ran (which still finished)
            continue
        if ok:
            future.set_result(value)
        else:
            future.set_exception(value)


def _transaction(engine: Engine, work: Work[T]) -> T:
    with engine.begin() as conn:
        return work(conn)


class AsyncDriver:
    def __init__(self, engine: AsyncEngine) -> None:
        self._engine = engine

    @property
    def dialect(self) -> str:
        return self._engine.dialect.name

    async def read(self, work: Work[T]) -> T:
        async with self._engine.connect() as conn:
            return await conn.run_sync(work)

    async def write(self, work: Work[T]) -> T:
        async with self._engine.begin() as conn:
            return await conn.run_sync(work)

    async def write_statements(self, work: StatementsWork[T]) -> T:
        return await self.write(lambda conn: work(CoreStatements(conn)))

    async def close(self) -> None:
        """The engine belongs to the store, which disposes of it."""
