"""Would micro-batching concurrent questions into one encoder call save CPU? (No: a study, nothing in src/.)

    .venv/bin/python bench/query_batching_study.py [QUESTIONS.jsonl ...] [--rounds 3] [--sizes 2 4 8 16]

Under load a server could gather the questions that arrive within a millisecond and embed them in one
call of the int8 query graph instead of one call each. This embeds the questions of the given files
(default: the training sets) one at a time, as the engine does, and then in batches of each size (padded
to the batch's longest question, the attention mask covering the padding), and prints the process CPU
per question and the cosine of each batched vector to its one-at-a-time vector.

Measured on an AMD EPYC with AVX-512 VNNI (Nov 2026, 2 shared cores, load ~1.7), 64 questions of
train-textbook-a, 3 rounds:

    one at a time   4.29 ms a question
    batches of 2    3.96 ms   cosine to one-at-a-time min 0.9943, mean 0.9961
    batches of 4    4.13 ms   min 0.9938, mean 0.9959
    batches of 8    4.38 ms   min 0.9927, mean 0.9957
    batches of 16   4.99 ms   min 0.9916, mean 0.9956

At most 8 % less CPU (pairs), and more from 8 up: a question is ~15 tokens, so padding to the longest of
a batch costs what the shared call saves. Worse, the vectors move (cosine ~0.996): the graph quantises
its activations with one scale per call, so a question's vector would depend on which other questions
happened to arrive with it, and the same question could be answered differently under load than alone.
The engine keeps one call per question.
"""

from __future__ import annotations

import argparse
import json
import tempfile
import time
from pathlib import Path

import numpy as np
from numpy.typing import NDArray

from lectern.embeddings.base import l2_normalise
from lectern.embeddings.local import LocalMiniLMEmbedder, load_query_model

ROOT = Path(__file__).resolve().parent.parent
DEFAULT_SETS = sorted((ROOT / "bench" / "questions").glob("train-textbook-*.jsonl"))


def questions(files: list[Path]) -> list[str]:
    found: list[str] = []
    for path in files:
        for line in path.read_text(encoding="utf-8").splitlines():
            record = json.loads(line) if line.strip() else {}
            text = record.get("question") or (record.get("turns") or [None])[-1]
            if isinstance(text, str):
                found.append(text)
    return found


def padded(rows: list[list[int]]) -> tuple[NDArray[np.int64], NDArray[np.int64]]:
    width = max(len(r) for r in rows)
    ids = np.zeros((len(rows), width), np.int64)
    mask = np.zeros_like(ids)
    for i, row in enumerate(rows):
        ids[i, : len(row)] = row
        mask[i, : len(row)] = 1
    return ids, mask


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("files", nargs="*", type=Path, help="question sets (default: the training sets)")
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--limit", type=int, default=64, help="questions used")
    parser.add_argument("--sizes", type=int, nargs="+", default=[2, 4, 8, 16])
    args = parser.parse_args()
    texts = questions(args.files or DEFAULT_SETS)[: args.limit]

    with tempfile.TemporaryDirectory() as graphs_dir:
        graphs = Path(graphs_dir)
        embedder = LocalMiniLMEmbedder(graphs=graphs, query_precision="int8")
        embedder.embed_query("warm up")  # builds and loads the int8 query graph
        model = load_query_model(graphs)
        if model is None:
            raise SystemExit("the int8 query graph could not be built on this machine")
        tokenizer = embedder._tokenizer
        alone = [embedder.embed_query(t) for t in texts]
        started = time.process_time()
        for _ in range(args.rounds):
            for text in texts:
                embedder.embed_query(text)
        one_ms = (time.process_time() - started) / (args.rounds * len(texts)) * 1000
        print(f"one at a time   {one_ms:.2f} ms a question ({len(texts)} questions, {args.rounds} rounds)")

        ids = [tokenizer.encode(t).ids for t in texts]
        for size in args.sizes:
            started = time.process_time()
            batched: list[NDArray[np.float32]] = []
            for _ in range(args.rounds):
                batched = []
                for start in range(0, len(ids), size):
                    batch_ids, mask = padded(ids[start : start + size])
                    batched.extend(l2_normalise(model(batch_ids, mask)))
            ms = (time.process_time() - started) / (args.rounds * len(texts)) * 1000
            cosines = [float(np.dot(a, b)) for a, b in zip(alone, batched, strict=True)]
            print(
                f"batches of {size:<4} {ms:.2f} ms   cosine to one-at-a-time "
                f"min {min(cosines):.4f}, mean {float(np.mean(cosines)):.4f}"
            )


if __name__ == "__main__":
    main()
