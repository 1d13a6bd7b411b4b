"""Where a real ``lectern serve`` worker's CPU goes per ``/chat/run`` answer under 32-client load.

    uv run python bench/server_cpu_split.py /work/shared/data/textbooks/textbook-a [--workers 1]
        [--clients 32] [--requests 1200] [--turns 10] [--work] [--executor N] [--perf]
        [--spy /tmp/pyspy/bin/py-spy [--native] [--save RAW]] [--env VAR=VALUE ...]

Starts the service as bench/http_threads.py does (the collection bench/http_load.py ingested, the distinct
question mix, the query cache off, a fresh SQLite database, ``--turns`` questions to a session), warms it
up with 120 answers, then:

1. Counters, no profiler attached: over ``--requests`` answers, per thread, user and system CPU, voluntary
   and involuntary context switches and minor page faults per answer (``/proc/PID/task/TID/{stat,status}``).
   With ``--spy`` a ``py-spy dump`` first names Python's threads (their ``comm`` is just ``python``):
   the event loop ``MainThread``, the engine's pool ``lectern_N``, ``lectern-store-write_N``,
   ``lectern-log-writer``.
   ``--work`` (a sitecustomize.py on the server's PYTHONPATH) adds the thread CPU of every work item a
   pool thread ran, by callable, and the garbage collector's own time; ``--executor N`` cuts the engine's
   pool to N threads (a probe: pool sizes are a known negative, bench/http_threads.py).
2. ``--perf``: the same load under ``perf record -g`` (the kernel's side, which py-spy cannot see).
3. ``--spy``: the same load under ``py-spy record --nonblocking --threads`` (idle frames excluded): busy
   samples per thread, per stage (the first pattern of STAGES a sample's frames match) and by self frame.
   Caution: without ``--native`` py-spy calls some waits busy (the loop's epoll under ``Runner.run``,
   the pool threads' ``Condition.wait``): the busy samples add up to ~1.6-2x the CPU measured, so read
   the engine's stages, not the loop's, as CPU. ``--native`` is blocking: it slows the server ~10x.

Findings (Nov 2026, 2 shared vCPUs, load 2-6 from other jobs; textbook-a, 32 clients unless said; every
figure ms of CPU an answer; py-spy 0.4.3 and perf installed outside the project):

* The engine costs about the same inside the server as alone; the "unexplained 3-4 ms" was mostly
  measurements taken at different loads and on different questions. The same 600 distinct questions
  (120-720 of the list), bench/stage_cpu.py --server-heap in-process: 4.5-5.2 ms at load 2.1-3.5, 5.3-5.5
  at load 4.5 (the server's own data dir with ``--collection bench``: the same), with the hand-offs run
  in real threads 5.3 (worker side ~4.8). In the server (``--work``) the engine's one hand-off per answer
  (``Retriever.retrieve_assessed_then``'s work: retrieval, decision, compose) takes 5.53-5.57 ms with 1
  worker, at 1 client or 32, and 6.0-6.1 with 2 workers, plus ~0.5 ms of its coroutines on the loop:
  +0.2-0.7 ms against alone at the same load, +0.7-1.2 with 2 workers (the other worker shares the
  caches). The engine's pool size does not move it: 1 client, 1 worker, pool of 1 vs 6 threads: 9.48
  and 9.18 vs 9.42 and 9.95 ms a whole answer.
* Per thread, 1 worker (7.9-10.1 ms in all, run to run at load 4.7-6): pool threads 5.6-7.5 (user
  5.5-5.8, sys 0.1-1.7), event loop 1.5-2.0 (uvicorn, the middleware, the API, the turn and store
  calls, the engine's coroutines), store writer 0.5-0.9 (0.53 at 32 clients in ~4-answer group commits,
  2 x 0.46 at 1 client), log writer 0.1. 2 workers (9.1 ms, load 4.7): each worker's pool ~6.0 an answer
  it served, the rest ~3.0 (its store writer 0.66: 3.3 ms a drain).
* System CPU and context switches are not the gap. 2 workers: sys 0.5-0.7 ms an answer, 20-30
  switches (both workers). 1 worker: 10-187 voluntary switches and sys 0.3-2.2 ms from one run to the
  next with the same total CPU (7.9-10.2): when switches are many, user time is lower. ``perf record -e
  sched:sched_switch --call-graph dwarf``: 71 % of the switches are a thread waiting for the GIL
  (``take_gil`` in ``PyEval_RestoreThread``) after a C call that let it go, by caller: numpy's
  ``cblas_matrixproduct`` 12 %, onnxruntime's run 14 %, sqlite3 step/execute/bind/reset ~16 %,
  ``os.pread`` (the word rows) 5 %, lock and queue waits ~9 %, uvloop's thread-safe wake-ups 4 %,
  ``os.stat`` 3 %, numpy sorts and ufuncs ~10 %; the kernel's share of cycles (perf, 1 worker) 16 %,
  ``finish_task_switch`` and the wake-ups most of it. The garbage collector: 5 young collections in 1000
  answers, 0.07 ms an answer. Page faults: 10 an answer with fresh sessions, 17-19 with 10-turn ones.
* Nor is concurrency: 1 client (no two answers at once) costs as much as 32 (1 worker, 600 answers:
  1 client 8.9-10.0 ms, 32 clients 8.1-8.3 in the same minutes). 10-turn sessions cost ~0.45 ms an
  answer more than one-question sessions (the follow-up checks and the history), within the spread.
* Hand-offs an answer (``--work``, 1 worker): 1 engine work item (+0.05 for a respelling), 0.24 store
  writer drains at 32 clients (its group commit gathers ~4 answers' writes; 2 a turn at 1 client); the
  log writer wakes every 20 ms. There is no further hop to merge.
* uvicorn already runs uvloop and httptools (``auto``; both installed) without the access log.
* So at 200 answers/s two cores need <= 10 ms an answer including the load generator (~0.25): the server
  measured 7.9-10.9 ms here (9.06 with 2 workers at load 4.7); the machine's other jobs (load 2-6 on 2
  cores) take the rest. What is left to cut is spread: the engine (~5.5, its model ~2.5-2.9 of it: perf7),
  the loop's ~1.5 ms (FastAPI's ~10 middleware layers, pydantic, the turn's store calls), the store
  writer's ~0.5. No single fixable cause found: src/ unchanged.
"""

