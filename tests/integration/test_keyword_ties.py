"""Equal scores never depend on which path served a search: the embedded index's keyword side is
LanceDB's FTS index until the in-memory keyword index is built (in the background, so from a moment
that depends on timing), and its dense side the in-memory snapshot or LanceDB's own search. On a
collection full of exact ties (chunks with the same words in another order, and the same vector),
every path gives the same hits in the same order: best first, equal scores by content hash, the n
best being the first n of the whole ranking."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from lectern.index.lancedb_index import LanceDBIndex, _collect, _keywords_now
from lectern.index.lancedb_keywords import KeywordCache
from lectern.models import Chunk, SearchHit, SearchModeName
from tests.integration.engine_support import bare_chunk as chunk
from tests.integration.test_index_engines import INFO, axis

pytestmark = pytest.mark.integration

# Each group's chunks hold the same words (each once, so the same length) in another order: within a
# group every chunk scores the same for any query. Groups of 12, 8 and 6 chunks, then filler.
GROUPS = [
    ["gripper", "torque", "sensor", "wrist", "calibration"],
    ["gripper", "torque", "joint", "limit", "controller"],
    ["lidar", "sensor", "mapping", "odometry", "drift"],
]
SIZES = [12, 8, 6]
FILLER = ["wheel", "chassis", "battery", "camera", "topic", "node", "launch", "gripper", "lidar", "joint"]
QUERIES = ["gripper torque", "sensor", "gripper", "lidar drift", "joint limit gripper", "wrist torque"]
MODES: list[SearchModeName] = ["keyword", "hybrid"]


def tied_chunks() -> tuple[list[Chunk], np.ndarray]:
    rng = np.random.default_rng(3)
    chunks, vectors = [], []
    for group, (words, size) in enumerate(zip(GROUPS, SIZES, strict=True)):
        for k in range(size):
            order = rng.permutation(len(words)) if k else np.arange(len(words))
            text = f"{' '.join(words[i] for i in order)} {k:02d}{'x' * group}"  # a number no query has
            chunks.append(chunk(text, f"g{group}.md", k))
            vectors.append(axis(group))  # the same vector: dense ties too
    for k in range(40):
        text = " ".join(rng.choice(FILLER, size=int(rng.integers(3, 9))))
        chunks.append(chunk(f"{text} f{k}", f"filler{k % 5}.md", k))
        vectors.append(axis(3 + k % 5, tilt=k % 3))
    return chunks, np.stack(vectors)


def served_by(root: Path, path: str, ann_min_rows: int = 1000) -> LanceDBIndex:
    """An index on the collection under `root` whose keyword side is `path`'s: "lancedb" (its FTS
    index, always) or "memory" (the in-memory keyword index, built now). ann_min_rows=0: no snapshot,
    LanceDB answers the dense side too."""
    index = LanceDBIndex(root, "docs", ann_min_rows=ann_min_rows, snapshot_reload_s=0.0)
    if path == "lancedb":
        index._keywords = KeywordCache(lambda _: None)  # a build that never serves
        return index
    table = index._open()
    layout = index._layout(table, table.version)
    snapshot = index._snapshots.get(table, layout.version, layout.columns, index._fits_in_memory)
    assert snapshot is not None
    built = index._keyword_index(snapshot)
    assert built is not None  # the FTS index qualifies: this path really serves
    index._keywords._seen = snapshot.version
    index._keywords._held = (snapshot.version, built)
    return index


@pytest.fixture(scope="module")
def root(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("ties") / "lancedb"
    index = LanceDBIndex(root, "docs")
    index.create(INFO)
    chunks, vectors = tied_chunks()
    # written in a few batches, in an order unlike content hash order
    for part in (slice(0, 20), slice(20, 50), slice(50, None)):
        index.upsert(chunks[part], vectors[part])
    index.optimize()
    return root


def ranked(hits: list[SearchHit]) -> list[tuple[str, float | None, float]]:
    return [(h.chunk.content_hash, h.keyword_score, h.score) for h in hits]


@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize("top_k", [1, 3, 5, 10, 20])
def test_every_path_gives_the_same_hits_in_the_same_order(
    root: Path, mode: SearchModeName, top_k: int
) -> None:
    memory = served_by(root, "memory")
    lancedb = served_by(root, "lancedb")
    plain = served_by(root, "lancedb", ann_min_rows=0)  # LanceDB's dense search as well
    for i, query in enumerate(QUERIES):
        vector = axis(i % 3)
        want = ranked(memory.search(vector=vector, text=query, mode=mode, top_k=top_k))
        assert want
        assert ranked(lancedb.search(vector=vector, text=query, mode=mode, top_k=top_k)) == want, query
        assert ranked(plain.search(vector=vector, text=query, mode=mode, top_k=top_k)) == want, query
    assert memory._keywords.version is not None
    assert lancedb._keywords.version is None


@pytest.mark.parametrize("depth", [1, 4, 12, 26, 40])
def test_keyword_candidates_are_the_first_of_the_whole_ranking(root: Path, depth: int) -> None:
    """Best first, equal scores by content hash, the tie at the cut included: on both paths, the same
    as every match LanceDB finds ordered so and cut to the depth."""
    memory = served_by(root, "memory")
    lancedb = served_by(root, "lancedb")
    table = lancedb._open()
    rows = {r["_rowid"]: r["content_hash"] for r in table.search().with_row_id(True).to_arrow().to_pylist()}
    ties = 0
    for query in QUERIES:
        every = [(rows[r], s) for r, s in _collect(_keywords_now(table, query, None, 1000))]
        want = sorted(every, key=lambda c: (-c[1], c[0]))[:depth]
        ties += len({s for _, s in want}) < len(want)
        for index in (memory, lancedb):
            hits = index.search(vector=axis(0), text=query, mode="keyword", top_k=depth)
            assert [(h.chunk.content_hash, h.keyword_score) for h in hits] == want, query
    assert ties or depth == 1  # the test holds ties
