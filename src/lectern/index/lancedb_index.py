"""The embedded default engine: one LanceDB table per collection under ``settings.index_dir``.

Dense search is exact (cosine) until the table reaches ``ann_min_rows``, and runs on a copy of the table
in memory (:mod:`lectern.index.lancedb_snapshot`); ``optimize()`` then builds an IVF_HNSW_SQ index and
LanceDB searches it. Keyword search is LanceDB's native BM25 index over ``search_text``. Hybrid runs both
sides and fuses them by reciprocal rank in :mod:`lectern.index.fusion`.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable, Iterator, Sequence
from concurrent.futures import Future
from dataclasses import dataclass
from datetime import timedelta
from functools import partial
from itertools import chain
from operator import itemgetter
from pathlib import Path
from typing import Any

import lancedb
import numpy as np
import pyarrow as pa
from lancedb.background_loop import LOOP
from lancedb.index import FTS, IvfHnswSq
from numpy.typing import NDArray

from lectern.embeddings.base import vector_norm
from lectern.errors import VectorIndexError
from lectern.index.base import DocumentSummary, QueryVector, SearchFilters, resolve_vector
from lectern.index.compat import check_compatible, checked_matrix, checked_query
from lectern.index.fusion import best_first, candidate_depth, cut_inside_ties, rrf_fuse, stack
from lectern.index.lancedb_keywords import KeywordCache, KeywordIndex, mimics
from lectern.index.lancedb_rows import RowHashes
from lectern.index.lancedb_schema import (
    SEARCH_TEXT,
    VECTOR,
    chunk_columns,
    info_from_schema,
    record_batches,
    sql_string,
    table_schema,
    where_clause,
)
from lectern.index.lancedb_snapshot import Candidate, Row, SnapshotCache, TableSnapshot
from lectern.index.lancedb_stamp import VersionStamp
from lectern.index.payload import chunk_from_record, engine_errors, ranked_hits, summarise_documents
from lectern.models import Chunk, CollectionInfo, IndexStats, SearchHit, SearchModeName
from lectern.settings import Settings

ENGINE = "lancedb"
FTS_INDEX = f"{SEARCH_TEXT}_idx"
ANN_INDEX = f"{VECTOR}_idx"
# ANN query knobs: recall@10 1.0 on clustered data at 100k (see bench/search_latency.py).
ANN_EF = 100
ANN_REFINE_FACTOR = 5
# optimize() compacts once this many small fragments (one per write) have piled up.
MAX_SMALL_FRAGMENTS = 16
DELETE_BATCH = 1000

_KEY, _KEY_ROW, _KEY_SCORE = itemgetter(0), itemgetter(0, 1), itemgetter(0, 2)  # of a Candidate


class LanceDBIndex:
    """One collection in one LanceDB table. Synchronous; the server calls it from a thread pool."""

    engine = ENGINE

    def __init__(
        self,
        root: Path,
        collection: str,
        *,
        ann_min_rows: int = 50_000,
        rrf_k: int = 60,
        keyword_language: str = "English",
        keyword_stem: bool = True,
        keyword_stop_words: bool = True,
        read_consistency_interval: timedelta = timedelta(0),
        snapshot_reload_s: float = 1.0,
    ) -> None:
        self.name = collection
        self.ann_min_rows = ann_min_rows
        self.rrf_k = rrf_k
        self._fts = FTS(
            language=keyword_language.capitalize(),  # Lance spells languages 'English'
            stem=keyword_stem,
            remove_stop_words=keyword_stop_words,
            lower_case=True,
            ascii_folding=True,
        )
        root.mkdir(parents=True, exist_ok=True)
        with engine_errors(ENGINE, f"opening {root}"):
            # interval 0: every read sees the latest committed version, so a server sees new ingests
            self._db = lancedb.connect(root, read_consistency_interval=read_consistency_interval)
        self._table: Any = None
        self._strongly_consistent = read_consistency_interval == timedelta(0)
        # the version without a trip to LanceDB while the table's files show no commit (lancedb_stamp)
        self._stamp: VersionStamp | None = None
        # below ann_min_rows the table is searched and read in memory (see lancedb_snapshot)
        self._snapshots = SnapshotCache(ann_min_rows, min_reload_s=snapshot_reload_s)
        self._last_layout: _Layout | None = None
        self._row_hashes = RowHashes()
        # keyword search from the snapshot, once its version's posting lists are built (see
        # lancedb_keywords); filtered searches and tables without a snapshot keep LanceDB's index
        self._keywords = KeywordCache(self._keyword_index)

    @classmethod
    def from_settings(cls, settings: Settings, collection: str | None = None) -> LanceDBIndex:
        return cls(
            settings.index_dir / "lancedb",
            collection or settings.collection,
            ann_min_rows=settings.ann_min_rows,
            rrf_k=settings.rrf_k,
            keyword_language=settings.keyword_language,
            keyword_stem=settings.keyword_stem,
            keyword_stop_words=settings.keyword_stop_words,
        )

    # --- table handle --------------------------------------------------------------------------------
    def _open(self) -> Any | None:
        """The table, or None when the collection does not exist."""
        if self._table is None:
            try:
                self._table = self._db.open_table(self.name)
            except (ValueError, FileNotFoundError):
                return None
        return self._table

    def _stamp_of(self, table: Any) -> VersionStamp:
        stamp = self._stamp
        if stamp is None:
            path = getattr(table, "_dataset_path", None)  # LanceTable's own location of the dataset
            stamp = VersionStamp.of(path if isinstance(path, str) else None, self._strongly_consistent)
            self._stamp = stamp
        return stamp

    def _require(self) -> Any:
        table = self._open()
        if table is None:
            raise VectorIndexError(f"{ENGINE}: collection {self.name!r} does not exist; create it first")
        return table

    def _layout(self, table: Any, version: int) -> _Layout:
        """The table's layout at `version`, its current one: a schema read is a round trip through
        LanceDB's event loop thread, and a search needs it twice."""
        layout = self._last_layout
        if layout is None or layout.version != version:
            schema = table.schema  # read after the version: a change in between is seen next time
            layout = _Layout(version, self._info_of(schema), chunk_columns(schema))
            self._last_layout = layout
        return layout

    def _info_of(self, schema: pa.Schema) -> CollectionInfo:
        info = info_from_schema(schema)
        if info is None:
            raise VectorIndexError(
                f"{ENGINE}: table {self.name!r} was not created by Lectern (no collection info)"
            )
        return info

    # --- collection ----------------------------------------------------------------------------------
    def info(self) -> CollectionInfo | None:
        table = self._open()
        if table is None:
            return None
        layout = self._last_layout
        if layout is not None and layout.version == self._vouched_version(table):
            return layout.info  # read with the layout: no trip to LanceDB (a server's first answer)
        return info_from_schema(table.schema)

    def _vouched_version(self, table: Any) -> int | None:
        """The table's version while its files show no commit since LanceDB last gave it (lancedb_stamp),
        else None (ask LanceDB)."""
        stamp = self._stamp_of(table)
        return stamp.version(stamp.look())

    def create(self, info: CollectionInfo) -> None:
        existing = self.info()
        if existing is not None:
            check_compatible(existing, info.embedder_name, info.dimension)
            return
        with engine_errors(ENGINE, f"creating {self.name!r}"):
            stored = info.model_copy(update={"name": self.name})
            self._table = self._db.create_table(self.name, schema=table_schema(stored), exist_ok=True)
            # the keyword index exists from the start; rows written later are searched unindexed
            # until optimize() folds them in
            self._table.create_index(SEARCH_TEXT, config=self._fts, name=FTS_INDEX)
        if (actual := self.info()) is not None:  # another process may have won the race
            check_compatible(actual, info.embedder_name, info.dimension)

    def drop(self) -> None:
        with engine_errors(ENGINE, f"dropping {self.name!r}"):
            if self._open() is not None:
                self._db.drop_table(self.name)
        self._table = None
        # a table created again starts its versions again: nothing cached by version may survive
        self._stamp = None
        self._last_layout = None
        self._snapshots.clear()
        self._row_hashes.clear()
        self._keywords.clear()

    # --- writes --------------------------------------------------------------------------------------
    def upsert(self, chunks: Sequence[Chunk], vectors: NDArray[np.float32]) -> None:
        if not chunks:
            return
        table = self._require()
        info = self._info_of(table.schema)
        matrix = checked_matrix(len(chunks), vectors, info.dimension, self.name)
        # the last of several chunks with one hash wins (merge_insert refuses duplicate keys)
        last = {c.content_hash: i for i, c in enumerate(chunks)}
        keep = sorted(last.values())
        unique = [chunks[i] for i in keep]
        # the write schema, not table.schema: lance reports its JSON column as plain large_binary, and
        # text written as such would not be parsed into JSON
        schema = table_schema(info)
        with engine_errors(ENGINE, f"writing to {self.name!r}"):
            for batch in record_batches(schema, unique, matrix[keep]):
                (
                    table.merge_insert("content_hash")
                    .when_matched_update_all()
                    .when_not_matched_insert_all()
                    .execute(batch)
                )

    def delete_hashes(self, hashes: Sequence[str]) -> None:
        table = self._open()
        if table is None or not hashes:
            return
        with engine_errors(ENGINE, f"deleting from {self.name!r}"):
            for start in range(0, len(hashes), DELETE_BATCH):
                part = hashes[start : start + DELETE_BATCH]
                table.delete(_hash_in(part))

    def optimize(self) -> None:
        """Fold new rows into the keyword (and ANN) index, build the ANN index once the table is big
        enough, compact small fragments. Does nothing when nothing changed. Old versions are kept
        for the default 7 days: removing them at once breaks readers that have the table open."""
        table = self._open()
        if table is None:
            return
        with engine_errors(ENGINE, f"optimizing {self.name!r}"):
            indices = {cfg.name: cfg for cfg in table.list_indices()}
            if self._fts_outdated(indices.get(FTS_INDEX)):
                table.create_index(SEARCH_TEXT, config=self._fts, name=FTS_INDEX, replace=True)
            rows = table.count_rows()
            if ANN_INDEX not in indices and rows >= self.ann_min_rows:
                table.create_index(VECTOR, config=IvfHnswSq(distance_type="cosine"), name=ANN_INDEX)
            stale = any(table.index_stats(name).num_unindexed_rows > 0 for name in indices)
            small = table.stats()["fragment_stats"]["num_small_fragments"]
            if stale or small > MAX_SMALL_FRAGMENTS:
                table.optimize()

    def _fts_outdated(self, index: Any) -> bool:
        if index is None:
            return True
        details = index.index_details or {}
        wanted = {
            "language": self._fts.language,
            "stem": self._fts.stem,
            "remove_stop_words": self._fts.remove_stop_words,
        }
        return any(details.get(key) != value for key, value in wanted.items())

    # --- reads ---------------------------------------------------------------------------------------
    def count(self) -> int:
        table = self._open()
        if table is None:
            return 0
        held = self._held_count(table)
        if held is not None:
            return held
        with engine_errors(ENGINE, f"counting {self.name!r}"):
            return int(table.count_rows())

    def _held_count(self, table: Any) -> int | None:
        """The rows of the snapshot held in memory while the table's files show no commit since its
        version (lancedb_stamp), else None. A server's readiness probe counts at every poll: LanceDB's
        count ran ~15 MB of its library's code, which stayed resident, where no answer runs it."""
        version = self._vouched_version(table)
        snapshot = self._snapshots.held(version) if version is not None else None
        return None if snapshot is None else len(snapshot.hashes)

    def hashes(self) -> set[str]:
        rows = self._scan(["content_hash"])
        return {str(h) for h in rows.column("content_hash").to_pylist()} if rows is not None else set()

    def documents(self) -> list[DocumentSummary]:
        rows = self._scan(["source_path", "title", "url", "chunk_index"])
        return summarise_documents(rows.to_pylist()) if rows is not None else []

    def chunks_of(self, source_path: str) -> list[Chunk]:
        table = self._open()
        if table is None:
            return []
        rows = self._scan(chunk_columns(table.schema), where=f"source_path = {sql_string(source_path)}")
        chunks = [chunk_from_record(r) for r in rows.to_pylist()] if rows is not None else []
        return sorted(chunks, key=lambda c: c.chunk_index)

    def nearest_in_files(
        self, source_paths: Sequence[str], vector: NDArray[np.float32], exclude: Sequence[str]
    ) -> list[SearchHit]:
        """For each of `source_paths`, its chunk nearest `vector` in meaning that is not in `exclude`
        (content hashes), as a hit with its cosine (score 0, rank 1: the caller ranks it). From the
        table held in memory only, and only while it holds every excluded chunk (the version the
        search just read): none otherwise, as this is a cheap extra, never a reason for a read."""
        snapshot = self._snapshots.current()
        if snapshot is None or not all(h in snapshot.positions for h in exclude):
            return []
        query = np.asarray(vector, dtype=np.float32).reshape(-1)
        norm = vector_norm(query)
        if norm == 0.0:
            return []
        query = query / norm
        skip = frozenset(exclude)
        found = [f for path in source_paths if (f := snapshot.nearest_of_source(path, query, skip))]
        rows = snapshot.records([key for key, _ in found])
        return [
            SearchHit(chunk=rows[key][0], similarity=min(1.0, max(0.0, sim)), score=0.0, rank=1)
            for key, sim in found
            if key in rows
        ]

    # --- every collection (lectern.prune) -----------------------------------------------------------
    def collection_names(self) -> list[str]:
        with engine_errors(ENGINE, "listing collections"):
            return _table_names(self._db)

    def every_chunk_text(self) -> Iterator[tuple[str, str, str]] | None:
        columns = ["content_hash", "text", SEARCH_TEXT]
        tables = []
        with engine_errors(ENGINE, "listing collections"):
            for name in self.collection_names():
                table = self._db.open_table(name)
                if not set(columns) <= set(table.schema.names):
                    return None  # not a Lectern table: what it holds is unknown
                tables.append(table)
        return _texts_of(tables, columns)

    def _scan(self, columns: list[str], where: str | None = None) -> pa.Table | None:
        table = self._open()
        if table is None:
            return None
        with engine_errors(ENGINE, f"reading {self.name!r}"):
            query = table.search().select(columns)
            if where:
                query = query.where(where)
            return query.limit(None).to_arrow()

    def stats(self) -> IndexStats:
        table = self._open()
        info = self.info()
        if table is None:
            return IndexStats(engine=ENGINE, collection=self.name, chunks=0, documents=0)
        with engine_errors(ENGINE, f"reading stats of {self.name!r}"):
            indices = {cfg.name for cfg in table.list_indices()}
            unindexed = {name: table.index_stats(name).num_unindexed_rows for name in indices}
            fragments = table.stats()["fragment_stats"]["num_fragments"]
            version = table.version
        return IndexStats(
            engine=ENGINE,
            collection=self.name,
            chunks=self.count(),
            documents=len(self.documents()),
            embedder_name=info.embedder_name if info else "",
            dimension=info.dimension if info else 0,
            has_ann_index=ANN_INDEX in indices,
            has_keyword_index=FTS_INDEX in indices,
            details={
                "unindexed_rows": unindexed,
                "fragments": fragments,
                "version": version,
                "in_memory_version": self._snapshots.version,
                "in_memory_keyword_version": self._keywords.version,
            },
        )

    def prepare(self) -> bool:
        """Read the table into memory, make its dense search's int8 first pass (`dense_prefilter`) and
        build its keyword index now, as a server's first questions would (whether it could). A server
        calls this before it serves: its first answers then search from memory, not through LanceDB,
        whose full-text code and buffers (on SciFact's 10k chunks ~90 MB resident until the keyword
        index was built, ~20 answers later) it no longer needs.
        The same rankings: both paths rank alike (lancedb_keywords)."""
        table = self._open()
        if table is None:
            return False
        with engine_errors(ENGINE, f"reading {self.name!r} into memory"):
            stamp = self._stamp_of(table)
            seen = stamp.look()
            version = table.version
            stamp.remember(seen, version)  # so the readiness probe's count is answered from memory
            layout = self._layout(table, version)
            snapshot = self._snapshots.get(table, layout.version, layout.columns, self._fits_in_memory)
            if snapshot is None:
                return False
            built = self._keywords.build_now(snapshot) is not None
            # the dense search's first pass, made now rather than by a first question; after the keyword
            # index, whose build's peak it would otherwise add to
            _ = snapshot.prefilter
            return built

    # --- search --------------------------------------------------------------------------------------
    def search(
        self,
        *,
        vector: QueryVector | None,
        text: str,
        mode: SearchModeName = "hybrid",
        top_k: int = 5,
        filters: SearchFilters | None = None,
    ) -> list[SearchHit]:
        """Rank on keys only (hash, row id, score), then read the full rows of the top_k: reading
        every column of every candidate costs more than both searches together."""
        table = self._open()
        if table is None:
            return []
        where = where_clause(filters)
        depth = top_k if mode != "hybrid" else candidate_depth(top_k)
        with engine_errors(ENGINE, f"searching {self.name!r}"):
            # The table's version and the keyword side need no vector: they run on LanceDB's loop, in
            # one hand-off, while this thread embeds the query (a callable vector) and searches densely.
            keyed = mode != "dense" and bool(text.strip())
            # a keyword index held in memory answers unfiltered searches if the version is still its
            local = keyed and not where and self._keywords.held() is not None
            stamp = self._stamp_of(table)
            seen = stamp.look()  # before the version is read: a commit after it shows next time
            read = _TableRead(table, text if keyed and not local else "", where, depth, stamp.version(seen))
            resolved = resolve_vector(vector)
            version = read.version()
            stamp.remember(seen, version)
            layout = self._layout(table, version)
            snapshot = self._snapshots.get(table, layout.version, layout.columns, self._fits_in_memory)
            query = checked_query(resolved, mode, layout.info.dimension, self.name)
            dense = (
                self._dense(table, snapshot, query, where, depth)
                if query is not None and mode != "keyword"
                else []
            )
            # a question's search (it brings a vector, even in keyword mode) counts towards building the
            # in-memory keyword index; a bare term lookup (`Retriever.knows`) does not, so a one-shot
            # `lectern ask`, one question and its term checks, never starts a build it would wait for
            question = vector is not None
            keyword = (
                self._keywords_of(table, snapshot, read, text, where, depth, local, question) if keyed else []
            )
            # (key, row id, score) candidates taken apart by `itemgetter` (C), not a Python loop each
            bm25 = dict(map(_KEY_SCORE, keyword))
            if mode == "hybrid":
                ranked = rrf_fuse([list(map(_KEY, dense)), list(bm25)], self.rrf_k)[:top_k]
            else:
                ranked = list(map(_KEY_SCORE, (dense or keyword)[:top_k]))
            row_ids = dict(map(_KEY_ROW, chain(keyword, dense)))  # a key both found: the dense side's
            rows = self._rows(table, layout, snapshot, [(key, row_ids[key]) for key, _ in ranked])
        ranked = [(key, score) for key, score in ranked if key in rows]
        vectors = stack([rows[key][1] for key, _ in ranked])
        return ranked_hits(
            ranked, {key: chunk for key, (chunk, _) in rows.items()}, vectors, query, bm25, mode
        )

    def _dense(
        self,
        table: Any,
        snapshot: TableSnapshot | None,
        query: NDArray[np.float32],
        where: str | None,
        n: int,
    ) -> list[Candidate]:
        """From the snapshot while the table fits in memory; else LanceDB's own search, exact or on
        the ANN index."""
        if snapshot is not None:
            allowed = snapshot.allowed(where, partial(self._matching, table)) if where else None
            return snapshot.top(query, n, allowed)
        ann = self._has_ann(table)
        # One row more than asked for, and while the last ties with the n-th, twice as many: which of
        # the rows tied at the n-th place LanceDB keeps is its own choice (as `_keyword_query`).
        limit = n + 1
        while True:
            # `_distance` is selected so lance does not log a deprecation warning on every query
            builder = (
                table.search(query, vector_column_name=VECTOR)
                .distance_type("cosine")
                .select(["content_hash", "_distance"])
                .with_row_id(True)
            )
            if where:
                builder = builder.where(where, prefilter=True)
            if ann:
                # HNSW needs ef >= the candidates it hands to the refine step
                builder = builder.ef(max(ANN_EF, limit * ANN_REFINE_FACTOR)).refine_factor(ANN_REFINE_FACTOR)
            found = best_first(_candidates(builder.limit(limit).to_arrow(), "_distance", lambda d: 1.0 - d))
            if not cut_inside_ties([score for *_, score in found], n, limit):
                return found[:n]
            limit *= 2

    def _rows(
        self, table: Any, layout: _Layout, snapshot: TableSnapshot | None, wanted: list[tuple[str, int]]
    ) -> dict[str, Row]:
        """The hits' chunks and vectors: from the snapshot, or from the table for those it lacks (a
        keyword hit a write added since) or without one."""
        rows = snapshot.records([key for key, _ in wanted]) if snapshot is not None else {}
        missing = [(key, row_id) for key, row_id in wanted if key not in rows]
        if missing:
            fetched = self._fetch(table, [*layout.columns, VECTOR], missing)
            rows.update({key: (chunk_from_record(r), r[VECTOR]) for key, r in fetched.items()})
        return rows

    def _fetch(
        self, table: Any, columns: list[str], wanted: list[tuple[str, int]]
    ) -> dict[str, dict[str, Any]]:
        """Full rows of the hits, by row id; by hash for any row a concurrent compaction moved since
        the search. A row deleted meanwhile is left out."""
        taken = table.take_row_ids([row_id for _, row_id in wanted]).select(columns).to_arrow()
        rows = {r["content_hash"]: r for r in taken.to_pylist()}
        missing = [key for key, _ in wanted if key not in rows]
        moved = self._scan(columns, where=_hash_in(missing)) if missing else None
        if moved is not None:
            rows.update({r["content_hash"]: r for r in moved.to_pylist()})
        return rows

    def _keywords_of(
        self,
        table: Any,
        snapshot: TableSnapshot | None,
        read: _TableRead,
        text: str,
        where: str | None,
        n: int,
        local: bool,
        question: bool,
    ) -> list[Candidate]:
        """Keyword candidates: from the snapshot's keyword index when it is built for this version and
        the search is unfiltered; else LanceDB's (asked now when `read` did not, the version having
        moved on since the index was built). A `question`'s search counts towards the index's build."""
        if snapshot is not None and not where:
            if question:
                self._keywords.note(snapshot)
            index = self._keywords.held(snapshot.version)
            if index is not None:
                hashes, row_ids = snapshot.hashes, snapshot.row_ids
                top = index.top(text, n, snapshot.tie_order)  # in best_first order already
                # the row ids read at once (`tolist`: the same ints as `int()` of each numpy value)
                ids: list[int] = row_ids[[p for p, _ in top]].tolist() if top else []
                return [(hashes[p], row_id, score) for (p, score), row_id in zip(top, ids, strict=True)]
        found = _collect(_keywords_now(table, text, where, n)) if local else read.keywords()
        return best_first(self._keyed(table, snapshot, found))[:n]

    def _keyword_index(self, snapshot: TableSnapshot) -> KeywordIndex | None:
        """The posting lists of the snapshot's rows, if the table's FTS index ranks exactly them: it
        covers every row of the snapshot's version and no other (no row unindexed or deleted since),
        and analyses text as lancedb_keywords mimics. Runs on a background thread."""
        table = self._open()
        if table is None or table.version != snapshot.version:
            return None
        fts = next((cfg for cfg in table.list_indices() if cfg.name == FTS_INDEX), None)
        if fts is None or not mimics(fts.index_details or {}):
            return None
        stats = table.index_stats(FTS_INDEX)
        if stats is None or stats.num_unindexed_rows or stats.num_indexed_rows != len(snapshot.hashes):
            return None
        found = table.search().select(["content_hash", SEARCH_TEXT]).limit(None).to_arrow()
        size = len(snapshot.hashes)
        if table.version != snapshot.version or found.num_rows != size:
            return None  # written meanwhile: the rows read may not be the snapshot's
        at = [snapshot.positions.get(str(key)) for key in found.column("content_hash").to_pylist()]
        if None in at or len(set(at)) != size:
            return None
        # The texts in snapshot order, still in Arrow, and read as Python strings a slice at a time:
        # all 10k of SciFact's as Python strings beside the Arrow column were ~25 MB of the build's peak.
        texts = found.column(SEARCH_TEXT).take(pa.array(np.argsort(np.array(at, dtype=np.intp))))
        del found
        keywords = KeywordIndex.build(_strings(texts), size)
        # Deleted rows stay in the FTS index's statistics (documents, lengths) until it is rebuilt, and
        # index_stats does not tell: one query on the commonest term must score every row as LanceDB does
        probe = keywords.commonest()
        if probe is None:
            return keywords
        theirs = dict(_collect(_keywords_now(table, probe, None, len(texts))))
        ours = {int(snapshot.row_ids[p]): score for p, score in keywords.top(probe, len(texts))}
        return keywords if ours == theirs else None

    def _keyed(
        self, table: Any, snapshot: TableSnapshot | None, found: list[tuple[int, float]]
    ) -> list[Candidate]:
        """Keyword hits (row id, score) with their content hashes, from the snapshot; the table is read
        only for rows the snapshot lacks (written since, or no snapshot). A row deleted meanwhile is
        left out."""
        if not found:
            return []
        row_ids = [row_id for row_id, _ in found]
        hashes = self._row_hashes.of(snapshot, row_ids) if snapshot is not None else {}
        missing = [row_id for row_id in row_ids if row_id not in hashes]
        if missing:
            taken = table.take_row_ids(missing).select(["content_hash"]).with_row_id().to_arrow()
            hashes.update(
                zip(taken.column("_rowid").to_pylist(), taken.column("content_hash").to_pylist(), strict=True)
            )
        return [(str(hashes[r]), r, score) for r, score in found if r in hashes]

    def _has_ann(self, table: Any) -> bool:
        return any(cfg.name == ANN_INDEX for cfg in table.list_indices())

    def _fits_in_memory(self, table: Any) -> bool:
        return not self._has_ann(table) and table.count_rows() < self.ann_min_rows

    def _matching(self, table: Any, where: str) -> list[str]:
        """Content hashes of the rows passing a filter."""
        rows = table.search().where(where).select(["content_hash"]).limit(None).to_arrow()
        return [str(h) for h in rows.column("content_hash").to_pylist()]


