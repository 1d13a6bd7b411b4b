"""Dressed copies of a question set: each single question's `question` (a follow-up record's last turn)
dressed the way readers dress theirs, one folder per dressing, for bench/answer_quality.py to ask end to
end with the same --split.

    .venv/bin/python bench/dressed_questions.py PREFIX OUT [--split SPLIT] [--dressings hi,thanks-end]
    # OUT/DRESSING/PREFIX-textbook-X.jsonl, only the records of SPLIT (default tune); then
    bench/answer_quality.py $D/textbook-a OUT/hi/PREFIX-textbook-a.jsonl ... --split SPLIT --out NAME

Only the records of the split asked for are copied (a held-back split only when the caller names it).

Findings, tuned sets only, four books pooled; main cc2baed (before) and `lectern.courtesy.without_courtesy`
read at the engine's edge (after). train:tune, in-scope cited / with keywords / near misses refused /
out-of-scope refused / follow-ups cited (219 in-scope, 80 near misses, 32 out of scope, 67 follow-ups):
    plain           before 180/163/72/32/67   after 180/163/72/32/67
    "Hi! "          before  42/ 37/77/32/14   after = plain
    ", please?"     before 181/159/67/32/67   after = plain
    " Thanks!"      before 181/161/67/32/67   after = plain
    "Can you tell me: "  before 188/163/61/32/66   after = plain
    "I was wondering, "  before 173/150/69/32/57   after = plain
    "hello, "       before 163/145/69/32/54   after = plain
    "Quick question: "   before 171/144/70/32/46   after = plain
After, every dressing gives the plain question's outcome on every row of train:tune, reader:tune,
dev16:dev16, dev17:dev17, followups-dev3:dev3 and followups-dev16:dev16 (only the echoed search query
differs, by the first letter's case after "I was wondering, " / "hello, "). Plain questions: 0 rows
differ on those sets but one train:tune follow-up turn, "ok, what settings would ...", whose echoed
search query drops its "ok," (answer byte-identical). "Can you show me ..." / "Can you give me ..." are
kept as asked: read as "show me ..." they changed two tuned answers' wording (never an outcome).
reader:tune "Hi! ": in-scope cited 24 -> 89 of 100, follow-ups 6 -> 31 of 32; dev17 "Hi! ": 2 -> 24 of 32.
Why each dressing broke: the question as asked was the search text, the answerability decision's question
and the writer's question. `answerability.question_terms("Hi! How do I launch a node?")` is [("Hi", True),
("node", False)]: the capitalised "Hi" looks like a name, a topic word the passages lack, so the decision's
coverage signals fell and most answers were refused (textbook-d's far less; why was not checked). "I was
wondering, " and "Quick question: " likewise add terms ("wondering", "Quick") no passage has; in a follow-up
they also hide the opening word the rewrite reads ("and ...", "what about ..."), which fu23 read past only
for "ok,"/"thanks!"-like fillers. ", please?", " Thanks!" and "Can you tell me: " add no term but move the
search text's vector and the keyword search, which made the decision answer near misses more (61 of 80
refused with "Can you tell me: " against 72). The follow-up rewrite read "please"/"thanks"/"ok," past since
fu23, but kept the question as asked as its search text when it did not rewrite it, and single questions
were not read past at all. Now the engine derives the question as read once (`_Turn.plain`): it is respelt,
searched, judged and written for; the conversation stores the question as asked.
"""

from __future__ import annotations

import argparse
import json
from collections.abc import Callable
from pathlib import Path

QUESTIONS = Path(__file__).parent / "questions"


def _lower_first(q: str) -> str:
    """The question's first letter in lower case after a preamble, unless it starts a name ("ROS")."""
    return q[:1].lower() + q[1:] if q[1:2].islower() else q


DRESSINGS: dict[str, Callable[[str], str]] = {
    "plain": lambda q: q,
    "hi": lambda q: "Hi! " + q,
    "please-end": lambda q: q.rstrip(" ?") + ", please?",
    "thanks-end": lambda q: q + " Thanks!",
    "tell-me": lambda q: "Can you tell me: " + q,
    "wondering": lambda q: "I was wondering, " + _lower_first(q),
    "hello-lower": lambda q: "hello, " + _lower_first(q),
    "quick-question": lambda q: "Quick question: " + q,
}


def dressed(record: dict[str, object], dress: Callable[[str], str]) -> dict[str, object]:
    """`record` with its question (a follow-up's last turn) dressed."""
    out = dict(record)
    turns = record.get("turns")
    if isinstance(turns, list) and turns:
        out["turns"] = [*turns[:-1], dress(str(turns[-1]))]
    elif isinstance(record.get("question"), str):
        out["question"] = dress(str(record["question"]))
    return out


def write(prefix: str, split: str, out: Path, names: list[str]) -> None:
    paths = sorted(QUESTIONS.glob(f"{prefix}-textbook-?.jsonl"))
    if not paths:
        raise SystemExit(f"no question files bench/questions/{prefix}-textbook-?.jsonl")
    for name in names:
        folder = out / name
        folder.mkdir(parents=True, exist_ok=True)
        for path in paths:
            kept = []
            for line in path.read_text().splitlines():
                if line.strip():
                    record = json.loads(line)
                    if str(record.get("split", "tune")) == split:
                        kept.append(json.dumps(dressed(record, DRESSINGS[name])))
            (folder / path.name).write_text("\n".join(kept) + "\n")
        print(f"{folder}: {len(paths)} files")


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("prefix", help="question set, e.g. train, reader, dev17, followups-dev16")
    parser.add_argument("out", type=Path)
    parser.add_argument("--split", default="tune", help="the records copied (default tune)")
    parser.add_argument(
        "--dressings", default=",".join(DRESSINGS), help="comma-separated: " + ",".join(DRESSINGS)
    )
    args = parser.parse_args()
    names = [n for n in args.dressings.split(",") if n]
    unknown = [n for n in names if n not in DRESSINGS]
    if unknown:
        raise SystemExit(f"unknown dressings: {unknown}")
    write(args.prefix, args.split, args.out, names)


if __name__ == "__main__":
    main()
