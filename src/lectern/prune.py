"""Dropping the side stores' rows that no chunk needs any more.

A data dir keeps, beside its index, the sentence vectors of chunks (`sentences`, one file per sentence
model, rows by content hash) and each passage's units and terms (`passage_store`, rows by a digest of a
chunk's text or search text). Both are shared by every collection of the data dir and only ever grow:
a chunk an edit or a removal took out of the index leaves its rows behind. After an ingest that took
chunks out, and after a collection is deleted, the rows that no chunk of any collection still needs
are dropped here.

The live set is read from the index itself, every collection of it, so a chunk two collections share
keeps its rows while either holds it. Where the engine cannot list every collection's chunks (a shared
server), or where the data dir's manifest names a collection the index does not hold (kept in another
engine), nothing is dropped: a wrongly dropped row would only be worked out again, but pruning must not
make answers slower on a normal path.
"""

from __future__ import annotations

import logging
import sqlite3
from collections.abc import Callable, Collection, Iterable
from dataclasses import dataclass
from pathlib import Path

from lectern import passage_store
from lectern.index.base import ListsEveryChunk, VectorIndex
from lectern.sqlite_cache import open_cache, transaction

log = logging.getLogger(__name__)

SENTENCE_FILES = "sentences-*.sqlite3"
# A file is rewritten (VACUUM) once this share of its pages is free, so it shrinks after a large removal
# without a rewrite after every small edit (free pages are reused by later rows anyway).
VACUUM_FREE_SHARE = 0.25


@dataclass(frozen=True)
class LiveChunks:
    """What the chunks of every collection need: their content hashes (sentence vectors) and the
    passage store's keys of their texts and search texts."""

    hashes: frozenset[str]
    keys: frozenset[bytes]


@dataclass(frozen=True)
class Pruned:
    sentence_rows: int
    passage_rows: int


def live_chunks(index: VectorIndex, expected: Iterable[str] = ()) -> LiveChunks | None:
    """The live set over every collection beside `index`; None where it cannot be read whole, or where a
    collection in `expected` (the manifest's) is not among the index's collections."""
    if not isinstance(index, ListsEveryChunk):
        return None
    if not set(expected) <= set(index.collection_names()):
        return None
    rows = index.every_chunk_text()
    if rows is None:
        return None
    hashes: set[str] = set()
    keys: set[bytes] = set()
    for content_hash, text, search_text in rows:
        hashes.add(content_hash)
        # either text's key keeps either kind of row: a server may have stored any of them
        keys.add(passage_store.text_key(text))
        keys.add(passage_store.text_key(search_text))
    return LiveChunks(frozenset(hashes), frozenset(keys))


def prune_sentences(path: Path, live: Collection[str]) -> int:
    """Drop the sentence-vector rows of chunks not in `live`; how many were dropped."""
    return _prune(path, "unit_vectors", ("content_hash",), lambda row: row[0] in live)


def prune_passages(path: Path, live: Collection[bytes]) -> int:
    """Drop the passage store's rows whose text is no live chunk's; how many were dropped."""
    return _prune(path, "passages", ("kind", "key"), lambda row: row[1] in live)


def prune_data_dir(data_dir: Path, index: VectorIndex, expected: Iterable[str] = ()) -> Pruned | None:
    """Prune every side store of `data_dir` against the chunks of every collection of `index`; None
    when nothing could be pruned safely (see `live_chunks`). Never raises: a failed prune only leaves
    rows behind."""
    try:
        live = live_chunks(index, expected)
        if live is None:
            log.info("side_store_prune_skipped", extra={"engine": getattr(index, "engine", "")})
            return None
        sentences = sum(prune_sentences(p, live.hashes) for p in sorted(data_dir.glob(SENTENCE_FILES)))
        passages = data_dir / passage_store.FILE_NAME
        dropped = prune_passages(passages, live.keys) if passages.is_file() else 0
    except Exception:  # housekeeping: a failure only leaves rows behind, never fails an ingest
        log.warning("side_store_prune_failed", exc_info=True)
        return None
    return Pruned(sentences, dropped)


_Keep = Callable[[tuple[object, ...]], bool]


def _prune(path: Path, table: str, columns: tuple[str, ...], keep: _Keep) -> int:
    if not path.is_file():
        return 0
    db = open_cache(path)
    try:
        try:
            rows = db.execute(f"SELECT {', '.join(columns)} FROM {table}").fetchall()
        except sqlite3.OperationalError:  # the table was never created: nothing to drop
            return 0
        dead = [tuple(row) for row in rows if not keep(tuple(row))]
        if dead:
            where = " AND ".join(f"{c} = ?" for c in columns)
            with transaction(db):
                db.executemany(f"DELETE FROM {table} WHERE {where}", dead)
            _shrink(db)
        return len(dead)
    finally:
        db.close()


def _shrink(db: sqlite3.Connection) -> None:
    """Give the free pages back to the file system once enough of them are free, and empty the
    write-ahead log the deletes went to (a connection left open elsewhere in the process would keep it
    at its largest)."""
    pages = int(db.execute("PRAGMA page_count").fetchone()[0])
    free = int(db.execute("PRAGMA freelist_count").fetchone()[0])
    try:
        if pages and free >= pages * VACUUM_FREE_SHARE:
            db.execute("VACUUM")
        db.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    except sqlite3.OperationalError:  # busy (a server writing): the pages are reused anyway
        log.info("side_store_vacuum_skipped", exc_info=True)
