"""Why the extractive writer prefers another unit to the one that holds an answer's missing keyword.

    PYTHONHASHSEED=0 .venv/bin/python bench/writer_replay.py record NAME CORPUS QUESTIONS.jsonl [...] \\
        --split SPLIT
    PYTHONHASHSEED=0 .venv/bin/python bench/writer_choice_study.py NAME [NAME ...] [--show]

Replays the writer in the working tree on writer_replay recordings (the writer's input on the scored
turn; the engine's answerability does not depend on the writer) and studies the answered in-scope rows
(`--followups`: the follow-up rows) that cite a relevant file but miss a keyword some candidate unit
(sentence, list item or table row, lead-in; sources and reserve) holds. Per row: the chosen units and
the best-scored unit holding the most missing keywords, each with its score's weighted parts (cosine,
keyword overlap, headings, chunk, rank prior, shape, the question kind's cue lift; a quiz or exercise
unit's parts times `NOT_EXPOSITION`), the unit's fate in `_mmr` (`floor`: under `RELATIVE_FLOOR` of the
best; `merit`: not `_own_merit` and not following a chosen unit; `mmr`: eligible, outvalued until the
room ran out; `dup`; `lead-in`: a bare lead-in the pool never offers; `chosen-then-dropped`: chosen, then
swapped out or dropped as a dangling lead-in), the score part by which its rival (the lead for floor,
merit and lead-in, else the weakest chosen unit) beats it most, the question's kind and whether each
carries the kind's cue. Then a census.

Findings (Nov 2026, main 2f93e60, MiniLM; recordings of every tuned set: reader tune, train all, dev2
all, devN devN for N=5..11, and for --followups followups-dev dev, -dev2/-dev3 all, -dev4 dev4,
-devN devN, -nm funm).

In-scope: 39 rows (of 554 answered; 38 after the two rules kept below). Follow-ups: 23 rows (of 419).

    fate                   in-scope  follow-ups     rival's largest part   in-scope  follow-ups
    mmr (room ran out)        18         7          rank prior                22        14
    floor                     11        11          cosine                     7         1
    merit                      6         3          not exposition (quiz)      4         5
    chosen, then dropped       3         -          kind's cue                 3         -
    lead-in / dup           1 / 0     1 / 1        headings / shape           2 / 1     1 / 2

    keyword unit: in-scope  reserve item 16, other source item 9, other source lead-in 5, other source
    sentence 5, reserve lead-in 2, reserve sentence 1, the lead's source 1; follow-ups: reserve 16 of 23.
    question kind: in-scope other 13, why 6, how_to 5, quantity 5, problem 5, definition 3, compare 2.

The writer's preference is its rank prior, not the question's type. In 32 of the 39 in-scope rows the
keyword unit is nearer the question in meaning than at least one chosen unit (in 6 nearer than the
lead), and the first passage's far-in-meaning units (0.24 x 1.0 of rank prior against 0.24 x 0 for the
reserve, 0.05-0.19 for sources 2-5) fill the room. The question-type hypotheses explain few rows: of the
5 quantity rows, 4 have a number in both the keyword unit and the lead (every unit of a specification
list carries one: "8.5 GB", "6.2 seconds", "$0.05"); of the 6 why rows the keyword unit carries no cause
cue in 4; the cue is the deciding part in 3 rows of 39. What is left besides: quiz/exercise units
(`NOT_EXPOSITION`), known and measured before, and three "Solution: <the fix>:" lead-ins (one chosen and
dropped as dangling: its code is the reserve's, never quoted; two without merit, the symptom question
sharing no words or meaning with the fix).

Arms (replayed on every tuned set; totals of answered rows with every keyword / relevant file cited,
in-scope of 554 then follow-ups of 419; base 417 / 509, 335 / 410; "changed": answers whose text moved):

    arm                                                   in-scope kw   cited   follow-up kw  changed
    A  a lead-in right after a chosen unit needs merit      418 (+1 -0)  510       335           39
       of its own to follow it (`_mmr`, `_adds_to`)
    E  a lead-in that states its fix ("Solution: spawn      418 (+1 -0)  509       335            7
       above ground level:") is kept without its code
    A+E (kept)                                              419 (+2 -0)  510       335           46
    on A: a lead-in kept when an item further down its      419 (+1 -0)  510       335         +107
          list is quoted
    on A: the unit nearest in meaning quoted when nearer    417 (+1 -2)  510       334          +44
          than the lead (swapped for the farthest)
    on A+E: telling lead-ins (>= 6 words, or a stated       417 (+0 -2)  510       336 (+2 -1) +185
          fix) shaped as sentences
    on A+E: the rank prior times (0.5 + 0.5 x the unit's    413 (+6 -12) 512       337 (+4 -2) +526
          cosine over the nearest unit's)
    on A+E: a reserve unit's floor taken against the        419 (+1 -1)  510       335         +131
          lead's score without its rank prior
    on A+E: only a sentence's next lines follow it, not     418 (+2 -3)  511       335         +179
          an item's
    on A+E: the quantity cue not lifted by a number that    419 (+1 -1)  510       335          +38
          names a thing ("Module 3", "ROS 2", "RTX 3060")

A: gains ta-in-61 (its keyword and relevant citation: a bare lead-in of the next list, "Success
Criteria:" / "Integration Tests:" kind, no longer takes a room slot by adjacency). E: gains d8a-in-03;
six more answers gain the "Solution: ..." line after the "Symptom: ..." they quote. End to end
(bench/answer_quality.py on every tuned set, base and after): in-scope with every keyword 417 -> 419,
relevant cited 509 -> 510, follow-ups 335 / 410 unchanged, near misses refused 239 -> 239,
out-of-scope refused 100 -> 100, no answered/refused decision changed. Net +2 is under the +5 the task
set for keeping a writer change: the two are small corrections with a reason of their own (a rule
contradicting `_quotable`'s, and `following` meant for a line's continuation), not gains. Cost
(bench/callgrind_answers.py, textbook-a, the first 40 train questions, --query-cache 4096, one run
each): 11.31 M instructions an answer at main, 11.22 M with A, 11.23 M with A+E.

A later arm, not kept (Nov 2026, commit 1afbdfa, reverted): for a question asking a kind of value (time,
length, frequency, speed, size, mass, share, range, angle), a unit stating a number with that kind's unit
and sharing a question word got +0.06 in the writer's ranking. Census over the 26 tuned sets: of 130
answered value questions 42 lacked a keyword, 20 of them with a passage unit holding it next to a number
(code 12, list/table 6, sentence 2); the existing quantity cue lifts every unit with a digit, so the
wanted row loses to its neighbours in a spec list. End to end, tuned sets: in-scope with every keyword
441 -> 444 (+3 -0: rc-in-47, tc-in-27, d6c-in-13), follow-ups 376 -> 376, no decision or citation
changed. Held back (20 splits + dev13hold): in-scope with every keyword 239 -> 238 (-1), follow-ups 205 ->
206 (+1): nothing that carries. It cost 9.54 -> 9.79 M instructions an answer (+2.5 %, regex matching
of the value patterns), so it went. Variants that lost on the tuned sets: the lift without a shared
word (+2 -1), any number with any unit (+2 -1); appending the best value unit when no chosen unit
states one never fired; the code-line quantity rule for value questions changed nothing.
"""

