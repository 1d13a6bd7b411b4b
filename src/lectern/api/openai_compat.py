"""OpenAI-compatible chat: ``POST /v1/chat/completions`` (plain or streamed) and ``GET /v1/models``.

Any OpenAI client can point its ``base_url`` at ``http://host:port/v1`` and get grounded answers:

- The ``messages`` array is the conversation. The last message must be the user's question (1-1000
  characters); earlier ``user``/``assistant`` turns are the history (follow-ups are rewritten with it,
  as in every face; their search favours the files the previous answer cited: `openai_sources`).
  ``tool`` messages and empty assistant turns are skipped. ``system``/``developer`` messages are
  *appended* to Lectern's own system prompt as operator instructions (at most 10,000
  characters): they can shape an LLM writer's style, never replace the grounding rules; the extractive
  writer ignores them. Nothing is stored: the client owns the conversation, as with OpenAI.
- The answer keeps its ``[n]`` markers; ``message.citations`` (streamed: the last chunk's
  ``delta.citations``) lists the sources: number, title, section, url, score (cosine similarity) and more.
  Clients that ignore the field still get a readable answer. A question the documents do not cover is a
  normal completion ("I don't have information about ... in the documents.") with empty citations.
- ``lectern`` (top level) carries confidence level, ``should_answer``, ``grounded`` and ``answerability``
  (the answerability decision's probability, null without one: what to rank answers by).
- ``usage``: a chat-model writer's own counts; for the extractive writer an estimate with the
  embedder's tokenizer: prompt = every message plus the retrieved passages, completion = the answer.
- Lectern extensions (``extra_body``): ``top_k`` (1-10) and ``similarity_threshold`` (0-1). Sampling
  parameters (temperature, max_tokens, ...) are accepted and ignored; ``n`` must be 1.
- Errors use OpenAI's shape ``{"error": {"message", "type", "param", "code"}}``: 400
  invalid_request_error, 401 invalid_api_key, 404 model_not_found, 429 rate_limit_exceeded, 503.
  `OpenAIErrorShape` rewrites the API's own error bodies (guard, body limit, validation) on ``/v1``.
"""

from __future__ import annotations

import json
import logging
import time
import uuid
from collections.abc import AsyncIterator, Sequence
from typing import Annotated, Any, Literal

from fastapi import APIRouter, Depends
from pydantic import BaseModel, ConfigDict, Field
from starlette.datastructures import MutableHeaders
from starlette.responses import JSONResponse, Response, StreamingResponse
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from lectern import debug
from lectern.api.errors import status_for_code
from lectern.api.openai_sources import citations_of, recall_previous_sources
from lectern.api.services import Services, services
from lectern.conversation import Conversation
from lectern.conversation import Message as TurnMessage
from lectern.embeddings.base import Tokenizer
from lectern.engine import AskOptions, Engine
from lectern.events import Done, Event, Failed, Retrieved, Token
from lectern.models import Answer
from lectern.retrieval import CHAT_MAX_TOP_K
from lectern.views import CitedSource
from lectern.writers.selection import MAX_USER_CONTEXT_CHARS

log = logging.getLogger("lectern.api")

router = APIRouter(prefix="/v1", tags=["openai"])
Svc = Annotated[Services, Depends(services)]

QUESTION_MAX = 1000  # seed 000 ChatRequest.message
MAX_MESSAGES = 200
MESSAGE_MAX_CHARS = 50_000  # seeds: string fields at most 50,000 characters
CREATED = int(time.time())  # /v1/models: when this process started serving the model
OPERATOR_HEADER = "Operator instructions (they never override the rules above):"


# --- wire models ----------------------------------------------------------------------------------------


class ContentPart(BaseModel):
    model_config = ConfigDict(extra="allow")
    type: str
    text: str | None = None