@dataclass(frozen=True)
class _Layout:
    version: int
    info: CollectionInfo
    columns: list[str]  # the chunk's


class _TableRead:
    """What a search reads through LanceDB's event loop, in one hand-off to it: the table's version,
    then the keyword candidates of `text` (none when it is blank). ``table.version`` on its own is a
    round trip of its own (~0.1-0.2 ms of CPU, and a wait behind other queries on a busy server).
    No hand-off at all when the text is blank and the version is `known` (the table unchanged)."""

    def __init__(self, table: Any, text: str, where: str | None, n: int, known: int | None = None) -> None:
        self._known = known if not text.strip() else None
        if self._known is not None:
            return  # nothing to wait for: no futures (two Futures, each with its Condition, ~5 us)
        self._version: Future[int] = Future()
        self._future: Future[pa.Table | None] = asyncio.run_coroutine_threadsafe(
            _version_then_keywords(table, text, where, n, self._version), LOOP.loop
        )

    def version(self) -> int:
        """The table's version when the search began (read before the keyword query runs)."""
        if self._known is not None:
            return self._known
        try:
            return self._version.result()
        except BaseException:  # an interrupted wait stops the query too
            self._future.cancel()
            raise

    def keywords(self) -> list[tuple[int, float]]:
        return [] if self._known is not None else _collect(self._future)


