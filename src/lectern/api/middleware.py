"""Pure ASGI middleware (no BaseHTTPMiddleware: it would buffer streams and break disconnect detection).

Outermost first: ``RequestContext`` (request id, access log, last-resort 500), CORS, ``Guard`` (API key,
then rate limit), ``BodyLimit`` (413), then the routes.
"""

from __future__ import annotations

import re
import time
import uuid
from collections.abc import Collection

from starlette.datastructures import Headers
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from lectern.api.auth import ApiKeys, presented_key
from lectern.api.errors import error_response
from lectern.api.logs import key_id_var, log, request_id_var
from lectern.api.ratelimit import RateLimiter

_REQUEST_ID = re.compile(r"^[A-Za-z0-9._:-]{1,64}$")
OPEN_PATHS = frozenset({"/health"})


class RequestContext:
    """Gives every request an id (a sane ``X-Request-ID`` from the client, else a new one), echoes it,
    logs one line per request, and turns an unhandled exception into a 500 that shows no internals."""

    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        given = Headers(scope=scope).get("x-request-id", "")
        request_id = given if _REQUEST_ID.match(given) else uuid.uuid4().hex
        token = request_id_var.set(request_id)
        key_token = key_id_var.set(None)
        status = 0
        started = time.perf_counter()

        async def send_with_id(message: Message) -> None:
            nonlocal status
            if message["type"] == "http.response.start":
                status = message["status"]
                message["headers"] = [*message.get("headers", []), (b"x-request-id", request_id.encode())]
            await send(message)

        try:
            await self.app(scope, receive, send_with_id)
        except Exception:
            log.exception("unhandled error", extra={"method": scope["method"], "path": scope["path"]})
            if status == 0:
                status = 500
                response = error_response(500, "internal_error", "An unexpected error occurred.")
                await response(scope, receive, send_with_id)
            # Otherwise the response has started; the client sees it cut short, never a traceback.
        finally:
            log.info(
                "request",
                extra={
                    "method": scope["method"],
                    "path": scope["path"],
                    "status": status,
                    "duration_ms": round((time.perf_counter() - started) * 1000, 3),
                },
            )
            key_id_var.reset(key_token)
            request_id_var.reset(token)


class Guard:
    """API key (401) then rate limit (429) for every path but ``/health``.

    The caller's key id lands in ``scope["state"]["owner"]``: it owns the threads and prompts the request
    creates. Without configured keys the owner is None and the rate limit counts per client address.
    """

    def __init__(
        self,
        app: ASGIApp,
        *,
        keys: ApiKeys,
        limiter: RateLimiter,
        open_paths: Collection[str] = OPEN_PATHS,
    ) -> None:
        self.app = app
        self.keys = keys
        self.limiter = limiter
        self.open_paths = open_paths

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http" or scope["path"] in self.open_paths:
            await self.app(scope, receive, send)
            return
        owner: str | None = None
        if self.keys.enabled:
            key = presented_key(Headers(scope=scope))
            if key is None:
                message = "API key required. Send 'Authorization: Bearer <key>' or 'X-API-Key: <key>'."
                await self._deny(scope, receive, send, message)
                return
            owner = self.keys.identify(key)
            if owner is None:
                await self._deny(scope, receive, send, "Invalid API key.")
                return
            key_id_var.set(owner)
        scope.setdefault("state", {})["owner"] = owner
        identity = f"key:{owner}" if owner else f"ip:{(scope.get('client') or ('unknown',))[0]}"
        verdict = await self.limiter.check(identity)
        if verdict is not None and not verdict.allowed:
            log.warning("rate limited", extra={"identity": identity})
            response = error_response(
                429,
                "rate_limit_exceeded",
                f"Rate limit exceeded: at most {verdict.limit} requests per "
                f"{_window(self.limiter)}. Retry after {verdict.retry_after} seconds.",
                headers=verdict.headers(),
                limit=verdict.limit,
                retry_after_seconds=verdict.retry_after,
            )
            await response(scope, receive, send)
            return
        await self.app(scope, receive, send)

    @staticmethod
    async def _deny(scope: Scope, receive: Receive, send: Send, message: str) -> None:
        response = error_response(401, "unauthorized", message, headers={"WWW-Authenticate": "Bearer"})
        await response(scope, receive, send)


def _window(limiter: RateLimiter) -> str:
    item = limiter.item
    if item is None:
        return "window"
    unit = item.GRANULARITY.name
    return unit if item.multiples == 1 else f"{item.multiples} {unit}s"


class BodyLimit:
    """413 for bodies over ``max_bytes``: by Content-Length up front, and by counting what actually
    arrives (chunked uploads have no length). The body is read here, at most ``max_bytes`` + one chunk,
    and replayed to the route."""

    def __init__(self, app: ASGIApp, *, max_bytes: int) -> None:
        self.app = app
        self.max_bytes = max_bytes

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http" or scope["method"] in {"GET", "HEAD", "OPTIONS"}:
            await self.app(scope, receive, send)
            return
        length = Headers(scope=scope).get("content-length")
        if length is not None and length.isdigit() and int(length) > self.max_bytes:
            await self._too_large(scope, receive, send)
            return
        chunks: list[bytes] = []
        size = 0
        while True:
            message = await receive()
            if message["type"] != "http.request":
                # The client left before sending its body; nothing to answer.
                return
            chunk = message.get("body", b"")
            size += len(chunk)
            if size > self.max_bytes:
                await self._too_large(scope, receive, send)
                return
            chunks.append(chunk)
            if not message.get("more_body", False):
                break
        replayed = False

        async def replay() -> Message:
            nonlocal replayed
            if not replayed:
                replayed = True
                return {"type": "http.request", "body": b"".join(chunks), "more_body": False}
            return await receive()

        await self.app(scope, replay, send)

    async def _too_large(self, scope: Scope, receive: Receive, send: Send) -> None:
        response = error_response(
            413,
            "payload_too_large",
            f"Request body exceeds the maximum size of {self.max_bytes} bytes.",
            max_size=self.max_bytes,
        )
        await response(scope, receive, send)
