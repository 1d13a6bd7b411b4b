"""The SQLite files of redoable work (sentence vectors, a run's pending vectors) commit a group of rows
at once, without an fsync per commit: a cold ingest made one commit, and one fsync, per row."""

from __future__ import annotations

import hashlib
import sqlite3
from pathlib import Path

import pytest

from lectern.ingest.resume import ResumableEmbedder
from lectern.models import Chunk
from lectern.sentences import SentenceVectors
from lectern.sqlite_cache import open_cache, transaction
from tests.fakes.hash_embedder import HashEmbedder


def _statements(db: sqlite3.Connection) -> list[str]:
    seen: list[str] = []
    db.set_trace_callback(seen.append)
    return seen


def test_a_cache_file_is_wal_without_an_fsync_per_commit(tmp_path: Path) -> None:
    db = open_cache(tmp_path / "cache.sqlite3")
    assert db.execute("PRAGMA journal_mode").fetchone()[0] == "wal"
    assert db.execute("PRAGMA synchronous").fetchone()[0] == 1  # NORMAL


def test_a_failing_row_rolls_back_the_whole_group(tmp_path: Path) -> None:
    db = open_cache(tmp_path / "cache.sqlite3")
    db.execute("CREATE TABLE t (k TEXT PRIMARY KEY)")
    with pytest.raises(sqlite3.IntegrityError), transaction(db):
        db.executemany("INSERT INTO t VALUES (?)", [("a",), ("b",), ("a",)])
    assert db.execute("SELECT COUNT(*) FROM t").fetchone()[0] == 0
    assert not db.in_transaction
    with transaction(db):
        db.executemany("INSERT INTO t VALUES (?)", [("a",), ("b",)])
    assert db.execute("SELECT COUNT(*) FROM t").fetchone()[0] == 2


def test_the_resume_file_commits_once_a_batch(tmp_path: Path) -> None:
    embedder = ResumableEmbedder(HashEmbedder(), tmp_path / "resume.sqlite3", batch=4)
    seen = _statements(embedder._db)
    embedder.embed_documents([f"text {i}" for i in range(10)])  # batches of 4, 4 and 2
    assert seen.count("BEGIN") == seen.count("COMMIT") == 3
    assert embedder.pending() == 10


def test_the_sentence_store_commits_a_group_of_chunks_once(tmp_path: Path) -> None:
    store = SentenceVectors(HashEmbedder(), tmp_path / "sentences.sqlite3")
    assert store._db is not None
    seen = _statements(store._db)
    texts = [f"Chunk {i} has one sentence here. And chunk {i} has a second one too." for i in range(5)]
    chunks = [
        Chunk(text=t, content_hash=hashlib.sha256(t.encode()).hexdigest(), chunk_index=0, token_count=15)
        for t in texts
    ]
    assert store.precompute(chunks) == 5
    assert seen.count("BEGIN") == seen.count("COMMIT") == 1
    assert store.stored() == 5
