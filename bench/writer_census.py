"""Census of the writer's keyword misses: answered, a relevant file cited, an answer keyword missing.

    .venv/bin/python bench/writer_replay.py record NAME CORPUS QUESTIONS.jsonl [...] --split SPLIT
    .venv/bin/python bench/writer_census.py NAME [NAME ...] [--show] [--recorded]

Reads the result file bench/results/NAME.json and its recording NAME.replay.pkl (`writer_replay.py
record` writes both) and composes every answered in-scope or follow-up answer again with the writer in
the working tree (`--recorded`: the answers of the result file as they were recorded, the reasons
still from the working tree's writer). For each answer that cites a relevant file but misses a keyword,
each missing keyword is looked up in the passages the writer was given, and the answer is put in the
worst class of its missing keywords:

    (a)  in the passage the answer leads with (its first source), but other units chosen
    (a2) in another passage the answer quotes
    (b)  in another top-5 passage of a file the answer cites (another section of the right file)
    (c)  in a top-5 passage of a file the answer does not cite
    (d)  not in the top 5: only in the reserve (which the writer may quote), or in no passage at all

For every class but the last it says why the writer went elsewhere: the keyword unit's kind (sentence, list
item, lead-in, code), its fate in the selection (`_mmr`, mirrored as in kw_in_passages_study.py: under
the floor, no merit of its own, a duplicate, room or words ran out, a bare lead-in never offered, code),
its rank by score, the question's kind, and for (b) the keyword passage's retrieval rank against the
lead passage's. Then counts by class and by reason, per set and over all sets.

Findings (Nov 2026, base main ee915a4; recordings of the tuned sets: reader tune, train, dev2, dev5-dev9,
follow-ups dev, dev2, dev3, dev4-dev9). 153 of 874 answered questions with keywords cite a relevant file
and miss a keyword: (a) 1, (a2) 16, (b) 31, (c) 2, reserve only 34, in no passage 69. So two thirds are
retrieval's (the keyword is not in the top 5), and the writer's largest share is code: per missing
keyword, a code block not quoted 20 (b) + 16 (reserve) + 4 (a, a2, c); then list items under the floor
in lower-ranked passages (6 b, 13 reserve), units left when the room ran out (~15, most of them quiz or
exercise prompts), bare lead-ins to code never offered (2). After the two code rules kept (a block's
section heading counts in `_best_code`; a how-to with no block in its words gets the block nearest it in
meaning): 150 of 874, (b) 28, code not quoted in (b) 17.

Tried on replay and not kept (answers with every keyword, in-scope / follow-ups, over the tuned sets):
the rank prior shared by every passage of a file (379 -> 370 / 298 -> 296, cited -1 / -2), half shared
(-4 / +1), shared within a section (no change, cited -1); short lead-ins (>= 4 words, or sharing a word
of the question) offered on their own (-1 / 0); a heading share >= 0.2 passing `_best_code`'s strict
test (+2 / 0, a follow-up loses its cited file); the block's own cosine in `_best_code`'s score (0 to +1,
+3 -2 at weight 2); the section heading in `_with_code_lines`' score (no change).
"""

from __future__ import annotations

import argparse
import json
import pickle
import re
from collections import Counter
from typing import Any

import lectern.writers.extractive.writer as ex
from common import RESULTS, spy_on_writer
from kw_in_passages_study import _fates, _kind, _parts
from lectern.writers.question_kind import question_kind
from lectern.writers.selection import quotable_of, sources_of
from writer_replay import request_of

CLASSES = {
    "a": "(a)  in the lead passage, other units chosen",
    "a2": "(a2) in another quoted passage",
    "b": "(b)  in another top-5 passage of a cited file",
    "c": "(c)  in a top-5 passage of an uncited file",
    "d1": "(d)  not in the top 5: in the reserve",
    "d2": "(d)  not in the top 5: in no passage",
}
ORDER = list(CLASSES)
_CITED = re.compile(r"\[(\d+)\]")


def _lead(text: str) -> int | None:
    """The source the answer leads with: the first one it cites (the best source's group comes first)."""
    m = _CITED.search(text)
    return int(m.group(1)) if m else None


def _holds(keyword: str, text: str) -> bool:
    return keyword.lower() in text.lower()


def _unit_text(unit: Any) -> str:
    return " ".join((unit.text, *unit.items))


