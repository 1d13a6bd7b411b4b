"""Value questions (how much / how many / how long / what size / what range / at what ...): how often the
extractive writer's answer misses the value while a passage unit that states it (with a number) was there.

    PYTHONHASHSEED=0 .venv/bin/python bench/writer_replay.py record NAME CORPUS QUESTIONS.jsonl [...] \\
        --split SPLIT
    PYTHONHASHSEED=0 .venv/bin/python bench/value_answer_study.py census NAME [NAME ...] [--show]
    PYTHONHASHSEED=0 .venv/bin/python bench/value_answer_study.py ab NAME [NAME ...]

Reads writer_replay recordings of TUNED splits only (the recording itself keeps only the split asked
for; never record a held-back split for this study). `census` replays the writer in the working tree on
every answered in-scope and follow-up row whose question asks a value (`VALUE_QUESTION` below) and
sorts them: every keyword in the answer (right: must not be lost), a keyword missing while some unit of
the passages (sources and reserve; sentence, list item / table row, code block) holds it together with
a digit ("value unit available"), a keyword missing and held only by units without a digit, or in no
unit; `--bonus 0`: the writer before the lift kept below. `ab` replays every answered row with
`extractive.VALUE_BONUS` at each value given and counts rows gained / lost against the writer with it at
0 (the recording's answerability decision does not depend on the writer).

Findings (Nov 2026, main 79d828e + this change, MiniLM; recordings of every tuned set: reader tune,
train all, dev2 all, devN devN N=5..13, followups-dev dev, -dev2 / -dev3 all, -dev4 dev4, -devN devN
N=5..13, -nm funm; 599 answered in-scope rows and 470 answered follow-ups with keywords).

Census before the lift (`census --bonus 0`), rows whose question asks a value by `VALUE_QUESTION`:

    in-scope:   right 44; keyword missing 31: a unit of the passages holds it with a digit 14 (13 with a
                relevant file cited), the keyword in no single unit 16 (a table's header and cell, "0.6s
                latency"; a value said in other words), the keyword unit has no digit 1
    follow-ups: right 44; missing 11: held with a digit 6 (5 cited), in no unit 5
    the value unit: in-scope code 8, list item / table row 4, sentence 2; follow-ups code 4, list 2

By the kind the rule reads (`question_kind.asked_values`: time, length, frequency, speed, size, mass,
share, range, angle): in-scope 27 right / 23 missing (length 4/8, time 8/5, size 2/4, speed 4/3, share
2/2, frequency 6/1, range 1/0), follow-ups 26 / 10; in 6 in-scope and 2 follow-up misses a unit stating
the asked kind of value holds the keyword. The writer's quantity cue (`CUE_BONUS` for any digit) lifts
every unit of a specification list alike ("Module 3", "RTX 3060", "9.2/10 accuracy (92%)"), so the
asked value loses to the list beside it on rank prior.

Arms (replayed on every tuned set; keyword rows gained / lost, in-scope and follow-ups together):

    arm                                                       kw         cited    changed answers
    lift (kept): a unit stating a value of the asked kind     +3 -0      +0 -0    23
      and sharing a question word, VALUE_BONUS 0.06
      ... at 0.03 / 0.10                                      +3 -0      +0 -0    15 / 28
      ... without the shared word                             +2 -1      +0 -0    30
      ... any number with any unit (no asked kind;             +2 -1               (reader, train,
          reader / train / dev13 only)                                              dev13)
    add: the best asked-kind value unit (over the floor,      +0 -0      +0 -0    0
      sharing a word) appended when no picked unit states one
    code: a value question takes the quantity code-line       +0 -0      +0 -0    0
      rule (`QUANTITY_LINE_SHARE`)

Gains: d6c-in-13 (a spec table's rows, "Footprint: ... Height clearance: 0.3m / 1.5m", for "how big my
walking robot's outline is": the size kind's bare "m" suffix, written for "74M parameters", reads "1.5m"
too, which for "how big" is the intended reading), rc-in-47 ("Breakdown: Grounding DINO: 5.2 GB" for "how
much GPU memory"), tc-in-27 ("Expected: GPU = 25-30 FPS, CPU = 5-10 FPS" for "how much faster ... than on
the CPU"). The losses of the wider arms: rc-in-39 ("which size of the model": "680,000 hours" led over the
Whisper size list; a choice, not a value, no longer read as one), d7c-in-07 (a unit sharing no word with the
question). `add` never fires: every value row's answer already quotes some unit with a value of the asked
kind (the same spec list's other rows, "Feature extraction: 10-30ms per frame on CPU"). `code` changes
nothing: where the value is a code line the answer quotes code already or the line shares too few words.
Left: the 16 in-scope rows whose keyword is in no unit of the passages the writer got: the value not
retrieved at all (dev13: d13d-in-09 "Step width: 0.2 m", d13d-in-07 'light_intensity': (500, 5000)) or split
over a table's header and cell (d13c-in-11 "0.6s latency"); those are retrieval's and the unit split's, not
the writer's choice, and the lift changes no dev13 row. A value held only in a code block is out of the
lift's reach (code blocks are not `_mmr` candidates).

End to end (bench/answer_quality.py, base = main 79d828e's src, every tuned set above, 26 runs a side):
in-scope answered 599 / 599, with every keyword 441 -> 444 (d6c-in-13, rc-in-47, tc-in-27; none lost),
follow-ups 470 / 470, 376 -> 376, relevant file cited unchanged (+0 -0), no answered / refused decision
changed on any row (near misses and out-of-scope included).

Cost (bench/callgrind_answers.py, textbook-a, the first 40 train questions, --query-cache 4096, one run
each): 381.75 M instructions in all at main (9.54 M an answer), 391.40 M with the lift (9.79 M, +2.5 %),
the regex engine's match loop 26.8 -> 33.0 M of it (the kinds' patterns over each question and over the
units of a value question; opening the value patterns with their digit saved 1.4 M, see the commit). Not
looked into further: one combined pattern for `asked_values` is the next thing to try.
"""

