"""Answer quality of the offline default (extractive writer) over a corpus and its question set.

    uv run python bench/answer_quality.py CORPUS QUESTIONS.jsonl

- in-scope: share answered (not refused) with an expected source among the top 5 retrieved chunks,
  and share whose cited sources include an expected one;
- out-of-scope and near-miss: share refused;
- confidence level counts per kind, engine time per answer.
Each question is asked in a fresh conversation. Writes bench/results/answer-quality-<corpus>.json.
"""

from __future__ import annotations

import asyncio
import sys
from collections import Counter
from pathlib import Path
from typing import Any

from common import build, read_jsonl, summary, write_result
from lectern.engine import AskOptions
from lectern.events import Done, Retrieved


async def run(corpus: Path, questions: Path) -> dict[str, Any]:
    engine, _, ingest_s = build(corpus)
    rows = []
    for q in read_jsonl(questions):
        conversation = engine.new_conversation()
        top: list[str] = []
        answer = None
        async for event in engine.stream(q["question"], conversation, AskOptions(top_k=5)):
            if isinstance(event, Retrieved) and not top:
                top = [h.chunk.source_path for h in event.result.hits[:5]]
            elif isinstance(event, Done):
                answer = event.answer
        assert answer is not None, q
        expected = set(q.get("expected", []))
        rows.append(
            {
                "id": q["id"],
                "kind": q["kind"],
                "question": q["question"],
                "answered": answer.grounded,
                "relevant_top5": bool(expected & set(top)),
                "relevant_cited": bool(expected & {c.source_path for c in answer.citations}),
                "level": answer.confidence.confidence_level,
                "average_similarity": round(answer.confidence.average_similarity, 4),
                "ms": answer.timings.total_ms,
                "text": answer.text,
                "sources": [c.source_path for c in answer.citations],
            }
        )
    ins = [r for r in rows if r["kind"] == "in_scope"]
    out = [r for r in rows if r["kind"] == "out_of_scope"]
    near = [r for r in rows if r["kind"] == "near_miss"]

    def share(items: list[dict[str, Any]], key: Any) -> float:
        return sum(1 for r in items if key(r)) / len(items) if items else 0.0

    return {
        "corpus": corpus.name,
        "questions": str(questions),
        "ingest_seconds": ingest_s,
        "in_scope": len(ins),
        "in_scope_answered_relevant_top5": share(ins, lambda r: r["answered"] and r["relevant_top5"]),
        "in_scope_answered_relevant_cited": share(ins, lambda r: r["answered"] and r["relevant_cited"]),
        "in_scope_answered": share(ins, lambda r: r["answered"]),
        "out_of_scope_refused": share(out, lambda r: not r["answered"]),
        "near_miss_refused": share(near, lambda r: not r["answered"]),
        "refused_overall": share(out + near, lambda r: not r["answered"]),
        "levels": {
            k: dict(Counter(r["level"] for r in rows if r["kind"] == k))
            for k in ("in_scope", "out_of_scope", "near_miss")
        },
        "engine_ms": summary([r["ms"] for r in rows]),
        "failures": [r for r in rows if (r["kind"] == "in_scope") != (r["answered"] and r["relevant_top5"])],
        "rows": rows,
    }


def main() -> None:
    corpus, questions = Path(sys.argv[1]), Path(sys.argv[2])
    result = asyncio.run(run(corpus, questions))
    print(f"{result['corpus']}: {result['in_scope']} in-scope questions")
    for key in (
        "in_scope_answered_relevant_top5",
        "in_scope_answered_relevant_cited",
        "out_of_scope_refused",
        "near_miss_refused",
        "refused_overall",
    ):
        print(f"  {key:34} {result[key]:.3f}")
    print(f"  levels {result['levels']}")
    ms = result["engine_ms"]
    print(f"  engine ms p50 {ms['p50']:.1f}  p99 {ms['p99']:.1f}")
    for r in result["failures"]:
        print(f"  FAIL {r['kind']:12} {r['level']:12} {r['question']}")
    path = write_result(f"answer-quality-{result['corpus']}", result)
    print(f"  -> {path}")


if __name__ == "__main__":
    main()
