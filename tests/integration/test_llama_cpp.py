"""Against a real OpenAI-compatible server: llama.cpp's HTTP server (xllamacpp) with SmolLM2-135M-Instruct,
one thread, on 127.0.0.1. The fake server tests the tool loop; this one tests what a real server does:
streaming, usage, finish reasons, `tools` and tool-result turns accepted, the writer mode it reports
(`/props`: this template cannot call tools, so context-first), and context-first answers end to end on
every face, verified. The model is tiny: it rarely cites, which is what verification must handle."""

from __future__ import annotations

import json
import os
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
from lectern.engine import Engine
from lectern.models import Answer
from lectern.settings import Settings
from lectern.writers import create_writer
from lectern.writers.capabilities import detect_mode
from lectern.writers.openai_chat import OpenAIChatWriter
from tests.api_support import ON_TOPIC, LiveServer, make_engine, make_settings, ndjson, parse_sse
from tests.llama_server import MODEL_NAME, llama_server, missing

pytestmark = pytest.mark.integration

TOOL = {
    "type": "function",
    "function": {
        "name": "retrieve_context",
        "description": "Search the documents.",
        "parameters": {"type": "object", "properties": {"query": {"type": "string"}}, "required": ["query"]},
    },
}


@pytest.fixture(scope="session")
def llama_url() -> Iterator[str]:
    why = missing()
    if why is not None:
        if os.environ.get("CI"):
            pytest.fail(f"the llama.cpp server tests must run in CI: {why}")
        pytest.skip(why)
    with llama_server() as url:
        yield url


def llm_settings(tmp_path: Path, url: str, **overrides: Any) -> Settings:
    return make_settings(
        tmp_path,
        llm_provider="openai",
        llm_base_url=url,
        llm_model=MODEL_NAME,
        llm_max_tokens=48,
        llm_temperature=0.0,
        llm_context_tokens=4096,
        llm_stall_timeout_s=60.0,
        top_k=3,
        **overrides,
    )


def client(url: str) -> openai.AsyncOpenAI:
    return openai.AsyncOpenAI(base_url=url, api_key="none", max_retries=0)


def check_verified(answer: Answer) -> None:
    """Whatever the tiny model wrote, the answer's fields describe the verified text."""
    assert answer.verification is not None
    if answer.grounded:
        assert answer.citations
        assert answer.confidence.should_answer
        assert answer.verification.supported > 0
        assert all(f"[{c.number}]" in answer.text for c in answer.citations)
    else:
        assert answer.citations == []
        assert answer.confidence.should_answer is False
        assert answer.refusal_reason in ("model_refused", "unsupported")


async def test_streaming_reports_usage_and_finish_reasons(llama_url: str) -> None:
    async with client(llama_url) as c:
        stream = await c.chat.completions.create(
            model=MODEL_NAME,
            messages=[{"role": "user", "content": "Count from one to twenty."}],
            max_tokens=4,
            stream=True,
            stream_options={"include_usage": True},
        )
        pieces, finish, usage = [], None, None
        async for chunk in stream:
            for choice in chunk.choices:
                pieces.append(choice.delta.content or "")
                finish = choice.finish_reason or finish
            usage = chunk.usage or usage
    assert "".join(pieces).strip()
    assert finish == "length"
    assert usage is not None
    assert usage.completion_tokens == 4
    assert usage.prompt_tokens > 0


@pytest.mark.parametrize("choice", ["auto", "none"])
async def test_tools_are_accepted(llama_url: str, choice: str) -> None:
    async with client(llama_url) as c:
        response = await c.chat.completions.create(
            model=MODEL_NAME,
            messages=[{"role": "user", "content": "What is a ROS 2 node?"}],
            tools=[TOOL],  # type: ignore[list-item]
            tool_choice=choice,  # type: ignore[arg-type]
            max_tokens=8,
        )
    assert response.choices[0].finish_reason in ("stop", "length")


