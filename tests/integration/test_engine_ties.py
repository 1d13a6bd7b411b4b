"""Equal scores rank the same way on every engine: best first, equal scores by content hash
(`fusion.best_first`), the n best being the first n of the whole ranking whichever of the tied rows
the engine's own search returned first. On a collection full of exact ties (chunks with the same
words in another order and the same vector), LanceDB, pgvector (PostgreSQL) and Qdrant (local mode;
its own layout and one another pipeline wrote) give, for every top_k, the first top_k of the whole
ranking: the same dense hits on all of them, the keyword hits their own scores ordered by the rule,
and the hybrid fusion of those.

pgvector's dense SQL orders by distance alone so that the HNSW index serves it: the test reads the
plan (EXPLAIN) of the very statement the engine runs."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import numpy as np
import pytest
from numpy.typing import NDArray
from psycopg import sql
from qdrant_client import QdrantClient, models

from lectern.index import VectorIndex
from lectern.index.base import SearchFilters
from lectern.index.fusion import best_first, candidate_depth, rrf_fuse
from lectern.index.lancedb_index import LanceDBIndex
from lectern.index.pgvector_index import PgVectorIndex
from lectern.index.pgvector_sql import where_clause
from lectern.index.qdrant_connect import Connection
from lectern.index.qdrant_index import QdrantIndex
from lectern.models import Chunk, SearchHit
from tests.integration.engine_support import bare_chunk as chunk
from tests.integration.test_index_engines import DIM, INFO
from tests.services import unique_name

pytestmark = pytest.mark.integration

# qdrant-legacy: a collection another pipeline wrote, read by Qdrant's engine
ENGINES = ["lancedb", "pgvector", "qdrant", "qdrant-legacy"]
# Each group's chunks hold the same words (each once) in another order, and the same vector: within a
# group every chunk scores the same for any query, on either side. Groups of 12, 8, 6 and 15 chunks.
GROUPS = [
    ["gripper", "torque", "sensor", "wrist", "calibration"],
    ["gripper", "torque", "joint", "limit", "controller"],
    ["lidar", "sensor", "mapping", "odometry", "drift"],
    ["camera", "lens", "focus", "exposure", "gripper"],
]
SIZES = [12, 8, 6, 15]
FILLER = ["wheel", "chassis", "battery", "camera", "topic", "node", "launch", "gripper", "lidar", "joint"]
QUERIES = ["gripper torque", "sensor", "gripper", "lidar drift", "joint limit gripper", "camera focus"]
TOP_KS = [1, 2, 3, 5, 7, 8, 11, 12, 13, 20]
EVERY = 1000  # more than the collection holds: the whole ranking


def tied_chunks() -> tuple[list[Chunk], NDArray[np.float32]]:
    rng = np.random.default_rng(11)
    group_vectors = [unit(rng.normal(size=DIM)) for _ in GROUPS]
    chunks, vectors = [], []
    for group, (words, size) in enumerate(zip(GROUPS, SIZES, strict=True)):
        for k in range(size):
            order = rng.permutation(len(words)) if k else np.arange(len(words))
            text = f"{' '.join(words[i] for i in order)} n{k:02d}{'x' * group}"  # a word no query has
            chunks.append(chunk(text, f"g{group}.md", k))
            vectors.append(group_vectors[group])
    for k in range(40):  # filler: other vectors, some words of the queries
        text = " ".join(rng.choice(FILLER, size=int(rng.integers(3, 9))))
        chunks.append(chunk(f"{text} f{k:02d}", f"filler{k % 5}.md", k))
        vectors.append(unit(rng.normal(size=DIM)))
    # written in an order unlike content hash order (the text's), so a search returning ties in
    # table order or by point id shows
    order = rng.permutation(len(chunks))
    return [chunks[i] for i in order], np.stack([vectors[i] for i in order])


def unit(v: NDArray[Any]) -> NDArray[np.float32]:
    return (v / np.linalg.norm(v)).astype(np.float32)


CHUNKS, VECTORS = tied_chunks()
# queries: each group's own vector (its chunks tie at the top), and a few others
QUERY_VECTORS = [VECTORS[[c.source_path for c in CHUNKS].index(f"g{g}.md")] for g in range(len(GROUPS))]
QUERY_VECTORS += [unit(np.random.default_rng(5 + i).normal(size=DIM)) for i in range(3)]


def dense_ranking(query: NDArray[np.float32]) -> list[tuple[str, float]]:
    """Every chunk, best first by cosine similarity, equal scores by content hash. Equal vectors score
    alike in any arithmetic; the others differ by far more than an engine's rounding."""
    sims = VECTORS.astype(np.float64) @ query.astype(np.float64)
    return best_first([(c.content_hash, float(s)) for c, s in zip(CHUNKS, sims, strict=True)])


