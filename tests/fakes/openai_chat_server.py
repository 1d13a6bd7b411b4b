"""A scripted OpenAI-compatible chat-completions server on loopback, for tests over real HTTP.

The openai SDK (3.x) sends through ``httpx2``, which respx cannot intercept, so tests run this server
(Starlette under uvicorn, in a thread, on a free port of 127.0.0.1) and point the SDK at
``server.base_url``.

Each ``POST /v1/chat/completions`` takes the next step of the script:

- ``Reply("text")``: the answer, streamed as ``chat.completion.chunk`` SSE events exactly as OpenAI
  sends them (a role chunk, content deltas, a ``finish_reason`` chunk, then, when the request asks
  for ``stream_options.include_usage``, a usage chunk with empty ``choices``, then ``data: [DONE]``);
  a non-streamed request gets one ``chat.completion`` object instead.
- ``ToolCalls([ToolCall("retrieve_context", '{"query": ...}')])``: tool calls, their arguments
  streamed in fragments as ``tool_calls`` deltas keyed by ``index``; ``finish_reason: "tool_calls"``.
- ``Fail(status, ...)``: an HTTP error with OpenAI's error body (and optional headers, e.g.
  ``Retry-After``).
- any step's ``delay_s`` waits before the response headers, ``chunk_delay_s`` between chunks and
  ``stall_after`` (a chunk count) stops sending after that many chunks and hangs, recording
  whether and when the client went away (``server.disconnects``).
- a callable ``(request_body) -> step`` decides from the request (e.g. by its tool results).
- ``default`` (a step or a callable) answers every request once the script is exhausted, for a server
  shared by many requests (several replicas pointed at it).

Every request body is kept in ``server.requests`` (in arrival order), so tests can see the messages,
tools and retries the client sent.
"""

from __future__ import annotations

import asyncio
import json
import threading
import time
import uuid
from collections.abc import AsyncIterator, Callable, Iterable, Iterator
from dataclasses import dataclass, field
from typing import Any

from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import JSONResponse, Response, StreamingResponse
from starlette.routing import Route

from lectern.writers.capabilities import forget_modes
from tests.fakes.threaded_uvicorn import ThreadedUvicorn


@dataclass(frozen=True)
class ToolCall:
    name: str
    arguments: str
    """The raw arguments string, which need not be valid JSON (to script malformed calls)."""
    id: str = ""


@dataclass(frozen=True)
class Step:
    delay_s: float = 0.0
    """Wait this long before sending the response headers."""
    chunk_delay_s: float = 0.0
    """Wait this long before each streamed chunk."""
    stall_after: int | None = None
    """Send this many chunks, then send nothing more and wait for the client to go away."""
    usage: tuple[int, int] | None = None
    """(prompt_tokens, completion_tokens); by default estimated from the request and the reply."""
    include_usage: bool = True
    """Send the usage chunk when the request asks for it (False plays a provider that never does)."""


@dataclass(frozen=True)
class Reply(Step):
    text: str = ""
    pieces: tuple[str, ...] | None = None
    """The content deltas; by default the text split after each space."""
    finish_reason: str = "stop"


@dataclass(frozen=True)
class ToolCalls(Step):
    calls: tuple[ToolCall, ...] = ()
    content: str = ""
    """Text the model writes before its tool calls (some models do)."""
    fragment_chars: int = 7
    """Arguments are streamed in fragments this long."""


@dataclass(frozen=True)
class Fail(Step):
    status: int = 500
    message: str = "The server had an error while processing your request."
    type: str = "server_error"
    code: str | None = None
    headers: dict[str, str] = field(default_factory=dict)


@dataclass(frozen=True)
class Garbage(Step):
    """A 200 ``text/event-stream`` whose ``data:`` lines are sent as they are (non-JSON, wrong shapes):
    a provider or proxy that misbehaves mid-stream."""

    lines: tuple[str, ...] = ("data: {not json",)


ScriptItem = Step | Callable[[dict[str, Any]], Step]


def reply(text: str, **kwargs: Any) -> Reply:
    return Reply(text=text, **kwargs)


def tool_calls(*calls: ToolCall | tuple[str, str], **kwargs: Any) -> ToolCalls:
    made = tuple(c if isinstance(c, ToolCall) else ToolCall(c[0], c[1]) for c in calls)
    return ToolCalls(calls=made, **kwargs)


def retrieve_call(query: str, **arguments: Any) -> ToolCall:
    """A well-formed ``retrieve_context`` call."""
    return ToolCall("retrieve_context", json.dumps({"query": query, **arguments}))


