"""A small LanceDB table held in memory: exact dense search by one matrix product, rows by position.

Below ``ann_min_rows`` LanceDB's dense search is exact: it reads and scores every row on each query
(10-13 ms at 10k rows on 2 cores), and reading a hit's row back costs another 1.5-3.5 ms. From memory
the same ranking is one matrix product (0.5 ms at 10k rows) and a hit's row a ``take`` (0.1 ms).
Memory: about 1.5 kB of vector and 1.2 kB of chunk columns per row, ~27 MB at 10k rows, ~140 MB at
50k; from 4096 rows on, ~0.8 kB more a row for the dense search's int8 first pass (`dense_prefilter`:
the same ranking, ~0.6 ms less CPU a search at 10k rows).

A hit's `Chunk` is built from the columns the first time the row is a hit, then kept with the snapshot
and shared by every answer that finds it (chunks are never modified): reading a row back as Python
values and validating it into a Chunk cost ~40 us a hit, ten hits an answer.

A snapshot is one table version. ``table.version`` (~0.1 ms) follows the connection's read
consistency, so a snapshot answers exactly what a LanceDB query on the same handle would, and a
stale one is never used (a search skips the read while the table's files show no commit, see
lancedb_stamp). The version is the only identity checked: a table that another process drops and
creates again is seen as new once its version differs from the snapshot's (``drop()`` on the same
index clears the snapshot at once).
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from functools import cached_property
from typing import Any

import numpy as np
import pyarrow as pa
from numpy.typing import NDArray

from lectern.code_pages import release_code_pages_soon
from lectern.index.dense_prefilter import Int8Prefilter, prefilter_for
from lectern.index.fusion import tied_at_nth_or_better
from lectern.index.heap import release_free_memory
from lectern.index.lancedb_schema import VECTOR
from lectern.index.payload import chunk_from_record
from lectern.lru import LRU
from lectern.models import Chunk

Candidate = tuple[str, int, float]  # content hash, row id, score (higher is better)
Row = tuple[Chunk, NDArray[np.float32]]  # a hit's chunk and its stored vector
# Distinct filters whose row sets a snapshot keeps; past that it starts over.
MAX_FILTERS = 64
# Chunks a snapshot keeps built (~8 kB each on SciFact, by tracemalloc), the least recently found
# dropped first. As many as the passages whose terms a server keeps (`lectern.writers.units.PASSAGES_KEPT`).
MAX_CHUNKS = 1024


@dataclass(frozen=True)
class TableSnapshot:
    """Every row of one table version: chunk columns, row ids, and the vectors as a matrix."""

    version: int
    rows: pa.Table  # the chunk columns, one chunk, in table order
    hashes: list[str]
    row_ids: NDArray[np.uint64]
    matrix: NDArray[np.float32]  # the stored vectors
    inverse_norms: NDArray[np.float32]  # 1 / |vector|
    searchable: NDArray[np.intp]  # rows with a non-zero vector: LanceDB's cosine skips the others
    positions: dict[str, int]  # content hash -> row
    _filtered: dict[str, NDArray[np.intp]] = field(default_factory=dict, repr=False)
    # row -> its chunk, built once; the least recently found is dropped first
    _chunks: LRU[int, Chunk] = field(default_factory=lambda: LRU(MAX_CHUNKS), repr=False, compare=False)
    # The latest query's scores over every row (`top` without the first pass), by the query's bytes: a
    # file's nearest chunk (`nearest_of_source`), asked right after the search, reads them there.
    _latest: _LatestScores = field(default_factory=lambda: _LatestScores(), repr=False, compare=False)

    @classmethod
    def load(cls, table: Any, version: int, columns: Sequence[str]) -> TableSnapshot | None:
        """`columns` (the chunk's, content_hash among them) and the vectors of every row; None when
        a row has no vector (LanceDB's search skips it, and the matrix cannot hold it)."""
        found = table.search().select([*columns, VECTOR]).with_row_id(True).limit(None).to_arrow()
        if found.column(VECTOR).null_count:
            return None
        matrix = _matrix(found.column(VECTOR))
        norms = np.linalg.norm(matrix, axis=1)
        hashes = [str(h) for h in found.column("content_hash").to_pylist()]
        row_ids = found.column("_rowid").to_numpy().astype(np.uint64)
        # the vectors as read go before the chunk columns are copied into one chunk (take() on one
        # chunk is 10x faster): not both at once (SciFact's 10k rows: 15 MB of the load's peak)
        found = found.select(list(columns))
        return cls(
            version=version,
            rows=found.combine_chunks(),
            hashes=hashes,
            row_ids=row_ids,
            matrix=matrix,
            inverse_norms=np.divide(1.0, norms, out=np.zeros_like(norms), where=norms > 0),
            searchable=np.flatnonzero(norms > 0),
            positions={h: i for i, h in enumerate(hashes)},
        )

    @cached_property
    def tie_order(self) -> NDArray[np.intp]:
        """Each row's rank in content hash order: equal scores go in that order
        (`lectern.index.fusion.best_first`), here and in the in-memory keyword index. Worked out on
        first use (~3 ms at 10k rows), a race only working it out twice."""
        order = np.empty(len(self.hashes), dtype=np.intp)
        order[sorted(range(len(self.hashes)), key=self.hashes.__getitem__)] = np.arange(len(self.hashes))
        return order

    @cached_property
    def prefilter(self) -> Int8Prefilter | None:
        """The int8 first pass of `top` (`lectern.index.dense_prefilter`), on tables of `MIN_ROWS` rows
        and more; made on first use (~0.1 s of CPU at 10k rows, a race only making it twice). It holds ~8 MB
        there (the int8 rows and onnxruntime's packed copy); making it peaks ~40 MB higher (the graph's
        copies), handed back to the system at once."""
        prefilter = prefilter_for(self.matrix, self.inverse_norms)
        if prefilter is not None:
            release_free_memory()
        return prefilter

    @cached_property
    def _columns(self) -> list[tuple[str, pa.ChunkedArray]]:
        """The chunk columns by name, listed once: `rows.columns` makes a new wrapper of every column
        on each call (~7 % of a search's CPU on textbook-a, where an answer builds a few chunks)."""
        return list(zip(self.rows.column_names, self.rows.columns, strict=True))

    def top(
        self, query: NDArray[np.float32], n: int, allowed: NDArray[np.intp] | None = None
    ) -> list[Candidate]:
        """The n rows most similar to the unit `query` (cosine), best first, equal scores in content
        hash order (those tied at the n-th place among them); only the rows `allowed` when given."""
        rows = self.searchable if allowed is None else allowed
        n = min(n, len(rows))
        if n <= 0:
            return []
        prefilter = self.prefilter if n < len(rows) and np.isfinite(query).all() else None
        # einsum, not BLAS: OpenBLAS splits a product this size over both cores, and on a busy
        # machine waiting for the second one cost up to 8 ms (p99) against 0.8 ms single-threaded
        if prefilter is not None:
            # the rows that may make the first n, scored exactly: the same scores as over the whole matrix
            rows = prefilter.candidates(query, rows, n)
            row_scores = _scores(self.matrix, rows, query) * self.inverse_norms[rows]
        else:
            scores = np.einsum("ij,j->i", self.matrix, query) * self.inverse_norms
            self._latest.kept = (query.tobytes(), scores)
            row_scores = scores[rows]
        if n < len(rows):
            kept = tied_at_nth_or_better(row_scores, n)
            rows, row_scores = rows[kept], row_scores[kept]
        best = np.lexsort((self.tie_order[rows], -row_scores))[:n]
        # whole arrays to Python values at once (the same ints and floats as element by element)
        positions = rows[best]
        hashes = self.hashes
        return list(
            zip(
                [hashes[p] for p in positions.tolist()],
                self.row_ids[positions].tolist(),
                row_scores[best].tolist(),
                strict=True,
            )
        )

    @cached_property
    def _rows_by_source(self) -> dict[str, NDArray[np.intp]]:
        """Each source file's searchable rows, worked out on first use (a pass over one column)."""
        if "source_path" not in self.rows.column_names:
            return {}
        by: dict[str, list[int]] = {}
        for row, path in enumerate(self.rows.column("source_path").to_pylist()):
            by.setdefault(str(path), []).append(row)
        return {
            path: found[self.inverse_norms[found] > 0]
            for path, rows in by.items()
            if len(found := np.array(rows, dtype=np.intp))
        }

    def nearest_of_source(
        self, source_path: str, query: NDArray[np.float32], exclude: frozenset[str]
    ) -> tuple[str, float] | None:
        """The content hash and cosine of `source_path`'s chunk most similar to the unit `query`, among
        those not in `exclude`; None when there is none."""
        rows = self._rows_by_source.get(source_path)
        if rows is None or not len(rows):
            return None
        scores = self._latest.of(query, rows)
        if scores is None:
            scores = _scores(self.matrix, rows, query) * self.inverse_norms[rows]
        hashes = self.hashes
        for at in np.argsort(-scores, kind="stable").tolist():
            key = hashes[int(rows[at])]
            if key not in exclude:
                return key, float(scores[at])
        return None

    def allowed(self, where: str, matching: Callable[[str], list[str]]) -> NDArray[np.intp]:
        """Searchable rows passing the SQL filter `where`; `matching` gives the content hashes that
        pass (LanceDB evaluates the filter, so its semantics stay LanceDB's). Cached per filter."""
        cached = self._filtered.get(where)
        if cached is None:
            found = (self.positions.get(h) for h in matching(where))
            rows = np.array(sorted(p for p in found if p is not None), dtype=np.intp)
            cached = rows[self.inverse_norms[rows] > 0]
            if len(self._filtered) >= MAX_FILTERS:
                self._filtered.clear()  # atomic, unlike evicting one while another thread adds
            self._filtered[where] = cached
        return cached

    def records(self, keys: Sequence[str]) -> dict[str, Row]:
        """The chunk and vector of each content hash this snapshot holds."""
        held = [(key, self.positions[key]) for key in keys if key in self.positions]
        built = self._chunks
        chunks = {p: chunk for _, p in held if (chunk := built.get(p)) is not None}
        new = [p for _, p in held if p not in chunks]
        if new:
            # Each value read on its own (`column[p].as_py()`): the same Python values as
            # `rows.take(new).to_pylist()`, for less than half its CPU at ten rows (~60 against ~135 us
            # for six), as a take builds new arrays of every column first. Two threads may build the
            # same row at once: either copy is the same chunk.
            columns = self._columns
            made = {p: chunk_from_record({name: column[p].as_py() for name, column in columns}) for p in new}
            chunks.update(made)
            for p, chunk in made.items():
                built.put(p, chunk)
        return {key: (chunks[p], self.matrix[p]) for key, p in held}


class SnapshotCache:
    """The snapshot of one table's current version, reloaded when the version moves on.

    A reload reads the whole table (30-110 ms at 10k rows on a busy 2-core machine), so it happens
    at most once per `min_reload_s`; in between, a query on a changed table gets None (and asks
    LanceDB), so a busy writer never makes every query pay for a reload, and no query sees stale
    rows. Tables with an ANN index or with `max_rows` rows or more are never loaded.
    """

    def __init__(self, max_rows: int, min_reload_s: float = 1.0) -> None:
        self.max_rows = max_rows
        self.min_reload_s = min_reload_s
        self._state: tuple[int, TableSnapshot | None] | None = None  # (version, snapshot if held)
        self._loaded_at = float("-inf")
        self._lock = threading.Lock()  # one reload at a time; no query waits for one

    def get(
        self, table: Any, version: int, columns: Sequence[str], eligible: Callable[[Any], bool]
    ) -> TableSnapshot | None:
        """The snapshot of `version`, the table's current one, or None to ask LanceDB instead."""
        state = self._state
        if state is not None and state[0] == version:
            return state[1]
        if time.monotonic() - self._loaded_at < self.min_reload_s or not self._lock.acquire(blocking=False):
            return None
        try:
            # `version` was read before the rows: a write in between only makes the next query reload
            snapshot = TableSnapshot.load(table, version, columns) if eligible(table) else None
            self._state = (version, snapshot)
            self._loaded_at = time.monotonic()
            if snapshot is not None:
                release_free_memory()  # the reader's buffers, freed but kept by the C allocator
                release_code_pages_soon()  # and the reader's code, which no answer runs
            return snapshot
        finally:
            self._lock.release()

    def held(self, version: int) -> TableSnapshot | None:
        """The snapshot of `version` if it is the one held (never loads one)."""
        state = self._state
        return state[1] if state is not None and state[0] == version else None

    def current(self) -> TableSnapshot | None:
        """The snapshot held, whatever its version (never loads one)."""
        state = self._state
        return state[1] if state is not None else None

    @property
    def version(self) -> int | None:
        """The table version held in memory, if any (it serves only while it is the current one)."""
        state = self._state
        return state[0] if state is not None and state[1] is not None else None

    def clear(self) -> None:
        with self._lock:  # after a load in flight, which would otherwise store the old table
            self._state = None
            self._loaded_at = float("-inf")


# Rows gathered at a time to score exactly: 64 rows of 384 float32 are 96 kB, under the 128 kB from which
# a server's C heap maps a block on its own (`heap.map_large_blocks`), each time faulted in afresh.
_GATHERED = 64


class _LatestScores:
    """One query's scores over every row of a snapshot, kept for the next look at some of its rows.
    Replaced whole (one attribute: a thread reads either the old pair or the new one)."""

    __slots__ = ("kept",)

    def __init__(self) -> None:
        self.kept: tuple[bytes, NDArray[np.float32]] | None = None

    def of(self, query: NDArray[np.float32], rows: NDArray[np.intp]) -> NDArray[np.float32] | None:
        """The kept scores of `rows` when they are this very query's (equal bytes), else None. The
        same floats as scoring the rows again: `_scores` gives each row what the whole matrix does."""
        kept = self.kept
        if kept is None or kept[0] != query.tobytes():
            return None
        return kept[1][rows]


def _scores(matrix: NDArray[np.float32], rows: NDArray[np.intp], query: NDArray[np.float32]) -> NDArray[Any]:
    """The einsum of `matrix[rows]` by `query` (each row's the same as over the whole matrix), a few
    rows gathered at a time."""
    if len(rows) <= _GATHERED:
        scores: NDArray[Any] = np.einsum("ij,j->i", matrix[rows], query)
        return scores
    out = np.empty(len(rows), dtype=np.result_type(matrix, query))
    for at in range(0, len(rows), _GATHERED):
        out[at : at + _GATHERED] = np.einsum("ij,j->i", matrix[rows[at : at + _GATHERED]], query)
    return out


def _matrix(column: pa.ChunkedArray) -> NDArray[np.float32]:
    """The vectors as one float32 matrix, copied a chunk at a time: combining the chunks first made a
    second whole copy (15 MB at 10k rows of 384 dimensions) that lived beside the matrix."""
    dim = column.type.list_size
    matrix = np.empty((len(column), dim), dtype=np.float32)
    at = 0
    for chunk in column.chunks:
        values = chunk.flatten().to_numpy(zero_copy_only=False)  # the chunk's rows' values, end to end
        matrix[at : at + len(chunk)] = values.reshape(-1, dim)
        at += len(chunk)
    return matrix
