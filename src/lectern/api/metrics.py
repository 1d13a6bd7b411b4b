"""Prometheus metrics: what the service does (requests, stages, answers, refusals, cancels, provider
failures) as process-wide counters and histograms, plus what it holds (prompts in flight, query cache,
index size) read at scrape time.

Each process exposes its own; a Prometheus server scrapes every replica and sums. Several uvicorn
workers behind one port need ``PROMETHEUS_MULTIPROC_DIR`` (prometheus-client's multiprocess mode), else
each scrape sees one worker.
"""

from __future__ import annotations

import asyncio
import logging
import os
import time
from collections.abc import Callable, Iterator

from fastapi import APIRouter, Request
from prometheus_client import (
    CONTENT_TYPE_LATEST,
    REGISTRY,
    CollectorRegistry,
    Counter,
    Histogram,
    generate_latest,
    start_http_server,
)
from prometheus_client.core import GaugeMetricFamily, Metric
from prometheus_client.multiprocess import MultiProcessCollector
from prometheus_client.registry import Collector
from starlette.responses import Response
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from lectern.metrics import REQUEST_SECONDS, REQUESTS

log = logging.getLogger("lectern.api")


class RequestMetrics:
    """Counts and times every HTTP request by its route template (``/chat/{session_id}``, never the
    raw path, so the series stay few). Pure ASGI: a stream is timed to its last byte."""

    def __init__(self, app: ASGIApp) -> None:
        self.app = app
        # The labelled series by their labels: prometheus-client's labels() validates and locks each time.
        self._counts: dict[tuple[str, str, str], Counter] = {}
        self._times: dict[str, Histogram] = {}

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        status = 500
        started = time.perf_counter()

        async def send_status(message: Message) -> None:
            nonlocal status
            if message["type"] == "http.response.start":
                status = message["status"]
            await send(message)

        try:
            await self.app(scope, receive, send_status)
        finally:
            route = _route(scope)
            key = (route, scope["method"], str(status))
            count = self._counts.get(key)
            if count is None:
                count = self._counts[key] = REQUESTS.labels(*key)
            count.inc()
            timer = self._times.get(route)
            if timer is None:
                timer = self._times[route] = REQUEST_SECONDS.labels(route)
            timer.observe(time.perf_counter() - started)


def _route(scope: Scope) -> str:
    route = scope.get("route")
    path = getattr(route, "path", None)
    if isinstance(path, str):
        return path
    return "/mcp" if scope["path"].startswith("/mcp") else "unmatched"


class StateCollector(Collector):
    """What the service holds, read when scraped (``read`` may reach the index: call from a thread)."""

    def __init__(self, read: Callable[[], dict[str, float]]) -> None:
        self._read = read

    def collect(self) -> Iterator[Metric]:
        values = self._read()
        for name, help_text in _STATE.items():
            if name in values:
                yield GaugeMetricFamily(f"lectern_{name}", help_text, value=values[name])


_STATE = {
    "prompts_in_flight": "Generations running in this process.",
    "query_cache_hits": "Query embeddings served from the cache since start.",
    "query_cache_misses": "Query embeddings computed since start.",
    "query_cache_hit_ratio": "Cache hits over lookups since start.",
    "index_chunks": "Chunks in the served collection.",
    "index_up": "1 when the index answered this scrape, else 0.",
}


class MetricsEndpoint:
    """The text a scrape gets: the process-wide metrics and this app's state."""

    def __init__(self, state: StateCollector) -> None:
        self.state = state
        self._registry = CollectorRegistry(auto_describe=False)
        self._registry.register(state)

    async def render(self) -> bytes:
        return await asyncio.to_thread(self._render)

    def _render(self) -> bytes:
        return _process_metrics() + generate_latest(self._registry)

    def serve_on_port(self, port: int, host: str) -> None:
        """/metrics on its own port, without API keys (for a scraper inside the network)."""
        registry = CollectorRegistry(auto_describe=False)
        registry.register(_Both(self))
        try:
            start_http_server(port, addr=host, registry=registry)
        except OSError as exc:  # another worker on this machine has it
            log.warning("metrics port %s not opened: %s", port, exc)


class _Both(Collector):
    def __init__(self, endpoint: MetricsEndpoint) -> None:
        self._endpoint = endpoint

    def collect(self) -> Iterator[Metric]:
        yield from _process_registry().collect()
        yield from self._endpoint.state.collect()


def _process_registry() -> CollectorRegistry:
    multiproc = os.environ.get("PROMETHEUS_MULTIPROC_DIR")
    if multiproc:
        registry = CollectorRegistry()
        MultiProcessCollector(registry, path=multiproc)  # type: ignore[no-untyped-call]
        return registry
    return REGISTRY


def _process_metrics() -> bytes:
    return generate_latest(_process_registry())


metrics_router = APIRouter(tags=["health"])


@metrics_router.get("/metrics", summary="Prometheus metrics", response_class=Response)
async def metrics(request: Request) -> Response:
    endpoint: MetricsEndpoint = request.app.state.metrics
    return Response(await endpoint.render(), media_type=CONTENT_TYPE_LATEST)
