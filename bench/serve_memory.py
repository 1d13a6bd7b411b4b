"""Peak resident memory of `lectern serve` on an existing collection, after it has answered questions.

    uv run python bench/serve_memory.py DATA_DIR COLLECTION QUESTIONS.jsonl [--answers 200] [--port 0]
        [--mappings N] [--checkpoints 200,500] [--save-answers FILE]

Starts `lectern serve` (one worker, SQLite conversations in a temporary folder, offline writer) on the
collection already ingested in DATA_DIR, waits for /ready, asks `--answers` questions over /chat/run
(the `question` or `text` field of each line, cycled), and reads the server's VmHWM (peak RSS), VmRSS
and CPU time (user + system, per answer) from /proc. With `--mappings N`, also smaps_rollup and the N
largest mappings of /proc/PID/smaps by file (shared libraries, model files, [heap], [anon]) at ready,
after the first answer and at the largest RSS seen between answers. With `--checkpoints`, also the
peak and current RSS after each of those numbers of answers (one run gives the 200- and 1,000-answer
figures). With `--save-answers`, also each reply (less its session, timestamp and timings) as a JSON
line, so two builds' answers can be compared byte for byte (`cmp`). Linux only. Writes
bench/results/serve-memory-<collection>.json.

SciFact's 10k chunks, as a real ingest leaves them (data dirs outside the repository):

    LECTERN_DATA_DIR=/tmp/sf uv run lectern eval retrieval --beir PATH/TO/scifact --mode hybrid
    uv run python bench/store_sentences.py /tmp/sf beir-scifact   # the sentence vectors ingest stores
    cp -r /tmp/sf /tmp/sf-run && uv run python bench/serve_memory.py /tmp/sf-run beir-scifact \
        PATH/TO/scifact/queries.jsonl --answers 1000 --checkpoints 200,1000

Figures (docs/deploying.md, Memory): on SciFact so, 225 MB at ready, 288 after 200 answers, 314 after
1,000, peak 314 (341 before the server read its table and built its keyword index ahead of /ready);
answers identical byte for byte across that change (cmp of the --save-answers files). With the
passage caches at 1,024 (`lectern.writers.units.PASSAGES_KEPT`, 512 before): 239 MB at ready, 308
after 200, 343 after 1,000, 356 after 2,000 and 3,000 (the peak), the same answers byte for byte.

Without `bench/store_sentences.py` the server embeds the sentences of every passage it reads for the
first time, and stores them: measure each run on a fresh copy of the data dir, or later runs find
them stored.
"""

from __future__ import annotations

import argparse
import json
import os
import socket
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

import httpx

RESULTS = Path(__file__).parent / "results"


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port: int = sock.getsockname()[1]
        return port


def memory_mb(pid: int) -> dict[str, float]:
    fields: dict[str, float] = {}
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        key, _, value = line.partition(":")
        if key in ("VmHWM", "VmRSS"):
            fields[key] = int(value.split()[0]) / 1024
    return fields


def cpu_s(pid: int) -> float:
    """User and system CPU seconds the process has used (/proc/PID/stat's utime and stime)."""
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


VOLATILE = ("session_id", "timestamp", "timings")  # differ from run to run whatever the answer


def answer_line(reply: dict[str, Any]) -> str:
    return json.dumps({k: v for k, v in reply.items() if k not in VOLATILE}, sort_keys=True)


ROLLUP = ("Rss", "Anonymous", "Shared_Clean", "Private_Clean", "Private_Dirty")


def breakdown(pid: int, top: int) -> dict[str, Any]:
    """smaps_rollup's totals and the largest mappings of /proc/PID/smaps grouped by file (MB): a shared
    library's or model file's pages under its name, the rest as [anon], [heap], [stack] and the like."""
    rollup: dict[str, float] = {}
    for line in Path(f"/proc/{pid}/smaps_rollup").read_text().splitlines()[1:]:
        key, _, value = line.partition(":")
        if key in ROLLUP:
            rollup[key] = round(int(value.split()[0]) / 1024, 1)
    resident: dict[str, int] = {}
    name = "[anon]"
    for line in Path(f"/proc/{pid}/smaps").read_text().splitlines():
        parts = line.split()
        if parts and "-" in parts[0] and not parts[0].endswith(":"):
            name = (
                Path(parts[5]).name
                if len(parts) > 5 and parts[5].startswith("/")
                else (parts[5] if len(parts) > 5 else "[anon]")
            )
        elif parts and parts[0] == "Rss:":
            resident[name] = resident.get(name, 0) + int(parts[1])
    largest = sorted(resident.items(), key=lambda item: -item[1])[:top]
    return {"rollup_mb": rollup, "mappings_mb": {n: round(kb / 1024, 1) for n, kb in largest}}


