"""Threads and context switches of ``lectern serve``'s workers under ``/chat/run`` load.

    uv run python bench/http_threads.py /work/shared/data/textbooks/textbook-a [--workers 2]
        [--clients 32] [--requests 800] [--env VAR=VALUE ...] [--spy /path/to/py-spy]

Starts the service as bench/http_ab.py does (the collection bench/http_load.py ingested, the distinct
question mix, the query cache off), warms it up, then for every process of the server's tree lists its
threads by name (``/proc/PID/task/TID/comm``) with each group's CPU and voluntary / involuntary context
switches per answer over the measured load, then every thread that ran. ``--env`` sets a variable for
the server (an A/B of a thread setting); ``--spy`` prints a ``py-spy dump`` of one worker mid-load,
which names Python's threads (their ``comm`` is just ``python``).

Findings (2026-11-28, 2 vCPUs, AMD EPYC under KVM, shared with other jobs: 1-minute load 4.7-7 in every
run, one foreign process at 100 % of a core; 32 clients, textbook-a). The hypothesis was that 2 workers
cost more CPU per answer than 1 because each sizes its thread pools to the machine (oversubscription:
context switches, spin-waits). Measurements refute it:

* What runs. Per worker: the event loop, asyncio's default executor (``OldestFirstExecutor``,
  min(32, cores + 4) = 6 threads: nearly all of the engine's Python work), the ``minilm`` pool
  (``resolve_threads`` = 2; onnxruntime already runs each query with one intra-op thread and no
  inter-op pool), the SQLite store's reader/writer threads. LanceDB's tokio pools (13-24
  ``lancedb-tokio-w``, 2 ``lance-cpu``) and jemalloc's thread sit idle under load (0.00-0.14 ms CPU per
  answer: the keyword index is in memory); no OpenBLAS threads exist. Busy threads: ~8 per worker.
* Context switches are not what 2 workers pay for. 1 worker: 50 voluntary + 17 involuntary switches per
  answer (6 executor threads taking turns at the GIL), 9.6 ms CPU per answer; 2 workers: 25-39
  voluntary + 10-14 involuntary, 11-12.5 ms. More workers switch *less* per answer and still cost more.
* Cutting every pool to cores / workers does not help. ``bench/http_ab.py`` (alternating, a source tree
  whose executor size came from an environment variable), 6 rounds of 800 answers, medians:
  2 workers as they are 155.9 answers/s, 11.23 ms CPU/answer (load 5.59); each worker with a 1-thread
  executor and ``LECTERN_EMBEDDING_THREADS=1`` 152.9/s, 11.88 ms (load 5.38), dearer in 5 of 6 rounds.
  Voluntary switches fell from 39 to 20 per answer (this script) at the same CPU (12.59 vs 12.54 ms).
  Earlier 3-round runs, all within the rounds' noise (81-171 answers/s for one variant): 2 workers with
  ``LECTERN_EMBEDDING_THREADS=1`` 126.1/s 10.85 ms vs 104.4/s 10.94 ms; a 2-thread executor 103.2/s
  11.46 ms; both 109.6/s 11.01 ms. 1 worker with a 2-thread executor 96.2/s 10.70 ms vs 103.1/s 9.51 ms.
* So the extra CPU of a second worker is not the threads'. Left unexplained: a likely cause is the
  machine itself (with two busy workers both vCPUs are busy and time-shared with the other jobs, so
  caches are shared and refilled more often), but a pure-Python loop run alone and as a pair of
  processes was within this machine's noise (0.57-0.82 s of CPU alone, 0.59-0.83 s each of a pair).
  Throughput with 2 workers follows how much of the 2 cores the other jobs leave: 81-171/s here.
  200 answers/s at ~10 ms of server CPU each needs both cores to the server alone, the load generator
  included; no thread setting gets there on this machine.
"""

from __future__ import annotations

import argparse
import asyncio
import collections
import os
import subprocess
import tempfile
from pathlib import Path
from typing import Any

import http_load as h

TICK = os.sysconf("SC_CLK_TCK")


def tree(pid: int) -> list[int]:
    pids = [pid]
    for stat in Path("/proc").glob("[0-9]*/stat"):
        try:
            if int(stat.read_text().rsplit(")", 1)[1].split()[1]) == pid:
                pids.append(int(stat.parent.name))
        except (OSError, ValueError):
            continue
    return pids


def threads(pid: int) -> dict[int, dict[str, Any]]:
    """Every thread of `pid`: its name, CPU seconds and context switches."""
    out: dict[int, dict[str, Any]] = {}
    for task in Path(f"/proc/{pid}/task").iterdir():
        try:
            name = (task / "comm").read_text().strip()
            fields = (task / "stat").read_text().rsplit(")", 1)[1].split()
            status = dict(
                line.split(":\t", 1) for line in (task / "status").read_text().splitlines() if ":\t" in line
            )
        except OSError:
            continue
        out[int(task.name)] = {
            "name": name,
            "cpu_s": (int(fields[11]) + int(fields[12])) / TICK,
            "vol": int(status["voluntary_ctxt_switches"]),
            "invol": int(status["nonvoluntary_ctxt_switches"]),
        }
    return out


