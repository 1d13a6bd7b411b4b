"""Leave-one-book-out cross-validation of the answerability decision (`lectern/answerability.py`).

    uv run python bench/lobo_answerability.py CORPUS QUESTIONS.jsonl [CORPUS QUESTIONS.jsonl ...]
        [--drop FEATURE ...] [--target 0.93] [--stumps 200] [--splits tune dev2]

Takes the same arguments as `bench/train_answerability.py` and builds the same examples, then for each
book (corpus folder) trains on the other books' examples, picks the threshold there as the training
script does (keep `--target` of the answerable examples), and measures the held-out book. The pooled
held-out figures say how the decision does on a book it never saw; in-sample figures flatter it.
Retrievals are cached in bench/results/ (per corpus and query), so trying a signal costs seconds;
after a change to retrieval pass --fresh. `--splits` names the splits trained on (as the training
script's); with the dev2 sets among the pairs, their held-out figures print on a line of their own.
"""

from __future__ import annotations

import argparse
import hashlib
import pickle
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

import numpy as np

import train_answerability as ta
from common import RESULTS, build
from lectern.answerability import FEATURES
from lectern.engine import Engine
from lectern.models import RetrievalResult

CACHE = RESULTS / "lobo-retrievals.pkl"
Held = list[tuple[dict[str, Any], float]]  # an example and its margin over the threshold


def cached_retrieve(
    store: dict[str, RetrievalResult], corpus: str
) -> Callable[[Engine, str, int], RetrievalResult]:
    def retrieve(engine: Engine, query: str, top_k: int) -> RetrievalResult:
        threshold = engine.retriever.settings.similarity_threshold
        key = hashlib.sha1(f"{corpus}\0{query}\0{top_k}\0{threshold}".encode()).hexdigest()
        if key not in store:
            store[key] = engine.retriever.retrieve_sync(engine.retriever.params(query, top_k=top_k))
        return store[key]

    return retrieve


def rows_for(
    pairs: list[tuple[Path, Path]], fresh: bool = False, splits: Sequence[str] = ta.TRAIN_SPLITS
) -> list[dict[str, Any]]:
    """The training script's examples (of `splits`), each with its book; `fresh` retrieves again
    (after a change to retrieval: the cache knows queries, not code)."""
    store: dict[str, RetrievalResult] = {}
    if CACHE.exists() and not fresh:
        store = pickle.loads(CACHE.read_bytes())
    rows: list[dict[str, Any]] = []
    for corpus, questions in pairs:
        engine, _, _ = build(corpus)
        ta.retrieve = cached_retrieve(store, corpus.resolve().name)
        records = ta.training_records(questions, splits)
        for row in ta.examples(engine, records, questions.stem):
            rows.append({**row, "book": corpus.resolve().name})
    CACHE.write_bytes(pickle.dumps(store))
    return rows


def held_out(rows: list[dict[str, Any]], dropped: list[int], target: float, stumps: int = ta.STUMPS) -> Held:
    """Each row with its margin over the threshold of the model trained without its book (`dropped`:
    signals left out)."""
    held: Held = []
    for book in sorted({r["book"] for r in rows}):
        train = [r for r in rows if r["book"] != book]
        test = [r for r in rows if r["book"] == book]
        x = np.asarray([r["x"] for r in train], dtype=np.float64)
        x[:, dropped] = 0.0  # a constant signal: no weight, no step
        y = np.asarray([r["y"] for r in train], dtype=np.float64)
        sw = np.asarray([ta.CONSTRUCTED_WEIGHT if r["kind"] == "constructed" else 1.0 for r in train])
        model = ta.fit_model(x, y, sw, stumps)
        p_train = ta.predict(model, x)
        pos = sorted(p for p, r in zip(p_train, train, strict=True) if r["y"] == 1)
        threshold = float(pos[int((1 - target) * len(pos))])
        xt = np.asarray([r["x"] for r in test], dtype=np.float64)
        xt[:, dropped] = 0.0
        p_test = ta.predict(model, xt)
        held += [(r, float(p) - threshold) for r, p in zip(test, p_test, strict=True)]
    return held


def measure(held: Held) -> dict[str, float]:

    def refused(kind: str) -> float:
        of = [m for r, m in held if r["kind"] == kind]
        return sum(1 for m in of if m < 0) / len(of) if of else float("nan")

    pos = [m for r, m in held if r["y"] == 1]
    natural = [m for r, m in held if r["kind"] in ("near_miss", "out_of_scope")]
    return {
        "answered": sum(1 for m in pos if m >= 0) / len(pos),
        "near_miss_refused": refused("near_miss"),
        "out_of_scope_refused": refused("out_of_scope"),
        "constructed_refused": refused("constructed"),
        "auroc_natural": ta.auroc(pos, natural),
    }


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("pairs", nargs="+")
    parser.add_argument("--drop", nargs="*", default=[])
    parser.add_argument("--target", type=float, nargs="*", default=[ta.TARGET_ANSWERED])
    parser.add_argument("--fresh", action="store_true", help="retrieve again, ignoring the cache")
    parser.add_argument("--stumps", type=int, default=ta.STUMPS, help="boosting rounds; 0: plain logistic")
    parser.add_argument("--splits", nargs="+", default=list(ta.TRAIN_SPLITS), help="splits to train on")
    args = parser.parse_args()
    pairs = [(Path(args.pairs[i]), Path(args.pairs[i + 1])) for i in range(0, len(args.pairs), 2)]
    rows = rows_for(pairs, args.fresh, ta.split_names(parser, args.splits))
    dropped = [i for i, name in enumerate(FEATURES) if name in args.drop]
    print(
        "features:", ", ".join(name for name in FEATURES if name not in args.drop), f"({args.stumps} stumps)"
    )
    for target in args.target:
        held = held_out(rows, dropped, target, args.stumps)
        # The reader and train sets are written as readers ask; the earlier sets with the books open.
        groups = {
            "all": held,
            "reader+train": [(r, m) for r, m in held if r["set"].startswith(("reader-", "train-"))],
            "dev2": [(r, m) for r, m in held if r["set"].startswith("dev2-")],
        }
        for name, of in groups.items():
            if not of:
                continue
            found = "  ".join(f"{k} {v * 100:.1f}" for k, v in measure(of).items())
            print(f"target {target:.2f} {name:>12}: {found}")


if __name__ == "__main__":
    main()
