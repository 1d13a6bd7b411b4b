"""The service's own CPU per ``/chat/run`` answer with no server and no sockets: the ASGI app (every
middleware, FastAPI, the conversation store, logging) driven in-process by ``--clients`` concurrent
callers, over an engine that replays recorded answers (bench/http_overhead.py's ReplayEngine). Without
uvicorn, the load generator and loopback TCP, a shared machine's noise falls on far less, so savings of
a few percent of the non-engine cost show; variants run alternately in fresh processes.

    uv run python bench/http_inprocess.py /work/shared/data/textbooks/textbook-a \
        --variant base=/tmp/base/src --variant mine= [--rounds 5] [--requests 2000] [--clients 32]

A variant is ``LABEL=SRC`` (SRC first on PYTHONPATH; empty for this tree). Reports the process's CPU per
answer (all its threads: the event loop, the store's writer, the log writer) and the event loop
thread's alone, per round and as medians. Needs the collection bench/http_load.py ingested.

Instructions instead of CPU time (steady on a shared machine; valgrind serialises the threads, so the
count still moves ~1 % with how many writes each group commit gathers), one variant a run, ~4-6 min:

    PYTHONHASHSEED=0 PYTHONPATH=SRC:bench CALLGRIND=1 <the service's LECTERN_* settings, as measure()
        sets them> valgrind --tool=callgrind --instr-atstart=no --dump-instr=no --callgrind-out-file=OUT \
        .venv/bin/python bench/http_inprocess.py CORPUS --child --clients 32 --requests 320 --questions 40

valgrind's "Collected" over 320 is the instructions an answer outside the engine (the load's own
json.loads of each response, ~0.17 M, included).

Findings (textbook-a, 32 clients, 2 shared cores at load 5-7; this script unless said otherwise):

* Where the non-engine CPU goes (main at 08a7dec, 2000 replayed answers): ~1.1-1.4 ms per answer in
  all, of which the event loop ~0.65-0.8 ms, the store's writer thread ~0.45-0.56 ms (a turn's two
  write transactions, the topic summary every 5th exchange, the log rows: SQLite's own calls about a
  third of it, SQLAlchemy's bind/result processors (datetimes, JSON) about a fifth, the wake-ups
  of the loop a tenth), the log writer thread ~0.06 ms. With the real engine the server spends
  ~10-11 ms per answer (bench/http_ab.py, 1 worker), so everything outside the engine is ~12 %.
* The largest waste found: /chat/run left ``Turns.events`` open at Done, so asyncio closed it through
  its async-generator finaliser hook, on the loop's own thread: ``call_soon_threadsafe``, a self-pipe
  ``send`` (a syscall that releases the GIL; ~1 ms of loop wall time per answer under cProfile, the
  GIL coming back only at another thread's switch interval), a loop wake-up and a task, per answer.
  Closed with ``contextlib.aclosing``: CPU per answer 1121 -> 958 us (event loop 631 -> 533, store
  writer 435 -> 375; medians of 5 alternated rounds), 627 -> 707 answers/s: ~0.16 ms of the
  ~10.5 ms a real answer costs. Real engine, bench/http_ab.py (800 answers a round, load 5-7.5),
  medians of the rounds of three runs: 2 workers, 10 rounds, 109.5 -> 114.7 answers/s, CPU 10.6 ->
  10.2 ms per answer, p99 835 -> 683 ms (the first two runs favoured the change in 5 of 7 pairs,
  the third went the other way in 2 of 3); 1 worker, 6 rounds, 99.6 -> 104.4/s, CPU 10.5 -> 11.0
  ms. Within this machine's noise: single runs swing by 30 %.
* Tried, no gain (not kept): writing the built-in topic summary in the answer's own transaction
  instead of a second write (bench/store_turn.py, 6 alternated pairs x 3000 turns: CPU per turn 0.515
  -> 0.57 ms, higher in 5 of 6; wall times mixed); uvicorn writing a response's headers and body in
  one ``transport.write`` instead of two (patched in through sitecustomize, bench/http_overhead.py,
  3 rounds: CPU 1.40 -> 1.50 ms per answer, throughput 280 -> 201/s, all within the noise).
* Small, kept, below what these benches resolve here: prometheus children looked up once (five
  ``labels()`` per answer, 13.6 -> 7.4 us) and a free session turn taken without arming
  ``asyncio.timeout`` (6.6 -> 0.4 us).

Issue 12, Nov 2026 (base = main 3077887 by PYTHONPATH, textbook-a, 32 clients):

* Callgrind (above) at base: 5.52 M instructions an answer (1770.8 M and 1763.1 M over two runs).
  By C function, inclusive: JSON encoding 13 % (the stored answer's sources and citations, ~5.4 KB,
  the log lines and log rows), sqlite3 execute 10 % (a turn's two group-committed writes, ~9
  statements with the savepoints; RETURNING and the CHECK constraints' IN lists each build an
  ephemeral b-tree a row, ~3 % in SQLite's page zeroing), pydantic-core ~10 %, and 7 % in datetimes:
  ``UTCDateTime``'s ``datetime.replace(tzinfo=...)`` (~9 k instructions a call, its keyword
  arguments) before SQLAlchemy's DATETIME filled a %-template from a dict, ~12 binds and ~8 window
  reads a turn.
* Kept: ``UTCDateTime`` on SQLite binds and reads in one step (the same template from a tuple;
  ``fromisoformat(text + "+00:00")`` for its own text, anything else parsed as before); an answer's
  Sources built once for the stored message and the response; the stored answer's ``NewMessage``
  built without validating again the dicts dumped from just-validated models. 5.52 -> 5.18 M
  instructions an answer (1649.5 M and 1665.7 M); CPU an answer 1034 -> 894 us (event loop 586 ->
  517, store writer 403 -> 335, log writer 48 -> 43; medians of 4 alternated rounds, lower in 4 of
  4, load 2.1-3.1). Every /chat/run answer, the history, the stored messages (sources and citations
  JSON text included), thread counters and log rows identical for 50 questions in 10 sessions.
* With the real engine the server spends ~9-11 ms an answer, so this is ~1.4 % of it: bench/http_load.py
  (1 worker, 3 alternated pairs) moved within its noise (32 clients: base 98-117/s, 8.5-10.9 ms CPU;
  this 111-129/s, 8.6-9.3 ms). The real-engine app driven in-process (no uvicorn) took 9.3 ms an
  answer against 9.8 ms for the uvicorn server in the same minutes: uvicorn and the sockets are
  ~0.5 ms; the rest is the engine (~7.5 ms alone, bench/stage_cpu.py) and its thread hand-offs.
* Tried, dropped: ``ensure_ascii=False`` for the stored JSON (no faster on this text, 67-96 vs 70-110
  us for 5 citations); ``isoformat`` for the bind (its offset formatting, ~12 k instructions a call,
  costs more than the template); ``NewLogEvent.model_construct`` (slower than validating: 4.7 vs 3.4 us).
"""

