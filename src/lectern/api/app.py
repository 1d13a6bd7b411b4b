"""The app factory: ``create_app(settings)`` for tests and ``lectern serve``; ``app_factory`` for uvicorn
workers (``uvicorn --factory lectern.api.app:app_factory``), which read their settings from the
environment."""

from __future__ import annotations

import asyncio
import contextlib
import gc
import logging
import os
import signal
import threading
import time
from collections.abc import AsyncIterator, Awaitable, Callable
from contextlib import asynccontextmanager
from functools import partial
from types import FrameType

from fastapi import FastAPI
from fastapi.telemetry import TelemetryConfig
from starlette.middleware.cors import CORSMiddleware

import lectern
from lectern import code_pages
from lectern.api import chat, feedback, generation, health, openai_compat, openapi, web
from lectern.api.auth import ApiKeys
from lectern.api.balance import sibling_balancer
from lectern.api.errors import install_error_handlers
from lectern.api.generations import Generations
from lectern.api.logs import LogSink, configure_logging
from lectern.api.metrics import MetricsEndpoint, RequestMetrics, StateCollector, metrics_router
from lectern.api.middleware import BodyLimit, Guard, RequestContext
from lectern.api.ratelimit import RateLimiter
from lectern.api.services import Probe, Services
from lectern.api.session_queue import SessionQueue
from lectern.api.turns import Turns
from lectern.embeddings.cache import CachedEmbedder, uncached
from lectern.engine import Engine
from lectern.index.base import prepare_in_memory
from lectern.mcp.http import mcp_router
from lectern.oldest_first import OldestFirstExecutor
from lectern.settings import Settings, get_settings
from lectern.store import ConversationStore, upgrade_database

log = logging.getLogger(__name__)

EMBEDDER_PROBE_TTL_S = 60.0


def create_app(
    settings: Settings | None = None,
    *,
    engine: Engine | None = None,
    store: ConversationStore | None = None,
    probes: dict[str, Probe] | None = None,
    metrics_host: str = "127.0.0.1",
) -> FastAPI:
    """The HTTP service. ``engine`` and ``store`` default to the configured ones, built (and the
    database migrated) when the app starts; given ones are used as they are and not closed."""
    settings = settings or get_settings()
    limiter = RateLimiter(settings.rate_limit, settings.redis_url)  # validates LECTERN_RATE_LIMIT now
    keys = ApiKeys(settings.api_keys, settings.publishable_keys)
    public_limiter = RateLimiter(settings.publishable_rate_limit, settings.redis_url)
    failure_limiter = RateLimiter(settings.auth_failure_limit, settings.redis_url)
    # one of `serve --workers N`'s processes: keep-alive connections spread evenly over the siblings
    balancer = sibling_balancer() if settings.worker_balance else None

    @asynccontextmanager
    async def lifespan(app: FastAPI) -> AsyncIterator[None]:
        # asyncio.to_thread's pool (the engine's retrievals): queued work runs oldest request first.
        asyncio.get_running_loop().set_default_executor(OldestFirstExecutor(thread_name_prefix="lectern"))
        releasing = code_pages.enable(settings.release_code_pages)
        services = await _start(settings, engine, store, limiter, probes)
        app.state.services = services
        if engine is None:  # a server's own engine (not a test's): its index in memory before serving
            await asyncio.to_thread(_prepare_index, services.engine)
        restore_gc = _freeze_startup_heap()
        code_pages.release_code_pages()  # what loading the model and the first probes ran once
        app.state.metrics = MetricsEndpoint(StateCollector(partial(_state, services)))
        if settings.metrics_enabled and settings.metrics_port:
            app.state.metrics.serve_on_port(settings.metrics_port, metrics_host)
        restore = _drain_on_sigterm(services)
        balancing = asyncio.create_task(balancer.run()) if balancer is not None else None
        try:
            yield
        finally:
            if balancing is not None and balancer is not None:
                balancing.cancel()
                balancer.table.close()
            restore()
            restore_gc()  # a process that starts another app (tests) collects as before
            code_pages.enable(releasing)
            await services.close()

    app = FastAPI(
        title="Lectern",
        version=lectern.__version__,
        summary="Grounded answers from your documentation, with citations.",
        lifespan=lifespan,
        docs_url=None,  # web_router serves /docs with local Swagger UI files
        redoc_url=None,
        openapi_url="/openapi.json",
        telemetry=None if _opentelemetry_configured() else _NO_TELEMETRY,
    )
    install_error_handlers(app)
    openapi.install(app, model_name=settings.model_name)
    app.include_router(health.router)
    if settings.metrics_enabled and not settings.metrics_port:
        app.include_router(metrics_router)
    app.include_router(chat.router)
    app.include_router(generation.router)
    app.include_router(openai_compat.router)
    app.include_router(feedback.router)
    app.include_router(web.web_router(settings))
    app.include_router(mcp_router(settings))  # /mcp; its lifespan runs after the app's
    # add_middleware wraps: the last added runs first (RequestContext is outermost).
    app.add_middleware(BodyLimit, max_bytes=settings.max_body_bytes)
    app.add_middleware(
        Guard,
        keys=keys,
        limiter=limiter,
        publishable_limiter=public_limiter,
        failure_limiter=failure_limiter,
        is_open=web.is_open,
    )
    app.add_middleware(openai_compat.OpenAIErrorShape)  # /v1 errors, the guard's too, in OpenAI's shape
    # Publishable keys' origins get CORS too; the Guard still checks each key against its own list.
    origins = list(
        dict.fromkeys([*settings.cors_origins, *(o for p in settings.publishable_keys for o in p.origins)])
    )
    if origins:
        app.add_middleware(
            CORSMiddleware,
            allow_origins=origins,
            allow_methods=["GET", "POST", "DELETE", "OPTIONS"],
            allow_headers=["Authorization", "Content-Type", "X-API-Key", "X-Request-ID"],
            expose_headers=[
                "X-Request-ID",
                "X-Prompt-Id",
                "Retry-After",
                "X-RateLimit-Limit",
                "X-RateLimit-Remaining",
                "X-RateLimit-Reset",
            ],
            max_age=600,
        )
    app.add_middleware(RequestContext, balancer=balancer)
    if settings.metrics_enabled:
        app.add_middleware(RequestMetrics)
    return app