async def _version_then_keywords(
    table: Any, text: str, where: str | None, n: int, version: Future[int]
) -> pa.Table | None:
    try:
        version.set_result(int(await table._table.version()))
    except BaseException as exc:
        version.set_exception(exc)
        raise
    return await _keyword_query(table, text, where, n) if text.strip() else None


async def _keyword_query(table: Any, text: str, where: str | None, n: int) -> pa.Table:
    """BM25 candidates (row id, score), best first: the n best and every row tied with the n-th, for
    the caller to order and cut (`fusion.best_first`). LanceDB orders equal scores by its search
    internals, and picks which of the rows tied at the n-th place it keeps: the query asks for one row
    more, and where that row ties with the n-th, again for twice as many, until the last row scores
    below the n-th (~4% of the bench's questions at depth 40, ~1.2 ms of CPU each time).

    The query is ``table.search(text, query_type="fts")``'s, run on the table's async handle in one
    round trip to LanceDB's event loop. The sync builder takes five (two schema reads, then one per
    result batch and one for the end), each a thread hand-off: ~0.9 ms of CPU per query on 2 cores.
    No column is read: the content hashes come from the snapshot (`LanceDBIndex._keyed`); reading
    them here cost ~1 ms of CPU more per query (1k rows).

    The query is executed by its native handle: the builder's own ``to_arrow()`` first reads the
    table's schema (another trip to LanceDB's runtime, to look for blob columns, which a Lectern table
    never has) and copies the batches into a table twice: ~0.25 ms of CPU per query, same rows."""
    limit = n + 1
    while True:
        query = table._table.query().limit(limit).select(["_score"])
        if where:
            query = query.where(where)  # a prefilter, as the sync builder's where(..., prefilter=True)
        stream = await query.with_row_id().nearest_to_text(text, [SEARCH_TEXT])._inner.execute(None, None)
        found = pa.Table.from_batches([batch async for batch in stream], stream.schema)
        if not cut_inside_ties(found.column("_score").to_pylist(), n, limit):
            return found
        limit *= 2


