"""The tool-calling writer against a scripted OpenAI-compatible server over real HTTP on loopback.

The server (`tests.fakes.openai_chat_server`) streams `chat.completion.chunk` SSE exactly as OpenAI
does, tool-call deltas and usage chunk included, and records every request and every disconnect.
"""

from __future__ import annotations

import asyncio
import json
import socket
import time
from collections.abc import AsyncIterator, Iterator
from typing import Any

import pytest

from lectern.conversation import Message
from lectern.errors import ProviderError, ProviderTimeout, TokenLimit
from lectern.events import Token
from lectern.settings import Settings, load_settings
from lectern.writers.base import Retrieve, WriteRequest, WriterEvent, Written
from lectern.writers.openai_chat import OpenAIChatWriter
from tests.fakes.openai_chat_server import (
    Fail,
    FakeChatServer,
    Garbage,
    Reply,
    Step,
    ToolCall,
    ToolCalls,
    reply,
    retrieve_call,
    tool_calls,
)
from tests.fakes.retrieval_results import ScriptedRetrieve, hit, result

pytestmark = pytest.mark.integration

ROS_NODES = hit(
    "A node is a process that performs computation. Nodes communicate over topics. " * 12,
    similarity=0.91234,
    title="ROS 2 Basics",
    section="Nodes",
    url="https://docs.example.com/ros2/basics#nodes",
)
ROS_TOPICS = hit(
    "Topics are named buses over which nodes exchange messages.",
    similarity=0.8,
    rank=2,
    title="ROS 2 Basics",
    section="Topics",
    url="https://docs.example.com/ros2/basics#topics",
)
ROS_SERVICES = hit(
    "Services are a call-and-response model between nodes.",
    similarity=0.75,
    title="ROS 2 Basics",
    section="Services",
    url="https://docs.example.com/ros2/basics#services",
)


@pytest.fixture
def server() -> Iterator[FakeChatServer]:
    with FakeChatServer() as s:
        yield s


def make_settings(server: FakeChatServer, **overrides: Any) -> Settings:
    values: dict[str, Any] = {
        "llm_provider": "openai",
        "llm_base_url": server.base_url,
        "llm_api_key": "test-key",
        "llm_model": "fake-model",
        "llm_stall_timeout_s": 5.0,
    }
    values.update(overrides)
    return load_settings(**values)


@pytest.fixture
async def writer(server: FakeChatServer) -> AsyncIterator[OpenAIChatWriter]:
    w = OpenAIChatWriter(make_settings(server), retry_backoff_s=0.01)
    yield w
    await w.aclose()


def make_request(
    retrieve: Retrieve,
    question: str = "What is a ROS 2 node?",
    *,
    history: list[Message] | None = None,
    user_context: str | None = None,
    search_query: str | None = None,
) -> WriteRequest:
    return WriteRequest(
        question=question,
        search_query=search_query or question,
        history=history or [],
        system_prompt="",
        retrieval=None,
        confidence=None,
        user_context=user_context,
        retrieve=retrieve,
    )


async def collect(writer: OpenAIChatWriter, request: WriteRequest) -> tuple[list[str], Written]:
    tokens: list[str] = []
    written: Written | None = None
    event: WriterEvent
    async for event in writer.write(request):
        if isinstance(event, Token):
            assert written is None, "no token after Written"
            tokens.append(event.text)
        else:
            written = event
    assert written is not None
    return tokens, written


# --- the tool loop --------------------------------------------------------------------------------


