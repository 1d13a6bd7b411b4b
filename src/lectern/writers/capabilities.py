"""Whether an OpenAI-compatible server can call tools, asked once per server and model.

The servers users run differ: OpenAI and vLLM (with a tool parser) call tools; llama.cpp's server calls
them only with `--jinja` and a template that supports them, and otherwise silently ignores `tools`;
Ollama knows per model. So, in order:

1. no base URL (the OpenAI API): tools;
2. llama.cpp's `GET /props`: `chat_template_caps.supports_tool_calls`;
3. Ollama's `POST /api/show`: `"tools"` in the model's `capabilities`;
4. otherwise one small probe: a completion that asks for a tool call; a tool call back means tools.

An error on the way (a 4xx, a malformed answer) means context-first, which works with every server.
The result is cached per (base URL, model) for ten minutes, so a server restarted with another
template at the same address is asked again; a server that cannot be reached is not cached (the turn
fails on its own, and the next one asks again).
"""

from __future__ import annotations

import logging
import time
from typing import Any, Literal, cast

import httpx
import openai
from openai import AsyncOpenAI

from lectern.writers.tool_schema import RETRIEVE_CONTEXT_TOOL

__all__ = ["WriterMode", "detect_mode", "forget_modes"]

log = logging.getLogger(__name__)

WriterMode = Literal["tools", "context"]
PROBE_TIMEOUT_S = 20.0
CACHE_TTL_S = 600.0
_CACHE: dict[tuple[str, str], tuple[WriterMode, float]] = {}


def forget_modes() -> None:
    """Ask every server again on its next turn."""
    _CACHE.clear()


def _root(base_url: str) -> str:
    url = base_url.rstrip("/")
    return url[: -len("/v1")] if url.endswith("/v1") else url


async def detect_mode(base_url: str | None, api_key: str, model: str, client: AsyncOpenAI) -> WriterMode:
    if base_url is None:
        return "tools"
    key = (base_url.rstrip("/"), model)
    cached = _CACHE.get(key)
    if cached is not None and time.monotonic() - cached[1] < CACHE_TTL_S:
        return cached[0]
    try:
        mode = await _ask(base_url, api_key, model, client)
    except (httpx.TransportError, openai.APIConnectionError) as exc:
        log.warning("could not ask %s whether it calls tools (%s); using context-first", base_url, exc)
        return "context"
    _CACHE[key] = (mode, time.monotonic())
    log.info("writer mode for %s at %s: %s", model, base_url, mode)
    return mode


async def _ask(base_url: str, api_key: str, model: str, client: AsyncOpenAI) -> WriterMode:
    root = _root(base_url)
    headers = {"Authorization": f"Bearer {api_key}"}
    async with httpx.AsyncClient(timeout=PROBE_TIMEOUT_S, headers=headers) as http:
        props = await _json(http.get(f"{root}/props"))
        caps = props.get("chat_template_caps") if props else None
        if isinstance(caps, dict):
            return "tools" if caps.get("supports_tool_calls") or caps.get("supports_tools") else "context"
        show = await _json(http.post(f"{root}/api/show", json={"model": model}))
        capabilities = show.get("capabilities") if show else None
        if isinstance(capabilities, list):
            return "tools" if "tools" in capabilities else "context"
    return await _probe(client, model)


async def _json(request: Any) -> dict[str, Any] | None:
    response = cast(httpx.Response, await request)
    if response.status_code != 200:
        return None
    try:
        body = response.json()
    except ValueError:
        return None
    return body if isinstance(body, dict) else None


async def _probe(client: AsyncOpenAI, model: str) -> WriterMode:
    """One short completion that asks for a search; a tool call back means the server can call tools."""
    try:
        response = await client.chat.completions.create(
            model=model,
            messages=[
                {"role": "system", "content": "Search the documents before you answer."},
                {"role": "user", "content": "Search the documents for 'installation'."},
            ],
            tools=cast(Any, [RETRIEVE_CONTEXT_TOOL]),
            tool_choice="auto",
            max_tokens=64,
            temperature=0,
        )
    except openai.APIStatusError as exc:
        log.info("tool probe refused (HTTP %s): context-first", exc.status_code)
        return "context"
    choice = response.choices[0] if response.choices else None
    calls = choice.message.tool_calls if choice is not None and choice.message is not None else None
    return "tools" if calls else "context"
