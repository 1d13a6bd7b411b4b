"""Search the extractive writer's sentence-scoring weights on the `tune` split of question sets.

    uv run python bench/tune_writer.py CORPUS QUESTIONS.jsonl [CORPUS QUESTIONS.jsonl ...]

The answerability decision does not depend on these weights, so only answered questions are compared:
for each configuration, the share of answers that contain every answer keyword, the share that cite a
relevant file, and the mean answer length in words. The `holdout` split is never read; measure a chosen
configuration on it with `bench/answer_quality.py --split holdout`.
"""

from __future__ import annotations

import argparse
import asyncio
from pathlib import Path
from typing import Any

import lectern.writers.extractive.writer as writer
from answer_quality import ask
from common import build, read_jsonl

# Each configuration scales one weight of MEANING_WEIGHTS, or sets several at once.
SCALES = [
    ("cosine", 0.7),
    ("cosine", 1.4),
    ("lexical", 0.5),
    ("lexical", 2.0),
    ("heading", 0.0),
    ("heading", 2.5),
    ("rank", 0.5),
    ("rank", 2.0),
    ("shape", 0.0),
]


def evaluate(
    books: list[tuple[Any, list[dict[str, Any]]]], weights: dict[str, float]
) -> tuple[float, float, float]:
    writer.MEANING_WEIGHTS.clear()
    writer.MEANING_WEIGHTS.update(weights)
    answered = with_keywords = cited = words = 0
    for engine, records in books:
        for record in records:
            row = asyncio.run(ask(engine, record))
            if row["answered"]:
                answered += 1
                with_keywords += row["has_keywords"]
                cited += row["relevant_cited"]
                words += len(row["text"].split())
    n = max(answered, 1)
    return with_keywords / n, cited / n, words / n


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("pairs", nargs="+", help="CORPUS QUESTIONS.jsonl, repeated")
    args = parser.parse_args()
    books = []
    for corpus, questions in zip(args.pairs[::2], args.pairs[1::2], strict=True):
        engine, _, _ = build(Path(corpus))
        records = [
            r
            for r in read_jsonl(Path(questions))
            if r.get("split", "tune") == "tune" and r["kind"] in ("in_scope", "followup")
        ]
        books.append((engine, records))
    base = dict(writer.MEANING_WEIGHTS)
    configurations = [("current", base)]
    for name, scale in SCALES:
        configurations.append((f"{name} x{scale}", {**base, name: round(base[name] * scale, 3)}))
    print(f"{'weights':16s} {'keywords':>9s} {'cited':>7s} {'words':>6s}")
    for name, weights in configurations:
        keywords, cited, words = evaluate(books, weights)
        print(f"{name:16s} {keywords:9.1%} {cited:7.1%} {words:6.0f}", flush=True)
    writer.MEANING_WEIGHTS.clear()
    writer.MEANING_WEIGHTS.update(base)


if __name__ == "__main__":
    main()
