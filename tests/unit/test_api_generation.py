"""Seed 004 routes through an in-process ASGI client: sessions, NDJSON deltas (checked against the
GenerationDelta rules), idempotency keys, cancel, errors and ownership."""

from __future__ import annotations

import asyncio
import uuid
from pathlib import Path
from typing import Any

import httpx
import pytest

from lectern.api import create_app
from lectern.store import PromptStatus
from tests.api_support import app_client, check_stream, client_for, make_engine, make_settings, ndjson
from tests.contracts import generation_error
from tests.fakes.slow_writer import FailingWriter, SlowWriter


@pytest.fixture
def settings(tmp_path: Path) -> Any:
    return make_settings(tmp_path)


async def new_session(client: httpx.AsyncClient, **body: Any) -> str:
    response = await client.post("/api/generation/session", json=body)
    assert response.status_code == 201, response.text
    session: str = response.json()["sessionId"]
    return session


async def test_session_example_replays(settings: Any) -> None:
    async with client_for(settings) as client:
        created = await client.post(
            "/api/generation/session",
            json={"owner": "internal-dev", "context": {"environment": "development"}},
        )
        bare = await client.post("/api/generation/session")
        bad = await client.post("/api/generation/session", json={"context": {"environment": 3}})
    assert created.status_code == 201
    assert set(created.json()) == {"sessionId"}
    assert uuid.UUID(created.json()["sessionId"])
    assert bare.status_code == 201
    assert bad.status_code == 400


async def test_stream_deltas_follow_the_contract(settings: Any) -> None:
    async with client_for(settings) as client:
        session = await new_session(client)
        response = await client.post(
            "/api/generation/stream",
            json={"sessionId": session, "prompt": "What are URDF joint types?", "topK": 10},
        )
    assert response.status_code == 200
    assert response.headers["content-type"] == "application/x-ndjson"
    deltas = ndjson(response.text)
    check_stream(deltas)
    assert deltas[-1]["type"] == "done"
    assert deltas[-1]["metadata"]["tokenCount"] == len(deltas) - 1
    assert deltas[-1]["metadata"]["finishReason"] == "stop"
    assert response.headers["x-prompt-id"] == deltas[0]["promptId"]
    assert "revolute" in "".join(d["text"] for d in deltas[:-1])


async def test_idempotent_stream_example_replays(settings: Any) -> None:
    # The contract's withIdempotency example (its repoUrl filter matches nothing here: a refusal).
    async with client_for(settings) as client:
        session = await new_session(client)
        body = {
            "sessionId": session,
            "prompt": "How does RAG work?",
            "idempotencyKey": "client-req-001",
            "topK": 5,
            "filters": {"repoUrl": "https://github.com/example/repo"},
        }
        response = await client.post("/api/generation/stream", json=body)
    assert response.status_code == 200
    deltas = ndjson(response.text)
    check_stream(deltas)
    assert deltas[-1]["type"] == "done"
    assert deltas[-1]["metadata"]["shouldAnswer"] is False


async def test_a_stream_is_a_turn_of_the_session(settings: Any) -> None:
    app = create_app(settings, engine=make_engine(settings))
    async with app_client(app) as client:
        session = await new_session(client)
        deltas = ndjson(
            (
                await client.post(
                    "/api/generation/stream", json={"sessionId": session, "prompt": "What is URDF?"}
                )
            ).text
        )
        store = app.state.services.store
        prompt = await store.get_prompt(uuid.UUID(deltas[0]["promptId"]))
        messages = await store.get_messages(uuid.UUID(session))
        stored = await store.get_deltas(prompt.prompt_id)
    assert prompt.status is PromptStatus.DONE
    assert prompt.token_count == len(deltas) - 1
    assert [(m.role, m.prompt_id) for m in messages] == [
        ("user", prompt.prompt_id),
        ("assistant", prompt.prompt_id),
    ]
    assert messages[1].content == "".join(d["text"] for d in deltas[:-1])
    assert len(stored) == len(deltas)


@pytest.mark.parametrize(
    ("body", "fragment"),
    [
        ({"prompt": ""}, "Prompt text cannot be empty"),
        ({"prompt": "   "}, "Prompt text cannot be empty"),
        ({"prompt": "What is URDF?", "topK": 0}, "TopK must be between 1 and 20"),
        ({"prompt": "What is URDF?", "topK": 21}, "TopK must be between 1 and 20"),
        ({"prompt": "What is URDF?", "sessionId": "nope"}, "sessionId"),
        ({"prompt": "What is URDF?", "sessionId": None}, "sessionId"),
    ],
)
async def test_invalid_prompts_are_400(settings: Any, body: dict[str, Any], fragment: str) -> None:
    async with client_for(settings) as client:
        session = await new_session(client)
        response = await client.post("/api/generation/stream", json={"sessionId": session, **body})
    assert response.status_code == 400, response.text
    generation_error(response.json(), "invalid_request")
    assert fragment in response.json()["message"]


