"""Load on the HTTP service: ``/chat/run`` latency and throughput, time to the first SSE token, and
cancel latency, against real server processes on loopback.

    uv run python bench/http_load.py /work/shared/data/textbooks/textbook-a [--workers 2] [--clients 1,8,32]
        [--mix distinct,repeated] [--runs 2] [--port 8123]

1. Ingests FOLDER into ``bench/results/http/<name>`` (incremental: a re-run re-embeds nothing).
2. Starts the service (uvicorn, the ``app_factory`` that ``lectern serve --workers`` runs) with the
   offline extractive writer, a fresh SQLite conversation database and no rate limit, and measures
   ``/chat/run`` at each client count (each client keeps one conversation, a new one every 10 turns),
   ``--runs`` times, keeping the run with the median throughput; then the time to the first ``token``
   event of ``/chat/stream``. Each question mix gets its own server (an empty query cache):

   * ``distinct``: the curated questions, then questions made from the corpus's section headings
     (~2,800 on textbook-a), in a fixed order, cycled: none comes back before the whole list has been
     asked. The query-embedding cache is off (``LECTERN_QUERY_CACHE_SIZE=0``), so every question is
     embedded: the headline figure.
   * ``repeated``: half the requests repeat an earlier question, popular ones more often (Zipf over the
     order of first asking), the other half are new; the cache on at its default size. ``repeats``
     is the share of requests whose text was asked before: the cache's hit rate with one worker (with
     several, each has its own cache and the rate is lower).

   Every row has the CPU per answer of the server processes and of this load generator (which runs on
   the same machine), and the 1-minute load average when the row finished; with several workers, how
   they shared the connections at the end (``connections_split``), the connections reopened because
   the server said ``Connection: close`` (``reconnects``), and each worker's latencies (``by_worker``;
   pid 0 holds the answers on connections closed before the end, whose worker is not known).
3. Starts a second service whose writer is an OpenAI-compatible model served by a scripted slow fake
   (tests/fakes/openai_chat_server.py), and measures cancel: from ``POST /api/generation/cancel`` to the
   stream's final delta, and to the moment the fake provider sees its request aborted.

Prints a table and writes ``bench/results/http_load-w<workers>-<time>.json``.
"""

from __future__ import annotations

import argparse
import asyncio
import itertools
import json
import os
import platform
import random
import re
import resource
import socket
import statistics
import subprocess
import sys
import tempfile
import time
from collections import Counter
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import httpx

ROOT = Path(__file__).resolve().parent.parent
RESULTS = ROOT / "bench" / "results"
COLLECTION = "bench"
PASSAGE = re.compile(r'<passage number="(\d+)"[^\n]*>\n(.*?)\n</passage>', re.S)
TURNS_PER_SESSION = 10
MIXES = ("distinct", "repeated")
# Questions made from a section heading; four per heading give ~2,800 on textbook-a.
TEMPLATES = ("What is {}?", "Explain {}.", "How does {} work?", "Tell me about {}.")
REPEAT_SHARE = 0.5  # repeated mix: the share of requests that ask an earlier question again
_HEADING = re.compile(r"^#{1,4}\s+(.+)$", re.MULTILINE)
_FENCE = re.compile(r"^(```|~~~).*?^\1", re.MULTILINE | re.DOTALL)
_NUMBERING = re.compile(r"^(?:[\d.]+\s+|(?:Chapter|Exercise|Module|Step) [\d.]+:\s*)")
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
    from lectern import word_frequency
    from lectern.ingest.pipeline import IngestOptions, IngestPipeline
    from lectern.runtime import Runtime
    from lectern.sentences import SentenceVectors
    from lectern.settings import load_settings

    settings = load_settings(data_dir=data_dir, collection=COLLECTION)
    runtime = Runtime(settings)
    started = time.perf_counter()
    pipeline = IngestPipeline(
        collection=runtime.collection,
        embedder=runtime.embedder,
        index=runtime.index,
        manifest=runtime.manifest,
        # As `lectern ingest` does: sentence vectors stored now, so answers never embed them.
        sentences=SentenceVectors.for_data_dir(runtime.embedder, settings.data_dir),
    )
    report = pipeline.ingest_paths([folder], IngestOptions(flush_chunks=settings.ingest_flush_chunks))
    runtime.index.optimize()
    word_frequency.prepare(settings.model_cache_dir)  # as `lectern ingest` does
    return {"seconds": round(time.perf_counter() - started, 2), "chunks": report.chunks_total}


