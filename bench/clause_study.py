"""Replay: one-sentence questions cut at clause boundaries for coverage (cov, cov_top1), as
`answerability.sentence_parts` cuts questions of several sentences.

    PYTHONHASHSEED=0 .venv/bin/python bench/clause_study.py RESULT.json [RESULT.json ...]

For each single-turn row of a bench/answer_quality.py result, the engine's own search is run again and
the answerability model (unchanged, no retraining) is asked with each variant's parts in place of
`sentence_parts` (and `clause_parts` off); per variant it prints in-scope answered (and of them with a
relevant file in the top 5), unanswerable refused, and every row whose decision changed or whose score
moved by more than 0.1. A variant's parts are used only where `sentence_parts` finds none.

Findings (Nov 2026, MiniLM, base main b966362; results of the base on tune, train, dev2, dev5):

    variant            cut at                                    parts        tune    train   dev2    dev5
    sentences only     (the base)                                             92/39   186/86  96/42   27/9
    strong             ";", " - ", ", so", ", but"               all          92/39   186/86  96/42   27/9
    strong, request    the same                                  the request  92/39   186/86  96/42   27/9
    ask                + ", " before a question word             all          94/39   188/84  98/42   28/9
    ask, request       the same                                  the request  92/39   186/85  97/42   27/9
    comma              any ", " too                              all          94/39   190/82  98/42   28/9
    comma, request     the same                                  the request  92/39   187/83  97/42   27/9
    ask, lead   KEPT   as ask, only a question opening with a    all          94/39   188/86  98/42   28/9
                       framing word ("For", "If", "In", "When",
                       "Beyond", "Besides", ...)
    comma, lead        as comma, the same condition              all          94/39   188/85  98/42   28/9
    (cells: in-scope answered / near misses and out-of-scope refused, of 100/44, 219/94, 120/53, 32/12)

- The strong marks alone change no decision: the sets' refused in-scope questions of one sentence have
  none ("..., so what settings ...?", "...; how do I ...?" are rare in readers' questions as written).
- Cutting every one-sentence question at ", <question word>" answers two more train near misses whose
  situation clause is a clause of its own and holds the very topic the books lack: "my humanoid has to
  climb stairs, how do I work out where each foot should land?" (0.32 -> 0.54), "the robot hears its
  own speaker and treats its own voice as a new command, how do I cancel that echo?" (0.29 -> 0.48).
  Any comma loses four (also "In dog training, what does positive reinforcement mean, and should I use
  treats?" 0.28 -> 0.53, out of scope). Counting only the request part (the clause that opens with a
  question word or ends the question) gains less and still loses tc-nm-11.
- Kept (`answerability.clause_parts`): a question opening with a phrase or clause that frames its
  request ("For the learning exercises, how much of the grade goes to the code and how much to the
  write-up?" 0.34 -> 0.82, "Beyond whether it finished the job, how should I judge how well my warehouse
  robot performed?" 0.32 -> 0.60, "If I'm streaming camera frames and don't care if a few get dropped,
  which delivery setting should my subscriber use?" 0.39 -> 0.51), cut at ", <question word|so|but>",
  ";" or a dash. Only 3 of the 203 unanswerable questions of the four sets are cut at all (largest rise
  0.18 -> 0.26, "During a long shift, how should a humanoid decide when to stop and go recharge?"; the
  dog-training question 0.28 -> 0.31; a near miss already answered 0.73 -> 0.77), so the evidence that
  it keeps near misses refused is thin: 41 in-scope questions are cut, 3 unanswerable ones.
  End to end (bench/answer_quality.py, before with PYTHONPATH at the base's src): in-scope answered with
  a relevant file cited tune 88 -> 89, train 174 -> 175, dev2 87 -> 89, dev5 27 -> 28; every keyword
  train 152 -> 153, dev5 21 -> 22; answered citing no relevant file tune 4 -> 5 ("For camera or lidar
  data coming in really fast, should I make delivery guaranteed or not?"), train 12 -> 13 ("For top
  marks on the humanoid capstone, how fast do the critical control loops need to be?"), neither with a
  relevant file in the top 5; near misses and out-of-scope refused unchanged on every set; follow-up
  sets dev and dev2 row-identical; bench/followup_misses.py identical (23/28, 107/120).
"""

from __future__ import annotations

