"""One suite, run against every index engine (Qdrant in local mode, pgvector on a private PostgreSQL),
on small hand-made chunks with deterministic vectors: each chunk points along its own axis, so the
expected ranking is known."""

from __future__ import annotations

import warnings
from collections.abc import Callable, Iterator
from pathlib import Path

import numpy as np
import pytest
from numpy.typing import NDArray
from qdrant_client import QdrantClient, models

from lectern.errors import EmbedderMismatch, VectorIndexError
from lectern.index import (
    ENGINES,
    SearchFilters,
    VectorIndex,
    ensure_query_embedder,
    open_index,
    pgvector_index,
)
from lectern.index.lancedb_index import LanceDBIndex
from lectern.index.pgvector_index import LexemeStats, PgVectorIndex
from lectern.index.qdrant_connect import Connection
from lectern.index.qdrant_index import QdrantIndex
from lectern.models import Chunk, CollectionInfo, SearchHit, SearchModeName, content_hash
from lectern.settings import Settings, load_settings
from tests.services import unique_name

pytestmark = pytest.mark.integration

DIM = 8
EMBEDDER = "test:axes"
INFO = CollectionInfo(name="docs", embedder_name=EMBEDDER, dimension=DIM)

# text, source_path, chunk_index, module, chapter, url, extra
ROWS: list[tuple[str, str, int, str, str, str, dict[str, object]]] = [
    (
        "ROS 2 nodes communicate over topics with publishers and subscribers.",
        "m1/ros.md",
        0,
        "Module 1",
        "Chapter 1: ROS 2",
        "https://ex.com/m1/ros#nodes",
        {"lang": "en", "level": 1},
    ),
    (
        "Gazebo simulates robots, physics engines and sensors before deployment.",
        "m2/gazebo.md",
        0,
        "Module 2",
        "Chapter 2: Simulation",
        "https://ex.com/m2/gazebo#intro",
        {"lang": "en", "level": 2},
    ),
    (
        "Inverse kinematics computes the joint angles for a desired end-effector pose.",
        "m3/kinematics.md",
        0,
        "Module 3",
        "Chapter 3: Kinematics",
        "https://ex.com/m3/kinematics#ik",
        {"lang": "de", "level": 3},
    ),
    (
        "Reinforcement learning trains humanoid walking policies in simulation.",
        "m3/rl.md",
        0,
        "Module 3",
        "Chapter 4: Learning",
        "https://ex.com/m3/rl#walking",
        {"lang": "en", "level": 3},
    ),
    (
        "A subscriber receives each message that a publisher sends on the topic.",
        "m1/ros.md",
        1,
        "Module 1",
        "Chapter 1: ROS 2",
        "https://ex.com/m1/ros#messages",
        {"lang": "en", "level": 1},
    ),
]


def make_chunk(i: int) -> Chunk:
    text, path, index, module, chapter, url, extra = ROWS[i]
    return Chunk(
        text=text,
        content_hash=content_hash(text),
        chunk_index=index,
        token_count=len(text.split()),
        heading_hierarchy=[chapter, f"Section {i}"],
        title=chapter,
        chapter=chapter,
        section=f"Section {i}",
        module_name=module,
        chapter_id=path.removesuffix(".md"),
        url=url,
        source_path=path,
        extra=extra,
    )


def axis(i: int, tilt: int | None = None) -> NDArray[np.float32]:
    """Unit vector along axis i, optionally leaning towards axis `tilt`."""
    v = np.zeros(DIM, dtype=np.float32)
    v[i] = 1.0
    if tilt is not None:
        v[tilt] = 0.5
    return (v / np.linalg.norm(v)).astype(np.float32)


CHUNKS = [make_chunk(i) for i in range(len(ROWS))]
VECTORS = np.stack([axis(i) for i in range(len(ROWS))])


def settings_for(engine: str, data_dir: Path) -> Settings:
    return load_settings(data_dir=data_dir, index_engine=engine, qdrant_url="", ann_min_rows=256)


def close(index: VectorIndex) -> None:
    if isinstance(index, QdrantIndex | PgVectorIndex):
        index.close()


@pytest.fixture(params=sorted(ENGINES))
def engine(request: pytest.FixtureRequest) -> str:
    return str(request.param)


@pytest.fixture
def opener(
    engine: str, tmp_path: Path, request: pytest.FixtureRequest
) -> Iterator[Callable[[], VectorIndex]]:
    opened: list[VectorIndex] = []
    settings = settings_for(engine, tmp_path)
    if engine == "pgvector":  # one server for the run, one schema per test
        url = request.getfixturevalue("pgvector_url")
        settings = settings.model_copy(update={"pgvector_url": url, "pgvector_schema": unique_name("t")})

    def open_() -> VectorIndex:
        index = open_index(settings, "docs")
        opened.append(index)
        return index

    yield open_
    for index in opened:
        close(index)


