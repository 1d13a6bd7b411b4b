"""Where a warm engine's CPU goes per answer (offline default): CPU ms per answer (mean, p50, p99)
and cProfile's top self-time functions.

    uv run python bench/profile_engine.py CORPUS QUESTIONS.jsonl [--rounds 3] [--top 25] [--limit N]
        [--target CHUNKS] [--collection NAME] [--save-answers FILE] [--thread-time] [--query-cache N]

Every question is asked in a fresh conversation (no session cache) with the query cache off
(--query-cache N keeps N question vectors: the timed rounds then measure the rest of an answer, without
the model's share and its variance), after one warm-up round (two with LanceDB, the second once its
in-memory keyword index is built). CPU per answer is the process's CPU time (all threads) over the
answers, measured without the profiler; the profile is a separate round, timed by the wall clock unless
--thread-time (the profiled thread's CPU: on a busy machine a wall-clock profile mostly shows the calls
that waited for a core, onnxruntime's first). On a shared machine quote the load average printed with the
figures. With --target the engine answers from the corpus copied up to that many chunks
(bench/latency.py's synthesised collection, built there on first use). With --collection, CORPUS is a
data dir that already holds that collection (as `lectern ingest` or `lectern eval retrieval --beir` left
it, e.g. SciFact's 10k chunks with bench/store_sentences.py's sentence vectors) and nothing is ingested
(the word-frequency table is built there if missing, as `lectern serve` does at startup).
With --save-answers, each answer of a round after the warm-up (less its timestamp and timings) is written
as a JSON line, so two builds' answers can be compared byte for byte (`cmp`). Writes
bench/results/profile-<corpus>[-<target>].json.

Where the CPU went (2 shared cores at load average 8-13, so ~2.5x a quiet machine's figures; each stage's
thread CPU from wrappers, no profiler): textbook-a (1,013 chunks, its 155 tune and train questions) 13.7
ms an answer: the query's embedding 7.8 (57 %), the index's search less that 1.8, the writer's `compose`
1.4, the answerability signals 0.95 (0.58 of it the sentence vectors), the event loop's side (the turn,
the answer's models) 0.96. The int8 query graph's kernels: its fp32 MatMuls 40 %, DynamicQuantizeMatMul
26 %, QAttention 21 %, BiasGelu 5 %, LayerNorm 4 %; onnxruntime's arena on or off costs the same and
gives the same vectors. SciFact (10,143 chunks, 150 queries, --thread-time): ~22 ms an answer, of which
the dense search's einsum ~1.8 ms and 5.6 passages new to `units_of` (the ~200 us a passage of
bench/passage_cost.py); storing units at ingest was the largest exact saving left there (done since:
below). Textbook rounds repeat 155 questions that read more passages than `PASSAGES_KEPT` (512) keeps:
3.0 `units_of` misses, 2.8 `passage_terms` misses and 3.6 chunks built an answer. Tried, no gain:
stemming each distinct word once (`set` before `map`), the float16 -> float32 widening of the sentence
vectors (~3.4 ns a value, ~24 rows an answer: ~30 us). One `asyncio.to_thread` hand-off costs ~140 us of
CPU at that load (an answer makes one).

Stored units (`lectern.passage_store`: each passage's `units_of` and `passage_terms` stored at ingest,
or on first use, by a digest of the text and a fingerprint of the code), word frequencies kept and a
typing slip's candidates looked up in one query, and the writer's MMR loop without `id()` keys, against
main's tree (`git archive main`, PYTHONPATH), alternating base/after on the same 2 shared cores, the 106
train-textbook-a questions x 3 rounds, process CPU ms an answer (mean of the median round / p50 / p99 over
318 answers), medians of 3 runs a side:

                                       load      base                  after
    textbook-a (1,013 chunks)          3.4-6.9   12.34 / 11.97 / 23.3  11.18 / 11.00 / 18.3
    --target 10000 (10,000 chunks)     3.4-6.9   12.35 / 11.86 / 23.5  12.58 / 11.77 / 18.5
    textbook-a, --query-cache 4096     4.4-4.9    5.14 /  4.78 / 12.7   4.95 /  4.81 /  9.0
    --target 10000, --query-cache 4096 5.4-6.9    6.94 /  6.45 / 15.8   5.72 /  5.66 / 10.6

(--query-cache leaves the model out.) With the model in, run-to-run spread (+-1.5 ms: its ~4.4-5.3 ms
share moves with the neighbours' load) hides the mean at 10k; with it left out, 10k answers cost 18 %
less (the passages new to the caches: ~6.8 an answer there) and p99 falls by a third at both sizes (the
slip lookups: a rare question word made hundreds of queries). p99 / p50 after: 1.6-1.9x in all four rows
(before: 1.95-2.0x with the model, 2.45-2.65x without). Top self-time after, 10k without the model (ms an
answer, profiled): the dense einsum 0.79, `_mmr` 0.50 self / 1.16 cum (3.27 cum before), sqlite execute
0.40 (15 calls an answer, the store's reads; 49 before, the word-frequency lookups), `_unit_candidates`
1.0 cum, `signals` 1.58 cum; `_blocks` (2.36 cum before), `units_of` (3.70), `zipf` (1.13) and `id` are
gone from the top. A stored passage reads back in ~18 us (units: SQLite ~6 us, the digest, marshal ~4.5
us, the `Unit`s) against ~52 us to split a textbook passage, and its terms in ~13 us against ~17 us
(bench/passage_cost.py: ~75 us for a SciFact abstract). Ingest stores a flush's rows in one commit:
textbook-a's 1,013 chunks ~130 ms of CPU (splitting alone ~60 ms). Every run's answers are byte-identical
between the trees at both sizes with PYTHONHASHSEED fixed (`--save-answers`, `cmp`), as are
bench/answer_quality.py's --split tune figures; without a fixed seed the 10k copy's near-duplicate
passages tie, and one question in 106 can differ from run to run of the same tree. Commands:
`PYTHONHASHSEED=0 PYTHONPATH=TREE/src .venv/bin/python bench/profile_engine.py
../shared/data/textbooks/textbook-a bench/questions/train-textbook-a.jsonl [--target 10000]
[--query-cache 4096] --thread-time --save-answers FILE`, base and after in turn.
"""

