"""The ingest manifest: which document produced which chunks, kept in SQLite beside the index.

The manifest is only written *after* the index holds a document's chunks, so after a crash it may
lag the index but never lead it. Each run then reconciles: chunks the manifest does not reference are
deleted from the index, and documents whose recorded hash is stale are ingested again.
"""

from __future__ import annotations

import json
import sqlite3
from collections.abc import Iterable, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

from lectern.models import Chunk

_SCHEMA = """
CREATE TABLE IF NOT EXISTS documents (
    collection  TEXT NOT NULL,
    root        TEXT NOT NULL,
    source_path TEXT NOT NULL,
    file_hash   TEXT NOT NULL,
    title       TEXT NOT NULL DEFAULT '',
    PRIMARY KEY (collection, root, source_path)
);
CREATE TABLE IF NOT EXISTS document_chunks (
    collection   TEXT NOT NULL,
    root         TEXT NOT NULL,
    source_path  TEXT NOT NULL,
    chunk_index  INTEGER NOT NULL,
    content_hash TEXT NOT NULL,
    chunk_json   TEXT NOT NULL,
    PRIMARY KEY (collection, root, source_path, chunk_index),
    FOREIGN KEY (collection, root, source_path)
        REFERENCES documents (collection, root, source_path) ON DELETE CASCADE
);
CREATE INDEX IF NOT EXISTS idx_document_chunks_hash ON document_chunks (collection, content_hash);
CREATE TABLE IF NOT EXISTS collection_state (
    collection    TEXT PRIMARY KEY,
    embedder_name TEXT NOT NULL,
    dimension     INTEGER NOT NULL,
    clean         INTEGER NOT NULL,
    chunks        INTEGER NOT NULL DEFAULT 0
);
"""


OwnerKey = tuple[str, str, int]  # (root, source_path, chunk_index): the least one owns a shared chunk


@dataclass(frozen=True)
class CollectionState:
    """Whether the last run on a collection finished: a clean collection's index matches the manifest."""

    embedder_name: str
    dimension: int
    clean: bool
    chunks: int


@dataclass(frozen=True)
class CollectionSummary:
    name: str
    embedder_name: str
    chunks: int
    documents: int
    clean: bool
    ingested_at: str | None  # ISO 8601 UTC of the last finished ingest


@dataclass(frozen=True)
class ManifestEntry:
    root: str
    source_path: str
    file_hash: str


