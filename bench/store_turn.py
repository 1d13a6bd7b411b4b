"""The conversation store's cost per chat turn, without HTTP or the engine.

    uv run python bench/store_turn.py [--clients 1,32] [--turns 600] [--database-url URL]

Each client runs what ``/chat/run`` does around the engine (``Turns.begin``: load the window and store
the question; ``Turns.complete``: store the answer with its sources and citations; the seed 002 log
events, stored in batches), in sessions of 10 turns like bench/http_load.py. Reports the process CPU
per turn (every thread: aiosqlite's and asyncpg's included), the wall time per turn and turns/s.
Default database: a fresh SQLite file.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import statistics
import tempfile
import time
import uuid
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from lectern.api.logs import LogSink
from lectern.api.turns import Turn, Turns
from lectern.conversation import Conversation
from lectern.models import Answer, Citation, ConfidenceMetrics
from lectern.store import ConversationStore, upgrade_database

RESULTS = Path(__file__).resolve().parent / "results"
TURNS_PER_SESSION = 10
CHUNK = (
    "DDS, the Data Distribution Service, is the middleware ROS 2 builds on: publishers and subscribers "
    "find each other without a master, and quality-of-service settings choose reliability and history. "
) * 3


class _Engine:
    """What ``Turns.begin`` needs of the engine: a fresh conversation."""

    def new_conversation(self, session_id: str | None = None) -> Conversation:
        return Conversation(system_prompt="You answer from the documents.", session_id=session_id or "")


def _answer() -> Answer:
    citations = [
        Citation(
            number=i,
            chunk_id=f"chunk-{i}",
            chunk_text=CHUNK[: 200 + 200 * i],
            similarity_score=0.6,
            chapter="Chapter 1: ROS 2",
            section="1.2 DDS",
            url=f"https://docs.example.com/module-1/chapter-01#dds-{i}",
            heading_hierarchy=["Chapter 1: ROS 2", "1.2 DDS"],
            chunk_index=i,
            content_hash=f"{i:064x}",
            source_path="modules/module-1-ros2/chapter-01-intro.md",
        )
        for i in (1, 2)
    ]
    return Answer(
        text="ROS 2 uses DDS for discovery and transport [1]. " * 12,
        citations=citations,
        confidence=ConfidenceMetrics(
            average_similarity=0.6,
            min_similarity=0.55,
            max_similarity=0.65,
            num_chunks=2,
            chunk_diversity=0.4,
            confidence_level="high",
            should_answer=True,
        ),
        grounded=True,
        retrieval_used=True,
        retrieval_count=1,
        model_used="extractive",
        timestamp="2026-01-01T00:00:00.000Z",
    )


async def _run(turns: Turns, clients: int, total: int) -> dict[str, Any]:
    answer = _answer()
    counter = iter(range(total))
    latencies: list[float] = []

    async def client(number: int) -> None:
        session: uuid.UUID | None = None
        done = 0
        for n in counter:
            new = session is None or done >= TURNS_PER_SESSION
            if new:
                session, done = uuid.uuid4(), 0
            turn = Turn(session_id=session, owner=None, question=f"What is DDS, question {n} of {number}?")
            started = time.perf_counter()
            await turns.begin(turn, new=new)
            await turns.complete(turn, answer, started)
            latencies.append(time.perf_counter() - started)
            done += 1

    cpu, wall = time.process_time(), time.perf_counter()
    await asyncio.gather(*(client(i) for i in range(clients)))
    cpu, wall = time.process_time() - cpu, time.perf_counter() - wall
    latencies.sort()
    return {
        "clients": clients,
        "turns": total,
        "turns_per_s": round(total / wall, 1),
        "cpu_ms_per_turn": round(cpu / total * 1000, 3),
        "wall_ms_per_turn": round(wall / total * 1000, 3),
        "p50_ms": round(statistics.median(latencies) * 1000, 2),
        "p99_ms": round(latencies[int(0.99 * (len(latencies) - 1))] * 1000, 2),
    }


async def measure(url: str, clients: list[int], total: int) -> list[dict[str, Any]]:
    await upgrade_database(url)
    store = ConversationStore.from_url(url)
    sink = LogSink(store)
    sink.start()
    turns = Turns(_Engine(), store, sink, history=20)  # type: ignore[arg-type]
    try:
        await _run(turns, 4, 40)  # warm up: connections, statement caches
        return [await _run(turns, c, total) for c in clients]
    finally:
        await sink.stop()
        await store.close()


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--clients", default="1,32")
    parser.add_argument("--turns", type=int, default=600)
    parser.add_argument("--database-url", default="", help="Default: a fresh SQLite file.")
    parser.add_argument("--repeat", type=int, default=3, help="Runs per client count; the median is kept.")
    args = parser.parse_args()
    clients = [int(c) for c in args.clients.split(",")]
    rows = []
    for _ in range(args.repeat):
        with tempfile.TemporaryDirectory() as tmp:
            url = args.database_url or f"sqlite+aiosqlite:///{Path(tmp) / 'store.sqlite3'}"
            rows.append(asyncio.run(measure(url, clients, args.turns)))
    result = {
        "database": "postgresql" if args.database_url.startswith("postgresql") else "sqlite",
        "load_avg": os.getloadavg(),
        "at": datetime.now(UTC).isoformat(timespec="seconds"),
        "runs": [_median([r[i] for r in rows]) for i in range(len(clients))],
    }
    print(f"store per turn ({result['database']}, median of {args.repeat}, load {result['load_avg'][0]:.2f})")
    print(f"{'clients':<10}{'turns/s':>10}{'CPU ms':>9}{'wall ms':>9}{'p50 ms':>9}{'p99 ms':>9}")
    for r in result["runs"]:
        print(
            f"{r['clients']:<10}{r['turns_per_s']:>10}{r['cpu_ms_per_turn']:>9}{r['wall_ms_per_turn']:>9}"
            f"{r['p50_ms']:>9}{r['p99_ms']:>9}"
        )
    RESULTS.mkdir(parents=True, exist_ok=True)
    out = RESULTS / f"store_turn-{result['database']}.json"
    out.write_text(json.dumps(result, indent=2), encoding="utf-8")
    print(f"wrote {out.relative_to(RESULTS.parent.parent)}")


def _median(runs: list[dict[str, Any]]) -> dict[str, Any]:
    """Per field, the median over the runs (the run with the median CPU would hide the others' noise)."""
    first = runs[0]
    return {
        k: v if k == "clients" else round(statistics.median(r[k] for r in runs), 2) for k, v in first.items()
    }


if __name__ == "__main__":
    main()
