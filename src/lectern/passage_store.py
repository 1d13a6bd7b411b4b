"""Each passage's answer units and terms, worked out once and stored next to the index.

`units_of` (~200 us a passage) and `passage_terms` (~75 us) run on every passage an answer reads that
the process does not keep in memory (`PASSAGES_KEPT`): on a 10k-chunk collection, most of them. Ingest
stores both (marshal bytes in SQLite, by a digest of the text) and a server reads a stored passage back
in a few dozen microseconds, storing the ones it lacks on first use (a collection ingested before this
existed, a replica that did not ingest).

Rows carry the fingerprint of what made them: the source of the modules that split and stem text, the
stemmer's and Python's versions. A row of another fingerprint is never read (and is dropped when the
store opens), so a change to how text splits or stems never reaches an answer through stale rows; the
passages are worked out again and stored anew.

One store a process (`configure`): `writers.units` is module-level, as its in-memory caches are. What
it holds depends only on the text, so any data dir's store gives the same units.
"""

from __future__ import annotations

import hashlib
import logging
import marshal
import sqlite3
import sys
import threading
import unicodedata
from collections.abc import Sequence
from functools import cache
from importlib.metadata import PackageNotFoundError, version
from pathlib import Path
from typing import Any

from lectern.models import Chunk
from lectern.sqlite_cache import open_cache, transaction
from lectern.writers import diagrams, units
from lectern.writers.units import Unit

log = logging.getLogger(__name__)

FILE_NAME = "passage-units.sqlite3"
FORMAT = 1  # bumped when the stored bytes change shape
_UNITS, _TERMS = 0, 1  # a row's kind
# What decides a passage's units and terms: these modules' code, the stemmer, Python's regular
# expressions, case folding and marshal format.
_SOURCES = (units, diagrams)
_STEMMERS = ("PyStemmer", "snowballstemmer")


@cache
def fingerprint() -> str:
    """A digest of everything that decides what `units_of` and `passage_terms` return."""
    from lectern import stemming

    digest = hashlib.blake2b(digest_size=12)
    digest.update(f"{FORMAT}|{sys.version_info[:2]}|{unicodedata.unidata_version}".encode())
    for module in (*_SOURCES, stemming):
        path = Path(module.__file__ or "")
        digest.update(path.read_bytes() if path.is_file() else module.__name__.encode())
    for name in _STEMMERS:
        try:
            digest.update(f"|{name}={version(name)}".encode())
        except PackageNotFoundError:
            digest.update(f"|{name}=none".encode())
    return digest.hexdigest()


def text_key(text: str) -> bytes:
    return hashlib.blake2b(text.encode("utf-8", "surrogatepass"), digest_size=16).digest()


def _fields(found: tuple[Unit, ...]) -> tuple[tuple[object, ...], ...]:
    """Units as marshal writes them: each one's fields, in `Unit`'s order."""
    return tuple(
        (u.text, u.kind, u.position, u.terms, u.words, u.lead_in, u.bullet, u.section, u.intro, u.items)
        for u in found
    )