def group(name: str) -> str:
    """Pool names without their ordinal (`minilm_3` -> `minilm`)."""
    return name.rstrip("0123456789_-") or name


def busiest(before: dict[int, dict[str, Any]], now: dict[int, dict[str, Any]], n: int) -> None:
    """The threads that ran, one by one (Python's own threads are all named `python`)."""
    for tid, t in sorted(
        now.items(), key=lambda kv: -(kv[1]["cpu_s"] - before.get(kv[0], {"cpu_s": 0})["cpu_s"])
    ):
        b = before.get(tid, {"cpu_s": 0.0, "vol": 0, "invol": 0})
        if t["cpu_s"] - b["cpu_s"] or t["vol"] - b["vol"]:
            cpu, vol, invol = t["cpu_s"] - b["cpu_s"], t["vol"] - b["vol"], t["invol"] - b["invol"]
            print(f"    tid {tid} {t['name']:<16}{cpu / n * 1000:>8.2f} ms/answer "
                  f"{vol / n:>8.2f} vol {invol / n:>8.2f} invol")  # fmt: skip


def report(
    before: dict[int, dict[int, dict[str, Any]]], after: dict[int, dict[int, dict[str, Any]]], n: int
) -> None:
    for pid, now in after.items():
        then = before.get(pid, {})
        rows: dict[str, list[float]] = collections.defaultdict(lambda: [0, 0.0, 0, 0])
        for tid, t in now.items():
            b = then.get(tid, {"cpu_s": 0.0, "vol": 0, "invol": 0})
            row = rows[group(t["name"])]
            row[0] += 1
            row[1] += t["cpu_s"] - b["cpu_s"]
            row[2] += t["vol"] - b["vol"]
            row[3] += t["invol"] - b["invol"]
        total = [sum(r[i] for r in rows.values()) for i in range(4)]
        print(f"pid {pid}: {int(total[0])} threads, {total[1] / n * 1000:.2f} ms CPU/answer, "
              f"{total[2] / n:.1f} vol + {total[3] / n:.1f} invol switches/answer")  # fmt: skip
        for name, r in sorted(rows.items(), key=lambda kv: -kv[1][1]):
            print(f"  {name:<24}{int(r[0]):>4} threads {r[1] / n * 1000:>8.2f} ms/answer "
                  f"{r[2] / n:>8.2f} vol {r[3] / n:>8.2f} invol")  # fmt: skip
        busiest(then, now, n)


def dump_later(pid: int, spy: str) -> subprocess.Popen[bytes] | None:
    """`py-spy dump` of `pid` two seconds into the load (names every Python thread's stack)."""
    if not spy:
        return None
    command = f"sleep 2; {spy} dump --native --pid {pid}"
    return subprocess.Popen(["sh", "-c", command], stdout=subprocess.PIPE, stderr=subprocess.STDOUT)


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("folder", type=Path)
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--clients", type=int, default=32)
    parser.add_argument("--requests", type=int, default=800)
    parser.add_argument("--env", action="append", default=[])
    parser.add_argument("--spy", default="", help="a py-spy binary: dump one worker's threads mid-load")
    args = parser.parse_args()
    folder = args.folder.resolve()
    extra = dict(item.split("=", 1) for item in args.env)
    with tempfile.TemporaryDirectory() as tmp:
        env = h.service_env(
            h.RESULTS / "http" / folder.name,
            f"sqlite+aiosqlite:///{tmp}/lectern.sqlite3",
            LECTERN_QUERY_CACHE_SIZE="0",
            **extra,
        )
        stream = h.question_stream(folder, "distinct")
        with h.server(env, args.workers, 0) as (url, pid):
            asyncio.run(h.chat_run(url, stream, 4, 40, pid))
            before = {p: threads(p) for p in tree(pid)}
            spy = dump_later(tree(pid)[-1], args.spy)
            row = asyncio.run(h.chat_run(url, stream, args.clients, args.requests, pid))
            if spy is not None:
                print(spy.communicate()[0].decode(errors="replace"))
            after = {p: threads(p) for p in tree(pid)}
    print(f"{extra or 'defaults'}: {row['answers_per_s']}/s, server CPU {row['server_cpu_ms_per_answer']} "
          f"ms/answer, client {row['client_cpu_ms_per_answer']}, load {row['load_avg_1m']}")  # fmt: skip
    report(before, after, row["requests"])


if __name__ == "__main__":
    main()
