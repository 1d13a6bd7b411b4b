"""SQLite files that hold work which can be done again: the sentence vectors, a run's pending vectors.

Both are written in groups (a batch of 32 chunk vectors, a flush's sentence rows). On a connection in
autocommit mode (``isolation_level=None``) `executemany` commits every row on its own, and in WAL mode
with SQLite's default ``synchronous=FULL`` every commit waits for an fsync: a cold ingest of a 25-file
textbook made ~2,000 of them, seconds to tens of seconds of wall time on a busy disk with both cores
idle. `open_cache` turns the per-commit fsync off (``synchronous=NORMAL``: a killed process loses
nothing, a power cut may lose the last commits, never half of one, and a lost row is computed again)
and `transaction` makes one group one commit.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path


def open_cache(path: Path) -> sqlite3.Connection:
    """`path` opened in autocommit and WAL mode without an fsync per commit, for any thread."""
    db = sqlite3.connect(path, isolation_level=None, check_same_thread=False)
    db.execute("PRAGMA journal_mode=WAL")
    db.execute("PRAGMA synchronous=NORMAL")
    return db


@contextmanager
def transaction(db: sqlite3.Connection) -> Iterator[sqlite3.Connection]:
    """The statements run inside as one commit (rolled back if one fails)."""
    db.execute("BEGIN")
    try:
        yield db
    except BaseException:
        if db.in_transaction:  # some errors (a full disk) have rolled it back already
            db.execute("ROLLBACK")
        raise
    db.execute("COMMIT")