from __future__ import annotations

import argparse
import asyncio
import collections
import json
import os
import re
import subprocess
import tempfile
import time
from pathlib import Path
from typing import Any

import http_load as h
import http_threads as ht

TICK = ht.TICK

# A sample's stage: the first pattern (in this order) that any of its frames matches.
STAGES: list[tuple[str, str]] = [
    ("query model (onnxruntime)", r"onnxruntime|InferenceSession|\(minilm|query_model|embed_quer"),
    ("index search", r"lectern/index/"),
    ("writer", r"lectern/writers/"),
    ("answerability / guardrail", r"lectern/(answerability|guardrail|verification)\.py"),
    (
        "retrieval / engine other",
        r"lectern/(engine|retrieval|spelling|sentences|citations|confidence|"
        r"followups|situations|passage_store|word_frequency|stemming)\.py",
    ),
    ("store (sqlalchemy/sqlite)", r"lectern/store/|sqlalchemy|sqlite3"),
    ("logging", r"lectern/api/logs\.py|logging/"),
    ("api / pydantic / json", r"lectern/api/|fastapi|starlette|pydantic|json/"),
    ("uvicorn / http", r"uvicorn|httptools|h11"),
    ("asyncio / threads", r"asyncio/|uvloop|concurrent/futures|threading\.py"),
]


# Frames of the engine's answer (its coroutines on the loop and the work it hands to threads).
ENGINE = r"lectern/(engine|retrieval|writers/|index/|embeddings/|guardrail|answerability|spelling)"