import argparse
import json
import re
from collections.abc import Callable
from pathlib import Path

from common import single_turn_searches, tally_decision
from lectern import answerability

_SHIPPED = answerability.sentence_parts
_CLAUSES = answerability.clause_parts  # kept: "ask, lead" below
_ASK = r"(?:what|what's|how|why|which|where|when|who|should|can|could|do|does|did|is|are|will|would)"
CUTS = {
    # strong marks only: ";", a dash, ", so", ", but"
    "strong": re.compile(r"\s*;\s+|\s+[-\u2013\u2014]+\s+|,\s+(?=(?:so|but)\b)", re.I),
    # strong marks and a comma before a question word ("..., what should I check?")
    "ask": re.compile(rf"\s*;\s+|\s+[-\u2013\u2014]+\s+|,\s+(?=(?:so|but|{_ASK})\b)", re.I),
    # any comma as well
    "comma": re.compile(r"\s*;\s+|\s+[-\u2013\u2014]+\s+|,\s+", re.I),
}


# a sentence that opens with a phrase or clause framing its request ("For X, ...", "If X, ...")
_LEAD = re.compile(
    r"(?:for|if|in|when|whenever|once|beyond|besides|apart from|aside from|after|before|while|with|"
    r"without|since|because|as|although|though|on|at|during|unless|until|given|to)\b",
    re.I,
)


def _clauses(question: str, cut: re.Pattern[str], request_only: bool, lead: bool = False) -> list[str]:
    if "(" in question:
        return []
    shipped = _SHIPPED(question)
    if shipped:
        return shipped
    if lead and not _LEAD.match(question.strip()):
        return []
    pieces = [p for p in cut.split(question.strip()) if p]
    named = [p for p in pieces if len(answerability.question_terms(p)) >= answerability.PART_TERMS]
    if len(named) < 2:
        return []
    if request_only:
        opens = re.compile(rf"(?:so\s+|but\s+)?{_ASK}\b", re.I)
        asks = [p for p in named if opens.match(p) or p.rstrip().endswith("?")]
        return asks[-1:] if asks else []
    return named


def _none(_: str) -> list[str]:
    return []


def variants() -> dict[str, Callable[[str], list[str]]]:
    out: dict[str, Callable[[str], list[str]]] = {
        "sentences only": _SHIPPED,
        "kept": lambda q: _SHIPPED(q) or _CLAUSES(q),
    }
    for name, cut in CUTS.items():
        out[name] = lambda q, cut=cut: _clauses(q, cut, False)
        out[f"{name}, request"] = lambda q, cut=cut: _clauses(q, cut, True)
        out[f"{name}, lead"] = lambda q, cut=cut: _clauses(q, cut, False, True)
        out[f"{name}, lead, req"] = lambda q, cut=cut: _clauses(q, cut, True, True)
    return out


def replay(paths: list[Path]) -> None:
    parts = variants()
    for path in paths:
        books = json.loads(path.read_text())["rows"]
        counts: dict[str, list[int]] = {v: [0, 0, 0, 0] for v in parts}
        changed: dict[str, list[str]] = {v: [] for v in parts}
        for engine, model, r, query, result in single_turn_searches(books):
            base_p = None
            for name, fn in parts.items():
                answerability.sentence_parts = fn  # type: ignore[assignment]
                answerability.clause_parts = _none  # type: ignore[assignment]
                try:
                    p = model.probability(engine._signals(query, result))
                finally:
                    answerability.sentence_parts = _SHIPPED  # type: ignore[assignment]
                    answerability.clause_parts = _CLAUSES  # type: ignore[assignment]
                if base_p is None:
                    base_p = p
                tally_decision(counts[name], r, p, model.threshold)
                if (p >= model.threshold) != (base_p >= model.threshold) or abs(p - base_p) > 0.1:
                    changed[name].append(f"{r['id']} {r['kind']} {base_p:.2f}->{p:.2f} {r['question']}")
        for name, (a, a5, refused, unanswerable) in counts.items():
            print(
                f"{path.stem:16} {name:16} in-scope answered {a} (relevant in top 5: {a5}), "
                f"unanswerable refused {refused}/{unanswerable}"
            )
            for line in changed[name]:
                print(f"    {line}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("results", type=Path, nargs="+")
    replay(parser.parse_args().results)


if __name__ == "__main__":
    main()
