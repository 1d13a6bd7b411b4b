"""Census of the follow-ups missed on the tuning sets: why each one that is not answered with a relevant
file cited, or answered without every keyword, went wrong.

    .venv/bin/python bench/followup_census.py TAG [--signals] [--json OUT]

Reads bench/results/TAG-SET.json for the tuning sets below (made by bench/answer_quality.py with
`--out TAG-SET`; the follow-up rows only) and sorts each miss into one class:

- a (misread): the search query is not what the reader meant (`READINGS` gives the meant reading,
  written by hand after reading the conversation);
- b (refused): the reading is right, but the answerability decision refused it (b* where the expected
  file is not even in the first search's top 5, so the retrieval fails first);
- c (retrieval): the reading is right and it is answered, but from another file;
- d (keyword): the relevant file is cited, but the answer lacks an expected keyword.

With --signals each refused row is asked again (its whole conversation, in process) and the decision's
signals on its last turn are printed: the question words no passage contains, the share covered, and
whether the previous turn was answered and from which files. The sets are those tuned on only
(followups-dev dev, followups-dev2/dev3 all, followups-dev4..dev9 tuned halves, followups-textbook-a/b,
the follow-ups of reader tune and train); never the held-back halves.

Census of main ee915a4 (tag base), 419 tuning follow-ups, 397 cited: a 5, b 5, b* 3, c 9, d 56.
- a: "what props does it take?" (the card, not the author; "props" no word of the collection),
  "how much counts for the write-up?" (read alone; the book's word is "documentation"), "does the new
  one run on a Mac?" (the book says "macOS": refused however it is read), "what is the programmer on
  the hook for?" (read alone; the meant reading, asked alone, is answered and cited at 0.71), "how do
  newer systems differ from the classic pipeline?" (a comparative without "than"; meant: 0.68, cited).
- b: three after a refused report or question, refused for the previous turn's words carried in
  brackets that no passage has ("inventing", "patching", "spends": 0.39, 0.38, 0.42, each cited once
  those words no longer count); two stand-alone switches (0.15, 0.32). b*: the reader's word is not the
  book's ("switch over", "split-into-stages", "shop").
- c: five keep to the previous answer's file (da-fu-02, d5d-fu-07, d8a-fu-03, rd-fu-05, d9a-fu-07 next
  to it), one overview file (d3d-fu-04), one chapter for the index's table (d9c-fu-01), two after a
  refused report or a switch (d3c-fu-07, d3c-fu-12). d: the writer picks other sentences of the file.
After the bracketed words that no passage has stop counting, the comparative rule and the discourse
words (tag f1): 401 cited; a 4, b 2, b* 3, c 9, d 60 (the three newly cited lack their keyword,
dd-fu-07 lost its keyword).
With fudev10 (dev10 tuned half) added, base 5fc200f: 443 follow-ups, 420 cited; a 4, b 4, b* 3, c 12,
d 63. After only a previous file's best two passages move up (`lectern.engine.PREVIOUS_SOURCE_PASSAGES`,
tag fix): 425 cited; a 4, b 4, b* 2, c 8, d 66 (d5d-fu-07, d8a-fu-03, d9c-fu-01, d10b-fu-09 and the
refused d9d-fu-07 now cited). Left in c: da-fu-02 (the sensors chapter 3rd before the bonus, 6th after
it: both previous files keep two passages above it), d9a-fu-07 (the right file 2nd, the writer quotes
the planning chapter), rd-fu-05 and d3d-fu-04 (the right file 11th and 8th even before the bonus),
d10a-fu-03, d10a-fu-11, d3c-fu-07, d3c-fu-12 (after a refusal or a switch: no previous files).

Class d and the bracketed context (Nov 2026, base d3bc043; fu dev, dev2, dev3, dev4-dev10 tuned halves,
300 follow-ups, 283 cited, 232 with every keyword). The extractive writer's words already leave the
brackets out (`without_context`: lexical score, IDF, heading and chunk overlap, how-to test), unless the
follow-up alone has under two topical words ("which one is cheaper (...)?"); only the sentence vector is
the bracketed search query's. writer_census.py on recordings of these sets: 52 answered rows cite a
relevant file and miss a keyword; 37 have it outside the top 5 (22 in no passage, 15 in the reserve
only). The units that hold it (top 5 or reserve) are code blocks not quoted (11), list items or table
rows under the floor or out of room (12), 3 sentences, mostly sharing no word of the follow-up's own
either ("Latency" for "its downsides?"): not outranked by the previous topic's sentences. Tried, not
kept (cited / keywords): the follow-up's own words embedded as the sentence vector (283 -> 279 / 232 ->
230; +2 kw d5b-fu-11, d10b-fu-09; lose their cited file: d3c-fu-04, d8a-fu-03, d8b-fu-09, d10b-fu-07;
d9d-fu-09 its keyword), blended half and half with the search query's vector (281 / 232), a quarter own
(282 / 231); the bracketed words at half weight where they are kept (283 / 232, 13 answers change), at
none (283 / 231).
"""