from __future__ import annotations

import argparse
import asyncio
import cProfile
import io
import os
import pstats
import statistics
import time
from pathlib import Path
from typing import Any

from common import RESULTS, build, read_jsonl, write_result
from latency import synthesise
from lectern import word_frequency
from lectern.embeddings.cache import with_query_cache
from lectern.engine import Engine
from lectern.retrieval import Retriever
from lectern.settings import load_settings
from lectern.writers import create_writer


async def _round(
    engine: Engine, questions: list[str], saved: list[str] | None = None
) -> tuple[float, float, list[float]]:
    """(CPU ms, wall ms) per answer over one pass of the questions, and each answer's CPU ms; each
    answer as a JSON line into `saved` when given."""
    cpu0, wall0 = time.process_time(), time.perf_counter()
    each: list[float] = []
    for q in questions:
        before = time.process_time()
        answer = await engine.run(q, engine.new_conversation())
        each.append((time.process_time() - before) * 1000)
        if saved is not None:
            saved.append(answer.model_dump_json(exclude={"timestamp", "timings"}))
    n = len(questions)
    return (time.process_time() - cpu0) * 1000 / n, (time.perf_counter() - wall0) * 1000 / n, each


def _await_in_memory(engine: Engine, timeout_s: float = 60.0) -> bool:
    """Wait for the index's in-memory keyword side of the current table version (LanceDB's engine
    builds it on a background thread after a version's second keyword search, 0.6 s of CPU at 10k
    chunks): timed rounds that overlap the build count its CPU and LanceDB's slower keyword side.
    Whether there was one to wait for."""
    details = engine.retriever.index.stats().details
    if "in_memory_keyword_version" not in details:
        return False  # another engine
    deadline = time.monotonic() + timeout_s
    while details.get("in_memory_keyword_version") != details.get("version") and time.monotonic() < deadline:
        time.sleep(0.1)
        details = engine.retriever.index.stats().details
    return True


async def _inline(func: Any, /, *args: Any, **kwargs: Any) -> Any:
    return func(*args, **kwargs)


def _percentile(sorted_values: list[float], q: float) -> float:
    """Nearest-rank percentile of an ascending list."""
    rank = max(1, round(q / 100 * len(sorted_values)))
    return sorted_values[min(rank, len(sorted_values)) - 1]


def _top(profile: cProfile.Profile, top: int) -> list[dict[str, Any]]:
    stats = pstats.Stats(profile, stream=io.StringIO())
    rows = []
    for (file, line, name), (_, calls, tottime, cumtime, _) in stats.stats.items():  # type: ignore[attr-defined]
        rows.append(
            {
                "function": f"{Path(file).name}:{line}({name})",
                "calls": calls,
                "self_s": tottime,
                "cum_s": cumtime,
            }
        )
    rows.sort(key=lambda r: -r["self_s"])
    return rows[:top]


