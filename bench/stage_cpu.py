"""Where a warm engine's CPU goes per answer, stage by stage, without a profiler.

    PYTHONHASHSEED=0 [PYTHONPATH=TREE/src] uv run python bench/stage_cpu.py CORPUS QUESTIONS [--rounds 5]
        [--server-heap] [--collection NAME]

Each stage's own thread CPU (`time.thread_time_ns` around it, less the stages it calls) over the
engine's answers, every question in a fresh conversation with no query cache, after two warm-up rounds;
the worker-thread hand-offs (`asyncio.to_thread`) run inline so that one thread does all of an answer's
work (onnxruntime's query session has one intra-op thread: its kernels count too). Prints the median
over the rounds of each stage's ms an answer, the thread's total and the process's. cProfile's per-call
overhead inflates the Python stages two- to threefold against the model; these wrappers cost a few
microseconds a call. On a shared machine each stage's figure moves with the neighbours' load (quote the
load average printed, alternate builds): `valgrind --tool=callgrind` instruction counts are steadier.

Stages: the query's model call (the word-vector rows and onnxruntime's run), the rest of its embedding
(word pieces, input arrays, normalisation), the index's search less the embedding, the stored sentence
vectors (`SentenceVectors.of`), the answerability signals, the writer's `compose` less the sentence
vectors, and everything else (the turn, retrieval's ranking and confidence, spelling, citations, models).
With `--collection`, CORPUS is a data dir that already holds that collection (e.g. SciFact's 10k chunks
as `lectern eval retrieval --beir` and bench/store_sentences.py leave them) and nothing is ingested; the
word-frequency table is built there when missing, as `lectern serve` does at startup (without it every
rarity lookup stats two paths and asks wordfreq: ~0.35 ms an answer on SciFact).
`--server-heap` sets the C heap as `lectern serve` does first (`heap.configure_server_heap`: blocks of
128 kB and more mapped on their own, one malloc arena); the page faults and system CPU an answer are
printed either way.

Issue 12, Nov 2026 (AMD EPYC with AVX-512 VNNI, 2 shared cores; train-textbook-a, 106 questions x 3
rounds; base = main 27598f3 by PYTHONPATH, runs alternated; ms of CPU an answer):

    stage                          default heap (load 3.1-3.8)   --server-heap (load 4.0-4.7)
                                   base        after             base        after
    query model call               4.07 4.11   4.09 4.00         4.42 4.46   4.15 4.00
    query embedding less model     0.10 0.11   0.11 0.12         0.13 0.13   0.10 0.11
    index search less embedding    0.86 0.94   0.93 0.94         1.01 1.05   0.90 0.92
    sentence vectors               0.29 0.31   0.32 0.32         0.33 0.35   0.32 0.32
    answerability signals          0.38 0.40   0.41 0.40         0.42 0.42   0.40 0.40
    writer less sentence vectors   0.86 0.84   0.85 0.85         0.89 0.92   0.86 0.85
    everything else                0.79 0.84   0.84 0.82         0.88 0.90   0.81 0.81
    total                          7.31 7.55   7.58 7.45         8.13 8.26   7.56 7.40
    page faults                    -           -                 73   42     0.3  0.4
    of it system CPU               -           -                 0.34 0.29   0.10 0.15

Kept: the query model's onnxruntime arena (kept to a question's size; bench/query_session_study.py). Each
query's buffers, one ~0.5 MB memory-pattern block, came from the C library at every call; under the
server's heap such a block is mapped and faulted in afresh each time. With the default heap that costs
nothing measurable (the first column pair: the same within the spread); with the server's, 0.6-0.9 ms an
answer less in these runs (0.2 of it system CPU). Every answer identical: bench/answer_quality.py on all
18 development and held-back sets (0 rows differ), profile_engine --save-answers at 1k and 10k chunks
byte for byte.

The 6 ms target is not reached on this machine at this load: the query model alone takes ~4 ms in an
answer (~3.5 ms on its own: its weights and activations fall out of the caches while the rest of an
answer runs), and its floor is its arithmetic, the fp32 down projections first (query_session_study:
every session option gives the same CPU within the spread). The rest, ~3.3-3.5 ms, is spread thin:
py-spy over warm answers without the model (query cache on, 3.2 ms an answer) has no function above 6 %
of self time: the passage store's SQLite reads 5.6 % (~20 us each in an answer, 5.6 us warm alone, 7-9
an answer), building evicted chunks from the snapshot's columns 3.9 % (`as_py` per value, 11 us a row,
3x cheaper than a one-row slice's `to_pylist`), pydantic models 3.3 %, the sentence vectors' reads 3.3 %,
the dense einsum 3.0 %, `signals` 2.9 %, `np.linalg.norm` 2.2 %. Tried and dropped: `np.sqrt(v.dot(v))`
and `np.sqrt(np.add.reduce(m * m, axis=1))` for `norm` (bit for bit the same, ~10-15 us an answer, in
the spread); `gc.freeze` (the collector takes ~0.09 ms an answer, young generations only); the word rows
from one `pread` a token (~42 us a question) and the tokenizer (~5 us) leave nothing to take. What would
move the total: fewer passages read and built an answer (the 512-entry caches evict under 106 rotating
questions: ~4 chunks built, ~8 store reads an answer) or the model's numerics, both outside this round.

Nov 2026, a later round (writer and answerability Python; base = the branch's start 2c7cafa by PYTHONPATH,
3 runs a side alternated, train-textbook-a, 106 questions x 3 rounds, --server-heap, load 2.6-2.7; ms of
CPU an answer, the three runs then their median):

    stage                          base                     after
    query model call               4.62 4.00 4.53  4.53     4.32 4.22 4.04  4.22
    query embedding less model     0.18 0.11 0.17  0.17     0.12 0.13 0.11  0.12
    index search less embedding    0.89 0.66 0.86  0.86     0.72 0.72 0.65  0.72
    sentence vectors               0.11 0.08 0.09  0.09     0.09 0.08 0.08  0.08
    answerability signals          0.39 0.32 0.37  0.37     0.33 0.32 0.30  0.32
    writer less sentence vectors   0.81 0.73 0.77  0.77     0.68 0.67 0.64  0.67
    everything else                1.06 0.80 1.03  1.03     0.88 0.88 0.80  0.88
    total                          8.04 6.68 7.82  7.82     7.14 7.00 6.62  7.00

Only the writer and the signals changed; the other rows moving is the spread (one base run is 1.2 ms below
the other two). Steadier, the same captured inputs (the 77 `compose` and 101 `signals` calls of a round)
run by both builds in one process, alternated 40 times (thread CPU, medians): `compose` 636 -> 607 us an
answer (the word-only scores no longer worked out and then replaced whenever stored vectors score by
meaning, the meaning weights read once, no generator for a unit sharing no query word, `_Candidate` with
slots, a heading's cleanup cached), then 608 -> 565 us (`has_cue` cached by sentence and kind: the cue
regexes ran over every candidate); `signals` 207 -> 197 us (`question_terms` kept for a few texts:
`signals` asked again of the sentences `sentence_parts` had just read). Every answer the same:
answer_quality train, reader tune, dev2, dev5-7 (922 rows, 0 differ in text, sources or score against
the start) and profile_engine --save-answers byte for byte. Tried, in the spread, dropped: `_drawing` cached
and `_with_context`'s per-source maps built once (597 vs 601 us), `rrf_fuse` with its weights worked out
once per depth (27.5 vs 29.8 us a fusion on synthetic 60 + 60 rankings: 2 us an answer).

1k against 10k chunks, Nov 2026 (load 0.9-1.0, 3 rounds, medians; textbook-a's 106 train questions, and
SciFact's first 150 queries on `--collection beir-scifact` with stored sentences and the word table; the
search split by further wrappers of `TableSnapshot.top`, `KeywordIndex.top`, `TableSnapshot.records`,
`ranked_hits`; ms of CPU an answer):

    stage                                   1k      10k
    query model call                 4.39    4.37
    index search less embedding, of it:     0.73    2.07
      dense top (einsum 0.82 of it at 10k)  0.20    1.04
      chunks built (`records`)              0.04    0.37
      keyword top                           0.13    0.26
      ranked_hits, fusion, the rest         0.37    0.41
    answerability signals            0.32    0.40
    writer less sentence vectors     0.65    0.65
    everything else                  0.85    0.82 (1.08-1.19 without the word table)
    total                            7.12    8.51 (8.11-8.28 without the split's wrappers)

The 10k excess is the einsum over 10k x 384 float32 (15.6 MB read an answer: memory-bound, ~19 GB/s),
the ~6 passages an answer new to the 512-entry caches (each chunk built from the columns, ~55 us), and
longer posting lists. OpenBLAS's sgemv on one thread takes ~0.3 ms for the einsum's ~0.6 ms (synthetic
10k matrix), but its sums differ in the last bit for 85 % of rows: ties in the dense ranking could move.

Dense first pass, Nov 2026 (base = main b411d95 by PYTHONPATH, runs alternated, --server-heap, 3 rounds a
run; SciFact's first 150 queries on `--collection beir-scifact` with stored sentences and the word table,
textbook-a's 106 train questions; ms of CPU an answer, medians over the runs):

    stage                            10k: 14 runs a side, load 2.1-5.5   1k: 8 runs a side, load 2.3-2.7
                                     base      after                     base      after
    query model call                 3.99      3.81                      3.71      3.40
    query embedding less model       0.13      0.12                      0.12      0.12
    index search less embedding      2.92      1.70                      0.75      0.73
    sentence vectors                 0.11      0.10                      0.09      0.09
    answerability signals            0.46      0.44                      0.37      0.37
    writer less sentence vectors     0.87      0.76                      0.87      0.84
    everything else                  0.88      0.80                      0.91      0.89
    total                            9.26      7.72                      6.83      6.51

At 10k the search's dense product over every float32 vector gave way to an int8 first pass and an exact
product over the few rows it leaves (lectern.index.dense_prefilter; bench/dense_prefilter_study.py: 984
-> 390 us a search on its own); in the answers the search stage fell 0.3-2.0 ms a run pair (1.1 ms in
the median), more under load, when the 15.6 MB read contends for memory with the neighbours (10 of the
14 pairs ran the first version, float64 int8 scores and one gather: the same answers, and the same CPU
within the spread but for its page faults, below). The final tree against base once more, 7 pairs at
load 0.9-1.3 (medians): search 2.73 -> 1.81 ms, total 9.13 -> 8.49 (the model's call 3.91 -> 4.16:
some runs, of either side, ran every stage 1.3-1.5x slower, a neighbour outside this machine's load). The
keyword side adds each term's posting with `np.add.at` (the same float32 sums: 136 -> 75 us a question
there). At 1k nothing of the search changed but that (below 4096 rows the first pass gains nothing):
the other rows, the model's first, move with the load (the model is the same graph on both sides). Every
answer the same: profile_engine --save-answers byte for byte at 1k, on SciFact and on textbook-a copied
to 10k chunks (--target 10000), serve_memory --save-answers on SciFact (200 answers), answer_quality on
reader tune and holdout and train all (0 rows differ but the timings). Page faults an answer at 10k: 0.2
-> 0.2 (a first version gathered the ~130 rows to score at once, ~200 kB, mapped on its own under the
server's heap: ~12-19 faults an answer, now gathered 64 at a time).

The 6 ms target is met at neither size on this machine at this load: the query model's call alone is
3.1-5.0 ms a run (its noise is the largest of any stage), the rest ~3.1 ms at 1k and ~3.9 at 10k. Of
the rest at 10k after this change: the first pass ~0.35 ms, the ~6 chunks an answer built from the
columns (as_py ~12 us a chunk warm, the Chunk's validation ~10 us; reading the columns as `pa.Array`
rather than `ChunkedArray` saves ~1.7 us a chunk, not done), keyword top ~0.2 ms. Measured and not done:
the typing-slip look-up (`spelling._respelt_word`: ~500 words one slip away in one SQLite query, ~0.58
ms; a question in ten has a rare word) could read a map of the ~13.7k plain words of Zipf 3.5 and more
(~1.5 MB resident, 36 ms to read once) for the same respellings, ~0.06 ms an answer on average.
"""

