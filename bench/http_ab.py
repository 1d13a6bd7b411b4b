"""``/chat/run`` of several server variants in one run, alternating, so that a shared machine's load
falls on each alike: the worker count, and optionally another source tree (the base of an A/B) and
environment variables (a thread setting, say).

    uv run python bench/http_ab.py /work/shared/data/textbooks/textbook-a \
        --variant w1=1 --variant w2=2 [--variant w2base=2@/tmp/base/src] [--rounds 3] [--requests 800]
        [--clients 32] [--port 8123]

A variant is ``LABEL=WORKERS[@SRC][,VAR=VALUE...]``: SRC goes first on the servers' PYTHONPATH, and
each VAR=VALUE is set in the server's environment (``w2t1=2,LECTERN_EMBEDDING_THREADS=1``). Each
round starts every variant's server in turn (the order reversed every other round) on a fresh SQLite
database, over the collection bench/http_load.py ingested (run it once first), with the distinct
question mix (the query cache off, every question embedded); warms it up, then measures ``/chat/run``
at ``--clients`` and the first SSE token (30 sequential streams). Prints each run and every variant's
medians (answers/s, p50 and p99 latency, first-token p50, server CPU per answer, the 1-minute load
average), and writes ``bench/results/http_ab-<time>.json``.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import statistics
import tempfile
import time
from pathlib import Path
from typing import Any

import http_load as h

KEYS = ("answers_per_s", "p50_ms", "p99_ms", "ttft_p50_ms", "server_cpu_ms_per_answer", "load_avg_1m")


Variant = tuple[str, int, str, dict[str, str]]


def parse_variant(text: str) -> Variant:
    label, _, rest = text.partition("=")
    rest, *assignments = rest.split(",")
    workers, _, src = rest.partition("@")
    if not label or not workers.isdigit() or not all("=" in a for a in assignments):
        raise argparse.ArgumentTypeError(f"expected LABEL=WORKERS[@SRC][,VAR=VALUE...], got {text!r}")
    return label, int(workers), src, dict(a.split("=", 1) for a in assignments)


def measure(
    folder: Path, workers: int, src: str, extra: dict[str, str], clients: int, requests: int, port: int
) -> dict[str, Any]:
    data_dir = h.RESULTS / "http" / folder.name
    with tempfile.TemporaryDirectory() as tmp:
        env = h.service_env(
            data_dir, f"sqlite+aiosqlite:///{tmp}/lectern.sqlite3", LECTERN_QUERY_CACHE_SIZE="0", **extra
        )
        if src:
            env["PYTHONPATH"] = src
        stream = h.question_stream(folder, "distinct")
        with h.server(env, workers, port) as (url, pid):
            asyncio.run(h.chat_run(url, stream, 4, 40, pid))  # warm up every worker
            row = asyncio.run(h.chat_run(url, stream, clients, requests, pid))
            row["ttft_p50_ms"] = asyncio.run(h.first_token(url, h.questions(folder), 30))["p50_ms"]
    return row


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("folder", type=Path)
    parser.add_argument("--variant", type=parse_variant, action="append", required=True)
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--requests", type=int, default=800)
    parser.add_argument("--clients", type=int, default=32)
    parser.add_argument("--port", type=int, default=0)
    args = parser.parse_args()
    folder = args.folder.resolve()
    if not (h.RESULTS / "http" / folder.name).exists():
        raise SystemExit(f"no collection for {folder.name}: run bench/http_load.py on it once first")
    rows: dict[str, list[dict[str, Any]]] = {label: [] for label, *_ in args.variant}
    for n in range(args.rounds):
        for label, workers, src, extra in args.variant if n % 2 == 0 else args.variant[::-1]:
            row = measure(folder, workers, src, extra, args.clients, args.requests, args.port)
            rows[label].append(row)
            print(
                f"round {n} {label}: {row['answers_per_s']}/s p50 {row['p50_ms']} p99 {row['p99_ms']} ms, "
                f"first token {row['ttft_p50_ms']} ms, failed {row['failed']}, "
                f"CPU {row['server_cpu_ms_per_answer']} ms/answer, load {row['load_avg_1m']}, "
                f"connections {row['connections_split']} ({row['reconnects']} reopened), "
                f"p99 by worker {[w['p99_ms'] for w in row['by_worker']]}",
                flush=True,
            )
    medians = {
        label: {k: round(statistics.median(r[k] for r in runs), 2) for k in KEYS}
        for label, runs in rows.items()
    }
    print("medians:")
    for label, values in medians.items():
        print(f"  {label}: " + ", ".join(f"{k} {v}" for k, v in values.items()))
    out = h.RESULTS / f"http_ab-{time.strftime('%Y%m%d-%H%M%S')}.json"
    out.write_text(json.dumps({"clients": args.clients, "medians": medians, "runs": rows}, indent=1))
    print(f"wrote {out.relative_to(h.ROOT)}")


if __name__ == "__main__":
    main()