@pytest.fixture
def index(opener: Callable[[], VectorIndex]) -> VectorIndex:
    idx = opener()
    idx.create(INFO)
    idx.upsert(CHUNKS, VECTORS)
    idx.optimize()
    return idx


def hashes_of(hits: list[SearchHit]) -> list[str]:
    return [h.chunk.content_hash for h in hits]


# --- collection ----------------------------------------------------------------------------------------
def test_missing_collection_reads_as_empty(opener: Callable[[], VectorIndex]) -> None:
    idx = opener()
    assert idx.info() is None
    assert idx.count() == 0
    assert idx.hashes() == set()
    assert idx.documents() == []
    assert idx.search(vector=axis(0), text="ros", mode="hybrid") == []
    ensure_query_embedder(idx, "anything", 3)  # nothing built yet, nothing to refuse


def test_create_info_and_mismatch(index: VectorIndex) -> None:
    info = index.info()
    assert info is not None
    assert (info.embedder_name, info.dimension) == (EMBEDDER, DIM)
    index.create(INFO)  # same embedder: a no-op
    with pytest.raises(EmbedderMismatch):
        index.create(CollectionInfo(name="docs", embedder_name="other:model", dimension=DIM))
    with pytest.raises(EmbedderMismatch):
        index.create(CollectionInfo(name="docs", embedder_name=EMBEDDER, dimension=DIM * 2))
    with pytest.raises(EmbedderMismatch, match="other:model"):
        ensure_query_embedder(index, "other:model", DIM)
    ensure_query_embedder(index, EMBEDDER, DIM)
    with pytest.raises(EmbedderMismatch):
        index.search(vector=np.ones(DIM * 2, dtype=np.float32), text="ros")
    assert index.count() == len(CHUNKS)


# --- writes --------------------------------------------------------------------------------------------
def test_upsert_is_idempotent_by_hash(index: VectorIndex) -> None:
    index.upsert(CHUNKS, VECTORS)
    assert index.count() == len(CHUNKS)
    renamed = CHUNKS[0].model_copy(update={"title": "Renamed"})
    index.upsert([renamed, renamed], VECTORS[:2])  # duplicates within a batch: the last wins
    assert index.count() == len(CHUNKS)
    assert index.chunks_of("m1/ros.md")[0].title == "Renamed"
    assert index.hashes() == {c.content_hash for c in CHUNKS}


def test_delete_hashes(index: VectorIndex) -> None:
    gone = [CHUNKS[1].content_hash, CHUNKS[2].content_hash, "not-there"]
    index.delete_hashes(gone)
    index.optimize()
    assert index.count() == len(CHUNKS) - 2
    assert index.hashes() == {c.content_hash for c in CHUNKS} - set(gone)
    hits = index.search(vector=axis(1), text="gazebo kinematics", mode="hybrid", top_k=5)
    assert not set(hashes_of(hits)) & set(gone)


def test_documents_and_chunks_in_order(index: VectorIndex) -> None:
    docs = {d.source_path: d for d in index.documents()}
    assert set(docs) == {"m1/ros.md", "m2/gazebo.md", "m3/kinematics.md", "m3/rl.md"}
    assert docs["m1/ros.md"].chunks == 2
    assert docs["m1/ros.md"].url == "https://ex.com/m1/ros"
    assert docs["m1/ros.md"].title == "Chapter 1: ROS 2"
    chunks = index.chunks_of("m1/ros.md")
    assert [c.chunk_index for c in chunks] == [0, 1]
    assert chunks[0] == CHUNKS[0]  # every field, extra and heading path included, round-trips
    assert index.chunks_of("nope.md") == []


# --- search --------------------------------------------------------------------------------------------
def test_dense_ranking(index: VectorIndex) -> None:
    hits = index.search(vector=axis(2, tilt=3), text="", mode="dense", top_k=3)
    assert hashes_of(hits)[:2] == [CHUNKS[2].content_hash, CHUNKS[3].content_hash]
    assert hits[0].similarity == pytest.approx(float(axis(2, tilt=3) @ axis(2)), abs=1e-4)
    assert [h.rank for h in hits] == [1, 2, 3]


