"""An answer writer on any OpenAI-compatible chat model (OpenAI, vLLM, Ollama, llama.cpp, OpenRouter),
retrieving through the `retrieve_context` tool.

One turn is a small loop: stream a completion; when the model asks for `retrieve_context`, run each
call through `request.retrieve` (the engine counts, caches, caps and reports it) and send the result
back as seed 003's `RetrievalToolResponse` JSON; stream again until the model answers. Content deltas
are forwarded as `Token`s as they arrive, then one `Written` closes the turn with the full text, the
cited source numbers (see `lectern.writers.sources` for the numbering contract), the token usage
summed over every completion of the turn, and warnings.

Failure rules:
- **Retries**: HTTP 429, 408, 409 and 5xx, connection errors and SDK timeouts are retried with
  exponential backoff (`retry_backoff_s` × 2^(attempt-1), at least `Retry-After`, plus jitter), up to
  `provider_max_attempts` attempts per completion, but only while that completion has not forwarded a
  token. Then `ProviderError` (code `API_ERROR`). Other 4xx fail at once; a context-length error is
  `TokenLimit`. The SDK's own retries are off, so every attempt is one request the server sees.
- **Stall**: when the provider sends nothing for `llm_stall_timeout_s` (waiting for the response or
  between chunks) the turn ends with `ProviderTimeout` (`provider_timeout`), without retrying (three
  stalls would triple the wait a user sees); the HTTP stream is closed.
- **Cancellation**: cancelling the consumer (or closing the generator) closes the HTTP response at
  once, so the provider sees the disconnect and stops generating.
- **Context window**: the prompt is estimated (`lectern.writers.budget`); when the history does not
  fit `llm_context_tokens` (after room for the answer and for retrieved passages) the oldest turns are
  left out and a `TOKEN_LIMIT` warning is added to `Written.warnings`; when even the system prompt
  and the question do not fit, `TokenLimit`. Tool results that would overflow lose their lowest-ranked
  passages (with a warning).
- **Tool misuse**: malformed arguments, an unknown tool, or a search beyond `llm_max_tool_calls` get an
  `error` tool result the model can act on; never an exception. Once the searches are spent the tools
  are offered with `tool_choice="none"`.
"""

from __future__ import annotations

import asyncio
import json
import logging
import os
import random
import time
import weakref
from collections.abc import AsyncIterator, Mapping
from dataclasses import dataclass, field
from typing import Any, cast

import openai
from openai import AsyncOpenAI, AsyncStream
from openai.types.chat import ChatCompletionChunk

from lectern.errors import ConfigError, LecternError, ProviderError, ProviderTimeout, TokenLimit
from lectern.events import Token
from lectern.models import RetrievalResult, TokenUsage
from lectern.settings import Settings
from lectern.writers.base import WriteRequest, WriterEvent, Written
from lectern.writers.budget import estimate_tokens, fit_history, messages_tokens
from lectern.writers.capabilities import WriterMode, detect_mode
from lectern.writers.llm_spec import LLMSpec, parse_llm_spec
from lectern.writers.prompts import context_message, system_prompt, user_message
from lectern.writers.sources import SourceBook
from lectern.writers.tool_schema import (
    EMPTY_RETRIEVAL,
    INVALID_ARGUMENTS,
    RETRIEVE_CONTEXT_TOOL,
    TOOL_CALL_LIMIT,
    TOOL_NAME,
    TOOL_TEXT_CHARS,
    UNKNOWN_TOOL,
    ToolArgumentError,
    hit_entry,
    parse_tool_arguments,
    tool_error_json,
    tool_response_json,
)

__all__ = ["LLMSpec", "OpenAIChatWriter", "parse_llm_spec"]

log = logging.getLogger(__name__)

