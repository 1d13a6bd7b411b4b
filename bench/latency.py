"""Engine time per answer (offline default) at the corpus's own size and synthesised to ~10k chunks.

    uv run python bench/latency.py CORPUS QUESTIONS.jsonl [--target 10000]

The corpus is ingested as is (~1k chunks for a textbook), then copied into a second collection until it
holds `--target` chunks: each copy's chunks get a variant marker in their text (so content hashes
differ) and their real vectors plus a little noise. Every question of the set is asked once per size, in
a fresh conversation, after one warm-up; process start and the warm-up are excluded. Reports p50/p99 of
`Answer.timings.total_ms` and of each stage. Writes bench/results/latency-<corpus>.json.
"""

from __future__ import annotations

import argparse
import asyncio
from pathlib import Path
from typing import Any

import numpy as np

from common import RESULTS, bench_settings, build, make_embedder, read_jsonl, summary, write_result
from lectern.engine import Engine
from lectern.index import open_index
from lectern.index.base import VectorIndex
from lectern.models import CollectionInfo, content_hash
from lectern.retrieval import Retriever
from lectern.writers import create_writer


def synthesise(source: VectorIndex, target: int, data_dir: Path) -> tuple[VectorIndex, Any]:
    settings = bench_settings(data_dir)
    embedder = make_embedder(settings)
    index = open_index(settings, settings.collection)
    if index.count() >= target:
        return index, embedder
    chunks = [c for doc in source.documents() for c in source.chunks_of(doc.source_path)]
    vectors = embedder.embed_documents([c.search_text for c in chunks])
    index.drop()
    index = open_index(settings, settings.collection)
    index.create(
        CollectionInfo(name=settings.collection, embedder_name=embedder.name, dimension=embedder.dimension)
    )
    rng = np.random.default_rng(0)
    copy = 0
    while index.count() < target:
        variants = []
        for c in chunks:
            text = f"{c.text}\n\n(Copy {copy} of this section.)" if copy else c.text
            variants.append(
                c.model_copy(
                    update={
                        "text": text,
                        "content_hash": content_hash(text),
                        "source_path": f"copy{copy}/{c.source_path}",
                    }
                )
            )
        noisy = vectors + (rng.normal(0, 0.02, vectors.shape).astype(np.float32) if copy else 0)
        noisy /= np.linalg.norm(noisy, axis=1, keepdims=True)
        index.upsert(variants[: target - index.count()], noisy[: target - index.count()])
        copy += 1
    index.optimize()
    return index, embedder


async def measure(engine: Engine, questions: list[str]) -> dict[str, Any]:
    # Warm-up: every question once. The first query opens the table; the synthesised copies' sentence
    # vectors are computed here, as ingest would have stored them for a real collection.
    for q in questions:
        await engine.run(q, engine.new_conversation())
    total, emb, search, gen = [], [], [], []
    for q in questions:
        answer = await engine.run(q, engine.new_conversation())
        t = answer.timings
        total.append(t.total_ms)
        emb.append(t.retrieval.embedding_ms)
        search.append(t.retrieval.search_ms)
        gen.append(t.generation_ms)
    return {
        "chunks": engine.retriever.index.count(),
        "answers": len(questions),
        "total_ms": summary(total),
        "embedding_ms": summary(emb),
        "search_ms": summary(search),
        "generation_ms": summary(gen),
    }


async def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("corpus", type=Path)
    parser.add_argument("questions", type=Path)
    parser.add_argument("--target", type=int, default=10_000)
    args = parser.parse_args()
    questions = [q["question"] for q in read_jsonl(args.questions) if "question" in q]
    engine, settings, _ = build(args.corpus)
    results = [await measure(engine, questions)]
    big, embedder = synthesise(
        engine.retriever.index, args.target, RESULTS / "index" / f"{args.corpus.name}-{args.target}"
    )
    big_engine = Engine(
        Retriever(embedder, big, settings), create_writer(settings, embedder=embedder), settings
    )
    results.append(await measure(big_engine, questions))
    for r in results:
        print(
            f"{r['chunks']:6} chunks, {r['answers']} answers: total p50 {r['total_ms']['p50']:.1f} ms, "
            f"p99 {r['total_ms']['p99']:.1f} ms  (embedding p50 {r['embedding_ms']['p50']:.1f}, "
            f"search p50 {r['search_ms']['p50']:.1f}, writer p50 {r['generation_ms']['p50']:.1f})"
        )
    path = write_result(f"latency-{args.corpus.name}", {"corpus": args.corpus.name, "sizes": results})
    print(f"-> {path}")


if __name__ == "__main__":
    asyncio.run(main())
