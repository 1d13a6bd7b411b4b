"""Write a question set's single questions lower-cased or without their question mark, to measure how
much the answer depends on the reader's capitals and punctuation.

    .venv/bin/python bench/case_robustness.py PREFIX SPLIT OUT_FOLDER
    # writes OUT_FOLDER/{lower,no-mark}/PREFIX-textbook-{a,b,c,d}.jsonl: only SPLIT's records, each single
    # question's `question` dressed, and a follow-up's last turn
    D=/work/shared/data/textbooks; for v in lower no-mark; do F=OUT_FOLDER/$v
      PYTHONHASHSEED=0 .venv/bin/python bench/answer_quality.py $D/textbook-a $F/PREFIX-textbook-a.jsonl \
        $D/textbook-b $F/PREFIX-textbook-b.jsonl $D/textbook-c $F/PREFIX-textbook-c.jsonl \
        $D/textbook-d $F/PREFIX-textbook-d.jsonl --split SPLIT --out PREFIX-$v; done

Findings (tuned sets, the four books pooled; in-scope answered with a relevant file cited / near misses
refused; base: main at cc2baed, after: branch lower):

                      as written        lower-cased        no question mark
    train:tune    base  82.2 / 90.0     82.2 / 80.0        79.9 / 90.0
                  after 82.2 / 91.2     80.8 / 87.5        82.2 / 91.2
    reader:tune   base  89.0 / 90.0     89.0 / 90.0        89.0 / 90.0
                  after 89.0 / 90.0     88.0 / 92.5        89.0 / 90.0
    dev6:dev6     base  78.1 / 91.7     78.1 / 75.0        75.0 / 91.7
                  after 78.1 / 91.7     78.1 / 91.7        78.1 / 91.7
    dev16:dev16   base  62.5 / 100      62.5 / 87.5        70.8 / 100
                  after 62.5 / 100      62.5 / 100         62.5 / 100
    dev17:dev17   base  75.0 / 100      78.1 / 100         65.6 / 100
                  after 75.0 / 100      78.1 / 100         75.0 / 100
    followups-nm:funm (near misses refused; the last turn dressed)
                  base     65.0            40.0               65.0
                  after    65.0            50.0               65.0

- Lower case: the embedder is uncased and coverage folds case, so the only signal a reader's capitals move
  is `miss_name_unknown` (a missing word the collection never uses that looks like a name): "jetpack",
  "mujoco", "webots" typed in lower case were no names, and near misses were answered. In a question with no
  capitals past its first word ("I" aside) a word rare in general English (zipf below 3) now counts as a
  name unless it is an everyday word's form ("snappier", "mishears", "runnable": wordfreq counts forms
  apart). At zipf 2 or below (and no form check) far fewer near misses were recovered; at zipf 3 without
  the form check, chat words ("glitchy", "workaround", "haywire") had 10 lower-case in-scope questions
  refused. Still read as names: everyday words rare in wordfreq ("biped", "jitter", "haywire",
  "workaround", "walkthrough"): the lower-case in-scope losses. Not recoverable by rarity: names that are
  everyday words ("claude", "rust", "alexa", "unity", "iso" at zipf 3.5-4.2).
- No question mark: the embedder reads the mark, so the same question found other, a little less similar,
  passages. The query is now embedded with the mark put back where its last sentence opens with a question
  word or an auxiliary, or has one after a comma ("Once X is set up, how do I ...").
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
