"""What the fifth development set (bench/questions/dev5-*, split dev5) showed, and what was tried on it.

    .venv/bin/python bench/dev5_study.py classify RESULT.json [--text]
    PYTHONHASHSEED=0 .venv/bin/python bench/dev5_study.py everyday RESULT.json [RESULT.json ...]

`classify` sorts the in-scope rows of a bench/answer_quality.py result that are not answered with a
relevant file cited and every keyword: refused with a relevant file in the top 5, refused with none,
answered citing no relevant file, keyword in no passage, keyword in the passages but not quoted; and it
lists the near misses and out-of-scope questions answered. `everyday` replays the answerability decision
(the engine's own search, signals and model) with coverage that leaves out the question's everyday words
(zipf 5.0 / 5.5 / 6.0; names always count), the missing-word signals kept as they are.

The set: per book 16 in-scope questions, 6 near misses and 2 out-of-scope ones, written in readers'
words before the engine saw them (situations told before the question, everyday words for the book's
terms, a typo, British spellings), half of each kind held back (split dev5hold, measured once at the end).

Findings (Nov 2026, MiniLM, base main d89666b; dev5 = 32 in-scope, 12 near misses, 4 out-of-scope):

    class (dev5, base)                                  rows
    refused, a relevant file in the top 5                 6   (a-07, a-09, b-13, b-15, c-01, d-09)
    refused, no relevant file in the top 5                1
    answered, no relevant file cited                      0   (1 before d5b-in-09's label was corrected:
                                                               the planning chapter says "Few-Shot" too)
    keyword in no passage                                 2   (d-01: a comparison's second side)
    keyword in the passages, not quoted                   3   (a list cut short, a lead-in before code,
                                                               a keyword inside code)
    near misses answered                                  3 of 12

The refusals' signals (each signal's share of the log-odds) showed two causes the earlier studies had
not taken apart:
- A reader who tells their situation first ("Our lab has big windows and lots of afternoon sun. Which
  type of 3D camera will struggle there?", p = 0.17) brings words no passage uses, and coverage over the
  whole question counts them all; the question sentence itself is covered. Kept
  (lectern/answerability.py, `sentence_parts`): a question of several sentences, each naming two topic
  words or more, is covered as well as its best-covered sentence (cov and cov_top1); the missing-word
  signals still read the whole question, so an unknown name refuses wherever it stands; a question
  with brackets (a follow-up's query) is left whole; no retraining. Held back (dev5hold, measured once
  at the end): 27 of 32 answered with a relevant file cited before and after, 24 with every keyword,
  12 of 12 near misses refused; three scores rose, no decision changed. Replayed first (the same model over
  the same searches): tune 92 = 92 answered, train 184 -> 186, dev2 94 -> 96, dev5 25 -> 27, and not
  one of the 203 near misses and out-of-scope questions of those sets crossed the threshold (12 of them
  have several sentences; the largest rise, 0.18 -> 0.26). End to end, see the commit. The same for a
  one-sentence question that opens with a phrase framing its request ("For the learning exercises,
  how much ...?"): `clause_parts`, variants and numbers in bench/clause_study.py.
- The everyday words of a paraphrase ("lags way behind", "keep up", "talk to each other internally")
  are missing from the passages that answer it. `everyday` (coverage without words of zipf >= 5.0):
  in-scope answered train +7, dev2 +3, dev5 +1, tune +0 (relevant in the top 5: -1), but near misses and
  out-of-scope refused tune 39 -> 37, train 86 -> 84, dev2 42 -> 39; zipf 5.5 loses tune answers and
  train near misses; 6.0 changes nothing but train -2 near misses. The same trade as lowering the
  threshold: not kept.
- Missing words the collection uses elsewhere counted a quarter / half present in `cov` (an unknown
  word, the near misses' usual miss, still counts missing; replayed like `everyday`, that code not kept;
  in-scope answered / near misses and
  out-of-scope refused): tune 92 -> 93 / 96, 39 -> 38 / 37 of 44; train 186 -> 190 / 196, 86 -> 83 / 79
  of 94; dev2 96 -> 101 / 105, 42 -> 41 / 39 of 53; dev5 27 -> 28 / 28, 9 -> 8 / 8 of 12. A better rate
  than the threshold's 1:1, yet near misses lost on every set: not kept.

Also measured, not kept:
- "Can I roughly halve that delay ...?" is searched as "... have that delay" (lectern/spelling.py:
  "halve", zipf 2.6, is one letter from "have", as common typos are: "recieve" 2.75, "seperate" 2.8).
  A rare word with an everyday inflection ("halves" 3.5) kept as it is, while a slip's inflections are
  slips too ("recieved", "seperated"), fixes the search text of both such questions in the sets
  (d2d-in-03, d5c-in-01), but the reader's "halve" is then a missing rare word the collection never
  uses: d2d-in-03 answered (p 0.81, every keyword) -> refused (0.38), d5c-in-01 0.34 -> 0.22. The
  misreading happened to help. Rarity read from a word's family as well (the commonest of the word and
  its "-s", "-es", "-d", "-ed", "-ing" forms, replayed over the searches with "halve" kept) changes no
  decision on tune, train or dev2 and does not bring d2d-in-03 back (dev2 95 answered against 96), so
  the respelling stays.
- "TV" is read as a name (all capitals), and missing and unknown to the collection weighs -3 in the
  log-odds (d5b-in-13, p = 0.03). Reading an acronym that is everyday English (zipf >= 4.5) as a word
  would also unname near misses' "ACT" (5.3) and "C++" (5.3) of the sets; not changed.
- An inflected form missing from wordfreq reads as the rarest of words ("mishears" zipf 0, "mishear"
  1.4): one question (d5b-in-13), which the "TV" weight refuses anyway.

A lead, not tried: the near misses still answered on the sets (27 of 212 single-turn ones) mostly lack
one or two of the question's *nouns* ("gearboxes", "skeleton", "checkerboard", "thermal", "drone",
"arrows", "vector database"), the refused in-scope questions its verbs and adverbs ("lags", "keep up",
"talk ... internally", "obeying", "boldly"). Coverage weighs them alike (by rarity); telling them apart
needs a part-of-speech guess and retraining the model.

Still open on dev5: a comparison whose second side is a sibling section not retrieved (precision vs
power grasps), a list of reasons cut to two of four items by the answer's room (a why-question), and
the keyword inside code (`social_zone`) or in a bare lead-in before code ("Synchronous (blocks until
response):"), which the writer never offers on its own (bench/kw_in_passages_study.py).
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path
from typing import Any

from common import single_turn_searches, tally_decision
from lectern import answerability, word_frequency

EVERYDAY = (5.0, 5.5, 6.0)
_QUESTION_TERMS = answerability.question_terms  # as shipped: `everyday` swaps the module's in and out


def _class(r: dict[str, Any]) -> str:
    if r["answered"] and r["relevant_cited"] and r["has_keywords"]:
        return "ok"
    if not r["answered"]:
        return "refused, relevant in top 5" if r["relevant_top5"] else "refused, none in top 5"
    if not r["relevant_cited"]:
        return "no relevant file cited"
    return "keyword in no passage" if not r["passages_keywords"] else "keyword not quoted"


def classify(path: Path, text: bool) -> None:
    rows = [r for rs in json.loads(path.read_text())["rows"].values() for r in rs]
    for r in rows:
        if r["kind"] == "in_scope":
            label = _class(r)
            if label == "ok":
                continue
        elif r["answered"]:
            label = f"{r['kind']} answered"
        else:
            continue
        print(f"{r['id']:12} {label:28} {r['level']:12} {r['score']}")
        print(f"   {r['question']}")
        if r["kind"] == "in_scope":
            print(f"   keywords {r['keywords']} expected {r['expected']} cited {r['sources']}")
        if text:
            print("   " + (r["text"] or "")[:600].replace("\n", " | "))


def _without_everyday(question: str, zipf: float) -> list[tuple[str, bool]]:
    return [(w, name) for w, name in _QUESTION_TERMS(question) if name or word_frequency.zipf(w) < zipf]


def everyday(paths: list[Path]) -> None:
    original = _QUESTION_TERMS
    for path in paths:
        books = json.loads(path.read_text())["rows"]
        counts = {
            z: [0, 0, 0, 0] for z in (0.0, *EVERYDAY)
        }  # answered, top 5 answered, refused, unanswerable
        for engine, model, r, query, result in single_turn_searches(books):
            full = engine._signals(query, result)
            for z, c in counts.items():
                values = list(full.values)
                if z:
                    answerability.question_terms = lambda q, z=z: _without_everyday(q, z)  # type: ignore[misc]
                    try:
                        reduced = engine._signals(query, result)
                    finally:
                        answerability.question_terms = original
                    for feature in ("cov", "cov_top1", "heading"):
                        i = answerability.FEATURES.index(feature)
                        values[i] = reduced.values[i]
                p = model.probability(answerability.Signals(tuple(values), full.missing, full.unknown))
                tally_decision(c, r, p, model.threshold)
        for z, (a, a5, refused, unanswerable) in counts.items():
            label = f"zipf >= {z}" if z else "as shipped"
            print(
                f"{path.stem:24} {label:12} in-scope answered {a} (relevant in top 5: {a5}), "
                f"unanswerable refused {refused}/{unanswerable}"
            )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    sub = parser.add_subparsers(dest="command", required=True)
    c = sub.add_parser("classify")
    c.add_argument("result", type=Path)
    c.add_argument("--text", action="store_true")
    e = sub.add_parser("everyday")
    e.add_argument("results", type=Path, nargs="+")
    args = parser.parse_args()
    if args.command == "classify":
        classify(args.result, args.text)
    else:
        everyday(args.results)


if __name__ == "__main__":
    main()