def test_keyword_ranking(index: VectorIndex) -> None:
    hits = index.search(vector=axis(0), text="inverse kinematics joint angles", mode="keyword", top_k=3)
    assert hashes_of(hits)[0] == CHUNKS[2].content_hash
    assert hits[0].keyword_score is not None
    assert hits[0].keyword_score > 0
    # stemming: "simulating" finds "simulates" and "simulation"
    found = set(hashes_of(index.search(vector=None, text="simulating", mode="keyword", top_k=5)))
    assert {CHUNKS[1].content_hash, CHUNKS[3].content_hash} <= found


def test_hybrid_fuses_both_sides(index: VectorIndex) -> None:
    # dense points at ROS, keyword at Gazebo: both must surface, the one both sides agree on first
    hits = index.search(vector=axis(1, tilt=0), text="gazebo physics", mode="hybrid", top_k=3)
    assert hashes_of(hits)[0] == CHUNKS[1].content_hash
    assert CHUNKS[0].content_hash in hashes_of(hits)
    scores = [h.score for h in hits]
    assert scores == sorted(scores, reverse=True)
    # a chunk only the keyword side finds still carries its (low) dense similarity
    hits = index.search(vector=axis(0), text="kinematics", mode="hybrid", top_k=5)
    ik = next(h for h in hits if h.chunk.content_hash == CHUNKS[2].content_hash)
    assert ik.similarity == pytest.approx(0.0, abs=1e-6)


@pytest.mark.parametrize("mode", ["dense", "keyword", "hybrid"])
def test_every_hit_carries_similarity(index: VectorIndex, mode: SearchModeName) -> None:
    query = axis(3, tilt=1)
    hits = index.search(vector=query, text="simulation robots topic", mode=mode, top_k=5)
    assert hits
    by_hash = {c.content_hash: v for c, v in zip(CHUNKS, VECTORS, strict=True)}
    for hit in hits:
        assert 0.0 <= hit.similarity <= 1.0
        expected = max(0.0, float(query @ by_hash[hit.chunk.content_hash]))
        assert hit.similarity == pytest.approx(expected, abs=1e-4)
        assert hit.vector == pytest.approx(by_hash[hit.chunk.content_hash].tolist(), abs=1e-6)


@pytest.mark.parametrize(
    ("filters", "expected"),
    [
        (SearchFilters(equals={"module_name": "Module 1"}), {0, 4}),
        (SearchFilters(equals={"chapter": "Chapter 3: Kinematics"}), {2}),
        (SearchFilters(url_prefix="https://ex.com/m3/"), {2, 3}),
        (SearchFilters(equals={"lang": "de"}), {2}),  # an `extra` key
        (SearchFilters(equals={"level": "2"}), {1}),  # CLI strings match stored integers
        (SearchFilters(equals={"module_name": ["Module 1", "Module 2"]}), {0, 1, 4}),
        (SearchFilters(equals={"chunk_index": "1"}), {4}),
        (SearchFilters(equals={"module_name": "Module 3", "lang": "en"}), {3}),
        (SearchFilters(equals={"chapter": "O'Brien's \"chapter\""}), set()),  # quotes are escaped
    ],
)
@pytest.mark.parametrize("mode", ["dense", "keyword", "hybrid"])
def test_filters_apply_to_every_side(
    index: VectorIndex, filters: SearchFilters, expected: set[int], mode: SearchModeName
) -> None:
    text = "robots topic simulation kinematics publishers learning"
    hits = index.search(vector=axis(0), text=text, mode=mode, top_k=5, filters=filters)
    found = set(hashes_of(hits))
    allowed = {CHUNKS[i].content_hash for i in expected}
    assert found <= allowed
    if mode == "dense":  # dense always finds every allowed chunk
        assert found == allowed


# --- persistence ---------------------------------------------------------------------------------------
def test_reopen_persists(index: VectorIndex, opener: Callable[[], VectorIndex]) -> None:
    close(index)
    again = opener()
    assert again.info() == index.info()
    assert again.count() == len(CHUNKS)
    hits = again.search(vector=axis(2), text="kinematics", mode="hybrid", top_k=1)
    assert hashes_of(hits) == [CHUNKS[2].content_hash]


def test_drop(index: VectorIndex) -> None:
    index.drop()
    assert index.info() is None
    assert index.count() == 0


def test_stats(index: VectorIndex) -> None:
    stats = index.stats()
    assert (stats.chunks, stats.documents, stats.dimension) == (len(CHUNKS), 4, DIM)
    assert stats.embedder_name == EMBEDDER
    assert stats.has_keyword_index