async def test_tool_call_then_streamed_answer(server: FakeChatServer, writer: OpenAIChatWriter) -> None:
    server.add(
        tool_calls(retrieve_call("ROS 2 node", top_k=3, threshold=0.5), usage=(100, 20)),
        reply("A node is a process that performs computation [1]. Nodes use topics [2].", usage=(400, 30)),
    )
    retrieve = ScriptedRetrieve({"ROS 2 node": result("ROS 2 node", [ROS_NODES, ROS_TOPICS])})

    tokens, written = await collect(writer, make_request(retrieve))

    # The retrieve callback got the model's arguments.
    assert [(c.query, c.top_k, c.threshold) for c in retrieve.calls] == [("ROS 2 node", 3, 0.5)]
    # The answer was streamed in pieces, and the pieces are the text.
    assert len(tokens) > 5
    assert "".join(tokens) == written.text
    assert written.text.startswith("A node is a process")
    assert written.cited == [1, 2]
    assert written.usage.prompt_tokens == 500
    assert written.usage.completion_tokens == 50
    assert written.model == "fake-model" == writer.name
    assert written.warnings == []

    first, second = server.requests
    assert first["model"] == "fake-model"
    assert first["stream"] is True
    assert first["stream_options"] == {"include_usage": True}
    assert first["tools"][0]["function"]["name"] == "retrieve_context"
    assert first["tool_choice"] == "auto"
    assert first["max_tokens"] == 1024
    assert first["messages"][0]["role"] == "system"
    assert "retrieve_context" in first["messages"][0]["content"]
    assert first["messages"][-1] == {"role": "user", "content": "What is a ROS 2 node?"}
    assert server.request_headers[0]["authorization"] == "Bearer test-key"

    # The second request carries the assistant's tool call and seed 003's tool response.
    assistant = second["messages"][-2]
    assert assistant["role"] == "assistant"
    assert assistant["tool_calls"][0]["function"]["name"] == "retrieve_context"
    assert json.loads(assistant["tool_calls"][0]["function"]["arguments"])["query"] == "ROS 2 node"
    (tool,) = server.tool_messages(1)
    assert tool["tool_call_id"] == assistant["tool_calls"][0]["id"]
    payload = tool["content"]
    assert set(payload) == {"results", "total", "query", "error", "message", "execution_time"}
    assert payload["total"] == 2
    assert payload["query"] == "ROS 2 node"
    assert payload["error"] is None
    first_hit = payload["results"][0]
    assert first_hit["source"] == 1
    assert first_hit["score"] == 0.912
    assert first_hit["url"] == "https://docs.example.com/ros2/basics#nodes"
    assert first_hit["title"] == "ROS 2 Basics"
    assert first_hit["section"] == "Nodes"
    assert len(first_hit["text"]) <= 500 < len(ROS_NODES.chunk.text)
    assert payload["results"][1]["source"] == 2


async def test_two_retrievals_in_one_turn_share_one_numbering(
    server: FakeChatServer, writer: OpenAIChatWriter
) -> None:
    server.add(
        tool_calls(retrieve_call("ROS 2 nodes")),
        tool_calls(retrieve_call("ROS 2 services")),
        reply("Nodes are processes [1]. Services are call-and-response [3]."),
    )
    retrieve = ScriptedRetrieve(
        {
            "ROS 2 nodes": result("ROS 2 nodes", [ROS_NODES, ROS_TOPICS]),
            # ROS_TOPICS again: it keeps number 2; ROS_SERVICES is new: number 3.
            "ROS 2 services": result("ROS 2 services", [ROS_SERVICES, ROS_TOPICS]),
        }
    )

    _, written = await collect(writer, make_request(retrieve, "Nodes and services?"))

    assert [c.query for c in retrieve.calls] == ["ROS 2 nodes", "ROS 2 services"]
    assert server.attempts == 3
    second_tool = server.tool_messages(2)[-1]["content"]
    assert [r["source"] for r in second_tool["results"]] == [3, 2]
    assert written.cited == [1, 3]


async def test_parallel_tool_calls_in_one_completion(
    server: FakeChatServer, writer: OpenAIChatWriter
) -> None:
    server.add(
        tool_calls(retrieve_call("ROS 2 nodes"), retrieve_call("ROS 2 services")),
        reply("Nodes [1], services [3]."),
    )
    retrieve = ScriptedRetrieve(
        {
            "ROS 2 nodes": result("ROS 2 nodes", [ROS_NODES, ROS_TOPICS]),
            "ROS 2 services": result("ROS 2 services", [ROS_SERVICES]),
        }
    )

    _, written = await collect(writer, make_request(retrieve))

    tools = server.tool_messages(1)
    assert len(tools) == 2
    assert [t["content"]["query"] for t in tools] == ["ROS 2 nodes", "ROS 2 services"]
    assert len({t["tool_call_id"] for t in tools}) == 2
    assert written.cited == [1, 3]


