"""Shared by the answer benchmarks: build a collection over a corpus folder and an engine on it."""

from __future__ import annotations

import json
import os
import statistics
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import numpy as np

from lectern import word_frequency
from lectern.embeddings.base import Embedder, Vectors, l2_normalise
from lectern.engine import Engine
from lectern.ingest.manifest import Manifest
from lectern.ingest.pipeline import IngestPipeline
from lectern.retrieval import Retriever
from lectern.sentences import SentenceVectors
from lectern.settings import Settings, load_settings
from lectern.writers import create_writer

RESULTS = Path(__file__).parent / "results"
TEXTBOOKS = Path(__file__).resolve().parent.parent.parent / "shared" / "data" / "textbooks"


class _MiniLMShim:
    """Only used while `lectern.embeddings.create_embedder` is not available in the working tree."""

    name = "local:all-MiniLM-L6-v2"
    dimension = 384
    max_tokens = 254

    def __init__(self) -> None:
        from lectern.embeddings import minilm_assets as assets
        from lectern.embeddings.minilm_onnx import OnnxMiniLM

        path = assets.model_dir()
        self._tok = assets.load_tokenizer(path, truncate_to=256)
        self._count = assets.counting_tokenizer()
        self._model = OnnxMiniLM(assets.load_weights(path), assets.load_config(path), threads=2)

    def count_tokens(self, text: str) -> int:
        return len(self._count.encode(text, add_special_tokens=False).ids)

    def count_tokens_many(self, texts: list[str]) -> list[int]:  # type: ignore[override]
        return [self.count_tokens(t) for t in texts]

    def _embed(self, texts: list[str]) -> Vectors:
        out = []
        for start in range(0, len(texts), 32):
            encs = self._tok.encode_batch(texts[start : start + 32])
            width = max(len(e.ids) for e in encs)
            ids = np.zeros((len(encs), width), np.int64)
            mask = np.zeros((len(encs), width), np.int64)
            for i, e in enumerate(encs):
                ids[i, : len(e.ids)] = e.ids
                mask[i, : len(e.ids)] = 1
            out.append(self._model(ids, mask))
        return l2_normalise(np.concatenate(out)) if out else np.zeros((0, 384), np.float32)

    def embed_documents(self, texts: list[str]) -> Vectors:  # type: ignore[override]
        return self._embed(list(texts))

    def embed_query(self, text: str) -> Vectors:
        return self._embed([text])[0]


def make_embedder(settings: Settings) -> Embedder:
    try:
        from lectern.embeddings import create_embedder  # type: ignore[attr-defined]
    except ImportError:
        return _MiniLMShim()  # type: ignore[return-value]
    return create_embedder(settings)  # type: ignore[no-any-return]


def bench_settings(data_dir: Path, **overrides: Any) -> Settings:
    return load_settings(data_dir=data_dir, collection="bench", **overrides)


def build(corpus: Path, data_dir: Path | None = None, **overrides: Any) -> tuple[Engine, Settings, float]:
    """Ingest `corpus` (incrementally, into a cached folder unless given); the engine and ingest seconds."""
    import time

    from lectern.index import open_index

    # A persistent (gitignored) folder per corpus: re-runs re-embed only what changed.
    data_dir = data_dir or RESULTS / "index" / corpus.resolve().name
    settings = bench_settings(data_dir, **overrides)
    embedder = make_embedder(settings)
    index = open_index(settings, settings.collection)
    started = time.perf_counter()
    pipeline = IngestPipeline(
        collection=settings.collection,
        embedder=embedder,
        index=index,
        manifest=Manifest(settings.state_db_path),
        sentences=SentenceVectors.for_data_dir(embedder, settings.data_dir),
    )
    pipeline.ingest_paths([corpus])
    index.optimize()
    # as `lectern ingest` does: answers read word rarity from this table, not wordfreq's list
    word_frequency.prepare(settings.model_cache_dir)
    seconds = time.perf_counter() - started
    pin_keyword_path(index, os.environ.get(KEYWORD_PATH_VARIABLE, ""))
    retriever = Retriever(embedder, index, settings)
    return Engine(retriever, create_writer(settings, embedder=embedder), settings), settings, seconds


# Which keyword search serves the embedded index's unfiltered searches: "lancedb" (its FTS index, always),
# "memory" (the in-memory keyword index, built before the first question), or unset: the product's
# way, LanceDB's until the in-memory index is built in the background (from the second question on).
KEYWORD_PATH_VARIABLE = "BENCH_KEYWORDS"  # not LECTERN_*: lectern refuses settings it does not know