async def test_unknown_session_is_404(settings: Any) -> None:
    async with client_for(settings) as client:
        response = await client.post(
            "/api/generation/stream", json={"sessionId": str(uuid.uuid4()), "prompt": "What is URDF?"}
        )
    assert response.status_code == 404
    generation_error(response.json(), "session_not_found")


async def test_a_repeated_key_replays_without_generating_again(tmp_path: Path) -> None:
    settings = make_settings(tmp_path)
    writer = SlowWriter(words=5, delay_s=0)
    async with client_for(settings, writer=writer) as client:
        session = await new_session(client)
        body = {
            "sessionId": session,
            "prompt": "What are URDF joint types?",
            "idempotencyKey": "client-req-001",
        }
        first = await client.post("/api/generation/stream", json=body)
        again = await client.post("/api/generation/stream", json=body)
        other = await client.post("/api/generation/stream", json={**body, "idempotencyKey": "client-req-002"})
    assert writer.calls == 2  # the repeat was replayed, the new key generated
    assert ndjson(again.text) == ndjson(first.text)
    assert again.headers["x-idempotent-replay"] == "true"
    assert ndjson(other.text)[0]["promptId"] != ndjson(first.text)[0]["promptId"]


async def test_a_duplicate_arriving_mid_stream_joins_the_running_generation(tmp_path: Path) -> None:
    settings = make_settings(tmp_path)
    writer = SlowWriter(words=20, delay_s=0.01)
    async with client_for(settings, writer=writer) as client:
        session = await new_session(client)
        body = {"sessionId": session, "prompt": "What is URDF?", "idempotencyKey": "same"}
        first, second, third = await asyncio.gather(
            *(client.post("/api/generation/stream", json=body) for _ in range(3))
        )
    assert writer.calls == 1
    streams = [ndjson(r.text) for r in (first, second, third)]
    for deltas in streams:
        check_stream(deltas)
    assert streams[0] == streams[1] == streams[2]


async def test_provider_failure_ends_with_an_error_delta(tmp_path: Path) -> None:
    settings = make_settings(tmp_path)
    app = create_app(settings, engine=make_engine(settings, FailingWriter(words_before=2)))
    async with app_client(app) as client:
        session = await new_session(client)
        deltas = ndjson(
            (
                await client.post(
                    "/api/generation/stream", json={"sessionId": session, "prompt": "What is URDF?"}
                )
            ).text
        )
        prompt = await app.state.services.store.get_prompt(uuid.UUID(deltas[0]["promptId"]))
    check_stream(deltas)
    assert deltas[-1]["type"] == "error"
    assert [d["text"] for d in deltas[-3:-1]] == ["partial0 ", "partial1 "]
    assert deltas[-1]["role"] == "system"
    assert deltas[-1]["metadata"]["code"] == "API_ERROR"
    assert prompt.status is PromptStatus.ERROR
    assert prompt.error_code == "API_ERROR"


async def test_cancel_stops_the_generation_and_keeps_the_partial_turn(tmp_path: Path) -> None:
    settings = make_settings(tmp_path)
    writer = SlowWriter(words=500, delay_s=0.02)
    app = create_app(settings, engine=make_engine(settings, writer))
    async with app_client(app) as client:
        session = await new_session(client)
        stream = asyncio.create_task(
            client.post("/api/generation/stream", json={"sessionId": session, "prompt": "What is URDF?"})
        )
        assert await asyncio.to_thread(writer.started.wait, 5.0)
        run = next(iter(app.state.services.generations))
        prompt_id = str(run.prompt_id)
        cancel = await client.post(
            "/api/generation/cancel", json={"sessionId": session, "promptId": prompt_id}
        )
        deltas = ndjson((await stream).text)
        await run.task  # the bookkeeping after the final delta
        again = await client.post(
            "/api/generation/cancel", json={"sessionId": session, "promptId": prompt_id}
        )
        store = app.state.services.store
        prompt = await store.get_prompt(uuid.UUID(prompt_id))
        messages = await store.get_messages(uuid.UUID(session))
    assert cancel.status_code == 204
    assert writer.cancelled.is_set()
    check_stream(deltas)
    assert deltas[-1]["type"] == "done"
    assert deltas[-1]["metadata"]["finishReason"] == "cancelled"
    assert len(deltas) < 100
    assert again.status_code == 409
    assert prompt.status is PromptStatus.CANCELLED
    partial = "".join(d["text"] for d in deltas if d["type"] == "token")
    assert [m.role for m in messages] == ["user", "assistant"]
    assert messages[1].content == partial


