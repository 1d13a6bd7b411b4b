"""Retrieval evaluation: ingest a BEIR corpus into a collection, run every query in each mode,
and score the document rankings."""

from __future__ import annotations

import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

from lectern.embeddings.base import Embedder
from lectern.evaluation.beir import BeirDataset
from lectern.evaluation.metrics import evaluate_run
from lectern.index.base import VectorIndex
from lectern.ingest.manifest import Manifest
from lectern.ingest.pipeline import IngestOptions, IngestPipeline
from lectern.models import SearchModeName

# Documents are split into chunks; a document's rank is that of its best chunk, so more chunks than
# documents are fetched to fill a top-100 document ranking.
CHUNK_DEPTH = 300


@dataclass
class ModeResult:
    mode: SearchModeName
    metrics: dict[str, float]
    query_seconds_p50: float
    query_seconds_p99: float


@dataclass
class RetrievalEvaluation:
    dataset: str
    split: str
    queries: int
    documents: int
    chunks: int
    ingest_seconds: float
    results: list[ModeResult] = field(default_factory=list)

    def as_dict(self) -> dict[str, Any]:
        return {
            "dataset": self.dataset,
            "split": self.split,
            "queries": self.queries,
            "documents": self.documents,
            "chunks": self.chunks,
            "ingest_seconds": round(self.ingest_seconds, 2),
            "modes": {
                r.mode: {
                    **{k: round(v, 4) for k, v in r.metrics.items()},
                    "query_ms_p50": round(r.query_seconds_p50 * 1000, 2),
                    "query_ms_p99": round(r.query_seconds_p99 * 1000, 2),
                }
                for r in self.results
            },
        }


def rank_documents(source_paths: Sequence[str], depth: int = 100) -> list[str]:
    """Documents in the order of their best chunk."""
    seen: dict[str, None] = {}
    for path in source_paths:
        seen.setdefault(path, None)
        if len(seen) >= depth:
            break
    return list(seen)


def _percentile(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, round(q * (len(ordered) - 1)))] if ordered else 0.0


StageProgress = Callable[[str, int, int], None]
"""(stage, done, total): called as documents are ingested and as queries are searched."""


class _IngestCounter:
    """The pipeline's progress, as documents done out of the corpus size."""

    def __init__(self, report: StageProgress, total: int) -> None:
        self.report, self.total, self.done = report, total, 0

    def start(self, total_files: int) -> None:
        pass

    def file_done(self, source_path: str, status: str) -> None:
        self.done += 1
        self.report("ingesting documents", self.done, self.total)

    def chunks_embedded(self, count: int, seconds: float) -> None:
        pass


def _corpus_size(dataset: BeirDataset) -> int:
    with (dataset.root / "corpus.jsonl").open("rb") as handle:
        return sum(1 for line in handle if line.strip())


def evaluate_retrieval(
    dataset: BeirDataset,
    *,
    name: str,
    split: str,
    embedder: Embedder,
    index: VectorIndex,
    manifest: Manifest,
    collection: str,
    modes: Sequence[SearchModeName],
    options: IngestOptions | None = None,
    progress: StageProgress | None = None,
) -> RetrievalEvaluation:
    report_progress: StageProgress = progress or (lambda stage, done, total: None)
    pipeline = IngestPipeline(
        collection=collection,
        embedder=embedder,
        index=index,
        manifest=manifest,
        progress=_IngestCounter(report_progress, _corpus_size(dataset)) if progress else None,
    )
    started = time.perf_counter()
    report = pipeline.ingest_documents(dataset.documents(), root=f"beir:{name}", options=options)
    evaluation = RetrievalEvaluation(
        dataset=name,
        split=split,
        queries=len(dataset.queries),
        documents=len(report.added) + len(report.changed) + len(report.unchanged),
        chunks=report.chunks_total,
        ingest_seconds=time.perf_counter() - started,
    )
    query_ids = sorted(dataset.queries)
    total = len(query_ids)
    vectors = {}
    for done, qid in enumerate(query_ids, start=1):
        vectors[qid] = embedder.embed_query(dataset.queries[qid])
        report_progress("embedding queries", done, total)
    for mode in modes:
        run: dict[str, list[str]] = {}
        timings: list[float] = []
        for qid in query_ids:
            tick = time.perf_counter()
            hits = index.search(
                vector=vectors[qid] if mode != "keyword" else None,
                text=dataset.queries[qid],
                mode=mode,
                top_k=CHUNK_DEPTH,
            )
            timings.append(time.perf_counter() - tick)
            run[qid] = rank_documents([h.chunk.source_path for h in hits])
            report_progress(f"searching ({mode})", len(run), total)
        evaluation.results.append(
            ModeResult(
                mode=mode,
                metrics=evaluate_run(run, dataset.qrels),
                query_seconds_p50=_percentile(timings, 0.5),
                query_seconds_p99=_percentile(timings, 0.99),
            )
        )
    return evaluation
