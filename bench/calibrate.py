"""Similarity distributions of in-scope, out-of-scope and near-miss questions, and a threshold sweep.

    uv run python bench/calibrate.py CORPUS QUESTIONS.jsonl [CORPUS QUESTIONS.jsonl ...]

For every question it records the ranked candidates (dense similarity, source file, whether the
question's distinctive terms occur in them), then replays the engine's decision for a grid of
(per-chunk threshold, low, medium) values and reports answer/refusal rates. Writes
bench/results/calibration.json.
"""

from __future__ import annotations

import asyncio
import itertools
import sys
from pathlib import Path
from typing import Any

from common import build, read_jsonl, write_result
from lectern import guardrail
from lectern.confidence import Thresholds, classify
from lectern.models import SearchHit

TOP_K = 5
CANDIDATES = 20


def record(hits: list[SearchHit], question: str, expected: list[str]) -> dict[str, Any]:
    return {
        "question": question,
        "expected": expected,
        "candidates": [
            {
                "similarity": h.similarity,
                "source": h.chunk.source_path,
                "relevant": h.chunk.source_path in expected,
            }
            for h in hits
        ],
    }


def decide(rec: dict[str, Any], chunk_t: float, t: Thresholds, coverage: bool) -> tuple[bool, bool]:
    """(answered, relevant source in the kept top 5) under these settings."""
    kept = [c for c in rec["candidates"] if c["similarity"] >= chunk_t][:TOP_K]
    sims = [c["similarity"] for c in kept]
    avg = sum(sims) / len(sims) if sims else 0.0
    answered = classify(avg, len(sims), t) != "insufficient"
    if answered and coverage:
        answered = rec["covered"]
    return answered, any(c["relevant"] for c in kept)


async def collect(corpus: Path, questions: Path) -> list[dict[str, Any]]:
    engine, _, _ = build(corpus)
    retriever = engine.retriever
    out = []
    for q in read_jsonl(questions):
        result = await retriever.retrieve(retriever.params(q["question"], top_k=CANDIDATES, threshold=0.0))
        rec = record(result.hits, q["question"], q.get("expected", []))
        rec["kind"] = q["kind"]
        rec["book"] = corpus.name
        cover = guardrail.coverage(q["question"], result.hits[:TOP_K], retriever.knows)
        rec["covered"] = cover.covered
        rec["unknown_terms"] = list(cover.unknown)
        out.append(rec)
    return out


def sweep(records: list[dict[str, Any]]) -> list[dict[str, Any]]:
    rows = []
    for chunk_t, low, medium, coverage in itertools.product(
        [0.0, 0.2, 0.25, 0.3, 0.35, 0.4], [0.3, 0.35, 0.4, 0.45, 0.5], [0.45, 0.5, 0.55, 0.6], [False, True]
    ):
        if medium < low:
            continue
        t = Thresholds(high=max(medium, 0.65), medium=medium, low=low)
        stats: dict[str, list[bool]] = {"in_scope": [], "relevant": [], "out_of_scope": [], "near_miss": []}
        for rec in records:
            answered, relevant = decide(rec, chunk_t, t, coverage)
            if rec["kind"] == "in_scope":
                stats["in_scope"].append(answered)
                stats["relevant"].append(answered and relevant)
            else:
                stats[rec["kind"]].append(not answered)
        rate = {k: sum(v) / len(v) if v else 0.0 for k, v in stats.items()}
        rows.append({"chunk_threshold": chunk_t, "low": low, "medium": medium, "coverage": coverage, **rate})
    return rows


def main(argv: list[str]) -> None:
    pairs = list(zip(argv[0::2], argv[1::2], strict=True))
    records: list[dict[str, Any]] = []
    for corpus, questions in pairs:
        records += asyncio.run(collect(Path(corpus), Path(questions)))
    for kind in ("in_scope", "out_of_scope", "near_miss"):
        top1 = sorted(
            r["candidates"][0]["similarity"] if r["candidates"] else 0.0 for r in records if r["kind"] == kind
        )
        avg5 = sorted(
            sum(c["similarity"] for c in r["candidates"][:TOP_K]) / max(1, len(r["candidates"][:TOP_K]))
            for r in records
            if r["kind"] == kind
        )
        q = lambda xs, p: xs[min(len(xs) - 1, int(p * len(xs)))] if xs else 0.0  # noqa: E731
        print(
            f"{kind:13} n={len(top1):3}  "
            f"top1 p5/p50/p95 = {q(top1, 0.05):.3f}/{q(top1, 0.5):.3f}/{q(top1, 0.95):.3f}"
            f"   avg@5 p5/p50/p95 = {q(avg5, 0.05):.3f}/{q(avg5, 0.5):.3f}/{q(avg5, 0.95):.3f}"
        )
    rows = sweep(records)
    rows.sort(key=lambda r: -(min(r["relevant"], r["out_of_scope"], r["near_miss"])))
    print("\nbest settings (min of relevant-answered, out-of-scope refused, near-miss refused):")
    for r in rows[:12]:
        print(
            f"  chunk>={r['chunk_threshold']:.2f} low={r['low']:.2f} medium={r['medium']:.2f} "
            f"coverage={r['coverage']!s:5}  answered={r['in_scope']:.3f} relevant={r['relevant']:.3f} "
            f"out-refused={r['out_of_scope']:.3f} near-refused={r['near_miss']:.3f}"
        )
    write_result("calibration", {"records": records, "sweep": rows})


if __name__ == "__main__":
    main(sys.argv[1:])