def census(name: str, show: bool, recorded: bool) -> tuple[Counter[str], Counter[str], int]:
    result = json.loads((RESULTS / f"{name}.json").read_text())
    rows = {r["id"]: r for rs in result["rows"].values() for r in rs}
    kept = pickle.loads((RESULTS / f"{name}.replay.pkl").read_bytes())
    seen: dict[str, Any] = {}
    restore = spy_on_writer(seen)
    classes: Counter[str] = Counter()
    reasons: Counter[str] = Counter()
    answered = 0
    try:
        for qid, row in rows.items():
            item = kept.get(qid)
            req = item["request"] if item else None
            if not row["answered"] or req is None or row["kind"] not in ("in_scope", "followup"):
                continue
            if not row["keywords"]:
                continue
            answered += 1
            seen.clear()
            request = request_of(req)
            text, cited = ex.ExtractiveWriter().compose(request)
            if recorded:
                text = row["text"]
            hits = quotable_of(request)
            top = len(sources_of(request))
            paths = {hits[n - 1].chunk.source_path for n in cited if n <= len(hits)}
            relevant = bool(paths & set(row["expected"])) if not recorded else row["relevant_cited"]
            missing = [k for k in row["keywords"] if not _holds(k, text)]
            if not relevant or not missing:
                continue
            lead = _lead(text)
            quoted = {c.source for c in seen.get("chosen", [])}
            candidates = seen.get("candidates", [])
            fates = _fates(candidates) if candidates else {}
            by_score = sorted(candidates, key=lambda c: -c.score)
            kind = question_kind(request.question)
            worst, lines = "a", []
            for keyword in missing:
                where = [n for n, h in enumerate(hits, start=1) if _holds(keyword, h.chunk.text)]
                if not where:
                    cls = "d2"
                elif lead in where:
                    cls = "a"
                elif any(n in quoted and n <= top for n in where):
                    cls = "a2"
                elif any(n <= top and hits[n - 1].chunk.source_path in paths for n in where):
                    cls = "b"
                elif any(n <= top for n in where):
                    cls = "c"
                elif any(n in quoted for n in where):
                    cls = "a2"
                else:
                    cls = "d1"
                worst = max(worst, cls, key=ORDER.index)
                lines.append(f"   KW {keyword!r}: {CLASSES[cls]} (passages {where}, lead {lead})")
                if cls == "d2":
                    continue
                sources = (
                    [lead]
                    if cls == "a"
                    else [n for n in where if n in quoted]
                    if cls == "a2"
                    else [n for n in where if n <= top and hits[n - 1].chunk.source_path in paths]
                    if cls == "b"
                    else [n for n in where if n <= top]
                    if cls == "c"
                    else where
                )
                reason = _reason(keyword, sources, candidates, by_score, fates, hits, kind, lead, cls)
                reasons[f"{cls}: {reason}"] += 1
                lines.append(f"      why: {reason}")
                for c in by_score:
                    if c.source in sources and _holds(keyword, _unit_text(c.unit)):
                        lines.append(
                            f"      [{c.source}] {_kind(c.unit)} pos {c.unit.position} <{fates.get(c, '?')}> "
                            f"{_parts(c, kind)}\n         | {c.unit.text[:150]!r}"
                        )
                        break
            classes[worst] += 1
            if show:
                words = len(text.split())
                print(f"\n{name} {qid} [{CLASSES[worst]}] kind={kind} words={words} cites={cited}")
                print(f"   Q: {request.question}")
                for n, h in enumerate(hits[:top], start=1):
                    c = h.chunk
                    mark = "*" if c.source_path in row["expected"] else " "
                    heading = " > ".join(c.heading_hierarchy[-2:])
                    print(f"   {mark}[{n}] {c.source_path} #{c.chunk_index} {heading}")
                print("\n".join(lines))
                for c in seen.get("chosen", []):
                    print(f"   CHOSE [{c.source}] {_kind(c.unit)} pos {c.unit.position} {_parts(c, kind)}")
                    print(f"      | {c.unit.text[:110]!r}")
    finally:
        restore()
    return classes, reasons, answered


def _reason(
    keyword: str,
    sources: list[int | None],
    candidates: list[Any],
    by_score: list[Any],
    fates: dict[Any, str],
    hits: list[Any],
    kind: str,
    lead: int | None,
    cls: str,
) -> str:
    """Why the unit that holds the keyword was not quoted."""
    units = [c for c in by_score if c.source in sources and _holds(keyword, _unit_text(c.unit))]
    if not units:
        codes = [
            u
            for n in sources
            if n is not None
            for u in ex.units_of(hits[n - 1].chunk.text)
            if u.kind == "code" and _holds(keyword, u.text)
        ]
        return "code block not quoted" if codes else "in no unit (heading or markup)"
    c = units[0]
    fate = fates.get(c, "?")
    fate = re.sub(r" \(\d\.\d+\)", "", fate)
    if fate.startswith("picked"):
        fate = "picked, then lost (render or context)"
    where = ""
    if cls == "b" and lead is not None:
        where = f", its passage ranked {'above' if c.source < lead else 'below'} the lead"
    return f"{_kind(c.unit)} {fate}{where}"


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("names", nargs="+")
    parser.add_argument("--show", action="store_true")
    parser.add_argument("--recorded", action="store_true", help="the recorded answers, not recomposed")
    args = parser.parse_args()
    total_classes: Counter[str] = Counter()
    total_reasons: Counter[str] = Counter()
    total = 0
    for name in args.names:
        classes, reasons, answered = census(name, args.show, args.recorded)
        total_classes += classes
        total_reasons += reasons
        total += answered
        counts = " ".join(f"{k}={classes[k]}" for k in ORDER)
        missed = sum(classes.values())
        print(f"{name}: {missed} of {answered} answered miss a keyword, relevant cited: {counts}")
    missed = sum(total_classes.values())
    print(f"\nall sets: {missed} of {total} answered miss a keyword, relevant cited")
    for k in ORDER:
        print(f"  {total_classes[k]:4d} {CLASSES[k]}")
    print("\nwhy (per missing keyword, every class but no passage):")
    for reason, n in total_reasons.most_common():
        print(f"  {n:4d} {reason}")


if __name__ == "__main__":
    main()