# FastAPI asks OpenTelemetry for its three global providers on every request (~15 us) to learn that
# none is set up. Off unless the environment configures OpenTelemetry (opentelemetry-instrument and the
# SDK read OTEL_* variables; FastAPI's own switch is FASTAPI_OTEL_AUTO_CONFIGURE).
_NO_TELEMETRY: TelemetryConfig = {"tracing": False, "metrics": False, "logs": False}


def _opentelemetry_configured() -> bool:
    return any(name.startswith(("OTEL_", "FASTAPI_OTEL_")) for name in os.environ)


def app_factory() -> FastAPI:
    """For ``uvicorn --factory`` (several workers): settings from the environment, JSON logs."""
    configure_logging(
        os.environ.get("LECTERN_LOG_LEVEL", "info"), os.environ.get("LECTERN_LOG_FORMAT", "json")
    )
    return create_app()


async def _start(
    settings: Settings,
    engine: Engine | None,
    store: ConversationStore | None,
    limiter: RateLimiter,
    probes: dict[str, Probe] | None,
) -> Services:
    closers: list[Callable[[], Awaitable[None]]] = []
    if store is None:
        await upgrade_database(settings.effective_database_url)
        store = ConversationStore.from_settings(settings)
        closers.append(store.close)
    if engine is None:
        # Loading the model and opening the index take a while: off the event loop, before serving.
        engine = await asyncio.to_thread(_build_engine, settings)
    sink = LogSink(store)
    sink.start()
    queue = SessionQueue.from_settings(settings)
    turns = Turns(engine, store, sink, history=settings.max_history, queue=queue)
    generations = Generations(turns, store, redis_url=settings.redis_url)
    await generations.start()
    services = Services(
        settings=settings,
        store=store,
        engine=engine,
        turns=turns,
        generations=generations,
        sink=sink,
        probes=probes if probes is not None else default_probes(engine, store, limiter, settings),
        closers=closers,
    )
    services.start_sweeper()
    return services


def _prepare_index(engine: Engine) -> None:
    """The index made ready before the server answers (`prepare_in_memory`)."""
    # what loading the model ran once goes first: reading the table runs ~65 MB of LanceDB's code
    code_pages.release_code_pages()
    prepare_in_memory(engine.retriever.index)


