"""LanceDB below ann_min_rows searches and reads an in-memory snapshot of the table: it must give what
LanceDB itself gives, and never a stale row (a write or a delete by another index instance shows at
once, whether the snapshot reloads or LanceDB answers until it may)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import numpy as np
import pytest

from lectern.index import SearchFilters, lancedb_snapshot, open_index
from lectern.index.fusion import best_first
from lectern.index.lancedb_index import LanceDBIndex, _candidates, _TableRead
from lectern.index.lancedb_schema import SEARCH_TEXT, where_clause
from lectern.models import Chunk, SearchHit, SearchModeName
from tests.integration.test_index_engines import CHUNKS, DIM, INFO, VECTORS, axis, settings_for

pytestmark = pytest.mark.integration

MODES: list[SearchModeName] = ["dense", "keyword", "hybrid"]


def in_memory(index: LanceDBIndex) -> bool:
    """Whether the index holds its table's current version in memory."""
    details = index.stats().details
    return bool(details["in_memory_version"] == details["version"])


def keys(hits: list[SearchHit]) -> list[str]:
    return [h.chunk.content_hash for h in hits]


@pytest.mark.parametrize("reload_s", [0.0, 3600.0], ids=["snapshot-reloads", "lancedb-until-reload"])
def test_another_instance_writes_show_at_once(tmp_path: Path, reload_s: float) -> None:
    settings = settings_for("lancedb", tmp_path)
    writer = open_index(settings, "docs")
    # reload_s: how soon after a change the table may be loaded into memory again
    reader = LanceDBIndex(settings.index_dir / "lancedb", "docs", snapshot_reload_s=reload_s)
    writer.create(INFO)
    writer.upsert(CHUNKS[:3], VECTORS[:3])
    assert keys(reader.search(vector=axis(2), text="", mode="dense", top_k=1)) == [CHUNKS[2].content_hash]
    assert in_memory(reader)

    writer.upsert(CHUNKS[3:], VECTORS[3:])  # new rows
    hits = reader.search(vector=axis(4), text="subscriber message", mode="hybrid", top_k=2)
    assert keys(hits)[0] == CHUNKS[4].content_hash
    assert hits[0].chunk == CHUNKS[4]
    assert in_memory(reader) == (reload_s == 0)

    writer.delete_hashes([CHUNKS[4].content_hash])  # a delete
    for mode in MODES:
        found = keys(reader.search(vector=axis(4), text="subscriber message", mode=mode, top_k=5))
        assert CHUNKS[4].content_hash not in found

    renamed = CHUNKS[0].model_copy(update={"title": "Renamed"})
    writer.upsert([renamed], VECTORS[:1])  # the same hash, new metadata
    hits = reader.search(vector=axis(0), text="", mode="dense", top_k=1)
    assert hits[0].chunk.title == "Renamed"


