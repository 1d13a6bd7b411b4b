"""The PostgreSQL engine: one table per collection, pgvector for the dense side, PostgreSQL full-text
search for the keyword side, fused by reciprocal rank like the other engines.

Dense search is exact until ``optimize()`` finds ``ann_min_rows`` rows and builds an HNSW (cosine) index,
which PostgreSQL then keeps up to date on every write; filtered searches use pgvector's iterative scans
so a selective filter still fills ``top_k``. Keyword candidates match the query's rarer lexemes (as
many as keep the candidates near CANDIDATE_BUDGET rows, by the planner's statistics; all of them in a
small collection) and rank by ``ts_rank`` over all its lexemes, normalised by document length:
PostgreSQL has no BM25, so rare terms weigh no more than common ones in the rank; fusion with the dense
side makes up most of the difference.
Every replica of the service reads the same tables, so an ingest is visible to all of them at commit.
"""

from __future__ import annotations

import time
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import psycopg
from numpy.typing import NDArray
from psycopg import sql
from psycopg.rows import dict_row
from psycopg.types.json import Jsonb
from psycopg_pool import ConnectionPool

from lectern.errors import ConfigError, VectorIndexError
from lectern.index import pgvector_connect
from lectern.index.base import PAYLOAD_KEYS, DocumentSummary, QueryVector, SearchFilters, resolve_vector
from lectern.index.compat import check_compatible, checked_matrix, checked_query
from lectern.index.fusion import best_first, candidate_depth, cut_inside_ties, rrf_fuse
from lectern.index.payload import chunk_from_record, engine_errors, ranked_hits, summarise_documents
from lectern.index.pgvector_sql import (
    CHUNK_COLUMNS,
    COLLECTIONS,
    HNSW_EF_CONSTRUCTION,
    HNSW_M,
    create_table,
    index_name,
    table_name,
    ts_config,
    where_clause,
)
from lectern.models import Chunk, CollectionInfo, IndexStats, SearchHit, SearchModeName
from lectern.settings import Settings

ENGINE = "pgvector"
WRITE_BATCH = 500
# HNSW graphs build far faster when they fit in memory; the build runs once per collection.
BUILD_MEMORY = "512MB"
# The keyword side ranks about this many candidate rows at most: lexemes select candidates from the
# rarest up while their estimated matches fit (a single lexeme always does).
CANDIDATE_BUDGET = 1000
MAX_EF_SEARCH = 1000  # pgvector's bound on hnsw.ef_search (iterative scans go on past it)
STATS_TTL_S = 60.0  # how long the lexeme statistics (from pg_stats) are kept

Conn = psycopg.Connection[tuple[object, ...]]


