"""The answer engine on real components: the local MiniLM embedder, LanceDB, the ingest pipeline and the
extractive writer, over small fixture documents, with the default (calibrated) thresholds."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from lectern.engine import AskOptions, Engine
from lectern.events import Retrieved
from lectern.settings import load_settings
from tests.integration.engine_support import ingested_engine

pytestmark = pytest.mark.integration

DOCS = Path(__file__).parent.parent / "fixtures" / "answer_docs"
REFUSAL = re.compile(r"^I don't have information about .+ in the documents\.$")


@pytest.fixture(scope="module")
def engine(tmp_path_factory: pytest.TempPathFactory) -> Engine:
    settings = load_settings(data_dir=tmp_path_factory.mktemp("answer-engine"), collection="answers")
    return ingested_engine(settings, [DOCS])


async def test_in_scope_question_is_answered_from_a_relevant_source(engine: Engine) -> None:
    answer = await engine.run("What is Gazebo Harmonic?", engine.new_conversation())
    assert answer.grounded
    assert answer.confidence.should_answer
    assert answer.citations[0].source_path == "gazebo.md"
    assert "robot simulator" in answer.text
    assert re.search(r"\[\d+\]", answer.text)


async def test_out_of_scope_question_is_refused(engine: Engine) -> None:
    answer = await engine.run("How do I bake sourdough bread?", engine.new_conversation())
    assert REFUSAL.match(answer.text), answer.text
    assert answer.confidence.confidence_level == "insufficient"
    assert not answer.grounded
    assert answer.citations == []


async def test_near_miss_naming_an_unknown_tool_is_refused(engine: Engine) -> None:
    answer = await engine.run("How do I simulate a robot in Webots?", engine.new_conversation())
    assert REFUSAL.match(answer.text), answer.text


async def test_follow_up_retrieves_the_install_section(engine: Engine) -> None:
    conversation = engine.new_conversation()
    await engine.run("What is Gazebo Harmonic?", conversation)
    events = [e async for e in engine.stream("How do I install it?", conversation)]
    retrieved = [e for e in events if isinstance(e, Retrieved)]
    top = retrieved[0].result.hits[0].chunk
    assert top.heading_hierarchy[-1] == "Installing Gazebo Harmonic"
    answer = conversation.history[-1]
    assert "gz-harmonic" in answer.content
    assert conversation.turns == 2


async def test_how_to_answer_keeps_the_code_block(engine: Engine) -> None:
    answer = await engine.run("How do I create a ROS 2 node in Python?", engine.new_conversation())
    assert answer.grounded
    assert "```python" in answer.text
    assert "class Talker(Node):" in answer.text


async def test_selected_text_only_answers_from_the_selection(engine: Engine) -> None:
    selection = "A revolute joint rotates around one axis between a lower and an upper limit."
    options = AskOptions(user_context=selection, selected_text_only=True)
    answer = await engine.run("How does a revolute joint move?", engine.new_conversation(), options)
    assert answer.grounded
    assert not answer.retrieval_used
    assert [c.title for c in answer.citations] == ["Selected text"]
    assert "rotates around one axis" in answer.text