# --- LanceDB only --------------------------------------------------------------------------------------
def test_lancedb_reader_sees_new_rows(tmp_path: Path) -> None:
    settings = settings_for("lancedb", tmp_path)
    writer, reader = LanceDBIndex.from_settings(settings), LanceDBIndex.from_settings(settings)
    writer.create(INFO)
    writer.upsert(CHUNKS[:2], VECTORS[:2])
    assert reader.count() == 2
    writer.upsert(CHUNKS[2:], VECTORS[2:])
    assert reader.count() == len(CHUNKS)
    hits = reader.search(vector=axis(4), text="subscriber message", mode="hybrid", top_k=1)
    assert hashes_of(hits) == [CHUNKS[4].content_hash]


def test_lancedb_optimize_builds_ann_index_and_is_idempotent(tmp_path: Path) -> None:
    idx = LanceDBIndex.from_settings(settings_for("lancedb", tmp_path))
    idx.create(INFO)
    rng = np.random.default_rng(7)
    many = [
        Chunk(
            text=f"filler chunk {i} about topic {i % 7}", content_hash=f"h{i}", chunk_index=i, token_count=5
        )
        for i in range(300)
    ]
    vectors = rng.normal(size=(300, DIM)).astype(np.float32)
    idx.upsert([*many, *CHUNKS], np.vstack([vectors, VECTORS]))
    idx.optimize()
    stats = idx.stats()
    assert stats.has_ann_index
    assert stats.has_keyword_index
    assert all(n == 0 for n in stats.details["unindexed_rows"].values())
    version = stats.details["version"]
    idx.optimize()  # nothing changed: nothing written
    assert idx.stats().details["version"] == version
    hits = idx.search(vector=axis(2), text="kinematics", mode="hybrid", top_k=3)
    assert hashes_of(hits)[0] == CHUNKS[2].content_hash


# --- Qdrant: a collection written by the seed-000 pipeline ---------------------------------------------
def test_qdrant_reads_seed_000_layout(tmp_path: Path) -> None:
    settings = settings_for("qdrant", tmp_path)
    client = QdrantClient(path=str(settings.index_dir / "qdrant"))
    client.create_collection(
        "textbook_chunks", vectors_config=models.VectorParams(size=DIM, distance=models.Distance.COSINE)
    )
    client.upsert(
        "textbook_chunks",
        points=[
            models.PointStruct(
                id=i,
                vector=VECTORS[i].tolist(),
                payload={
                    "text": c.text,
                    "chapter": c.chapter,
                    "section": c.section,
                    "url": c.url,
                    "chunk_index": c.chunk_index,
                    "content_hash": c.content_hash,
                },
            )
            for i, c in enumerate(CHUNKS)
        ],
    )
    client.close()

    idx = QdrantIndex.from_settings(settings, "textbook_chunks")
    try:
        info = idx.info()
        assert info is not None
        assert (info.embedder_name, info.dimension) == ("", DIM)
        ensure_query_embedder(idx, "any:model", DIM)  # unknown embedder: only the dimension is checked
        with pytest.raises(EmbedderMismatch):
            ensure_query_embedder(idx, "any:model", DIM + 1)
        assert idx.count() == len(CHUNKS)
        assert idx.hashes() == {c.content_hash for c in CHUNKS}

        hit = idx.search(vector=axis(2), text="", mode="dense", top_k=1)[0]
        assert hit.chunk.text == CHUNKS[2].text
        assert (hit.chunk.chapter, hit.chunk.url, hit.chunk.content_hash) == (
            CHUNKS[2].chapter,
            CHUNKS[2].url,
            CHUNKS[2].content_hash,
        )
        assert hit.similarity == pytest.approx(1.0, abs=1e-5)

        keyword = idx.search(vector=axis(0), text="inverse kinematics", mode="keyword", top_k=2)
        assert hashes_of(keyword)[0] == CHUNKS[2].content_hash
        assert keyword[0].keyword_score
        assert keyword[0].similarity == pytest.approx(0.0, abs=1e-6)

        hybrid = idx.search(
            vector=axis(1),
            text="subscriber message",
            mode="hybrid",
            top_k=5,
            filters=SearchFilters(equals={"chapter": ["Chapter 1: ROS 2", "Chapter 2: Simulation"]}),
        )
        assert set(hashes_of(hybrid)) == {CHUNKS[i].content_hash for i in (0, 1, 4)}
        assert all(0.0 <= h.similarity <= 1.0 for h in hybrid)
        assert all(h.vector is not None and len(h.vector) == DIM for h in hybrid)

        with pytest.raises(VectorIndexError, match="read-only"):
            idx.upsert(CHUNKS[:1], VECTORS[:1])
    finally:
        idx.close()


