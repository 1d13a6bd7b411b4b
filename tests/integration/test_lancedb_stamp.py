"""A search reads the table version from the dataset's ``_versions`` directory's stat while it shows no
commit (lancedb_stamp): a commit by another process, even in the same timestamp tick as the last one,
must still show on the next search, and so must compaction and cleanup of old versions."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from collections.abc import Iterator
from dataclasses import dataclass
from datetime import timedelta
from pathlib import Path
from typing import Any

import pytest

from lectern.index import lancedb_index
from lectern.index.lancedb_index import LanceDBIndex
from lectern.index.lancedb_stamp import Seen, VersionStamp
from tests.integration.test_index_engines import CHUNKS, INFO, axis

pytestmark = pytest.mark.integration

REPO = Path(__file__).resolve().parents[2]
# A writer in its own process: one JSON command a line, "ok" once it is committed.
WRITER = """
import json, sys
from datetime import timedelta
from pathlib import Path
from lectern.index.lancedb_index import LanceDBIndex
from tests.integration.test_index_engines import CHUNKS, INFO, VECTORS
index = LanceDBIndex(Path(sys.argv[1]), "docs")
for line in sys.stdin:
    op, arg = json.loads(line)
    if op == "upsert":
        index.upsert([CHUNKS[i] for i in arg], VECTORS[arg])
    elif op == "rename":
        index.upsert([CHUNKS[arg].model_copy(update={"title": "Renamed"})], VECTORS[[arg]])
    elif op == "delete":
        index.delete_hashes([CHUNKS[arg].content_hash])
    elif op == "compact":
        index._require().optimize()
    elif op == "cleanup":
        index._require().optimize(cleanup_older_than=timedelta(0), delete_unverified=True)
    print("ok", flush=True)
"""


class Writer:
    def __init__(self, root: Path) -> None:
        env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(REPO), str(REPO / "src")])}
        self._proc = subprocess.Popen(
            [sys.executable, "-c", WRITER, str(root)],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            text=True,
            cwd=REPO,
            env=env,
        )

    def __call__(self, op: str, arg: Any = None) -> None:
        assert self._proc.stdin is not None
        assert self._proc.stdout is not None
        self._proc.stdin.write(json.dumps([op, arg]) + "\n")
        self._proc.stdin.flush()
        assert self._proc.stdout.readline().strip() == "ok"

    def close(self) -> None:
        assert self._proc.stdin is not None
        self._proc.stdin.close()
        self._proc.wait(timeout=30)


@pytest.fixture
def writer(tmp_path: Path) -> Iterator[Writer]:
    LanceDBIndex(tmp_path / "lancedb", "docs").create(INFO)
    proc = Writer(tmp_path / "lancedb")
    yield proc
    proc.close()


@pytest.fixture
def hops(monkeypatch: pytest.MonkeyPatch) -> list[int]:
    """One entry per hand-off to LanceDB's loop for the version."""
    counted: list[int] = []
    real = lancedb_index._version_then_keywords

    async def counting(*args: Any) -> Any:
        counted.append(1)
        return await real(*args)

    monkeypatch.setattr(lancedb_index, "_version_then_keywords", counting)
    return counted


def titles(index: LanceDBIndex, i: int) -> list[str]:
    return [h.chunk.title for h in index.search(vector=axis(i), text="", mode="dense", top_k=len(CHUNKS))]


def found(index: LanceDBIndex, i: int) -> list[str]:
    return [h.chunk.content_hash for h in index.search(vector=axis(i), text="", mode="dense", top_k=1)]


def later(index: LanceDBIndex, seconds: float) -> None:
    """Make the reader's stamp see every directory change as `seconds` old (settled)."""
    stamp = index._stamp_of(index._require())
    stamp._clock = lambda: time.time() + seconds


def test_a_settled_table_is_searched_without_a_hop_and_commits_by_another_process_show(
    tmp_path: Path, writer: Writer, hops: list[int]
) -> None:
    reader = LanceDBIndex(tmp_path / "lancedb", "docs", snapshot_reload_s=0)
    writer("upsert", [0, 1, 2])
    later(reader, 10)
    assert found(reader, 2) == [CHUNKS[2].content_hash]
    assert len(hops) == 1
    assert found(reader, 1) == [CHUNKS[1].content_hash]
    assert len(hops) == 1  # unchanged: the stamp vouches for the version

    # the clock is 10 s ahead, so each new commit counts as settled at once: only the change shows it
    for op, arg, check in [
        ("upsert", [3, 4], lambda: found(reader, 4) == [CHUNKS[4].content_hash]),
        ("delete", 4, lambda: CHUNKS[4].content_hash not in found(reader, 4)),
        ("rename", 0, lambda: titles(reader, 0)[0] == "Renamed"),
        ("compact", None, lambda: titles(reader, 0)[0] == "Renamed"),
        ("cleanup", None, lambda: found(reader, 3) == [CHUNKS[3].content_hash]),
    ]:
        before = len(hops)
        writer(op, arg)
        assert check(), op
        assert len(hops) == before + 1, op  # asked LanceDB once after the commit ...
        assert check(), op
        assert len(hops) == before + 1, op  # ... and not again while nothing changed
        stamp = reader._stamp_of(reader._require())
        assert stamp.version(stamp.look()) == reader.stats().details["version"], op


