"""The engine with the tool-calling writer, a scripted chat server over loopback HTTP, and a real
retriever over an in-memory index: the engine, not the model, has the last word on grounding."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest

from lectern.engine import Engine
from lectern.events import Done, Failed, Retrieved, Token
from lectern.writers.openai_chat import OpenAIChatWriter
from tests.fakes.openai_chat_server import Fail, FakeChatServer, Reply, reply, retrieve_call, tool_calls
from tests.llm_engine import events_of, llm_engine

pytestmark = pytest.mark.integration

DOCS = [
    ("Nodes", "A ROS 2 node is a process that performs computation in a ROS 2 graph."),
    ("Topics", "ROS 2 nodes exchange messages over named topics with publishers and subscribers."),
    ("Services", "A ROS 2 service is a call and response between two ROS 2 nodes."),
    ("Launch", "A ROS 2 launch file starts several ROS 2 nodes at once."),
]


@pytest.fixture
def server() -> Iterator[FakeChatServer]:
    with FakeChatServer() as s:
        yield s


def build(server: FakeChatServer, **overrides: Any) -> tuple[Engine, OpenAIChatWriter]:
    return llm_engine(server, DOCS, **overrides)


async def test_answer_ignoring_an_insufficient_retrieval_is_refused(server: FakeChatServer) -> None:
    engine, writer = build(server)
    model_text = "Tune the proportional gain first, then the derivative, then the integral [1]."
    server.add(
        tool_calls(retrieve_call("quadcopter PID controller tuning")),
        Reply(text=model_text, chunk_delay_s=0.05),
    )

    events = await events_of(
        engine.stream("How do I tune a PID controller for a quadcopter?", engine.new_conversation())
    )
    await writer.aclose()

    assert not any(isinstance(e, Failed) for e in events)
    retrieved = [e for e in events if isinstance(e, Retrieved)]
    assert retrieved
    assert retrieved[0].result.query == "quadcopter PID controller tuning"
    done = events[-1]
    assert isinstance(done, Done)
    answer = done.answer
    assert answer.grounded is False
    assert answer.citations == []
    assert answer.text.startswith("I don't have information about")
    assert "proportional" not in answer.text
    assert "".join(e.text for e in events if isinstance(e, Token)) == answer.text
    # The engine cancelled the writer, which closed the model's stream mid-answer.
    assert server.wait_for_disconnect(2.0)


async def test_grounded_answer_maps_cited_numbers_to_the_retrieved_chunks(server: FakeChatServer) -> None:
    engine, writer = build(
        server, confidence_low=0.05, confidence_medium=0.1, confidence_high=0.2, similarity_threshold=0.0
    )
    server.add(
        tool_calls(retrieve_call("ROS 2 node", top_k=3), usage=(300, 10)),
        # [1] and [2] are the first two hits of the search (the launch and the node sections).
        reply(
            "A launch file starts several ROS 2 nodes at once [1]. A node is a process that performs "
            "computation [2].",
            usage=(600, 20),
        ),
    )

    events = await events_of(engine.stream("What is a ROS 2 node?", engine.new_conversation()))
    await writer.aclose()

    failed = [e for e in events if isinstance(e, Failed)]
    assert not failed, failed
    retrieved = [e for e in events if isinstance(e, Retrieved)]
    assert len(retrieved) == 1
    hits = retrieved[0].result.hits
    done = events[-1]
    assert isinstance(done, Done)
    answer = done.answer
    assert answer.grounded is True
    assert answer.text.endswith("performs computation [2].")
    assert [c.number for c in answer.citations] == [1, 2]
    assert [c.chunk_text for c in answer.citations] == [hits[0].chunk.text, hits[1].chunk.text]
    assert answer.model_used == "fake-model"
    assert answer.usage.prompt_tokens == 900
    assert answer.usage.completion_tokens == 30
    assert answer.retrieval_count == 1


async def test_provider_failure_is_a_failed_event(server: FakeChatServer) -> None:
    engine, writer = build(server)
    server.add(Fail(status=500), Fail(status=500), Fail(status=500))
    events = await events_of(engine.stream("What is a ROS 2 node?", engine.new_conversation()))
    await writer.aclose()
    assert isinstance(events[-1], Failed)
    assert events[-1].code == "API_ERROR"
    assert server.attempts == 3


async def test_stall_is_a_provider_timeout_failure(server: FakeChatServer) -> None:
    engine, writer = build(server, llm_stall_timeout_s=0.3)
    server.add(Reply(text="never", stall_after=1))
    events = await events_of(engine.stream("What is a ROS 2 node?", engine.new_conversation()))
    await writer.aclose()
    assert isinstance(events[-1], Failed)
    assert events[-1].code == "provider_timeout"
