"""Follow-up retrieval hit rate: after the earlier turns of a conversation, does the last (elliptical)
question retrieve an expected source in its top 5?

    uv run python bench/followups.py CORPUS FOLLOWUPS.jsonl

Each line: {"turns": [q1, ..., qn], "expected": [source paths], "expected_text": optional word that
must occur in one of the expected hits (e.g. "install" for the install section)}. Also reports the rate
without rewriting (the bare follow-up searched as asked), to show what the rewrite buys.
Writes bench/results/followups-<corpus>.json.
"""

from __future__ import annotations

import asyncio
import sys
from pathlib import Path
from typing import Any

from common import build, read_jsonl, write_result
from lectern.events import Done, Retrieved
from lectern.models import SearchHit


def hit_ok(hits: list[SearchHit], expected: set[str], text: str | None) -> bool:
    for h in hits[:5]:
        if h.chunk.source_path in expected and (
            text is None or text.lower() in (h.chunk.search_text.lower())
        ):
            return True
    return False


async def run(corpus: Path, followups: Path) -> dict[str, Any]:
    engine, _, _ = build(corpus)
    rows = []
    for case in read_jsonl(followups):
        conversation = engine.new_conversation()
        hits: list[SearchHit] = []
        query = ""
        for turn in case["turns"]:
            hits = []
            async for event in engine.stream(turn, conversation):
                if isinstance(event, Retrieved) and not hits:
                    hits = event.result.hits
                elif isinstance(event, Done):
                    query = event.answer.search_query
        expected = set(case["expected"])
        text = case.get("expected_text")
        bare = await engine.retriever.retrieve(engine.retriever.params(case["turns"][-1], threshold=0.0))
        rows.append(
            {
                "id": case["id"],
                "turns": case["turns"],
                "search_query": query,
                "hit": hit_ok(hits, expected, text),
                "hit_without_rewrite": hit_ok(bare.hits, expected, text),
                "top5": [h.chunk.source_path for h in hits[:5]],
            }
        )
    rate = sum(r["hit"] for r in rows) / len(rows)
    bare_rate = sum(r["hit_without_rewrite"] for r in rows) / len(rows)
    return {
        "corpus": corpus.name,
        "cases": len(rows),
        "hit_rate": rate,
        "hit_rate_without_rewrite": bare_rate,
        "rows": rows,
    }


def main() -> None:
    result = asyncio.run(run(Path(sys.argv[1]), Path(sys.argv[2])))
    print(
        f"{result['corpus']}: {result['cases']} follow-up chains, hit rate {result['hit_rate']:.3f} "
        f"(without rewriting {result['hit_rate_without_rewrite']:.3f})"
    )
    for r in result["rows"]:
        if not r["hit"]:
            print(f"  MISS {' -> '.join(r['turns'])}  searched: {r['search_query']!r}  top5: {r['top5']}")
    print(f"  -> {write_result('followups-' + result['corpus'], result)}")


if __name__ == "__main__":
    main()