def questions(folder: Path, *, in_scope: bool = False) -> list[str]:
    """The curated questions of ``bench/questions/<name>.jsonl``, else questions from the headings."""
    listed = ROOT / "bench" / "questions" / f"{folder.name}.jsonl"
    if listed.exists():
        rows = [json.loads(line) for line in listed.read_text(encoding="utf-8").splitlines() if line.strip()]
        wanted = [r for r in rows if not in_scope or r.get("kind") == "in_scope"]
        found = [r["question"] for r in wanted if r.get("question")]
        if found:
            return found
    return heading_questions(folder)[:200] or ["What is this documentation about?"]


def heading_questions(folder: Path) -> list[str]:
    """Questions about the corpus's section headings (code blocks' comments are not headings), in a
    fixed shuffled order so consecutive requests ask about different pages."""
    headings: dict[str, None] = {}
    for path in sorted(folder.rglob("*.md*")):
        text = _FENCE.sub("", path.read_text(encoding="utf-8", errors="ignore"))
        for heading in _HEADING.findall(text):
            topic = _NUMBERING.sub("", heading.strip()).strip(" #*`")
            if len(topic) > 2:
                headings[topic] = None
    found = [template.format(topic) for template in TEMPLATES for topic in headings]
    random.Random(0).shuffle(found)
    return found


def distinct_questions(folder: Path) -> list[str]:
    """Every question once: the curated ones first, then the heading ones."""
    return list(dict.fromkeys([*questions(folder), *heading_questions(folder)]))


def question_stream(folder: Path, mix: str, seed: int = 0) -> Iterator[tuple[str, bool]]:
    """(question, asked before) for each request of a run, for the whole life of one server."""
    fresh = distinct_questions(folder)
    if mix == "distinct":
        for n, question in enumerate(itertools.cycle(fresh)):
            yield question, n >= len(fresh)
        return
    rng = random.Random(seed)
    asked: list[str] = []
    popularity: list[float] = []  # cumulative Zipf weights: the i-th question first asked weighs 1/i
    for n, question in enumerate(itertools.cycle(fresh)):
        while asked and rng.random() < REPEAT_SHARE:
            yield rng.choices(asked, cum_weights=popularity)[0], True
        asked.append(question)
        popularity.append(popularity[-1] + 1 / len(asked) if popularity else 1.0)
        yield question, n >= len(fresh)


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port: int = sock.getsockname()[1]
        return port


@contextmanager
def server(env: dict[str, str], workers: int, port: int = 0) -> Iterator[tuple[str, int]]:
    """The service in its own process (uvicorn --factory, as `lectern serve --workers` runs it), on
    `port`, or on one the OS picks when 0. The servers run one after the other, so one port serves."""
    port = port or free_port()
    command = [
        sys.executable, "-m", "uvicorn", "lectern.api.app:app_factory", "--factory",
        "--host", "127.0.0.1", "--port", str(port), "--workers", str(workers),
        "--no-access-log", "--log-level", "warning", "--timeout-worker-healthcheck", "60",
    ]  # fmt: skip
    with tempfile.TemporaryFile() as log:
        process = subprocess.Popen(command, env={**os.environ, **env}, cwd=ROOT, stdout=log, stderr=log)
        try:
            yield _wait_ready(f"http://127.0.0.1:{port}", process, log), process.pid
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


