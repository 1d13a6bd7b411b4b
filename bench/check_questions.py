"""Check a question set against its book before it is used for training or evaluation.

    python bench/check_questions.py BOOK_ROOT QUESTIONS.jsonl [--against OTHER.jsonl ...]

Reports, and exits 1 on any of them:
- a line that is not JSON, a record whose fields do not match its kind, a repeated id (a near miss
  has either a question or two turns: a covered first question, then one the book cannot answer);
- an expected file missing under BOOK_ROOT;
- a keyword (case-insensitive) found in none of the record's expected files;
- a question or turn that nearly repeats one in the --against sets or earlier in the same set
  (a training set must not leak the evaluation questions).
Prints the counts per kind and the share of in-scope questions marked as paraphrases.
"""

from __future__ import annotations

import argparse
import difflib
import json
import re
import sys
from collections import Counter
from pathlib import Path
from typing import Any

FIELDS = {
    "in_scope": ["id", "kind", "question", "expected", "keywords", "paraphrase", "type", "split"],
    "near_miss": ["id", "kind", "question", "why", "split"],
    "out_of_scope": ["id", "kind", "question", "split"],
    "followup": ["id", "kind", "turns", "expected", "keywords", "dependent", "split"],
}
# A follow-up the book cannot answer: a near miss asked as the second turn after a covered question.
NEAR_MISS_TURNS = ["id", "kind", "turns", "why", "split"]
TYPES = {
    "definition",
    "how",
    "why",
    "troubleshooting",
    "compare",
    "comparison",
    "how_many",
    "which",
    "fact",
    "list",
    "other",
}
SIMILAR = 0.75  # difflib ratio over the words of two questions above which one counts as a rephrasing


def normalise(text: str) -> list[str]:
    return re.sub(r"[^a-z0-9 ]", "", text.lower()).split()


def questions(record: dict[str, Any]) -> list[str]:
    return [record["question"]] if "question" in record else list(record.get("turns", []))


def record_errors(record: dict[str, Any], root: Path) -> list[str]:
    kind = record.get("kind")
    if kind not in FIELDS:
        return [f"unknown kind {kind!r}"]
    fields = NEAR_MISS_TURNS if kind == "near_miss" and "turns" in record else FIELDS[kind]
    if sorted(record) != sorted(fields):
        return [f"fields {sorted(record)} do not match {kind}"]
    errors = []
    if kind == "in_scope" and record["type"] not in TYPES:
        errors.append(f"unknown type {record['type']!r}")
    # A near miss asked as a follow-up has exactly two turns; an answerable follow-up may run to three
    # (a conversation scored on its last turn).
    most = 3 if kind == "followup" else 2
    if "turns" in record and not 2 <= len(record["turns"]) <= most:
        errors.append(f"a {kind} needs 2 to {most} turns")
    if kind in ("in_scope", "followup"):
        texts = []
        for rel in record["expected"]:
            path = root / rel
            if path.is_file():
                texts.append(path.read_text(encoding="utf-8").lower())
            else:
                errors.append(f"expected file missing: {rel}")
        errors += [
            f"keyword not in any expected file: {k!r}"
            for k in record["keywords"]
            if not any(k.lower() in t for t in texts)
        ]
    return errors


def main() -> int:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("root", type=Path, help="book root that expected paths are relative to")
    parser.add_argument("questions", type=Path)
    parser.add_argument("--against", type=Path, nargs="*", default=[], help="sets it must not repeat")
    args = parser.parse_args()

    seen: list[tuple[list[str], str]] = []  # (normalised question, where it comes from)
    for other in args.against:
        for line in other.read_text(encoding="utf-8").splitlines():
            record = json.loads(line)
            seen += [(normalise(q), f"{other.name}:{record['id']}") for q in questions(record)]

    failures = 0
    ids: set[str] = set()
    kinds: Counter[str] = Counter()
    paraphrased = 0
    for number, line in enumerate(args.questions.read_text(encoding="utf-8").splitlines(), 1):
        try:
            record = json.loads(line)
        except json.JSONDecodeError as error:
            print(f"line {number}: not JSON: {error}")
            failures += 1
            continue
        name = record.get("id", f"line {number}")
        problems = record_errors(record, args.root)
        if name in ids:
            problems.append("repeated id")
        ids.add(name)
        for question in questions(record):
            norm = normalise(question)
            for previous, where in seen:
                ratio = difflib.SequenceMatcher(None, norm, previous).ratio()
                if ratio >= SIMILAR:
                    problems.append(f"{question!r} repeats {where} ({ratio:.2f})")
            seen.append((norm, name))
        for problem in problems:
            print(f"{name}: {problem}")
        failures += len(problems)
        kinds[record.get("kind", "?")] += 1
        paraphrased += bool(record.get("kind") == "in_scope" and record.get("paraphrase"))
    share = paraphrased / kinds["in_scope"] if kinds["in_scope"] else 0.0
    print(f"{args.questions.name}: {dict(kinds)}, paraphrase {paraphrased}/{kinds['in_scope']} ({share:.0%})")
    print(f"{failures} problem(s)")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
