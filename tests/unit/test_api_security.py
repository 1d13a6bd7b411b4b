"""Keys, ownership, rate limits, body limits, CORS, request ids, the last-resort 500, and logs."""

from __future__ import annotations

import json
import logging
import uuid
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import httpx
import pytest
from pydantic import SecretStr

from lectern.api import create_app
from lectern.api.auth import ApiKeys, key_hash, key_id
from lectern.api.logs import JsonFormatter
from lectern.errors import ConfigError
from tests.api_support import (
    ON_TOPIC,
    UUID_RE,
    app_client,
    clear_of_window_edge,
    client_for,
    make_engine,
    make_settings,
)
from tests.contracts import chat_error, generation_error

KEY_A = "sk-test-key-a-0123456789"
KEY_B = "sk-test-key-b-9876543210"


async def test_keys_are_required_everywhere_but_health_and_the_browser_pages(tmp_path: Path) -> None:
    settings = make_settings(tmp_path, api_keys=[KEY_A])
    async with client_for(settings) as client:
        health = await client.get("/health")
        missing = await client.post("/chat/run", json={"message": ON_TOPIC})
        wrong = await client.post("/chat/run", json={"message": ON_TOPIC}, headers={"X-API-Key": "nope"})
        bad_scheme = await client.get("/ready", headers={"Authorization": f"Basic {KEY_A}"})
        ready = await client.get("/ready")
        spec = await client.get("/openapi.json")
        pages = [await client.get(p) for p in ("/", "/widget.js", "/docs", "/docs/assets/swagger-ui.css")]
        report = await client.get("/report")
        by_header = await client.post("/chat/run", json={"message": ON_TOPIC}, headers={"X-API-Key": KEY_A})
        by_bearer = await client.get("/ready", headers={"Authorization": f"Bearer {KEY_A}"})
    assert health.status_code == 200
    # What a browser loads without a key: the pages, the widget, the API reference and its spec.
    assert [r.status_code for r in [spec, *pages]] == [200] * 5
    for denied in (missing, wrong, bad_scheme, ready, report):
        assert denied.status_code == 401
        chat_error(denied.json(), "AUTHENTICATION_ERROR")
        assert denied.headers["www-authenticate"] == "Bearer"
    assert by_header.status_code == 200
    assert by_bearer.status_code == 200


async def test_threads_belong_to_the_key_that_made_them(tmp_path: Path) -> None:
    settings = make_settings(tmp_path, api_keys=[KEY_A, KEY_B])
    async with client_for(settings) as client:
        a, b = {"X-API-Key": KEY_A}, {"X-API-Key": KEY_B}
        session = (await client.post("/chat/run", json={"message": ON_TOPIC}, headers=a)).json()["session_id"]
        history_b = await client.get(f"/session/{session}/history", headers=b)
        ask_b = await client.post("/chat/run", json={"message": ON_TOPIC, "session_id": session}, headers=b)
        stream_b = await client.post(
            "/chat/stream", json={"message": ON_TOPIC, "session_id": session}, headers=b
        )
        delete_b = await client.delete(f"/session/{session}", headers=b)
        history_a = await client.get(f"/session/{session}/history", headers=a)
    for denied in (history_b, ask_b, stream_b, delete_b):
        assert denied.status_code == 404, denied.text
    assert history_a.status_code == 200
    assert len(history_a.json()["messages"]) == 2


def test_keys_are_kept_as_hashes_and_compared_by_hash() -> None:
    keys = ApiKeys([KEY_A, KEY_B])
    assert keys.identify(KEY_A) == key_id(key_hash(KEY_A))
    assert keys.identify(KEY_B) != keys.identify(KEY_A)
    assert keys.identify("sk-test-key-a") is None
    assert KEY_A not in repr(vars(keys))
    assert not ApiKeys([]).enabled


async def test_rate_limit_per_key_with_retry_after(tmp_path: Path) -> None:
    settings = make_settings(tmp_path, api_keys=[KEY_A, KEY_B], rate_limit="3/minute")
    await clear_of_window_edge()
    async with client_for(settings) as client:
        a, b = {"X-API-Key": KEY_A}, {"X-API-Key": KEY_B}
        statuses = [(await client.get("/v1/models", headers=a)).status_code for _ in range(3)]
        limited = await client.get("/v1/models", headers=a)
        other_key = await client.get("/v1/models", headers=b)
        health = [(await client.get("/health")).status_code for _ in range(10)]
        # a balancer's probes are never throttled
        probes = [(await client.get("/ready", headers=a)).status_code for _ in range(5)]
    assert statuses == [200, 200, 200]
    assert limited.status_code == 429
    assert limited.json()["error"]["code"] == "rate_limit_exceeded"  # /v1 answers in OpenAI's shape
    assert 1 <= int(limited.headers["retry-after"]) <= 60
    assert limited.headers["x-ratelimit-limit"] == "3"
    assert limited.headers["x-ratelimit-remaining"] == "0"
    assert other_key.status_code == 200
    assert set(health) == {200}
    assert set(probes) == {200}