# Python's young-generation collection runs every 700 net container allocations (and the older ones
# every 10 of those): with an answer allocating thousands of dicts, lists, pydantic models and
# tracebacks, that was ~0.4 collections per answer and 0.5 ms of CPU per answer at 32 clients (a
# collection walks the young objects still alive, mostly the requests in flight). Almost everything a
# request makes is freed by reference counting before a collection at this threshold comes round, so
# collections are ~30 times rarer and the CPU spent in them ~10 times smaller (bench/http_load.py).
# What a collection finds is garbage kept a little longer: ~20,000 small objects at most.
GC_YOUNG_THRESHOLD = 20_000


def _freeze_startup_heap() -> Callable[[], None]:
    """Move what startup built (the model, the index's tables, imported modules: millions of objects
    that live as long as the process) out of the garbage collector's reach. Python's full collection
    runs each time the heap's tracked objects grow by a quarter and walks every one of them: 100-200 ms
    with the event loop stopped, every few seconds under load (p99 and the first token waited on it).
    Frozen objects are never walked again; what requests create is collected as before, the young
    generation less often (GC_YOUNG_THRESHOLD). Returns what undoes both."""
    gc.collect()
    gc.freeze()
    previous = gc.get_threshold()
    gc.set_threshold(max(previous[0], GC_YOUNG_THRESHOLD), *previous[1:])

    def restore() -> None:
        gc.set_threshold(*previous)
        gc.unfreeze()

    return restore


def _build_engine(settings: Settings) -> Engine:
    engine = Engine.from_settings(settings)
    retriever = engine.retriever
    retriever.index.info()
    code_pages.release_code_pages()  # opening the table's code, before the model adds to the peak
    retriever.embedder.embed_query("warm up")  # loads the model's session now, not on the first question
    return engine


def _state(services: Services) -> dict[str, float]:
    """What /metrics reports as held right now (runs in a worker thread: the index count is I/O)."""
    values: dict[str, float] = {"prompts_in_flight": len(services.generations)}
    embedder = services.engine.retriever.embedder
    if isinstance(embedder, CachedEmbedder):
        stats = embedder.stats()
        lookups = stats.hits + stats.misses
        values["query_cache_hits"] = stats.hits
        values["query_cache_misses"] = stats.misses
        values["query_cache_hit_ratio"] = stats.hits / lookups if lookups else 0.0
    try:
        values["index_chunks"] = services.engine.retriever.index.count()
        values["index_up"] = 1
    except Exception:
        values["index_up"] = 0
    return values


def _drain_on_sigterm(services: Services) -> Callable[[], None]:
    """Say "not ready" from the moment SIGTERM arrives (uvicorn then drains open streams for up to
    LECTERN_SHUTDOWN_DRAIN_S); the previous handler still runs. A no-op off the main thread."""
    if threading.current_thread() is not threading.main_thread():
        return lambda: None
    previous = signal.getsignal(signal.SIGTERM)

    def handler(signum: int, frame: FrameType | None) -> None:
        services.draining = True
        if callable(previous):
            previous(signum, frame)

    try:
        signal.signal(signal.SIGTERM, handler)
    except ValueError:
        return lambda: None

    def restore() -> None:
        with contextlib.suppress(ValueError):
            if signal.getsignal(signal.SIGTERM) is handler:
                signal.signal(signal.SIGTERM, previous)

    return restore


def default_probes(
    engine: Engine, store: ConversationStore, limiter: RateLimiter, settings: Settings
) -> dict[str, Probe]:
    retriever = engine.retriever
    embedder_ok_until = 0.0

    async def database() -> None:
        await store.ping()

    async def index() -> None:
        # An empty or missing collection could only refuse every question: not ready.
        if await asyncio.to_thread(retriever.index.count) == 0:
            raise LookupError(
                f"collection '{retriever.collection}' is empty or does not exist; run lectern ingest PATH"
            )

    async def embedder() -> None:
        # A remote embedder is a paid call: one success vouches for a minute.
        nonlocal embedder_ok_until
        if time.monotonic() < embedder_ok_until:
            return
        await asyncio.to_thread(uncached(retriever.embedder).embed_query, "ready")
        embedder_ok_until = time.monotonic() + EMBEDDER_PROBE_TTL_S

    probes: dict[str, Probe] = {"index": index, "database": database, "embedder": embedder}
    if settings.redis_url:

        async def redis() -> None:
            if not await limiter.ping():
                raise ConnectionError("Redis does not answer")

        probes["redis"] = redis
    return probes