def test_a_hits_chunk_is_built_once_per_snapshot(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    # a snapshot keeps one chunk fewer than the table has: the last search below builds one again
    monkeypatch.setattr(lancedb_snapshot, "MAX_CHUNKS", len(CHUNKS) - 1)
    index = LanceDBIndex(tmp_path / "lancedb", "docs", snapshot_reload_s=0.0)
    index.create(INFO)
    index.upsert(CHUNKS, VECTORS)
    first = index.search(vector=axis(1), text="", mode="dense", top_k=3)
    again = index.search(vector=axis(1), text="", mode="dense", top_k=3)
    assert in_memory(index)
    assert all(a.chunk is b.chunk for a, b in zip(first, again, strict=True))  # shared, not rebuilt
    assert {h.chunk.content_hash: h.chunk for h in first} == {
        c.content_hash: c for c in CHUNKS if c.content_hash in keys(first)
    }
    index.search(vector=axis(1), text="", mode="dense", top_k=len(CHUNKS))  # every chunk
    third = index.search(vector=axis(1), text="", mode="dense", top_k=3)
    assert [h.chunk for h in third] == [h.chunk for h in first]
    assert not all(a.chunk is b.chunk for a, b in zip(first, third, strict=True))
    index.upsert([CHUNKS[0].model_copy(update={"title": "Renamed"})], VECTORS[:1])  # a new version
    renamed = index.search(vector=axis(0), text="", mode="dense", top_k=1)
    assert renamed[0].chunk.title == "Renamed"


def test_own_writes_and_drop(tmp_path: Path) -> None:
    index = LanceDBIndex(tmp_path / "lancedb", "docs", snapshot_reload_s=0.0)
    index.create(INFO)
    index.upsert(CHUNKS[:2], VECTORS[:2])
    assert len(index.search(vector=axis(0), text="", mode="dense", top_k=5)) == 2
    index.upsert(CHUNKS[2:], VECTORS[2:])
    assert len(index.search(vector=axis(0), text="", mode="dense", top_k=5)) == len(CHUNKS)
    assert in_memory(index)
    index.drop()
    assert index.search(vector=axis(0), text="", mode="dense") == []
    index.create(INFO)  # versions start again: nothing of the old table may answer
    index.upsert(CHUNKS[:1], VECTORS[:1])
    assert keys(index.search(vector=axis(3), text="", mode="dense", top_k=5)) == [CHUNKS[0].content_hash]


# --- the snapshot answers what LanceDB answers ---------------------------------------------------------
MODULES = ["Module 1", "Module 2", "Module 3"]
WORDS = ["robot", "joint", "sensor", "topic", "camera", "planner", "gripper", "wheel", "arm", "lidar"]


def test_the_chunks_found_most_recently_stay_built(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    index = LanceDBIndex(tmp_path / "lancedb", "docs", snapshot_reload_s=0.0)
    index.create(INFO)
    index.upsert(CHUNKS, VECTORS)
    monkeypatch.setattr(lancedb_snapshot, "MAX_CHUNKS", 2)

    def found(i: int) -> Chunk:
        (hit,) = index.search(vector=axis(i), text="", mode="dense", top_k=1)
        assert hit.chunk.content_hash == CHUNKS[i].content_hash
        return hit.chunk

    first, second = found(0), found(1)
    assert found(0) is first  # found again: now the most recent
    found(2)  # one over the limit: the least recently found (CHUNKS[1]) is dropped, not every chunk
    assert in_memory(index)
    assert found(0) is first
    rebuilt = found(1)
    assert rebuilt == second
    assert rebuilt is not second


def random_chunks(n: int, rng: np.random.Generator) -> list[Chunk]:
    chunks = []
    for i in range(n):
        text = " ".join(rng.choice(WORDS, size=8)) + f" item {i}"
        module = MODULES[i % 3]
        chunks.append(
            Chunk(
                text=text,
                content_hash=f"h{i:04d}",
                chunk_index=i % 5,
                token_count=9,
                title=f"Doc {i % 7}",
                module_name=module,
                url=f"https://ex.com/{module.split()[1]}/doc{i % 7}#s{i}",
                source_path=f"doc{i % 7}.md",
                extra={"lang": "de" if i % 4 == 0 else "en"},
            )
        )
    return chunks


@pytest.fixture(scope="module")
def twins(tmp_path_factory: pytest.TempPathFactory) -> tuple[LanceDBIndex, LanceDBIndex]:
    """The same 300-row table, read through the snapshot and through LanceDB alone."""
    root = tmp_path_factory.mktemp("twins")
    rng = np.random.default_rng(11)
    chunks = random_chunks(300, rng)
    vectors = rng.normal(size=(300, DIM)).astype(np.float32)
    vectors[7] = 0.0  # a zero vector: LanceDB's dense search never finds it
    settings = settings_for("lancedb", root)
    fast = LanceDBIndex.from_settings(settings.model_copy(update={"ann_min_rows": 1000}), "docs")
    fast.create(INFO)
    fast.upsert(chunks, vectors)
    fast.optimize()
    # fast's keyword side is LanceDB's until its in-memory keyword index is built (from the second
    # search on, in the background): these rows tie often, and either path ranks them alike
    plain = LanceDBIndex.from_settings(settings.model_copy(update={"ann_min_rows": 0}), "docs")
    return fast, plain


FILTERS = [
    None,
    SearchFilters(equals={"module_name": "Module 2"}),
    SearchFilters(equals={"lang": "de"}),
    SearchFilters(equals={"module_name": ["Module 1", "Module 3"], "chunk_index": "2"}),
    SearchFilters(url_prefix="https://ex.com/3/doc1"),
    SearchFilters(equals={"title": "No such title"}),
    SearchFilters(equals={"title": "Doc 0", "chunk_index": "2"}),  # 9 rows, the zero vector's among them
]


@pytest.mark.parametrize("filters", FILTERS)
@pytest.mark.parametrize("mode", MODES)
def test_snapshot_matches_lancedb(
    twins: tuple[LanceDBIndex, LanceDBIndex], mode: SearchModeName, filters: SearchFilters | None
) -> None:
    fast, plain = twins
    rng = np.random.default_rng(5)
    for _ in range(5):
        query = rng.normal(size=DIM).astype(np.float32)
        text = " ".join(rng.choice(WORDS, size=3))
        got = fast.search(vector=query, text=text, mode=mode, top_k=12, filters=filters)
        want = plain.search(vector=query, text=text, mode=mode, top_k=12, filters=filters)
        assert keys(got) == keys(want)
        for a, b in zip(got, want, strict=True):
            assert a.chunk == b.chunk
            assert a.similarity == pytest.approx(b.similarity, abs=1e-5)
            assert a.score == pytest.approx(b.score, abs=1e-5)
            assert a.vector == pytest.approx(b.vector, abs=1e-6)
    assert in_memory(fast)
    assert not in_memory(plain)


# --- the keyword side, one round trip to LanceDB's loop, answers what its sync query builder does ----
def _builder_keyword(table: Any, text: str, where: str | None, n: int) -> list[tuple[str, int, float]]:
    builder = (
        table.search(text, query_type="fts", fts_columns=SEARCH_TEXT)
        .select(["content_hash", "_score"])
        .with_row_id(True)
    )
    if where:
        builder = builder.where(where, prefilter=True)
    return _candidates(builder.limit(n).to_arrow(), "_score", float)


def _keywords(table: Any, text: str, where: str | None, n: int) -> list[tuple[int, float]]:
    """The keyword side of a search (its one read through LanceDB's loop)."""
    return _TableRead(table, text, where, n).keywords()


def _row_ids_and_scores(found: list[tuple[str, int, float]]) -> list[tuple[int, float]]:
    """What the keyword side returns (it reads no column; the hashes come from the snapshot)."""
    return [(row_id, score) for _, row_id, score in found]


def _first(found: list[tuple[str, int, float]], n: int) -> list[tuple[str, int, float]]:
    """The first n of every candidate, best first, equal scores by content hash."""
    return best_first(found)[:n]


@pytest.mark.parametrize("filters", FILTERS)
def test_keyword_side_matches_the_sync_builder(
    twins: tuple[LanceDBIndex, LanceDBIndex], filters: SearchFilters | None
) -> None:
    fast, _ = twins
    table = fast._open()
    where = where_clause(filters)
    rng = np.random.default_rng(9)
    for _ in range(5):
        text = " ".join(rng.choice(WORDS, size=3))
        want = _first(_builder_keyword(table, text, where, 10_000), 40)  # of every match
        got = _keywords(table, text, where, 40)
        assert len(got) >= len(want)  # the 40 best, and every row tied with the 40th
        snapshot = fast._snapshots.get(table, int(table.version), ["content_hash"], lambda _: True)
        assert _first(fast._keyed(table, snapshot, got), 40) == want  # hashes from the snapshot
        assert _first(fast._keyed(table, None, got), 40) == want  # hashes read from the table
    assert _keywords(table, "  ", where, 40) == []


def test_keyword_side_sees_unindexed_rows(tmp_path: Path) -> None:
    index = LanceDBIndex(tmp_path / "lancedb", "docs")
    index.create(INFO)
    index.upsert(CHUNKS[:3], VECTORS[:3])
    index.optimize()
    index.upsert(CHUNKS[3:], VECTORS[3:])  # not yet folded into the keyword index
    table = index._open()
    for text in ("subscriber message", "robot", CHUNKS[4].text.split()[0]):
        want = _first(_builder_keyword(table, text, None, 10_000), 10)
        assert _first(index._keyed(table, None, _keywords(table, text, None, 10)), 10) == want


def test_keyword_hits_written_after_the_snapshot_get_their_hashes(tmp_path: Path) -> None:
    """A write between the snapshot's version and the keyword query: the new rows' hashes are read
    from the table, the others come from the snapshot."""
    index = LanceDBIndex(tmp_path / "lancedb", "docs", snapshot_reload_s=0.0)
    index.create(INFO)
    index.upsert(CHUNKS[:3], VECTORS[:3])
    index.search(vector=axis(0), text="robot", mode="hybrid", top_k=3)  # loads the snapshot
    table = index._open()
    snapshot = index._snapshots.get(table, int(table.version), ["content_hash"], lambda _: True)
    assert snapshot is not None
    assert len(snapshot.hashes) == 3
    index.upsert(CHUNKS[3:], VECTORS[3:])
    for text in ("subscriber message humanoid", "publishers topic", "humanoid walking"):
        want = _first(_builder_keyword(table, text, None, 10_000), 10)
        assert {h for h, _, _ in want} - set(snapshot.hashes)  # a row the snapshot lacks is found
        assert _first(index._keyed(table, snapshot, _keywords(table, text, None, 10)), 10) == want


def test_one_read_gives_the_version_and_the_keyword_side(tmp_path: Path) -> None:
    index = LanceDBIndex(tmp_path / "lancedb", "docs")
    index.create(INFO)
    index.upsert(CHUNKS, VECTORS)
    table = index._open()
    read = _TableRead(table, "subscriber message", None, 10)
    assert read.version() == int(table.version)
    want = _builder_keyword(table, "subscriber message", None, 10)  # every match: 10 is more
    assert sorted(read.keywords()) == sorted(_row_ids_and_scores(want))
    blank = _TableRead(table, "  ", None, 10)
    assert blank.version() == int(table.version)
    assert blank.keywords() == []
    index.upsert([CHUNKS[0].model_copy(update={"title": "Changed"})], VECTORS[:1])
    assert _TableRead(table, "", None, 10).version() == int(table.version) > read.version()


def test_a_files_nearest_other_chunk_comes_from_the_snapshot(tmp_path: Path) -> None:
    index = LanceDBIndex(tmp_path / "lancedb", "docs", snapshot_reload_s=0.0)
    index.create(INFO)
    index.upsert(CHUNKS, VECTORS)
    first = CHUNKS[0].content_hash  # m1/ros.md, as CHUNKS[4]
    assert index.nearest_in_files(["m1/ros.md"], axis(0), [first]) == []  # nothing held before a search
    assert keys(index.search(vector=axis(0), text="", mode="dense", top_k=1)) == [first]
    found = index.nearest_in_files(["m1/ros.md", "m2/gazebo.md"], axis(0, tilt=4), [first])
    # m1/ros.md's other chunk, and m2/gazebo.md's only one: each file's nearest not excluded
    assert keys(found) == [CHUNKS[4].content_hash, CHUNKS[1].content_hash]
    assert found[0].chunk == CHUNKS[4]
    assert found[0].similarity == pytest.approx(0.5 / np.sqrt(1.25))
    assert found[1].similarity == 0.0
    assert index.nearest_in_files(["m1/ros.md"], axis(0), [first, CHUNKS[4].content_hash]) == []
    # an excluded chunk the snapshot does not hold (written since): not this version, so nothing
    assert index.nearest_in_files(["m1/ros.md"], axis(0), ["not-a-hash"]) == []