async def test_failed_authentication_is_rate_limited_per_client_address(tmp_path: Path) -> None:
    """A key guesser gets 401s up to LECTERN_AUTH_FAILURE_LIMIT, then 429s even for a right key (so the
    answer tells nothing), while another address and the key's own budget are untouched."""
    settings = make_settings(tmp_path, api_keys=[KEY_A], auth_failure_limit="5/minute")
    await clear_of_window_edge()
    app = create_app(settings, engine=make_engine(settings))
    async with app_client(app) as client:
        guesses = []
        for n in range(5):
            guesses.append((await client.get("/v1/models", headers={"X-API-Key": f"k{n}"})).status_code)
        missing = await client.post("/chat/run", json={"message": ON_TOPIC})
        right_key = await client.post("/chat/run", json={"message": ON_TOPIC}, headers={"X-API-Key": KEY_A})
    assert guesses == [401] * 5
    for limited in (missing, right_key):
        assert limited.status_code == 429, limited.text
        chat_error(limited.json(), "RATE_LIMIT_EXCEEDED")
        assert 1 <= int(limited.headers["retry-after"]) <= 60
    # Another client address has its own budget (the ASGI scope's client is the address).
    transport = httpx.ASGITransport(app=app, client=("192.0.2.7", 4000))
    async with (
        app.router.lifespan_context(app),
        httpx.AsyncClient(transport=transport, base_url="http://testserver") as other,
    ):
        ok = await other.post("/chat/run", json={"message": ON_TOPIC}, headers={"X-API-Key": KEY_A})
    assert ok.status_code == 200, ok.text


def test_a_bad_rate_string_fails_at_start(tmp_path: Path) -> None:
    with pytest.raises(ConfigError, match="LECTERN_RATE_LIMIT"):
        create_app(make_settings(tmp_path, rate_limit="lots"))


async def test_bodies_over_the_limit_are_413(tmp_path: Path) -> None:
    # Acceptance: a request over the size limit (here 10 KB) is refused with 413 and the limit named.
    settings = make_settings(tmp_path, max_body_bytes=10 * 1024)
    big = json.dumps({"message": "x" * 11_000}).encode()

    async def chunks() -> AsyncIterator[bytes]:
        for i in range(0, len(big), 1024):
            yield big[i : i + 1024]

    async with client_for(settings) as client:
        by_length = await client.post("/chat/run", content=big, headers={"content-type": "application/json"})
        chunked = await client.post(
            "/chat/run", content=chunks(), headers={"content-type": "application/json"}
        )
        generation = await client.post("/api/generation/stream", content=big)
        fine = await client.post("/chat/run", json={"message": "What is URDF?"})
    for refused in (by_length, chunked, generation):
        assert refused.status_code == 413
        assert "10240" in refused.json()["message"]
    chat_error(by_length.json(), "PAYLOAD_TOO_LARGE")
    chat_error(chunked.json(), "PAYLOAD_TOO_LARGE")
    generation_error(generation.json(), "payload_too_large")
    assert "content-length" not in chunked.request.headers
    assert fine.status_code == 200


async def test_cors_allows_only_configured_origins(tmp_path: Path) -> None:
    settings = make_settings(tmp_path, cors_origins=["https://book.example.com"], api_keys=[KEY_A])
    preflight = {
        "Access-Control-Request-Method": "POST",
        "Access-Control-Request-Headers": "content-type,x-api-key",
    }
    async with client_for(settings) as client:
        allowed = await client.options(
            "/chat/run", headers={"Origin": "https://book.example.com", **preflight}
        )
        denied = await client.options(
            "/chat/run", headers={"Origin": "https://evil.example.com", **preflight}
        )
        actual = await client.post(
            "/chat/run",
            json={"message": ON_TOPIC},
            headers={"Origin": "https://book.example.com", "X-API-Key": KEY_A},
        )
    assert allowed.status_code == 200
    assert allowed.headers["access-control-allow-origin"] == "https://book.example.com"
    assert "access-control-allow-origin" not in denied.headers
    assert actual.headers["access-control-allow-origin"] == "https://book.example.com"
    assert "x-request-id" in actual.headers["access-control-expose-headers"].lower()