class RawConnection:
    """One keep-alive HTTP/1.1 connection that POSTs JSON: the load generator shares this machine's
    cores with the server, and httpx spent ~2.5 ms of CPU per request at 32 clients, this ~0.3 ms."""

    def __init__(self, url: str) -> None:
        parts = httpx.URL(url)
        self.host, self.port = parts.host, parts.port or 80
        self._streams: tuple[asyncio.StreamReader, asyncio.StreamWriter] | None = None
        self.local_port = 0  # this end's port: which server process holds the connection
        self.reconnects = 0  # connections opened after the first (the server said Connection: close)

    async def post_json(self, path: str, body: dict[str, Any]) -> tuple[int, bytes]:
        if self._streams is None:
            self.reconnects += self.local_port != 0
            self._streams = await asyncio.open_connection(self.host, self.port)
            self.local_port = self._streams[1].get_extra_info("sockname")[1]
        reader, writer = self._streams
        payload = json.dumps(body).encode()
        writer.write(
            f"POST {path} HTTP/1.1\r\nHost: {self.host}:{self.port}\r\nContent-Type: application/json\r\n"
            f"Content-Length: {len(payload)}\r\n\r\n".encode()
            + payload
        )
        status = int((await reader.readline()).split()[1])
        headers = {}
        while (line := await reader.readline()) not in (b"\r\n", b""):
            name, _, value = line.decode("latin-1").partition(":")
            headers[name.strip().lower()] = value.strip()
        if headers.get("transfer-encoding") == "chunked":
            chunks = []
            while size := int((await reader.readline()).strip(), 16):
                chunks.append(await reader.readexactly(size + 2))
            await reader.readline()
            content = b"".join(c[:-2] for c in chunks)
        else:
            content = await reader.readexactly(int(headers.get("content-length", "0")))
        if headers.get("connection", "").lower() == "close":  # as any HTTP/1.1 client: connect anew
            await self.close()
        return status, content

    async def close(self) -> None:
        if self._streams is not None:
            writer, self._streams = self._streams[1], None
            writer.close()
            await writer.wait_closed()


def process_tree_cpu_s(pid: int) -> float:
    """User + system CPU seconds of ``pid`` and its children (uvicorn's workers), from /proc."""
    tick = os.sysconf("SC_CLK_TCK")
    total = 0.0
    for stat in Path("/proc").glob("[0-9]*/stat"):
        try:
            fields = stat.read_text().rsplit(")", 1)[1].split()
        except OSError:
            continue  # the process ended while we looked
        if int(stat.parent.name) == pid or int(fields[1]) == pid:
            total += (int(fields[11]) + int(fields[12])) / tick
    return total


def connection_owners(pid: int, port: int) -> dict[int, int]:
    """Client port -> pid of the server process (``pid`` or one of its children) that holds the
    established loopback connection to ``port``, from /proc: which worker each client talks to."""
    inodes: dict[str, int] = {}
    for stat in Path("/proc").glob("[0-9]*/stat"):
        try:
            child = int(stat.read_text().rsplit(")", 1)[1].split()[1]) == pid
            if int(stat.parent.name) != pid and not child:
                continue
            for fd in (stat.parent / "fd").iterdir():
                target = os.readlink(fd)
                if target.startswith("socket:["):
                    inodes[target[8:-1]] = int(stat.parent.name)
        except OSError:
            continue
    owners = {}
    for table in ("/proc/net/tcp", "/proc/net/tcp6"):
        try:
            lines = Path(table).read_text().splitlines()[1:]
        except OSError:
            continue
        for line in lines:
            fields = line.split()
            local, remote, state, inode = fields[1], fields[2], fields[3], fields[9]
            if state == "01" and int(local.rsplit(":", 1)[1], 16) == port and inode in inodes:
                owners[int(remote.rsplit(":", 1)[1], 16)] = inodes[inode]
    return owners