def _keywords_now(table: Any, text: str, where: str | None, n: int) -> Future[pa.Table | None]:
    return asyncio.run_coroutine_threadsafe(_keyword_query(table, text, where, n), LOOP.loop)


def _collect(future: Future[pa.Table | None]) -> list[tuple[int, float]]:
    try:
        result = future.result()
    except BaseException:  # an interrupted wait (Ctrl-C) stops the query too, as LanceDB's own runner
        future.cancel()
        raise
    if result is None:  # no keyword query (blank text)
        return []
    return list(zip(result.column("_rowid").to_pylist(), result.column("_score").to_pylist(), strict=True))


def _candidates(result: pa.Table, column: str, score: Callable[[float], float]) -> list[Candidate]:
    keys = result.column("content_hash").to_pylist()
    row_ids = result.column("_rowid").to_pylist()
    return [
        (k, r, score(v)) for k, r, v in zip(keys, row_ids, result.column(column).to_pylist(), strict=True)
    ]


def _hash_in(hashes: Sequence[str]) -> str:
    return f"content_hash IN ({', '.join(sql_string(h) for h in hashes)})"


def _strings(column: pa.ChunkedArray, slice_rows: int = 1024) -> Iterator[str]:
    """A string column's values as Python strings, a slice at a time (a null as "")."""
    for start in range(0, len(column), slice_rows):
        for value in column.slice(start, slice_rows).to_pylist():
            yield value or ""


def _texts_of(tables: list[Any], columns: list[str]) -> Iterator[tuple[str, str, str]]:
    """The rows' (content_hash, text, search_text), read in batches: a large collection's texts are
    never all held at once."""
    for table in tables:
        with engine_errors(ENGINE, f"reading {table.name!r}"):
            reader = table.search().select(columns).limit(None).to_batches(batch_size=4096)
            for batch in reader:
                hashes, texts, search = (batch.column(c).to_pylist() for c in columns)
                for row in zip(hashes, texts, search, strict=True):
                    yield str(row[0] or ""), str(row[1] or ""), str(row[2] or "")


def _table_names(db: Any) -> list[str]:
    """Every table's name, page after page (`list_tables` replaced `table_names` in lancedb 0.2x)."""
    if not hasattr(db, "list_tables"):
        return [str(name) for name in db.table_names(limit=1 << 30)]
    names: list[str] = []
    token = None
    while True:
        page = db.list_tables(page_token=token, limit=None)
        names.extend(str(name) for name in page.tables)
        token = getattr(page, "page_token", None)
        if not token or not page.tables:
            return names
