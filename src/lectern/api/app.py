"""The app factory: ``create_app(settings)`` for tests and ``lectern serve``; ``app_factory`` for uvicorn
workers (``uvicorn --factory lectern.api.app:app_factory``), which read their settings from the
environment."""

from __future__ import annotations

import asyncio
import os
import time
from collections.abc import AsyncIterator, Awaitable, Callable
from contextlib import asynccontextmanager

from fastapi import FastAPI
from starlette.middleware.cors import CORSMiddleware

import lectern
from lectern.api import chat, generation, health, openai_compat
from lectern.api.auth import ApiKeys
from lectern.api.errors import install_error_handlers
from lectern.api.generations import Generations
from lectern.api.logs import LogSink, configure_logging
from lectern.api.middleware import BodyLimit, Guard, RequestContext
from lectern.api.ratelimit import RateLimiter
from lectern.api.services import Probe, Services
from lectern.api.turns import Turns
from lectern.embeddings.cache import uncached
from lectern.engine import Engine
from lectern.mcp.http import mcp_router
from lectern.settings import Settings, get_settings
from lectern.store import ConversationStore, upgrade_database

EMBEDDER_PROBE_TTL_S = 60.0


def create_app(
    settings: Settings | None = None,
    *,
    engine: Engine | None = None,
    store: ConversationStore | None = None,
    probes: dict[str, Probe] | None = None,
) -> FastAPI:
    """The HTTP service. ``engine`` and ``store`` default to the configured ones, built (and the
    database migrated) when the app starts; given ones are used as they are and not closed."""
    settings = settings or get_settings()
    limiter = RateLimiter(settings.rate_limit, settings.redis_url)  # validates LECTERN_RATE_LIMIT now
    keys = ApiKeys(settings.api_keys)

    @asynccontextmanager
    async def lifespan(app: FastAPI) -> AsyncIterator[None]:
        services = await _start(settings, engine, store, limiter, probes)
        app.state.services = services
        try:
            yield
        finally:
            await services.close()

    app = FastAPI(
        title="Lectern",
        version=lectern.__version__,
        summary="Grounded answers from your documentation, with citations.",
        lifespan=lifespan,
        docs_url="/docs",
        redoc_url=None,
        openapi_url="/openapi.json",
    )
    install_error_handlers(app)
    app.include_router(health.router)
    app.include_router(chat.router)
    app.include_router(generation.router)
    app.include_router(openai_compat.router)
    app.include_router(mcp_router(settings))  # /mcp; its lifespan runs after the app's
    # add_middleware wraps: the last added runs first (RequestContext is outermost).
    app.add_middleware(BodyLimit, max_bytes=settings.max_body_bytes)
    app.add_middleware(Guard, keys=keys, limiter=limiter)
    app.add_middleware(openai_compat.OpenAIErrorShape)  # /v1 errors, the guard's too, in OpenAI's shape
    if settings.cors_origins:
        app.add_middleware(
            CORSMiddleware,
            allow_origins=settings.cors_origins,
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
    app.add_middleware(RequestContext)
    return app


def app_factory() -> FastAPI:
    """For ``uvicorn --factory`` (several workers): settings from the environment, JSON logs."""
    configure_logging(os.environ.get("LECTERN_LOG_LEVEL", "info"))
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
    turns = Turns(engine, store, sink, history=settings.max_history)
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


def _build_engine(settings: Settings) -> Engine:
    engine = Engine.from_settings(settings)
    retriever = engine.retriever
    retriever.index.info()
    retriever.embedder.embed_query("warm up")  # loads the model's session now, not on the first question
    return engine


def default_probes(
    engine: Engine, store: ConversationStore, limiter: RateLimiter, settings: Settings
) -> dict[str, Probe]:
    retriever = engine.retriever
    embedder_ok_until = 0.0

    async def database() -> None:
        await store.ping()

    async def index() -> None:
        await asyncio.to_thread(retriever.index.count)

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