async def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("corpus", type=Path)
    parser.add_argument("questions", type=Path)
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--top", type=int, default=25)
    parser.add_argument("--limit", type=int, default=0, help="Ask only the first N questions (0: all).")
    parser.add_argument("--target", type=int, default=0, help="Chunks to copy the corpus up to (0: as is).")
    parser.add_argument("--collection", default="", help="CORPUS is a data dir holding this collection.")
    parser.add_argument(
        "--query-cache",
        type=int,
        default=0,
        help="keep this many question vectors: timed rounds then leave the query's embedding out",
    )
    parser.add_argument("--save-answers", type=Path, metavar="FILE", help="a later round's answers")
    parser.add_argument(
        "--thread-time",
        action="store_true",
        help="profile the thread's CPU time, not wall-clock time (on a busy machine waits swamp wall time)",
    )
    args = parser.parse_args()
    # reader sets' `question`, BEIR queries' `text` (SciFact), a follow-up's first turn
    questions = [str(q.get("question") or q.get("text") or q["turns"][0]) for q in read_jsonl(args.questions)]
    questions = questions[: args.limit] if args.limit else questions
    if args.collection:
        settings = load_settings(
            data_dir=args.corpus, collection=args.collection, query_cache_size=args.query_cache
        )
        word_frequency.prepare(settings.model_cache_dir)  # as `build`, ingest and `lectern serve` do
        engine, name = Engine.from_settings(settings), args.collection
    else:
        engine, settings, _ = build(args.corpus, query_cache_size=0)
        name = args.corpus.name
        if args.query_cache and not args.target:  # `build`'s embedder has no query cache
            cached = with_query_cache(engine.retriever.embedder, args.query_cache)
            retriever = Retriever(cached, engine.retriever.index, settings)
            engine = Engine(retriever, create_writer(settings, embedder=cached), settings)
    if args.target:
        name = f"{name}-{args.target}"
        big, embedder = synthesise(engine.retriever.index, args.target, RESULTS / "index" / name)
        embedder = with_query_cache(embedder, args.query_cache)
        writer = create_writer(settings, embedder=embedder)
        engine = Engine(Retriever(embedder, big, settings), writer, settings)
    saved: list[str] | None = [] if args.save_answers else None
    await _round(engine, questions)  # warm-up: opens the table, loads the model, fills the term cache
    if _await_in_memory(engine):  # the keyword index was built meanwhile, on a thread of its own
        await _round(engine, questions)
    if saved is not None:  # answered as the timed rounds answer: while the keyword index was built,
        await _round(engine, questions, saved)  # a 10k-chunk copy's warm-up answers varied run to run
    rounds = [await _round(engine, questions) for _ in range(args.rounds)]
    cpu = statistics.median(r[0] for r in rounds)
    wall = statistics.median(r[1] for r in rounds)
    answers = sorted(ms for r in rounds for ms in r[2])  # every timed answer's CPU, all rounds
    p50, p99 = _percentile(answers, 50), _percentile(answers, 99)
    # cProfile sees only its own thread: for the profiled round the engine's worker-thread calls run
    # inline (the index's keyword side still runs in its pool; lance's and onnxruntime's native
    # threads are invisible to cProfile anyway, their time shows under the Python call that waits).
    threaded = asyncio.to_thread
    asyncio.to_thread = _inline  # type: ignore[assignment]
    profile = cProfile.Profile(time.thread_time) if args.thread_time else cProfile.Profile()
    profile.enable()
    try:
        await _round(engine, questions)
    finally:
        profile.disable()
        asyncio.to_thread = threaded
    top = _top(profile, args.top)
    if args.save_answers and saved is not None:
        args.save_answers.write_text("".join(f"{line}\n" for line in saved), encoding="utf-8")
    load = os.getloadavg()
    n = len(questions)
    chunks = engine.retriever.index.count()
    print(f"{name} ({chunks} chunks): {n} questions x {args.rounds} rounds, load average {load[0]:.2f}")
    print(f"  CPU per answer (median round) {cpu:.2f} ms, wall per answer {wall:.2f} ms")
    print(f"  CPU per answer over {len(answers)} answers: p50 {p50:.2f} ms, p99 {p99:.2f} ms")
    print(f"  top self-time (profiled round, {n} answers):")
    print(f"  {'self ms/answer':>14} {'cum ms/answer':>13} {'calls':>7}  function")
    for r in top:
        print(
            f"  {r['self_s'] * 1000 / n:14.3f} {r['cum_s'] * 1000 / n:13.3f} {r['calls']:7}  {r['function']}"
        )
    path = write_result(
        f"profile-{name}",
        {
            "corpus": args.collection or args.corpus.name,
            "chunks": chunks,
            "answers": n,
            "rounds": [{"cpu_ms": c, "wall_ms": w} for c, w, _ in rounds],
            "cpu_ms_per_answer": cpu,
            "cpu_ms_p50": p50,
            "cpu_ms_p99": p99,
            "wall_ms_per_answer": wall,
            "load_average": load,
            "top_self_time": top,
        },
    )
    print(f"  -> {path}")


if __name__ == "__main__":
    asyncio.run(main())
