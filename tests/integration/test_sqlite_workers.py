"""Two real server processes on one SQLite file (what ``lectern serve --workers 2`` runs): concurrent
chat turns, each session's turns spread over both processes, lose no message and get no error, and a
third process stopped (SIGSTOP) while it holds the write turn holds them up for one bounded wait only.
A write lock that no retry gets is a 503 (StoreUnavailable), not a 500."""

from __future__ import annotations

import asyncio
import os
import signal
import sqlite3
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest

from lectern.errors import StoreUnavailable
from lectern.store import ConversationStore, upgrade_database
from lectern.store.turn import turn_path
from tests.integration.test_kill_mid_generation import ROOT, Server, started

pytestmark = pytest.mark.integration

CLIENTS = 10
TURNS = 6  # per client, alternating between the two processes


@pytest.fixture
def database(tmp_path: Path) -> Path:
    return tmp_path / "lectern.sqlite3"


@pytest.fixture
def workers(tmp_path: Path, database: Path) -> Iterator[tuple[Server, Server]]:
    url = f"sqlite+aiosqlite:///{database}"
    # a writer that answers at once (8 words): the store's writes are the work
    first, second = (Server(tmp_path, url, writer=("8", "0")) for _ in range(2))
    with started(first, second):
        yield first, second


async def converse(urls: list[str], client: int) -> tuple[str, list[str], float]:
    """TURNS turns of one session, each on the next process; the session, its questions, the slowest."""
    session: str | None = None
    asked: list[str] = []
    slowest = 0.0
    async with httpx.AsyncClient(timeout=60) as http:
        for turn in range(TURNS):
            question = f"How do ROS 2 nodes communicate with topics? (client {client}, turn {turn})"
            body = {"message": question, **({"session_id": session} if session else {})}
            started = time.monotonic()
            reply = await http.post(f"{urls[(client + turn) % 2]}/chat/run", json=body)
            slowest = max(slowest, time.monotonic() - started)
            assert reply.status_code == 200, reply.text
            session = reply.json()["session_id"]
            asked.append(question)
    assert session is not None
    return session, asked, slowest


async def run_clients(urls: list[str]) -> list[tuple[str, list[str], float]]:
    return list(await asyncio.gather(*(converse(urls, c) for c in range(CLIENTS))))


def check_stored(database: Path, sessions: list[tuple[str, list[str], float]]) -> None:
    """Every acknowledged turn's question and answer, in order, in its session: nothing lost or doubled."""
    with sqlite3.connect(database) as db:
        total = db.execute("SELECT count(*) FROM messages").fetchone()[0]
        for session, asked, _ in sessions:
            rows = db.execute(
                "SELECT role, content FROM messages WHERE thread_id = ? ORDER BY message_id",
                (session.replace("-", ""),),
            ).fetchall()
            assert [content for role, content in rows if role == "user"] == asked
            assert [role for role, _ in rows] == ["user", "assistant"] * TURNS
    assert total == 2 * len(sessions) * TURNS


def test_two_processes_on_one_sqlite_file_lose_no_message(
    workers: tuple[Server, Server], database: Path
) -> None:
    sessions = asyncio.run(run_clients([w.url for w in workers]))
    check_stored(database, sessions)


def test_a_stopped_process_holding_the_write_turn_delays_the_others_once(
    workers: tuple[Server, Server], database: Path
) -> None:
    holder = subprocess.Popen(
        [
            sys.executable,
            "-c",
            "import sys; from pathlib import Path; from lectern.store.turn import WriteTurn;"
            "assert WriteTurn(Path(sys.argv[1]), wait_s=0.1).acquire(); print('held', flush=True);"
            "import time; time.sleep(3600)",
            str(turn_path(str(database))),
        ],
        cwd=ROOT,
        env={**os.environ, "PYTHONPATH": str(ROOT / "src")},
        stdout=subprocess.PIPE,
    )
    try:
        assert holder.stdout is not None
        assert holder.stdout.readline() == b"held\n"
        holder.send_signal(signal.SIGSTOP)  # it keeps the turn, and will not run again
        sessions = asyncio.run(run_clients([w.url for w in workers]))
        check_stored(database, sessions)
        # One bounded wait (0.5 s) per process, not one per write: TURNS turns one after the other
        # store 2 * TURNS messages, and would take over 6 s.
        started = time.monotonic()
        asyncio.run(converse([w.url for w in workers], CLIENTS))
        assert time.monotonic() - started < 4
    finally:
        holder.kill()
        holder.wait(timeout=10)


async def test_a_write_lock_no_retry_gets_is_unavailable_not_an_error(database: Path) -> None:
    url = f"sqlite+aiosqlite:///{database}"
    await upgrade_database(url)
    store = ConversationStore.from_url(url, busy_timeout_ms=20)
    holder = sqlite3.connect(database, isolation_level=None)
    try:
        holder.execute("BEGIN IMMEDIATE")  # another process's write that does not end
        with pytest.raises(StoreUnavailable):
            await store.get_or_create_thread()
        assert store.outage.down
        holder.execute("ROLLBACK")
        _, created = await store.get_or_create_thread()  # and writes go on once it lets go
        assert created
        assert not store.outage.down
    finally:
        holder.close()
        await store.close()