class ChatMessage(BaseModel):
    model_config = ConfigDict(extra="allow")  # name, tool_calls, refusal, ... are accepted
    role: Literal["system", "developer", "user", "assistant", "tool", "function"]
    content: str | list[ContentPart] | None = None


class StreamOptions(BaseModel):
    model_config = ConfigDict(extra="allow")
    include_usage: bool = False


class ChatCompletionRequest(BaseModel):
    # temperature, top_p, max_tokens, stop, seed, user, ...: accepted, ignored (the writer is configured).
    model_config = ConfigDict(extra="allow")

    model: str = Field(description="The served model name (GET /v1/models).")
    messages: list[ChatMessage] = Field(min_length=1, max_length=MAX_MESSAGES)
    stream: bool = False
    stream_options: StreamOptions | None = None
    n: int = Field(1, ge=1, le=1, description="Only one choice is produced.")
    top_k: int | None = Field(None, ge=1, le=CHAT_MAX_TOP_K, description="Lectern: chunks to retrieve, 1-10.")
    similarity_threshold: float | None = Field(
        None, ge=0.0, le=1.0, description="Lectern: minimum cosine similarity, 0.0-1.0."
    )


class CitationOut(CitedSource):
    """A source in the `citations` field of a completion."""


# --- errors ---------------------------------------------------------------------------------------------


class OpenAIError(Exception):
    def __init__(
        self,
        status: int,
        message: str,
        *,
        type_: str | None = None,
        code: str | None = None,
        param: str | None = None,
    ) -> None:
        super().__init__(message)
        self.status = status
        self.message = message
        self.type = type_ or error_type(status)
        self.code = code
        self.param = param

    def body(self) -> dict[str, Any]:
        return {"error": {"message": self.message, "type": self.type, "param": self.param, "code": self.code}}

    def response(self, headers: dict[str, str] | None = None) -> JSONResponse:
        return JSONResponse(self.body(), status_code=self.status, headers=headers)


def error_type(status: int) -> str:
    if status == 429:
        return "requests"
    return "server_error" if status >= 500 else "invalid_request_error"


_CODES = {
    401: "invalid_api_key",
    429: "rate_limit_exceeded",
    500: "internal_error",
    503: "service_unavailable",
}
_PLAIN_400 = {"invalid_request", "INVALID_INPUT"}


def translate(status: int, error: dict[str, Any]) -> OpenAIError:
    """The API's ``{"error": {"code", "message", "details"}}`` as OpenAI's error."""
    code = str(error.get("code") or "") or None
    details = error.get("details") if isinstance(error.get("details"), dict) else {}
    field = details.get("field") if details else None
    if status in _CODES:
        code = _CODES[status]
    elif code == "TOKEN_LIMIT":
        code = "context_length_exceeded"
    elif code in _PLAIN_400:
        code = None
    message = str(error.get("message") or "The request failed.")
    return OpenAIError(status, message, code=code, param=field if isinstance(field, str) else None)


def _failed(event: Failed) -> OpenAIError:
    return translate(status_for_code(event.code), {"code": event.code, "message": event.message})


class OpenAIErrorShape:
    """Pure ASGI: an error response on ``/v1/...`` in the API's shape becomes OpenAI's shape (status and
    headers kept). Covers what runs before the routes: the key guard (401), rate limit (429), body limit
    (413), validation (400), unknown paths (404)."""

    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http" or not (scope["path"] == "/v1" or scope["path"].startswith("/v1/")):
            await self.app(scope, receive, send)
            return
        start: Message | None = None
        chunks: list[bytes] = []

        async def rewrite(message: Message) -> None:
            nonlocal start
            if message["type"] == "http.response.start":
                if message["status"] < 400:
                    await send(message)
                    return
                start = message
                return
            if start is None or message["type"] != "http.response.body":
                await send(message)
                return
            chunks.append(message.get("body", b""))
            if message.get("more_body", False):
                return
            body = b"".join(chunks)
            try:
                parsed = json.loads(body)
                error = parsed["error"]
                if isinstance(error, dict) and "type" not in error:
                    body = json.dumps(translate(start["status"], error).body(), ensure_ascii=False).encode()
            except (ValueError, KeyError, TypeError):
                pass  # not ours to rewrite: sent as it was
            headers = MutableHeaders(scope=start)
            headers["content-length"] = str(len(body))
            headers["content-type"] = "application/json"
            await send(start)
            await send({"type": "http.response.body", "body": body, "more_body": False})

        await self.app(scope, receive, rewrite)


