"""Study: which extractive-writer changes hold on every book of both question sets (replayed, seconds).

    uv run python bench/writer_replay.py record NAME ...          # once per split (tune; train --split all)
    uv run python bench/writer_variants_study.py REC [REC ...] [--only VARIANT ...] [--followups]

Replays the writer in the working tree on writer_replay recordings (bench/results/REC.replay.pkl), once
as it is and once per variant (module settings or functions of `lectern.writers.extractive` swapped for
the run), and prints for each recording: answered in-scope answers with every keyword, the change per
book (a, b, c, d: the id's second letter), answers gained and lost, the change in answers that cite a
relevant file, and the mean answer length in words. A change worth keeping gains or holds on each
recording and on each book; one that wins on one book and loses on another is fitted to questions.
`--followups` scores the follow-up questions instead (replayed on their recorded turn: a longer first
answer that cites more files can change a follow-up's retrieval live, which this cannot see).

Findings (Nov 2026, base main 8a78247; tune = reader sets --split tune, 91 answered in-scope questions;
train = train-* sets --split all, 185; keyword % of answered in-scope answers, change per book a/b/c/d):

    variant (base: 5 sentences, floor 0.5, 120 words)    tune                   train                  words
    base                                                 76.9                   82.2                   150/147
    4 sentences                                          71.4 (-1 -3 -1 +0)     79.5 (+0 -1 -3 -1)     135/137
    6 sentences                                          78.0 (+0 +1 +0 +0)     82.7 (+0 +0 +0 +1)     158/154
    floor 0.4                                            78.0 (+0 +0 +1 +0)     82.7 (+0 +1 +0 +0)     152/151
    floor 0.6                                            73.6 (-1 +0 -2 +0)     79.5 (-1 +0 -3 -1)     136/135
    6 sentences, floor 0.4, 180 words (kept)             80.2 (+0 +2 +1 +0)     83.2 (+0 +1 +0 +1)     166/167
    7 sentences, floor 0.4, 180 words                    81.3 (+0 +2 +1 +1)     83.2 (+0 +1 +0 +1)     181/176
    8 sentences, floor 0.4, 200 words                    81.3 (+0 +2 +1 +1)     83.8 (+0 +2 +0 +1)     196/184
    score by cosine alone                                67.0 (-3 -4 -2 +0)     73.5 (-5 -3 -7 -1)     176/175
    cosine and rank prior only                           74.7 (-1 +0 -1 +0)     78.9 (+0 -5 -1 +0)     139/133
    any one MEANING_WEIGHTS weight x0.5-1.5 or 0         -5..+1 on tune, -16..0 on train (sharp optimum)
    no cue lift (CUE_BONUS 0)                            73.6 (+0 +0 -3 +0)     79.5 (-1 -1 -2 -1)
    no source-diversity lift                             76.9 (+1 -1 churn)     79.5 (+0 -2 -2 -1)
    MMR lambda 0.5 / 0.85 / 1.0                          64.8 / 73.6 / 73.6     72.4 / 78.9 / 78.9

Rule ablations on the base (each rule swapped for a no-op): most of the writer's special cases each
hold one or two answers of one set and none of the other (`_with_commented_code`, `_AIMS`,
`_outmatching`, `_TWO_ASKS`: tune -1 only; `_with_named_code`, `_with_code_lines`,
`_with_listing_continued`, `_solution_after`, `_completed`: train -1 only), the mark of rules fitted
to single questions; a few carry both (`_with_context` -4/-12, `_with_introduced_code` -4/-11,
`_with_top_code` -2/-5, `_with_lead_ins` -1/-2, the reserve -1/-1). `_favour_definitions` (a lift for
a sentence that opens with a "What is X?" question's head noun) and `_behind_sources` change no keyword
on either set; `_TWO_ASKS` changes none once every answer has six sentences. The first and the last
are gone since.

Ideas measured on top of the six-sentence writer, none kept (tune / train, gained-lost):
- a list item scored with its list's lead-in (cosine the mean of its own and the lead-in's, 0.3 / 0.5;
  or the greater of the two): tune 80.2-81.3, train 82.2-83.2 (wins on tune, loses on train);
- the unit nearest the question in meaning always leads the answer: tune 76.9 (-3), train 83.2;
- the sentence after a quoted one that continues it ("This ...", "It ...", "However ..."): no change;
- the best unit of each of the first 3 / 5 / 10 sources not yet quoted (score >= 0.5-0.7 of the best):
  tune +1 (one question), train +0 to +2 at up to +28 words;
- per question kind, no cue lift: why and compare change nothing, quantity train -1, how-to tune -1
  train -2, problem tune -1;
- length chosen on three books and measured on the fourth (grid 5-8 sentences, 120-220 words, floor
  0.3-0.5): held-out book +0 or +1 on each set, never worse.

End to end (bench/answer_quality.py, the kept writer against main): answered, cited, near misses and
out-of-scope refused and AUROC unchanged on tune and train; every keyword tune 76.9 -> 80.2 %, train
82.2 -> 83.2 %; follow-ups with every keyword tune 68.8 % both, train 90.9 -> 89.4 % (td-fu-07: its
first answer cites one more file, and its passages move); answered in-scope words 154 -> 171 (tune),
152 -> 172 (train).

The writer is not where the unseen questions' keywords are lost. With the kept writer, answered
in-scope answers missing a keyword that the passages it got hold (its share) against those whose
passages lack one: tune 9.9 % / 9.9 %, train 6.5 % / 10.3 %, and on a fresh set written after
these changes were chosen (fresh-textbook-{a..d}, 61 answered in-scope, checked once) 6.6 % / 21.3 %:
72.1 % of its answers have every keyword with this writer and with main's (no answer gained or lost;
follow-ups 10 -> 11 of 17). Longer answers held there but did not help; the passages did not hold the
keyword twice as often as on the tuned sets.
"""