# Patched in at the server's start through a sitecustomize.py on its PYTHONPATH (probes, not settings):
# `--executor N` cuts the engine's pool to N threads (pool sizes are a known negative for throughput,
# bench/http_threads.py); `--work` times each work item run by a pool thread (thread CPU, by callable),
# written to BENCH_WORK_LOG.<pid> every 20 items.
SITECUSTOMIZE = """
import collections, json, os, threading, time
if os.environ.get("BENCH_EXECUTOR_THREADS"):
    import lectern.oldest_first as of
    n = int(os.environ["BENCH_EXECUTOR_THREADS"])
    init = of.OldestFirstExecutor.__init__
    def patched(self, max_workers=None, thread_name_prefix=""):
        init(self, n, thread_name_prefix)
    of.OldestFirstExecutor.__init__ = patched
if os.environ.get("BENCH_WORK_LOG"):
    import concurrent.futures.thread as cft
    path = os.environ["BENCH_WORK_LOG"]
    stats = collections.defaultdict(lambda: [0, 0])
    lock = threading.Lock()
    run = cft._WorkItem.run
    def timed(self):
        started = time.thread_time_ns()
        try:
            run(self)
        finally:
            spent = time.thread_time_ns() - started
            fn = getattr(self.fn, "func", None)
            # asyncio.to_thread submits partial(Context.run, func, ...): name func
            target = self.fn.args[0] if getattr(fn, "__qualname__", "") == "Context.run" else self.fn
            name = threading.current_thread().name.rstrip("0123456789_") + ":" + getattr(
                target, "__qualname__", type(target).__name__)
            with lock:
                stats[name][0] += 1
                stats[name][1] += spent
                if sum(c for c, _ in stats.values()) % 20 == 0:
                    with open(f"{path}.{os.getpid()}", "w") as out:
                        json.dump(stats, out)
    cft._WorkItem.run = timed
    import gc
    began = {}
    def collecting(phase, info):  # the collector's own time, by generation
        if phase == "start":
            began[threading.get_ident()] = time.thread_time_ns()
        else:
            with lock:
                entry = stats["gc:generation %d" % info["generation"]]
                entry[0] += 1
                entry[1] += time.thread_time_ns() - began.pop(threading.get_ident(), time.thread_time_ns())
    gc.callbacks.append(collecting)
"""


def proc_stat(pid: int) -> tuple[float, float]:
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return int(fields[11]) / TICK, int(fields[12]) / TICK


def tasks(pid: int) -> dict[int, dict[str, Any]]:
    """Every thread: comm, user and system CPU seconds, context switches."""
    out: dict[int, dict[str, Any]] = {}
    for task in Path(f"/proc/{pid}/task").iterdir():
        try:
            fields = (task / "stat").read_text().rsplit(")", 1)[1].split()
            status = dict(
                line.split(":\t", 1) for line in (task / "status").read_text().splitlines() if ":\t" in line
            )
            out[int(task.name)] = {
                "comm": (task / "comm").read_text().strip(),
                "user": int(fields[11]) / TICK,
                "sys": int(fields[12]) / TICK,
                "vol": int(status["voluntary_ctxt_switches"]),
                "invol": int(status["nonvoluntary_ctxt_switches"]),
                "minflt": int(fields[7]),
            }
        except (OSError, KeyError):
            continue
    return out


def python_names(spy: str, pid: int) -> dict[int, str]:
    """TID -> Python thread name, from ``py-spy dump`` (``Thread 1234 (idle): "MainThread"``)."""
    if not spy:
        return {}
    out = subprocess.run([spy, "dump", "--pid", str(pid)], capture_output=True, text=True).stdout
    return {
        int(t): n for t, n in re.findall(r"^Thread (?:0x[0-9A-Fa-f]+ )?\(?(\d+)\)?.*?\"([^\"]+)\"", out, re.M)
    }


def label(comm: str, name: str | None) -> str:
    if name:
        return re.sub(r"_\d+$", "_N", name)
    return ht.group(comm)


def split_report(
    before: dict[int, dict[str, Any]], after: dict[int, dict[str, Any]], names: dict[int, str], n: int
) -> None:
    rows: dict[str, list[float]] = collections.defaultdict(lambda: [0, 0.0, 0.0, 0, 0, 0])
    for tid, t in after.items():
        b = before.get(tid, {"user": 0.0, "sys": 0.0, "vol": 0, "invol": 0, "minflt": 0})
        row = rows[label(t["comm"], names.get(tid))]
        row[0] += 1
        for i, key in enumerate(("user", "sys", "vol", "invol", "minflt"), 1):
            row[i] += t[key] - b[key]
    total = [sum(r[i] for r in rows.values()) for i in range(6)]
    print(f"  all {int(total[0])} threads: user {total[1] / n * 1e3:.2f} + sys {total[2] / n * 1e3:.2f} "
          f"ms/answer, {total[3] / n:.1f} vol + {total[4] / n:.1f} invol switches, "
          f"{total[5] / n:.1f} page faults/answer")  # fmt: skip
    for name, r in sorted(rows.items(), key=lambda kv: -(kv[1][1] + kv[1][2])):
        if r[1] + r[2] + r[3] == 0:
            continue
        print(f"    {name:<28}{int(r[0]):>3} thr  user {r[1] / n * 1e3:6.2f}  sys {r[2] / n * 1e3:5.2f} ms"
              f"  vol {r[3] / n:6.2f}  invol {r[4] / n:6.2f}  faults {r[5] / n:6.1f}")  # fmt: skip


