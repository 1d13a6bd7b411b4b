"""Load on the HTTP service: ``/chat/run`` latency and throughput, time to the first SSE token, and
cancel latency, against real server processes on loopback.

    uv run python bench/http_load.py /work/shared/data/textbooks/textbook-a [--workers 2] [--clients 1,8,32]

1. Ingests FOLDER into ``bench/results/http/<name>`` (incremental: a re-run re-embeds nothing).
2. Starts the service (uvicorn, the ``app_factory`` that ``lectern serve --workers`` runs) with the
   offline extractive writer, a fresh SQLite conversation database and no rate limit, and measures:
   ``/chat/run`` at each client count (each client keeps one conversation, a new one every 10 turns),
   then the time to the first ``token`` event of ``/chat/stream``.
3. Starts a second service whose writer is an OpenAI-compatible model served by a scripted slow fake
   (tests/fakes/openai_chat_server.py), and measures cancel: from ``POST /api/generation/cancel`` to the
   stream's final delta, and to the moment the fake provider sees its request aborted.

Prints a table and writes ``bench/results/http_load.json``. Questions come from
``bench/questions/<name>.jsonl`` when it exists, else from the corpus's headings.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import platform
import re
import socket
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import httpx

ROOT = Path(__file__).resolve().parent.parent
RESULTS = ROOT / "bench" / "results"
COLLECTION = "bench"
TURNS_PER_SESSION = 10
# Production logging (JSON lines at info) unless told otherwise: its cost is part of the answer.
LOG_LEVEL = os.environ.get("LECTERN_LOG_LEVEL", "info")


def percentile(values: list[float], q: float) -> float:
    if not values:
        return float("nan")
    ordered = sorted(values)
    k = (len(ordered) - 1) * q / 100
    lo, hi = int(k), min(int(k) + 1, len(ordered) - 1)
    return ordered[lo] + (ordered[hi] - ordered[lo]) * (k - lo)


def ms(values: list[float]) -> dict[str, float]:
    return {
        "p50_ms": round(percentile(values, 50) * 1000, 2),
        "p90_ms": round(percentile(values, 90) * 1000, 2),
        "p99_ms": round(percentile(values, 99) * 1000, 2),
        "mean_ms": round(statistics.fmean(values) * 1000, 2) if values else float("nan"),
    }


# --- setup --------------------------------------------------------------------------------------


def ingest(folder: Path, data_dir: Path) -> dict[str, Any]:
    from lectern.ingest.pipeline import IngestOptions, IngestPipeline
    from lectern.runtime import Runtime
    from lectern.settings import load_settings

    settings = load_settings(data_dir=data_dir, collection=COLLECTION)
    runtime = Runtime(settings)
    started = time.perf_counter()
    pipeline = IngestPipeline(
        collection=runtime.collection,
        embedder=runtime.embedder,
        index=runtime.index,
        manifest=runtime.manifest,
    )
    report = pipeline.ingest_paths([folder], IngestOptions(flush_chunks=settings.ingest_flush_chunks))
    runtime.index.optimize()
    return {"seconds": round(time.perf_counter() - started, 2), "chunks": report.chunks_total}


def questions(folder: Path, *, in_scope: bool = False) -> list[str]:
    listed = ROOT / "bench" / "questions" / f"{folder.name}.jsonl"
    if listed.exists():
        rows = [json.loads(line) for line in listed.read_text(encoding="utf-8").splitlines() if line.strip()]
        wanted = [r for r in rows if not in_scope or r.get("kind") == "in_scope"]
        found = [r["question"] for r in wanted if r.get("question")]
        if found:
            return found
    heading = re.compile(r"^#{1,3}\s+(.+)$", re.MULTILINE)
    found = []
    for path in sorted(folder.rglob("*.md*")):
        text = path.read_text(encoding="utf-8", errors="ignore")
        found += [f"What is {h.strip()}?" for h in heading.findall(text)]
    return found or ["What is this documentation about?"]


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port: int = sock.getsockname()[1]
        return port


@contextmanager
def server(env: dict[str, str], workers: int) -> Iterator[str]:
    """The service in its own process (uvicorn --factory, as `lectern serve --workers` runs it)."""
    port = free_port()
    command = [
        sys.executable, "-m", "uvicorn", "lectern.api.app:app_factory", "--factory",
        "--host", "127.0.0.1", "--port", str(port), "--workers", str(workers),
        "--no-access-log", "--log-level", "warning", "--timeout-worker-healthcheck", "60",
    ]  # fmt: skip
    with tempfile.TemporaryFile() as log:
        process = subprocess.Popen(command, env={**os.environ, **env}, cwd=ROOT, stdout=log, stderr=log)
        try:
            yield _wait_ready(f"http://127.0.0.1:{port}", process, log)
        finally:
            process.terminate()
            try:
                process.wait(timeout=20)
            except subprocess.TimeoutExpired:
                process.kill()


def _wait_ready(url: str, process: subprocess.Popen[bytes], log: Any) -> str:
    deadline = time.monotonic() + 120
    while True:
        if process.poll() is not None or time.monotonic() > deadline:
            log.seek(0)
            raise SystemExit(f"the server did not start:\n{log.read().decode(errors='replace')[-3000:]}")
        try:
            if httpx.get(f"{url}/ready", timeout=2).status_code == 200:
                return url
        except httpx.HTTPError:
            pass
        time.sleep(0.2)


def service_env(data_dir: Path, database_url: str, **extra: str) -> dict[str, str]:
    """The service's settings; anything else (LECTERN_EMBEDDING_THREADS, say) comes from the environment."""
    return {
        "LECTERN_DATA_DIR": str(data_dir),
        "LECTERN_COLLECTION": COLLECTION,
        "LECTERN_DATABASE_URL": database_url,
        "LECTERN_RATE_LIMIT": "",
        "LECTERN_API_KEYS": "[]",
        "LECTERN_LOG_LEVEL": LOG_LEVEL,
        **extra,
    }


