"""The HTTP service under a real uvicorn on loopback: streaming, cancel timing (< 200 ms), a client that
disconnects, and a cancel that aborts the in-flight request to an LLM provider."""

from __future__ import annotations

import asyncio
import json
import time
import uuid
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest

from lectern.api import create_app
from lectern.engine import Engine
from lectern.settings import Settings
from lectern.store import ConversationStore, PromptStatus
from tests.api_support import ON_TOPIC, LiveServer, check_stream, make_engine, make_settings, parse_sse
from tests.fakes.openai_chat_server import FakeChatServer, Reply
from tests.fakes.slow_writer import SlowWriter

pytestmark = pytest.mark.integration

CANCEL_BUDGET_S = 0.2


@pytest.fixture
def settings(tmp_path: Path) -> Settings:
    return make_settings(tmp_path)


def serve(settings: Settings, engine: Engine) -> LiveServer:
    return LiveServer(create_app(settings, engine=engine))


@pytest.fixture
def slow() -> SlowWriter:
    return SlowWriter(words=400, delay_s=0.05)


@pytest.fixture
def server(settings: Settings, slow: SlowWriter) -> Iterator[LiveServer]:
    with serve(settings, make_engine(settings, slow)) as live:
        yield live


async def open_prompt(client: httpx.AsyncClient, session: str | None = None) -> tuple[str, httpx.Response]:
    if session is None:
        session = (await client.post("/api/generation/session", json={})).json()["sessionId"]
    request = client.build_request(
        "POST", "/api/generation/stream", json={"sessionId": session, "prompt": ON_TOPIC}
    )
    response = await client.send(request, stream=True)
    assert response.status_code == 200
    return session, response


async def prompt_status(settings: Settings, prompt_id: str, timeout_s: float = 5.0) -> Any:
    """The stored prompt once it has left InFlight (its bookkeeping follows the final delta)."""
    store = ConversationStore.from_settings(settings)
    try:
        deadline = time.monotonic() + timeout_s
        while True:
            prompt = await store.get_prompt(uuid.UUID(prompt_id))
            if prompt.status is not PromptStatus.IN_FLIGHT or time.monotonic() > deadline:
                messages = await store.get_messages(prompt.thread_id)
                return prompt, messages
            await asyncio.sleep(0.02)
    finally:
        await store.close()


async def test_sse_stream_over_a_real_server(settings: Settings) -> None:
    with serve(settings, make_engine(settings)) as live:
        async with httpx.AsyncClient(base_url=live.url) as client:
            started = time.perf_counter()
            first_token_s = None
            chunks = []
            async with client.stream("POST", "/chat/stream", json={"message": ON_TOPIC}) as response:
                assert response.status_code == 200
                async for text in response.aiter_text():
                    if first_token_s is None and '"type": "token"' in text:
                        first_token_s = time.perf_counter() - started
                    chunks.append(text)
    events = parse_sse("".join(chunks))
    assert events[-1][0] == "done"
    assert first_token_s is not None
    assert first_token_s < 1.0


async def test_cancel_ends_the_stream_within_200_ms(
    server: LiveServer, slow: SlowWriter, settings: Settings
) -> None:
    async with httpx.AsyncClient(base_url=server.url) as client:
        session, response = await open_prompt(client)
        prompt_id = response.headers["x-prompt-id"]
        lines = response.aiter_lines()
        deltas = [json.loads(await anext(lines)) for _ in range(3)]
        started = time.perf_counter()
        cancel = await client.post(
            "/api/generation/cancel", json={"sessionId": session, "promptId": prompt_id}
        )
        async for line in lines:
            deltas.append(json.loads(line))
        elapsed = time.perf_counter() - started
        await response.aclose()
    assert cancel.status_code == 204
    assert elapsed < CANCEL_BUDGET_S, f"cancel took {elapsed * 1000:.0f} ms"
    assert slow.cancelled.is_set()
    assert slow.cancelled_at is not None
    assert slow.cancelled_at - started < CANCEL_BUDGET_S
    check_stream(deltas)
    assert deltas[-1]["metadata"]["finishReason"] == "cancelled"
    prompt, messages = await prompt_status(settings, prompt_id)
    assert prompt.status is PromptStatus.CANCELLED
    assert messages[-1].role == "assistant"
    assert messages[-1].content == "".join(d["text"] for d in deltas if d["type"] == "token")


