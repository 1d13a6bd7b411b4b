"""The LlamaIndex 0.14 + Qdrant (local mode) + sentence-transformers side of bench/compare_llamaindex.py.

Runs in its own environment (see requirements.txt beside this file), never Lectern's. One phase per
process, result as one JSON line on stdout:

    python bench/llamaindex/side.py ingest  CORPUS_DIR WORK_DIR
    python bench/llamaindex/side.py answer  CORPUS_DIR WORK_DIR QUESTIONS.jsonl --started EPOCH

- ingest: SimpleDirectoryReader (Markdown) -> IngestionPipeline with a docstore (upserts: unchanged
  files are skipped on a re-run) -> SentenceSplitter (256 tokens of the model's own tokenizer,
  overlap 32, as Lectern's chunker) -> HuggingFaceEmbedding (the same all-MiniLM-L6-v2 files Lectern
  bundles, on the CPU through sentence-transformers/torch) -> QdrantVectorStore in local mode.
  Reports process CPU seconds, wall seconds and nodes.
- answer: opens the stored index and answers every question with a query engine in ``no_text``
  mode (retrieve the top 5, no LLM): the LlamaIndex analogue of Lectern's offline answer. Reports
  the time from `--started` (the parent's clock before it started this process) to the first answer,
  answers/s over the questions after one warm-up pass, CPU ms per answer, answers/s with two callers
  at once (threads) over the same questions, and peak RSS.
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import sys
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

os.environ.setdefault("HF_HUB_OFFLINE", "1")
os.environ.setdefault("TRANSFORMERS_OFFLINE", "1")
COLLECTION = "bench"
CHUNK_TOKENS, OVERLAP_TOKENS, TOP_K = 256, 32, 5
CALLERS = 2  # the second answer pass: callers at once


def cpu_s() -> float:
    usage = resource.getrusage(resource.RUSAGE_SELF)
    return usage.ru_utime + usage.ru_stime


def peak_rss_mb() -> float:
    for line in Path("/proc/self/status").read_text().splitlines():
        if line.startswith("VmHWM:"):
            return int(line.split()[1]) / 1024
    return 0.0


def setup(model: str) -> Any:
    from llama_index.core import Settings
    from llama_index.embeddings.huggingface import HuggingFaceEmbedding
    from transformers import AutoTokenizer

    tokenizer = AutoTokenizer.from_pretrained(model)
    Settings.tokenizer = tokenizer.encode  # the model's word pieces, not tiktoken (a download)
    Settings.llm = None  # no LLM: retrieval only
    embed = HuggingFaceEmbedding(model_name=model, device="cpu", embed_batch_size=32)
    Settings.embed_model = embed
    return embed


def store(work: Path) -> Any:
    from llama_index.vector_stores.qdrant import QdrantVectorStore
    from qdrant_client import QdrantClient

    client = QdrantClient(path=str(work / "qdrant"))
    return QdrantVectorStore(client=client, collection_name=COLLECTION)


def ingest(corpus: Path, work: Path, model: str) -> dict[str, Any]:
    from llama_index.core import SimpleDirectoryReader
    from llama_index.core.ingestion import DocstoreStrategy, IngestionPipeline
    from llama_index.core.node_parser import SentenceSplitter
    from llama_index.core.storage.docstore import SimpleDocumentStore

    started, cpu0 = time.perf_counter(), cpu_s()
    embed = setup(model)
    docs = SimpleDirectoryReader(
        str(corpus), recursive=True, required_exts=[".md"], filename_as_id=True
    ).load_data()
    docstore_path = work / "docstore.json"
    docstore = SimpleDocumentStore.from_persist_path(str(docstore_path)) if docstore_path.exists() else None
    pipeline = IngestionPipeline(
        transformations=[SentenceSplitter(chunk_size=CHUNK_TOKENS, chunk_overlap=OVERLAP_TOKENS), embed],
        vector_store=store(work),
        docstore=docstore or SimpleDocumentStore(),
        docstore_strategy=DocstoreStrategy.UPSERTS,
    )
    nodes = pipeline.run(documents=docs)
    pipeline.docstore.persist(str(docstore_path))
    return {
        "wall_s": time.perf_counter() - started,
        "cpu_s": cpu_s() - cpu0,
        "documents": len(docs),
        "nodes_written": len(nodes),
    }


def answer(corpus: Path, work: Path, model: str, questions: list[str], started: float) -> dict[str, Any]:
    del corpus
    from llama_index.core import VectorStoreIndex

    setup(model)
    index = VectorStoreIndex.from_vector_store(store(work))
    engine = index.as_query_engine(similarity_top_k=TOP_K, response_mode="no_text")
    engine.query(questions[0])
    first_answer_s = time.time() - started
    for q in questions:  # warm-up pass
        engine.query(q)
    cpu0, wall0 = cpu_s(), time.perf_counter()
    for q in questions:
        engine.query(q)
    wall, cpu = time.perf_counter() - wall0, cpu_s() - cpu0
    wall0 = time.perf_counter()
    with ThreadPoolExecutor(CALLERS) as pool:  # two callers at once, as a threaded server would
        list(pool.map(engine.query, questions))
    return {
        "start_to_first_answer_s": first_answer_s,
        "answers": len(questions),
        "answers_per_s": len(questions) / wall,
        "answers_per_s_callers": len(questions) / (time.perf_counter() - wall0),
        "cpu_ms_per_answer": cpu * 1000 / len(questions),
        "peak_rss_mb": peak_rss_mb(),
    }


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("phase", choices=["ingest", "answer"])
    parser.add_argument("corpus", type=Path)
    parser.add_argument("work", type=Path)
    parser.add_argument("questions", type=Path, nargs="?")
    parser.add_argument("--model", required=True, help="folder of the all-MiniLM-L6-v2 files")
    parser.add_argument("--started", type=float, default=0.0)
    args = parser.parse_args()
    args.work.mkdir(parents=True, exist_ok=True)
    if args.phase == "ingest":
        result = ingest(args.corpus, args.work, args.model)
    else:
        rows = [json.loads(line) for line in args.questions.read_text().splitlines() if line.strip()]
        qs = [str(r.get("question") or r.get("text")) for r in rows]
        result = answer(args.corpus, args.work, args.model, qs, args.started or time.time())
    sys.stdout.write(json.dumps(result) + "\n")


if __name__ == "__main__":
    main()