def own_cpu_s() -> float:
    usage = resource.getrusage(resource.RUSAGE_SELF)
    return usage.ru_utime + usage.ru_stime


# --- measurements -------------------------------------------------------------------------------


async def chat_run(
    url: str, stream: Iterator[tuple[str, bool]], clients: int, requests: int, server_pid: int
) -> dict[str, Any]:
    latencies: list[float] = []
    failures: list[str] = []
    repeats = 0
    counter = iter(range(requests))
    port = httpx.URL(url).port or 80
    by_port: dict[int, list[float]] = {}  # latencies by the client's port (its connection)

    async def client(http: RawConnection) -> None:
        nonlocal repeats
        session: str | None = None
        turns = 0
        for _ in counter:
            question, asked_before = next(stream)
            repeats += asked_before
            body: dict[str, Any] = {"message": question}
            if session and turns < TURNS_PER_SESSION:
                body["session_id"] = session
            else:
                session, turns = None, 0
            started = time.perf_counter()
            status, content = await asyncio.wait_for(http.post_json("/chat/run", body), 120)
            latencies.append(time.perf_counter() - started)
            by_port.setdefault(http.local_port, []).append(latencies[-1])
            if status != 200:
                failures.append(f"{status} {content[:200].decode(errors='replace')}")
                continue
            session = json.loads(content)["session_id"]
            turns += 1

    connections = [RawConnection(url) for _ in range(clients)]
    server_cpu, client_cpu = process_tree_cpu_s(server_pid), own_cpu_s()
    started = time.perf_counter()
    try:
        await asyncio.gather(*(client(c) for c in connections))
    finally:
        seconds = time.perf_counter() - started
        server_cpu, client_cpu = process_tree_cpu_s(server_pid) - server_cpu, own_cpu_s() - client_cpu
        # after the clock stops (reading /proc takes a while): a closed connection's worker is unknown (0)
        owner_of = connection_owners(server_pid, port)
        by_worker: dict[int, list[float]] = {}
        for client_port, values in by_port.items():
            by_worker.setdefault(owner_of.get(client_port, 0), []).extend(values)
        await asyncio.gather(*(c.close() for c in connections))
    return {
        "clients": clients,
        "requests": len(latencies),
        "failed": len(failures),
        "failures": failures[:5],
        "repeats": round(repeats / max(len(latencies), 1), 3),
        "seconds": round(seconds, 2),
        "answers_per_s": round((len(latencies) - len(failures)) / seconds, 1),
        **ms(latencies),
        "server_cpu_ms_per_answer": round(server_cpu / max(len(latencies), 1) * 1000, 2),
        "client_cpu_ms_per_answer": round(client_cpu / max(len(latencies), 1) * 1000, 2),
        "load_avg_1m": round(os.getloadavg()[0], 2),
        # how the server's processes shared the connections at the end, and each one's answers
        "connections_split": sorted(Counter(owner_of.get(c.local_port, 0) for c in connections).values()),
        "reconnects": sum(c.reconnects for c in connections),
        "by_worker": sorted(
            ({"answers": len(v), **ms(v)} for v in by_worker.values()), key=lambda r: -r["answers"]
        ),
    }