async def test_a_cancel_sent_to_another_process_stops_the_generation(tmp_path: Path) -> None:
    """Two apps on one database and no Redis (two workers): the cancel reaches the one that does not
    run the prompt, which records it; the owner notices it in the store and stops, storing what it
    streamed as a cancel of its own would."""
    settings = make_settings(tmp_path)
    writer = SlowWriter(words=500, delay_s=0.02)
    owner = create_app(settings, engine=make_engine(settings, writer))
    other = create_app(settings, engine=make_engine(settings, SlowWriter()))
    async with app_client(owner) as client, app_client(other) as elsewhere:
        session = await new_session(client)
        stream = asyncio.create_task(
            client.post("/api/generation/stream", json={"sessionId": session, "prompt": "What is URDF?"})
        )
        assert await asyncio.to_thread(writer.started.wait, 5.0)
        run = next(iter(owner.state.services.generations))
        prompt_id = str(run.prompt_id)
        cancel = await elsewhere.post(
            "/api/generation/cancel", json={"sessionId": session, "promptId": prompt_id}
        )
        deltas = ndjson((await asyncio.wait_for(stream, 2.0)).text)
        await run.task
        store = owner.state.services.store
        prompt = await store.get_prompt(uuid.UUID(prompt_id))
        stored = await store.get_deltas(uuid.UUID(prompt_id))
        messages = await store.get_messages(uuid.UUID(session))
    assert cancel.status_code == 204
    assert writer.cancelled.is_set()
    check_stream(deltas)
    assert deltas[-1]["metadata"]["finishReason"] == "cancelled"
    assert deltas[-1]["metadata"]["reason"] == "client_cancelled"
    assert prompt.status is PromptStatus.CANCELLED
    assert prompt.token_count == len(deltas) - 1
    assert [(d.seq, d.type, d.text) for d in stored] == [(d["seq"], d["type"], d.get("text")) for d in deltas]
    partial = "".join(d["text"] for d in deltas if d["type"] == "token")
    assert [m.role for m in messages] == ["user", "assistant"]
    assert messages[1].content == partial


async def test_cancel_errors(settings: Any) -> None:
    async with client_for(settings) as client:
        session = await new_session(client)
        done = ndjson(
            (
                await client.post(
                    "/api/generation/stream", json={"sessionId": session, "prompt": "What is URDF?"}
                )
            ).text
        )
        prompt_id = done[0]["promptId"]
        finished = await client.post(
            "/api/generation/cancel", json={"sessionId": session, "promptId": prompt_id}
        )
        unknown = await client.post(
            "/api/generation/cancel", json={"sessionId": session, "promptId": str(uuid.uuid4())}
        )
        wrong_session = await client.post(
            "/api/generation/cancel", json={"sessionId": str(uuid.uuid4()), "promptId": prompt_id}
        )
        malformed = await client.post(
            "/api/generation/cancel", json={"sessionId": session, "promptId": "abc-123"}
        )
    assert finished.status_code == 409
    generation_error(finished.json(), "prompt_finished")
    assert unknown.status_code == 404
    generation_error(unknown.json(), "prompt_not_found")
    assert wrong_session.status_code == 404
    generation_error(wrong_session.json())
    assert malformed.status_code == 400
    generation_error(malformed.json(), "invalid_request")


async def test_another_keys_session_and_prompt_are_404(tmp_path: Path) -> None:
    settings = make_settings(tmp_path, api_keys=["key-a", "key-b"])
    app = create_app(settings, engine=make_engine(settings))
    async with app_client(app) as client:
        a = {"X-API-Key": "key-a"}
        b = {"Authorization": "Bearer key-b"}
        session = (await client.post("/api/generation/session", json={}, headers=a)).json()["sessionId"]
        body = {"sessionId": session, "prompt": "What is URDF?"}
        deltas = ndjson((await client.post("/api/generation/stream", json=body, headers=a)).text)
        other_stream = await client.post("/api/generation/stream", json=body, headers=b)
        other_cancel = await client.post(
            "/api/generation/cancel",
            json={"sessionId": session, "promptId": deltas[0]["promptId"]},
            headers=b,
        )
    check_stream(deltas)
    assert other_stream.status_code == 404
    assert other_cancel.status_code == 404
