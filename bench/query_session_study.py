"""The int8 query model's onnxruntime session, option by option: whether each variant gives the product's
vectors bit for bit, and its CPU, page faults and system CPU per question (one thread).

    .venv/bin/python bench/query_session_study.py DATA_DIR [QUESTIONS.jsonl ...] [--rounds 5]
        [--server-heap] [--kernels] [--only NAME ...]

DATA_DIR holds the graphs (its ``models`` folder, as an ingest leaves it: e.g. bench/results/index/
textbook-a). Each question's word pieces and word rows are worked out once; the timed part is the
session's `run` alone, the variants in turn within each round (median over rounds). `--server-heap` first
sets the heap as `lectern serve` does (`heap.configure_server_heap`: blocks of 128 kB and more mapped on
their own). `--kernels` prints onnxruntime's per-operator time for the product's session.

Measured (Nov 2026, AMD EPYC with AVX-512 VNNI: s8 weights, 2 shared cores at load 4.5-5.2, the 331
train questions of the four textbooks, ~21 word pieces each; ms of CPU a question, median of 5 rounds):

    variant                          vectors        default heap   server heap (page faults, system ms)
    no arena (before)                -              3.42           3.61-3.77  (21-55, 0.07-0.16)
    arena kept to 64 tokens (now)    identical      3.56           3.47-3.54  (0, 0.02)
    no arena, no memory pattern      identical      3.61
    ORT_ENABLE_EXTENDED              identical      3.59
    ORT_ENABLE_BASIC                 identical      3.54
    IO binding, output bound         identical      3.51
    spinning on                      identical      3.44
    denormals as zero                identical      3.47
    no weight prepacking             max |d| 0.058  5.31

With the default heap every variant but the last lies within the rounds' spread (+-0.15 ms). Through the
whole `embed_query` (word pieces, rows, `run`, 400 reader questions, server heap) the arena took the page
faults from ~150 a question to 0, system CPU from 0.34-0.39 ms to 0.01-0.04 and the CPU a question from
4.30-4.40 ms to 3.90-4.02; with the default heap 4.15 to 4.02.

Kept: the arena (minilm_onnx `keep_arena_up_to`, local `QUERY_ARENA_TOKENS`): a query's buffers (one
memory-pattern block of ~0.5 MB) no longer come from the C library at every call, which under the
server's heap maps and faults them in afresh; resident memory after 400 questions +1.5 MB against +2.6
MB before, and a batch of 64 sentences through the same session leaves +3.8 MB (the arena hands a call
over 64 tokens back). Everything else was dropped (no gain beyond the spread); without prepacking the
int8 products take another, slower path and the vectors change.

Where the model's time goes (`--kernels`, profiled, ~4.45 ms a question): the six fp32 feed-forward down
projections (MatMul, 21 x 1536 by 1536 x 384 each, ~40 GFLOP/s: 42 % of the kernels' time) 1.87 ms,
DynamicQuantizeMatMul (attention output and up projections, VNNI u8 x s8: ~220 GOP/s) 0.85, QAttention
0.85, BiasGelu 0.30, LayerNormalization 0.12, the Adds 0.11, the rest ~0.1. Outside `run`: word pieces
~5 us, word rows (`WordRows.take`, one `pread` a token) ~42 us, normalisation ~5 us. The down
projections stay fp32 on purpose (minilm_graphs: quantised, the cosine to fp32 falls to 0.990 on the
reference texts), so no session setting brings a question much under ~3.5 ms here: an engine answer's
remaining ~3 ms (search, signals, writer, turn) is spread over many small functions (bench/stage_cpu.py).
"""

from __future__ import annotations

import argparse
import os
import resource
import statistics
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np

from common import kernel_split
from int8_closeness import questions
from lectern.embeddings import minilm_assets as assets
from lectern.embeddings.local import QUERY_ARENA_TOKENS, _embedding_tokenizer, _query_word_piece
from lectern.embeddings.minilm_graphs import graph_path
from lectern.embeddings.minilm_onnx import SKIP_NORM_FUSION, WORD_VECTORS, OnnxMiniLM
from lectern.index import heap

ROOT = Path(__file__).resolve().parent.parent
Feeds = dict[str, np.ndarray[Any, Any]]
Run = Callable[[Feeds], np.ndarray[Any, Any]]


def _session(
    graph: Path, *, arena: bool = False, level: str = "ALL", entries: dict[str, str] | None = None
) -> Any:
    """The product's options (minilm_onnx._session) but for the ones a variant changes."""
    import onnxruntime as ort

    opts = ort.SessionOptions()
    opts.intra_op_num_threads = 1
    opts.inter_op_num_threads = 1
    opts.execution_mode = ort.ExecutionMode.ORT_SEQUENTIAL
    opts.graph_optimization_level = getattr(ort.GraphOptimizationLevel, f"ORT_ENABLE_{level}")
    opts.log_severity_level = 3
    opts.enable_cpu_mem_arena = arena
    settings = {"session.intra_op.allow_spinning": "0", **(entries or {})}
    if settings.pop("memory_pattern", "1") == "0":
        opts.enable_mem_pattern = False
    for key, value in settings.items():
        opts.add_session_config_entry(key, value)
    return ort.InferenceSession(
        str(graph), opts, providers=["CPUExecutionProvider"], disabled_optimizers=[SKIP_NORM_FUSION]
    )


def _plain(session: Any) -> Run:
    return lambda feeds: session.run(["pooled"], feeds)[0]