def build(index: VectorIndex) -> VectorIndex:
    index.create(INFO)
    for part in (slice(0, 30), slice(30, 60), slice(60, None)):
        index.upsert(CHUNKS[part], VECTORS[part])
    index.optimize()
    return index


def legacy_collection(client: QdrantClient) -> QdrantIndex:
    """The collection in the layout of another pipeline (one unnamed vector, a flat payload, integer
    point ids in write order), read by `qdrant_legacy`."""
    client.create_collection(
        "legacy", vectors_config=models.VectorParams(size=DIM, distance=models.Distance.COSINE)
    )
    points = [
        models.PointStruct(
            id=i,
            vector=v.tolist(),
            payload={"text": c.text, "source_path": c.source_path, "content_hash": c.content_hash},
        )
        for i, (c, v) in enumerate(zip(CHUNKS, VECTORS, strict=True))
    ]
    client.upsert("legacy", points=points)
    return QdrantIndex(Connection(client, local=True, release=lambda: None), "legacy")


@pytest.fixture(scope="module")
def indexes(tmp_path_factory: pytest.TempPathFactory, pgvector_url: str) -> Iterator[dict[str, VectorIndex]]:
    client = QdrantClient(location=":memory:")
    built: dict[str, VectorIndex] = {
        "lancedb": build(LanceDBIndex(tmp_path_factory.mktemp("ties") / "lancedb", "docs")),
        # ann_min_rows: no HNSW index, exact search (test_pgvector_hnsw_* builds one)
        "pgvector": build(PgVectorIndex(pgvector_url, "docs", schema=unique_name("t"), ann_min_rows=10**6)),
        "qdrant": build(QdrantIndex(Connection(client, local=True, release=client.close), "docs")),
        "qdrant-legacy": legacy_collection(client),
    }
    yield built
    for engine, index in built.items():
        if engine != "qdrant-legacy":
            index.drop()
        if isinstance(index, PgVectorIndex | QdrantIndex):
            index.close()


def keys(hits: list[SearchHit]) -> list[str]:
    return [h.chunk.content_hash for h in hits]


def keyword_ranking(index: VectorIndex, text: str) -> list[tuple[str, float]]:
    """Every match of the engine's keyword side with its own score; asserted in best_first order."""
    hits = index.search(vector=None, text=text, mode="keyword", top_k=EVERY)
    found = [(h.chunk.content_hash, float(h.keyword_score or 0.0)) for h in hits]
    assert found == best_first(found), text
    assert len({s for _, s in found}) < len(found), text  # the test holds ties
    return found


@pytest.mark.parametrize("engine", ENGINES)
@pytest.mark.parametrize("top_k", TOP_KS)
def test_dense_hits_are_the_first_of_the_whole_ranking(
    indexes: dict[str, VectorIndex], engine: str, top_k: int
) -> None:
    for query in QUERY_VECTORS:
        hits = indexes[engine].search(vector=query, text="", mode="dense", top_k=top_k)
        assert keys(hits) == [key for key, _ in dense_ranking(query)[:top_k]]


@pytest.mark.parametrize("engine", ENGINES)
@pytest.mark.parametrize("top_k", TOP_KS)
def test_keyword_hits_are_the_first_of_the_whole_ranking(
    indexes: dict[str, VectorIndex], engine: str, top_k: int
) -> None:
    index = indexes[engine]
    for text in QUERIES:
        whole = keyword_ranking(index, text)
        hits = index.search(vector=QUERY_VECTORS[0], text=text, mode="keyword", top_k=top_k)
        assert [(h.chunk.content_hash, h.keyword_score) for h in hits] == whole[:top_k], text


