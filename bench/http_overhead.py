"""The HTTP service's own cost per answer: ``/chat/run`` and ``/chat/stream`` against a server whose
engine replays recorded answers, so what is measured is everything but the engine (uvicorn, the ASGI
middleware, validation, the conversation store, logging, the hand-offs between the event loop and
threads). Variants run alternately, as in bench/http_ab.py.

    uv run python bench/http_overhead.py /work/shared/data/textbooks/textbook-a \
        --variant base=1@/tmp/base/src --variant mine=1 [--rounds 5] [--requests 2000] [--clients 32]

A variant is ``LABEL=WORKERS[@SRC][,NAME=VALUE...]`` (SRC goes first on the server's PYTHONPATH; the
settings go into its environment, e.g. ``quiet=1,LECTERN_LOG_LEVEL=warning``). Each round starts each
variant's server on a fresh SQLite database over the collection bench/http_load.py ingested; the engine
answers the first ``--questions`` distinct questions once for real (recorded, with the real engine's
events), then every request replays one. Each run reports answers/s, p50/p99 latency and the server's
CPU per answer at ``--clients``, and the CPU per streamed answer of sequential ``/chat/stream``
requests; the medians per variant are printed at the end.

Findings (textbook-a, 1 worker, 32 clients, a shared 2-core machine at load 8-16: CPU times are
inflated about twice against a quiet machine, so read shares and ratios, not absolute values):

* Where an answer's CPU goes. Real engine: 18-23 ms of server CPU per answer; replayed engine (this
  script): ~3.1 ms (medians of 3, load ~9). Everything outside the engine is ~15 % of an answer's
  CPU. Per thread (/proc/<pid>/task, replayed): event loop 1.7 ms, store writer thread 1.2 ms, log
  writer thread 0.25 ms. With the real engine the event loop took 3.6 ms (the engine's coroutines
  run there too) and each of the 6 engine pool threads ~2.4 ms. So 200 answers/s on two cores is an
  engine matter (py-spy of the real server: the query embedding's onnxruntime call ~1/3 of busy
  samples; SentenceVectors.of with the Snowball stemmer per word ~10 %; the answerability signals,
  LanceDB's Python side (VersionStamp.look, TableSnapshot.top, WordRows.take) a few % each; on the
  event loop, split_tokens' regex in the extractive writer's write and Citation.from_hit).
* Logging is the largest server-side item: LECTERN_LOG_LEVEL=warning took 3.14 -> 2.64 ms per
  answer (replayed, medians of 3): ~0.5 ms for 5 JSON lines and 4 stored log events per answer. The
  formatter built a JSON encoder per line and formatted the date per line (20 -> 13 us a line); the
  writer thread was woken per line (now it gathers 20 ms of lines per write).
* Instructions (callgrind, the app driven in-process without uvicorn, 32 concurrent clients, 320
  replayed answers after a warm-up; deterministic to 0.1 % on the base): 5.86 M instructions per
  answer at edf35f3; 5.60-5.88 M after the logging and store changes (the count now varies with
  thread timing: how many lines and rows each batch gathers). JSON encoding is ~12 % of them: 6
  json.dumps per answer for the store (~8 KB: the answer's sources and citations, the passages' text
  in both) and 5 log lines (~1.6 KB). Pydantic per answer: 8.5 Source, 7.4 WindowMessage, 4 NewLogEvent,
  2 NewMessage and their dumps, 2 Message (now built without validation), 1 ChatRequest, 1 ChatResponse.
* Real engine, base (edf35f3) against these changes, interleaved (bench/http_ab.py --rounds 3
  --requests 1280, load 10-14): 1 worker 36.6 -> 34.6 answers/s (rounds +22 %, -5 %, +25 %), CPU
  21.7 -> 19.8 ms/answer; 2 workers 45.0 -> 46.9/s (+14 %, +4 %, -2 %), CPU 22.5 -> 22.8 ms. The few
  percent expected are below this machine's noise.
* Tried, inconclusive here: the engine pool at 2 or 3 threads instead of 6, and a 1 ms GIL switch
  interval (bench/http_ab.py, real engine). Under load 13 a process's share of the cores follows its
  count of runnable threads, so fewer threads looked slower (20.0 and 22.5/s against 24.8/s) for a
  reason a dedicated server does not have; worth measuring on a quiet machine.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import itertools
import statistics
import sys
import tempfile
import time
from collections.abc import AsyncGenerator
from pathlib import Path
from typing import Any

import httpx

sys.path.insert(0, str(Path(__file__).resolve().parent))
import http_load as h


class ReplayEngine:
    """The real engine for a question's first answer; its recorded events for every later one."""

    def __init__(self, engine: Any) -> None:
        self._engine = engine
        self._seen: dict[tuple[str, bool], list[Any]] = {}

    def __getattr__(self, name: str) -> Any:
        return getattr(self._engine, name)

    async def stream(
        self, question: str, conversation: Any, options: Any = None
    ) -> AsyncGenerator[Any, None]:
        key = (question, getattr(options, "stream_tokens", True))
        recorded = self._seen.get(key)
        if recorded is not None:
            for event in recorded:
                yield event
            return
        events = []
        async with contextlib.aclosing(self._engine.stream(question, conversation, options)) as real:
            async for event in real:
                events.append(event)
                if type(event).__name__ in ("Done", "Failed"):  # the caller closes the stream here
                    self._seen[key] = events
                yield event


