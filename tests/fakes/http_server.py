"""A scriptable HTTP server on loopback, for testing provider clients over real HTTP.

The openai SDK (3.x) sends through ``httpx2`` and the cohere SDK through ``httpx``; neither can be
mocked in one place, so tests start this server (Starlette under uvicorn, in a thread, on a free port
of 127.0.0.1) and point the SDK's ``base_url`` at it.

- ``server.route(method, path, handler)``: the default answer of a route. A handler takes the
  ``Recorded`` request and returns a ``Reply`` (or any Starlette ``Response``, e.g. a
  ``StreamingResponse`` for SSE), synchronously or as a coroutine.
- ``server.script(method, path, *steps)``: one-shot answers served first, in order, before the
  route's handler (e.g. ``Reply.error(429)`` then the normal answer). A step is a ``Reply`` or a handler.
- Every request is kept in ``server.requests`` (method, path, headers, parsed JSON body, time), so a
  test sees exactly what the client sent, and how many times.

Reuse it for any fake provider: add routes for ``/v1/chat/completions`` next to ``/v1/embeddings``.
"""

from __future__ import annotations

import asyncio
import inspect
import json
import threading
import time
from collections import deque
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from typing import Any

from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import JSONResponse, Response
from starlette.routing import Route

from tests.fakes.threaded_uvicorn import ThreadedUvicorn


@dataclass(frozen=True)
class Recorded:
    method: str
    path: str
    headers: dict[str, str]
    json: Any
    """The parsed JSON body, or None when the body is empty or not JSON."""
    body: bytes
    at: float
    """``time.monotonic()`` on arrival."""


@dataclass(frozen=True)
class Reply:
    status: int = 200
    json: Any = None
    headers: dict[str, str] = field(default_factory=dict)
    delay_s: float = 0.0
    """Wait this long before answering (longer than the client's timeout plays a stalled provider)."""

    @classmethod
    def error(cls, status: int, message: str = "scripted failure", **kwargs: Any) -> Reply:
        """An error with OpenAI's error body shape (Cohere's ``message`` key is in it too)."""
        body = {"error": {"message": message, "type": "server_error", "code": None}, "message": message}
        return cls(status=status, json=body, **kwargs)


Handler = Callable[[Recorded], "Reply | Response | Awaitable[Reply | Response]"]
Step = Reply | Handler


class FakeHTTPServer:
    """``with FakeHTTPServer() as server: server.route(...); client(base_url=server.base_url)``."""

    def __init__(self) -> None:
        self.requests: list[Recorded] = []
        self._routes: dict[tuple[str, str], Handler] = {}
        self._scripts: dict[tuple[str, str], deque[Step]] = {}
        self._lock = threading.Lock()
        self._uvicorn: ThreadedUvicorn | None = None
        self._port = 0

    # --- scripting -------------------------------------------------------------------------------
    def route(self, method: str, path: str, handler: Handler) -> None:
        with self._lock:
            self._routes[(method.upper(), path)] = handler

    def script(self, method: str, path: str, *steps: Step) -> None:
        with self._lock:
            self._scripts.setdefault((method.upper(), path), deque()).extend(steps)

    # --- observations ----------------------------------------------------------------------------
    @property
    def base_url(self) -> str:
        """``http://127.0.0.1:PORT`` without a trailing slash; append ``/v1`` for OpenAI clients."""
        return f"http://127.0.0.1:{self._port}"

    def requests_to(self, path: str, method: str = "POST") -> list[Recorded]:
        return [r for r in self.requests if r.path == path and r.method == method.upper()]

    # --- lifecycle -------------------------------------------------------------------------------
    def __enter__(self) -> FakeHTTPServer:
        app = Starlette(
            routes=[Route("/{path:path}", self._dispatch, methods=["GET", "POST", "PUT", "PATCH", "DELETE"])]
        )
        self._uvicorn = ThreadedUvicorn(app, what="fake HTTP server", lifespan="off")
        self._port = self._uvicorn.port
        self._uvicorn.start()
        return self

    def __exit__(self, *exc: object) -> None:
        if self._uvicorn is not None:
            self._uvicorn.stop()

    # --- serving ---------------------------------------------------------------------------------
    async def _dispatch(self, request: Request) -> Response:
        body = await request.body()
        try:
            parsed = json.loads(body) if body else None
        except ValueError:
            parsed = None
        recorded = Recorded(
            method=request.method,
            path=request.url.path,
            headers={k.lower(): v for k, v in request.headers.items()},
            json=parsed,
            body=body,
            at=time.monotonic(),
        )
        key = (recorded.method, recorded.path)
        with self._lock:
            self.requests.append(recorded)
            script = self._scripts.get(key)
            step: Step | None = script.popleft() if script else self._routes.get(key)
        if step is None:
            return JSONResponse({"error": {"message": f"no fake route for {key}"}}, status_code=404)
        result: Any = step(recorded) if callable(step) else step
        if inspect.isawaitable(result):
            result = await result
        if isinstance(result, Response):
            return result
        reply: Reply = result
        if reply.delay_s:
            await asyncio.sleep(reply.delay_s)
        return JSONResponse(reply.json, status_code=reply.status, headers=reply.headers)
