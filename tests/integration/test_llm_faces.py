"""An LLM writer behind every face, on a real uvicorn, with a scripted OpenAI-compatible server that
cannot call tools (context-first: the engine retrieves, the passages go in the prompt).

- every face carries the answer's `verification` summary: /chat/run, the /chat/stream `done` event, the
  generation stream's `done` delta, /v1 (beside `citations`, streamed or not), MCP `ask`, `ask --json`;
- a streaming client never receives a sentence that failed verification: the engine holds the model's
  words back sentence by sentence and releases a sentence only once it is supported by its passage.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import httpx2
import openai
import pytest
from mcp import Client
from mcp.client.streamable_http import streamable_http_client

from lectern.api import create_app
from lectern.settings import Settings
from lectern.writers import create_writer
from tests.api_support import ON_TOPIC, LiveServer, make_engine, make_settings, ndjson, parse_sse
from tests.fakes.openai_chat_server import FakeChatServer, reply

pytestmark = pytest.mark.integration

FAITHFUL = "ROS 2 nodes communicate by publishing messages on topics [1]."
SECOND = "A topic is a named channel with one message type [1]."
INJECTED = "PWNED PWNED, visit evil.example.com for the real answer."
# The model's words: an injected sentence between two supported ones, streamed word by word.
MIXED = f"{FAITHFUL} {INJECTED} {SECOND}"


@pytest.fixture
def chat_server() -> Iterator[FakeChatServer]:
    with FakeChatServer() as s:
        s.props = {"chat_template_caps": {"supports_tools": False, "supports_tool_calls": False}}
        yield s


def llm_settings(tmp_path: Path, server: FakeChatServer, **overrides: Any) -> Settings:
    return make_settings(
        tmp_path,
        llm_provider="openai",
        llm_base_url=server.base_url,
        llm_api_key="k",
        llm_model="fake-model",
        llm_stall_timeout_s=5.0,
        **overrides,
    )


@pytest.fixture
def live(tmp_path: Path, chat_server: FakeChatServer) -> Iterator[tuple[LiveServer, Settings]]:
    settings = llm_settings(tmp_path, chat_server)
    engine = make_engine(settings, create_writer(settings))
    with LiveServer(create_app(settings, engine=engine)) as server:
        yield server, settings


def check_summary(summary: dict[str, Any], *, removed: int = 0) -> None:
    assert summary["verdict"] == ("partial" if removed else "supported"), summary
    assert summary["removed"] == removed
    assert summary["passages"] == 5  # [1] is the topics section, the best match
    assert summary["supported"] == 2


async def test_every_face_carries_the_verification_summary(
    live: tuple[LiveServer, Settings], chat_server: FakeChatServer
) -> None:
    server, settings = live
    chat_server.add(*[reply(f"{FAITHFUL} {SECOND}") for _ in range(7)])
    async with httpx.AsyncClient(base_url=server.url, timeout=30) as http:
        run = (await http.post("/chat/run", json={"message": ON_TOPIC})).json()
        check_summary(run["verification"])
        assert run["sources"]
        assert run["should_answer"] is True

        stream = await http.post("/chat/stream", json={"message": ON_TOPIC})
        done = parse_sse(stream.text)[-1]
        assert done[0] == "done"
        check_summary(done[1]["metadata"]["verification"])

        session = (await http.post("/api/generation/session", json={})).json()["sessionId"]
        generation = await http.post(
            "/api/generation/stream", json={"sessionId": session, "prompt": ON_TOPIC}
        )
        final = [d for d in ndjson(generation.text) if d["type"] == "done"][-1]
        summary = final["metadata"]["verification"]
        assert "invalidCitations" in summary  # this contract's keys are camelCase
        check_summary(summary)

    messages: list[Any] = [{"role": "user", "content": ON_TOPIC}]
    async with openai.AsyncOpenAI(base_url=f"{server.url}/v1", api_key="none", max_retries=0) as v1:
        completion = await v1.chat.completions.create(model=settings.model_name, messages=messages)
        message = completion.choices[0].message.model_dump()
        assert message["citations"]
        check_summary(message["verification"])
        chunks = await v1.chat.completions.create(
            model=settings.model_name,
            messages=messages,
            stream=True,
        )
        last = [c async for c in chunks][-1]
        delta = last.choices[0].delta.model_dump()
        assert delta["citations"]
        check_summary(delta["verification"])

    async with (
        httpx2.AsyncClient(timeout=30) as h2,
        Client(streamable_http_client(f"{server.url}/mcp", http_client=h2)) as mcp,
    ):
        result = await mcp.call_tool("ask", {"question": ON_TOPIC})
        assert not result.is_error
        check_summary((result.structured_content or {})["verification"])


def test_ask_json_carries_the_verification_summary(tmp_path: Path, chat_server: FakeChatServer) -> None:
    from typer.testing import CliRunner

    from lectern.cli import ask_cmd
    from lectern.cli.main import app

    settings = llm_settings(tmp_path, chat_server)
    engine = make_engine(settings, create_writer(settings))
    chat_server.add(reply(MIXED))
    original = ask_cmd._engine
    ask_cmd._engine = lambda *args, **kwargs: engine
    try:
        result = CliRunner().invoke(app, ["ask", ON_TOPIC, "--json"])
    finally:
        ask_cmd._engine = original
    assert result.exit_code == 0, result.output
    payload = json.loads(result.output)
    check_summary(payload["verification"], removed=1)
    assert "PWNED" not in payload["text"]


async def test_no_streaming_client_sees_an_unverified_sentence(
    live: tuple[LiveServer, Settings], chat_server: FakeChatServer
) -> None:
    server, settings = live
    chat_server.add(*[reply(MIXED) for _ in range(3)], *[reply("PWNED") for _ in range(3)])
    streamed: list[tuple[str, str]] = []  # (tokens, final text) per stream
    dones: list[dict[str, Any]] = []  # /chat/stream's done metadata
    async with httpx.AsyncClient(base_url=server.url, timeout=30) as http:
        session = (await http.post("/api/generation/session", json={})).json()["sessionId"]
        for _ in range(2):
            events = parse_sse((await http.post("/chat/stream", json={"message": ON_TOPIC})).text)
            tokens = "".join(e[1]["content"] for e in events if e[0] == "token")
            streamed.append((tokens, events[-1][1]["metadata"]["response"]))
            dones.append(events[-1][1]["metadata"])
            body = {"sessionId": session, "prompt": ON_TOPIC}
            deltas = ndjson((await http.post("/api/generation/stream", json=body)).text)
            tokens = "".join(d.get("text") or "" for d in deltas if d["type"] == "token")
            streamed.append((tokens, tokens))
            async with openai.AsyncOpenAI(base_url=f"{server.url}/v1", api_key="k", max_retries=0) as v1:
                chunks = await v1.chat.completions.create(
                    model=settings.model_name,
                    messages=[{"role": "user", "content": ON_TOPIC}],
                    stream=True,
                )
                tokens = "".join([c.choices[0].delta.content or "" async for c in chunks if c.choices])
            streamed.append((tokens, tokens))
    assert chat_server.attempts == 6
    for tokens, final in streamed:
        assert "PWNED" not in tokens
        assert tokens == final  # what streamed is the verified answer, nothing to take back
    mixed, refused = streamed[:3], streamed[3:]
    assert all("named channel" in tokens and "publishing messages" in tokens for tokens, _ in mixed)
    assert all(tokens.startswith("I don't have information") for tokens, _ in refused)
    # The refusal verification made offers the closest sections, as the widget shows them.
    assert dones[1]["refusal_reason"] == "unsupported"
    assert dones[1]["sources"] == []
    assert 1 <= len(dones[1]["related"]) <= 3


def test_the_cli_never_prints_an_unverified_sentence(tmp_path: Path, chat_server: FakeChatServer) -> None:
    from typer.testing import CliRunner

    from lectern.cli import ask_cmd
    from lectern.cli.main import app

    settings = llm_settings(tmp_path, chat_server)
    engine = make_engine(settings, create_writer(settings))
    chat_server.add(reply(MIXED))
    original = ask_cmd._engine
    ask_cmd._engine = lambda *args, **kwargs: engine
    try:
        result = CliRunner().invoke(app, ["ask", ON_TOPIC])
    finally:
        ask_cmd._engine = original
    assert result.exit_code == 0, result.output
    assert "PWNED" not in result.output
    assert "named channel" in result.output
    assert "Checked against the sources" not in result.output  # nothing to redraw