def questions(path: Path) -> list[str]:
    rows = [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line.strip()]
    return [str(r.get("question") or r.get("text")) for r in rows]


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("data_dir", type=Path)
    parser.add_argument("collection")
    parser.add_argument("questions", type=Path)
    parser.add_argument("--answers", type=int, default=200)
    parser.add_argument("--port", type=int, default=0, help="0 lets the OS pick one")
    parser.add_argument(
        "--mappings",
        type=int,
        default=0,
        metavar="N",
        help="also record smaps_rollup and the N largest mappings by file at ready, after the first "
        "answer and at the largest RSS seen between answers",
    )
    parser.add_argument(
        "--checkpoints",
        default="",
        metavar="N,N",
        help="also record the peak and current RSS after these numbers of answers (comma-separated)",
    )
    parser.add_argument(
        "--save-answers",
        type=Path,
        metavar="FILE",
        help="write each reply, less what differs from run to run, as a JSON line",
    )
    args = parser.parse_args()
    saved: list[str] = []
    checkpoints = {int(n) for n in args.checkpoints.split(",") if n.strip()}
    qs = questions(args.questions)
    port = args.port or free_port()
    with tempfile.TemporaryDirectory() as tmp:
        env = {
            **os.environ,
            "LECTERN_DATA_DIR": str(args.data_dir.resolve()),
            "LECTERN_COLLECTION": args.collection,
            "LECTERN_DATABASE_URL": f"sqlite+aiosqlite:///{Path(tmp) / 'memory.sqlite3'}",
            "LECTERN_RATE_LIMIT": "",
            "LECTERN_API_KEYS": "[]",
        }
        command = [
            sys.executable,
            "-m",
            "lectern.cli",
            "serve",
            "--port",
            str(port),
            "--log-level",
            "warning",
        ]
        stages: dict[str, Any] = {}
        at_checkpoints: dict[str, dict[str, float]] = {}
        started = time.perf_counter()
        with tempfile.TemporaryFile() as log:
            process = subprocess.Popen(command, env=env, stdout=log, stderr=log)
            try:
                url = f"http://127.0.0.1:{port}"
                ready_s = _wait_ready(url, process, log) - started
                at_ready = memory_mb(process.pid)
                cpu_at_ready = cpu_s(process.pid)
                if args.mappings:
                    stages["ready"] = breakdown(process.pid, args.mappings)
                largest = 0.0
                with httpx.Client(base_url=url, timeout=60) as client:
                    for i in range(args.answers):
                        reply = client.post("/chat/run", json={"message": qs[i % len(qs)]})
                        if reply.status_code != 200:
                            log.seek(0)
                            tail = log.read().decode(errors="replace")[-3000:]
                            raise SystemExit(f"/chat/run answered {reply.status_code}: {reply.text}\n{tail}")
                        if args.save_answers:
                            saved.append(answer_line(reply.json()))
                        if i + 1 in checkpoints:
                            now = memory_mb(process.pid)
                            at_checkpoints[str(i + 1)] = {
                                "peak_rss_mb": round(now["VmHWM"], 1),
                                "rss_mb": round(now["VmRSS"], 1),
                            }
                            peak_now, rss_now = now["VmHWM"], now["VmRSS"]
                            print(f"after {i + 1} answers: peak {peak_now:.1f} MB, now {rss_now:.1f} MB")
                        if args.mappings:
                            rss = memory_mb(process.pid)["VmRSS"]
                            if i == 0:
                                stages["first answer"] = breakdown(process.pid, args.mappings)
                            if rss > largest:
                                largest = rss
                                peak = breakdown(process.pid, args.mappings)
                                stages["largest"] = {"answers": i + 1, **peak}
                after = memory_mb(process.pid)
                cpu_answering = cpu_s(process.pid) - cpu_at_ready
            finally:
                process.terminate()
                process.wait(timeout=20)
    result: dict[str, Any] = {
        "collection": args.collection,
        "answers": args.answers,
        "ready_s": round(ready_s, 2),
        "rss_at_ready_mb": round(at_ready["VmRSS"], 1),
        "rss_after_mb": round(after["VmRSS"], 1),
        "peak_rss_mb": round(after["VmHWM"], 1),
        "server_cpu_ms_per_answer": round(cpu_answering * 1000 / max(1, args.answers), 2),
        "load_average": os.getloadavg(),
    }
    if at_checkpoints:
        result["checkpoints"] = at_checkpoints
    if stages:
        result["breakdown"] = stages
        for name, stage in stages.items():
            print(f"{name}: {stage['rollup_mb']}")
            for mapping, mb in stage["mappings_mb"].items():
                print(f"  {mb:8.1f} MB  {mapping}")
    print(
        f"{args.collection}: ready in {result['ready_s']} s, RSS at ready {result['rss_at_ready_mb']} MB, "
        f"after {args.answers} answers {result['rss_after_mb']} MB, peak {result['peak_rss_mb']} MB, "
        f"server CPU {result['server_cpu_ms_per_answer']} ms per answer "
        f"(load average {result['load_average'][0]:.2f})"
    )
    if args.save_answers:
        args.save_answers.write_text("".join(f"{line}\n" for line in saved), encoding="utf-8")
    RESULTS.mkdir(parents=True, exist_ok=True)
    out = RESULTS / f"serve-memory-{args.collection}.json"
    out.write_text(json.dumps(result, indent=2), encoding="utf-8")
    print(f"-> {out}")


def _wait_ready(url: str, process: subprocess.Popen[bytes], log: Any) -> float:
    deadline = time.monotonic() + 180
    while True:
        if process.poll() is not None or time.monotonic() > deadline:
            log.seek(0)
            raise SystemExit(f"the server did not start:\n{log.read().decode(errors='replace')[-3000:]}")
        try:
            if httpx.get(f"{url}/ready", timeout=2).status_code == 200:
                return time.perf_counter()
        except httpx.HTTPError:
            pass
        time.sleep(0.1)


if __name__ == "__main__":
    main()
