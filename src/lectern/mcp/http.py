"""MCP over streamable HTTP at ``/mcp``, inside the API app.

The route sits behind the app's middleware like every other path, so API keys (``Authorization: Bearer``
or ``X-API-Key``), rate limits and body limits apply unchanged: with keys configured an unauthenticated
MCP request gets the API's 401. The tools use the engine and conversation store the app's lifespan
built (`Services`); nothing is built twice.

The SDK's session manager needs a running task group: this router's lifespan (merged by FastAPI into the
app's, after it, so the services exist) starts a task that builds a fresh manager, each time the app
starts, when the first /mcp request arrives: a server nobody asks over MCP never imports the SDK (~28 MB
resident), and the task runs the manager until the app stops. It runs
stateless with JSON responses: no MCP session lives in one replica's memory, so any replica behind a load
balancer can answer any request; conversation state is in the store, keyed by ``ask``'s ``session_id``.
Stateless also means no transport session (no ``Mcp-Session-Id``) exists to be bound to a key or taken
over by another; the conversations are bound instead: a ``session_id`` opened with one API key is "not
found" for every other key (the store's owner check, as on the chat API).
"""

from __future__ import annotations

import asyncio
import json
import logging
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from typing import TYPE_CHECKING

from fastapi import APIRouter, FastAPI
from starlette.datastructures import Headers, MutableHeaders
from starlette.routing import Route
from starlette.types import Message, Receive, Scope, Send

from lectern.api.errors import error_body, error_response
from lectern.api.services import Services
from lectern.settings import Settings

if TYPE_CHECKING:
    from mcp.server.streamable_http_manager import StreamableHTTPSessionManager
    from mcp.server.transport_security import TransportSecuritySettings

log = logging.getLogger("lectern.mcp")

MCP_PATH = "/mcp"
LOOPBACK_HOSTS = ["127.0.0.1", "127.0.0.1:*", "localhost", "localhost:*", "[::1]", "[::1]:*"]
LOOPBACK_ORIGINS = ["http://127.0.0.1:*", "http://localhost:*", "http://[::1]:*"]


def transport_security(settings: Settings) -> TransportSecuritySettings:
    """With API keys, the key is the protection and any Host may be served. Without keys the service is
    meant for this machine (``lectern serve`` refuses other addresses unless told ``--insecure``), so MCP
    answers loopback Host headers only, and browser Origins only from loopback or LECTERN_CORS_ORIGINS:
    a web page cannot drive it through DNS rebinding."""
    from mcp.server.transport_security import TransportSecuritySettings

    if settings.api_keys:
        return TransportSecuritySettings(enable_dns_rebinding_protection=False)
    return TransportSecuritySettings(
        enable_dns_rebinding_protection=True,
        allowed_hosts=LOOPBACK_HOSTS,
        allowed_origins=[*LOOPBACK_ORIGINS, *settings.cors_origins],
    )


class _Manager:
    """Builds the MCP server and runs its session manager in one task (the SDK's task group must be
    entered and left by the same task), from the first /mcp request until the app stops."""

    def __init__(self, services: Services, settings: Settings) -> None:
        self._services = services
        self._settings = settings
        self._wake = asyncio.Event()  # a request wants the manager, or the app is stopping
        self._ready = asyncio.Event()
        self._stopping = False
        self.manager: StreamableHTTPSessionManager | None = None

    async def get(self) -> StreamableHTTPSessionManager | None:
        """The running manager, started by the first caller; None when it could not start."""
        if not self._ready.is_set():
            self._wake.set()
        await self._ready.wait()
        return self.manager

    def stop(self) -> None:
        self._stopping = True
        self._wake.set()

    async def run(self) -> None:
        await self._wake.wait()
        if self._stopping:
            return
        from lectern.mcp.server import Backend, BackendSlot, create_mcp_server

        services = self._services
        slot = BackendSlot(Backend(services.engine, services.turns, services.settings))
        try:
            server = create_mcp_server(slot)
            # Builds the session manager (the returned Starlette app is not used: the route below is ours).
            server.streamable_http_app(
                streamable_http_path=MCP_PATH,
                stateless_http=True,
                json_response=True,
                transport_security=transport_security(self._settings),
            )
            manager = server.session_manager
            async with manager.run():
                self.manager = manager
                self._ready.set()
                while not self._stopping:
                    self._wake.clear()
                    await self._wake.wait()
        except Exception:
            log.exception("mcp_not_started")
        finally:
            self.manager = None
            slot.backend = None
            self._ready.set()  # callers waiting on a start that failed get None


class _Endpoint:
    """The ASGI endpoint at /mcp: hands each request to the manager of the current app run."""

    def __init__(self) -> None:
        self.runner: _Manager | None = None

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        manager = await self.runner.get() if self.runner is not None else None
        if manager is None:
            response = error_response(503, "service_unavailable", "The MCP endpoint is not running.")
            await response(scope, receive, send)
            return
        await manager.handle_request(scope, receive, _json_errors(scope, send))


def _json_errors(scope: Scope, send: Send) -> Send:
    """The SDK answers some transport errors (a bad Host, a wrong Accept) in text/plain: send them as
    JSON-RPC errors, status kept, so every /mcp answer is JSON."""
    start: Message | None = None
    chunks: list[bytes] = []

    async def wrapped(message: Message) -> None:
        nonlocal start
        if message["type"] == "http.response.start":
            content_type = Headers(raw=message.get("headers", [])).get("content-type", "")
            if message["status"] >= 400 and not content_type.startswith("application/json"):
                start = message
                return
            await send(message)
            return
        if start is None or message["type"] != "http.response.body":
            await send(message)
            return
        chunks.append(message.get("body", b""))
        if message.get("more_body", False):
            return
        text = b"".join(chunks).decode("utf-8", "replace").strip() or "The MCP request was refused."
        body = json.dumps(error_body("mcp_transport", text, status=start["status"], family="mcp")).encode()
        headers = MutableHeaders(scope=start)
        headers["content-type"] = "application/json"
        headers["content-length"] = str(len(body))
        await send(start)
        await send({"type": "http.response.body", "body": body, "more_body": False})

    return wrapped


def mcp_router(settings: Settings) -> APIRouter:
    """A router holding ``/mcp`` and the lifespan that runs its session manager."""
    endpoint = _Endpoint()

    @asynccontextmanager
    async def lifespan(app: FastAPI) -> AsyncIterator[None]:
        runner = _Manager(app.state.services, settings)
        task = asyncio.create_task(runner.run(), name="mcp-session-manager")
        endpoint.runner = runner
        try:
            yield
        finally:
            endpoint.runner = None
            runner.stop()
            await task

    router = APIRouter(lifespan=lifespan)
    router.routes.append(Route(MCP_PATH, endpoint=endpoint, include_in_schema=False))
    return router
