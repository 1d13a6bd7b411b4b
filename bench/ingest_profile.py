"""Where a cold `lectern ingest` spends its CPU, phase by phase.

Runs `lectern ingest CORPUS` in this process into a fresh data dir (or `--data-dir`, e.g. one whose
``models`` folder already holds the graphs), with the pipeline's steps wrapped by timers that read the
process's CPU time (user + system, every thread: the model's worker threads and the tokenizer's run
inside the calls that start them) and its children's (a process that did not build the fp32 graph
builds the int8 graph in a process of its own; a cold ingest builds both in process). Each phase's
time is its own, without the phases it calls. The phases run one after another on
the main thread, so the split adds up to the whole run.

    .venv/bin/python bench/ingest_profile.py ../shared/data/textbooks/textbook-a
"""

from __future__ import annotations

import argparse
import functools
import importlib
import os
import resource
import sys
import tempfile
import time
from collections import defaultdict
from collections.abc import Callable
from pathlib import Path
from typing import Any


def _cpu() -> float:
    own = resource.getrusage(resource.RUSAGE_SELF)
    kids = resource.getrusage(resource.RUSAGE_CHILDREN)
    return own.ru_utime + own.ru_stime + kids.ru_utime + kids.ru_stime


_START = _cpu()
_TOTALS: dict[str, float] = defaultdict(float)
_CALLS: dict[str, int] = defaultdict(int)
_STACK: list[list[float]] = []  # [started, time of the phases it called]


def _timed(label: str, fn: Callable[..., Any]) -> Callable[..., Any]:
    @functools.wraps(fn)
    def wrapper(*args: Any, **kwargs: Any) -> Any:
        if any(frame[2] == label for frame in _STACK):  # a recursive call counts once, at the top
            return fn(*args, **kwargs)
        frame: list[Any] = [_cpu(), 0.0, label]
        _STACK.append(frame)
        try:
            return fn(*args, **kwargs)
        finally:
            _STACK.pop()
            spent = _cpu() - frame[0]
            _TOTALS[label] += spent - frame[1]
            _CALLS[label] += 1
            if _STACK:
                _STACK[-1][1] += spent

    return wrapper


def _wrap(module: str, attr: str, label: str) -> None:
    """`attr` is ``name`` (a module function) or ``Class.method``."""
    owner: Any = importlib.import_module(module)
    *path, name = attr.split(".")
    for part in path:
        owner = getattr(owner, part)
    setattr(owner, name, _timed(label, getattr(owner, name)))


PHASES = [
    ("lectern.embeddings.minilm_graphs", "graph_path", "graph builds (in process)"),
    ("lectern.embeddings.minilm_graphs", "build_apart", "graph build (child process)"),
    ("lectern.embeddings.minilm_onnx", "_session", "onnxruntime session load"),
    ("lectern.word_frequency", "prepare", "word-frequency table"),
    ("lectern.ingest.pipeline", "load_document", "parse files"),
    ("lectern.ingest.pipeline", "chunk_document", "chunking (exclusive of token counts)"),
    ("lectern.embeddings.minilm_assets", "count_content_tokens", "token counting (chunker)"),
    ("lectern.ingest.pipeline", "file_sha256", "file hashes"),
    ("lectern.ingest.resume", "ResumableEmbedder.embed_documents", "resume file writes"),
    ("lectern.ingest.resume", "ResumableEmbedder.finished", "resume file writes"),
    ("lectern.embeddings.local", "LocalMiniLMEmbedder.embed_documents", "chunk pass: tokenise + pad"),
    ("lectern.embeddings.local", "LocalMiniLMEmbedder.embed_sentences", "sentence pass: tokenise + pad"),
    ("lectern.embeddings.local", "LocalMiniLMEmbedder._batches", "batching"),
    ("lectern.sentences", "SentenceVectors._embed", "sentence store (fp16, SQLite)"),
    ("lectern.sentences", "units_of", "sentence splitting (units_of)"),
    ("lectern.sentences", "SentenceVectors._load", "sentence store (fp16, SQLite)"),
    ("lectern.index.lancedb_index", "LanceDBIndex.upsert", "index upsert"),
    ("lectern.index.lancedb_index", "LanceDBIndex.optimize", "index optimize (FTS, compaction)"),
    ("lectern.index.lancedb_index", "LanceDBIndex.create", "index create/open/count"),
    ("lectern.index.lancedb_index", "LanceDBIndex.count", "index create/open/count"),
    ("lectern.index.lancedb_index", "LanceDBIndex.hashes", "index create/open/count"),
    ("lectern.index.lancedb_index", "LanceDBIndex.delete_hashes", "index create/open/count"),
    ("lectern.ingest.manifest", "Manifest.record_documents", "manifest (SQLite)"),
    ("lectern.ingest.manifest", "Manifest.canonical_chunks", "manifest (SQLite)"),
    ("lectern.ingest.manifest", "Manifest.hashes_of", "manifest (SQLite)"),
    ("lectern.ingest.manifest", "Manifest.referenced_hashes", "manifest (SQLite)"),
]


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("corpus", type=Path)
    parser.add_argument("--data-dir", type=Path, help="Ingest into this folder (default: a fresh one).")
    args = parser.parse_args()
    data_dir = args.data_dir or Path(tempfile.mkdtemp(prefix="ingest-profile-"))
    os.environ["LECTERN_DATA_DIR"] = str(data_dir)
    os.environ.setdefault("COLUMNS", "200")

    imported = _cpu()
    import lectern.embeddings.local as local
    from lectern.cli import app

    for module, attr, label in PHASES:
        _wrap(module, attr, label)
    # the model calls, split by the pass that runs them
    run = local.MiniLMRuntime.run

    def timed_run(self: Any, batches: Any) -> Any:
        outer = _STACK[-1][2] if _STACK else "?"
        kind = "sentence" if outer.startswith("sentence") else "chunk"
        precision = "int8" if self.same_length else "fp32"
        return _timed(f"model: {kind} pass ({precision})", run)(self, batches)

    local.MiniLMRuntime.run = timed_run  # type: ignore[method-assign]
    imports = _cpu() - imported
    before = _cpu()
    started = time.perf_counter()
    try:
        app(["ingest", str(args.corpus)], standalone_mode=False)
    finally:
        total = _cpu() - before
        wall = time.perf_counter() - started
    _TOTALS["imports (lectern CLI, numpy, onnxruntime...)"] += imports + (imported - _START)
    _TOTALS["other (CLI, lancedb background, rest)"] += total - sum(
        v for k, v in _TOTALS.items() if not k.startswith("imports")
    )
    whole = _cpu() - _START
    print(f"\ndata dir {data_dir}; load average {os.getloadavg()[0]:.2f}; wall {wall:.1f} s", file=sys.stderr)
    print(f"{'phase':<48} {'CPU s':>8} {'share':>7} {'calls':>7}", file=sys.stderr)
    for label, seconds in sorted(_TOTALS.items(), key=lambda kv: -kv[1]):
        print(
            f"{label:<48} {seconds:>8.2f} {seconds / whole:>7.1%} {_CALLS.get(label, 0):>7}", file=sys.stderr
        )
    print(f"{'total (process and children)':<48} {whole:>8.2f}", file=sys.stderr)


if __name__ == "__main__":
    main()
