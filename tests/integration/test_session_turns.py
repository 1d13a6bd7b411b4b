"""Turns on one session are answered one at a time, on SQLite and PostgreSQL, through a real server:
50 concurrent writers on one session (chat, SSE and the generation API mixed) are all answered, the
history alternates question/answer, each answer carries its question's turn id, and turn numbers count
the session's turns. A full queue is a 429 ``session_busy`` with Retry-After."""

from __future__ import annotations

import asyncio
import uuid
from pathlib import Path

import httpx
import pytest

from lectern.api import create_app
from lectern.store import ConversationStore
from tests.api_support import LiveServer, make_engine, make_settings, ndjson, parse_sse
from tests.contracts import chat_error
from tests.integration.store_support import BACKENDS, backend_url

pytestmark = pytest.mark.integration

WRITERS = 50
QUESTIONS = [
    "How do ROS 2 nodes communicate with topics?",
    "What are URDF joint types?",
    "What does Gazebo simulate?",
    "What do ROS 2 launch files do?",
]


@pytest.fixture(params=BACKENDS)
def database_url(request: pytest.FixtureRequest, tmp_path: Path) -> str:
    return backend_url(request, tmp_path)


async def test_fifty_concurrent_writers_on_one_session_alternate(tmp_path: Path, database_url: str) -> None:
    settings = make_settings(tmp_path, database_url=database_url, session_max_waiting=WRITERS)
    with LiveServer(create_app(settings, engine=make_engine(settings))) as live:
        limits = httpx.Limits(max_connections=WRITERS + 5)
        async with httpx.AsyncClient(base_url=live.url, limits=limits, timeout=120) as client:
            created = await client.post("/api/generation/session", json={})
            session = created.json()["sessionId"]

            async def ask(n: int) -> int:
                question = f"{QUESTIONS[n % len(QUESTIONS)]} (#{n})"
                if n % 5 == 3:
                    r = await client.post("/chat/stream", json={"message": question, "session_id": session})
                    assert r.status_code == 200, r.text
                    assert parse_sse(r.text)[-1][1]["type"] == "done", r.text
                elif n % 5 == 4:
                    r = await client.post(
                        "/api/generation/stream", json={"sessionId": session, "prompt": question}
                    )
                    assert r.status_code == 200, r.text
                    assert ndjson(r.text)[-1]["type"] == "done", r.text
                else:
                    r = await client.post("/chat/run", json={"message": question, "session_id": session})
                    assert r.status_code == 200, r.text
                return n

            done = await asyncio.gather(*(ask(n) for n in range(WRITERS)))
            assert sorted(done) == list(range(WRITERS))
            last = await client.post("/chat/run", json={"message": QUESTIONS[0], "session_id": session})
            assert last.status_code == 200

    store = ConversationStore.from_url(database_url)
    try:
        messages = await store.get_messages(uuid.UUID(session), include_archived=True)
        info = await store.get_thread(uuid.UUID(session))
    finally:
        await store.close()
    roles = [m.role for m in messages]
    assert roles == ["user", "assistant"] * (WRITERS + 1), roles
    questions = [m.content for m in messages if m.role == "user"]
    assert len(set(questions)) == WRITERS + 1  # each stored exactly once
    for question, answer in zip(messages[::2], messages[1::2], strict=True):
        assert question.prompt_id is not None
        assert answer.prompt_id == question.prompt_id, (question.content, answer.content)
    assert len({m.prompt_id for m in messages}) == WRITERS + 1
    assert info.turn_count == WRITERS + 1


async def test_a_full_queue_is_429_session_busy(tmp_path: Path) -> None:
    settings = make_settings(tmp_path, session_max_waiting=1)
    with LiveServer(create_app(settings, engine=make_engine(settings))) as live:
        async with httpx.AsyncClient(base_url=live.url, timeout=60) as client:
            session = str(uuid.uuid4())
            await client.post("/chat/run", json={"message": QUESTIONS[0], "session_id": session})
            responses = await asyncio.gather(
                *(
                    client.post("/chat/run", json={"message": f"{QUESTIONS[1]} #{n}", "session_id": session})
                    for n in range(12)
                )
            )
            history = await client.get(f"/session/{session}/history")
    statuses = [r.status_code for r in responses]
    assert set(statuses) == {200, 429}, statuses
    for r in responses:
        if r.status_code == 429:
            body = chat_error(r.json(), "RATE_LIMIT_EXCEEDED")
            assert body["details"]["code"] == "session_busy"
            assert r.headers["retry-after"] == "1"
    messages = history.json()["messages"]
    assert [m["role"] for m in messages] == ["user", "assistant"] * (1 + statuses.count(200))
    assert all(q["turn_id"] == a["turn_id"] for q, a in zip(messages[::2], messages[1::2], strict=True))
