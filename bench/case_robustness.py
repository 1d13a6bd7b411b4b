"""Write a question set's single questions lower-cased or without their question mark, to measure how
much the answer depends on the reader's capitals and punctuation.

    .venv/bin/python bench/case_robustness.py PREFIX SPLIT OUT_FOLDER
    # writes OUT_FOLDER/{lower,no-mark}/PREFIX-textbook-{a,b,c,d}.jsonl: only SPLIT's records, each single
    # question's `question` dressed, and a follow-up's last turn
    D=/work/shared/data/textbooks; for v in lower no-mark; do F=OUT_FOLDER/$v
      PYTHONHASHSEED=0 .venv/bin/python bench/answer_quality.py $D/textbook-a $F/PREFIX-textbook-a.jsonl \
        $D/textbook-b $F/PREFIX-textbook-b.jsonl $D/textbook-c $F/PREFIX-textbook-c.jsonl \
        $D/textbook-d $F/PREFIX-textbook-d.jsonl --split SPLIT --out PREFIX-$v; done

Findings: see the end of this docstring (filled in with the measurements).
"""

from __future__ import annotations

import argparse
import json
from collections.abc import Callable
from pathlib import Path

QUESTIONS = Path(__file__).parent / "questions"

VARIANTS: dict[str, Callable[[str], str]] = {
    "lower": lambda q: q.lower(),
    "no-mark": lambda q: q.rstrip().rstrip("?").rstrip(),
}


def write(prefix: str, split: str, out: Path) -> list[Path]:
    written = []
    for label, dress in VARIANTS.items():
        folder = out / label
        folder.mkdir(parents=True, exist_ok=True)
        for path in sorted(QUESTIONS.glob(f"{prefix}-textbook-?.jsonl")):
            kept = []
            for line in path.read_text().splitlines():
                if not line.strip():
                    continue
                record = json.loads(line)
                if record.get("split", "tune") != split:
                    continue  # another split's record (perhaps a held-back one): not copied
                turns = record.get("turns")
                if turns:
                    turns[-1] = dress(turns[-1])  # a follow-up's last turn
                elif isinstance(record.get("question"), str):
                    record["question"] = dress(record["question"])
                kept.append(json.dumps(record))
            (folder / path.name).write_text("\n".join(kept) + "\n")
            written.append(folder / path.name)
    return written


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("prefix")
    parser.add_argument("split")
    parser.add_argument("out", type=Path)
    args = parser.parse_args()
    for path in write(args.prefix, args.split, args.out):
        print(path)


if __name__ == "__main__":
    main()
