"""Pure ASGI middleware (no BaseHTTPMiddleware: it would buffer streams and break disconnect detection).

Outermost first: ``RequestContext`` (request id, access log, last-resort 500), CORS, ``Guard`` (API key,
then rate limit), ``BodyLimit`` (413), then the routes.
"""

from __future__ import annotations

import json
import re
import time
from collections.abc import Callable, Collection
from urllib.parse import urlsplit

from starlette.datastructures import Headers
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from lectern.api.auth import ApiKeys, presented_key
from lectern.api.balance import Balancer
from lectern.api.errors import error_response, request_path_var
from lectern.api.ids import random_uuid
from lectern.api.logs import key_id_var, log, request_id_var
from lectern.api.ratelimit import RateLimiter
from lectern.oldest_first import arrival

_REQUEST_ID = re.compile(r"^[A-Za-z0-9._:-]{1,64}$")
OPEN_PATHS = frozenset({"/health"})
# Probes and scrapes need a key but are not rate limited: a balancer checking every replica twice a
# second would spend a key's whole budget.
UNLIMITED_PATHS = frozenset({"/ready", "/metrics"})


class RequestContext:
    """Gives every request an id (a sane ``X-Request-ID`` from the client, else a new one), echoes it,
    logs one line per request, and turns an unhandled exception into a 500 that shows no internals.
    With a ``balancer`` (one of several workers) a response may ask its client to reconnect."""

    def __init__(self, app: ASGIApp, balancer: Balancer | None = None) -> None:
        self.app = app
        self.balancer = balancer

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        given = Headers(scope=scope).get("x-request-id", "")
        request_id = given if _REQUEST_ID.match(given) else str(random_uuid())
        token = request_id_var.set(request_id)
        path_token = request_path_var.set(scope["path"])
        key_token = key_id_var.set(None)
        arrival_token = arrival.set(time.monotonic())  # worker threads serve the oldest request first
        # the connection: the client's address and port (a tuple, so that it can be a key)
        client = tuple(scope["client"]) if scope.get("client") else None
        balancer = self.balancer if client is not None else None
        if balancer is not None:
            balancer.arrived(client)
        status = 0
        started = time.perf_counter()

        async def send_with_id(message: Message) -> None:
            nonlocal status
            if message["type"] == "http.response.start":
                status = message["status"]
                headers = [*message.get("headers", []), (b"x-request-id", request_id.encode())]
                if balancer is not None and balancer.should_close(client):
                    headers.append((b"connection", b"close"))  # the next request may reach another worker
                message["headers"] = headers
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
            if balancer is not None:
                balancer.finished(client)
            arrival.reset(arrival_token)
            key_id_var.reset(key_token)
            request_id_var.reset(token)
            request_path_var.reset(path_token)


# What a publishable key may call: asking, reading its session back, and feedback.
PUBLISHABLE_ROUTES = re.compile(r"^(?:POST /chat/(?:run|stream)|POST /feedback|GET /session/[^/]+/history)$")


def same_origin(origin: str, headers: Headers) -> bool:
    """The page was served by this server (the reader's chat page at ``/``)."""
    return bool(origin) and urlsplit(origin).netloc == headers.get("host", "")