from __future__ import annotations

import argparse
import pickle
import re
from collections import Counter
from typing import Any

import answer_quality
from common import RESULTS
from lectern.writers import extractive as ex
from lectern.writers.question_kind import asked_values, states_value
from lectern.writers.selection import quotable_of
from lectern.writers.units import units_of
from writer_replay import request_of

# What a value question looks like: wider than `question_kind._QUANTITY` ("what range", "what threshold",
# "what timeout", "how wide").
VALUE_QUESTION = re.compile(
    r"\b(how\s+(?:many|much|long|far|fast|often|big|large|small|high|low|close|heavy|wide|tall|deep|"
    r"quick(?:ly)?|slow)|what\s+(?:\w+\s+)?(?:size|range|value|threshold|timeout|rate|frequency|resolution|"
    r"percentage|number|speed|limit|distance|duration|delay|budget|width|height|length|latency|"
    r"accuracy|amount|cost|price|interval|period|weight|mass|capacity|memory|bandwidth|angle|"
    r"tolerance|version|count|level)s?|at\s+what\s+\w+|which\s+(?:\w+\s+)?(?:value|range|size|rate)s?)\b",
    re.I,
)
_DIGIT = re.compile(r"\d")


def _unit_text(u: Any) -> str:
    return " ".join((u.intro, u.text, *u.items))


def _unit_kind(u: Any) -> str:
    return "code" if u.kind == "code" else "list/table" if u.bullet else "sentence"


def _compose(writer: ex.ExtractiveWriter, req: dict[str, Any], row: dict[str, Any]) -> tuple[bool, bool, str]:
    request = request_of(req)
    text, cited = writer.compose(request)
    hits = quotable_of(request)
    paths = {hits[n - 1].chunk.source_path for n in cited if n <= len(hits)}
    ok = bool(row["keywords"]) and answer_quality.has_keywords(text, row["keywords"])
    return ok, bool(paths & set(row["expected"])), text


def _rows(names: list[str]) -> list[tuple[str, str, dict[str, Any], dict[str, Any]]]:
    out = []
    for name in names:
        kept = pickle.loads((RESULTS / f"{name}.replay.pkl").read_bytes())
        for qid, item in kept.items():
            row, req = item["row"], item["request"]
            if not row["answered"] or req is None or row["kind"] not in ("in_scope", "followup"):
                continue
            if not row["keywords"]:
                continue
            out.append((name, qid, row, req))
    return out