from __future__ import annotations

import argparse
import pickle
import re
from collections import Counter
from typing import Any

import answer_quality
from common import RESULTS
from lectern.writers.extractive import writer as ex
from lectern.writers.extractive.scoring import CUE_BONUS
from lectern.writers.question_kind import has_cue, question_kind
from lectern.writers.selection import quotable_of, sources_of
from reserve_quote_study import why as fate  # a unit's fate in `_mmr`, as that study reads it
from writer_replay import request_of

SEEN: dict[str, Any] = {}
_mmr, _render = ex._mmr, ex._render


def _spy_mmr(candidates: list[Any], limit: int = ex.MAX_SENTENCES) -> list[Any]:
    SEEN["candidates"] = list(candidates)
    chosen = _mmr(candidates, limit)
    SEEN["mmr"] = list(chosen)
    return chosen


def _spy_render(chosen: list[Any]) -> tuple[str, list[int]]:
    SEEN["final"] = list(chosen)
    return _render(chosen)


W = ex.MEANING_WEIGHTS


def components(c: Any, kind: str) -> dict[str, float]:
    """The score's parts, weighted (the exposition factor applied to each), and the cue lift."""
    f = 1.0 if c.exposition else ex.NOT_EXPOSITION
    return {
        "cos": f * W["cosine"] * (c.cosine or 0.0),
        "lex": f * W["lexical"] * c.lexical,
        "head": f * W["heading"] * c.heading,
        "chunk": f * W["chunk"] * c.chunk,
        "rank": f * W["rank"] * c.rank_prior,
        "shape": f * W["shape"] * ex._shape(c.unit),
        "cue": CUE_BONUS if has_cue(c.unit.text, kind) else 0.0,  # type: ignore[arg-type]
    }


def describe(c: Any, n_sources: int, kind: str) -> str:
    src = f"R{c.source - n_sources}" if c.source > n_sources else f"S{c.source}"
    shape = "lead-in" if c.unit.lead_in else "item" if c.unit.bullet else c.unit.kind
    parts = " ".join(f"{k}={v:.3f}" for k, v in components(c, kind).items())
    expo = "" if c.exposition else " NOTEXPO"
    return f"{src}#{c.unit.position} {shape:8} s={c.score:.3f} [{parts}] w={c.unit.words}{expo}"


