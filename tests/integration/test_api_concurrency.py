"""100 concurrent ``/chat/run`` requests on 20 sessions, through a real server, on SQLite and PostgreSQL:
every request answers and every message is stored exactly once."""

from __future__ import annotations

import asyncio
import uuid
from collections import Counter
from pathlib import Path

import httpx
import pytest

from lectern.api import create_app
from lectern.store import ConversationStore
from tests.api_support import LiveServer, make_engine, make_settings
from tests.integration.store_support import BACKENDS, backend_url

pytestmark = pytest.mark.integration

SESSIONS = 20
PER_SESSION = 5
QUESTIONS = [
    "How do ROS 2 nodes communicate with topics?",
    "What are URDF joint types?",
    "How do I create a ROS 2 node in Python?",
    "What does Gazebo simulate?",
    "What do ROS 2 launch files do?",
]


@pytest.fixture(params=BACKENDS)
def database_url(request: pytest.FixtureRequest, tmp_path: Path) -> str:
    return backend_url(request, tmp_path)


async def test_concurrent_requests_store_every_message_once(tmp_path: Path, database_url: str) -> None:
    settings = make_settings(tmp_path, database_url=database_url)
    sessions = [str(uuid.uuid4()) for _ in range(SESSIONS)]
    asks = [(s, f"{QUESTIONS[i]} (#{n})") for n, s in enumerate(sessions) for i in range(PER_SESSION)]
    with LiveServer(create_app(settings, engine=make_engine(settings))) as live:
        limits = httpx.Limits(max_connections=len(asks))
        async with httpx.AsyncClient(base_url=live.url, limits=limits, timeout=60) as client:
            responses = await asyncio.gather(
                *(client.post("/chat/run", json={"message": q, "session_id": s}) for s, q in asks)
            )
    assert [r.status_code for r in responses] == [200] * len(asks), [
        r.text for r in responses if r.status_code != 200
    ]
    assert {r.json()["session_id"] for r in responses} == set(sessions)

    store = ConversationStore.from_url(database_url)
    try:
        for session in sessions:
            messages = await store.get_messages(uuid.UUID(session), include_archived=True)
            users = Counter(m.content for m in messages if m.role == "user")
            expected = {q for s, q in asks if s == session}
            assert set(users) == expected, users
            assert set(users.values()) == {1}, users
            assert sum(m.role == "assistant" for m in messages) == PER_SESSION
            assert [m.seq for m in messages] == list(range(2 * PER_SESSION))
            thread = await store.get_thread(uuid.UUID(session))
            assert thread.turn_count == PER_SESSION
    finally:
        await store.close()