def census(names: list[str], show: bool, bonus: float) -> None:
    """Value rows by fate, with the writer's `VALUE_BONUS` at `bonus` (0: the writer before the lift)."""
    kept = ex.VALUE_BONUS
    ex.VALUE_BONUS = bonus
    writer = ex.ExtractiveWriter()
    counts: Counter[str] = Counter()
    holders: Counter[str] = Counter()
    total: Counter[str] = Counter()
    for _name, qid, row, req in _rows(names):
        question = req["question"]
        kind = row["kind"]
        total[kind] += 1
        if not VALUE_QUESTION.search(question) and not VALUE_QUESTION.search(row.get("question", "")):
            continue
        ok, cited, text = _compose(writer, req, row)
        values = asked_values(question)
        if values:
            counts[f"{kind}: [asks a kind: {', '.join(sorted(values))}] {'right' if ok else 'missing'}"] += 1
        if ok:
            counts[f"{kind}: right"] += 1
            continue
        lower = text.lower()
        missing = [k.lower() for k in row["keywords"] if k.lower() not in lower]
        retrieval = req["retrieval"]
        units = [
            (i, u)
            for i, h in enumerate([*retrieval.hits, *retrieval.reserve])
            for u in units_of(h.chunk.text)
        ]
        with_kw = [(i, u) for i, u in units if any(k in _unit_text(u).lower() for k in missing)]
        valued = [(i, u) for i, u in with_kw if _DIGIT.search(_unit_text(u))]
        if values and any(states_value(_unit_text(u), values) for _, u in with_kw):
            counts[f"{kind}: missing, a unit states the asked kind of value with the keyword"] += 1
        cls = (
            "value unit available" if valued else "keyword unit without a digit" if with_kw else "in no unit"
        )
        counts[f"{kind}: missing, {cls}{', relevant cited' if cited else ''}"] += 1
        if valued:
            holders[f"{kind}: {_unit_kind(valued[0][1])}"] += 1
        if show:
            print(f"== {qid} {question[:110]!r} missing={missing} cited={cited}")
            print(f"   answer: {text[:240]!r}")
            for i, u in valued[:3]:
                n = len(retrieval.hits)
                where = f"S{i + 1}" if i < n else f"R{i + 1 - n}"
                print(f"   {where} {_unit_kind(u)}: {_unit_text(u)[:160]!r}")
    print("answered rows with keywords:", dict(total))
    for key, n in sorted(counts.items()):
        print(f"  {n:4d} {key}")
    print("-- the first value unit's kind")
    for key, n in holders.most_common():
        print(f"  {n:4d} {key}")
    ex.VALUE_BONUS = kept


def ab(names: list[str], bonuses: list[float]) -> None:
    """Rows gained / lost with `VALUE_BONUS` at each of `bonuses`, against the writer without it (0)."""
    rows = _rows(names)
    writer = ex.ExtractiveWriter()
    kept = ex.VALUE_BONUS
    ex.VALUE_BONUS = 0.0
    base = {(n, q): _compose(writer, req, row) for n, q, row, req in rows}
    for bonus in bonuses:
        ex.VALUE_BONUS = bonus
        gained: list[str] = []
        lost: list[str] = []
        cg = cl = changed = 0
        for n, q, row, req in rows:
            ok, cited, text = _compose(writer, req, row)
            b_ok, b_cited, b_text = base[(n, q)]
            changed += text != b_text
            if ok and not b_ok:
                gained.append(f"{q}({row['kind'][0]})")
            if b_ok and not ok:
                lost.append(f"{q}({row['kind'][0]})")
            cg += cited and not b_cited
            cl += b_cited and not cited
        print(f"VALUE_BONUS {bonus}: kw +{len(gained)} -{len(lost)}  cited +{cg} -{cl}  changed {changed}")
        print("   gained:", " ".join(gained))
        print("   lost:  ", " ".join(lost))
    ex.VALUE_BONUS = kept


def main() -> None:
    parser = argparse.ArgumentParser()
    sub = parser.add_subparsers(dest="cmd", required=True)
    c = sub.add_parser("census")
    c.add_argument("names", nargs="+")
    c.add_argument("--show", action="store_true")
    c.add_argument("--bonus", type=float, default=0.0, help="VALUE_BONUS for the census (0: before the lift)")
    a = sub.add_parser("ab")
    a.add_argument("names", nargs="+")
    a.add_argument("--bonus", default="0.06", help="comma-separated VALUE_BONUS values to try")
    args = parser.parse_args()
    if args.cmd == "census":
        census(args.names, args.show, args.bonus)
    else:
        ab(args.names, [float(b) for b in args.bonus.split(",")])


if __name__ == "__main__":
    main()
