"""Several candidate searches for a rewritten follow-up, and a choice among them by the answerability
decision's probability (study; findings below). What came of it: `Engine._in_previous_section`.

    PYTHONHASHSEED=0 PYTHONPATH=src .venv/bin/python bench/followup_candidates_study.py OUT.json

For every record with two or more turns of the tuned sets (followups-dev dev, dev2, dev3, dev4..dev15
tuned halves, followups-nm funm, reader tune, train tune, devN) the conversation is asked in process as
bench/answer_quality.py asks it; on the last turn, when the engine rewrote it (search query != as
asked), the turn is searched again in these ways, each judged the same way (the rewrite's words,
embedding and carried words, as `Engine._decide` judges the rewrite):

- rewrite: today's rewritten query, searched plainly (no previous-file preference);
- concat: the previous question and the new one, one after the other;
- asked: the new question as asked;
- topic: `with_previous_topic` of the question (for a rewritten turn the same query as the rewrite);
- heading: the question as asked with the innermost heading of the previous answer's first citation;
- headings2: the same with the innermost headings of its first two citations;
- chapter: the question as asked with that citation's outermost and innermost heading (the document's
  title and the section: what the engine now does, `_last_section`);
- bare_section: the rewrite without its bracketed context, with that section;
- prevfiles: the rewrite searched only in the previous answer's files (a filter, not a bonus).

Each candidate's decision (probability, level, answer or refuse) and whether an expected file is first,
in the top 3 or top 5 is written to OUT.json with the engine's own answer. Held-back splits are never
read.

Findings (main f4afbea, 563 conversations, 429 last turns rewritten: 406 follow-ups, 23 near misses).
- Refused today (14 follow-ups, 17 near misses among the rewritten): "chapter" answers 6 follow-ups (4
  with the expected file first or in the top 3: d3b-fu-07, d10b-fu-03, d11b-fu-01, d12d-fu-08; 2 from the
  file the previous answer wrongly cited: d13b-fu-05, d3d-fu-01) and no near miss (highest 0.46, fnmc-09).
  "heading" alone answers 5 (3 right); "headings2" 5; "concat" 4 follow-ups but 2 near misses (d2a-nm-12
  0.51, fnmc-09 0.63); "asked" none; "prevfiles" none (the filter only narrows what the rewrite found);
  "bare_section" after "chapter" one follow-up (d6a-fu-11) and one near miss (fnmc-09): not kept.
- Answered today, choosing "chapter" instead when its probability is higher: from low answers, margins
  0 / 0.1 / 0.2: 0 gained, 3 / 1 / 0 lost; from low or medium ones 2 gained, 18 lost (margin 0), 0 and 7
  (0.1). The decision's probability does not say which search found the right file among answered
  ones: only refusals are searched again.
- The decision on the candidates is the rewrite's (its words, embedding, carried words): the concat or
  heading words would make any passage look answered.
End to end (bench/answer_quality.py, PYTHONHASHSEED=0, base main f4afbea / 382b483 src), with the section
search only for a rewritten follow-up refused on its favouring, plain and bare searches, a low answer
only for a question that names too little (`names_little`, as `_with_previous_topic`):
tuned follow-ups cited 501 -> 505 of 535 (dependent 425 -> 429 of 452), every keyword 409 -> 412;
followups-dev16 dev16 (fresh, written blind after this was built) 29 -> 30 of 32, keywords 16 -> 17; funm
refused 13 of 20 both; reader tune + train tune in-scope cited 269 of 319 both, near misses and
out-of-scope refused 164 of 176 both; devN in-scope (dev2, dev5..dev16) 345 of 496 both. 7 rows change,
all refused before: 5 now cited (d3b-fu-07, d10b-fu-03, d11b-fu-01, d12d-fu-08, d16d-fu-03), 2 answered
from the file the previous answer wrongly cited (d13b-fu-05, d3d-fu-01). bench/answer_quality.py --via
both on followups-dev3, dev10, dev11, dev12, dev16: 0 differences between in process and /v1.
Variants measured and dropped: the answer's search query set to the section query (the writer then
reads it; d12d-fu-08 loses its cited file); the section search for a turn searched as asked, after
`_with_previous_topic` (2 near misses answered: d2b-nm-12, d2c-nm-12; nothing gained).
Cost: one more search and decision (~5-15 ms) only for a rewritten follow-up refused after its other
searches with a cited previous answer: 25 of the 496 follow-up conversations of the tuned follow-up
sets; a single question never.
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
from lectern.conversation import Conversation
from lectern.engine import AskOptions, Engine, _decided, _last_section
from lectern.events import Done
from lectern.followups import with_previous_topic, without_context
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


def _last_section_of(history: list[Any]) -> str:
    conversation = Conversation(system_prompt="")
    conversation.messages = list(history)
    return _last_section(conversation)


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
    section = _last_section_of(captured["history"])
    if section:
        bare = without_context(turn.search_query, turn.asked)
        queries["bare_section"] = f"{bare.rstrip(' ?')} ({section})?"
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
