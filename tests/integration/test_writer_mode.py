"""Which writer mode a server gets (tool calling or context-first), asked once per server and model:
llama.cpp's /props, Ollama's /api/show, otherwise one probe completion; cached."""

from __future__ import annotations

from collections.abc import Iterator

import openai
import pytest

from lectern.writers import capabilities
from lectern.writers.capabilities import detect_mode
from tests.fakes.openai_chat_server import FakeChatServer, reply, retrieve_call, tool_calls

pytestmark = pytest.mark.integration


@pytest.fixture
def server() -> Iterator[FakeChatServer]:
    with FakeChatServer() as s:
        s.props = None  # not llama.cpp
        yield s
    capabilities.forget_modes()


async def mode(server: FakeChatServer, model: str = "m") -> str:
    async with openai.AsyncOpenAI(base_url=server.base_url, api_key="k", max_retries=0) as client:
        return await detect_mode(server.base_url, "k", model, client)


async def test_ollama_says_per_model(server: FakeChatServer) -> None:
    server.show = {"capabilities": ["completion", "tools"]}
    assert await mode(server, "qwen") == "tools"
    server.show = {"capabilities": ["completion"]}
    assert await mode(server, "gemma") == "context"
    assert server.attempts == 0  # no completion was spent on it


async def test_otherwise_one_probe_decides_and_is_cached(server: FakeChatServer) -> None:
    server.add(tool_calls(retrieve_call("installation")), reply("I would search."))
    assert await mode(server, "a") == "tools"
    assert await mode(server, "a") == "tools"  # cached: no second probe
    assert server.attempts == 1
    assert "tools" in server.requests[0]
    assert await mode(server, "b") == "context"  # a model that answers in words cannot call tools
    assert server.attempts == 2


async def test_a_server_that_refuses_the_probe_gets_context_first(server: FakeChatServer) -> None:
    from tests.fakes.openai_chat_server import Fail

    server.add(Fail(status=400, message="tools are not supported", type="invalid_request_error"))
    assert await mode(server) == "context"


async def test_a_cached_answer_expires(server: FakeChatServer, monkeypatch: pytest.MonkeyPatch) -> None:
    server.add(tool_calls(retrieve_call("installation")), reply("I would search."))
    assert await mode(server, "a") == "tools"
    monkeypatch.setattr(capabilities, "CACHE_TTL_S", 0.0)  # as if ten minutes had passed
    assert await mode(server, "a") == "context"  # asked again: this time the model answered in words
    assert server.attempts == 2
