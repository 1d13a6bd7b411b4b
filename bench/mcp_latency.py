"""Latency of MCP tool calls, warm, through the official MCP client: stdio (`lectern mcp` as a subprocess)
and streamable HTTP (`lectern serve`, MCP at /mcp behind an API key), both real processes on this machine.

    uv run python bench/mcp_latency.py FOLDER [--calls 20] [--warmup 3]

1. Ingests FOLDER with `lectern ingest` into ``bench/results/mcp/<name>`` (incremental: a re-run re-embeds
   nothing) with the default settings: local MiniLM embedder, LanceDB, extractive writer.
2. For each transport: connects, makes ``--warmup`` untimed calls, then times ``--calls`` ``ask`` calls
   (each a new conversation) and as many ``search_docs`` calls, client side, wall clock per call.

Prints a table and writes ``bench/results/mcp_latency.json``. Questions come from
``bench/questions/<name>.jsonl`` (in-scope ones) when it exists, else from the corpus's headings.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import platform
import re
import shutil
import socket
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import AsyncIterator, Awaitable, Callable, Iterator
from contextlib import asynccontextmanager, contextmanager
from pathlib import Path
from typing import Any

import httpx2
from mcp import Client, StdioServerParameters
from mcp.client.stdio import stdio_client
from mcp.client.streamable_http import streamable_http_client

ROOT = Path(__file__).resolve().parent.parent
RESULTS = ROOT / "bench" / "results"
API_KEY = "bench-mcp-key"


def lectern() -> list[str]:
    script = Path(sys.executable).with_name("lectern")
    return [str(script)] if script.exists() else [sys.executable, "-m", "lectern.cli"]


def base_env(data_dir: Path) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("LECTERN_")}
    env["LECTERN_DATA_DIR"] = str(data_dir)
    return env


def ingest(folder: Path, data_dir: Path) -> float:
    started = time.perf_counter()
    subprocess.run([*lectern(), "ingest", str(folder)], env=base_env(data_dir), cwd=ROOT, check=True,
                   stdout=subprocess.DEVNULL)  # fmt: skip
    return time.perf_counter() - started


def questions(folder: Path) -> list[str]:
    listed = ROOT / "bench" / "questions" / f"{folder.name}.jsonl"
    if listed.exists():
        rows = [json.loads(line) for line in listed.read_text(encoding="utf-8").splitlines() if line.strip()]
        found = [r["question"] for r in rows if r.get("kind", "in_scope") == "in_scope" and r.get("question")]
        if found:
            return found
    heading = re.compile(r"^#{1,3}\s+(.+)$", re.MULTILINE)
    found = []
    for path in sorted(folder.rglob("*.md*")):
        found += [
            f"What is {h.strip()}?"
            for h in heading.findall(path.read_text(encoding="utf-8", errors="ignore"))
        ]
    return found or ["What is this documentation about?"]


def percentile(values: list[float], q: float) -> float:
    ordered = sorted(values)
    k = (len(ordered) - 1) * q / 100
    lo, hi = int(k), min(int(k) + 1, len(ordered) - 1)
    return ordered[lo] + (ordered[hi] - ordered[lo]) * (k - lo)


def summary(seconds: list[float]) -> dict[str, float]:
    return {
        "calls": len(seconds),
        "p50_ms": round(percentile(seconds, 50) * 1000, 1),
        "p90_ms": round(percentile(seconds, 90) * 1000, 1),
        "max_ms": round(max(seconds) * 1000, 1),
        "mean_ms": round(statistics.fmean(seconds) * 1000, 1),
    }


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port: int = sock.getsockname()[1]
        return port


@contextmanager
def http_server(data_dir: Path) -> Iterator[str]:
    """`lectern serve` in its own process, with one API key."""
    port = free_port()
    env = {**base_env(data_dir), "LECTERN_API_KEYS": json.dumps([API_KEY]), "LECTERN_RATE_LIMIT": ""}
    with tempfile.TemporaryFile() as log:
        process = subprocess.Popen([*lectern(), "serve", "--port", str(port), "--log-level", "warning"],
                                   env=env, cwd=ROOT, stdout=log, stderr=log)  # fmt: skip
        try:
            yield _wait(process, f"http://127.0.0.1:{port}", log)
        finally:
            process.terminate()
            try:
                process.wait(timeout=20)
            except subprocess.TimeoutExpired:
                process.kill()


def _wait(process: subprocess.Popen[bytes], url: str, log: Any) -> str:
    """The URL once /health answers; the server's output if it died or took too long."""
    deadline = time.monotonic() + 120
    while True:
        if process.poll() is not None or time.monotonic() > deadline:
            log.seek(0)
            raise SystemExit(f"the server did not start:\n{log.read().decode(errors='replace')[-3000:]}")
        try:
            if httpx2.get(f"{url}/health", timeout=2).status_code == 200:
                return url
        except httpx2.HTTPError:
            pass
        time.sleep(0.2)