@pytest.mark.parametrize("engine", ENGINES)
@pytest.mark.parametrize("top_k", TOP_KS)
def test_hybrid_hits_fuse_the_first_of_each_whole_ranking(
    indexes: dict[str, VectorIndex], engine: str, top_k: int
) -> None:
    """RRF (`fusion.rrf_fuse`, this engine's k) of each side's first candidate_depth(top_k) in the
    whole ranking: Qdrant's too, fused here rather than on its server."""
    index = indexes[engine]
    depth = candidate_depth(top_k)
    for i, text in enumerate(QUERIES):
        query = QUERY_VECTORS[i % len(QUERY_VECTORS)]
        dense = [key for key, _ in dense_ranking(query)[:depth]]
        keyword = [key for key, _ in keyword_ranking(index, text)[:depth]]
        want = rrf_fuse([dense, keyword], index.rrf_k)[:top_k]  # type: ignore[attr-defined]
        hits = index.search(vector=query, text=text, mode="hybrid", top_k=top_k)
        assert keys(hits) == [key for key, _ in want], text
        assert [h.score for h in hits] == pytest.approx([score for _, score in want]), text


@pytest.mark.parametrize("engine", ENGINES)
def test_filtered_ties_are_cut_by_the_rule_too(indexes: dict[str, VectorIndex], engine: str) -> None:
    """A filter leaves the tie rule as it is: the first of the filtered ranking."""
    group = SearchFilters(equals={"source_path": ["g0.md", "g1.md"]})
    allowed = {c.content_hash for c in CHUNKS if c.source_path in ("g0.md", "g1.md")}
    for top_k in (1, 5, 12, 13):
        hits = indexes[engine].search(
            vector=QUERY_VECTORS[1], text="", mode="dense", top_k=top_k, filters=group
        )
        want = [key for key, _ in dense_ranking(QUERY_VECTORS[1]) if key in allowed][:top_k]
        assert keys(hits) == want


def test_pgvector_hnsw_serves_the_dense_query_and_ties_keep_the_rule(pgvector_url: str) -> None:
    """Past ann_min_rows the dense statement (ordered by distance alone) is an index scan on the HNSW
    index, filtered or not; on it, the tied chunks still come in content hash order."""
    index = PgVectorIndex(pgvector_url, "docs", schema=unique_name("t"), ann_min_rows=10)
    try:
        build(index)
        assert index.stats().has_ann_index
        # a filter on a column of no other index (every chunk's module_name is "")
        for filters in (None, SearchFilters(equals={"module_name": ""})):
            where, params = where_clause(filters)
            with index._connect("explaining") as cur:
                cur.execute("SET LOCAL enable_seqscan = off")  # a tiny table: seq scans cost less
                cur.execute(sql.SQL("EXPLAIN ") + index._dense_sql(where), [QUERY_VECTORS[0], *params, 9])
                plan = "\n".join(str(next(iter(r.values()))) for r in cur.fetchall())
            assert f"Index Scan using {index._ann}" in plan, plan
            assert "Sort" not in plan, plan
        for top_k in (1, 5, 12, 13):
            hits = index.search(vector=QUERY_VECTORS[0], text="", mode="dense", top_k=top_k)
            assert keys(hits) == [key for key, _ in dense_ranking(QUERY_VECTORS[0])[:top_k]]
    finally:
        index.drop()
        index.close()


def test_engines_agree_on_dense_ties(indexes: dict[str, VectorIndex]) -> None:
    """The same collection answers the same dense search alike, whichever engine holds it."""
    for query in QUERY_VECTORS:
        for top_k in (1, 6, 12, 20):
            answers = {
                engine: keys(index.search(vector=query, text="", mode="dense", top_k=top_k))
                for engine, index in indexes.items()
            }
            assert len({tuple(a) for a in answers.values()}) == 1, answers


def test_the_collection_holds_ties() -> None:
    for query in QUERY_VECTORS[: len(GROUPS)]:
        top = dense_ranking(query)[: min(SIZES) + 1]
        assert len({s for _, s in top[: min(SIZES)]}) == 1