from __future__ import annotations

import argparse
import asyncio
import itertools
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))
import http_load as h


async def _drive(app: Any, questions: list[str], clients: int, requests: int) -> list[int]:
    counter = iter(range(requests))
    statuses: list[int] = []

    async def call(body: dict[str, Any]) -> tuple[int, bytes]:
        payload = json.dumps(body).encode()
        scope = {
            "type": "http", "asgi": {"version": "3.0"}, "http_version": "1.1", "method": "POST",
            "scheme": "http", "path": "/chat/run", "raw_path": b"/chat/run", "query_string": b"",
            "root_path": "", "client": ("127.0.0.1", 50000), "server": ("127.0.0.1", 8000),
            "headers": [(b"host", b"127.0.0.1:8000"), (b"content-type", b"application/json"),
                        (b"content-length", str(len(payload)).encode())],
        }  # fmt: skip
        sent = False
        status = 0
        chunks: list[bytes] = []

        async def receive() -> dict[str, Any]:
            nonlocal sent
            if not sent:
                sent = True
                return {"type": "http.request", "body": payload, "more_body": False}
            await asyncio.Event().wait()  # never: the route reads its body once
            return {"type": "http.disconnect"}

        async def send(message: dict[str, Any]) -> None:
            nonlocal status
            if message["type"] == "http.response.start":
                status = message["status"]
            elif message["type"] == "http.response.body":
                chunks.append(message.get("body", b""))

        await app(scope, receive, send)
        return status, b"".join(chunks)

    cycle = itertools.cycle(questions)

    async def client() -> None:
        session: str | None = None
        turns = 0
        for _ in counter:
            body: dict[str, Any] = {"message": next(cycle)}
            if session and turns < h.TURNS_PER_SESSION:
                body["session_id"] = session
            else:
                session, turns = None, 0
            status, content = await call(body)
            statuses.append(status)
            if status == 200:
                session = json.loads(content)["session_id"]
                turns += 1

    await asyncio.gather(*(client() for _ in range(clients)))
    return statuses


def _threads_cpu() -> dict[str, float]:
    """CPU seconds of this process's Python threads by name, numbered pool threads together (Linux)."""
    import threading

    tick = os.sysconf("SC_CLK_TCK")
    found: dict[str, float] = {}
    for thread in threading.enumerate():
        try:
            fields = Path(f"/proc/self/task/{thread.native_id}/stat").read_text().rsplit(")", 1)[1].split()
        except OSError:
            continue  # the thread ended while we looked
        name = thread.name.rstrip("0123456789").rstrip("_")
        found[name] = found.get(name, 0.0) + (int(fields[11]) + int(fields[12])) / tick
    return found


