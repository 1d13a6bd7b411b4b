"""Answerable against unanswerable questions over the same paragraphs (SQuAD 2.0-style), for release
measurement: the data set is never used to choose anything.

    uv run python bench/squad_answerability.py ../shared/data/holdout/squad2-dev/beir [--n 300]

Ingests the paragraphs (BEIR layout: corpus.jsonl, answers.jsonl, unanswerable.jsonl), asks `--n`
answerable and `--n` unanswerable questions (every k-th, so the sample spreads over all articles), each in
a fresh conversation, and reports: answerable questions answered, answered citing their paragraph, and
answers containing a gold answer; unanswerable questions refused; the AUROC of the confidence.
Unanswerable SQuAD questions were written against the very paragraph that does not answer them, so this
is the hardest kind of near miss. Writes bench/results/squad-answerability.json.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import time
from pathlib import Path
from typing import Any

from answer_quality import auroc, confidence_score
from common import RESULTS, bench_settings, make_embedder, write_result
from lectern.engine import Engine
from lectern.evaluation.beir import BeirDataset
from lectern.index import open_index
from lectern.ingest.manifest import Manifest
from lectern.ingest.pipeline import IngestPipeline
from lectern.retrieval import Retriever
from lectern.sentences import SentenceVectors
from lectern.writers import create_writer


def sample(path: Path, n: int) -> list[dict[str, Any]]:
    rows = [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line.strip()]
    step = max(1, len(rows) // n)
    return rows[::step][:n]


def build(root: Path) -> Engine:
    data_dir = RESULTS / "index" / f"squad-{root.parent.name}"
    settings = bench_settings(data_dir)
    embedder = make_embedder(settings)
    index = open_index(settings, settings.collection)
    IngestPipeline(
        collection=settings.collection,
        embedder=embedder,
        index=index,
        manifest=Manifest(settings.state_db_path),
        sentences=SentenceVectors.for_data_dir(embedder, data_dir),
    ).ingest_documents(BeirDataset(root, {}, {}).documents(), root="beir:squad")
    index.optimize()
    return Engine(Retriever(embedder, index, settings), create_writer(settings, embedder=embedder), settings)


async def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("root", type=Path)
    parser.add_argument("--n", type=int, default=300)
    args = parser.parse_args()
    engine = build(args.root)
    rows: list[dict[str, Any]] = []
    started = time.perf_counter()
    for kind, path in (("answerable", "answers.jsonl"), ("unanswerable", "unanswerable.jsonl")):
        for q in sample(args.root / path, args.n):
            answer = await engine.run(q["question"], engine.new_conversation())
            answered = answer.confidence.should_answer and answer.grounded
            gold = [a.lower() for a in q.get("answers", [])]
            rows.append(
                {
                    "kind": kind,
                    "question": q["question"],
                    "answered": answered,
                    "cited": answered and q["doc_id"] in {c.source_path for c in answer.citations},
                    "contains_gold": answered and any(g in answer.text.lower() for g in gold),
                    "score": confidence_score(answer),
                    "level": answer.confidence.confidence_level,
                }
            )
    ans = [r for r in rows if r["kind"] == "answerable"]
    una = [r for r in rows if r["kind"] == "unanswerable"]
    report = {
        "answerable": len(ans),
        "unanswerable": len(una),
        "answered": sum(r["answered"] for r in ans) / len(ans),
        "answered_citing_paragraph": sum(r["cited"] for r in ans) / len(ans),
        "answers_containing_gold": sum(r["contains_gold"] for r in ans)
        / max(1, sum(r["answered"] for r in ans)),
        "unanswerable_refused": sum(not r["answered"] for r in una) / len(una),
        "auroc": auroc([r["score"] for r in ans], [r["score"] for r in una]),
        "seconds": time.perf_counter() - started,
    }
    for key, value in report.items():
        print(f"  {key:28} {value:.3f}" if isinstance(value, float) else f"  {key:28} {value}")
    print(f"-> {write_result('squad-answerability', {'report': report, 'rows': rows})}")


if __name__ == "__main__":
    asyncio.run(main())
