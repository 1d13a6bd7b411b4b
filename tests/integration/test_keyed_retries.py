"""Keyed prompts survive their client and their process (real uvicorn, real SQLite and PostgreSQL).

- A client that drops its connection mid-stream and retries with the same `idempotencyKey` gets the
  complete answer (the disconnect does not cancel a keyed prompt); an explicit cancel still cancels.
- A prompt left InFlight by a process that died (its lease lapsed) is recovered at start-up as Error
  `interrupted`, and a retry with its key runs it again: a complete answer within seconds.
- A replay is byte-identical to the first stream, on PostgreSQL too (no JSONB key reordering).
"""

from __future__ import annotations

import asyncio
import json
import time
import uuid
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import httpx
import pytest

from lectern.api import create_app, generations
from lectern.api.generations import LEASE_S
from lectern.settings import Settings
from lectern.store import ConversationStore, PromptStatus, upgrade_database
from tests.api_support import ON_TOPIC, LiveServer, check_stream, make_engine, make_settings, ndjson
from tests.fakes.slow_writer import SlowWriter

pytestmark = pytest.mark.integration


@pytest.fixture(params=["sqlite", "postgresql"])
def settings(request: pytest.FixtureRequest, tmp_path: Path) -> Settings:
    if request.param == "postgresql":
        url = request.getfixturevalue("postgres_url")
        return make_settings(tmp_path, database_url=url)
    return make_settings(tmp_path)


async def _session(client: httpx.AsyncClient) -> str:
    return str((await client.post("/api/generation/session", json={})).json()["sessionId"])


def _body(session: str, key: str) -> dict[str, Any]:
    return {"sessionId": session, "prompt": ON_TOPIC, "idempotencyKey": key}


async def test_a_dropped_client_retries_and_gets_the_whole_answer(settings: Settings) -> None:
    slow = SlowWriter(words=40, delay_s=0.02)
    with LiveServer(create_app(settings, engine=make_engine(settings, slow))) as live:
        async with httpx.AsyncClient(base_url=live.url, timeout=30) as client:
            session, key = await _session(client), f"k-{uuid.uuid4()}"
            request = client.build_request("POST", "/api/generation/stream", json=_body(session, key))
            first = await client.send(request, stream=True)
            lines = first.aiter_lines()
            seen = [json.loads(await anext(lines)) for _ in range(3)]
            await first.aclose()  # the connection drops mid-stream
            retry = await client.post("/api/generation/stream", json=_body(session, key))
            again = await client.post("/api/generation/stream", json=_body(session, key))
    deltas = ndjson(retry.text)
    check_stream(deltas)
    assert deltas[:3] == seen
    assert deltas[-1]["type"] == "done"
    assert deltas[-1]["metadata"]["finishReason"] == "stop"
    assert sum(d["type"] == "token" for d in deltas) >= 40
    assert not slow.cancelled.is_set()
    assert retry.headers["x-idempotent-replay"] == "true"
    assert again.content == retry.content  # a replay of the stored prompt: the same bytes


async def test_a_prompt_of_a_dead_process_is_recovered_and_run_again(settings: Settings) -> None:
    await upgrade_database(settings.effective_database_url)
    # The dead process: its prompt is InFlight with a lease that lapsed, and a few tokens stored.
    lapsed = datetime.now(UTC) - timedelta(seconds=LEASE_S * 3)
    old = ConversationStore.from_settings(settings, clock=lambda: lapsed)
    try:
        thread, _ = await old.get_or_create_thread()
        key = f"k-{uuid.uuid4()}"
        prompt, created = await old.create_prompt(thread.thread_id, ON_TOPIC, idempotency_key=key)
        assert created
    finally:
        await old.close()
    with LiveServer(create_app(settings, engine=make_engine(settings))) as live:
        store = ConversationStore.from_settings(settings)
        try:
            recovered = await store.get_prompt(prompt.prompt_id)
        finally:
            await store.close()
        assert recovered.status is PromptStatus.ERROR
        assert recovered.error_code == "interrupted"
        async with httpx.AsyncClient(base_url=live.url, timeout=30) as client:
            started = time.monotonic()
            retry = await client.post("/api/generation/stream", json=_body(str(thread.thread_id), key))
            elapsed = time.monotonic() - started
    deltas = ndjson(retry.text)
    check_stream(deltas)
    assert deltas[-1]["type"] == "done"
    assert retry.headers["x-prompt-id"] == str(prompt.prompt_id)
    assert elapsed < 5.0


async def test_a_dead_process_prompt_is_closed_while_the_service_runs(
    settings: Settings, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A replica that died and never came back leaves prompts nobody retries: the live ones close
    them (Error `interrupted`) once the lease has lapsed, without a restart."""
    monkeypatch.setattr(generations, "HEARTBEAT_S", 0.1)
    monkeypatch.setattr(generations, "SWEEP_S", 0.3)
    await upgrade_database(settings.effective_database_url)
    with LiveServer(create_app(settings, engine=make_engine(settings))):
        lapsed = datetime.now(UTC) - timedelta(seconds=LEASE_S * 3)
        dead = ConversationStore.from_settings(settings, clock=lambda: lapsed)
        store = ConversationStore.from_settings(settings)
        try:
            thread, _ = await dead.get_or_create_thread()
            prompt, _ = await dead.create_prompt(thread.thread_id, ON_TOPIC)  # after start-up
            fresh, _ = await store.create_prompt(thread.thread_id, ON_TOPIC)  # a live lease
            deadline = time.monotonic() + 10
            while (await store.get_prompt(prompt.prompt_id)).status is PromptStatus.IN_FLIGHT:
                assert time.monotonic() < deadline, "the lapsed prompt stayed InFlight"
                await asyncio.sleep(0.1)
            closed = await store.get_prompt(prompt.prompt_id)
            assert closed.status is PromptStatus.ERROR
            assert closed.error_code == "interrupted"
            assert (await store.get_prompt(fresh.prompt_id)).status is PromptStatus.IN_FLIGHT
        finally:
            await dead.close()
            await store.close()
