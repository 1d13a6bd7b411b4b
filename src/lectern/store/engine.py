"""Engines for SQLite (WAL, explicit BEGIN) and PostgreSQL (asyncpg), and what counts as transient.

SQLite gets two: the async one (aiosqlite) for migrations and ad-hoc queries, and a sync one (the
standard library's driver) on which the store runs its transactions in worker threads.
"""

from __future__ import annotations

import time
from pathlib import Path
from typing import Any, TypeVar

from sqlalchemy import create_engine, event
from sqlalchemy.engine import URL, Connection, Engine, make_url
from sqlalchemy.exc import DBAPIError, InterfaceError, OperationalError
from sqlalchemy.exc import TimeoutError as PoolTimeout
from sqlalchemy.ext.asyncio import AsyncEngine, create_async_engine

from lectern.errors import ConfigError

SUPPORTED_DRIVERS = ("sqlite+aiosqlite", "postgresql+asyncpg")
# Execution option read by the SQLite "begin" hook: write transactions take the lock up front.
BEGIN_MODE = "lectern_sqlite_begin"
# PostgreSQL: serialization_failure, deadlock_detected; worth one more try, never a user error.
_PG_TRANSIENT = {"40001", "40P01"}
E = TypeVar("E", Engine, AsyncEngine)
CONNECT_TIMEOUT_S = 5.0
# SQLSTATE classes of a server that is gone or going: connection exceptions (08), operator
# intervention (57: admin shutdown, cannot connect now), insufficient resources (53).
_PG_OUTAGE_CLASSES = ("08", "57", "53")


def parse_url(url: str) -> URL:
    try:
        parsed = make_url(url)
    except Exception as exc:
        raise ConfigError(f"LECTERN_DATABASE_URL: cannot parse {url!r}: {exc}") from None
    if parsed.drivername not in SUPPORTED_DRIVERS:
        raise ConfigError(
            f"LECTERN_DATABASE_URL: driver {parsed.drivername!r} is not supported; "
            f"use one of {', '.join(SUPPORTED_DRIVERS)}"
        )
    return parsed


def create_store_engine(url: str, *, busy_timeout_ms: int = 10_000, echo: bool = False) -> AsyncEngine:
    """An engine for ``url``; on SQLite, the file's folder is created and every connection set up."""
    parsed = parse_url(url)
    if parsed.get_backend_name() == "sqlite":
        return _sqlite_engine(parsed, busy_timeout_ms, echo)
    # pre_ping: replicas keep pools for hours, and PostgreSQL restarts should not surface as errors.
    # Short connect and pool waits: with the server down a request fails fast (a 503), never hangs.
    return create_async_engine(
        parsed,
        echo=echo,
        pool_pre_ping=True,
        pool_timeout=CONNECT_TIMEOUT_S,
        connect_args={"timeout": CONNECT_TIMEOUT_S},
    )


def _sqlite_engine(url: URL, busy_timeout_ms: int, echo: bool) -> AsyncEngine:
    _sqlite_file(url)
    engine = create_async_engine(url, echo=echo)
    _configure_sqlite(engine.sync_engine, busy_timeout_ms)
    return engine


def create_sqlite_sync_engine(url: str, *, busy_timeout_ms: int = 10_000, echo: bool = False) -> Engine:
    """The same SQLite file through the standard library's driver, set up like the async engine: for
    transactions run whole in one worker thread (``lectern.store.runner``)."""
    parsed = parse_url(url)
    _sqlite_file(parsed)
    engine = create_engine(parsed.set(drivername="sqlite+pysqlite"), echo=echo)
    _configure_sqlite(engine, busy_timeout_ms)
    return engine


def _sqlite_file(url: URL) -> None:
    database = url.database or ""
    if database in ("", ":memory:") or database.startswith("file:"):
        raise ConfigError("LECTERN_DATABASE_URL: the conversation store needs a SQLite file, not memory")
    Path(database).expanduser().parent.mkdir(parents=True, exist_ok=True)


def _configure_sqlite(engine: Engine, busy_timeout_ms: int) -> None:
    @event.listens_for(engine, "connect")
    def _on_connect(dbapi_connection: Any, _record: Any) -> None:
        # The driver's implicit BEGIN is deferred and upgrades to a write lock late, which in WAL mode
        # fails with SQLITE_BUSY instead of waiting; we issue BEGIN ourselves (SQLAlchemy's recipe).
        dbapi_connection.isolation_level = None
        cursor = dbapi_connection.cursor()
        try:
            # busy_timeout first: every later statement may meet another process's lock.
            cursor.execute(f"PRAGMA busy_timeout={int(busy_timeout_ms)}")
            _ensure_wal(cursor, busy_timeout_ms)
            cursor.execute("PRAGMA synchronous=NORMAL")
            cursor.execute("PRAGMA foreign_keys=ON")
        finally:
            cursor.close()

    @event.listens_for(engine, "begin")
    def _on_begin(connection: Connection) -> None:
        mode = connection.get_execution_options().get(BEGIN_MODE, "DEFERRED")
        connection.exec_driver_sql(f"BEGIN {mode}")


def _ensure_wal(cursor: Any, busy_timeout_ms: int) -> None:
    """Switch the file to WAL (a persistent setting) unless it is there already. The switch needs the
    file to itself and SQLite reports SQLITE_BUSY at once instead of calling the busy handler, so
    replicas opening a new file together retry here until busy_timeout has passed."""
    cursor.execute("PRAGMA journal_mode")
    if str(cursor.fetchone()[0]).lower() == "wal":
        return
    deadline = time.monotonic() + busy_timeout_ms / 1000
    while True:
        try:
            cursor.execute("PRAGMA journal_mode=WAL")
            return
        except Exception as exc:  # sqlite3's OperationalError, as raised through either driver
            if "database is locked" not in str(exc) or time.monotonic() >= deadline:
                raise
            time.sleep(0.02)


def writer(engine: E) -> E:
    """The same pool, but transactions begin IMMEDIATE on SQLite: one writer at a time, queued by
    busy_timeout. PostgreSQL ignores the option; there row locks (FOR UPDATE) serialise writers."""
    return engine.execution_options(**{BEGIN_MODE: "IMMEDIATE"})


def is_transient(exc: BaseException) -> bool:
    """A failure that a retry of the whole transaction can fix (lock timeouts, deadlocks)."""
    if isinstance(exc, OperationalError) and "database is locked" in str(exc.orig):
        return True
    if isinstance(exc, DBAPIError):
        code = getattr(exc.orig, "pgcode", None) or getattr(exc.orig, "sqlstate", None)
        return code in _PG_TRANSIENT
    return False


def is_outage(exc: BaseException) -> bool:
    """The database cannot be reached or is going away (not a bug in a statement): refused or broken
    connections, a server shutting down or starting, a pool that cannot hand out a connection."""
    if isinstance(exc, PoolTimeout | OSError | ConnectionError):
        return True
    if isinstance(exc, DBAPIError):
        if exc.connection_invalidated or isinstance(exc, InterfaceError):
            return True
        code = getattr(exc.orig, "pgcode", None) or getattr(exc.orig, "sqlstate", None)
        if isinstance(code, str) and code[:2] in _PG_OUTAGE_CLASSES:
            return True
        return isinstance(exc, OperationalError) and isinstance(exc.orig, OSError | ConnectionError)
    # asyncpg's own connection errors when raised outside SQLAlchemy's wrapping (while connecting).
    return type(exc).__module__.startswith("asyncpg") and "Connection" in type(exc).__name__