async def test_malformed_arguments_get_an_error_result_and_the_model_recovers(
    server: FakeChatServer, writer: OpenAIChatWriter
) -> None:
    def retry_if_told(body: dict[str, Any]) -> Step:
        error = json.loads(body["messages"][-1]["content"])
        assert error["error"] == "INVALID_ARGUMENTS"
        assert "not valid JSON" in error["message"]
        return tool_calls(retrieve_call("ROS 2 node"))

    server.add(
        tool_calls(ToolCall("retrieve_context", '{"query": "ROS 2 node", "top_k": ')),
        retry_if_told,
        tool_calls(retrieve_call("ROS 2 node", top_k=50)),
        reply("A node is a process [1]."),
    )
    retrieve = ScriptedRetrieve({"ROS 2 node": result("ROS 2 node", [ROS_NODES])})

    _, written = await collect(writer, make_request(retrieve))

    assert len(retrieve.calls) == 1  # neither malformed call reached retrieval
    out_of_range = server.tool_messages(3)[-1]["content"]
    assert out_of_range["error"] == "INVALID_ARGUMENTS"
    assert "between 1 and 10" in out_of_range["message"]
    assert out_of_range["results"] == []
    assert written.text == "A node is a process [1]."
    assert written.cited == [1]


async def test_unknown_tool_gets_an_error_result(server: FakeChatServer, writer: OpenAIChatWriter) -> None:
    server.add(tool_calls(ToolCall("web_search", '{"q": "x"}')), reply("I don't have information about x."))
    _, written = await collect(writer, make_request(ScriptedRetrieve()))
    assert server.tool_messages(1)[0]["content"]["error"] == "UNKNOWN_TOOL"
    assert written.cited == []


async def test_search_limit_then_tools_are_withdrawn(server: FakeChatServer) -> None:
    writer = OpenAIChatWriter(make_settings(server, llm_max_tool_calls=2), retry_backoff_s=0.01)
    server.add(
        tool_calls(retrieve_call("one"), retrieve_call("two"), retrieve_call("three")),
        reply("Done [1]."),
    )
    retrieve = ScriptedRetrieve(default=lambda call: result(call.query, [hit(call.query)]))

    _, written = await collect(writer, make_request(retrieve))
    await writer.aclose()

    assert [c.query for c in retrieve.calls] == ["one", "two"]
    third = server.tool_messages(1)[2]["content"]
    assert third["error"] == "TOOL_CALL_LIMIT"
    assert server.requests[1]["tool_choice"] == "none"
    assert written.cited == [1]


async def test_answer_that_ignores_an_insufficient_retrieval_is_still_yielded(
    server: FakeChatServer, writer: OpenAIChatWriter
) -> None:
    """The writer passes the model's text through; refusing it is the engine's guardrail's job."""
    server.add(
        tool_calls(retrieve_call("quadcopter PID tuning")),
        reply("Tune P first, then D, then I [1]."),
    )
    retrieve = ScriptedRetrieve(
        {"quadcopter PID tuning": result("quadcopter PID tuning", [], sufficient=False)}
    )

    _, written = await collect(writer, make_request(retrieve, "How do I tune a PID for a quadcopter?"))

    tool = server.tool_messages(1)[0]["content"]
    assert tool["total"] == 0
    assert tool["message"].startswith("EMPTY_RETRIEVAL")
    assert written.text == "Tune P first, then D, then I [1]."
    assert written.cited == []  # [1] names no source


