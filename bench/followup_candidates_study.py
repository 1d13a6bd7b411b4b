"""Several candidate searches for a rewritten follow-up, and a choice among them by the answerability
decision's probability (study; findings below).

    PYTHONHASHSEED=0 PYTHONPATH=src .venv/bin/python bench/followup_candidates_study.py OUT.json

For every follow-up record of the tuned sets (and the follow-up near misses, followups-nm funm) the
conversation is asked in process as bench/answer_quality.py asks it; on the last turn, when the engine
rewrote it (search query != as asked), the turn is searched again in these ways, each judged the same
way (the rewrite's words, embedding and carried words, as `Engine._decide` judges the rewrite):

- rewrite: today's rewritten query, searched plainly (no previous-file preference);
- concat: the previous question and the new one, one after the other;
- asked: the new question as asked;
- topic: `with_previous_topic` of the question (the second try a self-contained question gets);
- heading: the new question with the heading of the previous answer's first citation in brackets.

Each candidate's decision (probability, level, answer or refuse) and whether an expected file is first,
or in the top 3, is written to OUT.json with the engine's own answer (answered, cited files). Held-back
splits are never read.
"""

from __future__ import annotations

import asyncio
import json
import sys
from dataclasses import replace
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).parent))

from common import build
from lectern import answerability
from lectern.answerability import load_model
from lectern.engine import AskOptions, Engine, _decided
from lectern.events import Done
from lectern.followups import with_previous_topic
from lectern.index.base import SearchFilters

QUESTIONS = Path(__file__).parent / "questions"
DATA = Path("/work/shared/data/textbooks")
TUNED = [("followups-dev", "dev"), ("followups-dev2", "dev2"), ("followups-dev3", "dev3")]
TUNED += [(f"followups-dev{n}", f"dev{n}") for n in range(4, 16)]
TUNED += [("followups-nm", "funm"), ("reader", "tune"), ("train", "tune")]
TUNED += [(f"dev{n}", f"dev{n}") for n in (2, *range(5, 16))]


def records() -> dict[str, list[tuple[str, dict[str, Any]]]]:
    by_book: dict[str, list[tuple[str, dict[str, Any]]]] = {}
    for name, split in TUNED:
        for book in "abcd":
            path = QUESTIONS / f"{name}-textbook-{book}.jsonl"
            if not path.exists():
                continue
            for line in path.read_text().splitlines():
                if not line.strip():
                    continue
                r = json.loads(line)
                if r.get("split", "tune") != split or not r.get("turns") or len(r["turns"]) < 2:
                    continue
                by_book.setdefault(f"textbook-{book}", []).append((f"{name}:{split}", r))
    return by_book


async def study(engine: Engine, name: str, record: dict[str, Any]) -> dict[str, Any] | None:
    captured: dict[str, Any] = {}
    original = Engine._retrieve_then_write

    def spy(self: Engine, turn: Any, conversation: Any) -> Any:
        captured["turn"] = replace(turn)
        captured["history"] = list(conversation.history)
        return original(self, turn, conversation)

    conversation = engine.new_conversation()
    answer = None
    Engine._retrieve_then_write = spy  # type: ignore[method-assign]
    try:
        for question in record["turns"]:
            async for event in engine.stream(question, conversation, AskOptions(top_k=5)):
                if isinstance(event, Done):
                    answer = event.answer
    finally:
        Engine._retrieve_then_write = original  # type: ignore[method-assign]
    assert answer is not None
    turn = captured["turn"]
    expected = set(record.get("expected", []))
    out: dict[str, Any] = {
        "set": name,
        "id": record["id"],
        "kind": record.get("kind", "followup"),
        "dependent": record.get("dependent"),
        "turns": record["turns"],
        "asked": turn.asked,
        "rewrite": turn.search_query,
        "final_query": answer.search_query,
        "answered": answer.confidence.should_answer and answer.grounded,
        "p": answer.confidence.answerability,
        "level": answer.confidence.confidence_level,
        "cited": sorted({c.source_path for c in answer.citations}),
        "cited_relevant": bool(expected & {c.source_path for c in answer.citations})
        and answer.confidence.should_answer,
        "expected": sorted(expected),
    }
    if turn.search_query == turn.asked:
        return out
    model = load_model(engine.retriever.embedder.name)
    assert model is not None
    retriever = engine.retriever
    previous = turn.previous
    heading = ""
    headings: list[str] = []
    top_heading = ""
    for message in reversed(captured["history"]):
        if message.role == "assistant":
            if message.citations:
                hh = message.citations[0].heading_hierarchy
                heading = hh[-1] if hh else message.citations[0].section
                top_heading = " ".join(hh[:1]) if hh else message.citations[0].title
                for c in message.citations[:2]:
                    h = c.heading_hierarchy[-1] if c.heading_hierarchy else c.section
                    if h and h not in headings:
                        headings.append(h)
            break
    queries = {
        "rewrite": turn.search_query,
        "concat": f"{previous[-1]} {turn.asked}",
        "asked": turn.asked,
        "topic": with_previous_topic(turn.asked, previous),
    }
    if heading:
        queries["heading"] = f"{turn.asked.rstrip('?')} ({heading})?"
    if headings:
        queries["headings2"] = f"{turn.asked.rstrip('?')} ({'; '.join(headings)})?"
    if top_heading and top_heading != heading:
        queries["chapter"] = f"{turn.asked.rstrip('?')} ({top_heading}: {heading})?"
    judge = turn.search_query
    carried = answerability.carried_words(judge, turn.asked)
    base = retriever.retrieve_sync(engine._params(turn, judge))
    cands = {}
    for key, query in queries.items():
        result = retriever.retrieve_sync(engine._params(turn, query))
        confidence = retriever.confidence(result)
        judged = result.model_copy(update={"query_embedding": base.query_embedding})
        if not judged.hits:
            cands[key] = {"query": query, "p": 0.0, "answer": False}
            continue
        found = engine._signals(judge, judged, carried)
        decided, reason = _decided(model, confidence, found)
        files = [h.chunk.source_path for h in result.hits[:5]]
        cands[key] = {
            "query": query,
            "p": decided.answerability,
            "level": decided.confidence_level,
            "answer": reason is None,
            "first": files[0] in expected if files else False,
            "top3": bool(expected & set(files[:3])),
            "top5": bool(expected & set(files)),
            "files": files,
        }
    if turn.previous_sources:
        params = engine._params(turn, judge)
        previous_files = SearchFilters(equals={"source_path": sorted(turn.previous_sources)})
        filtered = replace(params, filters=previous_files)
        result = retriever.retrieve_sync(filtered)
        confidence = retriever.confidence(result)
        if result.hits:
            found = engine._signals(judge, result, carried)
            decided, reason = _decided(model, confidence, found)
            files = [h.chunk.source_path for h in result.hits[:5]]
            cands["prevfiles"] = {
                "query": judge,
                "p": decided.answerability,
                "level": decided.confidence_level,
                "answer": reason is None,
                "first": files[0] in expected,
                "top3": bool(expected & set(files[:3])),
                "top5": bool(expected & set(files)),
                "files": files,
            }
    out["candidates"] = cands
    return out


async def main() -> list[dict[str, Any]]:
    rows = []
    for book, recs in records().items():
        engine = build(DATA / book)[0]
        for name, record in recs:
            row = await study(engine, name, record)
            if row is not None:
                rows.append(row)
    return rows


if __name__ == "__main__":
    found = asyncio.run(main())
    Path(sys.argv[1]).write_text(json.dumps(found, indent=1))
    print(len(found), "rows")
