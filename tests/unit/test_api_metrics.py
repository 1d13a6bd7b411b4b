"""/metrics (Prometheus text, behind the API keys or on its own port) and the readiness model."""

from __future__ import annotations

import gc
import os
import socket
from pathlib import Path

import httpx
import pytest
from prometheus_client.parser import text_string_to_metric_families

from lectern.api import create_app
from lectern.api.app import GC_YOUNG_THRESHOLD
from lectern.api.services import Services
from lectern.embeddings.cache import CachedEmbedder
from tests.api_support import OFF_TOPIC, ON_TOPIC, app_client, client_for, make_engine, make_settings

KEY = "sk-test-metrics-0123456789"


def samples(text: str) -> dict[tuple[str, tuple[tuple[str, str], ...]], float]:
    return {
        (s.name, tuple(sorted(s.labels.items()))): s.value
        for family in text_string_to_metric_families(text)
        for s in family.samples
    }


def value(found: dict[tuple[str, tuple[tuple[str, str], ...]], float], name: str, **labels: str) -> float:
    return found.get((name, tuple(sorted(labels.items()))), 0.0)


async def test_metrics_count_requests_answers_refusals_and_state(tmp_path: Path) -> None:
    settings = make_settings(tmp_path, api_keys=[KEY])
    auth = {"X-API-Key": KEY}
    engine = make_engine(settings)
    engine.retriever.embedder = CachedEmbedder(engine.retriever.embedder, 16)
    async with app_client(create_app(settings, engine=engine)) as client:
        assert (await client.get("/metrics")).status_code == 401  # protected like every route
        before = samples((await client.get("/metrics", headers=auth)).text)
        answered = await client.post("/chat/run", json={"message": ON_TOPIC}, headers=auth)
        refused = await client.post("/chat/run", json={"message": OFF_TOPIC}, headers=auth)
        again = await client.post("/chat/run", json={"message": ON_TOPIC}, headers=auth)
        missing = await client.get(f"/session/{'0' * 8}-0000-4000-8000-{'0' * 12}/history", headers=auth)
        response = await client.get("/metrics", headers=auth)
    assert (answered.status_code, refused.status_code, again.status_code) == (200, 200, 200)
    assert response.headers["content-type"].startswith("text/plain")
    after = samples(response.text)

    def grew(name: str, **labels: str) -> float:
        return value(after, name, **labels) - value(before, name, **labels)

    assert grew("lectern_http_requests_total", route="/chat/run", method="POST", status="200") == 3
    # the route template, never the raw path
    assert (
        grew(
            "lectern_http_requests_total",
            route="/session/{session_id}/history",
            method="GET",
            status=str(missing.status_code),
        )
        == 1
    )
    assert grew("lectern_http_request_duration_seconds_count", route="/chat/run") == 3
    levels = ("high", "medium", "low", "insufficient")
    assert sum(grew("lectern_answers_total", confidence=level) for level in levels) == 3
    assert grew("lectern_answers_total", confidence="insufficient") >= 1
    assert sum(v for (n, _), v in after.items() if n == "lectern_refusals_total") >= 1
    assert grew("lectern_stage_duration_seconds_count", stage="store") == 3
    assert grew("lectern_stage_duration_seconds_count", stage="search") >= 3
    assert value(after, "lectern_prompts_in_flight") == 0
    assert value(after, "lectern_index_chunks") == 7
    assert value(after, "lectern_index_up") == 1
    # the second identical question's embedding came from the cache
    assert value(after, "lectern_query_cache_hits") >= 1
    assert 0 < value(after, "lectern_query_cache_hit_ratio") <= 1


async def test_metrics_on_a_separate_port_without_keys(tmp_path: Path) -> None:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    settings = make_settings(tmp_path, api_keys=[KEY], metrics_port=port)
    async with client_for(settings, **{"X-API-Key": KEY}) as client:
        on_api_port = await client.get("/metrics")
        async with httpx.AsyncClient() as scraper:
            scraped = await scraper.get(f"http://127.0.0.1:{port}/metrics")
    assert on_api_port.status_code == 404
    assert scraped.status_code == 200
    assert "lectern_index_chunks" in scraped.text
    assert "lectern_http_requests_total" in scraped.text


async def test_ready_fails_when_a_dependency_is_down_and_while_draining(tmp_path: Path) -> None:
    settings = make_settings(tmp_path)
    engine = make_engine(settings)

    async def index_down() -> None:
        raise ConnectionError("connection refused")

    async def fine() -> None:
        return None

    app = create_app(settings, engine=engine, probes={"index": index_down, "database": fine})
    async with app_client(app) as client:
        down = await client.get("/ready")
        services: Services = app.state.services
        services.probes["index"] = fine
        up = await client.get("/ready")
        services.draining = True
        draining = await client.get("/ready")
    assert down.status_code == 503
    assert "index: connection refused" in down.json()["message"]
    assert up.status_code == 200
    assert draining.status_code == 503
    assert "shutting down" in draining.json()["message"]


async def test_ready_is_not_ready_over_an_empty_collection_and_shows_no_paths(tmp_path: Path) -> None:
    settings = make_settings(tmp_path)
    engine = make_engine(settings)
    app = create_app(settings, engine=engine)
    async with app_client(app) as client:
        ready = await client.get("/ready")
        assert ready.status_code == 200
        engine.retriever.index.drop()  # a missing collection: nothing to answer from
        empty = await client.get("/ready")

        async def database_down() -> None:
            raise OSError(f"[Errno 2] No such file or directory: '{tmp_path}/data/lectern.sqlite3'")

        app.state.services.probes["database"] = database_down
        broken = await client.get("/ready")
    assert empty.status_code == 503
    assert "is empty" in empty.json()["message"]
    assert "lectern ingest" in empty.json()["message"]
    assert broken.status_code == 503
    for response in (ready, empty, broken):
        assert str(tmp_path) not in response.text
        assert "/data" not in response.text


async def test_startup_heap_is_frozen_out_of_the_collector_while_serving(tmp_path: Path) -> None:
    # Full collections walk every tracked object: with the model and the index loaded, 100-200 ms
    # with the event loop stopped, every few seconds under load. What startup built is frozen.
    # The young generation is collected less often while serving, and as before once the app stops.
    settings = make_settings(tmp_path)
    before = gc.get_threshold()
    async with app_client(create_app(settings, engine=make_engine(settings))) as client:
        assert (await client.get("/health")).status_code == 200
        assert gc.get_freeze_count() > 1000
        assert gc.get_threshold()[0] >= GC_YOUNG_THRESHOLD > before[0]
        assert gc.get_threshold()[1:] == before[1:]
    assert gc.get_freeze_count() == 0
    assert gc.get_threshold() == before


def test_fastapi_telemetry_only_when_the_environment_configures_opentelemetry(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    from lectern.api.app import _opentelemetry_configured

    for name in [n for n in os.environ if n.startswith(("OTEL_", "FASTAPI_OTEL_"))]:
        monkeypatch.delenv(name)
    assert not _opentelemetry_configured()
    monkeypatch.setenv("OTEL_SERVICE_NAME", "lectern")
    assert _opentelemetry_configured()