async def test_weak_retrieval_is_flagged_to_the_model(
    server: FakeChatServer, writer: OpenAIChatWriter
) -> None:
    server.add(tool_calls(retrieve_call("nodes")), reply("Nodes [1]."))
    retrieve = ScriptedRetrieve({"nodes": result("nodes", [ROS_NODES], sufficient=False)})
    await collect(writer, make_request(retrieve))
    tool = server.tool_messages(1)[0]["content"]
    assert tool["total"] == 1
    assert "weakly" in tool["message"]


async def test_retrieval_failure_becomes_a_tool_error(
    server: FakeChatServer, writer: OpenAIChatWriter
) -> None:
    from lectern.errors import VectorIndexError

    async def failing(call: Any) -> Any:
        raise VectorIndexError("Vector search service unavailable")

    server.add(tool_calls(retrieve_call("nodes")), reply("I could not search the documents."))
    _, written = await collect(writer, make_request(failing))
    tool = server.tool_messages(1)[0]["content"]
    assert tool["error"] == "QDRANT_ERROR"
    assert "unavailable" in tool["message"]
    assert written.text == "I could not search the documents."


async def test_history_and_selected_text(server: FakeChatServer, writer: OpenAIChatWriter) -> None:
    server.add(reply("It means a process."))
    history = [Message("user", "What is ROS 2?"), Message("assistant", "A robot framework [1].")]
    request = make_request(
        ScriptedRetrieve(),
        "What does it mean?",
        history=history,
        user_context="A node is a process.",
        search_query="What does a ROS 2 node mean?",
    )

    _, written = await collect(writer, request)

    messages = server.requests[0]["messages"]
    assert [m["role"] for m in messages] == ["system", "user", "assistant", "user"]
    assert messages[1]["content"] == "What is ROS 2?"
    last = messages[-1]["content"]
    assert "<selected_text>\nA node is a process.\n</selected_text>" in last
    assert "Question: What does it mean?" in last
    assert "What does a ROS 2 node mean?" in last
    assert written.cited == []  # the selection is not numbered: the engine cites it


async def test_usage_is_estimated_when_the_provider_sends_none(
    server: FakeChatServer, writer: OpenAIChatWriter
) -> None:
    server.add(Reply(text="No usage here [1].", include_usage=False))
    _, written = await collect(writer, make_request(ScriptedRetrieve()))
    assert written.usage.prompt_tokens > 100  # the system prompt alone
    assert written.usage.completion_tokens > 0


async def test_truncated_answer_gets_a_warning(server: FakeChatServer, writer: OpenAIChatWriter) -> None:
    server.add(Reply(text="A node is", finish_reason="length"))
    _, written = await collect(writer, make_request(ScriptedRetrieve()))
    assert any("LECTERN_LLM_MAX_TOKENS" in w for w in written.warnings)


async def test_empty_answer_is_a_provider_error(server: FakeChatServer, writer: OpenAIChatWriter) -> None:
    server.add(reply(""), reply(""))  # an empty stream is retried once
    with pytest.raises(ProviderError, match="returned nothing"):
        await collect(writer, make_request(ScriptedRetrieve()))


# --- retries --------------------------------------------------------------------------------------


async def test_500_then_success_is_retried(server: FakeChatServer, writer: OpenAIChatWriter) -> None:
    server.add(Fail(status=500), reply("Recovered [1]."))
    _, written = await collect(writer, make_request(ScriptedRetrieve()))
    assert server.attempts == 2
    assert server.requests[0] == server.requests[1]
    assert written.text == "Recovered [1]."


async def test_429_honours_retry_after(server: FakeChatServer, writer: OpenAIChatWriter) -> None:
    server.add(Fail(status=429, type="rate_limit_error", headers={"Retry-After": "0.3"}), reply("ok"))
    started = time.monotonic()
    await collect(writer, make_request(ScriptedRetrieve()))
    assert server.attempts == 2
    assert time.monotonic() - started >= 0.3


async def test_three_failures_are_an_api_error(server: FakeChatServer, writer: OpenAIChatWriter) -> None:
    server.add(Fail(status=503), Fail(status=502), Fail(status=500, message="boom"), reply("never"))
    with pytest.raises(ProviderError, match="after 3 attempts: HTTP 500: boom") as info:
        await collect(writer, make_request(ScriptedRetrieve()))
    assert info.value.code == "API_ERROR"
    assert server.attempts == 3


