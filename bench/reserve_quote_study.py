"""Why the extractive writer passes over the unit that holds an answer's missing keyword.

    PYTHONHASHSEED=0 .venv/bin/python bench/reserve_quote_study.py RESULT.json CORPUS QUESTIONS.jsonl [...]

RESULT.json is a bench/answer_quality.py result for the same question files. Rows studied: answered
in-scope questions citing a relevant file whose answer lacks a keyword. Each is asked again in process
with `writer._mmr` wrapped, so the scored candidates (after the cue lift and the reserve's cap) and the
chosen ones are seen. Per row: the chosen units and every unit holding a missing keyword, each with its
source number (R: the reserve), score, parts (cosine, lexical, heading, chunk, rank prior, shape, cue),
and for a keyword unit why it was not chosen: `floor` (under RELATIVE_FLOOR of the best), `merit` (not
`_own_merit` and not following a chosen unit), `mmr` (eligible, but others won until the room ran out),
`dup` (too like a chosen one). Counted at the end.

Findings (Nov 2026, MiniLM, main 73b5530; rows picked from main's results of reader --split tune, train,
dev2 and dev5..dev11 their tuned halves, re-asked; 100 rows):

    the keyword unit                        rows
    in no candidate unit (code, or absent)    58
    reserve, under the relative floor         10
    reserve, eligible, outscored (mmr)         9
    reserve, no own merit                      2
    sources: mmr 11, merit 5, floor 2, other   20   (1 reserve and 1 source row now quote it)

The general cause for the reserve rows: a reserve unit has no rank prior (0.24 x 0 against 0.24 x 1.0
for the first passage's units), so the first passage's list siblings, far from the question in meaning
and eligible as they follow a chosen item, fill the answer ("Mass (kg): Total mass of the component",
cosine -0.05, quoted for "my robot drops through the floor" while the reserve's "Missing collision
geometry: Symptom: Robot falls through ground", cosine 0.44, was not). Of the 21 reserve keyword units
passed over, 19 are nearer the question in meaning than the answer's farthest unit (the lead aside),
11 by 0.15 or more. Not a how-many or table-row effect: the units are list items and sentences alike.

Rule (`extractive.mmr._meaning_swap`, `MEANING_SWAP` 0.15) A/B with bench/answer_quality.py on every tuned
set (reader tune, train, dev2, followups-dev dev, followups-dev2/3 all, followups-dev4 dev4, devN and
followups-devN devN for N=5..11; base: main's src by PYTHONPATH), totals of in-scope / follow-up rows:

    arm                                       in-scope kw  cited   follow-up kw  cited  nm refused  changed
    base                                          411       506        336        410      226         -
    swap any source's unit, 0.15                  413       507        333        410      226       652
    reserve only, 0.15                            415       508        331        409      226       633
    reserve only, 0.25                            414       507        333        409      226       476
    reserve, 0.15, as near as 0.85 of the lead    416       509        334        410      226       411
    reserve, 0.15, keep lead-ins and word-richer  416       509        335        410      226       525
    both guards (kept)                            417       509        335        410      226       340

Kept arm: gained every keyword d10d-in-11, d2b-in-07, d2b-in-20, d2c-in-29, d7c-in-07, d7d-in-03,
rc-in-11 and tb-in-48 (d7c-in-07 its citation too); gained a relevant citation d10d-in-13,
d2c-in-28, d7b-in-13;
lost rc-in-23 (the keyword item "Click Install for version 2023.1.1" swapped out), ta-in-61 (keyword
and citation: "NVIDIA Isaac (Weeks 7-10):" and its list gave way) and the follow-up tb-fu-14.
"""

from __future__ import annotations

import argparse
import asyncio
import json
from collections import Counter
from pathlib import Path
from typing import Any

from answer_quality import observe, turns_of
from common import build
from lectern.writers.extractive import writer as ex
from lectern.writers.extractive.mmr import DUPLICATE, RELATIVE_FLOOR, _own_merit, _quotable_pool, _similarity

CAPTURED: list[tuple[list[Any], list[Any]]] = []
_orig_mmr = ex._mmr


def _spy(candidates: list[Any], limit: int = ex.MAX_SENTENCES) -> list[Any]:
    chosen = _orig_mmr(candidates, limit)
    CAPTURED.append((list(candidates), list(chosen)))
    return chosen


def parts(c: Any, n_sources: int) -> str:
    src = f"R{c.source - n_sources}" if c.source > n_sources else f"S{c.source}"
    cos = f"{c.cosine:.2f}" if c.cosine is not None else "-"
    kind = "item" if c.unit.bullet else c.unit.kind
    return (
        f"{src} {kind:8} s={c.score:.3f} cos={cos} lex={c.lexical:.2f} head={c.heading:.2f} "
        f"chunk={c.chunk:.2f} rank={c.rank_prior:.2f} shape={ex._shape(c.unit):.2f} w={c.unit.words}"
        f"{'' if c.exposition else ' NOTEXPO'}"
    )


def why(c: Any, candidates: list[Any], chosen: list[Any]) -> str:
    pool = _quotable_pool(candidates)
    if c not in pool:
        return "lead-in"
    top = pool[0]
    if c.score < RELATIVE_FLOOR * top.score:
        return "floor"
    if not _own_merit(c, top):
        return "merit"
    if any(_similarity(c, s) >= DUPLICATE for s in chosen):
        return "dup"
    return "mmr"


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("result")
    parser.add_argument("pairs", nargs="+")
    args = parser.parse_args()
    ex._mmr = _spy
    result = json.loads(Path(args.result).read_text())
    pairs = list(zip(args.pairs[::2], args.pairs[1::2], strict=True))
    causes: Counter[str] = Counter()
    for corpus, questions in pairs:
        wanted = {
            r["id"]: r
            for r in result["rows"].get(Path(questions).stem, [])
            if r["kind"] == "in_scope" and r["answered"] and r["relevant_cited"] and not r["has_keywords"]
        }
        if not wanted:
            continue
        engine, _, _ = build(Path(corpus))
        for line in Path(questions).read_text().splitlines():
            rec = json.loads(line)
            if rec["id"] not in wanted:
                continue
            CAPTURED.clear()
            seen = asyncio.run(observe(engine, turns_of(rec)))
            if not CAPTURED:
                continue
            candidates, chosen = CAPTURED[-1]
            n_sources = max((c.source for c in candidates if c.rank_prior > 0), default=0)
            text = seen.text.lower()
            missing = [k.lower() for k in rec["keywords"] if k.lower() not in text]
            holders = [c for c in candidates if any(k in c.unit.text.lower() for k in missing)]
            print(f"== {rec['id']} {rec['question'][:90]!r} missing={missing}")
            for c in chosen:
                print(f"   chosen  {parts(c, n_sources)}  {c.unit.text[:70]!r}")
            if not holders:
                causes["no unit holds it (code or absent)"] += 1
                print("   (no candidate unit holds a missing keyword)")
                continue
            best = max(holders, key=lambda c: c.score)
            res = "reserve" if best.source > n_sources else "sources"
            reason = "chosen?" if best in chosen else why(best, candidates, chosen)
            causes[f"{res}:{reason}"] += 1
            rank = sorted(candidates, key=lambda c: -c.score).index(best) + 1
            print(f"   KW#{rank:<3} {parts(best, n_sources)} [{reason}]  {best.unit.text[:90]!r}")
    print(dict(causes))


if __name__ == "__main__":
    main()