class Guard:
    """API key (401) then rate limit (429) for every path but ``/health`` and the browser's pages.

    A publishable key outside its routes or origins is a 403; its requests are counted per key and
    reader address against ``publishable_limiter``.

    The caller's key id lands in ``scope["state"]["owner"]``: it owns the threads and prompts the request
    creates. Without configured keys the owner is None and the rate limit counts per client address.
    """

    def __init__(
        self,
        app: ASGIApp,
        *,
        keys: ApiKeys,
        limiter: RateLimiter,
        publishable_limiter: RateLimiter | None = None,
        failure_limiter: RateLimiter | None = None,
        open_paths: Collection[str] = OPEN_PATHS,
        is_open: Callable[[str], bool] | None = None,
    ) -> None:
        self.app = app
        self.keys = keys
        self.limiter = limiter
        self.publishable_limiter = publishable_limiter or limiter
        # Failed authentications per client address: a key guesser is stopped before its keys are checked.
        self.failure_limiter = failure_limiter or RateLimiter("")
        self.open_paths = open_paths
        self.is_open = is_open

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        path = scope.get("path", "")
        if (
            scope["type"] != "http"
            or path in self.open_paths
            or (self.is_open is not None and scope["method"] in {"GET", "HEAD"} and self.is_open(path))
        ):
            await self.app(scope, receive, send)
            return
        owner: str | None = None
        limiter = self.limiter
        address = (scope.get("client") or ("unknown",))[0]
        identity = f"ip:{address}"
        if self.keys.enabled:
            failures = f"authfail:ip:{address}"
            blocked = await self.failure_limiter.blocked(failures)
            if blocked is not None:
                log.warning("too many failed authentications", extra={"identity": f"ip:{address}"})
                response = error_response(
                    429,
                    "rate_limit_exceeded",
                    f"Too many failed authentications from this address. Retry after {blocked.retry_after} "
                    "seconds.",
                    headers=blocked.headers(),
                    limit=blocked.limit,
                    retry_after_seconds=blocked.retry_after,
                )
                await response(scope, receive, send)
                return
            headers = Headers(scope=scope)
            key = presented_key(headers)
            if key is None:
                await self.failure_limiter.count(failures)
                message = "API key required. Send 'Authorization: Bearer <key>' or 'X-API-Key: <key>'."
                await self._deny(scope, receive, send, message)
                return
            public = self.keys.publishable(key)
            if public is not None:
                refusal = self._publishable_refusal(scope, headers, public.origins)
                if refusal:
                    log.warning("publishable key refused", extra={"path": path, "reason": refusal})
                    await error_response(403, "forbidden", refusal)(scope, receive, send)
                    return
                owner = public.key_id
                limiter = self.publishable_limiter
                identity = f"pk:{owner}:ip:{address}"
            else:
                owner = self.keys.identify(key)
                if owner is None:
                    await self.failure_limiter.count(failures)
                    await self._deny(scope, receive, send, "Invalid API key.")
                    return
                identity = f"key:{owner}"
            key_id_var.set(owner)
        scope.setdefault("state", {})["owner"] = owner
        if scope["path"] in UNLIMITED_PATHS:
            await self.app(scope, receive, send)
            return
        verdict = await limiter.check(identity)
        if verdict is not None and not verdict.allowed:
            log.warning("rate limited", extra={"identity": identity})
            response = error_response(
                429,
                "rate_limit_exceeded",
                f"Rate limit exceeded: at most {verdict.limit} requests per "
                f"{_window(limiter)}. Retry after {verdict.retry_after} seconds.",
                headers=verdict.headers(),
                limit=verdict.limit,
                retry_after_seconds=verdict.retry_after,
            )
            await response(scope, receive, send)
            return
        await self.app(scope, receive, send)

    @staticmethod
    def _publishable_refusal(scope: Scope, headers: Headers, origins: frozenset[str]) -> str:
        """Why a publishable key may not make this request; empty when it may."""
        if not PUBLISHABLE_ROUTES.match(f"{scope['method']} {scope['path']}"):
            return "A publishable key may only call the chat and feedback endpoints."
        origin = headers.get("origin", "")
        if origin.rstrip("/") in origins or same_origin(origin, headers):
            return ""
        if not origin:
            return "A publishable key is for web pages: the request has no Origin."
        return f"Origin {origin} is not allowed for this key."

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
        if _unstorable_text(b"".join(chunks)):
            response = error_response(
                400,
                "invalid_request",
                "Text fields must not contain NUL characters or unpaired surrogates.",
            )
            await response(scope, receive, send)
            return
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


_SURROGATE = re.compile("[\ud800-\udfff]")


def _unstorable_text(body: bytes) -> bool:
    """A JSON body whose strings hold NUL or a lone surrogate (valid JSON as ``\\u0000``, ``\\ud800``):
    no database stores those (PostgreSQL refuses NUL, UTF-8 has no surrogates), so the request is a
    client's mistake, a 400, not a 500 at the first write."""
    if b"\\u" not in body:  # both only reach a JSON string escaped
        return False
    try:
        parsed = json.loads(body)
    except ValueError:
        return False  # the route answers malformed JSON itself

    def bad(node: object) -> bool:
        if isinstance(node, str):
            return "\x00" in node or _SURROGATE.search(node) is not None
        if isinstance(node, dict):
            return any(bad(k) or bad(v) for k, v in node.items())
        if isinstance(node, list):
            return any(bad(v) for v in node)
        return False

    return bad(parsed)