async def test_client_errors_are_not_retried(server: FakeChatServer, writer: OpenAIChatWriter) -> None:
    server.add(Fail(status=401, message="Incorrect API key", type="invalid_request_error"))
    with pytest.raises(ProviderError, match="LECTERN_LLM_API_KEY"):
        await collect(writer, make_request(ScriptedRetrieve()))
    assert server.attempts == 1


async def test_context_length_error_is_token_limit(server: FakeChatServer, writer: OpenAIChatWriter) -> None:
    server.add(Fail(status=400, message="maximum context length exceeded", code="context_length_exceeded"))
    with pytest.raises(TokenLimit):
        await collect(writer, make_request(ScriptedRetrieve()))
    assert server.attempts == 1


async def test_failure_after_tokens_is_not_retried(server: FakeChatServer) -> None:
    writer = OpenAIChatWriter(make_settings(server, llm_stall_timeout_s=0.3), retry_backoff_s=0.01)
    server.add(Reply(text="one two three four", stall_after=3), reply("second attempt"))
    tokens: list[str] = []

    async def consume() -> None:
        async for event in writer.write(make_request(ScriptedRetrieve())):
            if isinstance(event, Token):
                tokens.append(event.text)

    with pytest.raises(ProviderTimeout):
        await consume()
    await writer.aclose()
    assert tokens == ["one ", "two "]
    assert server.attempts == 1


async def test_unreachable_provider_is_retried_then_an_api_error() -> None:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]
    settings = load_settings(
        llm_provider="openai", llm_base_url=f"http://127.0.0.1:{port}/v1", llm_model="m", llm_api_key="k"
    )
    writer = OpenAIChatWriter(settings, retry_backoff_s=0.01)
    with pytest.raises(ProviderError, match="after 3 attempts: could not connect"):
        await collect(writer, make_request(ScriptedRetrieve()))
    await writer.aclose()


# --- stalls and cancellation ----------------------------------------------------------------------


async def test_stall_between_chunks_is_a_provider_timeout(server: FakeChatServer) -> None:
    writer = OpenAIChatWriter(make_settings(server, llm_stall_timeout_s=0.3), retry_backoff_s=0.01)
    server.add(Reply(text="never finishes", stall_after=1))
    started = time.monotonic()
    with pytest.raises(ProviderTimeout) as info:
        await collect(writer, make_request(ScriptedRetrieve()))
    elapsed = time.monotonic() - started
    await writer.aclose()
    assert info.value.code == "provider_timeout"
    assert "0.3s" in info.value.message
    assert elapsed < 2.0
    assert server.attempts == 1  # a stall is not retried
    assert server.wait_for_disconnect(2.0)  # and the stream was closed


async def test_stall_before_the_first_byte_is_a_provider_timeout(server: FakeChatServer) -> None:
    writer = OpenAIChatWriter(make_settings(server, llm_stall_timeout_s=0.3), retry_backoff_s=0.01)
    server.add(Reply(text="late", delay_s=3.0))
    started = time.monotonic()
    with pytest.raises(ProviderTimeout, match="for the response to start"):
        await collect(writer, make_request(ScriptedRetrieve()))
    await writer.aclose()
    assert time.monotonic() - started < 2.0
    assert server.attempts == 1


async def test_stall_while_a_tool_call_streams(server: FakeChatServer) -> None:
    writer = OpenAIChatWriter(make_settings(server, llm_stall_timeout_s=0.3), retry_backoff_s=0.01)
    server.add(ToolCalls(calls=(retrieve_call("nodes"),), stall_after=3))
    with pytest.raises(ProviderTimeout):
        await collect(writer, make_request(ScriptedRetrieve()))
    await writer.aclose()
    assert server.wait_for_disconnect(2.0)


