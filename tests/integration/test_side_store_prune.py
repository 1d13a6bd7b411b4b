"""After an edit cycle and a collection deletion, the data dir's side stores (sentence vectors, passage
units and terms) hold exactly the rows the chunks of its collections need, and answers still work."""

from __future__ import annotations

import contextvars
import os
import shutil
import sqlite3
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest
from typer.testing import CliRunner

from lectern import passage_store
from lectern.cli.main import app
from lectern.index.lancedb_index import LanceDBIndex
from lectern.writers.units import SHORT_TEXT

pytestmark = pytest.mark.integration

DOCS = Path(__file__).parent.parent / "fixtures" / "answer_docs"


@pytest.fixture(autouse=True)
def _no_store_left() -> Iterator[None]:
    yield
    passage_store.configure(None)  # the CLI configured the process's store on the temporary dir


def lectern(data_dir: Path, *args: str) -> str:
    # in a copy of the context: the CLI's global options (a ContextVar) must not reach later tests
    result = contextvars.copy_context().run(CliRunner().invoke, app, ["--data-dir", str(data_dir), *args])
    assert result.exit_code == 0, result.output
    return result.output


def ask(data_dir: Path, collection: str, question: str) -> str:
    """`lectern ask` in its own process: answering in this one would leave its state to later tests."""
    env = {**os.environ, "NO_COLOR": "1", "COLUMNS": "200"}
    done = subprocess.run(
        [sys.executable, "-m", "lectern.cli", "--data-dir", str(data_dir), "ask", "-c", collection, question],
        capture_output=True,
        text=True,
        env=env,
        timeout=300,
    )
    assert done.returncode == 0, done.stderr
    return done.stdout


def _rows(path: Path, query: str) -> set[object]:
    with sqlite3.connect(path) as db:
        return {row[0] if len(row) == 1 else tuple(row) for row in db.execute(query)}


def _assert_stores_hold_exactly_the_live_chunks(data_dir: Path) -> int:
    live = list(LanceDBIndex(data_dir / "index" / "lancedb", "any").every_chunk_text() or [])
    [sentences] = data_dir.glob("sentences-*.sqlite3")
    assert _rows(sentences, "SELECT content_hash FROM unit_vectors") == {h for h, _, _ in live}
    passages = data_dir / passage_store.FILE_NAME
    assert _rows(passages, "SELECT key FROM passages WHERE kind = 0") == {
        passage_store.text_key(t) for _, t, _ in live
    }
    assert _rows(passages, "SELECT key FROM passages WHERE kind = 1") == {
        passage_store.text_key(s) for _, _, s in live if len(s) > SHORT_TEXT
    }
    return len(live)


def test_edits_removals_and_deleted_collections_leave_no_dead_rows(tmp_path: Path) -> None:
    data, docs, other = tmp_path / "data", tmp_path / "docs", tmp_path / "other"
    shutil.copytree(DOCS, docs)
    other.mkdir()
    shutil.copy(DOCS / "ros2.md", other / "ros2.md")  # its chunks are shared by both collections
    lectern(data, "ingest", str(docs), "-c", "book")
    lectern(data, "ingest", str(other), "-c", "shared")
    before = _assert_stores_hold_exactly_the_live_chunks(data)

    gazebo = docs / "gazebo.md"
    gazebo.write_text(
        gazebo.read_text(encoding="utf-8").replace("open-source robot simulator", "free robot simulator"),
        encoding="utf-8",
    )
    (docs / "ros2.md").unlink()
    (docs / "urdf.md").unlink()
    lectern(data, "ingest", str(docs), "-c", "book")
    after = _assert_stores_hold_exactly_the_live_chunks(data)
    assert after < before

    answer = ask(data, "book", "What is Gazebo Harmonic?")
    assert "free robot simulator" in answer
    answer = ask(data, "shared", "What is a ROS 2 node?")
    assert "A node is a process" in answer
    _assert_stores_hold_exactly_the_live_chunks(data)  # answering stored nothing a live chunk lacks

    lectern(data, "collections", "delete", "book", "--yes")
    left = _assert_stores_hold_exactly_the_live_chunks(data)
    assert 0 < left < after + 1
    assert "A node is a process" in ask(data, "shared", "What is a ROS 2 node?")


def test_an_unchanged_re_ingest_prunes_nothing(tmp_path: Path) -> None:
    data = tmp_path / "data"
    lectern(data, "ingest", str(DOCS), "-c", "book")
    passages = data / passage_store.FILE_NAME
    extra = ("kind", "key")
    with sqlite3.connect(passages) as db:  # a row no chunk needs, as a server might have stored
        version = db.execute("SELECT version FROM passages LIMIT 1").fetchone()[0]
        db.execute("INSERT INTO passages VALUES (0, ?, ?, ?)", (b"x" * 16, version, b"N"))
    lectern(data, "ingest", str(DOCS), "-c", "book")
    assert (0, b"x" * 16) in _rows(passages, f"SELECT {', '.join(extra)} FROM passages")


def test_lancedb_lists_every_collection_not_a_first_page(tmp_path: Path) -> None:
    from lectern.models import CollectionInfo

    names = [f"c{i:02d}" for i in range(12)]  # more than lancedb's default page of ten
    for name in names:
        LanceDBIndex(tmp_path, name).create(CollectionInfo(name=name, embedder_name="e", dimension=4))
    index = LanceDBIndex(tmp_path, "c00")
    assert sorted(index.collection_names()) == names
    assert list(index.every_chunk_text() or ["unreadable"]) == []