from __future__ import annotations

import argparse
import asyncio
import json
from collections import Counter
from pathlib import Path
from typing import Any

RESULTS = Path(__file__).parent / "results"
QUESTIONS = Path(__file__).parent / "questions"
DATA = Path("/work/shared/data/textbooks")
SETS = (
    "fudev",
    "fudev2",
    "fudev3",
    "fudev4",
    "fudev5",
    "fudev6",
    "fudev7",
    "fudev8",
    "fudev9",
    "fudev10",
    "futb",
)
SETS_WITH_OTHERS = ("tune", "train")  # reader tune, train: their follow-up rows only

# The reading the reader meant, for the follow-ups the engine misread (by hand, from the conversation).
READINGS: dict[str, str] = {
    "d3b-fu-07": "what props does the card take (show a course's author and chapter count)?",
    "d3d-fu-01": "how much counts for the write-up (what does the humanoid capstone get graded on)?",
    "d5a-fu-03": "does the new version of ROS run on a Mac?",
    "d9d-fu-05": "what is the programmer on the hook for (who is responsible when a humanoid robot makes a "
    "mistake)?",
    "d9d-fu-09": "how do newer dialogue systems differ from the classic pipeline (robot's dialogue system)?",
}


def rows_of(tag: str) -> list[tuple[str, str, dict[str, Any]]]:
    """(set, question file, row) of every follow-up row of the tuning sets' results under `tag`."""
    out = []
    for name in (*SETS, *SETS_WITH_OTHERS):
        path = RESULTS / f"{tag}-{name}.json"
        if not path.exists():
            print(f"(no {path.name})")
            continue
        for stem, rows in json.loads(path.read_text())["rows"].items():
            out.extend((name, stem, r) for r in rows if r["kind"] == "followup")
    return out


def classify(row: dict[str, Any]) -> str | None:
    """The class of a missed follow-up (see the module docstring), or None when it is not missed."""
    complete = not row["keywords"] or row["has_keywords"]
    if row["relevant_cited"] and complete:
        return None
    if row["id"] in READINGS and READINGS[row["id"]].lower() != row["search_query"].lower():
        return "a"
    if row["relevant_cited"]:
        return "d"
    if not row["answered"]:
        return "b" if row["relevant_top5"] else "b*"
    return "c"