@dataclass
class Disconnect:
    request_index: int
    chunks_sent: int
    at: float
    """``time.monotonic()`` when the server noticed the client had gone."""


def _split_words(text: str) -> list[str]:
    pieces: list[str] = []
    current = ""
    for ch in text:
        current += ch
        if ch == " ":
            pieces.append(current)
            current = ""
    if current:
        pieces.append(current)
    return pieces


def _estimate_prompt_tokens(body: dict[str, Any]) -> int:
    return max(1, len(json.dumps(body.get("messages", []))) // 4)


class FakeChatServer:
    """Use as a context manager: ``with FakeChatServer([...]) as server: ... server.base_url``."""

    def __init__(
        self,
        script: Iterable[ScriptItem] = (),
        *,
        model: str = "fake-model",
        default: ScriptItem | None = None,
    ) -> None:
        self.script: list[ScriptItem] = list(script)
        self.default = default
        self.model = model
        self.requests: list[dict[str, Any]] = []
        self.request_headers: list[dict[str, str]] = []
        self.disconnects: list[Disconnect] = []
        self.completed: list[int] = []
        """Indexes of requests whose response was sent to the end."""
        self.disconnected = threading.Event()
        self.props: dict[str, Any] | None = {
            "chat_template_caps": {"supports_tools": True, "supports_tool_calls": True}
        }
        """What ``GET /props`` answers (llama.cpp's server info, here claiming tool support); None: 404."""
        self.show: dict[str, Any] | None = None
        """What ``POST /api/show`` answers (Ollama's model info); None: 404."""
        self._lock = threading.Lock()
        self._uvicorn: ThreadedUvicorn | None = None
        self._port = 0

    # --- lifecycle -------------------------------------------------------------------------------
    @property
    def base_url(self) -> str:
        return f"http://127.0.0.1:{self._port}/v1"

    def add(self, *items: ScriptItem) -> None:
        with self._lock:
            self.script.extend(items)

    def __enter__(self) -> FakeChatServer:
        # A new server may get the port of an earlier one with other capabilities: Lectern must ask it.
        forget_modes()
        app = Starlette(
            routes=[
                Route("/v1/chat/completions", self._completions, methods=["POST"]),
                Route("/props", self._props, methods=["GET"]),
                Route("/api/show", self._show, methods=["POST"]),
            ]
        )
        self._uvicorn = ThreadedUvicorn(app, what="fake chat server", lifespan="off")
        self._port = self._uvicorn.port
        self._uvicorn.start()
        return self

    def __exit__(self, *exc: object) -> None:
        if self._uvicorn is not None:
            self._uvicorn.stop()

    # --- observations ----------------------------------------------------------------------------
    @property
    def attempts(self) -> int:
        return len(self.requests)

    def wait_for_disconnect(self, timeout_s: float) -> bool:
        return self.disconnected.wait(timeout_s)

    def tool_messages(self, request_index: int = -1) -> list[dict[str, Any]]:
        """The ``tool`` messages of one request, parsed from their JSON content."""
        out = []
        for m in self.requests[request_index]["messages"]:
            if m.get("role") == "tool":
                out.append({**m, "content": json.loads(m["content"])})
        return out

    # --- the endpoint ----------------------------------------------------------------------------
    def _next_step(self, body: dict[str, Any]) -> tuple[int, Step]:
        with self._lock:
            index = len(self.requests)
            self.requests.append(body)
            if self.script:
                item = self.script.pop(0)
            elif self.default is not None:
                item = self.default
            else:
                return index, Fail(status=500, message="fake chat server: the script is exhausted")
        return index, item(body) if callable(item) else item

    async def _show(self, request: Request) -> Response:
        if self.show is None:
            return JSONResponse({"error": "not found"}, status_code=404)
        return JSONResponse(self.show)

    async def _props(self, request: Request) -> Response:
        if self.props is None:
            return JSONResponse({"error": {"code": 404, "message": "File Not Found"}}, status_code=404)
        return JSONResponse(self.props)

    async def _completions(self, request: Request) -> Response:
        body = await request.json()
        self.request_headers.append(dict(request.headers))
        index, step = self._next_step(body)
        if step.delay_s:
            await asyncio.sleep(step.delay_s)
        if isinstance(step, Fail):
            error = {"message": step.message, "type": step.type, "param": None, "code": step.code}
            return JSONResponse({"error": error}, status_code=step.status, headers=step.headers)
        if isinstance(step, Garbage):
            raw = "".join(f"{line}\n\n" for line in step.lines).encode()
            return Response(raw, media_type="text/event-stream")
        if not body.get("stream"):
            return JSONResponse(self._completion(body, step))
        return StreamingResponse(
            self._stream(index, body, step),
            media_type="text/event-stream",
            headers={"Cache-Control": "no-cache"},
        )

    # --- wire shapes -----------------------------------------------------------------------------
    def _usage(self, body: dict[str, Any], step: Step, completion_text: str) -> dict[str, int]:
        if step.usage is not None:
            prompt, completion = step.usage
        else:
            prompt = _estimate_prompt_tokens(body)
            completion = max(1, len(completion_text) // 4)
        return {"prompt_tokens": prompt, "completion_tokens": completion, "total_tokens": prompt + completion}

    def _completion(self, body: dict[str, Any], step: Step) -> dict[str, Any]:
        message: dict[str, Any] = {"role": "assistant", "content": None, "refusal": None}
        text = ""
        finish = "stop"
        if isinstance(step, Reply):
            message["content"] = text = step.text
            finish = step.finish_reason
        elif isinstance(step, ToolCalls):
            message["content"] = step.content or None
            message["tool_calls"] = [
                {
                    "id": c.id or f"call_{i}",
                    "type": "function",
                    "function": {"name": c.name, "arguments": c.arguments},
                }
                for i, c in enumerate(step.calls)
            ]
            text = step.content + "".join(c.arguments for c in step.calls)
            finish = "tool_calls"
        return {
            "id": f"chatcmpl-{uuid.uuid4().hex[:24]}",
            "object": "chat.completion",
            "created": int(time.time()),
            "model": body.get("model", self.model),
            "system_fingerprint": "fp_fake",
            "choices": [{"index": 0, "message": message, "logprobs": None, "finish_reason": finish}],
            "usage": self._usage(body, step, text),
        }

    def _deltas(self, step: Step) -> Iterator[tuple[dict[str, Any], str | None]]:
        """(delta, finish_reason) pairs after the role chunk."""
        if isinstance(step, Reply):
            pieces = step.pieces if step.pieces is not None else tuple(_split_words(step.text))
            for piece in pieces:
                yield {"content": piece}, None
            yield {}, step.finish_reason
        elif isinstance(step, ToolCalls):
            for piece in _split_words(step.content):
                yield {"content": piece}, None
            for i, call in enumerate(step.calls):
                call_id = call.id or f"call_{uuid.uuid4().hex[:24]}"
                head = {"index": i, "id": call_id, "type": "function"}
                yield {"tool_calls": [{**head, "function": {"name": call.name, "arguments": ""}}]}, None
                args = call.arguments
                size = max(1, step.fragment_chars)
                for start in range(0, len(args), size):
                    fragment = args[start : start + size]
                    yield {"tool_calls": [{"index": i, "function": {"arguments": fragment}}]}, None
            yield {}, "tool_calls"
        else:
            yield {}, "stop"

    async def _stream(self, index: int, body: dict[str, Any], step: Step) -> AsyncIterator[bytes]:
        chunk_id = f"chatcmpl-{uuid.uuid4().hex[:24]}"
        created = int(time.time())
        model = body.get("model", self.model)
        include_usage = bool((body.get("stream_options") or {}).get("include_usage"))

        def chunk(choices: list[dict[str, Any]], usage: dict[str, int] | None = None) -> bytes:
            payload: dict[str, Any] = {
                "id": chunk_id,
                "object": "chat.completion.chunk",
                "created": created,
                "model": model,
                "system_fingerprint": "fp_fake",
                "choices": choices,
            }
            if include_usage:
                payload["usage"] = usage
            return f"data: {json.dumps(payload)}\n\n".encode()

        def choice(delta: dict[str, Any], finish: str | None) -> dict[str, Any]:
            return {"index": 0, "delta": delta, "logprobs": None, "finish_reason": finish}

        sent = 0
        finished = False
        text = ""
        try:
            frames = [chunk([choice({"role": "assistant", "content": "", "refusal": None}, None)])]
            for delta, finish in self._deltas(step):
                text += delta.get("content", "")
                for call in delta.get("tool_calls", []):
                    text += call.get("function", {}).get("arguments", "")
                frames.append(chunk([choice(delta, finish)]))
            if include_usage and step.include_usage:
                frames.append(chunk([], self._usage(body, step, text)))
            frames.append(b"data: [DONE]\n\n")
            for frame in frames:
                if step.stall_after is not None and sent >= step.stall_after:
                    await asyncio.sleep(3600)
                if step.chunk_delay_s:
                    await asyncio.sleep(step.chunk_delay_s)
                yield frame
                sent += 1
            finished = True
            self.completed.append(index)
        finally:
            if not finished:
                self.disconnects.append(Disconnect(index, sent, time.monotonic()))
                self.disconnected.set()