def pin_keyword_path(index: Any, path: str) -> None:
    """Serve `index`'s keyword searches from one path only (see KEYWORD_PATH_VARIABLE)."""
    if not path:
        return
    from lectern.index.lancedb_index import LanceDBIndex
    from lectern.index.lancedb_keywords import KeywordCache

    if path not in ("lancedb", "memory") or not isinstance(index, LanceDBIndex):
        raise SystemExit(f"{KEYWORD_PATH_VARIABLE}={path!r}: lancedb or memory, on the lancedb engine")
    if path == "lancedb":
        index._keywords = KeywordCache(lambda _: None)  # a build that never serves
        return
    table = index._open()
    layout = index._layout(table, table.version)
    snapshot = index._snapshots.get(table, layout.version, layout.columns, index._fits_in_memory)
    built = index._keyword_index(snapshot) if snapshot is not None else None
    if built is None:
        raise SystemExit(f"{KEYWORD_PATH_VARIABLE}=memory: the table's FTS index does not qualify")
    index._keywords._seen = snapshot.version
    index._keywords._held = (snapshot.version, built)


def single_turn_searches(
    books: dict[str, list[dict[str, Any]]],
) -> Iterator[tuple[Engine, Any, dict[str, Any], str, Any]]:
    """The single-turn rows of a bench/answer_quality.py result (its "rows": question set -> rows, the
    set named after its textbook) with their searches run again: (engine, answerability model, row, the
    query the engine searched, the search). Rows whose search finds nothing are left out."""
    from lectern import answerability

    for book, rows in books.items():
        engine = build(TEXTBOOKS / f"textbook-{book.rsplit('-', 1)[1]}")[0]
        model = answerability.load_model(engine.retriever.embedder.name)
        assert model is not None
        for r in rows:
            if len(r["turns"]) != 1:
                continue
            query = r["search_query"] or r["question"]
            result = engine.retriever.retrieve_sync(engine.retriever.params(query, top_k=5))
            if result.hits:
                yield engine, model, r, query, result


def tally_decision(counts: list[int], row: dict[str, Any], p: float, threshold: float) -> None:
    """Add one replayed decision to `counts` (in-scope answered, of them with a relevant file in the
    top 5, unanswerable refused, unanswerable asked)."""
    if row["kind"] == "in_scope":
        counts[0] += p >= threshold
        counts[1] += p >= threshold and bool(row["relevant_top5"])
    else:
        counts[2] += p < threshold
        counts[3] += 1


def read_jsonl(path: Path) -> Iterator[dict[str, Any]]:
    with path.open(encoding="utf-8") as fh:
        for line in fh:
            if line.strip():
                yield json.loads(line)


def percentile(values: list[float], q: float) -> float:
    if not values:
        return 0.0
    return float(np.percentile(np.asarray(values), q))


def summary(values: list[float]) -> dict[str, float]:
    return {
        "p50": percentile(values, 50),
        "p90": percentile(values, 90),
        "p99": percentile(values, 99),
        "mean": statistics.fmean(values) if values else 0.0,
    }


def write_result(name: str, payload: dict[str, Any]) -> Path:
    RESULTS.mkdir(parents=True, exist_ok=True)
    path = RESULTS / f"{name}.json"
    path.write_text(json.dumps(payload, indent=2, ensure_ascii=False), encoding="utf-8")
    return path


def kernel_split(
    session: Any, feeds: list[Any], output: str = "pooled"
) -> tuple[float, list[tuple[str, float]]]:
    """An onnxruntime session opened with `enable_profiling`: each feed run twice, then its profile read
    and removed; the ms of a run and each operator's ms of a run, largest first."""
    import collections

    for feed in feeds * 2:
        session.run([output], feed)
    profile = Path(session.end_profiling())
    by_op: collections.Counter[str] = collections.Counter()
    runs = total = 0
    for event in json.loads(profile.read_text(encoding="utf-8")):
        if event.get("cat") == "Node" and event["name"].endswith("_kernel_time"):
            by_op[event["args"]["op_name"]] += event["dur"]
        elif event.get("cat") == "Session" and event["name"] == "model_run":
            runs, total = runs + 1, total + event["dur"]
    profile.unlink()
    return total / runs / 1000, [(op, us / runs / 1000) for op, us in by_op.most_common()]


def spy_on_writer(seen: dict[str, Any]) -> Callable[[], None]:
    """The extractive writer's unit pick and render, watched: each answer's candidates (`candidates`),
    the units its MMR picked (`mmr`) and those rendered (`chosen`) land in `seen`. Returns the call
    that puts the writer back."""
    import lectern.writers.extractive.writer as ex

    mmr, render = ex._mmr, ex._render

    def ranking(candidates: list[Any], limit: int = ex.MAX_SENTENCES) -> list[Any]:
        out = mmr(candidates, limit)
        seen["candidates"], seen["mmr"] = list(candidates), list(out)
        return out

    def rendering(chosen: list[Any]) -> tuple[str, list[int]]:
        seen["chosen"] = list(chosen)
        return render(chosen)

    def restore() -> None:
        ex._mmr, ex._render = mmr, render  # type: ignore[assignment]

    ex._mmr, ex._render = ranking, rendering  # type: ignore[assignment]
    return restore
