"""Every face's wire shapes on a real uvicorn, checked with jsonschema against the contracts' schemas:
responses, SSE events (read with an SSE client library, as EventSource would), NDJSON deltas, and the
error body of every route in its family's shape."""

from __future__ import annotations

import json
import uuid
from collections.abc import Iterator
from typing import Any

import httpx
import pytest
from httpx_sse import aconnect_sse

from lectern.api import create_app
from lectern.settings import Settings
from tests.api_support import ON_TOPIC, LiveServer, make_engine, make_settings, ndjson
from tests.contracts import chat_error, check, generation_error

pytestmark = pytest.mark.integration

KEY = "contract-key-0123456789abcdef"
AUTH = {"Authorization": f"Bearer {KEY}"}


@pytest.fixture(scope="module")
def settings(tmp_path_factory: pytest.TempPathFactory) -> Settings:
    return make_settings(tmp_path_factory.mktemp("contracts"), api_keys=[KEY], max_body_bytes=4096)


@pytest.fixture(scope="module")
def server(settings: Settings) -> Iterator[LiveServer]:
    with LiveServer(create_app(settings, engine=make_engine(settings))) as live:
        yield live


async def test_chat_stream_is_read_by_an_sse_client_as_unnamed_messages(server: LiveServer) -> None:
    async with (
        httpx.AsyncClient(base_url=server.url, headers=AUTH, timeout=30) as client,
        aconnect_sse(client, "POST", "/chat/stream", json={"message": ON_TOPIC}) as source,
    ):
        events = [sse async for sse in source.aiter_sse()]
    assert events
    assert all(e.event == "message" for e in events)  # what EventSource.onmessage receives
    assert [e.id for e in events] == [str(n) for n in range(len(events))]
    data = [json.loads(e.data) for e in events]
    assert {d["type"] for d in data[:-1]} == {"token"}
    assert data[-1]["type"] == "done"
    check("chat", "ChatResponse", data[-1]["metadata"])
    assert "".join(d["content"] for d in data[:-1]) == data[-1]["metadata"]["response"]


async def test_success_bodies_follow_the_contracts(server: LiveServer) -> None:
    async with httpx.AsyncClient(base_url=server.url, headers=AUTH, timeout=30) as client:
        run = await client.post("/chat/run", json={"message": ON_TOPIC, "top_k": 5})
        check("chat", "ChatResponse", run.json())
        history = await client.get(f"/session/{run.json()['session_id']}/history")
        check("chat", "ConversationThread", history.json())
        session = await client.post("/api/generation/session", json={"owner": "ci"})
        assert session.status_code == 201
        check("generation", "SessionResponse", session.json())
        stream = await client.post(
            "/api/generation/stream", json={"sessionId": session.json()["sessionId"], "prompt": ON_TOPIC}
        )
        deltas = ndjson(stream.text)
        for delta in deltas:
            check("delta", "", delta)
            check("generation", "GenerationDelta", delta)


def _bad_requests() -> list[tuple[str, str, dict[str, Any], str]]:
    """(method, path, request kwargs, family) for a failure of every route."""
    sid = str(uuid.uuid4())
    return [
        ("POST", "/chat/run", {"json": {"message": ""}}, "chat"),
        (
            "POST",
            "/chat/run",
            {"content": b"{not json", "headers": {"content-type": "application/json"}},
            "chat",
        ),
        ("POST", "/chat/run", {"json": {"message": "x", "top_k": 99}}, "chat"),
        ("POST", "/chat/run", {"json": {"message": "x" * 5000}}, "chat"),
        ("POST", "/chat/stream", {"json": {"message": "hi", "session_id": "nope"}}, "chat"),
        ("GET", f"/session/{sid}/history", {}, "chat"),
        ("GET", "/session/not-a-uuid/history", {}, "chat"),
        ("DELETE", f"/session/{sid}", {}, "chat"),
        ("GET", "/no/such/path", {}, "chat"),
        ("POST", "/api/generation/session", {"json": {"context": {"a": 3}}}, "generation"),
        ("POST", "/api/generation/stream", {"json": {"sessionId": sid, "prompt": "x"}}, "generation"),
        ("POST", "/api/generation/stream", {"json": {"sessionId": sid, "prompt": ""}}, "generation"),
        (
            "POST",
            "/api/generation/cancel",
            {"json": {"sessionId": sid, "promptId": str(uuid.uuid4())}},
            "generation",
        ),
        ("POST", "/api/generation/cancel", {"json": {"sessionId": sid}}, "generation"),
    ]


@pytest.mark.parametrize(("method", "path", "kwargs", "family"), _bad_requests())
async def test_every_route_fails_in_its_contract_shape(
    server: LiveServer, method: str, path: str, kwargs: dict[str, Any], family: str
) -> None:
    async with httpx.AsyncClient(base_url=server.url, timeout=30) as client:
        for headers in (AUTH, {}):  # the route's own error, then the key guard's
            extra = {k: v for k, v in kwargs.items() if k != "headers"}
            merged = {**headers, **kwargs.get("headers", {})}
            response = await client.request(method, path, **extra, headers=merged)
            assert 400 <= response.status_code < 500, response.text
            assert response.headers["content-type"].startswith("application/json")
            body = response.json()
            if family == "chat":
                chat_error(body)
            else:
                generation_error(body)


async def test_mcp_transport_errors_are_json(server: LiveServer) -> None:
    async with httpx.AsyncClient(base_url=server.url, timeout=30) as client:
        for headers in (AUTH, {}, {**AUTH, "Accept": "text/html"}):
            response = await client.post(
                "/mcp", content=b"{}", headers={**headers, "content-type": "application/json"}
            )
            assert response.status_code >= 400
            assert response.headers["content-type"].startswith("application/json"), response.text
            body = response.json()
            assert body.get("jsonrpc") == "2.0" or "error" in body, body


@pytest.mark.parametrize("text", ["a\\u0000b", "\\ud800", "x\\udfff y"])
async def test_nul_and_lone_surrogates_are_400_never_500(server: LiveServer, text: str) -> None:
    sid = str(uuid.uuid4())
    async with httpx.AsyncClient(base_url=server.url, headers=AUTH, timeout=30) as client:
        session = (await client.post("/api/generation/session", json={})).json()["sessionId"]
        cases = [
            ("/chat/run", f'{{"message": "{text}"}}', "chat"),
            (
                "/chat/stream",
                f'{{"message": "hi", "session_id": "{sid}", "stream": true, "x": "{text}"}}',
                "chat",
            ),
            ("/api/generation/stream", f'{{"sessionId": "{session}", "prompt": "{text}"}}', "generation"),
            (
                "/v1/chat/completions",
                f'{{"model": "lectern", "messages": [{{"role": "user", "content": "{text}"}}]}}',
                "openai",
            ),
        ]
        for path, raw, family in cases:
            response = await client.post(
                path, content=raw.encode(), headers={"content-type": "application/json"}
            )
            assert response.status_code == 400, (path, response.text)
            if family == "chat":
                chat_error(response.json(), "VALIDATION_ERROR")
            elif family == "generation":
                generation_error(response.json(), "invalid_request")
            else:
                assert response.json()["error"]["type"] == "invalid_request_error"