@asynccontextmanager
async def stdio(data_dir: Path) -> AsyncIterator[Client]:
    command = lectern()
    params = StdioServerParameters(
        command=command[0], args=[*command[1:], "mcp"], env=base_env(data_dir), cwd=ROOT
    )
    errlog = open(os.devnull, "w")  # noqa: ASYNC230, SIM115 - the server's stderr, for the client's lifetime
    try:
        async with Client(stdio_client(params, errlog=errlog), read_timeout_seconds=120) as client:
            yield client
    finally:
        errlog.close()


@asynccontextmanager
async def http(url: str) -> AsyncIterator[Client]:
    headers = {"Authorization": f"Bearer {API_KEY}"}
    async with (
        httpx2.AsyncClient(headers=headers, timeout=120) as h,
        Client(streamable_http_client(f"{url}/mcp", http_client=h)) as client,
    ):
        yield client


async def timed(call: Callable[[], Awaitable[Any]]) -> float:
    started = time.perf_counter()
    result = await call()
    elapsed = time.perf_counter() - started
    if getattr(result, "is_error", False):
        raise SystemExit(f"tool error: {result.content[0].text}")
    return elapsed


async def measure(client: Client, asks: list[str], calls: int, warmup: int) -> dict[str, Any]:
    for i in range(warmup):
        await client.call_tool("ask", {"question": asks[i % len(asks)]})
        await client.call_tool("search_docs", {"query": asks[i % len(asks)]})
    ask_s, search_s, answered = [], [], 0
    for i in range(calls):
        question = asks[(warmup + i) % len(asks)]

        async def ask(q: str = question) -> Any:
            nonlocal answered
            result = await client.call_tool("ask", {"question": q})
            answered += bool((result.structured_content or {}).get("should_answer"))
            return result

        ask_s.append(await timed(ask))
        search_s.append(await timed(lambda q=question: client.call_tool("search_docs", {"query": q})))
    return {"ask": summary(ask_s), "search_docs": summary(search_s), "answered": f"{answered}/{calls}"}


async def run(folder: Path, data_dir: Path, calls: int, warmup: int) -> dict[str, Any]:
    asks = questions(folder)
    results: dict[str, Any] = {}
    started = time.perf_counter()
    async with stdio(data_dir) as client:
        results["stdio_connect_s"] = round(time.perf_counter() - started, 2)
        results["stdio"] = await measure(client, asks, calls, warmup)
    with http_server(data_dir) as url:
        async with http(url) as client:
            results["http"] = await measure(client, asks, calls, warmup)
    return results


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("folder", type=Path)
    parser.add_argument("--calls", type=int, default=20)
    parser.add_argument("--warmup", type=int, default=3)
    parser.add_argument("--fresh", action="store_true", help="Re-ingest from scratch.")
    args = parser.parse_args()
    folder: Path = args.folder.resolve()
    data_dir = RESULTS / "mcp" / folder.name
    if args.fresh and data_dir.exists():
        shutil.rmtree(data_dir)
    ingest_s = ingest(folder, data_dir)
    results = asyncio.run(run(folder, data_dir, args.calls, args.warmup))
    payload = {
        "corpus": folder.name,
        "ingest_s": round(ingest_s, 2),
        "machine": {
            "python": platform.python_version(),
            "cpus": os.cpu_count(),
            "platform": platform.platform(),
        },
        "writer": "extractive (default)",
        **results,
    }
    print(f"MCP tool latency, warm, client side ({folder.name}; {args.calls} calls each)")
    print(f"{'transport':<10} {'tool':<12} {'p50 ms':>8} {'p90 ms':>8} {'max ms':>8} {'mean ms':>8}")
    for transport in ("stdio", "http"):
        for tool in ("ask", "search_docs"):
            s = results[transport][tool]
            cells = (s["p50_ms"], s["p90_ms"], s["max_ms"], s["mean_ms"])
            print(f"{transport:<10} {tool:<12} " + " ".join(f"{c:>8}" for c in cells))
        print(f"{transport:<10} answered {results[transport]['answered']}")
    RESULTS.mkdir(parents=True, exist_ok=True)
    out = RESULTS / "mcp_latency.json"
    out.write_text(json.dumps(payload, indent=2), encoding="utf-8")
    print(f"wrote {out.relative_to(ROOT)}")


if __name__ == "__main__":
    main()
