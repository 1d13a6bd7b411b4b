"""What a turn's first write costs on SQLite: ``ConversationStore.begin_turn`` (store the question, read the
window before it) and the window's conversion to the engine's messages (`lectern.api.turns._to_conversation`).

    PYTHONPATH=src .venv/bin/python bench/window_read_cost.py [--turns 400] [--history 20]

One thread, asked `--turns` times: each turn's question through ``begin_turn`` (timed, with the window's
conversion; and the CPU time of both, every thread's), then its answer stored as the chat API stores it (5
citations of ~1 kB passages, their sources). Prints the medians (and p90) in microseconds, then the
window's read and conversion alone (no runner) before this change and now, timed in one process. Base for
comparison: PYTHONPATH=/tmp/base/src.

Findings (2 shared cores, busy: three interleaved runs each, --turns 400, history 20, microseconds):

    measure                                       base (0ae76c6)   window with the newest citations
    begin_turn, median (runner included)          586 / 853 / 868      735 / 870 / 882
    begin_turn + conversion, CPU median           640 / 861 / 895      826 / 874 / 937
    conversion to the engine's messages, median    28 /  31 /  31       88 /  89 /  90
    window read + conversion, fastest, 1 process  140 / 152 / 210      167 / 226 / 263

The begin_turn medians move by more between runs than between trees. In one process, interleaved, the
read and conversion cost +25-75 us a turn (the newest answer's 5 citations, ~6 kB of JSON, parsed into
Citations by pydantic's validate_json; the SQL's extra scalar subquery cost nothing measurable alone: 35
vs 43 us for the statement on a raw connection). Decoding the JSON to dicts in the store, copying them into
the WindowMessage and validating them again cost about twice that (+60-100 us; the first version of the
fix). A plain column read would decode every window answer's citations (10 of them at history 20), not one.
"""

from __future__ import annotations

import argparse
import asyncio
import sqlite3
import statistics
import tempfile
import time
import timeit
import uuid
from pathlib import Path
from typing import Any

import sqlalchemy as sa

from lectern.api.turns import _to_conversation
from lectern.conversation import Message as ConversationMessage
from lectern.store import ConversationStore, NewMessage, WindowMessage, upgrade_database
from lectern.store import tables as t
from lectern.store.statements import PreparedCache, SqliteStatements
from lectern.store.threads import ThreadOps

PASSAGE = "Whisk the eggs with a pinch of salt, then fold in the grated cheese and chives. " * 12


def citation(n: int) -> dict[str, object]:
    return {
        "number": n,
        "chunk_id": f"chunk-{n}",
        "chunk_text": PASSAGE,
        "similarity_score": 0.71,
        "title": "Omelettes",
        "chapter": "Eggs",
        "section": "Folding",
        "url": "",
        "chapter_id": "eggs",
        "module_name": "",
        "heading_hierarchy": ["Eggs", "Omelettes", "Folding"],
        "token_count": 220,
        "chunk_index": n,
        "content_hash": "0" * 16,
        "source_path": f"notes/eggs-{n}.md",
        "page": None,
    }


async def main(turns: int, history: int) -> None:
    with tempfile.TemporaryDirectory() as folder:
        url = f"sqlite+aiosqlite:///{Path(folder) / 'store.sqlite3'}"
        await upgrade_database(url)
        store = ConversationStore.from_url(url)
        tid = uuid.uuid4()
        cited = [citation(n) for n in range(1, 6)]
        sources = [{k: c[k] for k in ("number", "title", "section", "source_path")} for c in cited]
        begin: list[float] = []
        convert: list[float] = []
        cpu_used: list[float] = []  # both, CPU of every thread (the store's included): less noisy
        try:
            for i in range(turns):
                cpu = time.process_time()
                started = time.perf_counter()
                turn = await store.begin_turn(
                    tid, NewMessage(role="user", content=f"How long do I whisk eggs? ({i})"), history=history
                )
                read = time.perf_counter()
                messages = [_to_conversation(m) for m in turn.window if m.role != "system"]
                done = time.perf_counter()
                cpu_used.append((time.process_time() - cpu) * 1e6)
                assert len(messages) == min(history, 2 * i)
                begin.append((read - started) * 1e6)
                convert.append((done - read) * 1e6)
                answer = NewMessage(
                    role="assistant", content="Whisk for a minute [1].", confidence=0.8, sources=sources
                )
                await store.append_messages(tid, [answer.model_copy(update={"citations": cited})])
            dialect = store._engine.dialect
        finally:
            await store.close()
        read = window_read(Path(folder) / "store.sqlite3", dialect, tid, 2 * turns, history)
    for name, values in (("begin_turn", begin), ("to_conversation", convert), ("both, CPU", cpu_used)):
        kept = values[20:]  # warm
        p90 = statistics.quantiles(kept, n=10)[-1]
        print(f"{name:16} median {statistics.median(kept):8.1f} us   p90 {p90:8.1f} us")
    if read:
        print(f"window read and messages, fastest: before {read['before']:.1f}, now {read['now']:.1f} us")


# The window's read before it carried the newest answer's citations (main at 0ae76c6), rebuilt here so
# both are timed in one process, interleaved: on a shared machine two runs differ by more than they do.
_OLD_WINDOW = (
    sa.select(
        t.messages.c.seq,
        t.messages.c.role,
        t.messages.c.content,
        t.messages.c.timestamp,
        t.messages.c.confidence,
    )
    .where(
        t.messages.c.thread_id == sa.bindparam("tid"),
        t.messages.c.archived.is_(False),
        t.messages.c.seq < sa.bindparam("before"),
    )
    .order_by(t.messages.c.seq.desc())
    .limit(sa.bindparam("limit", type_=sa.Integer()))
)


def old_turn_window(
    ex: SqliteStatements, tid: uuid.UUID, before: int, limit: int
) -> list[ConversationMessage]:
    rows = ex.rows(_OLD_WINDOW, {"tid": tid, "before": before, "limit": limit})
    window = [
        WindowMessage(seq=r[0], role=r[1], content=r[2], timestamp=r[3], confidence=r[4])
        for r in reversed(rows)
    ]
    return [
        ConversationMessage(
            "assistant" if m.role == "assistant" else "user", m.content, m.timestamp, m.confidence
        )
        for m in window
    ]


def new_turn_window(
    ex: SqliteStatements, tid: uuid.UUID, before: int, limit: int
) -> list[ConversationMessage]:
    return [_to_conversation(m) for m in ThreadOps._window_before(ex, tid, before, limit)]


def window_read(path: Path, dialect: Any, tid: uuid.UUID, before: int, history: int) -> dict[str, float]:
    """The window's statement, rows and engine messages alone, on the thread's last turn, in this thread
    (no runner), before and now: the fastest of 15 interleaved rounds of 200 reads each."""
    statements = SqliteStatements(sqlite3.connect(path), PreparedCache(dialect))
    if not new_turn_window(statements, tid, before, history)[-1].citations:
        return {}  # a tree whose window carries no citations: nothing to compare with
    best = {"before": float("inf"), "now": float("inf")}
    for _ in range(15):
        for name, read in (("before", old_turn_window), ("now", new_turn_window)):
            seconds = timeit.timeit(lambda: read(statements, tid, before, history), number=200)  # noqa: B023
            best[name] = min(best[name], seconds / 200 * 1e6)
    return best


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--turns", type=int, default=400)
    parser.add_argument("--history", type=int, default=20)
    args = parser.parse_args()
    asyncio.run(main(args.turns, args.history))
