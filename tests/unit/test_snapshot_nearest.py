"""The snapshot's nearest chunk of one source file: the best cosine among that file's rows, others
excluded, zero vectors never."""

from __future__ import annotations

import numpy as np
import pyarrow as pa

from lectern.index.lancedb_snapshot import SnapshotCache, TableSnapshot


def snapshot(paths: list[str], vectors: list[list[float]]) -> TableSnapshot:
    matrix = np.asarray(vectors, dtype=np.float32)
    norms = np.linalg.norm(matrix, axis=1)
    hashes = [f"h{i}" for i in range(len(paths))]
    return TableSnapshot(
        version=1,
        rows=pa.table({"content_hash": hashes, "source_path": paths}),
        hashes=hashes,
        row_ids=np.arange(len(paths), dtype=np.uint64),
        matrix=matrix,
        inverse_norms=np.divide(1.0, norms, out=np.zeros_like(norms), where=norms > 0),
        searchable=np.flatnonzero(norms > 0),
        positions={h: i for i, h in enumerate(hashes)},
    )


QUERY = np.array([1.0, 0.0], dtype=np.float32)


def test_the_files_best_row_by_cosine_not_anothers() -> None:
    found = snapshot(["a.md", "b.md", "a.md", "a.md"], [[0.0, 1.0], [1.0, 0.0], [2.0, 1.0], [1.0, 1.0]])
    key, cosine = found.nearest_of_source("a.md", QUERY, frozenset()) or ("", 0.0)
    assert key == "h2"  # b.md's h1 is nearer, but another file's
    assert cosine == np.float32(2.0 / np.sqrt(5.0))


def test_excluded_rows_are_passed_over() -> None:
    found = snapshot(["a.md", "a.md", "a.md"], [[1.0, 0.0], [1.0, 0.2], [0.0, 1.0]])
    assert (found.nearest_of_source("a.md", QUERY, frozenset({"h0"})) or ("",))[0] == "h1"
    assert (found.nearest_of_source("a.md", QUERY, frozenset({"h0", "h1"})) or ("",))[0] == "h2"
    assert found.nearest_of_source("a.md", QUERY, frozenset({"h0", "h1", "h2"})) is None


def test_an_unknown_file_or_a_zero_vector_gives_nothing() -> None:
    found = snapshot(["a.md", "b.md"], [[1.0, 0.0], [0.0, 0.0]])
    assert found.nearest_of_source("c.md", QUERY, frozenset()) is None
    assert found.nearest_of_source("b.md", QUERY, frozenset()) is None  # LanceDB's cosine skips it


def test_a_table_without_source_paths_gives_nothing() -> None:
    found = snapshot(["a.md"], [[1.0, 0.0]])
    bare = TableSnapshot(**{**found.__dict__, "rows": pa.table({"content_hash": ["h0"]})})
    assert bare.nearest_of_source("a.md", QUERY, frozenset()) is None


def test_the_cache_hands_out_what_it_holds_without_loading() -> None:
    cache = SnapshotCache(max_rows=10)
    assert cache.current() is None
    held = snapshot(["a.md"], [[1.0, 0.0]])
    cache._state = (3, held)
    assert cache.current() is held
    cache.clear()
    assert cache.current() is None


def random_snapshot(rows: int, files: int, seed: int) -> TableSnapshot:
    rng = np.random.default_rng(seed)
    paths = [f"f{rng.integers(files)}.md" for _ in range(rows)]
    return snapshot(paths, rng.standard_normal((rows, 384)).astype(np.float32).tolist())


def unit_query(rng: np.random.Generator) -> np.ndarray:
    query = rng.standard_normal(384).astype(np.float32)
    return query / np.float32(np.linalg.norm(query))


def test_after_a_search_the_files_best_row_is_read_from_its_scores_bit_for_bit() -> None:
    # `top` keeps the query's scores over every row; the file's nearest row read from them is the
    # one, and the very cosine, that scoring the file's rows again gives.
    rng = np.random.default_rng(7)
    searched, fresh = random_snapshot(300, 6, seed=1), random_snapshot(300, 6, seed=1)
    for _ in range(5):
        query = unit_query(rng)
        skip = frozenset(h for h, _, _ in searched.top(query, 4))
        assert searched._latest.of(query, np.arange(3)) is not None
        assert fresh._latest.kept is None  # never searched: scores its file's rows
        for path in ("f0.md", "f3.md", "f5.md"):
            assert searched.nearest_of_source(path, query, skip) == fresh.nearest_of_source(path, query, skip)


def test_another_querys_scores_are_not_read() -> None:
    rng = np.random.default_rng(3)
    searched, fresh = random_snapshot(50, 2, seed=2), random_snapshot(50, 2, seed=2)
    first, second = unit_query(rng), unit_query(rng)
    searched.top(first, 5)
    assert searched._latest.of(second, np.arange(3)) is None
    assert searched.nearest_of_source("f1.md", second, frozenset()) == fresh.nearest_of_source(
        "f1.md", second, frozenset()
    )