# --- measurements -------------------------------------------------------------------------------


async def chat_run(url: str, qs: list[str], clients: int, requests: int) -> dict[str, Any]:
    latencies: list[float] = []
    failures: list[str] = []
    counter = iter(range(requests))

    async def client(http: httpx.AsyncClient, number: int) -> None:
        session: str | None = None
        turns = 0
        for n in counter:
            body: dict[str, Any] = {"message": qs[(n * 7 + number) % len(qs)]}
            if session and turns < TURNS_PER_SESSION:
                body["session_id"] = session
            else:
                session, turns = None, 0
            started = time.perf_counter()
            response = await http.post("/chat/run", json=body)
            latencies.append(time.perf_counter() - started)
            if response.status_code != 200:
                failures.append(f"{response.status_code} {response.text[:200]}")
                continue
            session = response.json()["session_id"]
            turns += 1

    limits = httpx.Limits(max_connections=clients, max_keepalive_connections=clients)
    async with httpx.AsyncClient(base_url=url, limits=limits, timeout=120) as http:
        started = time.perf_counter()
        await asyncio.gather(*(client(http, i) for i in range(clients)))
        seconds = time.perf_counter() - started
    return {
        "clients": clients,
        "requests": len(latencies),
        "failed": len(failures),
        "failures": failures[:5],
        "seconds": round(seconds, 2),
        "answers_per_s": round((len(latencies) - len(failures)) / seconds, 1),
        **ms(latencies),
    }


async def first_token(url: str, qs: list[str], count: int) -> dict[str, Any]:
    waits: list[float] = []
    async with httpx.AsyncClient(base_url=url, timeout=60) as http:
        for n in range(count):
            started = time.perf_counter()
            async with http.stream("POST", "/chat/stream", json={"message": qs[n % len(qs)]}) as response:
                async for line in response.aiter_lines():
                    if line.startswith("event: token"):
                        waits.append(time.perf_counter() - started)
                        break
                else:
                    raise SystemExit("a /chat/stream answer had no token")
    return {"requests": count, **ms(waits)}


async def cancel_latency(url: str, provider: Any, qs: list[str], trials: int) -> dict[str, Any]:
    to_final: list[float] = []
    to_provider: list[float] = []
    finished_first = 0
    async with httpx.AsyncClient(base_url=url, timeout=60) as http:
        session = (await http.post("/api/generation/session", json={})).json()["sessionId"]
        for n in range(trials):
            seen = len(provider.disconnects)
            body = {"sessionId": session, "prompt": qs[n % len(qs)]}
            async with http.stream("POST", "/api/generation/stream", json=body) as response:
                lines = response.aiter_lines()
                first = json.loads(await anext(lines))
                if first["type"] != "token":
                    raise SystemExit(f"expected a token first, got {first}")
                started, started_mono = time.perf_counter(), time.monotonic()
                cancel = await http.post(
                    "/api/generation/cancel", json={"sessionId": session, "promptId": first["promptId"]}
                )
                if cancel.status_code == 409:  # answered (or refused) before the cancel arrived
                    finished_first += 1
                    continue
                if cancel.status_code != 204:
                    raise SystemExit(f"cancel answered {cancel.status_code}: {cancel.text}")
                last = first
                async for line in lines:
                    last = json.loads(line)
                to_final.append(time.perf_counter() - started)
                if last["type"] != "done" or last["metadata"].get("finishReason") != "cancelled":
                    raise SystemExit(f"the stream did not end cancelled: {last}")
            if await asyncio.to_thread(_until, lambda n=seen: len(provider.disconnects) > n, 5.0):
                to_provider.append(provider.disconnects[-1].at - started_mono)
    return {
        "trials": trials,
        "to_final_delta": ms(to_final),
        "to_provider_abort": ms(to_provider),
        "provider_aborts_seen": len(to_provider),
        "finished_before_cancel": finished_first,
    }