async def test_request_ids_are_echoed_or_made(tmp_path: Path) -> None:
    async with client_for(make_settings(tmp_path)) as client:
        given = await client.get("/health", headers={"X-Request-ID": "trace-123"})
        made = await client.get("/health")
        junk = await client.get("/health", headers={"X-Request-ID": "bad id\r" * 20})
        long = await client.get("/health", headers={"X-Request-ID": "x" * 65})
    assert given.headers["x-request-id"] == "trace-123"
    assert UUID_RE.match(made.headers["x-request-id"])  # the contract's request_id is a UUID
    assert UUID_RE.match(junk.headers["x-request-id"])
    assert UUID_RE.match(long.headers["x-request-id"])


async def test_an_unexpected_error_is_a_500_without_internals(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    settings = make_settings(tmp_path)
    app = create_app(settings, engine=make_engine(settings))
    async with app_client(app) as client:
        store = app.state.services.store

        async def explode(*args: Any, **kwargs: Any) -> Any:
            raise RuntimeError("secret dsn postgresql://admin:hunter2@db/prod")

        store.get_thread = explode
        with caplog.at_level(logging.ERROR, logger="lectern"):
            response = await client.get(
                f"/session/{uuid.uuid4()}/history", headers={"X-Request-ID": "req-500"}
            )
    assert response.status_code == 500
    body = response.json()
    chat_error(body, "INTERNAL_SERVER_ERROR")
    assert body["details"]["request_id"] == "req-500"  # not a UUID: kept, outside `request_id`
    assert "hunter2" not in response.text
    assert "Traceback" not in response.text
    logged = [JsonFormatter().format(r) for r in caplog.records if r.exc_info]
    assert logged
    assert all('"request_id": "req-500"' in line for line in logged)
    assert "Traceback" in logged[0]  # the stack trace goes to the server log only


async def test_logs_are_json_with_seed_002_events_and_stored(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    settings = make_settings(tmp_path, api_keys=[KEY_A])
    app = create_app(settings, engine=make_engine(settings))
    with caplog.at_level(logging.INFO, logger="lectern"):
        async with app_client(app, **{"X-API-Key": KEY_A}) as client:
            session = (await client.post("/chat/run", json={"message": ON_TOPIC})).json()["session_id"]
            services = app.state.services
            await services.sink.flush()
            stored = await services.store.list_log_events(thread_id=uuid.UUID(session))
    lines = [json.loads(JsonFormatter().format(r)) for r in caplog.records]
    events = [line for line in lines if line.get("event_type")]
    kinds = [e["event_type"] for e in events]
    for kind in ("query_received", "embedding_generated", "retrieval_performed", "response_sent"):
        assert kind in kinds
        assert kind in [e.event_type for e in stored]
    key = key_id(key_hash(KEY_A))
    assert all(e["key_id"] == key and e["request_id"] and e["thread_id"] == session for e in events)
    assert "duration_ms" in next(e for e in events if e["event_type"] == "response_sent")
    assert all(KEY_A not in json.dumps(line) for line in lines)
    assert all(e.details.get("key_id") == key for e in stored)
    access = [line for line in lines if line["event"] == "request"]
    assert access
    assert {"method", "path", "status", "duration_ms"} <= set(access[0])


async def test_publishable_keys_ask_only_from_their_origins(tmp_path: Path) -> None:
    from lectern.settings import PublishableKey

    site = "https://docs.example.com"
    settings = make_settings(
        tmp_path,
        api_keys=[KEY_A],
        publishable_keys=[PublishableKey(key=SecretStr("pk_public"), origins=[site])],
        publishable_rate_limit="2/minute",
    )
    pk = {"X-API-Key": "pk_public"}
    await clear_of_window_edge()
    async with client_for(settings) as client:
        allowed = await client.post("/chat/run", json={"message": ON_TOPIC}, headers={**pk, "Origin": site})
        other = await client.post(
            "/chat/run", json={"message": ON_TOPIC}, headers={**pk, "Origin": "https://evil.example"}
        )
        no_origin = await client.post("/chat/run", json={"message": ON_TOPIC}, headers=pk)
        ready = await client.get("/ready", headers={**pk, "Origin": site})
        limited = await client.post("/chat/run", json={"message": ON_TOPIC}, headers={**pk, "Origin": site})
        over = await client.post("/chat/run", json={"message": ON_TOPIC}, headers={**pk, "Origin": site})
        secret = await client.post("/chat/run", json={"message": ON_TOPIC}, headers={"X-API-Key": KEY_A})
    assert allowed.status_code == 200
    assert allowed.headers["access-control-allow-origin"] == site
    for refused in (other, no_origin, ready):
        assert refused.status_code == 403
        error = refused.json()["error"]  # each route answers in its own family's shape
        assert (error if isinstance(error, str) else error["code"]).lower() == "forbidden"
    assert limited.status_code == 200
    assert over.status_code == 429  # the publishable key's own per-address limit
    assert secret.status_code == 200
