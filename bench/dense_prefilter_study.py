"""The in-memory dense search's top rows with and without its int8 first pass, on real questions.

    PYTHONHASHSEED=0 [PYTHONPATH=TREE/src] uv run python bench/dense_prefilter_study.py CORPUS QUESTIONS
        [--target CHUNKS | --collection NAME] [--depth 20] [--repeats 5]

Embeds each question once, then calls `TableSnapshot.top` for every question, the exact float32 product
over every row and the int8 first pass (`lectern.index.dense_prefilter`) in turn, `--repeats` times;
prints each one's median thread CPU a call, the rows the first pass leaves to score exactly (mean, max)
and whether every result is the same (hits, order, scores: it must be). CORPUS and --target /
--collection as bench/profile_engine.py takes them.

Nov 2026 (AMD EPYC with AVX-512 VNNI, 2 shared cores, load 4-6; depth 40, the engine's for top_k 5;
thread CPU an answer's `top` call, median of 5 alternated passes):

    collection                                   exact     int8 first pass   rows scored exactly
    SciFact, 10,143 chunks, first 150 queries    984 us    390 us            mean 129, max 292
    textbook-a copied to 10,000 chunks (106 q.)  1083 us   391 us            mean 164, max 666

Every result the same (hits, order, scores). At textbook-a's own 1,013 rows the first pass gains
nothing (140 against 133 us a call, 101 rows scored again on average): hence `MIN_ROWS` (4096). The
copies (bench/latency.py's synthesised collection) are near-duplicates of each textbook passage, so
more rows fall within the bound of the 40th there. Of the first pass's ~0.3 ms at 10k rows,
onnxruntime's MatMulInteger over the 3.9 MB of int8 rows is ~0.21-0.25 ms, the query's quantisation
and bound ~15 us, the partition and the pick ~30 us. It holds ~8 MB more at 10k rows (the int8 rows
and onnxruntime's packed copy of them; making it peaks ~40 MB higher for a moment, then handed back)
and takes ~90 ms of CPU to make, once a snapshot, in `LanceDBIndex.prepare`. The candidates are
gathered 64 rows at a time: ~130 rows at once (~200 kB) were mapped on their own under the server's
heap and faulted in afresh, ~19 page faults an answer.

Tried: OpenBLAS's sgemv on one thread (`threadpool_limits(1)`) as the first pass, 0.70 ms against the
einsum's 0.99 ms on a synthetic 10k x 384 matrix (within 9e-8 of it): it reads the same 15.6 MB, half the
saving; on two threads 4.0 ms of CPU. MatMulInteger with an int8 query (s8 x s8): 8.5 ms, no fast
kernel here; the uint8 query with a zero point (u8 x s8) is the fast one, its values kept to 1..127 so
that x86's kernels without VNNI (pairs of u8 x s8 products summed in saturating int16) stay exact.
Unrelated, the same session: onnxruntime's IO binding for the query model's inputs and output, no
difference (6.07 against 6.17 ms a call, in the spread, load ~6).
"""

from __future__ import annotations

import argparse
import statistics
import time
from pathlib import Path
from typing import Any

import numpy as np

from common import RESULTS, build, read_jsonl
from latency import synthesise
from lectern import word_frequency
from lectern.engine import Engine
from lectern.index.fusion import candidate_depth
from lectern.settings import load_settings


def _snapshot(index: Any) -> Any:
    index.prepare()
    return index._snapshots._state[1]  # the held snapshot


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("corpus", type=Path)
    parser.add_argument("questions", type=Path)
    parser.add_argument("--target", type=int, default=0)
    parser.add_argument("--collection", default="")
    parser.add_argument("--depth", type=int, default=candidate_depth(5), help="rows a search asks for")
    parser.add_argument("--repeats", type=int, default=5)
    args = parser.parse_args()
    questions = [str(q.get("question") or q.get("text") or q["turns"][0]) for q in read_jsonl(args.questions)]
    if args.collection:
        settings = load_settings(data_dir=args.corpus, collection=args.collection, query_cache_size=0)
        word_frequency.prepare(settings.model_cache_dir)
        engine = Engine.from_settings(settings)
        index, embedder = engine.retriever.index, engine.retriever.embedder
    else:
        engine, _, _ = build(args.corpus, query_cache_size=0)
        index, embedder = engine.retriever.index, engine.retriever.embedder
        if args.target:
            name = f"{args.corpus.name}-{args.target}"
            index, embedder = synthesise(index, args.target, RESULTS / "index" / name)
    snapshot = _snapshot(index)
    prefilter = snapshot.prefilter
    if prefilter is None:
        raise SystemExit(f"{len(snapshot.matrix)} rows: no first pass below its minimum")
    queries = [np.asarray(embedder.embed_query(q), dtype=np.float32) for q in questions]
    kept = [len(prefilter.candidates(q, snapshot.searchable, args.depth)) for q in queries]
    times: dict[str, list[float]] = {"exact": [], "int8 first pass": []}
    same = True
    for _ in range(args.repeats):
        for name in times:
            snapshot.__dict__["prefilter"] = prefilter if name != "exact" else None
            results = []
            started = time.thread_time_ns()
            for q in queries:
                results.append(snapshot.top(q, args.depth))
            times[name].append((time.thread_time_ns() - started) / 1e3 / len(queries))
            if name == "exact":
                reference = results
            else:
                same = same and results == reference
    rows = len(snapshot.matrix)
    print(f"{rows} rows, {len(queries)} questions, depth {args.depth}, x{args.repeats} alternated")
    for name, values in times.items():
        print(f"  {statistics.median(values):8.1f} us a top() call  {name}")
    print(f"  rows scored exactly after the first pass: mean {statistics.mean(kept):.1f}, max {max(kept)}")
    print(f"  every result the same: {same}")


if __name__ == "__main__":
    main()
