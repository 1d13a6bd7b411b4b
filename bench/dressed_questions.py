"""Dressed copies of a question set: each single question's `question` (a follow-up record's last turn)
dressed the way readers dress theirs, one folder per dressing, for bench/answer_quality.py to ask end to
end with the same --split.

    .venv/bin/python bench/dressed_questions.py PREFIX OUT [--split SPLIT] [--dressings hi,thanks-end]
    # OUT/DRESSING/PREFIX-textbook-X.jsonl, only the records of SPLIT (default tune); then
    bench/answer_quality.py $D/textbook-a OUT/hi/PREFIX-textbook-a.jsonl ... --split SPLIT --out NAME

Only the records of the split asked for are copied (a held-back split only when the caller names it).

Findings (train-textbook-{a..d} --split tune, four books pooled; in-scope cited / keywords / near
misses refused / out-of-scope refused; main cc2baed before, `lectern.courtesy.without_courtesy` at the
engine's edge after; see the branch's report for the other sets):
Why each dressing broke on main: the question as asked was the search text, the answerability
decision's question and the writer's question. "Hi! " put "hi" among the question's terms, a word no
passage has, so the decision's coverage fell and most answers were refused (the books whose passages
answer with few question words fell most); "Hi" also reads as a misspelling, so the question was
respelt first. ", please?" / " Thanks!" kept the terms (the ranking and coverage moved a little both
ways), and "Can you tell me: " / "I was wondering, " added words that pull the search towards passages
that "tell" or "wonder" and hide the question's first word (its kind: "how", "what", "can ...") from the
readings that look at it. The follow-up rewrite already read courtesy past (`without_courtesy`, fu23),
single questions did not. Now one reading serves both: the engine derives the question as read once
(`_Turn.plain`), searches, judges and writes for it, and stores and shows the question as asked.
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