def _collect(on: bool) -> None:
    """Callgrind's collection on or off for this process (nothing without CALLGRIND set)."""
    if os.environ.get("CALLGRIND"):
        state = "on" if on else "off"
        subprocess.run(["callgrind_control", "-i", state, str(os.getpid())], check=False, capture_output=True)


def child(folder: Path, clients: int, requests: int, questions: int) -> None:
    """In the variant's process: build the app, record the answers, then measure."""
    from fastapi import FastAPI

    import http_overhead as o
    from lectern.api.app import create_app
    from lectern.api.logs import configure_logging
    from lectern.engine import Engine
    from lectern.settings import get_settings

    configure_logging(os.environ.get("LECTERN_LOG_LEVEL", "info"), "json")
    settings = get_settings()
    engine = Engine.from_settings(settings)
    engine.retriever.embedder.embed_query("warm up")
    app: FastAPI = create_app(settings, engine=o.ReplayEngine(engine))  # type: ignore[arg-type]
    qs = h.distinct_questions(folder)[:questions]

    async def run() -> dict[str, float]:
        async with app.router.lifespan_context(app):
            await _drive(app, qs, 4, len(qs))  # record every answer
            await _drive(app, qs, clients, 300)  # warm
            threads = _threads_cpu()
            _collect(True)
            cpu, loop_cpu, started = time.process_time(), time.thread_time(), time.perf_counter()
            statuses = await _drive(app, qs, clients, requests)
            cpu, loop_cpu = time.process_time() - cpu, time.thread_time() - loop_cpu
            _collect(False)
            seconds = time.perf_counter() - started
            after = _threads_cpu()
        if any(s != 200 for s in statuses):
            raise SystemExit(f"failed: {sorted(set(statuses))}")
        return {
            "cpu_us_per_answer": round(cpu / requests * 1e6, 1),
            "loop_cpu_us_per_answer": round(loop_cpu / requests * 1e6, 1),
            "answers_per_s": round(requests / seconds, 1),
            **{
                f"{name}_us": round((after[name] - threads.get(name, 0.0)) / requests * 1e6, 1)
                for name in sorted(after)
                if after[name] > threads.get(name, 0.0)
            },
            "load_avg_1m": round(os.getloadavg()[0], 2),
        }

    print("RESULT " + json.dumps(asyncio.run(run())), flush=True)


def measure(folder: Path, src: str, clients: int, requests: int, questions: int) -> dict[str, float]:
    data_dir = h.RESULTS / "http" / folder.name
    bench_dir = str(Path(__file__).resolve().parent)
    with tempfile.TemporaryDirectory() as tmp:
        env = h.service_env(
            data_dir, f"sqlite+aiosqlite:///{tmp}/lectern.sqlite3", LECTERN_QUERY_CACHE_SIZE="0"
        )
        env["PYTHONPATH"] = ":".join(p for p in (src, bench_dir) if p)
        command = [
            sys.executable, __file__, str(folder), "--child",
            "--clients", str(clients), "--requests", str(requests), "--questions", str(questions),
        ]  # fmt: skip
        done = subprocess.run(
            command, env={**os.environ, **env}, cwd=h.ROOT, stdout=subprocess.PIPE,
            stderr=subprocess.DEVNULL, text=True, check=True,
        )  # fmt: skip
    line = next(x for x in done.stdout.splitlines() if x.startswith("RESULT "))
    result: dict[str, float] = json.loads(line.removeprefix("RESULT "))
    return result


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("folder", type=Path)
    parser.add_argument("--variant", action="append", default=[])
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--requests", type=int, default=2000)
    parser.add_argument("--clients", type=int, default=32)
    parser.add_argument("--questions", type=int, default=100)
    parser.add_argument("--child", action="store_true", help=argparse.SUPPRESS)
    args = parser.parse_args()
    folder = args.folder.resolve()
    if args.child:
        child(folder, args.clients, args.requests, args.questions)
        return
    variants = [tuple(v.split("=", 1)) for v in args.variant]
    rows: dict[str, list[dict[str, float]]] = {label: [] for label, _ in variants}
    for n in range(args.rounds):
        for label, src in variants if n % 2 == 0 else variants[::-1]:
            row = measure(folder, src, args.clients, args.requests, args.questions)
            rows[label].append(row)
            print(f"round {n} {label}: {row}", flush=True)
    print("medians:")
    for label, runs in rows.items():
        print(f"  {label}: " + ", ".join(f"{k} {statistics.median(r[k] for r in runs)}" for k in runs[0]))


if __name__ == "__main__":
    main()
