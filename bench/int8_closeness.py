"""How close the int8 question model's vectors are to the fp32 model's on this CPU, and what each costs.

    .venv/bin/python bench/int8_closeness.py [--weights s8|u8] [QUESTIONS.jsonl ...]

Builds the int8 graph (in a temporary folder, with the weight type this CPU gets, or `--weights`) and
prints the cosine of its vectors to the fp32 ones, min and mean, on the reference texts of
tests/fixtures/minilm_reference.json and on the questions of the given files (default: the reader sets),
and the CPU per question of each model (one thread). Measured on an AMD EPYC with AVX2 but no VNNI
(Nov 2026, load ~10): signed weights 0.9807 / 0.9930 on the reference texts and 0.9920 / 0.9962 on the
reader questions, unsigned weights 0.9883 / 0.9961 and 0.9953 / 0.9973, 9.7 ms a question either way
(fp32 about 12 ms); see lectern.embeddings.minilm_graphs for why the weight type follows the CPU.
"""

from __future__ import annotations

import argparse
import json
import shutil
import tempfile
import time
from pathlib import Path

import numpy as np

from lectern.embeddings import minilm_graphs
from lectern.embeddings.local import LocalMiniLMEmbedder

ROOT = Path(__file__).resolve().parent.parent
REFERENCE = ROOT / "tests" / "fixtures" / "minilm_reference.json"


def held_back(split: str) -> bool:
    """A split the bench never asks here (the held-back sets: holdout, fresh, devNhold, funmhold)."""
    return split in ("holdout", "fresh") or split.endswith("hold")


def questions(files: list[Path]) -> list[str]:
    """The questions of `files`, held-back splits left out."""
    found: list[str] = []
    for path in files:
        for line in path.read_text(encoding="utf-8").splitlines():
            record = json.loads(line) if line.strip() else {}
            question = record.get("question")
            if isinstance(question, str) and not held_back(str(record.get("split", "tune"))):
                found.append(question)
    return found


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("files", nargs="*", type=Path)
    parser.add_argument("--weights", choices=["s8", "u8"], help="the int8 weight type (default: this CPU's)")
    args = parser.parse_args()
    if args.weights:
        minilm_graphs.int8_weights = lambda: args.weights  # type: ignore[assignment]
    files = args.files or sorted((ROOT / "bench" / "questions").glob("reader-*.jsonl"))
    texts = [case["text"] for case in json.loads(REFERENCE.read_text(encoding="utf-8"))["cases"]]
    asked = questions(files)
    graphs = Path(tempfile.mkdtemp(prefix="int8-closeness-"))
    try:
        minilm_graphs.graph_path(graphs, "fused", "int8")  # in this process, with the weight type above
        int8 = LocalMiniLMEmbedder(graphs=graphs, query_precision="int8", threads=1)
        fp32 = LocalMiniLMEmbedder(graphs=graphs, query_precision="fp32", threads=1)
        print(f"int8 weights: {args.weights or minilm_graphs.int8_weights()}")
        for name, group in (("reference texts", texts), (f"{len(asked)} questions", asked)):
            a = np.stack([int8.embed_query(t) for t in group])
            b = np.stack([fp32.embed_query(t) for t in group])
            cosines = (a * b).sum(axis=1)
            print(f"{name}: cosine to fp32 min {cosines.min():.4f} mean {cosines.mean():.4f}")
        for name, model in (("int8", int8), ("fp32", fp32)):
            started = time.process_time()
            for question in asked:
                model.embed_query(question)
            print(f"{name}: {(time.process_time() - started) / len(asked) * 1000:.2f} ms of CPU a question")
    finally:
        shutil.rmtree(graphs, ignore_errors=True)


if __name__ == "__main__":
    main()
