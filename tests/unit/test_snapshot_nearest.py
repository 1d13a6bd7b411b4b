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
