"""Two replicas sharing Redis (and a database): one rate-limit budget per key across both, and a cancel
sent to one replica stops the generation running on the other."""

from __future__ import annotations

import json
import time
import uuid
from pathlib import Path

import httpx
import pytest

from lectern.api import create_app
from tests.api_support import (
    ON_TOPIC,
    LiveServer,
    app_client,
    check_stream,
    clear_of_window_edge,
    make_engine,
    make_settings,
)
from tests.fakes.slow_writer import SlowWriter

pytestmark = [pytest.mark.integration, pytest.mark.redis]


async def test_replicas_share_one_rate_limit(tmp_path: Path, redis_url: str) -> None:
    key = f"sk-{uuid.uuid4().hex}"  # a fresh key: a fresh budget in the shared Redis
    settings = make_settings(tmp_path, api_keys=[key], rate_limit="4/minute", redis_url=redis_url)
    await clear_of_window_edge()
    first = create_app(settings, engine=make_engine(settings))
    second = create_app(settings, engine=make_engine(settings))
    async with app_client(first, **{"X-API-Key": key}) as a, app_client(second, **{"X-API-Key": key}) as b:
        statuses = [(await client.get("/v1/models")).status_code for client in (a, b, a, b)]
        over_a = await a.get("/v1/models")
        over_b = await b.get("/v1/models")
        ready = (await a.get("/health")).status_code
    assert statuses == [200, 200, 200, 200]
    assert over_a.status_code == over_b.status_code == 429
    assert int(over_b.headers["retry-after"]) >= 1
    assert ready == 200


async def test_a_cancel_on_one_replica_stops_the_other(tmp_path: Path, redis_url: str) -> None:
    settings = make_settings(tmp_path, redis_url=redis_url)  # one SQLite file for both replicas
    slow = SlowWriter(words=400, delay_s=0.05)
    with (
        LiveServer(create_app(settings, engine=make_engine(settings, slow))) as running,
        LiveServer(create_app(settings, engine=make_engine(settings))) as other,
    ):
        async with httpx.AsyncClient(base_url=running.url) as a, httpx.AsyncClient(base_url=other.url) as b:
            session = (await a.post("/api/generation/session", json={})).json()["sessionId"]
            request = a.build_request(
                "POST", "/api/generation/stream", json={"sessionId": session, "prompt": ON_TOPIC}
            )
            response = await a.send(request, stream=True)
            lines = response.aiter_lines()
            deltas = [json.loads(await anext(lines)) for _ in range(3)]
            started = time.perf_counter()
            cancel = await b.post(
                "/api/generation/cancel", json={"sessionId": session, "promptId": deltas[0]["promptId"]}
            )
            async for line in lines:
                deltas.append(json.loads(line))
            elapsed = time.perf_counter() - started
            await response.aclose()
    assert cancel.status_code == 204
    assert slow.cancelled.is_set()
    check_stream(deltas)
    assert deltas[-1]["metadata"]["finishReason"] == "cancelled"
    assert elapsed < 0.2, f"cross-replica cancel took {elapsed * 1000:.0f} ms"