async def test_a_client_that_disconnects_cancels(
    server: LiveServer, slow: SlowWriter, settings: Settings
) -> None:
    async with httpx.AsyncClient(base_url=server.url) as client:
        _, response = await open_prompt(client)
        prompt_id = response.headers["x-prompt-id"]
        lines = response.aiter_lines()
        await anext(lines)
        started = time.perf_counter()
        await response.aclose()  # the client goes away mid-stream
    assert await asyncio.to_thread(slow.cancelled.wait, 2.0), "the generation kept running"
    assert slow.cancelled_at is not None
    assert slow.cancelled_at - started < 1.0
    prompt, _ = await prompt_status(settings, prompt_id)
    assert prompt.status is PromptStatus.CANCELLED


async def test_sse_client_disconnect_stops_the_writer(server: LiveServer, slow: SlowWriter) -> None:
    async with httpx.AsyncClient(base_url=server.url) as client:
        request = client.build_request("POST", "/chat/stream", json={"message": ON_TOPIC})
        response = await client.send(request, stream=True)
        async for text in response.aiter_text():
            if '"type": "token"' in text:
                break
        await response.aclose()
    assert await asyncio.to_thread(slow.cancelled.wait, 2.0)


async def test_an_answer_done_as_the_client_leaves_is_stored_and_unlocks(settings: Settings) -> None:
    app = create_app(settings, engine=make_engine(settings))
    with LiveServer(app) as live:
        turns = app.state.services.turns
        store_answer = turns.complete

        async def slow_complete(*args: Any, **kwargs: Any) -> None:
            await asyncio.sleep(0.3)  # the client is gone by the time the answer is written
            await store_answer(*args, **kwargs)

        turns.complete = slow_complete  # type: ignore[method-assign]
        session = str(uuid.uuid4())
        async with httpx.AsyncClient(base_url=live.url) as client:
            request = client.build_request(
                "POST", "/chat/stream", json={"message": ON_TOPIC, "session_id": session}
            )
            response = await client.send(request, stream=True)
            async for text in response.aiter_text():
                if '"type": "token"' in text:
                    break
            await response.aclose()
        await asyncio.sleep(0.6)
        # A second writer (as another worker would be) is not kept waiting by a half-done transaction.
        store = ConversationStore.from_url(settings.effective_database_url, busy_timeout_ms=1000)
        try:
            await asyncio.wait_for(store.get_or_create_thread(uuid.uuid4()), 2.0)
            messages = await store.get_messages(uuid.UUID(session))
        finally:
            await store.close()
    assert [m.role for m in messages] == ["user", "assistant"]


async def test_cancel_aborts_the_request_to_the_llm_provider(tmp_path: Path) -> None:
    # Sentences that hold up against passage [1] (the topics section): the stream releases each one
    # once verified, so tokens flow while the provider is still sending.
    answer = "ROS 2 nodes communicate by publishing messages on topics [1]. " * 60
    with FakeChatServer([Reply(text=answer, chunk_delay_s=0.05)]) as llm:
        llm.props = {"chat_template_caps": {"supports_tools": False, "supports_tool_calls": False}}
        settings = make_settings(
            tmp_path,
            llm_provider="openai",
            llm_base_url=llm.base_url,
            llm_api_key="test",
            llm_model="fake-model",
        )
        from lectern.writers import create_writer

        engine = make_engine(settings, create_writer(settings))
        with serve(settings, engine) as live:
            async with httpx.AsyncClient(base_url=live.url) as client:
                session, response = await open_prompt(client)
                prompt_id = response.headers["x-prompt-id"]
                lines = response.aiter_lines()
                deltas = [json.loads(await anext(lines)) for _ in range(3)]
                assert all(d["type"] == "token" for d in deltas)
                started, started_mono = time.perf_counter(), time.monotonic()
                cancel = await client.post(
                    "/api/generation/cancel", json={"sessionId": session, "promptId": prompt_id}
                )
                async for line in lines:
                    deltas.append(json.loads(line))
                elapsed = time.perf_counter() - started
                await response.aclose()
            provider_closed = await asyncio.to_thread(llm.wait_for_disconnect, 2.0)
            closed_after = llm.disconnects[0].at - started_mono if llm.disconnects else None
    assert cancel.status_code == 204
    assert elapsed < CANCEL_BUDGET_S, f"cancel took {elapsed * 1000:.0f} ms"
    check_stream(deltas)
    assert deltas[-1]["metadata"]["finishReason"] == "cancelled"
    assert provider_closed, "the request to the provider was not aborted"
    assert llm.completed == []  # the provider never finished sending
    assert closed_after is not None
    assert closed_after < CANCEL_BUDGET_S
