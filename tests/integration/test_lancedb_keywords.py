"""The in-process keyword index ranks exactly as LanceDB's FTS index (same scores, bit for bit, and
ties in the same order: test_keyword_ties), and serves only a table version its FTS index covers
exactly."""

from __future__ import annotations

import time
from pathlib import Path

import numpy as np
import pytest

from lectern.index.lancedb_index import LanceDBIndex, _collect, _keywords_now
from lectern.index.lancedb_keywords import KeywordIndex, terms
from lectern.models import Chunk
from tests.integration.test_index_engines import INFO, axis

pytestmark = pytest.mark.integration

# stop words before and after stemming ("doing" -> "do"), accents, numbers, a 40-byte token
WORDS = [
    "robots", "robot", "joint", "joints", "Sensor", "how", "doing", "does", "which", "the", "is",
    "café", "naïve", "ROS2", "x86_64", "its", "it's", "running", "ran", "a" * 39, "b" * 40, "now",
    "ourselves", "only", "very", "Lidar", "lidars", "topic", "topics", "gripper", "wheel",
]  # fmt: skip
QUERIES = [
    "How does the robot's joint sensor work?",
    "robots robots joint",  # a repeated term counts twice
    "café naive ros2 lidar",
    "which topics is it doing now",
    "a" * 39 + " " + "b" * 40 + " wheel",
    "only the very gripper",
]


def chunks(n: int, rng: np.random.Generator) -> list[Chunk]:
    return [
        Chunk(
            text=" ".join(rng.choice(WORDS, size=int(rng.integers(3, 30)))),
            content_hash=f"h{i:04d}",
            chunk_index=0,
            token_count=9,
            title="",
            source_path=f"doc{i % 7}.md",
        )
        for i in range(n)
    ]


def vectors(n: int) -> np.ndarray:
    return np.stack([axis(i % 8) for i in range(n)])


def built(tmp_path: Path, n: int = 120) -> tuple[LanceDBIndex, list[Chunk]]:
    index = LanceDBIndex(tmp_path / "lancedb", "docs", snapshot_reload_s=0.0)
    index.create(INFO)
    items = chunks(n, np.random.default_rng(7))
    index.upsert(items, vectors(n))
    index.optimize()  # the FTS index covers every row
    return index, items


def test_the_analysis_is_lances() -> None:
    assert terms("How does the robot's joint work? It's DOING café") == [
        "doe",
        "robot",
        "joint",
        "work",
        "cafe",
    ]
    assert terms("a" * 39 + " " + "b" * 40) == ["a" * 39]  # 40 bytes or more: dropped


def test_scores_are_lancedbs_bit_for_bit(tmp_path: Path) -> None:
    index, _ = built(tmp_path)
    table = index._open()
    layout = index._layout(table, table.version)
    snapshot = index._snapshots.get(table, layout.version, layout.columns, index._fits_in_memory)
    assert snapshot is not None
    keywords = index._keyword_index(snapshot)
    assert keywords is not None
    for query in QUERIES:
        theirs = dict(_collect(_keywords_now(table, query, None, 200)))
        ours = {int(snapshot.row_ids[p]): score for p, score in keywords.top(query, 200)}
        assert ours == theirs, query
        assert theirs  # the query finds something


def test_idf_is_lances_where_the_rounded_f64_log_is_not(tmp_path: Path) -> None:
    """At 2,443 rows a term in one row has idf ln(1629.3334): the f64 log rounded to float32 is 1 ulp
    above the C library's logf, which lance calls (textbook-d has that many rows)."""
    n = 2443
    items = [
        Chunk(
            text=" ".join(["robot"] * (1 + i % 9) + [f"w{i}"]),
            content_hash=f"h{i:05d}",
            chunk_index=0,
            token_count=9,
            title="",
            source_path=f"doc{i % 7}.md",
        )
        for i in range(n)
    ]
    index = LanceDBIndex(tmp_path / "lancedb", "docs", snapshot_reload_s=0.0)
    index.create(INFO)
    index.upsert(items, vectors(n))
    index.optimize()
    table = index._open()
    layout = index._layout(table, table.version)
    snapshot = index._snapshots.get(table, layout.version, layout.columns, index._fits_in_memory)
    assert snapshot is not None
    keywords = index._keyword_index(snapshot)
    assert keywords is not None
    for i in range(0, 90, 3):  # one row each, nine lengths
        theirs = dict(_collect(_keywords_now(table, f"w{i} robot", None, n)))
        ours = {int(snapshot.row_ids[p]): score for p, score in keywords.top(f"w{i} robot", n)}
        assert ours == theirs


