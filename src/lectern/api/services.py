"""What the routes share for the life of the app: built in the lifespan, reached through ``services()``."""

from __future__ import annotations

import asyncio
import contextlib
import logging
import re
import time
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field

from fastapi import Request

from lectern.api.generations import Generations
from lectern.api.logs import LogSink
from lectern.api.turns import Turns
from lectern.engine import Engine
from lectern.errors import LecternError
from lectern.settings import Settings
from lectern.store import ConversationStore

log = logging.getLogger("lectern.api")

Probe = Callable[[], Awaitable[None]]
# A prompt InFlight this long belongs to a replica that died: it is marked Error "abandoned".
ABANDON_AFTER_S = 900.0
MAX_SWEEP_INTERVAL_S = 300.0


@dataclass
class Services:
    settings: Settings
    store: ConversationStore
    engine: Engine
    turns: Turns
    generations: Generations
    sink: LogSink
    probes: dict[str, Probe] = field(default_factory=dict)
    closers: list[Callable[[], Awaitable[None]]] = field(default_factory=list)
    draining: bool = False  # shutting down: /ready says so, so balancers stop sending work
    _sweeper: asyncio.Task[None] | None = None
    _stop: asyncio.Event = field(default_factory=asyncio.Event)

    def start_sweeper(self) -> None:
        """Seed 000's idle archival (and abandoned prompts) every few minutes, in the background."""
        interval = min(MAX_SWEEP_INTERVAL_S, max(1.0, self.settings.session_idle_archive_s / 4))
        self._sweeper = asyncio.create_task(self._sweep(interval), name="lectern-sweeper")

    async def _sweep(self, interval: float) -> None:
        # Stopped by an event, never cancelled: a cancelled write could leave SQLite's write lock held.
        while True:
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(self._stop.wait(), interval)
            if self._stop.is_set():
                return
            try:
                archived = await self.store.archive_idle()
                abandoned = await self.store.abandon_stale_prompts(ABANDON_AFTER_S)
                if archived or abandoned:
                    log.info("sweep", extra={"archived_threads": archived, "abandoned_prompts": abandoned})
            except Exception:
                log.warning("sweep failed", exc_info=True)

    async def close(self) -> None:
        self.draining = True
        left = await self.generations.drain(self.settings.shutdown_drain_s)
        if left:
            log.warning("shutdown: cancelling generations still running", extra={"generations": left})
        if self._sweeper is not None:
            self._stop.set()
            await self._sweeper
        await self.generations.close()
        await self.sink.stop()
        for close in reversed(self.closers):
            try:
                await close()
            except Exception:
                log.warning("shutdown step failed", exc_info=True)

    async def readiness(self, timeout_s: float = 3.0) -> dict[str, dict[str, object]]:
        """Every probe, concurrently: ``{"database": {"status": "up", "latency_ms": 1.2}, ...}``."""

        async def run(probe: Probe) -> dict[str, object]:
            started = time.perf_counter()
            try:
                await asyncio.wait_for(probe(), timeout_s)
            except TimeoutError:
                return {"status": "down", "reason": f"no answer within {timeout_s:g} s"}
            except Exception as exc:
                return {"status": "down", "reason": public_reason(exc)}
            return {"status": "up", "latency_ms": round((time.perf_counter() - started) * 1000, 2)}

        names = list(self.probes)
        results = await asyncio.gather(*(run(self.probes[n]) for n in names))
        checks = dict(zip(names, results, strict=True))
        if self.draining:
            checks["server"] = {"status": "down", "reason": "shutting down"}
        return checks


_PATH = re.compile(r"(?:[A-Za-z]:\\|~?/)[^\s'\"():,;]*[^\s'\"():,;.]")


def public_reason(exc: BaseException) -> str:
    """Why a probe failed, for the /ready body: the error's message without file paths (data folders,
    sockets, model files never leave the server)."""
    text = exc.message if isinstance(exc, LecternError) else str(exc)
    return _PATH.sub("<path>", text) or type(exc).__name__


# Dependencies are ``async def``: FastAPI runs plain ``def`` ones in its thread pool, two thread hops
# per request for an attribute lookup.
async def services(request: Request) -> Services:
    return services_of(request)


async def owner(request: Request) -> str | None:
    return owner_of(request)


def services_of(request: Request) -> Services:
    found: Services = request.app.state.services
    return found


def owner_of(request: Request) -> str | None:
    """The caller's key id (set by the Guard middleware); None when API keys are off."""
    value = request.scope.get("state", {}).get("owner")
    return value if isinstance(value, str) else None