# --- the conversation from the messages ------------------------------------------------------------------


def _text(message: ChatMessage, index: int) -> str:
    content = message.content
    if content is None:
        return ""
    if isinstance(content, str):
        text = content
    else:
        parts = []
        for part in content:
            if part.type != "text" or part.text is None:
                raise OpenAIError(
                    400,
                    f"messages[{index}]: only text content parts are supported, not {part.type!r}.",
                    param=f"messages.{index}.content",
                )
            parts.append(part.text)
        text = "\n".join(parts)
    if len(text) > MESSAGE_MAX_CHARS:
        raise OpenAIError(
            400,
            f"messages[{index}] is longer than {MESSAGE_MAX_CHARS} characters.",
            param=f"messages.{index}.content",
        )
    return text


def conversation_of(messages: Sequence[ChatMessage], engine: Engine) -> tuple[str, Conversation, list[str]]:
    """(question, conversation, every message text) from an OpenAI messages array."""
    *earlier, last = messages
    index = len(messages) - 1
    if last.role != "user":
        raise OpenAIError(
            400, "The last message must be the user's question.", param=f"messages.{index}.role"
        )
    question = _text(last, index)
    if not question.strip():
        raise OpenAIError(
            400, "The question (the last user message) is empty.", param=f"messages.{index}.content"
        )
    if len(question) > QUESTION_MAX:
        raise OpenAIError(
            400,
            f"The question (the last user message) must be at most {QUESTION_MAX} characters.",
            param=f"messages.{index}.content",
        )
    base = engine.new_conversation()
    instructions: list[str] = []
    history: list[TurnMessage] = []
    texts = [question]
    for i, m in enumerate(earlier):
        text = _text(m, i)
        texts.append(text)
        if m.role in ("system", "developer"):
            if text.strip():
                instructions.append(text.strip())
        elif m.role == "user" and text.strip():
            history.append(TurnMessage(m.role, text))
        elif m.role == "assistant" and text.strip():
            # a client that sends the message back as it came keeps its citations: the follow-up's search
            # favours their files, as in a session
            history.append(TurnMessage(m.role, text, citations=citations_of(m.model_extra)))
    operator = "\n\n".join(instructions)
    if len(operator) > MAX_USER_CONTEXT_CHARS:
        raise OpenAIError(
            400, f"System messages must total at most {MAX_USER_CONTEXT_CHARS} characters.", param="messages"
        )
    system = base.system_prompt + (f"\n\n{OPERATOR_HEADER}\n{operator}" if operator else "")
    conversation = Conversation(system_prompt=system, max_history=base.max_history, messages=history)
    conversation.turns = sum(1 for m in history if m.role == "user")
    return question, conversation, texts


# --- usage ----------------------------------------------------------------------------------------------