class PgVectorIndex:
    """One collection in one PostgreSQL table. Synchronous; the server calls it from a thread pool."""

    engine = ENGINE

    def __init__(
        self,
        url: str,
        collection: str,
        *,
        schema: str = "public",
        pool_size: int = 8,
        timeout_s: float = 30.0,
        ann_min_rows: int = 50_000,
        ef_search: int = 100,
        rrf_k: int = 60,
        keyword_language: str = "English",
        keyword_stem: bool = True,
    ) -> None:
        self.name = collection
        self.url = url
        self.schema = schema
        self.ann_min_rows = ann_min_rows
        self.ef_search = ef_search
        self.rrf_k = rrf_k
        self._config = ts_config(keyword_language, keyword_stem)
        self._table_name = table_name(collection)
        self._table = sql.Identifier(schema, self._table_name)
        self._collections = sql.Identifier(schema, COLLECTIONS)
        self._ann = index_name(self._table_name, "hnsw")
        self._fts = index_name(self._table_name, "tsv")
        self._pool_size, self._timeout_s = pool_size, timeout_s
        self._pool: ConnectionPool[Conn] | None = None
        self._stats: tuple[float, LexemeStats] | None = None
        self._open_pool()

    def _open_pool(self) -> ConnectionPool[Conn]:
        if self._pool is None:
            self._pool = pgvector_connect.acquire(self.url, size=self._pool_size, timeout_s=self._timeout_s)
        return self._pool

    @classmethod
    def from_settings(cls, settings: Settings, collection: str | None = None) -> PgVectorIndex:
        url = settings.effective_pgvector_url
        if not url:
            raise ConfigError(
                "LECTERN_INDEX_ENGINE=pgvector needs LECTERN_PGVECTOR_URL (or a PostgreSQL "
                "LECTERN_DATABASE_URL) pointing at a PostgreSQL with the pgvector extension"
            )
        return cls(
            url,
            collection or settings.collection,
            schema=settings.pgvector_schema,
            pool_size=settings.pgvector_pool_size,
            timeout_s=settings.provider_timeout_s,
            ann_min_rows=settings.ann_min_rows,
            ef_search=settings.pgvector_ef_search,
            rrf_k=settings.rrf_k,
            keyword_language=settings.keyword_language,
            keyword_stem=settings.keyword_stem,
        )

    def close(self) -> None:
        """Give the connections back (the last index on a URL closes its pool); a later call reopens."""
        if self._pool is not None:
            self._pool = None
            pgvector_connect.release(self.url)

    @contextmanager
    def _connect(self, action: str) -> Iterator[psycopg.Cursor[dict[str, Any]]]:
        """A cursor in one transaction (committed on success), any failure named after the action."""
        with (
            engine_errors(ENGINE, action),
            self._open_pool().connection() as conn,
            conn.transaction(),
            conn.cursor(row_factory=dict_row) as cur,
        ):
            yield cur

    def _meta(self, cur: psycopg.Cursor[dict[str, Any]]) -> dict[str, Any] | None:
        """The collection's row (embedder, dimension, text search config), or None when missing."""
        cur.execute("SELECT to_regclass(%s) AS t", (f'"{self.schema}".{COLLECTIONS}',))
        found = cur.fetchone()
        if found is None or found["t"] is None:
            return None
        cur.execute(
            sql.SQL("SELECT embedder_name, dimension, ts_config FROM {} WHERE name = %s").format(
                self._collections
            ),
            (self.name,),
        )
        return cur.fetchone()

    # --- collection ----------------------------------------------------------------------------------
    def info(self) -> CollectionInfo | None:
        with self._connect(f"reading collection {self.name!r}") as cur:
            meta = self._meta(cur)
        return _info(self.name, meta)

    def create(self, info: CollectionInfo) -> None:
        with self._connect(f"creating {self.name!r}") as cur:
            # one creator at a time across processes; the loser finds the winner's collection
            cur.execute("SELECT pg_advisory_xact_lock(hashtext(%s))", (f"lectern:{self.schema}",))
            cur.execute(sql.SQL("CREATE SCHEMA IF NOT EXISTS {}").format(sql.Identifier(self.schema)))
            cur.execute(
                sql.SQL(
                    "CREATE TABLE IF NOT EXISTS {} (name text PRIMARY KEY, table_name text NOT NULL,"
                    " embedder_name text NOT NULL, dimension integer NOT NULL, ts_config text NOT NULL,"
                    " created_at timestamptz NOT NULL DEFAULT now())"
                ).format(self._collections)
            )
            existing = _info(self.name, self._meta(cur))
            if existing is not None:
                check_compatible(existing, info.embedder_name, info.dimension)
                return
            cur.execute(create_table(self._table, info.dimension, self._config))
            cur.execute(
                sql.SQL("CREATE INDEX {} ON {} USING gin (tsv)").format(
                    sql.Identifier(self._fts), self._table
                )
            )
            cur.execute(
                sql.SQL("CREATE INDEX {} ON {} (source_path, chunk_index)").format(
                    sql.Identifier(index_name(self._table_name, "source")), self._table
                )
            )
            cur.execute(
                sql.SQL(
                    "INSERT INTO {} (name, table_name, embedder_name, dimension, ts_config)"
                    " VALUES (%s, %s, %s, %s, %s)"
                ).format(self._collections),
                (self.name, self._table_name, info.embedder_name, info.dimension, self._config),
            )

    def drop(self) -> None:
        with self._connect(f"dropping {self.name!r}") as cur:
            if self._meta(cur) is None:
                return
            cur.execute(sql.SQL("DROP TABLE IF EXISTS {}").format(self._table))
            cur.execute(sql.SQL("DELETE FROM {} WHERE name = %s").format(self._collections), (self.name,))

    # --- writes --------------------------------------------------------------------------------------
    def upsert(self, chunks: Sequence[Chunk], vectors: NDArray[np.float32]) -> None:
        if not chunks:
            return
        columns = [*PAYLOAD_KEYS, "text", "search_text", "heading_hierarchy", "extra", "embedding"]
        statement = sql.SQL(
            "INSERT INTO {table} ({columns}) VALUES ({values}) ON CONFLICT (content_hash) DO UPDATE SET {set}"
        ).format(
            table=self._table,
            columns=sql.SQL(", ").join(map(sql.Identifier, columns)),
            values=sql.SQL(", ").join(sql.Placeholder() * len(columns)),
            set=sql.SQL(", ").join(
                sql.SQL("{0} = EXCLUDED.{0}").format(sql.Identifier(c)) for c in columns[1:]
            ),
        )
        # the last of several chunks with one hash wins (one statement may not update a row twice)
        last = {c.content_hash: i for i, c in enumerate(chunks)}
        with self._connect(f"writing to {self.name!r}") as cur:
            meta = self._require(cur)
            matrix = checked_matrix(len(chunks), vectors, int(meta["dimension"]), self.name)
            rows = [_row(chunks[i], matrix[i]) for i in sorted(last.values())]
            for start in range(0, len(rows), WRITE_BATCH):
                cur.executemany(statement, rows[start : start + WRITE_BATCH])

    def delete_hashes(self, hashes: Sequence[str]) -> None:
        if not hashes:
            return
        with self._connect(f"deleting from {self.name!r}") as cur:
            if self._meta(cur) is None:
                return
            cur.execute(
                sql.SQL("DELETE FROM {} WHERE content_hash = ANY(%s)").format(self._table), (list(hashes),)
            )

    def optimize(self) -> None:
        """Build the HNSW index once the collection is big enough (PostgreSQL maintains it on every
        write after that) and refresh the planner's statistics. Cheap when there is nothing to do."""
        with self._connect(f"optimizing {self.name!r}") as cur:
            if self._meta(cur) is None:
                return
            if not self._has_index(cur, self._ann) and self._count(cur) >= self.ann_min_rows:
                cur.execute(sql.SQL("SET LOCAL maintenance_work_mem = {}").format(sql.Literal(BUILD_MEMORY)))
                cur.execute(
                    sql.SQL(
                        "CREATE INDEX IF NOT EXISTS {} ON {} USING hnsw (embedding vector_cosine_ops)"
                        " WITH (m = {}, ef_construction = {})"
                    ).format(
                        sql.Identifier(self._ann),
                        self._table,
                        sql.Literal(HNSW_M),
                        sql.Literal(HNSW_EF_CONSTRUCTION),
                    )
                )
            cur.execute(sql.SQL("ANALYZE {}").format(self._table))
        self._stats = None  # new statistics: read them again

    # --- reads ---------------------------------------------------------------------------------------
    def _require(self, cur: psycopg.Cursor[dict[str, Any]]) -> dict[str, Any]:
        meta = self._meta(cur)
        if meta is None:
            raise VectorIndexError(f"{ENGINE}: collection {self.name!r} does not exist; create it first")
        return meta

    def _has_index(self, cur: psycopg.Cursor[dict[str, Any]], name: str) -> bool:
        cur.execute("SELECT to_regclass(%s) AS i", (f'"{self.schema}"."{name}"',))
        row = cur.fetchone()
        return row is not None and row["i"] is not None

    def _count(self, cur: psycopg.Cursor[dict[str, Any]]) -> int:
        cur.execute(sql.SQL("SELECT count(*) AS n FROM {}").format(self._table))
        row = cur.fetchone()
        return int(row["n"]) if row else 0

    def count(self) -> int:
        with self._connect(f"counting {self.name!r}") as cur:
            return 0 if self._meta(cur) is None else self._count(cur)

    def hashes(self) -> set[str]:
        with self._connect(f"reading {self.name!r}") as cur:
            if self._meta(cur) is None:
                return set()
            cur.execute(sql.SQL("SELECT content_hash FROM {}").format(self._table))
            return {str(r["content_hash"]) for r in cur.fetchall()}

    def documents(self) -> list[DocumentSummary]:
        with self._connect(f"reading {self.name!r}") as cur:
            if self._meta(cur) is None:
                return []
            cur.execute(sql.SQL("SELECT source_path, title, url, chunk_index FROM {}").format(self._table))
            return summarise_documents(cur.fetchall())

    def chunks_of(self, source_path: str) -> list[Chunk]:
        with self._connect(f"reading {self.name!r}") as cur:
            if self._meta(cur) is None:
                return []
            cur.execute(
                sql.SQL("SELECT {} FROM {} WHERE source_path = %s ORDER BY chunk_index").format(
                    _columns(CHUNK_COLUMNS), self._table
                ),
                (source_path,),
            )
            return [chunk_from_record(r) for r in cur.fetchall()]

    def stats(self) -> IndexStats:
        with self._connect(f"reading stats of {self.name!r}") as cur:
            meta = self._meta(cur)
            if meta is None:
                return IndexStats(engine=ENGINE, collection=self.name, chunks=0, documents=0)
            chunks = self._count(cur)
            cur.execute(sql.SQL("SELECT count(DISTINCT source_path) AS n FROM {}").format(self._table))
            row = cur.fetchone()
            documents = int(row["n"]) if row else 0
            cur.execute(
                "SELECT pg_total_relation_size(%s::regclass) AS b", (f'"{self.schema}"."{self._table_name}"',)
            )
            size = cur.fetchone()
            has_ann, has_fts = self._has_index(cur, self._ann), self._has_index(cur, self._fts)
        return IndexStats(
            engine=ENGINE,
            collection=self.name,
            chunks=chunks,
            documents=documents,
            embedder_name=str(meta["embedder_name"]),
            dimension=int(meta["dimension"]),
            has_ann_index=has_ann,
            has_keyword_index=has_fts,
            details={
                "table": f"{self.schema}.{self._table_name}",
                "bytes": int(size["b"]) if size else 0,
                "text_search_config": meta["ts_config"],
            },
        )

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
        where, params = where_clause(filters)
        depth = top_k if mode != "hybrid" else candidate_depth(top_k)
        with self._connect(f"searching {self.name!r}") as cur:
            meta = self._meta(cur)
            if meta is None:
                return []
            query = checked_query(resolve_vector(vector), mode, int(meta["dimension"]), self.name)
            dense = (
                self._dense(cur, query, where, params, depth)
                if query is not None and mode != "keyword"
                else []
            )
            keyword = (
                self._keyword(cur, str(meta["ts_config"]), text, where, params, depth)
                if mode != "dense"
                else []
            )
            if mode == "hybrid":
                rankings = [[key for key, _ in side] for side in (dense, keyword)]
                ranked = rrf_fuse(rankings, self.rrf_k)[:top_k]
            else:
                ranked = (dense or keyword)[:top_k]
            rows = self._rows(cur, [key for key, _ in ranked])
        bm25 = dict(keyword)
        ranked = [(key, score) for key, score in ranked if key in rows]  # deleted since: left out
        vectors = _matrix([rows[key]["embedding"] for key, _ in ranked])
        chunks = {key: chunk_from_record(rows[key]) for key, _ in ranked}
        return ranked_hits(ranked, chunks, vectors, query, bm25, mode)

    def _dense(
        self,
        cur: psycopg.Cursor[dict[str, Any]],
        query: NDArray[np.float32],
        where: sql.Composable,
        params: list[Any],
        n: int,
    ) -> list[tuple[str, float]]:
        """The n nearest (content hash, cosine similarity), in `best_first` order. The SQL orders by
        distance alone, as the HNSW index serves it (a second sort key would make PostgreSQL sort every
        matching row instead), so which of the rows tied at the n-th place it returns is its own
        choice: it is asked for one row more, and while that row ties with the n-th, for twice as
        many, as LanceDB's dense search (`fusion.cut_inside_ties`); Python orders the ties."""
        # an HNSW scan returns ef_search candidates before filtering; iterative scans go on until
        # `limit` pass the filter (pgvector >= 0.8)
        cur.execute("SET LOCAL hnsw.iterative_scan = strict_order")
        limit = n + 1
        while True:
            ef_search = min(max(self.ef_search, limit), MAX_EF_SEARCH)
            cur.execute(sql.SQL("SET LOCAL hnsw.ef_search = {}").format(sql.Literal(ef_search)))
            cur.execute(self._dense_sql(where), [query, *params, limit])
            found = best_first([(str(r["content_hash"]), 1.0 - float(r["distance"])) for r in cur.fetchall()])
            if not cut_inside_ties([score for _, score in found], n, limit):
                return found[:n]
            limit *= 2

    def _dense_sql(self, where: sql.Composable) -> sql.Composed:
        """The dense query (parameters: the query vector, the filter's, the limit), ordered by the
        distance only: the order the HNSW index serves."""
        return sql.SQL(
            "SELECT content_hash, embedding <=> %s AS distance FROM {} WHERE {} ORDER BY distance LIMIT %s"
        ).format(self._table, where)

    def _keyword(
        self,
        cur: psycopg.Cursor[dict[str, Any]],
        config: str,
        text: str,
        where: sql.Composable,
        params: list[Any],
        n: int,
    ) -> list[tuple[str, float]]:
        if not text.strip():
            return []
        cur.execute(
            "SELECT DISTINCT lexeme FROM unnest(to_tsvector(%s::regconfig, %s)) ORDER BY lexeme",
            (config, text),
        )
        lexemes = [str(r["lexeme"]) for r in cur.fetchall()]
        if not lexemes:
            return []
        # ts_rank reads and scores every candidate: with every lexeme OR-ed, one common word ("cell" in
        # a biology corpus) makes half the table a candidate. Candidates come from the rarer lexemes
        # (about CANDIDATE_BUDGET rows, by the planner's statistics); every lexeme counts in the rank.
        # A small collection fits the budget whole: all lexemes select, as plain OR matching would.
        rare = self._lexeme_stats(cur).select(lexemes, CANDIDATE_BUDGET)
        # `best_first`'s order, whole in SQL (the sort is over the candidates anyway): equal scores by
        # content hash compared byte by byte (the "C" collation) as Python compares them; the database's
        # own collation may not (en_US puts "b1" before "B2").
        cur.execute(
            sql.SQL(
                "WITH q AS (SELECT"
                " array_to_string(ARRAY(SELECT quote_literal(x) FROM unnest(%s::text[]) x), ' | ')::tsquery"
                " AS pick,"
                " array_to_string(ARRAY(SELECT quote_literal(x) FROM unnest(%s::text[]) x), ' | ')::tsquery"
                " AS rank)"
                " SELECT content_hash, ts_rank(tsv, q.rank, 1) AS score FROM {}, q WHERE tsv @@ q.pick"
                ' AND {} ORDER BY score DESC, content_hash COLLATE "C" LIMIT %s'
            ).format(self._table, where),
            [rare, lexemes, *params, n],
        )
        return [(str(r["content_hash"]), float(r["score"])) for r in cur.fetchall()]

    def _lexeme_stats(self, cur: psycopg.Cursor[dict[str, Any]]) -> LexemeStats:
        """How often lexemes occur, from the planner's statistics (ANALYZE, which ``optimize`` and
        autovacuum run); read again every STATS_TTL_S."""
        now = time.monotonic()
        if self._stats is not None and now - self._stats[0] < STATS_TTL_S:
            return self._stats[1]
        cur.execute(
            "SELECT s.most_common_elems::text::text[] AS elems, s.most_common_elem_freqs AS freqs,"
            " c.reltuples AS rows FROM pg_stats s JOIN pg_class c ON c.oid = to_regclass(%s)"
            " WHERE s.schemaname = %s AND s.tablename = %s AND s.attname = 'tsv'",
            (f'"{self.schema}"."{self._table_name}"', self.schema, self._table_name),
        )
        row = cur.fetchone()
        stats = LexemeStats()
        if row is not None and row["elems"] is not None and row["freqs"] is not None:
            elems, freqs = list(row["elems"]), list(row["freqs"])
            # the frequencies end with three summary numbers: the least and most frequent, null share
            stats = LexemeStats(
                {str(e): float(f) for e, f in zip(elems, freqs[: len(elems)], strict=True)},
                float(freqs[len(elems)]) if len(freqs) > len(elems) else 0.0,
                max(float(row["rows"] or 0), 0.0),
            )
        self._stats = (now, stats)
        return stats

    def _rows(self, cur: psycopg.Cursor[dict[str, Any]], keys: list[str]) -> dict[str, dict[str, Any]]:
        if not keys:
            return {}
        cur.execute(
            sql.SQL("SELECT {}, embedding FROM {} WHERE content_hash = ANY(%s)").format(
                _columns(CHUNK_COLUMNS), self._table
            ),
            (keys,),
        )
        return {str(r["content_hash"]): r for r in cur.fetchall()}