def test_qdrant_server_code_path_on_local_client() -> None:
    """What only a server runs (payload indexes, the url prefix index) is exercised on an in-memory
    client posing as a server: local mode accepts the calls and ignores them."""
    client = QdrantClient(location=":memory:")
    idx = QdrantIndex(Connection(client, local=False, release=client.close), "docs")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UserWarning)  # "payload indexes have no effect in local mode"
        idx.create(INFO)
    idx.upsert(CHUNKS, VECTORS)
    assert idx.stats().has_ann_index
    hits = idx.search(
        vector=axis(2), text="kinematics", top_k=2, filters=SearchFilters(url_prefix="https://ex.com/m3/")
    )
    assert hashes_of(hits)[0] == CHUNKS[2].content_hash
    idx.close()


# --- pgvector only -------------------------------------------------------------------------------------
@pytest.mark.parametrize("engine", ["pgvector"])
def test_pgvector_hnsw_filtered_search_and_shared_readers(opener: Callable[[], VectorIndex]) -> None:
    """Past ann_min_rows optimize() builds the HNSW index; a selective filter still fills top_k (the
    iterative scan); a second index on the same database (another replica) sees writes at once."""
    writer, reader = opener(), opener()
    writer.create(INFO)
    rng = np.random.default_rng(7)
    many = [
        Chunk(
            text=f"filler chunk {i} about topic {i % 7}",
            content_hash=f"h{i}",
            chunk_index=i,
            token_count=5,
            module_name="rare" if i % 50 == 0 else "common",
        )
        for i in range(300)
    ]
    writer.upsert(many, rng.normal(size=(300, DIM)).astype(np.float32))
    assert reader.count() == 300
    writer.optimize()
    assert writer.stats().has_ann_index
    writer.upsert(CHUNKS, VECTORS)  # written after the build: the index takes them in at once
    hits = reader.search(vector=axis(2), text="", mode="dense", top_k=1)
    assert hashes_of(hits) == [CHUNKS[2].content_hash]
    rare = reader.search(
        vector=axis(0), text="", mode="dense", top_k=6, filters=SearchFilters(equals={"module_name": "rare"})
    )
    assert {h.chunk.content_hash for h in rare} == {f"h{i}" for i in range(0, 300, 50)}
    writer.delete_hashes([CHUNKS[2].content_hash])
    assert CHUNKS[2].content_hash not in hashes_of(reader.search(vector=axis(2), text="", mode="dense"))


def test_pgvector_common_words_do_not_select_keyword_candidates(
    pgvector_url: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A word in most chunks ("robot") would make ts_rank score most of the table; past the candidate
    budget, candidates come from the rarer words of the question (every word still counts in the
    rank), and a small collection is matched on every word."""
    index = PgVectorIndex(pgvector_url, "common", schema=unique_name("t"), ann_min_rows=10**6)
    try:
        index.create(INFO)
        texts = [f"The robot arm moves part {i} along its path." for i in range(60)]
        texts[7] = "The robot reads its lidar to see obstacles."
        chunks = [
            Chunk(text=t, content_hash=f"c{i}", chunk_index=i, token_count=len(t.split()))
            for i, t in enumerate(texts)
        ]
        index.upsert(chunks, np.stack([axis(i % DIM) for i in range(len(texts))]))
        index.optimize()  # ANALYZE: the statistics say how common each word is
        small = index.search(vector=None, text="robot lidar", mode="keyword", top_k=5)
        assert hashes_of(small)[0] == "c7"
        assert len(small) == 5  # within the budget: any word selects
        monkeypatch.setattr(pgvector_index, "CANDIDATE_BUDGET", 10)
        both = index.search(vector=None, text="robot lidar", mode="keyword", top_k=5)
        assert hashes_of(both) == ["c7"]
        common = index.search(vector=None, text="robot path", mode="keyword", top_k=5)
        assert len(common) == 5  # the rarer of two common words still selects
    finally:
        index.drop()
        index.close()


def test_lexeme_selection_keeps_the_rarest_within_the_budget() -> None:
    stats = LexemeStats({"cell": 0.5, "protein": 0.05}, floor=0.001, rows=100_000)
    assert stats.select(["cell", "protein", "zebrafish"], 1000) == ["zebrafish"]
    assert stats.select(["cell", "protein", "zebrafish"], 6000) == ["zebrafish", "protein"]
    assert stats.select(["cell"], 10) == ["cell"]  # one lexeme always selects
    assert LexemeStats().select(["cell", "protein"], 10) == ["cell", "protein"]  # not analysed yet
