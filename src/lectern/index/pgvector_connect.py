"""Connection pools to the PostgreSQL that holds a pgvector index: one per URL per process, shared by
every index opened on it and closed when the last one closes."""

from __future__ import annotations

import atexit
import threading

import psycopg
from pgvector.psycopg import register_vector
from psycopg_pool import ConnectionPool

_lock = threading.Lock()
_pools: dict[str, tuple[ConnectionPool[psycopg.Connection[tuple[object, ...]]], int]] = {}


def _configure(conn: psycopg.Connection[tuple[object, ...]]) -> None:
    """Every new connection: the extension exists (created once, by whoever may), vectors adapt to numpy."""
    with conn.cursor() as cur:
        cur.execute("SELECT 1 FROM pg_extension WHERE extname = 'vector'")
        missing = cur.fetchone() is None
    conn.commit()
    if missing:
        try:
            conn.execute("CREATE EXTENSION IF NOT EXISTS vector")
            conn.commit()
        except psycopg.errors.UniqueViolation:  # another process created it at the same moment
            conn.rollback()
    register_vector(conn)
    conn.commit()


def acquire(
    url: str, *, size: int, timeout_s: float
) -> ConnectionPool[psycopg.Connection[tuple[object, ...]]]:
    with _lock:
        pool, users = _pools.get(url, (None, 0))
        if pool is None:
            # connections open in the background; a dead server shows as a timeout on first use
            pool = ConnectionPool(
                url,
                min_size=1,
                max_size=size,
                timeout=timeout_s,
                configure=_configure,
                kwargs={"autocommit": False},
                name="lectern-pgvector",
                open=True,
            )
        _pools[url] = (pool, users + 1)
        return pool


def release(url: str) -> None:
    with _lock:
        pool, users = _pools.get(url, (None, 0))
        if pool is None:
            return
        if users <= 1:
            del _pools[url]
            pool.close()
        else:
            _pools[url] = (pool, users - 1)


@atexit.register
def _close_all() -> None:
    with _lock:
        for pool, _ in _pools.values():
            pool.close()
        _pools.clear()