def read_samples(path: Path) -> list[tuple[list[str], int]]:
    """py-spy's raw (collapsed) output: ``frame;frame;... count``, root first."""
    samples = []
    for line in path.read_text().splitlines():
        stack, _, count = line.rpartition(" ")
        if stack:
            samples.append((stack.split(";"), int(count)))
    return samples


def profile_report(samples: list[tuple[list[str], int]], cpu_ms: float, top: int) -> None:
    total = sum(c for _, c in samples) or 1
    by_thread: collections.Counter[str] = collections.Counter()
    by_stage: collections.Counter[str] = collections.Counter()
    by_self: collections.Counter[str] = collections.Counter()
    engine = 0
    for frames, count in samples:
        thread = frames[0] if frames[0].startswith("thread") else "?"
        by_thread[re.sub(r"0x[0-9A-F]+", "", thread)] += count
        joined = ";".join(frames)
        stage = next((s for s, pattern in STAGES if re.search(pattern, joined)), "other")
        by_stage[stage] += count
        by_self[re.sub(r"\s+\(.*:\d+\)$", lambda m: m.group(0).split(":")[0] + ")", frames[-1])] += count
        engine += count * bool(re.search(ENGINE, joined))
    print(f"  {total} busy samples; engine's share {engine / total:.1%} -> ~{cpu_ms * engine / total:.2f} ms "
          f"of the {cpu_ms:.2f} ms CPU an answer")  # fmt: skip
    print("  by thread:")
    for name, c in by_thread.most_common(12):
        print(f"    {c / total:6.1%}  {name}")
    print("  by stage (first match of the sample's frames):")
    for name, c in by_stage.most_common():
        print(f"    {c / total:6.1%}  {cpu_ms * c / total:5.2f} ms  {name}")
    print(f"  top {top} self frames:")
    for name, c in by_self.most_common(top):
        print(f"    {c / total:6.1%}  {name[:130]}")