def _bound(session: Any) -> Run:
    binding = session.io_binding()

    def run(feeds: Feeds) -> np.ndarray[Any, Any]:
        for name, value in feeds.items():
            binding.bind_cpu_input(name, value)
        binding.bind_output("pooled")
        session.run_with_iobinding(binding)
        return binding.copy_outputs_to_cpu()[0]  # type: ignore[no-any-return]

    return run


def _product(graph: Path) -> Run:
    """The session as the product loads it (local.load_query_model), without the word rows."""
    model = OnnxMiniLM.from_file(
        graph,
        assets.load_config(assets.model_dir()),
        "fused",
        threads=1,
        words=assets.model_dir() / "model.safetensors",
        arena=True,
    )
    model.keep_arena_up_to(QUERY_ARENA_TOKENS)
    shrink, kept = model._shrink, model._kept_tokens
    session = model._session

    def run(feeds: Feeds) -> np.ndarray[Any, Any]:
        size = feeds["attention_mask"].size
        return session.run(["pooled"], feeds, shrink if size > kept else None)[0]  # type: ignore[no-any-return]

    return run


def _variants(graph: Path) -> dict[str, Callable[[], Run]]:
    return {
        "arena kept (product)": lambda: _product(graph),
        "no arena (before)": lambda: _plain(_session(graph)),
        "no arena, no memory pattern": lambda: _plain(_session(graph, entries={"memory_pattern": "0"})),
        "ORT_ENABLE_EXTENDED": lambda: _plain(_session(graph, level="EXTENDED")),
        "ORT_ENABLE_BASIC": lambda: _plain(_session(graph, level="BASIC")),
        "IO binding": lambda: _bound(_session(graph)),
        "spinning on": lambda: _plain(_session(graph, entries={"session.intra_op.allow_spinning": "1"})),
        "denormals as zero": lambda: _plain(_session(graph, entries={"session.set_denormal_as_zero": "1"})),
        "no weight prepacking": lambda: _plain(_session(graph, entries={"session.disable_prepacking": "1"})),
    }


def _kernels(graph: Path, feeds: list[Feeds]) -> None:
    import onnxruntime as ort

    opts = ort.SessionOptions()
    opts.intra_op_num_threads = 1
    opts.enable_profiling = True
    opts.log_severity_level = 3
    opts.add_session_config_entry("session.intra_op.allow_spinning", "0")
    opts.profile_file_prefix = str(Path(os.environ.get("TMPDIR", "/tmp")) / "query-session-study")
    session = ort.InferenceSession(
        str(graph), opts, providers=["CPUExecutionProvider"], disabled_optimizers=[SKIP_NORM_FUSION]
    )
    ms, ops = kernel_split(session, feeds)
    print(f"kernels (profiled, {ms:.2f} ms a question):")
    for op, op_ms in ops[:10]:
        print(f"  {op_ms:6.3f} ms  {op}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("data_dir", type=Path)
    parser.add_argument("files", nargs="*", type=Path)
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--server-heap", action="store_true", help="the heap as `lectern serve` sets it")
    parser.add_argument("--kernels", action="store_true", help="onnxruntime's time per operator")
    parser.add_argument("--only", nargs="*", default=[], help="these variants (and the product's)")
    args = parser.parse_args()
    if args.server_heap:
        heap.configure_server_heap()
    graph = graph_path(args.data_dir / "models", "fused", "int8")
    files = args.files or sorted((ROOT / "bench" / "questions").glob("train-textbook-*.jsonl"))
    asked = questions(files)
    fast, tokenizer = _query_word_piece(), _embedding_tokenizer()
    ids = [np.asarray([(fast.ids(q) if fast else None) or tokenizer.encode(q).ids], np.int64) for q in asked]
    words = assets.WordRows(assets.model_dir() / "model.safetensors")
    feeds: list[Feeds] = [{WORD_VECTORS: words.take(i), "attention_mask": np.ones_like(i)} for i in ids]
    print(f"{len(asked)} questions, {statistics.mean(i.shape[1] for i in ids):.1f} word pieces on average")
    if args.kernels:
        _kernels(graph, feeds)
    chosen = {n: v for n, v in _variants(graph).items() if not args.only or n in args.only or "product" in n}
    runs = {name: make() for name, make in chosen.items()}
    reference = None
    for name, run in runs.items():
        vectors = np.concatenate([run(f) for f in feeds])
        reference = vectors if reference is None else reference
        same = np.array_equal(vectors, reference)
        print(f"{name}: {'identical' if same else f'max |d| {np.abs(vectors - reference).max():.3g}'}")
    cpu: dict[str, list[float]] = {name: [] for name in runs}
    faults: dict[str, list[tuple[float, float]]] = {name: [] for name in runs}
    for _ in range(args.rounds):
        for name, run in runs.items():
            before, started = resource.getrusage(resource.RUSAGE_SELF), time.thread_time_ns()
            for feed in feeds:
                run(feed)
            spent, after = time.thread_time_ns() - started, resource.getrusage(resource.RUSAGE_SELF)
            cpu[name].append(spent / 1e6 / len(feeds))
            faults[name].append(
                (
                    (after.ru_minflt - before.ru_minflt) / len(feeds),
                    (after.ru_stime - before.ru_stime) * 1e3 / len(feeds),
                )
            )
    print(
        f"load average {os.getloadavg()[0]:.2f}; ms of CPU a question (median round), page faults, system ms"
    )
    for name in runs:
        flt = statistics.median(f for f, _ in faults[name])
        sys_ms = statistics.median(s for _, s in faults[name])
        print(f"  {statistics.median(cpu[name]):6.3f}  {flt:7.1f}  {sys_ms:6.3f}  {name}")


if __name__ == "__main__":
    main()