def test_searches_use_it_once_built_and_only_for_its_version(tmp_path: Path) -> None:
    index, items = built(tmp_path)
    query = "robot joint sensor"
    first = index.search(vector=axis(1), text=query, mode="keyword", top_k=10)
    index.search(vector=axis(1), text=query, mode="keyword", top_k=10)  # the second starts the build
    deadline = time.monotonic() + 30
    while index.stats().details["in_memory_keyword_version"] is None and time.monotonic() < deadline:
        time.sleep(0.05)
    assert index.stats().details["in_memory_keyword_version"] == index.stats().details["version"]
    served = index.search(vector=axis(1), text=query, mode="keyword", top_k=10)
    assert [(h.chunk.content_hash, h.score) for h in served] == [
        (h.chunk.content_hash, h.score) for h in first
    ]

    extra = items[0].model_copy(update={"content_hash": "new", "text": "robot joint sensor robot"})
    index.upsert([extra], vectors(1))  # a new version, its row not in the FTS index yet
    hits = index.search(vector=axis(1), text=query, mode="keyword", top_k=3)
    assert hits[0].chunk.content_hash == "new"  # LanceDB answered (searching unindexed rows too)
    table = index._open()
    layout = index._layout(table, table.version)
    snapshot = index._snapshots.get(table, layout.version, layout.columns, index._fits_in_memory)
    assert snapshot is not None
    assert index._keyword_index(snapshot) is None  # the FTS index does not cover the snapshot


def test_term_lookups_never_start_a_build(tmp_path: Path) -> None:
    # A one-shot `lectern ask` searches once for its question and then looks up terms (vector=None):
    # those lookups must not start a build the exiting process would have to wait for.
    index, _ = built(tmp_path)
    index.search(vector=axis(1), text="robot joint sensor", mode="hybrid", top_k=5)
    for term in ("robot", "joint", "gripper", "wheel"):
        index.search(vector=None, text=term, mode="keyword", top_k=5)
    time.sleep(0.2)
    assert index._keywords._lock.acquire(blocking=False)  # no build ran or is running
    index._keywords._lock.release()
    assert index.stats().details["in_memory_keyword_version"] is None
    index.search(vector=axis(2), text="wheel gripper", mode="hybrid", top_k=5)  # a second question does


def test_build_keeps_table_order_for_ties() -> None:
    keywords = KeywordIndex.build(["robot arm", "robot arm", "robot"])
    assert [p for p, _ in keywords.top("arm", 5)] == [0, 1]
    assert keywords.top("nothing here", 5) == []


def test_build_from_an_iterator_of_known_size_is_the_same_index() -> None:
    texts = ["robot arm moves", "the arm of a robot", "robot", "", "arms and legs"]
    listed = KeywordIndex.build(texts)
    streamed = KeywordIndex.build(iter(texts), len(texts))
    assert streamed.size == listed.size == len(texts)
    assert streamed.slices == listed.slices
    assert streamed.starts.tolist() == listed.starts.tolist()
    assert streamed.rows.tolist() == listed.rows.tolist()
    assert streamed.weights.tobytes() == listed.weights.tobytes()


def test_deleted_rows_keep_lancedbs_index(tmp_path: Path) -> None:
    """LanceDB's FTS statistics still count deleted rows (until rebuilt), so its scores differ."""
    index, items = built(tmp_path)
    index.delete_hashes([c.content_hash for c in items[:10]])
    table = index._open()
    layout = index._layout(table, table.version)
    snapshot = index._snapshots.get(table, layout.version, layout.columns, index._fits_in_memory)
    assert snapshot is not None
    assert index._keyword_index(snapshot) is None


def test_build_leaves_the_shared_word_cache_to_queries() -> None:
    from lectern.index import lancedb_keywords

    keywords = KeywordIndex.build(["zygote quokka", "quokka zygote", "quokka"])
    assert "zygote" not in lancedb_keywords._terms_of_words  # the table's words are not kept
    assert keywords.commonest() == "quokka"
    assert KeywordIndex.build(["wombat numbat", "numbat wombat"]).commonest() == "wombat"  # first seen
    posting = keywords.posting("zygot")
    assert posting is not None
    assert posting[0].tolist() == [0, 1]
    assert keywords.posting("absent") is None


def test_prepare_serves_the_first_question_from_memory(tmp_path: Path) -> None:
    """A server prepares its index before serving: the table in memory and its keyword index built, so
    its first question is answered as a later one would be, and LanceDB is not asked to count."""
    index, _ = built(tmp_path)
    other, _ = built(tmp_path / "other")
    query = "robot joint sensor"
    assert index.prepare()
    assert index.stats().details["in_memory_keyword_version"] == index.stats().details["version"]
    prepared = index.search(vector=axis(1), text=query, mode="hybrid", top_k=10)
    plain = other.search(vector=axis(1), text=query, mode="hybrid", top_k=10)
    assert [(h.chunk.content_hash, h.score) for h in prepared] == [
        (h.chunk.content_hash, h.score) for h in plain
    ]
    assert index.count() == 120
    assert index.info() == other.info()


def test_prepare_leaves_a_table_its_fts_index_does_not_cover_to_lancedb(tmp_path: Path) -> None:
    index, items = built(tmp_path)
    extra = items[0].model_copy(update={"content_hash": "new", "text": "robot joint sensor robot"})
    index.upsert([extra], vectors(1))  # not in the FTS index yet
    assert not index.prepare()
    assert index.stats().details["in_memory_keyword_version"] is None
    hits = index.search(vector=axis(1), text="robot joint sensor", mode="keyword", top_k=3)
    assert hits[0].chunk.content_hash == "new"
    assert index.count() == 121
    assert not LanceDBIndex(tmp_path / "none", "docs").prepare()  # no table: nothing to prepare
