"""Where a warm engine's CPU goes per answer, stage by stage, without a profiler.

    PYTHONHASHSEED=0 [PYTHONPATH=TREE/src] uv run python bench/stage_cpu.py CORPUS QUESTIONS [--rounds 5]

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
"""

from __future__ import annotations

import argparse
import asyncio
import functools
import os
import statistics
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from common import build, read_jsonl
from lectern import answerability
from lectern.embeddings.local import LocalMiniLMEmbedder
from lectern.embeddings.minilm_onnx import OnnxMiniLM
from lectern.engine import Engine
from lectern.index.lancedb_index import LanceDBIndex
from lectern.sentences import SentenceVectors
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
    args = parser.parse_args()
    questions = [str(q.get("question") or q.get("text") or q["turns"][0]) for q in read_jsonl(args.questions)]
    for owner, name, stage in STAGES:
        _timed(owner, name, stage)
    engine, _, _ = build(args.corpus, query_cache_size=0)
    asyncio.to_thread = _inline  # type: ignore[assignment]
    await _round(engine, questions)  # warm-up: the table, the model, the caches
    await _round(engine, questions)
    rounds: list[dict[str, float]] = []
    for _ in range(args.rounds):
        _own.clear()
        thread0, process0 = time.thread_time_ns(), time.process_time_ns()
        await _round(engine, questions)
        n = len(questions)
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


if __name__ == "__main__":
    asyncio.run(main())