async def test_cancelling_the_consumer_closes_the_upstream_request(server: FakeChatServer) -> None:
    writer = OpenAIChatWriter(make_settings(server, llm_stall_timeout_s=30), retry_backoff_s=0.01)
    server.add(Reply(text="one two three four five six", chunk_delay_s=0.05, stall_after=4))
    first_token = asyncio.Event()

    async def consume() -> None:
        async for event in writer.write(make_request(ScriptedRetrieve())):
            if isinstance(event, Token):
                first_token.set()

    task = asyncio.create_task(consume())
    await asyncio.wait_for(first_token.wait(), 5)
    cancelled_at = time.monotonic()
    task.cancel()
    with pytest.raises(asyncio.CancelledError):
        await task
    assert await asyncio.to_thread(server.wait_for_disconnect, 2.0)
    disconnect = server.disconnects[0]
    assert disconnect.at - cancelled_at < 0.2
    assert server.completed == []
    await writer.aclose()


async def test_closing_the_generator_closes_the_upstream_request(server: FakeChatServer) -> None:
    writer = OpenAIChatWriter(make_settings(server), retry_backoff_s=0.01)
    server.add(Reply(text="one two three four", stall_after=3))
    events = writer.write(make_request(ScriptedRetrieve()))
    first = await anext(events)
    assert isinstance(first, Token)
    closed_at = time.monotonic()
    await events.aclose()  # type: ignore[attr-defined]
    assert await asyncio.to_thread(server.wait_for_disconnect, 2.0)
    assert server.disconnects[0].at - closed_at < 0.2
    await writer.aclose()


# --- context window -------------------------------------------------------------------------------


async def test_long_history_is_trimmed_with_a_warning(server: FakeChatServer) -> None:
    writer = OpenAIChatWriter(
        make_settings(server, llm_context_tokens=4096, llm_max_tokens=512, top_k=2), retry_backoff_s=0.01
    )
    history: list[Message] = []
    for i in range(12):
        history.append(Message("user", f"question {i} " + "word " * 150))
        history.append(Message("assistant", f"answer {i} " + "word " * 150))
    server.add(reply("Fine [1]."))

    _, written = await collect(writer, make_request(ScriptedRetrieve(), history=history))
    await writer.aclose()

    sent = server.requests[0]["messages"]
    assert sent[0]["role"] == "system"
    assert sent[1]["role"] == "user"
    assert 3 < len(sent) < 2 + len(history)
    assert sent[-2]["content"].startswith("answer 11")  # the newest turns stay
    assert not any(m["content"].startswith("question 0 ") for m in sent)
    assert len(written.warnings) == 1
    assert written.warnings[0].startswith("TOKEN_LIMIT")


async def test_question_too_big_for_the_window_is_token_limit(server: FakeChatServer) -> None:
    writer = OpenAIChatWriter(make_settings(server, llm_context_tokens=4096), retry_backoff_s=0.01)
    with pytest.raises(TokenLimit) as info:
        await collect(writer, make_request(ScriptedRetrieve(), user_context="word " * 20_000))
    assert info.value.code == "TOKEN_LIMIT"
    assert server.attempts == 0


async def test_garbage_in_the_stream_is_retried_then_an_api_error(
    server: FakeChatServer, writer: OpenAIChatWriter
) -> None:
    """Non-JSON `data:` lines and payloads of the wrong shape are provider faults: retried, then API_ERROR
    (never an unexpected exception that a face would turn into a 500)."""
    server.add(Garbage(lines=("data: {not json",)), reply("Recovered [1]."))
    _, written = await collect(writer, make_request(ScriptedRetrieve()))
    assert server.attempts == 2
    assert written.text == "Recovered [1]."

    server.add(
        Garbage(lines=("data: <html>502 Bad Gateway</html>",)),
        Garbage(lines=("data: 42",)),
        Garbage(lines=('data: {"choices": [',)),
        reply("never"),
    )
    with pytest.raises(ProviderError, match="after 3 attempts") as info:
        await collect(writer, make_request(ScriptedRetrieve()))
    assert info.value.code == "API_ERROR"
    assert server.attempts == 5
