"""Kill a real `lectern ingest` mid-run, run it again, and compare with a clean run.

Real components throughout: the CLI in a subprocess, the local embedder, LanceDB, the SQLite manifest.
"""

from __future__ import annotations

import os
import signal
import sqlite3
import subprocess
import sys
import time
from pathlib import Path

import pytest

from lectern.index import open_index
from lectern.settings import load_settings

pytestmark = pytest.mark.integration

TOPICS = ["gazebo", "urdf", "sensors", "navigation", "perception", "planning", "control", "speech"]


def make_corpus(root: Path, files: int = 40) -> None:
    for i in range(files):
        topic = TOPICS[i % len(TOPICS)]
        sections = "\n\n".join(
            f"## Part {j} of {topic} {i}\n\nThis section explains step {j} of working with {topic} "
            f"in lesson {i}. It covers configuration value {i * 31 + j} and the command "
            f"`run-{topic}-{j}` used in the exercises. The robot repeats the motion {j} times."
            for j in range(12)
        )
        (root / f"lesson-{i:02d}.md").write_text(f"# Lesson {i}: {topic}\n\n{sections}\n", encoding="utf-8")


def lectern(data_dir: Path, *args: str) -> subprocess.Popen[bytes]:
    env = {**os.environ, "LECTERN_DATA_DIR": str(data_dir), "LECTERN_INGEST_FLUSH_CHUNKS": "16"}
    return subprocess.Popen(
        [sys.executable, "-m", "lectern.cli", *args],
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
    )


def recorded_documents(data_dir: Path) -> int:
    path = data_dir / "ingest.sqlite3"
    if not path.exists():
        return 0
    try:
        with sqlite3.connect(path, timeout=1) as db:
            return int(db.execute("SELECT COUNT(*) FROM documents").fetchone()[0])
    except sqlite3.Error:
        return 0


def index_snapshot(data_dir: Path) -> dict[str, tuple[str, int, str, str]]:
    index = open_index(load_settings(data_dir=data_dir), "docs")
    result = {}
    for doc in index.documents():
        for chunk in index.chunks_of(doc.source_path):
            result[chunk.content_hash] = (chunk.source_path, chunk.chunk_index, chunk.url, chunk.text)
    return result


def test_killed_ingest_converges_to_clean_run(tmp_path: Path) -> None:
    corpus = tmp_path / "corpus"
    corpus.mkdir()
    make_corpus(corpus)

    crashed = tmp_path / "crashed"
    process = lectern(crashed, "ingest", str(corpus))
    deadline = time.monotonic() + 240
    # Kill it once some, but not all, documents are recorded: mid-run by construction.
    while recorded_documents(crashed) < 3:
        assert process.poll() is None, process.communicate()[0].decode()
        assert time.monotonic() < deadline, "ingest made no progress"
        time.sleep(0.05)
    process.send_signal(signal.SIGKILL)
    process.wait()
    assert 0 < recorded_documents(crashed) < 40

    rerun = lectern(crashed, "ingest", str(corpus))
    output = rerun.communicate(timeout=600)[0].decode()
    assert rerun.returncode == 0, output

    clean = tmp_path / "clean"
    first = lectern(clean, "ingest", str(corpus))
    output = first.communicate(timeout=600)[0].decode()
    assert first.returncode == 0, output

    assert recorded_documents(crashed) == recorded_documents(clean) == 40
    assert index_snapshot(crashed) == index_snapshot(clean)