NO_KEY_PLACEHOLDER = "sk-no-key-required"
"""Sent to self-hosted servers that need no key (the SDK insists on one)."""
MAX_RETRY_DELAY_S = 30.0
_RETRYABLE_STATUS = frozenset({408, 409, 429})
_TOOL_TOKENS = estimate_tokens(json.dumps(RETRIEVE_CONTEXT_TOOL))
_PASSAGE_TOKENS = TOOL_TEXT_CHARS // 4 + 40
"""One passage in a tool result: its text plus the keys around it."""


@dataclass
class _ToolCall:
    id: str = ""
    name: str = ""
    arguments: str = ""


@dataclass
class _Round:
    """What one completion produced."""

    content: list[str] = field(default_factory=list)
    calls: dict[int, _ToolCall] = field(default_factory=dict)
    usage: TokenUsage | None = None
    finish_reason: str | None = None
    _last_index: int = -1

    @property
    def text(self) -> str:
        return "".join(self.content)

    def reset(self) -> None:
        """Forget a failed attempt."""
        self.content.clear()
        self.calls.clear()
        self.usage = None
        self.finish_reason = None
        self._last_index = -1

    def ordered_calls(self) -> list[_ToolCall]:
        return [self.calls[i] for i in sorted(self.calls)]

    def absorb(self, chunk: ChatCompletionChunk) -> str:
        """Fold one streamed chunk in; return its content text."""
        if chunk.usage is not None:
            self.usage = TokenUsage(
                prompt_tokens=chunk.usage.prompt_tokens or 0,
                completion_tokens=chunk.usage.completion_tokens or 0,
            )
        text = ""
        for choice in chunk.choices or []:
            if getattr(choice, "index", 0) not in (0, None):
                continue
            delta = choice.delta
            if delta is not None:
                if delta.content:
                    text += delta.content
                for call in delta.tool_calls or []:
                    self._absorb_call(call)
            if choice.finish_reason:
                self.finish_reason = choice.finish_reason
        if text:
            self.content.append(text)
        return text

    def _absorb_call(self, delta: Any) -> None:
        # Accumulate by `index`; servers that leave it out start a new call with each new id.
        index = getattr(delta, "index", None)
        call_id = getattr(delta, "id", None) or ""
        if not isinstance(index, int):
            last = self.calls.get(self._last_index)
            new = last is None or (call_id and last.id and call_id != last.id)
            index = len(self.calls) if new else self._last_index
        self._last_index = index
        call = self.calls.setdefault(index, _ToolCall())
        if call_id and not call.id:
            call.id = call_id
        function = getattr(delta, "function", None)
        if function is not None:
            name = getattr(function, "name", None)
            if name and not call.name:
                call.name = name
            call.arguments += getattr(function, "arguments", None) or ""


class _Retry(Exception):
    """An attempt failed in a way worth retrying (internal)."""

    def __init__(self, detail: str, retry_after_s: float | None = None) -> None:
        super().__init__(detail)
        self.detail = detail
        self.retry_after_s = retry_after_s


def _retry_after(headers: Mapping[str, str]) -> float | None:
    for name in ("retry-after-ms", "retry-after"):
        raw = headers.get(name)
        if raw is None:
            continue
        try:
            value = float(raw)
        except ValueError:
            continue
        return value / 1000 if name.endswith("-ms") else value
    return None


def _status_detail(exc: openai.APIStatusError) -> str:
    message = exc.message or ""
    if isinstance(exc.body, Mapping):
        message = str(exc.body.get("message") or message)
    return f"HTTP {exc.status_code}: {message}".strip().rstrip(":")


def _is_context_overflow(exc: openai.APIStatusError) -> bool:
    code = (exc.code or "").lower()
    text = (exc.message or "").lower()
    return code in {"context_length_exceeded", "string_above_max_length"} or (
        exc.status_code in (400, 413) and ("context length" in text or "context window" in text)
    )


