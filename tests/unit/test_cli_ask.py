"""`lectern ask` / `lectern chat` over a fake-backed engine: rendering, errors, Ctrl-C in an answer."""

from __future__ import annotations

import json
from collections.abc import AsyncIterator

import pytest
from typer.testing import CliRunner

from lectern.cli import ask_cmd
from lectern.cli.main import app
from lectern.engine import Engine
from lectern.events import Token
from lectern.retrieval import Retriever
from lectern.writers.base import WriteRequest, WriterEvent
from lectern.writers.extractive import ExtractiveWriter
from tests.fakes.hash_embedder import HashEmbedder
from tests.unit.answer_support import ScriptedIndex, answer_settings, make_engine

runner = CliRunner()
STOPPED = "What does a ROS 2 node do?"


class InterruptedWriter(ExtractiveWriter):
    """Stops with Ctrl-C in the middle of its answer to one (in-scope) question."""

    async def write(self, request: WriteRequest) -> AsyncIterator[WriterEvent]:
        async for event in super().write(request):
            if request.question == STOPPED:
                yield Token("half an answer ")
                raise KeyboardInterrupt
            yield event


@pytest.fixture
def engine(monkeypatch: pytest.MonkeyPatch) -> Engine:
    built, _, embedder = make_engine()
    built.writer = InterruptedWriter(embedder)
    monkeypatch.setattr(ask_cmd, "_engine", lambda *args, **kwargs: built)
    return built


def test_ask_streams_the_answer_then_sources_and_confidence(engine: Engine) -> None:
    result = runner.invoke(app, ["ask", "What is a ROS 2 node?"])
    assert result.exit_code == 0, result.output
    assert "[1]" in result.output
    assert "ros.md" in result.output or "ROS 2 nodes" in result.output
    assert "confidence:" in result.output


def test_ask_json_carries_the_answer_model(engine: Engine) -> None:
    result = runner.invoke(app, ["ask", "--json", "How do I bake sourdough bread?"])
    payload = json.loads(result.output)
    assert payload["text"].startswith("I don't have information about")
    assert payload["should_answer"] is False
    assert payload["confidence"]["confidence_level"] == "insufficient"


def test_ask_failure_is_one_red_line_and_non_zero(monkeypatch: pytest.MonkeyPatch) -> None:
    embedder = HashEmbedder()
    settings = answer_settings()
    broken = Engine(
        Retriever(embedder, ScriptedIndex([], fail=True), settings), ExtractiveWriter(embedder), settings
    )
    monkeypatch.setattr(ask_cmd, "_engine", lambda *args, **kwargs: broken)
    result = runner.invoke(app, ["ask", "What is Gazebo?"])
    assert result.exit_code == 1
    assert "error: Unable to retrieve content" in result.output


def test_bad_filter_is_invalid_input(engine: Engine) -> None:
    result = runner.invoke(app, ["ask", "--filter", "nonsense", "What is Gazebo?"])
    assert result.exit_code == 1
    assert "key=value" in result.output


def test_chat_survives_ctrl_c_in_an_answer_and_keeps_history(engine: Engine) -> None:
    lines = "\n".join(
        [
            "What is Gazebo Harmonic?",
            STOPPED,
            "",
            "How do I install it?",
            "/sources",
            "/reset",
            "/bogus",
            "/exit",
        ]
    )
    result = runner.invoke(app, ["chat"], input=lines + "\n")
    assert result.exit_code == 0, result.output
    out = result.output
    assert "half an answer" in out
    assert "(stopped)" in out
    assert "The question is empty" in out
    assert "sudo apt-get install gz-harmonic" in out  # the follow-up still knew what "it" was
    assert "Installing Gazebo" in out
    assert "Conversation forgotten" in out
    assert "Unknown command" in out


def test_chat_leaves_on_end_of_input(engine: Engine) -> None:
    result = runner.invoke(app, ["chat"], input="What is a ROS 2 node?\n")
    assert result.exit_code == 0