def perf_profile(
    url: str,
    stream: Any,
    pid: int,
    workers: list[int],
    before: dict[int, Any],
    after: dict[int, Any],
    args: argparse.Namespace,
) -> None:
    """`perf record -g` of the busiest worker over the same load: the kernel's share (system CPU) by
    symbol, and the user side by library, which py-spy cannot see."""
    busiest = max(workers, key=lambda w: sum(t["user"] + t["sys"] for t in after[w].values()))
    with tempfile.TemporaryDirectory() as tmp:
        data = f"{tmp}/perf.data"
        command = ["perf", "record", "-F", "499", "-g", "-p", str(busiest), "-o", data]
        perf = subprocess.Popen(command, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        time.sleep(1.0)
        row = asyncio.run(h.chat_run(url, stream, args.clients, args.requests, pid))
        perf.send_signal(2)
        perf.wait(timeout=60)
        print(f"\nperf run (pid {busiest}): {row['answers_per_s']}/s, load {row['load_avg_1m']}")
        for sort in ("dso", "sym"):
            report = subprocess.run(
                ["perf", "report", "-i", data, "--stdio", "--no-children", "--sort", sort, "-g", "none",
                 "--percent-limit", "0.7"], capture_output=True, text=True,
            ).stdout  # fmt: skip
            print("\n".join(line for line in report.splitlines() if line and not line.startswith("#")))


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("folder", type=Path)
    parser.add_argument("--workers", type=int, default=1)
    parser.add_argument("--clients", type=int, default=32)
    parser.add_argument("--requests", type=int, default=1200)
    parser.add_argument("--env", action="append", default=[])
    parser.add_argument("--spy", default="", help="a py-spy binary (a bench tool, not a dependency)")
    parser.add_argument("--native", action="store_true", help="py-spy --native (C frames too)")
    parser.add_argument("--rate", type=int, default=200)
    parser.add_argument("--top", type=int, default=40)
    parser.add_argument("--turns", type=int, default=h.TURNS_PER_SESSION, help="turns to a session")
    parser.add_argument("--work", action="store_true", help="thread CPU of each pool work item, by callable")
    parser.add_argument("--executor", type=int, default=0, help="the engine pool's threads (a probe)")
    parser.add_argument("--perf", action="store_true", help="also a `perf record -g` run (kernel side)")
    parser.add_argument("--save", type=Path, help="keep py-spy's raw samples here")
    args = parser.parse_args()
    folder = args.folder.resolve()
    h.TURNS_PER_SESSION = args.turns
    extra = dict(item.split("=", 1) for item in args.env)
    with tempfile.TemporaryDirectory() as tmp:
        if args.work or args.executor:
            Path(tmp, "sitecustomize.py").write_text(SITECUSTOMIZE)
            extra["PYTHONPATH"] = os.pathsep.join(filter(None, [tmp, os.environ.get("PYTHONPATH", "")]))
            extra["BENCH_WORK_LOG"] = f"{tmp}/work" if args.work else ""
            extra["BENCH_EXECUTOR_THREADS"] = str(args.executor or "")
        env = h.service_env(
            h.RESULTS / "http" / folder.name,
            f"sqlite+aiosqlite:///{tmp}/lectern.sqlite3",
            LECTERN_QUERY_CACHE_SIZE="0",
            **extra,
        )
        stream = h.question_stream(folder, "distinct")
        with h.server(env, args.workers, 0) as (url, pid):
            asyncio.run(h.chat_run(url, stream, 8, 120, pid))
            workers = [p for p in ht.tree(pid) if p != pid] or [pid]
            names = {w: python_names(args.spy, w) for w in workers}
            before = {p: tasks(p) for p in ht.tree(pid)}
            work0 = {log.name: json.loads(log.read_text()) for log in Path(tmp).glob("work.*")}
            row = asyncio.run(h.chat_run(url, stream, args.clients, args.requests, pid))
            after = {p: tasks(p) for p in ht.tree(pid)}
            n = row["requests"]
            print(f"{extra or 'defaults'}, {args.workers} worker(s): {row['answers_per_s']}/s, "
                  f"p50 {row['p50_ms']} p99 {row['p99_ms']} ms, server CPU "
                  f"{row['server_cpu_ms_per_answer']} ms/answer, client "
                  f"{row['client_cpu_ms_per_answer']}, load {row['load_avg_1m']}")  # fmt: skip
            for p in after:
                print(f"pid {p}{' (supervisor)' if p == pid and workers != [pid] else ''}:")
                split_report(before.get(p, {}), after[p], names.get(p, {}), n)
            for log in Path(tmp).glob("work.*"):
                print(f"work items of {log.name} (count, ms CPU each, ms an answer):")
                then = work0.get(log.name, {})
                work = {k: (c - then.get(k, (0, 0))[0], ns - then.get(k, (0, 0))[1])
                        for k, (c, ns) in json.loads(log.read_text()).items()}  # fmt: skip
                for name, (count, ns) in sorted(work.items(), key=lambda kv: -kv[1][1]):
                    if not count:
                        continue
                    print(f"  {count:6d} {ns / count / 1e6:7.3f} {ns / 1e6 / n:7.3f}  {name}")
            if args.perf:
                perf_profile(url, stream, pid, workers, before, after, args)
            if not args.spy:
                return
            busiest = max(
                workers, key=lambda w: sum(t["user"] + t["sys"] for t in after[w].values())
                - sum(t["user"] + t["sys"] for t in before[w].values()),
            )  # fmt: skip
            out = args.save or Path(tmp) / "spy.txt"
            command = [args.spy, "record", "--pid", str(busiest), "--rate", str(args.rate), "--nonblocking",
                       "--threads", "--format", "raw", "--output", str(out), "--duration", "600"]  # fmt: skip
            if args.native:
                command.append("--native")
            spy = subprocess.Popen(command, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
            time.sleep(1.0)
            u0, s0 = proc_stat(busiest)
            row2 = asyncio.run(h.chat_run(url, stream, args.clients, args.requests, pid))
            u1, s1 = proc_stat(busiest)
            spy.send_signal(2)
            spy.wait(timeout=60)
            share = (u1 - u0 + s1 - s0) / max(row2["requests"], 1) * 1e3
            print(f"\nprofiled run (py-spy on pid {busiest}): {row2['answers_per_s']}/s, this worker's CPU "
                  f"{share:.2f} ms per answer of all workers (py-spy's own CPU not included), load "
                  f"{row2['load_avg_1m']}")  # fmt: skip
            per_worker = share * (len(workers) if workers != [pid] else 1)
            profile_report(read_samples(out), per_worker, args.top)


if __name__ == "__main__":
    main()