from __future__ import annotations

import argparse
import asyncio
import functools
import os
import resource
import statistics
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from common import build, read_jsonl
from lectern import answerability, word_frequency
from lectern.embeddings.local import LocalMiniLMEmbedder
from lectern.embeddings.minilm_onnx import OnnxMiniLM
from lectern.engine import Engine
from lectern.index import heap
from lectern.index.lancedb_index import LanceDBIndex
from lectern.sentences import SentenceVectors
from lectern.settings import load_settings
from lectern.writers.extractive import ExtractiveWriter

_own: dict[str, int] = {}  # stage -> its own ns (less the wrapped stages inside it)
_inner: list[int] = []  # per open stage: ns spent in the stages it called


def _timed(owner: Any, name: str, stage: str) -> None:
    func: Callable[..., Any] = getattr(owner, name)

    @functools.wraps(func)
    def wrapper(*args: Any, **kwargs: Any) -> Any:
        started = time.thread_time_ns()
        _inner.append(0)
        try:
            return func(*args, **kwargs)
        finally:
            spent = time.thread_time_ns() - started
            _own[stage] = _own.get(stage, 0) + spent - _inner.pop()
            if _inner:
                _inner[-1] += spent

    setattr(owner, name, wrapper)


STAGES = [
    (OnnxMiniLM, "__call__", "query model call (word rows + onnxruntime run)"),
    (LocalMiniLMEmbedder, "embed_query", "query embedding less the model call"),
    (LanceDBIndex, "search", "index search less the embedding"),
    (SentenceVectors, "of", "sentence vectors (SentenceVectors.of)"),
    (answerability, "signals", "answerability signals"),
    (ExtractiveWriter, "compose", "writer compose less the sentence vectors"),
]