async def test_tool_result_turns_are_accepted(llama_url: str) -> None:
    call = {"id": "call_1", "type": "function", "function": {"name": "retrieve_context", "arguments": "{}"}}
    async with client(llama_url) as c:
        response = await c.chat.completions.create(
            model=MODEL_NAME,
            messages=[
                {"role": "user", "content": "What is a ROS 2 node?"},
                {"role": "assistant", "content": "", "tool_calls": [call]},  # type: ignore[list-item]
                {"role": "tool", "tool_call_id": "call_1", "content": json.dumps({"results": []})},
            ],
            tools=[TOOL],  # type: ignore[list-item]
            max_tokens=8,
        )
    assert response.choices[0].finish_reason in ("stop", "length")


async def test_the_server_says_it_cannot_call_tools(llama_url: str) -> None:
    async with client(llama_url) as c:
        assert await detect_mode(llama_url, "none", MODEL_NAME, c) == "context"


async def test_context_first_answers_are_verified(llama_url: str, tmp_path: Path) -> None:
    settings = llm_settings(tmp_path, llama_url)
    writer = create_writer(settings)
    assert isinstance(writer, OpenAIChatWriter)
    engine: Engine = make_engine(settings, writer)
    answer = await engine.run(ON_TOPIC, engine.new_conversation())
    assert writer.mode == "context"
    assert answer.retrieval_count == 1
    assert answer.usage.completion_tokens > 0
    check_verified(answer)


async def test_an_unsupported_answer_becomes_a_refusal_or_is_flagged(llama_url: str, tmp_path: Path) -> None:
    # The model is told to answer from its own knowledge; what it writes is not in the passages.
    settings = llm_settings(tmp_path, llama_url, llm_unsupported="flag")
    engine = make_engine(settings, create_writer(settings))
    conversation = engine.new_conversation()
    conversation.system_prompt = "Ignore any passages. Answer from your own knowledge about cooking pasta."
    answer = await engine.run(ON_TOPIC, conversation)
    check_verified(answer)
    assert answer.verification is not None
    assert answer.verification.verdict != "supported"
    if answer.grounded:
        assert answer.verification.flagged == answer.verification.sentences - answer.verification.supported


async def test_every_face_answers_context_first(llama_url: str, tmp_path: Path) -> None:
    settings = llm_settings(tmp_path, llama_url)
    engine = make_engine(settings, create_writer(settings))
    with LiveServer(create_app(settings, engine=engine)) as live:
        async with httpx.AsyncClient(base_url=live.url, timeout=120) as http:
            run = await http.post("/chat/run", json={"message": ON_TOPIC})
            assert run.status_code == 200, run.text
            body = run.json()
            assert body["should_answer"] is bool(body["sources"])

            stream = await http.post("/chat/stream", json={"message": ON_TOPIC})
            assert stream.status_code == 200
            events = parse_sse(stream.text)
            assert events[-1][0] == "done", events[-1]
            metadata = events[-1][1]["metadata"]
            assert metadata["should_answer"] is bool(metadata["sources"])

            session = (await http.post("/api/generation/session", json={})).json()["sessionId"]
            generation = await http.post(
                "/api/generation/stream", json={"sessionId": session, "prompt": ON_TOPIC}
            )
            assert generation.status_code == 200
            assert ndjson(generation.text)[-1]["type"] in ("done", "complete", "end")

            v1 = await http.post(
                "/v1/chat/completions",
                json={"model": settings.model_name, "messages": [{"role": "user", "content": ON_TOPIC}]},
            )
            assert v1.status_code == 200, v1.text
            assert v1.json()["choices"][0]["message"]["content"]

        async with (
            httpx2.AsyncClient(timeout=120) as h2,
            Client(streamable_http_client(f"{live.url}/mcp", http_client=h2)) as mcp,
        ):
            result = await mcp.call_tool("ask", {"question": ON_TOPIC})
            assert not result.is_error
            asked = result.structured_content or {}
            assert asked.get("answer") or asked.get("response") or asked.get("text")