class Manifest:
    """SQLite-backed record of ingested documents and their chunks, one file for all collections."""

    def __init__(self, path: Path) -> None:
        path.parent.mkdir(parents=True, exist_ok=True)
        self._db = sqlite3.connect(path, isolation_level=None, check_same_thread=False)
        self._db.execute("PRAGMA journal_mode=WAL")
        self._db.execute("PRAGMA foreign_keys=ON")
        self._db.execute("PRAGMA busy_timeout=10000")
        self._db.executescript(_SCHEMA)
        columns = {row[1] for row in self._db.execute("PRAGMA table_info(collection_state)")}
        if "ingested_at" not in columns:  # manifests written before `lectern collections` showed it
            self._db.execute("ALTER TABLE collection_state ADD COLUMN ingested_at TEXT")

    def close(self) -> None:
        self._db.close()

    @contextmanager
    def _transaction(self) -> Iterator[sqlite3.Connection]:
        self._db.execute("BEGIN IMMEDIATE")
        try:
            yield self._db
        except BaseException:
            self._db.execute("ROLLBACK")
            raise
        self._db.execute("COMMIT")

    def entries(self, collection: str, root: str) -> dict[str, ManifestEntry]:
        rows = self._db.execute(
            "SELECT root, source_path, file_hash FROM documents WHERE collection = ? AND root = ?",
            (collection, root),
        )
        return {r[1]: ManifestEntry(*r) for r in rows}

    def record_documents(
        self, collection: str, root: str, documents: Sequence[tuple[str, str, str, Sequence[Chunk]]]
    ) -> None:
        """Record (source_path, file_hash, title, chunks) for several documents in one transaction."""
        with self._transaction() as db:
            for source_path, file_hash, title, chunks in documents:
                db.execute(
                    "DELETE FROM documents WHERE collection = ? AND root = ? AND source_path = ?",
                    (collection, root, source_path),
                )
                db.execute(
                    "INSERT INTO documents (collection, root, source_path, file_hash, title)"
                    " VALUES (?, ?, ?, ?, ?)",
                    (collection, root, source_path, file_hash, title),
                )
                db.executemany(
                    "INSERT INTO document_chunks"
                    " (collection, root, source_path, chunk_index, content_hash, chunk_json)"
                    " VALUES (?, ?, ?, ?, ?, ?)",
                    [
                        (collection, root, source_path, c.chunk_index, c.content_hash, c.model_dump_json())
                        for c in chunks
                    ],
                )

    def forget_documents(self, collection: str, root: str, source_paths: Iterable[str]) -> None:
        with self._transaction() as db:
            db.executemany(
                "DELETE FROM documents WHERE collection = ? AND root = ? AND source_path = ?",
                [(collection, root, p) for p in source_paths],
            )

    def referenced_hashes(self, collection: str) -> set[str]:
        rows = self._db.execute(
            "SELECT DISTINCT content_hash FROM document_chunks WHERE collection = ?", (collection,)
        )
        return {r[0] for r in rows}

    def hashes_of(self, collection: str, documents: Iterable[tuple[str, str]]) -> set[str]:
        """Content hashes referenced by the given (root, source_path) documents."""
        found: set[str] = set()
        for root, source_path in documents:
            rows = self._db.execute(
                "SELECT content_hash FROM document_chunks"
                " WHERE collection = ? AND root = ? AND source_path = ?",
                (collection, root, source_path),
            )
            found.update(r[0] for r in rows)
        return found

    def canonical_chunks(
        self,
        collection: str,
        hashes: Iterable[str],
        exclude: frozenset[tuple[str, str]] = frozenset(),
    ) -> dict[str, tuple[OwnerKey, Chunk]]:
        """For each hash, the chunk of its canonical owner: the least (root, path, index) referencing it.

        Identical chunks are stored once; a fixed owner rule makes an incremental run and a clean run
        store the same metadata for them. Documents in ``exclude`` (about to be replaced) are ignored.
        """
        wanted = list(hashes)
        owners: dict[str, tuple[OwnerKey, Chunk]] = {}
        for start in range(0, len(wanted), 500):
            part = wanted[start : start + 500]
            marks = ",".join("?" * len(part))
            rows = self._db.execute(
                f"SELECT content_hash, root, source_path, chunk_index, chunk_json FROM document_chunks"
                f" WHERE collection = ? AND content_hash IN ({marks})"
                f" ORDER BY content_hash, root, source_path, chunk_index",
                (collection, *part),
            )
            for content_hash, root, source_path, chunk_index, chunk_json in rows:
                if content_hash in owners or (root, source_path) in exclude:
                    continue
                owners[content_hash] = (
                    (root, source_path, chunk_index),
                    Chunk.model_validate(json.loads(chunk_json)),
                )
        return owners

    def state(self, collection: str) -> CollectionState | None:
        row = self._db.execute(
            "SELECT embedder_name, dimension, clean, chunks FROM collection_state WHERE collection = ?",
            (collection,),
        ).fetchone()
        return CollectionState(row[0], int(row[1]), bool(row[2]), int(row[3])) if row else None

    def mark_dirty(self, collection: str, embedder_name: str, dimension: int) -> None:
        """Called before a run may write to the index; a run killed after this leaves it dirty."""
        self._db.execute(
            "INSERT INTO collection_state (collection, embedder_name, dimension, clean, chunks)"
            " VALUES (?, ?, ?, 0, 0) ON CONFLICT (collection) DO UPDATE SET"
            " embedder_name = excluded.embedder_name, dimension = excluded.dimension, clean = 0",
            (collection, embedder_name, dimension),
        )

    def mark_clean(self, collection: str, chunks: int) -> None:
        self._db.execute(
            "UPDATE collection_state SET clean = 1, chunks = ?,"
            " ingested_at = strftime('%Y-%m-%dT%H:%M:%SZ', 'now') WHERE collection = ?",
            (chunks, collection),
        )

    def collections(self) -> list[CollectionSummary]:
        """Every collection an ingest has written to, by name."""
        rows = self._db.execute(
            "SELECT s.collection, s.embedder_name, s.chunks, s.clean, s.ingested_at,"
            " (SELECT COUNT(*) FROM documents d WHERE d.collection = s.collection)"
            " FROM collection_state s ORDER BY s.collection"
        ).fetchall()
        return [CollectionSummary(str(r[0]), str(r[1]), int(r[2]), int(r[5]), bool(r[3]), r[4]) for r in rows]

    def drop_collection(self, collection: str) -> None:
        with self._transaction() as db:
            db.execute("DELETE FROM documents WHERE collection = ?", (collection,))
            db.execute("DELETE FROM collection_state WHERE collection = ?", (collection,))

    def document_count(self, collection: str) -> int:
        row = self._db.execute(
            "SELECT COUNT(*) FROM documents WHERE collection = ?", (collection,)
        ).fetchone()
        return int(row[0])