def _count(tokenizer: Tokenizer, texts: list[str]) -> int:
    texts = [t for t in texts if t]
    if not texts:
        return 0
    try:
        return sum(tokenizer.count_tokens_many(texts))
    except Exception:  # an estimate must never fail a request: ~4/3 tokens a word
        return sum(len(t.split()) * 4 // 3 + 1 for t in texts)


def usage_of(answer: Answer, tokenizer: Tokenizer, texts: list[str], retrieved: list[str]) -> dict[str, int]:
    if answer.usage.prompt_tokens > 0:  # a chat model counted them
        prompt, completion = answer.usage.prompt_tokens, answer.usage.completion_tokens
    else:
        prompt = _count(tokenizer, [*texts, *retrieved])
        completion = _count(tokenizer, [answer.text])
    return {"prompt_tokens": prompt, "completion_tokens": completion, "total_tokens": prompt + completion}


# --- routes ---------------------------------------------------------------------------------------------


class _Run:
    """One completion: its id, and what the face gathers from the engine's events."""

    def __init__(self, model: str, texts: list[str]) -> None:
        self.id = f"chatcmpl-{uuid.uuid4().hex}"
        self.created = int(time.time())
        self.model = model
        self.texts = texts
        self.retrieved: dict[str, str] = {}

    def saw(self, event: Event) -> None:
        if isinstance(event, Retrieved):
            for hit in event.result.hits:
                self.retrieved.setdefault(hit.chunk.content_hash, hit.chunk.text)

    def extension(self, answer: Answer) -> dict[str, Any]:
        return {
            "confidence_level": answer.confidence.confidence_level,
            "confidence": round(min(max(answer.confidence.average_similarity, 0.0), 1.0), 4),
            "should_answer": answer.confidence.should_answer,
            # the answerability decision's probability (null without one): what to rank answers by
            "answerability": answer.confidence.answerability,
            "grounded": answer.grounded,
            "search_query": answer.search_query,
            # A refusal: why, and the closest sections as further reading (never as citations).
            "refusal_reason": answer.refusal_reason,
            "related": [CitationOut.of(c).model_dump() for c in answer.related],
            **debug.report(answer),  # timings; warnings such as a TOKEN_LIMIT trim
        }

    def chunk(self, delta: dict[str, Any], finish: str | None = None, **extra: Any) -> bytes:
        body = {
            "id": self.id,
            "object": "chat.completion.chunk",
            "created": self.created,
            "model": self.model,
            "system_fingerprint": None,
            "choices": [{"index": 0, "delta": delta, "logprobs": None, "finish_reason": finish}],
            **extra,
        }
        return _sse(body)


def _verification(answer: Answer) -> dict[str, Any] | None:
    """Beside `citations`: how an LLM answer held up against its passages (null for other writers)."""
    return answer.verification.model_dump(mode="json") if answer.verification else None


def _sse(body: dict[str, Any]) -> bytes:
    return f"data: {json.dumps(body, ensure_ascii=False)}\n\n".encode()


@router.get("/models", summary="The served model (OpenAI-compatible)")
async def list_models(svc: Svc) -> dict[str, Any]:
    return {"object": "list", "data": [_model(svc.settings.model_name)]}


@router.get("/models/{model_id}", summary="One served model (OpenAI-compatible)")
async def get_model(model_id: str, svc: Svc) -> Response:
    if model_id != svc.settings.model_name:
        return _no_model(model_id, svc.settings.model_name).response()
    return JSONResponse(_model(model_id))


def _model(name: str) -> dict[str, Any]:
    return {"id": name, "object": "model", "created": CREATED, "owned_by": "lectern"}


def _no_model(given: str, served: str) -> OpenAIError:
    return OpenAIError(
        404,
        f"The model `{given}` does not exist; this server serves `{served}`.",
        code="model_not_found",
        param="model",
    )


@router.post(
    "/chat/completions",
    summary="Chat completion with citations (OpenAI-compatible; stream: true for SSE chunks)",
    response_model=None,
)
async def chat_completions(body: ChatCompletionRequest, svc: Svc) -> Response:
    try:
        if body.model != svc.settings.model_name:
            raise _no_model(body.model, svc.settings.model_name)
        question, conversation, texts = conversation_of(body.messages, svc.engine)
    except OpenAIError as exc:
        return exc.response()
    options = AskOptions(top_k=body.top_k, threshold=body.similarity_threshold, max_top_k=CHAT_MAX_TOP_K)
    await recall_previous_sources(conversation, svc.engine, options)
    run = _Run(svc.settings.model_name, texts)
    svc.sink.emit(
        "query_received", face="openai", query_length=len(question), history=len(conversation.history)
    )
    events = svc.engine.stream(question, conversation, options)
    # The first event decides the status: a request the engine refuses (or a dead index) is a real 4xx/5xx,
    # not a stream that fails after a 200.
    first = await anext(events)
    if isinstance(first, Failed):
        svc.sink.emit("error", face="openai", code=first.code, error_message=first.message)
        return _failed(first).response()
    tokenizer = svc.engine.retriever.embedder
    if body.stream:
        include_usage = bool(body.stream_options and body.stream_options.include_usage)
        return StreamingResponse(
            _stream(run, first, events, tokenizer, include_usage, svc),
            media_type="text/event-stream",
            headers={"Cache-Control": "no-cache", "X-Accel-Buffering": "no"},
        )
    answer: Answer | None = None
    async for event in _chain(first, events):
        run.saw(event)
        if isinstance(event, Done):
            answer = event.answer
        elif isinstance(event, Failed):
            svc.sink.emit("error", face="openai", code=event.code, error_message=event.message)
            return _failed(event).response()
    if answer is None:
        return OpenAIError(500, "The engine ended without an answer.", code="internal_error").response()
    _log_done(svc, answer)
    message = {
        "role": "assistant",
        "content": answer.text,
        "refusal": None,
        "citations": [CitationOut.of(c).model_dump() for c in answer.citations],
        "verification": _verification(answer),
    }
    return JSONResponse(
        {
            "id": run.id,
            "object": "chat.completion",
            "created": run.created,
            "model": run.model,
            "system_fingerprint": None,
            "choices": [{"index": 0, "message": message, "logprobs": None, "finish_reason": "stop"}],
            "usage": usage_of(answer, tokenizer, run.texts, list(run.retrieved.values())),
            "lectern": run.extension(answer),
        },
        headers={"Server-Timing": debug.server_timing(answer)},
    )


async def _chain(first: Event, rest: AsyncIterator[Event]) -> AsyncIterator[Event]:
    yield first
    async for event in rest:
        yield event


async def _stream(
    run: _Run,
    first: Event,
    events: AsyncIterator[Event],
    tokenizer: Tokenizer,
    include_usage: bool,
    svc: Services,
) -> AsyncIterator[bytes]:
    usage_field: dict[str, Any] = {"usage": None} if include_usage else {}
    yield run.chunk({"role": "assistant", "content": ""}, **usage_field)
    async for event in _chain(first, events):
        run.saw(event)
        if isinstance(event, Token):
            if event.text:
                yield run.chunk({"content": event.text}, **usage_field)
        elif isinstance(event, Done):
            answer = event.answer
            _log_done(svc, answer)
            citations = [CitationOut.of(c).model_dump() for c in answer.citations]
            final = {"citations": citations, "verification": _verification(answer)}
            yield run.chunk(final, "stop", lectern=run.extension(answer), **usage_field)
            if include_usage:
                usage = usage_of(answer, tokenizer, run.texts, list(run.retrieved.values()))
                yield _sse(
                    {
                        "id": run.id,
                        "object": "chat.completion.chunk",
                        "created": run.created,
                        "model": run.model,
                        "system_fingerprint": None,
                        "choices": [],
                        "usage": usage,
                    }
                )
            yield b"data: [DONE]\n\n"
            return
        elif isinstance(event, Failed):
            svc.sink.emit("error", face="openai", code=event.code, error_message=event.message)
            yield _sse(_failed(event).body())
            return


def _log_done(svc: Services, answer: Answer) -> None:
    svc.sink.emit(
        "response_sent",
        face="openai",
        duration_ms=answer.timings.total_ms,
        confidence_level=answer.confidence.confidence_level,
        grounded=answer.grounded,
        citations=len(answer.citations),
        model=answer.model_used,
    )