class OpenAIChatWriter:
    """`AnswerWriter` over an OpenAI-compatible `/chat/completions` endpoint with tool calling."""

    def __init__(self, settings: Settings, *, retry_backoff_s: float = 2.0) -> None:
        self._settings = settings
        self._retry_backoff_s = retry_backoff_s
        self._base_url = settings.llm_base_url.strip() or None
        key = settings.llm_api_key.get_secret_value().strip()
        if not key and self._base_url is None:
            key = os.environ.get("OPENAI_API_KEY", "").strip()
            if not key:
                raise ConfigError(
                    "LECTERN_LLM_API_KEY: an API key is required for the OpenAI API "
                    "(or set LECTERN_LLM_BASE_URL to a self-hosted OpenAI-compatible server)"
                )
        self._api_key = key or NO_KEY_PLACEHOLDER
        if not settings.llm_model.strip():
            raise ConfigError("LECTERN_LLM_MODEL: the chat model name is empty")
        self._clients: weakref.WeakKeyDictionary[asyncio.AbstractEventLoop, AsyncOpenAI] = (
            weakref.WeakKeyDictionary()
        )
        configured = settings.llm_writer_mode
        self._mode: WriterMode | None = None if configured == "auto" else configured
        self._mode_lock: asyncio.Lock | None = None

    # --- AnswerWriter ------------------------------------------------------------------------------
    @property
    def name(self) -> str:
        return self._settings.llm_model

    @property
    def retrieves_itself(self) -> bool:
        """Tool calling: the model searches. Context-first: the engine retrieves and the passages go in
        the prompt (servers or models without tool support)."""
        return self._mode != "context"

    @property
    def verifies(self) -> bool:
        """An LLM's answer is checked against its passages by the engine (`lectern.verification`)."""
        return True

    @property
    def mode(self) -> WriterMode | None:
        """The writer mode in use (None until `prepare` has asked the server, in auto mode)."""
        return self._mode

    async def prepare(self) -> None:
        """Learn once whether the server can call tools (auto mode); the answer is kept."""
        if self._mode is not None:
            return
        if self._mode_lock is None:
            self._mode_lock = asyncio.Lock()
        async with self._mode_lock:
            if self._mode is None:
                self._mode = await detect_mode(self._base_url, self._api_key, self.name, self._client())

    @property
    def where(self) -> str:
        return self._base_url or "the OpenAI API"

    async def aclose(self) -> None:
        """Close this event loop's HTTP client (a later call opens a new one)."""
        client = self._clients.pop(asyncio.get_running_loop(), None)
        if client is not None:
            await client.close()

    async def write(self, request: WriteRequest) -> AsyncIterator[WriterEvent]:
        settings = self._settings
        max_searches = settings.llm_max_tool_calls
        warnings: list[str] = []
        tools = self._mode != "context"
        messages = self._initial_messages(request, warnings, tools=tools)
        book = SourceBook()
        if not tools:
            async for event in self._write_from_context(request, messages, book, warnings):
                yield event
            return
        if request.retrieval is not None and request.retrieval.hits:
            self._add_prior_retrieval(request, messages, book)

        usage = TokenUsage()
        parts: list[str] = []
        searches = 0
        max_rounds = max_searches + 3
        last = _Round()
        for round_no in range(1, max_rounds + 1):
            final_round = round_no == max_rounds
            choice = "auto" if searches < max_searches and not final_round else "none"
            prompt_estimate = messages_tokens(messages) + _TOOL_TOKENS
            last = _Round()
            async for piece in self._complete_round(messages, choice, last, round_no == 1, warnings):
                parts.append(piece)
                yield Token(piece)
            usage = _add_usage(usage, last, prompt_estimate)
            calls = last.ordered_calls()
            # Tool calls made despite tool_choice="none" are ignored when the model also answered.
            if not calls or (choice == "none" and last.text.strip()):
                break
            if final_round:
                raise ProviderError(
                    f"The model at {self.where} kept asking for tools after {round_no} rounds "
                    "without answering"
                )
            messages.append(self._assistant_tool_message(last, calls, round_no))
            for call in calls:
                content, searched = await self._run_tool(call, request, book, searches, messages, warnings)
                searches += searched
                messages.append({"role": "tool", "tool_call_id": call.id, "content": content})

        text = "".join(parts)
        if not text.strip():
            reason = (
                " (it spent LECTERN_LLM_MAX_TOKENS before writing)" if last.finish_reason == "length" else ""
            )
            raise ProviderError(f"The model at {self.where} returned an empty answer{reason}")
        if last.finish_reason == "length":
            warnings.append(
                f"The answer was cut off at LECTERN_LLM_MAX_TOKENS ({settings.llm_max_tokens} tokens)."
            )
        yield Written(text=text, cited=book.cited(text), usage=usage, model=self.name, warnings=warnings)

    async def _write_from_context(
        self,
        request: WriteRequest,
        messages: list[dict[str, Any]],
        book: SourceBook,
        warnings: list[str],
    ) -> AsyncIterator[WriterEvent]:
        """Context-first: the passages are in the prompt; one completion, no tools."""
        if request.retrieval is not None:
            book.add(request.retrieval)
        prompt_estimate = messages_tokens(messages)
        last = _Round()
        async for piece in self._complete_round(messages, None, last, True, warnings):
            yield Token(piece)
        usage = _add_usage(TokenUsage(), last, prompt_estimate)
        if last.finish_reason == "length":
            warnings.append(
                f"The answer was cut off at LECTERN_LLM_MAX_TOKENS ({self._settings.llm_max_tokens} tokens)."
            )
        text = last.text
        yield Written(text=text, cited=book.cited(text), usage=usage, model=self.name, warnings=warnings)

    async def _complete_round(
        self,
        messages: list[dict[str, Any]],
        tool_choice: str | None,
        out: _Round,
        first: bool,
        warnings: list[str],
    ) -> AsyncIterator[str]:
        """One completion as the loop needs it. A stream with neither text nor a tool call is retried
        once, then `API_ERROR`; a context-length error on the first round drops the oldest half of the
        history (a TOKEN_LIMIT warning) and is retried once."""
        trimmed = empty = False
        while True:
            try:
                async for piece in self._complete(messages, tool_choice=tool_choice, out=out):
                    yield piece
            except TokenLimit:
                if trimmed or not first or not _trim_history(messages):
                    raise
                trimmed = True
                warnings.append(
                    "TOKEN_LIMIT: the model's server reported its context window exceeded; the oldest "
                    "part of the conversation was left out of this answer."
                )
                continue
            if out.text.strip() or out.calls or out.finish_reason == "length":
                return
            if empty:
                raise ProviderError(
                    f"The model at {self.where} returned nothing (neither text nor a tool call), twice"
                )
            empty = True
            log.warning("the model at %s returned nothing; retrying once", self.where)

    # --- prompt ------------------------------------------------------------------------------------
    def _initial_messages(
        self, request: WriteRequest, warnings: list[str], *, tools: bool = True
    ) -> list[dict[str, Any]]:
        settings = self._settings
        system = {
            "role": "system",
            "content": system_prompt(settings.llm_max_tool_calls, request.system_prompt, tools=tools),
        }
        content = user_message(request.question, request.user_context, request.search_query)
        if not tools:
            hits = request.retrieval.hits if request.retrieval is not None else []
            content = context_message(hits, content)
        user = {"role": "user", "content": content}
        history: list[dict[str, Any]] = [
            {"role": m.role, "content": m.content}
            for m in request.history
            if m.role in ("user", "assistant") and m.content.strip()
        ]
        window = settings.llm_context_tokens
        # Room for the answer, the tool schema and one retrieval at the default top_k (context-first:
        # the passages are in the user message already).
        budget = window - settings.llm_max_tokens
        if tools:
            budget -= _TOOL_TOKENS + settings.top_k * _PASSAGE_TOKENS
        fixed = messages_tokens([system, user])
        if fixed > budget:
            what = "The question and the selected text need" if request.user_context else "The question needs"
            raise TokenLimit(
                f"{what} about {fixed} tokens, more than the {max(budget, 0)} that the "
                f"model's context window ({window} tokens, LECTERN_LLM_CONTEXT_TOKENS) leaves after the "
                "answer and the retrieved passages"
            )
        fitted = fit_history(history, budget - fixed)
        if fitted.dropped:
            warnings.append(
                f"TOKEN_LIMIT: the conversation is longer than the model's context window ({window} tokens); "
                f"the {fitted.dropped} oldest message(s) were left out of this answer."
            )
        return [system, *fitted.history, user]

    def _add_prior_retrieval(
        self, request: WriteRequest, messages: list[dict[str, Any]], book: SourceBook
    ) -> None:
        """Hits the engine retrieved before writing are shown as the turn's first tool call (an empty
        retrieval, as in selected-text-only mode, is not shown)."""
        result = request.retrieval
        assert result is not None
        query = result.query or request.search_query or request.question
        content = self._result_content(result, query, 0.0, book, messages, [])
        call = {"name": TOOL_NAME, "arguments": json.dumps({"query": query}, ensure_ascii=False)}
        messages.append(
            {
                "role": "assistant",
                "content": "",  # servers differ on null content; an empty string is accepted by all
                "tool_calls": [{"id": "call_prior_retrieval", "type": "function", "function": call}],
            }
        )
        messages.append({"role": "tool", "tool_call_id": "call_prior_retrieval", "content": content})

    @staticmethod
    def _assistant_tool_message(round_: _Round, calls: list[_ToolCall], round_no: int) -> dict[str, Any]:
        for i, call in enumerate(calls):
            if not call.id:
                call.id = f"call_{round_no}_{i}"
        return {
            "role": "assistant",
            "content": round_.text,  # never null: llama-cpp-python's server answers 500 to it
            "tool_calls": [
                {"id": c.id, "type": "function", "function": {"name": c.name, "arguments": c.arguments}}
                for c in calls
            ],
        }

    # --- tools -------------------------------------------------------------------------------------
    async def _run_tool(
        self,
        call: _ToolCall,
        request: WriteRequest,
        book: SourceBook,
        searches: int,
        messages: list[dict[str, Any]],
        warnings: list[str],
    ) -> tuple[str, int]:
        """The tool message content, and 1 when a search ran (counted against the limit)."""
        if call.name != TOOL_NAME:
            message = f"There is no tool named {call.name!r}; the only tool is {TOOL_NAME}."
            return tool_error_json(error=UNKNOWN_TOOL, message=message), 0
        parsed = parse_tool_arguments(call.arguments)
        if isinstance(parsed, ToolArgumentError):
            message = f"Invalid arguments: {parsed.message}. Call {TOOL_NAME} again with corrected arguments."
            return tool_error_json(error=INVALID_ARGUMENTS, message=message, query=parsed.query), 0
        limit = self._settings.llm_max_tool_calls
        if searches >= limit:
            message = (
                f"The limit of {limit} searches per answer is reached. Answer now from the passages you "
                "already have, or refuse if they do not contain the answer."
            )
            return tool_error_json(error=TOOL_CALL_LIMIT, message=message, query=parsed.query), 0
        started = time.monotonic()
        try:
            result = await request.retrieve(parsed)
        except LecternError as exc:
            log.warning("retrieve_context failed: %s (%s)", exc.message, exc.code)
            return (
                tool_error_json(
                    error=exc.code,
                    message=f"Searching the documents failed: {exc.message}",
                    query=parsed.query,
                    execution_time_s=time.monotonic() - started,
                ),
                1,
            )
        elapsed = time.monotonic() - started
        return self._result_content(result, parsed.query, elapsed, book, messages, warnings), 1

    def _result_content(
        self,
        result: RetrievalResult,
        query: str,
        elapsed: float,
        book: SourceBook,
        messages: list[dict[str, Any]],
        warnings: list[str],
    ) -> str:
        numbers = book.add(result)
        entries: list[dict[str, Any]] = []
        shown: set[int] = set()
        for number, hit in zip(numbers, result.hits, strict=True):
            if number not in shown:
                shown.add(number)
                entries.append(hit_entry(number, hit))
        note: str | None = None
        if not entries:
            note = (
                f"{EMPTY_RETRIEVAL}: no passage matched. Try a different query, or refuse if the documents "
                "do not cover the question."
            )
        elif not result.has_sufficient_context:
            note = (
                "These passages match the query only weakly. Use them only where they state the answer; "
                "otherwise refuse."
            )
        # Keep the prompt inside the window: drop the lowest-ranked passages that do not fit.
        room = (
            self._settings.llm_context_tokens
            - self._settings.llm_max_tokens
            - messages_tokens(messages)
            - _TOOL_TOKENS
            - 16
        )
        content = tool_response_json(query=query, entries=entries, execution_time_s=elapsed, message=note)
        if estimate_tokens(content) > room and entries:
            while entries and estimate_tokens(content) > room:
                entries.pop()
                content = tool_response_json(
                    query=query, entries=entries, execution_time_s=elapsed, message=note
                )
            warnings.append(
                "TOKEN_LIMIT: some retrieved passages were left out of the prompt to fit the model's "
                "context window."
            )
        return content

    # --- one completion, with retries ---------------------------------------------------------------
    async def _complete(
        self, messages: list[dict[str, Any]], *, tool_choice: str | None, out: _Round
    ) -> AsyncIterator[str]:
        attempts = self._settings.provider_max_attempts
        for attempt in range(1, attempts + 1):
            out.reset()
            forwarded = False
            try:
                async for piece in self._attempt(messages, tool_choice, out):
                    forwarded = True
                    yield piece
                return
            except _Retry as exc:
                if forwarded or attempt >= attempts:
                    tried = f" after {attempt} attempt{'s' if attempt > 1 else ''}"
                    raise ProviderError(
                        f"The model provider at {self.where} failed{tried}: {exc.detail}"
                    ) from exc
                delay = self._retry_backoff_s * 2 ** (attempt - 1)
                delay += random.uniform(0, delay / 10)
                if exc.retry_after_s is not None:
                    delay = max(delay, exc.retry_after_s)
                delay = min(delay, MAX_RETRY_DELAY_S)
                log.warning(
                    "chat completion attempt %d/%d failed (%s); retrying in %.2fs",
                    attempt,
                    attempts,
                    exc.detail,
                    delay,
                )
                await asyncio.sleep(delay)

    async def _attempt(
        self, messages: list[dict[str, Any]], tool_choice: str | None, out: _Round
    ) -> AsyncIterator[str]:
        """One request: folds every chunk into `out` and yields the content pieces."""
        stall = self._settings.llm_stall_timeout_s
        stream: AsyncStream[ChatCompletionChunk] | None = None
        try:
            try:
                async with asyncio.timeout(stall):
                    stream = await self._create(messages, tool_choice)
            except TimeoutError:
                raise self._stall("for the response to start") from None
            while True:
                try:
                    async with asyncio.timeout(stall):
                        chunk = await stream.__anext__()
                except StopAsyncIteration:
                    return
                except TimeoutError:
                    raise self._stall("between two chunks of the response") from None
                except (ValueError, TypeError, AttributeError, KeyError) as exc:
                    # Non-JSON `data:` (JSONDecodeError is a ValueError) or a payload of the wrong shape:
                    # a misbehaving provider or proxy, retried like any other provider fault.
                    raise _Retry(f"the stream sent data that is not a chat completion chunk ({exc})") from exc
                try:
                    text = out.absorb(chunk)
                except (ValueError, TypeError, AttributeError, KeyError) as exc:
                    raise _Retry(f"the stream sent a malformed chunk ({type(exc).__name__})") from exc
                if text:
                    yield text
        except openai.APIStatusError as exc:
            if _is_context_overflow(exc):
                raise TokenLimit(f"The model's context window is exceeded ({_status_detail(exc)})") from exc
            if exc.status_code in _RETRYABLE_STATUS or exc.status_code >= 500:
                raise _Retry(_status_detail(exc), _retry_after(exc.response.headers)) from exc
            hint = ""
            if exc.status_code in (401, 403):
                hint = " (check LECTERN_LLM_API_KEY)"
            elif exc.status_code == 404:
                hint = f" (check LECTERN_LLM_MODEL={self.name!r} and LECTERN_LLM_BASE_URL)"
            raise ProviderError(
                f"The model provider at {self.where} refused the request: {_status_detail(exc)}{hint}"
            ) from exc
        except openai.APITimeoutError as exc:
            raise _Retry("the request timed out") from exc
        except openai.APIConnectionError as exc:
            cause = exc.__cause__ or exc
            raise _Retry(f"could not connect ({type(cause).__name__}: {cause})") from exc
        except openai.APIError as exc:
            raise _Retry(f"the stream reported an error: {exc.message}") from exc
        finally:
            if stream is not None:
                await stream.close()

    def _stall(self, waiting: str) -> ProviderTimeout:
        stall = self._settings.llm_stall_timeout_s
        return ProviderTimeout(
            f"The model provider at {self.where} sent nothing for {stall:g}s while waiting {waiting} "
            "(LECTERN_LLM_STALL_TIMEOUT_S)"
        )

    async def _create(
        self, messages: list[dict[str, Any]], tool_choice: str | None
    ) -> AsyncStream[ChatCompletionChunk]:
        settings = self._settings
        # The tool stays declared once searches are spent (`tool_choice="none"`): the conversation
        # already holds tool calls, which some servers only accept alongside their declaration.
        # Context-first (tool_choice None) declares no tools.
        extra: dict[str, Any] = {}
        if tool_choice is not None:
            extra = {"tools": [RETRIEVE_CONTEXT_TOOL], "tool_choice": tool_choice}
        # OpenAI's newer models take only `max_completion_tokens`; self-hosted servers know `max_tokens`.
        if self._base_url is None:
            extra["max_completion_tokens"] = settings.llm_max_tokens
        else:
            extra["max_tokens"] = settings.llm_max_tokens
        stream = await self._client().chat.completions.create(
            model=settings.llm_model,
            messages=cast(Any, messages),
            temperature=settings.llm_temperature,
            stream=True,
            stream_options={"include_usage": True},
            **extra,
        )
        return cast("AsyncStream[ChatCompletionChunk]", stream)

    def _client(self) -> AsyncOpenAI:
        # One client per event loop: its connection pool belongs to the loop that opened it.
        loop = asyncio.get_running_loop()
        client = self._clients.get(loop)
        if client is None:
            stall = self._settings.llm_stall_timeout_s
            client = AsyncOpenAI(
                api_key=self._api_key,
                base_url=self._base_url,
                max_retries=0,
                # A backstop only: the stall watchdog above fires first.
                timeout=openai.Timeout(stall + 5.0),
            )
            self._clients[loop] = client
        return client


def _trim_history(messages: list[dict[str, Any]]) -> bool:
    """Drop the oldest half of the conversation history (between the system message and the first
    message of this turn); False when there is none left to drop."""
    end = next(
        (i for i in range(len(messages) - 1, 0, -1) if messages[i]["role"] == "user"), len(messages) - 1
    )
    history = end - 1
    if history <= 0:
        return False
    del messages[1 : 1 + max(1, (history + 1) // 2)]
    return True


def _add_usage(total: TokenUsage, round_: _Round, prompt_estimate: int) -> TokenUsage:
    """Sum usage over the turn; a provider that reports none is estimated."""
    if round_.usage is not None:
        used = round_.usage
    else:
        produced = round_.text + "".join(c.name + c.arguments for c in round_.calls.values())
        used = TokenUsage(prompt_tokens=prompt_estimate, completion_tokens=max(1, estimate_tokens(produced)))
    return TokenUsage(
        prompt_tokens=total.prompt_tokens + used.prompt_tokens,
        completion_tokens=total.completion_tokens + used.completion_tokens,
    )