@dataclass(frozen=True)
class FakeStat:
    st_dev: int
    st_ino: int
    st_mtime_ns: int
    st_ctime_ns: int


def coarse(path: Path) -> FakeStat:
    """os.stat on a file system whose timestamps tick once a second."""
    st, tick = os.stat(path), 1_000_000_000
    return FakeStat(st.st_dev, st.st_ino, st.st_mtime_ns // tick * tick, st.st_ctime_ns // tick * tick)


def test_two_commits_in_one_timestamp_tick_both_show(tmp_path: Path, writer: Writer) -> None:
    """Timestamps of 1 s: a commit, a search, a commit in the same second leave the directory's times
    as they were; the second commit must still show (the stamp vouches only for a settled directory)."""
    reader = LanceDBIndex(tmp_path / "lancedb", "docs", snapshot_reload_s=0)
    writer("upsert", [0, 1])
    reader._stamp_of(reader._require())._stat = coarse
    for _ in range(5):
        while time.time() % 1 > 0.2:  # start early in a second, so that both commits share it
            time.sleep(0.01)
        second = int(time.time())
        writer("upsert", [1])  # the original title back, a new version
        assert titles(reader, 1)[0] != "Renamed"
        writer("rename", 1)
        if int(time.time()) == second:
            break
    else:
        pytest.skip("could not fit two commits and a search in one second")
    assert titles(reader, 1)[0] == "Renamed"


def test_stamp_vouches_only_for_an_unchanged_settled_directory(tmp_path: Path) -> None:
    now = [100.0]
    times = {"mtime_ns": 90 * 10**9, "ctime_ns": 90 * 10**9, "ino": 7}

    def stat(_: Path) -> FakeStat:
        return FakeStat(1, times["ino"], times["mtime_ns"], times["ctime_ns"])

    stamp = VersionStamp(tmp_path, settle_s=3, stat=stat, clock=lambda: now[0])
    seen = stamp.look()
    assert seen is not None
    assert seen.settled
    assert stamp.version(seen) is None  # nothing remembered yet
    stamp.remember(seen, 5)
    assert stamp.version(stamp.look()) == 5
    for key, value in [("mtime_ns", 91 * 10**9), ("ctime_ns", 92 * 10**9), ("ino", 8)]:
        times[key] = value  # any change: ask LanceDB again
        assert stamp.version(stamp.look()) is None
        stamp.remember(stamp.look(), 6)
        assert stamp.version(stamp.look()) == 6
    times["ctime_ns"] = 99 * 10**9  # changed 1 s ago: a commit in the same tick would not show
    recent = stamp.look()
    assert recent is not None
    assert not recent.settled
    stamp.remember(recent, 7)
    assert stamp.version(stamp.look()) is None
    now[0] = 102.5  # 3.5 s after the change
    assert stamp.version(stamp.look()) is None  # the unsettled pair was never remembered
    stamp.remember(stamp.look(), 7)
    assert stamp.version(stamp.look()) == 7
    stamp.clear()
    assert stamp.version(stamp.look()) is None


def test_stamp_never_vouches_off_a_strongly_consistent_local_directory(tmp_path: Path) -> None:
    assert VersionStamp.of(str(tmp_path), strongly_consistent=False).look() is None
    assert VersionStamp.of("s3://bucket/docs.lance", strongly_consistent=True).look() is None
    assert VersionStamp.of(str(tmp_path / "missing"), strongly_consistent=True).look() is None
    (tmp_path / "_versions").mkdir()
    assert isinstance(VersionStamp.of(str(tmp_path), strongly_consistent=True).look(), Seen)
    lagging = LanceDBIndex(tmp_path / "lancedb", "docs", read_consistency_interval=timedelta(seconds=5))
    lagging.create(INFO)
    assert lagging._stamp_of(lagging._require()).look() is None