_NUM = re.compile(r"\d")
_PATHISH = re.compile(r"/|>|\\|\.\w{1,4}\b")


def gap(kw: Any, rival: Any, kind: str) -> str:
    """The score part by which the rival beats the keyword unit most."""
    a, b = components(kw, kind), components(rival, kind)
    diffs = {k: b[k] - a[k] for k in a}
    if not kw.exposition and rival.exposition:
        diffs["not-exposition"] = rival.score - kw.score  # the factor, as a whole
    return max(diffs, key=lambda k: diffs[k])


def study(names: list[str], show: bool, kinds_wanted: tuple[str, ...] = ("in_scope",)) -> None:
    ex._mmr, ex._render = _spy_mmr, _spy_render  # type: ignore[assignment]
    writer = ex.ExtractiveWriter()
    fates: Counter[str] = Counter()
    gaps: Counter[str] = Counter()
    kinds: Counter[str] = Counter()
    where: Counter[str] = Counter()
    cue_rows: Counter[str] = Counter()
    total = 0
    for name in names:
        kept = pickle.loads((RESULTS / f"{name}.replay.pkl").read_bytes())
        for qid, item in kept.items():
            row, req = item["row"], item["request"]
            if not row["answered"] or req is None or row["kind"] not in kinds_wanted or not row["keywords"]:
                continue
            SEEN.clear()
            request = request_of(req)
            text, cited = writer.compose(request)
            hits = quotable_of(request)
            paths = {hits[n - 1].chunk.source_path for n in cited if n <= len(hits)}
            if answer_quality.has_keywords(text, row["keywords"]) or not paths & set(row["expected"]):
                continue
            candidates, picked = SEEN.get("candidates", []), SEEN.get("mmr", [])
            final = SEEN.get("final", picked)
            lower = text.lower()
            missing = [k.lower() for k in row["keywords"] if k.lower() not in lower]
            held = {
                id(c): sum(k in " ".join((c.unit.text, *c.unit.items)).lower() for k in missing)
                for c in candidates
            }
            holders = [c for c in candidates if held[id(c)]]
            if not holders or not picked:
                continue
            total += 1
            kind = question_kind(request.question)
            n_sources = len(sources_of(request))
            best = max(holders, key=lambda c: (held[id(c)], c.score))
            f = "chosen-then-dropped" if best in picked else fate(best, candidates, picked)
            # the rival: the lead for a unit the floor or merit kept out, else the weakest unit chosen
            rival = picked[0] if f in ("floor", "merit", "lead-in") else min(picked, key=lambda c: c.score)
            g = gap(best, rival, kind)
            res = (
                "reserve"
                if best.source > n_sources
                else "lead's source"
                if best.source == picked[0].source
                else "other source"
            )
            shape = "lead-in" if best.unit.lead_in else "item" if best.unit.bullet else "sentence"
            cue_kw = has_cue(best.unit.text, kind)  # type: ignore[arg-type]
            cue_lead = has_cue(picked[0].unit.text, kind)  # type: ignore[arg-type]
            fates[f] += 1
            gaps[g] += 1
            kinds[kind] += 1
            where[f"{res}, {shape}"] += 1
            if kind != "other" and kind != "definition":
                cue_rows[f"{kind}: kw cue {cue_kw}, lead cue {cue_lead}"] += 1
            if show:
                rank = sorted(candidates, key=lambda c: -c.score).index(best) + 1
                print(f"== {qid} [{kind}] {request.question[:100]!r} missing={missing}")
                for c in final:
                    mark = "chosen" if c in picked else "+added"
                    print(f"   {mark} {describe(c, n_sources, kind)} {c.unit.text[:80]!r}")
                for c in picked:
                    if c not in final:
                        print(f"   -dropped {describe(c, n_sources, kind)} {c.unit.text[:80]!r}")
                print(
                    f"   KW#{rank:<3} {describe(best, n_sources, kind)} [{f}; gap {g}] "
                    f"{best.unit.text[:100]!r}"
                )
    ex._mmr, ex._render = _mmr, _render  # type: ignore[assignment]
    print(f"rows: {total} (answered in-scope, relevant file cited, a candidate unit holds a missing keyword)")
    for title, counter in (
        ("fate", fates),
        ("largest score part in the rival's favour", gaps),
        ("question kind", kinds),
        ("the keyword unit", where),
        ("cue (kinds with one)", cue_rows),
    ):
        print(f"-- {title}")
        for key, n in counter.most_common():
            print(f"   {n:3d} {key}")


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("names", nargs="+")
    parser.add_argument("--show", action="store_true")
    parser.add_argument("--followups", action="store_true", help="study the follow-up rows instead")
    args = parser.parse_args()
    study(args.names, args.show, ("followup",) if args.followups else ("in_scope",))


if __name__ == "__main__":
    main()