class PassageStore:
    """Units and terms by text, in a SQLite file opened on first use (thread-safe). A store that cannot
    be opened or written (a read-only data dir) answers nothing and keeps nothing: the caller works
    the passage out, as without a store."""

    def __init__(self, path: Path) -> None:
        self.path = path
        self._lock = threading.Lock()
        self._db: sqlite3.Connection | None = None
        self._opened = False
        self._version = fingerprint()

    def units(self, text: str) -> tuple[Unit, ...] | None:
        fields = self._read(_UNITS, text)
        if not isinstance(fields, tuple):
            return None
        try:
            return tuple(Unit(*f) for f in fields)
        except TypeError:  # not units' fields (a damaged row): worked out again
            return None

    def keep_units(self, text: str, found: tuple[Unit, ...]) -> None:
        self.write_many([(_UNITS, text, _fields(found))])

    def terms(self, text: str) -> frozenset[str] | None:
        found = self._read(_TERMS, text)
        return found if isinstance(found, frozenset) else None

    def keep_terms(self, text: str, found: frozenset[str]) -> None:
        self.write_many([(_TERMS, text, found)])

    def write_many(self, rows: Sequence[tuple[int, str, Any]]) -> None:
        """Rows of (kind, text, what marshal writes), in one commit."""
        if not rows:
            return
        data = [(kind, text_key(text), self._version, marshal.dumps(value)) for kind, text, value in rows]
        with self._lock:
            db = self._open()
            if db is None:
                return
            try:
                with transaction(db):
                    db.executemany("INSERT OR REPLACE INTO passages VALUES (?, ?, ?, ?)", data)
            except sqlite3.Error:
                log.warning("passage_store_write_failed", exc_info=True)

    def stored(self) -> int:
        """Rows of this fingerprint (0 without a store)."""
        with self._lock:
            db = self._open()
            if db is None:
                return 0
            row = db.execute("SELECT COUNT(*) FROM passages WHERE version = ?", (self._version,)).fetchone()
        return int(row[0])

    def close(self) -> None:
        with self._lock:
            if self._db is not None:
                self._db.close()
            self._db, self._opened = None, True

    # --- internals ----------------------------------------------------------------------------------
    def _read(self, kind: int, text: str) -> object:
        key = text_key(text)
        with self._lock:
            db = self._open()
            if db is None:
                return None
            try:
                row = db.execute(
                    "SELECT data FROM passages WHERE kind = ? AND key = ? AND version = ?",
                    (kind, key, self._version),
                ).fetchone()
            except sqlite3.Error:
                log.warning("passage_store_read_failed", exc_info=True)
                return None
        if row is None:
            return None
        try:
            return marshal.loads(row[0])
        except (EOFError, ValueError, TypeError):  # a damaged row: worked out again
            return None

    def _open(self) -> sqlite3.Connection | None:
        """The connection, opened on the first call (under the lock)."""
        if self._opened:
            return self._db
        self._opened = True
        try:
            self.path.parent.mkdir(parents=True, exist_ok=True)
            db = open_cache(self.path)
            db.execute(
                "CREATE TABLE IF NOT EXISTS passages (kind INTEGER NOT NULL, key BLOB NOT NULL, "
                "version TEXT NOT NULL, data BLOB NOT NULL, PRIMARY KEY (kind, key))"
            )
            db.execute("DELETE FROM passages WHERE version != ?", (self._version,))  # another code's rows
        except (OSError, sqlite3.Error):
            log.warning("passage_store_unavailable", exc_info=True)
            return None
        self._db = db
        return db


def keep(chunks: Sequence[Chunk]) -> None:
    """Work out and store the units and terms of chunks (ingest: so that no answer works them out), in
    one commit; nothing without a store."""
    store = _configured
    if store is None:
        return
    rows: list[tuple[int, str, Any]] = []
    for chunk in chunks:
        rows.append((_UNITS, chunk.text, _fields(units.split_units(chunk.text))))
        if len(chunk.search_text) > units.SHORT_TEXT:  # `passage_terms` keeps a short text's itself
            rows.append((_TERMS, chunk.search_text, units.stem_terms(chunk.search_text)))
    store.write_many(rows)


_configured: PassageStore | None = None
_configure_lock = threading.Lock()


def configure(data_dir: Path | None) -> PassageStore | None:
    """Store this process's passage units and terms in `data_dir` (None: keep them in memory only);
    the store in use."""
    global _configured
    with _configure_lock:
        path = None if data_dir is None else data_dir / FILE_NAME
        if _configured is not None and _configured.path == path:
            return _configured
        store = None if path is None else PassageStore(path)
        units.use_store(store)
        if _configured is not None:
            _configured.close()
        _configured = store
        return store