def median_run(rows: list[dict[str, Any]]) -> dict[str, Any]:
    """The run with the median throughput (the lower middle one of an even count), with every run's."""
    ordered = sorted(rows, key=lambda r: r["answers_per_s"])
    chosen = ordered[(len(ordered) - 1) // 2]
    return {**chosen, "answers_per_s_runs": [r["answers_per_s"] for r in rows]}


async def first_token(url: str, qs: list[str], count: int) -> dict[str, Any]:
    waits: list[float] = []
    async with httpx.AsyncClient(base_url=url, timeout=60) as http:
        for n in range(count):
            started = time.perf_counter()
            async with http.stream("POST", "/chat/stream", json={"message": qs[n % len(qs)]}) as response:
                async for line in response.aiter_lines():
                    if line.startswith("data:") and '"type": "token"' in line:
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


def quoting_reply(body: dict[str, Any]) -> Any:
    """The fake model's answer: the prompt's passages quoted sentence by sentence, each citing its
    passage, until ~400 words, streamed a word every 50 ms. Answers are checked against their
    passages before any word is shown, so a reply that no passage supports (made-up words) is held
    to its end and refused: nothing would be left to cancel."""
    from tests.fakes.openai_chat_server import Reply

    prompt = str(body["messages"][-1]["content"])
    sentences = []
    for number, passage in PASSAGE.findall(prompt):
        lines = [ln for ln in passage.splitlines() if ln.strip() and not ln.startswith(("#", "```"))]
        for sentence in re.split(r"(?<=\.)\s+", " ".join(lines)):
            if len(sentence.split()) > 3:
                sentences.append(f"{sentence.rstrip('.')} [{number}].")
    if not sentences:
        return Reply(text="I don't have information about that in the documents.")
    words: list[str] = []
    for sentence in itertools.cycle(sentences):
        words += sentence.split()
        if len(words) >= 400:
            break
    return Reply(text=" ".join(words), chunk_delay_s=0.05)


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
    parser.add_argument(
        "--port", type=int, default=0, help="loopback port for the servers; 0 (default) lets the OS pick one"
    )
    parser.add_argument("--clients", default="1,8,32")
    parser.add_argument(
        "--requests", type=int, default=0, help="Per client count (default 40 x clients, >= 200)."
    )
    parser.add_argument(
        "--database-url", default="", help="Conversation store (default: a fresh SQLite file)."
    )
    parser.add_argument(
        "--mix", default=",".join(MIXES), help="Question mixes, each on its own server: distinct, repeated."
    )
    parser.add_argument("--runs", type=int, default=1, help="Runs per client count; the median is kept.")
    parser.add_argument("--ttft", type=int, default=50, help="Sequential /chat/stream requests.")
    parser.add_argument("--cancels", type=int, default=20)
    parser.add_argument("--skip-cancel", action="store_true")
    args = parser.parse_args()
    mixes = [m for m in args.mix.split(",") if m]
    if not mixes or set(mixes) - set(MIXES):
        parser.error(f"--mix takes {' and/or '.join(MIXES)}")

    folder = args.folder.resolve()
    data_dir = RESULTS / "http" / folder.name
    print(f"ingesting {folder} into {data_dir} ...", flush=True)
    ingested = ingest(folder, data_dir)
    qs = questions(folder)
    result: dict[str, Any] = {
        "corpus": str(folder),
        "ingest": ingested,
        "questions": {"curated": len(qs), "distinct": len(distinct_questions(folder))},
        "workers": args.workers,
        "runs": args.runs,
        "machine": {"cpus": os.cpu_count(), "load_avg": os.getloadavg(), "python": platform.python_version()},
        "log_level": LOG_LEVEL,
        "database": "postgresql" if args.database_url.startswith("postgresql") else "sqlite",
        "chat_run": {},
    }
    with tempfile.TemporaryDirectory() as tmp:
        for n, mix in enumerate(mixes):
            database = args.database_url or f"sqlite+aiosqlite:///{Path(tmp) / f'{mix}.sqlite3'}"
            # distinct: every question embedded, whatever the order of the list
            cache = {"LECTERN_QUERY_CACHE_SIZE": "0"} if mix == "distinct" else {}
            with server(service_env(data_dir, database, **cache), args.workers, args.port) as (url, pid):
                stream = question_stream(folder, mix)
                asyncio.run(chat_run(url, stream, 4, 40, pid))  # warm up every worker
                runs = []
                for clients in (int(c) for c in args.clients.split(",")):
                    requests = args.requests or max(200, 40 * clients)
                    print(f"{mix}: /chat/run with {clients} clients, {requests} requests ...", flush=True)
                    rows = [
                        asyncio.run(chat_run(url, stream, clients, requests, pid)) for _ in range(args.runs)
                    ]
                    runs.append(median_run(rows))
                result["chat_run"][mix] = runs
                if n == 0:
                    print("time to first SSE token ...", flush=True)
                    result["sse_first_token"] = {"mix": mix, **asyncio.run(first_token(url, qs, args.ttft))}
        if not args.skip_cancel:
            sys.path.insert(0, str(ROOT))
            from tests.fakes.openai_chat_server import FakeChatServer

            script = [quoting_reply] * (args.cancels + 5)
            with FakeChatServer(script) as provider:
                llm = {
                    "LECTERN_LLM_PROVIDER": "openai",
                    "LECTERN_LLM_BASE_URL": provider.base_url,
                    "LECTERN_LLM_API_KEY": "bench",
                    "LECTERN_LLM_MODEL": "fake-model",
                    "LECTERN_LLM_WRITER_MODE": "context",  # the passages arrive in the prompt
                }
                env = service_env(data_dir, f"sqlite+aiosqlite:///{Path(tmp) / 'cancel.sqlite3'}", **llm)
                with server(env, args.workers, args.port) as (url, _):
                    print(f"cancel latency over {args.cancels} trials ...", flush=True)
                    in_scope = questions(folder, in_scope=True)
                    result["cancel"] = asyncio.run(cancel_latency(url, provider, in_scope, args.cancels))

    report(result)
    RESULTS.mkdir(parents=True, exist_ok=True)
    out = RESULTS / f"http_load-w{args.workers}-{time.strftime('%Y%m%d-%H%M%S')}.json"
    out.write_text(json.dumps(result, indent=2), encoding="utf-8")
    print(f"\nwrote {out.relative_to(ROOT)}")


def report(result: dict[str, Any]) -> None:
    print(f"\n{result['corpus']}: {result['ingest']['chunks']} chunks, {result['workers']} worker(s)")
    print(f"{'':<34}{'':>10}{'':>7}{'':>8}{'':>8}{'CPU ms/answer':>16}")
    print(
        f"{'/chat/run':<34}{'answers/s':>10}{'p50 ms':>7}{'p99 ms':>8}{'failed':>8}{'server':>8}{'client':>8}"
        f"{'repeats':>9}{'load':>6}"
    )
    for mix, runs in result["chat_run"].items():
        for run in runs:
            label = f"{mix}, {run['clients']} client(s)"
            throughput = "/".join(str(x) for x in run["answers_per_s_runs"])
            print(f"{label:<34}{run['answers_per_s']:>10}{run['p50_ms']:>7.0f}{run['p99_ms']:>8.0f}"
                  f"{run['failed']:>8}{run['server_cpu_ms_per_answer']:>8}{run['client_cpu_ms_per_answer']:>8}"
                  f"{run['repeats']:>9.0%}{run['load_avg_1m']:>6}  runs: {throughput}")  # fmt: skip
    t = result["sse_first_token"]
    print(f"\n{'':<34}{'p50 ms':>10}{'p90 ms':>7}{'p99 ms':>8}")
    print(f"{'SSE first token':<34}{t['p50_ms']:>10}{t['p90_ms']:>7}{t['p99_ms']:>8}")
    if "cancel" in result:
        c = result["cancel"]
        print(f"{'cancel → final delta':<34}{c['to_final_delta']['p50_ms']:>10}"
              f"{c['to_final_delta']['p90_ms']:>7}{c['to_final_delta']['p99_ms']:>8}")  # fmt: skip
        print(f"{'cancel → provider abort':<34}{c['to_provider_abort']['p50_ms']:>10}"
              f"{c['to_provider_abort']['p90_ms']:>7}{c['to_provider_abort']['p99_ms']:>8}")  # fmt: skip


if __name__ == "__main__":
    main()