def replay_app() -> Any:
    """For ``uvicorn --factory http_overhead:replay_app``: the service with a replaying engine."""
    import os

    from lectern.api.app import create_app
    from lectern.api.logs import configure_logging
    from lectern.engine import Engine
    from lectern.settings import get_settings

    configure_logging(os.environ.get("LECTERN_LOG_LEVEL", "info"), "json")
    settings = get_settings()
    engine = Engine.from_settings(settings)
    engine.retriever.embedder.embed_query("warm up")
    return create_app(settings, engine=ReplayEngine(engine))  # type: ignore[arg-type]


def serve(env: dict[str, str], workers: int) -> Any:
    """As h.server, with the replaying app."""
    port = h.free_port()
    command = [
        sys.executable, "-m", "uvicorn", "http_overhead:replay_app", "--factory",
        "--host", "127.0.0.1", "--port", str(port), "--workers", str(workers),
        "--no-access-log", "--log-level", "warning", "--timeout-worker-healthcheck", "60",
    ]  # fmt: skip
    return _Server(command, env, port)


class _Server:
    def __init__(self, command: list[str], env: dict[str, str], port: int) -> None:
        self.command, self.env, self.port = command, env, port

    def __enter__(self) -> tuple[str, int]:
        import os
        import subprocess

        self._log = tempfile.TemporaryFile()
        self.process = subprocess.Popen(
            self.command, env={**os.environ, **self.env}, cwd=h.ROOT, stdout=self._log, stderr=self._log
        )
        return h._wait_ready(f"http://127.0.0.1:{self.port}", self.process, self._log), self.process.pid

    def __exit__(self, *exc: object) -> None:
        self.process.terminate()
        self.process.wait(timeout=20)
        self._log.close()


async def streamed_cpu(url: str, qs: list[str], count: int, pid: int) -> dict[str, float]:
    """Sequential /chat/stream answers: the server's CPU per answer and the first token's wait."""
    waits: list[float] = []
    cpu = h.process_tree_cpu_s(pid)
    async with httpx.AsyncClient(base_url=url, timeout=60) as http:
        for n in range(count):
            started = time.perf_counter()
            async with http.stream("POST", "/chat/stream", json={"message": qs[n % len(qs)]}) as response:
                first = True
                async for line in response.aiter_lines():
                    if first and line.startswith("data:") and '"type": "token"' in line:
                        waits.append(time.perf_counter() - started)
                        first = False
    cpu = h.process_tree_cpu_s(pid) - cpu
    return {
        "stream_cpu_ms_per_answer": round(cpu / count * 1000, 3),
        "ttft_p50_ms": round(h.percentile(waits, 50) * 1000, 3),
    }


def measure(
    folder: Path,
    workers: int,
    src: str,
    clients: int,
    requests: int,
    count: int,
    streams: int,
    extra: dict[str, str],
) -> dict[str, Any]:
    data_dir = h.RESULTS / "http" / folder.name
    qs = h.distinct_questions(folder)[:count]
    bench_dir = str(Path(__file__).resolve().parent)
    with tempfile.TemporaryDirectory() as tmp:
        env = h.service_env(
            data_dir, f"sqlite+aiosqlite:///{tmp}/lectern.sqlite3", LECTERN_QUERY_CACHE_SIZE="0"
        )
        env["PYTHONPATH"] = ":".join(p for p in (src, bench_dir) if p)
        env.update(extra)
        with serve(env, workers) as (url, pid):
            # Record every question's answer (both kinds of stream) with each worker.
            for _ in range(workers):
                asyncio.run(h.chat_run(url, ((q, False) for q in qs), 4, len(qs), pid))
            asyncio.run(streamed_cpu(url, qs, len(qs) * workers, pid))
            stream = ((q, True) for q in itertools.cycle(qs))
            asyncio.run(h.chat_run(url, stream, clients, 200, pid))  # warm
            row = asyncio.run(h.chat_run(url, stream, clients, requests, pid))
            row.update(asyncio.run(streamed_cpu(url, qs, streams, pid)))
    return row


KEYS = (
    "answers_per_s",
    "p50_ms",
    "p99_ms",
    "server_cpu_ms_per_answer",
    "stream_cpu_ms_per_answer",
    "ttft_p50_ms",
    "load_avg_1m",
)


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("folder", type=Path)
    parser.add_argument("--variant", action="append", required=True)
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--requests", type=int, default=2000)
    parser.add_argument("--clients", type=int, default=32)
    parser.add_argument("--questions", type=int, default=100)
    parser.add_argument("--streams", type=int, default=100)
    args = parser.parse_args()
    folder = args.folder.resolve()
    variants = []
    for text in args.variant:
        label, _, rest = text.partition("=")
        rest, *settings = rest.split(",")
        workers, _, src = rest.partition("@")
        extra = dict(s.split("=", 1) for s in settings)
        variants.append((label, int(workers), src, extra))
    rows: dict[str, list[dict[str, Any]]] = {v[0]: [] for v in variants}
    for n in range(args.rounds):
        for label, workers, src, extra in variants if n % 2 == 0 else variants[::-1]:
            row = measure(
                folder, workers, src, args.clients, args.requests, args.questions, args.streams, extra
            )
            rows[label].append(row)
            print(f"round {n} {label}: " + ", ".join(f"{k} {row[k]}" for k in KEYS), flush=True)
    print("medians:")
    for label, runs in rows.items():
        print(f"  {label}: " + ", ".join(f"{k} {statistics.median(r[k] for r in runs):.3f}" for k in KEYS))


if __name__ == "__main__":
    main()