async def _inline(func: Any, /, *args: Any, **kwargs: Any) -> Any:
    return func(*args, **kwargs)


async def _round(engine: Engine, questions: list[str]) -> None:
    for question in questions:
        await engine.run(question, engine.new_conversation())


async def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("corpus", type=Path)
    parser.add_argument("questions", type=Path)
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--server-heap", action="store_true", help="the C heap as `lectern serve` sets it")
    parser.add_argument("--collection", default="", help="CORPUS is a data dir holding this collection.")
    args = parser.parse_args()
    if args.server_heap:
        heap.configure_server_heap()  # before the model and the table allocate anything
    questions = [str(q.get("question") or q.get("text") or q["turns"][0]) for q in read_jsonl(args.questions)]
    for owner, name, stage in STAGES:
        _timed(owner, name, stage)
    if args.collection:
        settings = load_settings(data_dir=args.corpus, collection=args.collection, query_cache_size=0)
        word_frequency.prepare(settings.model_cache_dir)  # as `build`, ingest and `lectern serve` do
        engine = Engine.from_settings(settings)
    else:
        engine, _, _ = build(args.corpus, query_cache_size=0)
    asyncio.to_thread = _inline  # type: ignore[assignment]
    await _round(engine, questions)  # warm-up: the table, the model, the caches
    await _round(engine, questions)
    rounds: list[dict[str, float]] = []
    faults: list[float] = []  # minor page faults an answer, a round
    system: list[float] = []  # the process's system CPU ms an answer, a round
    for _ in range(args.rounds):
        _own.clear()
        thread0, process0 = time.thread_time_ns(), time.process_time_ns()
        usage0 = resource.getrusage(resource.RUSAGE_SELF)
        await _round(engine, questions)
        n = len(questions)
        usage = resource.getrusage(resource.RUSAGE_SELF)
        faults.append((usage.ru_minflt - usage0.ru_minflt) / n)
        system.append((usage.ru_stime - usage0.ru_stime) * 1000 / n)
        thread = (time.thread_time_ns() - thread0) / 1e6 / n
        process = (time.process_time_ns() - process0) / 1e6 / n
        figures = {stage: _own.get(stage, 0) / 1e6 / n for _, _, stage in STAGES}
        figures["everything else"] = thread - sum(figures.values())
        figures["total (this thread)"] = thread
        figures["total (process)"] = process
        rounds.append(figures)
    print(
        f"{args.corpus.name} ({engine.retriever.index.count()} chunks): {len(questions)} questions x "
        f"{args.rounds} rounds, load average {os.getloadavg()[0]:.2f}; CPU ms an answer, median round"
    )
    for stage in rounds[0]:
        print(f"  {statistics.median(r[stage] for r in rounds):7.3f}  {stage}")
    print(
        f"  {statistics.median(faults):7.1f}  page faults an answer "
        f"({statistics.median(system):.3f} ms of system CPU, in the totals)"
    )


if __name__ == "__main__":
    asyncio.run(main())