@dataclass(frozen=True)
class LexemeStats:
    """Share of the rows holding each tracked lexeme; an untracked one is at most ``floor``."""

    shares: dict[str, float] = field(default_factory=dict)
    floor: float = 0.0
    rows: float = 0.0

    def select(self, lexemes: list[str], budget: int) -> list[str]:
        """The lexemes whose matches, rarest first, add up to about ``budget`` rows (at least one)."""
        if not self.rows:
            return lexemes  # no statistics yet (never analysed): every lexeme selects
        expected = sorted((self.shares.get(lex, self.floor) * self.rows, lex) for lex in lexemes)
        chosen: list[str] = []
        total = 0.0
        for rows, lex in expected:
            if chosen and total + rows > budget:
                break
            chosen.append(lex)
            total += rows
        return chosen


def _info(name: str, meta: dict[str, Any] | None) -> CollectionInfo | None:
    if meta is None:
        return None
    return CollectionInfo(
        name=name, embedder_name=str(meta["embedder_name"]), dimension=int(meta["dimension"])
    )


def _matrix(values: list[Any]) -> NDArray[np.float32]:
    """Stored vectors as float32 rows: pgvector's adapter gives arrays in text format, Vector in binary."""
    if not values:
        return np.zeros((0, 0), dtype=np.float32)
    return np.asarray([getattr(v, "to_numpy", lambda v=v: v)() for v in values], dtype=np.float32)


def _columns(names: Sequence[str]) -> sql.Composed:
    return sql.SQL(", ").join(map(sql.Identifier, names))


def _row(chunk: Chunk, vector: NDArray[np.float32]) -> list[Any]:
    return [
        *(getattr(chunk, key) for key in PAYLOAD_KEYS),
        chunk.text,
        chunk.search_text,
        Jsonb(list(chunk.heading_hierarchy)),
        Jsonb(dict(chunk.extra)),
        np.asarray(vector, dtype=np.float32),
    ]