async def signals_of(stem: str, row: dict[str, Any], engines: dict[str, Any]) -> dict[str, Any]:
    """The row's conversation asked again: each turn's answer, and the decision's signals on the last."""
    from common import build
    from lectern.engine import AskOptions, Engine
    from lectern.events import Done

    book = "textbook-" + stem.rsplit("textbook-", 1)[1]
    if book not in engines:
        engines[book] = build(DATA / book)[0]
    engine = engines[book]
    seen: list[tuple[str, Any]] = []
    original = Engine._signals

    def spy(self: Engine, query: str, result: Any, carried: frozenset[str] = frozenset()) -> Any:
        found = original(self, query, result, carried)
        seen.append((query, found))
        return found

    Engine._signals = spy  # type: ignore[method-assign]
    turns = []
    try:
        conversation = engine.new_conversation()
        for question in row["turns"]:
            seen.clear()
            async for event in engine.stream(question, conversation, AskOptions(top_k=5)):
                if isinstance(event, Done):
                    a = event.answer
                    turns.append(
                        {
                            "asked": question,
                            "answered": a.confidence.should_answer,
                            "p": a.confidence.answerability,
                            "cited": sorted({c.source_path for c in a.citations}),
                        }
                    )
    finally:
        Engine._signals = original  # type: ignore[method-assign]
    decided = [
        {"query": q, "missing": list(s.missing), "unknown": list(s.unknown), **s.as_dict()} for q, s in seen
    ]
    meant = None
    if row["id"] in READINGS:  # the meant reading asked alone (no previous answer's files to favour)
        async for event in engine.stream(READINGS[row["id"]], engine.new_conversation(), AskOptions(top_k=5)):
            if isinstance(event, Done):
                a = event.answer
                meant = {
                    "answered": a.confidence.should_answer,
                    "p": a.confidence.answerability,
                    "cited": sorted({c.source_path for c in a.citations}),
                }
    return {"answers": turns, "decided": decided, "meant_alone": meant}


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("tag")
    parser.add_argument("--signals", action="store_true", help="ask refused rows again for the signals")
    parser.add_argument("--json", help="write the census as JSON here too")
    args = parser.parse_args()
    rows = rows_of(args.tag)
    census: list[dict[str, Any]] = []
    engines: dict[str, Any] = {}
    for name, stem, row in rows:
        kind = classify(row)
        if kind is None:
            continue
        entry = {
            "set": name,
            "id": row["id"],
            "class": kind,
            "turns": row["turns"],
            "search_query": row["search_query"],
            "meant": READINGS.get(row["id"]),
            "answered": row["answered"],
            "level": row["level"],
            "score": row["score"],
            "sources": row["sources"],
            "expected": row["expected"],
            "keywords": row["keywords"],
        }
        if args.signals and kind != "d":
            entry.update(asyncio.run(signals_of(stem, row, engines)))
        census.append(entry)
    cited = sum(r["relevant_cited"] for _, _, r in rows)
    print(f"{args.tag}: {len(rows)} follow-ups, {cited} cited ({cited / max(1, len(rows)):.1%})")
    print("classes:", dict(sorted(Counter(e["class"] for e in census).items())))
    for e in sorted(census, key=lambda e: (e["class"], e["set"], e["id"])):
        print(f"[{e['class']}] {e['set']} {e['id']} {e['level']} {e['score']}")
        for t in e["turns"][:-1]:
            print(f"    before: {t}")
        print(f"    asked:  {e['turns'][-1]}")
        print(f"    query:  {e['search_query']}")
        if e["meant"]:
            print(f"    meant:  {e['meant']}")
        if e["class"] != "b" and e["class"] != "b*":
            print(f"    cited:  {e['sources']}  expected: {e['expected']}  keywords: {e['keywords']}")
        for t in e.get("answers", [])[:-1]:
            print(f"    earlier turn answered {t['answered']} (p {t['p']}) from {t['cited']}")
        if e.get("meant_alone"):
            print(f"    meant, asked alone: {e['meant_alone']}")
        for d in e.get("decided", []):
            print(
                f"    decided {d['query']!r}: missing {d['missing']} unknown {d['unknown']} "
                f"cov {d['cov']:.2f} top1 {d['cov_top1']:.2f}"
            )
    if args.json:
        Path(args.json).write_text(json.dumps(census, indent=1))


if __name__ == "__main__":
    main()