from __future__ import annotations

import argparse
import importlib
import pickle
import pkgutil
import re
import sys
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import Any

import answer_quality
import lectern.writers.extractive as extractive
import lectern.writers.extractive.writer as writer
from common import RESULTS
from lectern.writers.selection import quotable_of
from writer_replay import request_of

_NEVER = re.compile(r"(?!x)x")


def _no_op(chosen: list[Any], *args: Any, **kwargs: Any) -> list[Any]:
    return chosen


def _weights(**changes: float) -> dict[str, float]:
    return {**writer.MEANING_WEIGHTS, **changes}


# Each variant: module attributes of `lectern.writers.extractive`'s modules and their values for the run.
VARIANTS: dict[str, dict[str, Any]] = {
    "5 sentences": {"MAX_SENTENCES": 5},
    "7 sentences": {"MAX_SENTENCES": 7},
    "floor 0.5": {"RELATIVE_FLOOR": 0.5},
    "floor 0.3": {"RELATIVE_FLOOR": 0.3},
    "120 words": {"MAX_PROSE_WORDS": 120},
    "main's length": {"MAX_SENTENCES": 5, "RELATIVE_FLOOR": 0.5, "MAX_PROSE_WORDS": 120},
    "cosine alone": {"MEANING_WEIGHTS": {k: float(k == "cosine") for k in writer.MEANING_WEIGHTS}},
    "no rank prior": {"MEANING_WEIGHTS": _weights(rank=0.0)},
    "no headings": {"MEANING_WEIGHTS": _weights(heading=0.0)},
    "no cue lift": {"CUE_BONUS": 0.0},
    "no source diversity": {"SOURCE_DIVERSITY": 0.0},
    "no context": {"_with_context": _no_op},
    "no introduced code": {"_with_introduced_code": _no_op},
    "no commented code": {"_with_commented_code": _no_op},
    "no named code": {"_with_named_code": _no_op},
    "no code lines": {"_with_code_lines": _no_op},
    "no lead-ins": {"_with_lead_ins": _no_op},
    "no aims": {"_AIMS": _NEVER},
    "no reserve leads-never": {"_behind_sources": lambda *args: None},
}