def _until(condition: Any, timeout_s: float) -> bool:
    deadline = time.monotonic() + timeout_s
    while not condition():
        if time.monotonic() > deadline:
            return False
        time.sleep(0.002)
    return True


# --- main ---------------------------------------------------------------------------------------


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("folder", type=Path)
    parser.add_argument("--workers", type=int, default=1)
    parser.add_argument("--clients", default="1,8,32")
    parser.add_argument(
        "--requests", type=int, default=0, help="Per client count (default 40 x clients, >= 200)."
    )
    parser.add_argument(
        "--database-url", default="", help="Conversation store (default: a fresh SQLite file)."
    )
    parser.add_argument("--ttft", type=int, default=50, help="Sequential /chat/stream requests.")
    parser.add_argument("--cancels", type=int, default=20)
    parser.add_argument("--skip-cancel", action="store_true")
    args = parser.parse_args()

    folder = args.folder.resolve()
    data_dir = RESULTS / "http" / folder.name
    print(f"ingesting {folder} into {data_dir} ...", flush=True)
    ingested = ingest(folder, data_dir)
    qs = questions(folder)
    result: dict[str, Any] = {
        "corpus": str(folder),
        "ingest": ingested,
        "questions": len(qs),
        "workers": args.workers,
        "machine": {"cpus": os.cpu_count(), "load_avg": os.getloadavg(), "python": platform.python_version()},
        "log_level": LOG_LEVEL,
        "database": "postgresql" if args.database_url.startswith("postgresql") else "sqlite",
    }
    with tempfile.TemporaryDirectory() as tmp:
        database = args.database_url or f"sqlite+aiosqlite:///{Path(tmp) / 'conversations.sqlite3'}"
        env = service_env(data_dir, database)
        with server(env, args.workers) as url:
            asyncio.run(chat_run(url, qs, 4, 40))  # warm up every worker
            runs = []
            for clients in (int(c) for c in args.clients.split(",")):
                requests = args.requests or max(200, 40 * clients)
                print(f"/chat/run with {clients} clients, {requests} requests ...", flush=True)
                runs.append(asyncio.run(chat_run(url, qs, clients, requests)))
            result["chat_run"] = runs
            print("time to first SSE token ...", flush=True)
            result["sse_first_token"] = asyncio.run(first_token(url, qs, args.ttft))
        if not args.skip_cancel:
            sys.path.insert(0, str(ROOT))
            from tests.fakes.openai_chat_server import FakeChatServer, Reply

            answer = " ".join(f"word{i}" for i in range(400))
            script = [lambda body: Reply(text=answer, chunk_delay_s=0.05)] * (args.cancels + 5)
            with FakeChatServer(script) as provider:
                llm = {
                    "LECTERN_LLM_PROVIDER": "openai",
                    "LECTERN_LLM_BASE_URL": provider.base_url,
                    "LECTERN_LLM_API_KEY": "bench",
                    "LECTERN_LLM_MODEL": "fake-model",
                }
                env = service_env(data_dir, f"sqlite+aiosqlite:///{Path(tmp) / 'cancel.sqlite3'}", **llm)
                with server(env, args.workers) as url:
                    print(f"cancel latency over {args.cancels} trials ...", flush=True)
                    in_scope = questions(folder, in_scope=True)
                    result["cancel"] = asyncio.run(cancel_latency(url, provider, in_scope, args.cancels))

    report(result)
    RESULTS.mkdir(parents=True, exist_ok=True)
    out = RESULTS / "http_load.json"
    out.write_text(json.dumps(result, indent=2), encoding="utf-8")
    print(f"\nwrote {out.relative_to(ROOT)}")


def report(result: dict[str, Any]) -> None:
    print(f"\n{result['corpus']}: {result['ingest']['chunks']} chunks, {result['workers']} worker(s)")
    print(f"{'/chat/run':<22}{'answers/s':>11}{'p50 ms':>9}{'p90 ms':>9}{'p99 ms':>9}{'failed':>8}")
    for run in result["chat_run"]:
        label = f"{run['clients']} client(s)"
        print(
            f"{label:<22}{run['answers_per_s']:>11}{run['p50_ms']:>9}{run['p90_ms']:>9}"
            f"{run['p99_ms']:>9}{run['failed']:>8}"
        )
    t = result["sse_first_token"]
    print(f"{'SSE first token':<22}{'':>11}{t['p50_ms']:>9}{t['p90_ms']:>9}{t['p99_ms']:>9}")
    if "cancel" in result:
        c = result["cancel"]
        print(f"{'cancel → final delta':<22}{'':>11}{c['to_final_delta']['p50_ms']:>9}"
              f"{c['to_final_delta']['p90_ms']:>9}{c['to_final_delta']['p99_ms']:>9}")  # fmt: skip
        print(f"{'cancel → provider abort':<22}{'':>11}{c['to_provider_abort']['p50_ms']:>9}"
              f"{c['to_provider_abort']['p90_ms']:>9}{c['to_provider_abort']['p99_ms']:>9}")  # fmt: skip


if __name__ == "__main__":
    main()
