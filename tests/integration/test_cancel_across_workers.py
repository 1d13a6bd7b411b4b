"""A cancel sent to the process that does not run the prompt, without Redis: two real server processes
on one database (an SQLite file, or PostgreSQL) and data directory (what ``lectern serve --workers 2``
runs, with the choice of which process gets which request). The process running the generation learns
of the cancel through the store and stops it within the contract's 200 ms, aborting the request to the
LLM provider; the stored outcome is the one a local cancel gives."""

from __future__ import annotations

import asyncio
import json
import time
import uuid
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest

from lectern.store import ConversationStore, PromptStatus
from tests.api_support import ON_TOPIC, check_stream
from tests.fakes.openai_chat_server import FakeChatServer, Reply
from tests.integration.test_kill_mid_generation import Server, started

pytestmark = pytest.mark.integration

CANCEL_BUDGET_S = 0.2
# Sentences that hold up against passage [1]: the stream releases each one once verified, so tokens
# flow while the provider is still sending (for about 15 s, unless it is cancelled).
ANSWER = "ROS 2 nodes communicate by publishing messages on topics [1]. " * 60


@pytest.fixture
def llm() -> Iterator[FakeChatServer]:
    with FakeChatServer([Reply(text=ANSWER, chunk_delay_s=0.05)]) as server:
        server.props = {"chat_template_caps": {"supports_tools": False, "supports_tool_calls": False}}
        yield server


@pytest.fixture(params=["sqlite", "postgresql"])
def database(request: pytest.FixtureRequest, tmp_path: Path) -> str:
    if request.param == "postgresql":
        return str(request.getfixturevalue("postgres_url"))
    return f"sqlite+aiosqlite:///{tmp_path / 'lectern.sqlite3'}"


@pytest.fixture
def workers(tmp_path: Path, database: str, llm: FakeChatServer) -> Iterator[tuple[Server, Server]]:
    first, second = (Server(tmp_path, database, writer=("llm", llm.base_url)) for _ in range(2))
    with started(first, second):
        yield first, second


async def stored(database: str, prompt_id: str) -> tuple[PromptStatus, int, list[dict[str, object]]]:
    store = ConversationStore.from_url(database)
    try:
        deadline = time.monotonic() + 5
        while True:
            prompt = await store.get_prompt(uuid.UUID(prompt_id))
            if prompt.delta_count or time.monotonic() > deadline:  # the owner's deltas are in
                break
            await asyncio.sleep(0.02)
        deltas = await store.get_deltas(prompt.prompt_id)
        wire = [{"type": d.type, "seq": d.seq, "text": d.text, "metadata": d.metadata} for d in deltas]
        return prompt.status, prompt.token_count, wire
    finally:
        await store.close()


async def stream_then_cancel_elsewhere(
    owner: str, other: str
) -> tuple[str, int, list[dict[str, object]], float]:
    async with httpx.AsyncClient(timeout=30) as client:
        session = (await client.post(f"{owner}/api/generation/session", json={})).json()["sessionId"]
        body = {"sessionId": session, "prompt": ON_TOPIC}
        async with client.stream("POST", f"{owner}/api/generation/stream", json=body) as response:
            assert response.status_code == 200
            prompt_id = response.headers["x-prompt-id"]
            lines = response.aiter_lines()
            deltas = [json.loads(await anext(lines)) for _ in range(3)]
            assert all(d["type"] == "token" for d in deltas)
            started = time.perf_counter()
            cancel = await client.post(
                f"{other}/api/generation/cancel", json={"sessionId": session, "promptId": prompt_id}
            )
            async for line in lines:
                deltas.append(json.loads(line))
            elapsed = time.perf_counter() - started
    return prompt_id, cancel.status_code, deltas, elapsed


def test_a_cancel_sent_to_the_other_process_stops_the_generation(
    workers: tuple[Server, Server], database: str, llm: FakeChatServer
) -> None:
    owner, other = workers
    started = time.monotonic()
    prompt_id, status, deltas, elapsed = asyncio.run(stream_then_cancel_elsewhere(owner.url, other.url))
    assert status == 204
    check_stream(deltas)
    final = deltas[-1]
    assert final["type"] == "done"
    assert final["metadata"]["finishReason"] == "cancelled", final
    assert final["metadata"]["reason"] == "client_cancelled"
    assert elapsed < CANCEL_BUDGET_S, f"the stream ended {elapsed * 1000:.0f} ms after the cancel"
    # The provider's request was aborted: it never finished sending.
    assert llm.wait_for_disconnect(2.0), "the request to the provider was not aborted"
    assert llm.completed == []
    assert llm.disconnects[0].at - started < 20
    # Stored as the owner streamed it: every delta once, one final delta, the token count.
    status_, tokens, rows = asyncio.run(stored(database, prompt_id))
    assert status_ is PromptStatus.CANCELLED
    assert tokens == len(deltas) - 1
    assert [(r["type"], r["seq"], r["text"]) for r in rows] == [
        (d["type"], d["seq"], d.get("text")) for d in deltas
    ]
    assert rows[-1]["metadata"] == final["metadata"]