# The package's modules: a setting or step is looked up in the module that uses it (`writer` for the
# steps `compose` calls, `mmr` for its floors), so each is set in every module that holds it.
MODULES = [
    importlib.import_module(f"lectern.writers.extractive.{module.name}")
    for module in pkgutil.iter_modules(extractive.__path__)
]


@contextmanager
def _patched(changes: dict[str, Any]) -> Iterator[None]:
    old = {
        (module, name): getattr(module, name)
        for module in MODULES
        for name in changes
        if hasattr(module, name)
    }
    assert {name for _, name in old} == set(changes), changes
    for module, name in old:
        setattr(module, name, changes[name])
    try:
        yield
    finally:
        for (module, name), value in old.items():
            setattr(module, name, value)


def replay(kept: dict[str, dict[str, Any]], kind: str) -> dict[str, dict[str, Any]]:
    """Each answered question of `kind`: whether the answer has every keyword, cites a relevant file,
    and its length in words."""
    composer = writer.ExtractiveWriter()
    out: dict[str, dict[str, Any]] = {}
    for qid, item in kept.items():
        row, req = item["row"], item["request"]
        if not row["answered"] or req is None or row["kind"] != kind or not row["keywords"]:
            continue
        request = request_of(req)
        text, cited = composer.compose(request)
        hits = quotable_of(request)
        paths = {hits[n - 1].chunk.source_path for n in cited if n <= len(hits)}
        out[qid] = {
            "keywords": answer_quality.has_keywords(text, row["keywords"]),
            "cited": bool(paths & set(row["expected"])),
            "words": len(text.split()),
        }
    return out


def line(rows: dict[str, dict[str, Any]], base: dict[str, dict[str, Any]] | None = None) -> str:
    n = max(len(rows), 1)
    books = sorted({q[1] for q in rows})
    share = f"{100 * sum(r['keywords'] for r in rows.values()) / n:5.1f} %"
    words = f"words {sum(r['words'] for r in rows.values()) / n:5.1f}"
    if base is None:
        per_book = " ".join(f"{b}:{sum(r['keywords'] for q, r in rows.items() if q[1] == b)}" for b in books)
        return f"{share} ({per_book}) {words}"
    delta: Callable[[str], int] = lambda b: sum(  # noqa: E731
        rows[q]["keywords"] - base[q]["keywords"] for q in rows if q[1] == b
    )
    gained = sum(1 for q in rows if rows[q]["keywords"] and not base[q]["keywords"])
    lost = sum(1 for q in rows if base[q]["keywords"] and not rows[q]["keywords"])
    cited = sum(rows[q]["cited"] - base[q]["cited"] for q in rows)
    per_book = " ".join(f"{delta(b):+d}" for b in books)
    return f"{share} ({per_book}) +{gained} -{lost} cited {cited:+d} {words}"


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("names", nargs="+", help="writer_replay recordings (bench/results/NAME.replay.pkl)")
    parser.add_argument("--only", nargs="*", default=None, help="variants to run (default: all)")
    parser.add_argument("--followups", action="store_true", help="score follow-ups, not in-scope questions")
    args = parser.parse_args()
    kind = "followup" if args.followups else "in_scope"
    kept = {n: pickle.loads((RESULTS / f"{n}.replay.pkl").read_bytes()) for n in args.names}
    base = {n: replay(k, kind) for n, k in kept.items()}
    print(f"{'as it is':24s} " + " | ".join(f"{n} {line(base[n])}" for n in kept))
    for name, changes in VARIANTS.items():
        if args.only is not None and name not in args.only:
            continue
        with _patched(changes):
            rows = {n: replay(k, kind) for n, k in kept.items()}
        print(f"{name:24s} " + " | ".join(f"{n} {line(rows[n], base[n])}" for n in kept), flush=True)
    sys.stdout.flush()


if __name__ == "__main__":
    main()
