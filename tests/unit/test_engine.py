"""The engine's event stream: answers, refusals (the guardrail), tool-calling writers, selected text,
the conversation window and counters, validation and failures."""

from __future__ import annotations

import re
from collections.abc import AsyncIterator

import pytest

from lectern.conversation import Conversation
from lectern.engine import AskOptions, Engine
from lectern.errors import InvalidInput, VectorIndexError
from lectern.events import Retrieved, Token
from lectern.guardrail import LOW_CONFIDENCE_DISCLAIMER
from lectern.models import TokenUsage
from lectern.retrieval import Retriever
from lectern.writers.base import WriteRequest, WriterEvent, Written
from lectern.writers.extractive import ExtractiveWriter
from lectern.writers.selection import SELECTED_TITLE
from tests.fakes.hash_embedder import HashEmbedder
from tests.unit.answer_support import (
    CountingWriter,
    ScriptedIndex,
    ScriptedToolWriter,
    answer_settings,
    collect,
    done_of,
    failed_of,
    filled_index,
    hit,
    make_engine,
    retrieved_of,
    tokens_of,
)

REFUSAL = re.compile(r"^I don't have information about .+ in the documents\.$")


async def test_in_scope_question_is_answered_with_mapped_citations() -> None:
    engine, _, _ = make_engine()
    conversation = engine.new_conversation()
    events = await collect(engine.stream("What is a ROS 2 node?", conversation))
    assert isinstance(events[0], Retrieved)
    answer = done_of(events).answer
    assert tokens_of(events) == answer.text
    assert answer.grounded
    assert answer.retrieval_used
    assert answer.retrieval_count == 1
    assert answer.citations
    assert all(c.source_path == "ros.md" for c in answer.citations[:1])
    hits = retrieved_of(events)[0].result.hits
    for citation in answer.citations:
        assert f"[{citation.number}]" in answer.text
        assert hits[citation.number - 1].chunk.content_hash == citation.content_hash
    assert answer.turn_number == 1
    assert answer.model_used == "extractive"
    assert answer.timestamp.endswith("Z")
    assert answer.timings.total_ms > 0
    assert answer.usage.total_tokens > 0
    assert answer.error is None


async def test_out_of_scope_is_refused_without_calling_the_writer() -> None:
    index, embedder = filled_index()
    writer = CountingWriter(embedder)
    settings = answer_settings()
    engine = Engine(Retriever(embedder, index, settings), writer, settings)
    events = await collect(engine.stream("How do I bake sourdough bread?", engine.new_conversation()))
    answer = done_of(events).answer
    assert answer.text == "I don't have information about that in the documents."
    assert answer.refusal_reason is not None
    assert writer.calls == 0
    assert not answer.grounded
    assert answer.citations == []
    assert answer.confidence.confidence_level == "insufficient"
    assert not answer.confidence.should_answer


async def test_empty_collection_gives_the_no_information_answer() -> None:
    embedder = HashEmbedder()
    settings = answer_settings()
    engine = Engine(Retriever(embedder, ScriptedIndex([]), settings), CountingWriter(embedder), settings)
    answer = done_of(await collect(engine.stream("What is Gazebo?", engine.new_conversation()))).answer
    assert REFUSAL.match(answer.text)
    assert answer.warnings


async def test_guardrail_refuses_a_tool_writer_that_ignores_a_poor_retrieval() -> None:
    writer = ScriptedToolWriter(["bread baking recipes"], "Knead the dough for ten minutes and bake it [1].")
    engine, _, _ = make_engine(writer)
    events = await collect(engine.stream("How do I bake sourdough bread?", engine.new_conversation()))
    text = tokens_of(events)
    assert REFUSAL.match(text), text
    assert "Knead" not in text  # none of the writer's words got through
    answer = done_of(events).answer
    assert not answer.grounded
    assert answer.retrieval_count == 1
    assert len(retrieved_of(events)) == 1


async def test_tool_writer_with_good_retrieval_streams_and_cites_the_union() -> None:
    writer = ScriptedToolWriter(
        ["ROS 2 node", "create a ROS 2 node"], "A node is a process [1][2].", cited=[1, 2]
    )
    engine, _, _ = make_engine(writer)
    events = await collect(engine.stream("What is a ROS 2 node?", engine.new_conversation()))
    answer = done_of(events).answer
    assert tokens_of(events) == answer.text
    assert "A node is a process" in answer.text
    retrieved = retrieved_of(events)
    assert len(retrieved) == 2
    assert answer.retrieval_count == 2
    union = []
    for event in retrieved:
        union += [
            h for h in event.result.hits if h.chunk.content_hash not in {u.chunk.content_hash for u in union}
        ]
    assert [c.content_hash for c in answer.citations] == [
        union[0].chunk.content_hash,
        union[1].chunk.content_hash,
    ]
    assert answer.model_used == "scripted-model"
    assert answer.usage.total_tokens == 15


async def test_tool_writer_that_never_retrieves_is_checked_by_an_engine_retrieval() -> None:
    writer = ScriptedToolWriter([], "Gazebo simulates robots.", cited=[])
    engine, _, _ = make_engine(writer)
    events = await collect(engine.stream("What is Gazebo Harmonic?", engine.new_conversation()))
    answer = done_of(events).answer
    assert len(retrieved_of(events)) == 1
    assert answer.retrieval_count == 1
    assert "Gazebo simulates robots." in answer.text
    assert answer.citations  # the passages retrieved to decide are the sources


async def test_tool_calls_are_capped() -> None:
    writer = ScriptedToolWriter(["ROS 2 node"] * 4, "Nodes [1].")
    engine, _, _ = make_engine(writer, answer_settings(llm_max_tool_calls=3))
    events = await collect(engine.stream("What is a ROS 2 node?", engine.new_conversation()))
    assert writer.errors == ["TOOL_CALL_LIMIT"]
    assert done_of(events).answer.retrieval_count == 3


async def test_tool_retrievals_use_the_session_cache() -> None:
    writer = ScriptedToolWriter(["ROS 2 node", "ROS 2 node"], "Nodes [1].")
    engine, index, _ = make_engine(writer)
    await collect(engine.stream("What is a ROS 2 node?", engine.new_conversation()))
    assert index.searches == 1


async def test_selected_text_only_touches_neither_index_nor_embedder() -> None:
    engine, index, embedder = make_engine()
    selection = (
        "Principle 2: real-time operation. A humanoid cannot pause the physical world while it thinks, "
        "so its control loop must meet deadlines."
    )
    options = AskOptions(user_context=selection, selected_text_only=True)
    events = await collect(engine.stream("Why can't the robot pause?", engine.new_conversation(), options))
    answer = done_of(events).answer
    assert index.searches == 0
    assert embedder.query_calls == 0
    assert embedder.document_calls == []
    assert not retrieved_of(events)
    assert not answer.retrieval_used
    assert answer.grounded
    assert [c.title for c in answer.citations] == [SELECTED_TITLE]
    assert "pause the physical world" in answer.text


async def test_selected_text_only_says_when_the_question_is_about_something_else() -> None:
    engine, index, _ = make_engine()
    options = AskOptions(
        user_context="Inverse kinematics maps a hand pose to joint angles.", selected_text_only=True
    )
    answer = await engine.run("Which lidar sensors does Gazebo simulate?", engine.new_conversation(), options)
    assert answer.text.startswith("I don't have information about")
    assert "selected text" in answer.text
    assert not answer.grounded
    assert index.searches == 0


async def test_user_context_is_a_citable_source() -> None:
    engine, _, _ = make_engine()
    selection = "Running gz sim opens the simulator window with an empty world for testing robots."
    answer = await engine.run(
        "What does gz sim open?", engine.new_conversation(), AskOptions(user_context=selection)
    )
    selected = [c for c in answer.citations if c.title == SELECTED_TITLE]
    assert selected
    assert f"[{selected[0].number}]" in answer.text
    assert "simulator window" in answer.text


async def test_refusal_echoes_neither_the_question_nor_the_selection() -> None:
    engine, _, _ = make_engine()
    selection = "Quaternions avoid gimbal lock when robots rotate in three dimensions."
    options = AskOptions(user_context=selection)
    question = "How do I bake ![x](javascript:alert(1)) <b>sourdough</b> bread?"
    answer = await engine.run(question, engine.new_conversation(), options)
    assert answer.text == "I don't have information about that in the documents."
    assert not answer.grounded
    assert answer.citations == []


async def test_user_context_over_ten_thousand_chars_is_invalid() -> None:
    engine, _, _ = make_engine()
    options = AskOptions(user_context="x" * 10_001)
    failed = failed_of(await collect(engine.stream("Explain this", engine.new_conversation(), options)))
    assert failed.code == "INVALID_INPUT"


@pytest.mark.parametrize("question", ["", "   ", "\n\t"])
async def test_blank_question_is_invalid_input(question: str) -> None:
    engine, index, _ = make_engine()
    failed = failed_of(await collect(engine.stream(question, engine.new_conversation())))
    assert failed.code == "INVALID_INPUT"
    assert index.searches == 0
    with pytest.raises(InvalidInput):
        await engine.run(question, engine.new_conversation())


async def test_index_failure_fails_the_turn_with_qdrant_error() -> None:
    embedder = HashEmbedder()
    settings = answer_settings()
    engine = Engine(
        Retriever(embedder, ScriptedIndex([], fail=True), settings), CountingWriter(embedder), settings
    )
    conversation = engine.new_conversation()
    failed = failed_of(await collect(engine.stream("What is Gazebo?", conversation)))
    assert (failed.code, failed.message) == ("QDRANT_ERROR", "Unable to retrieve content")
    assert conversation.history == []
    assert conversation.turns == 0
    with pytest.raises(VectorIndexError):
        await engine.run("What is Gazebo?", conversation)


async def test_follow_up_retrieves_the_install_section() -> None:
    engine, _, _ = make_engine()
    conversation = engine.new_conversation()
    await engine.run("What is Gazebo Harmonic?", conversation)
    events = await collect(engine.stream("How do I install it?", conversation))
    answer = done_of(events).answer
    assert answer.search_query == "How do I install Gazebo Harmonic?"
    top = retrieved_of(events)[0].result.hits[0].chunk
    assert top.heading_hierarchy == ["Installing Gazebo Harmonic"]
    assert answer.turn_number == 2


async def test_low_confidence_answers_carry_a_disclaimer() -> None:
    # Everything retrieved passes "low" and nothing reaches "medium".
    engine, _, _ = make_engine(settings=answer_settings(confidence_medium=0.99, confidence_high=0.99))
    answer = await engine.run("What is a ROS 2 node?", engine.new_conversation())
    assert answer.confidence.confidence_level == "low"
    assert answer.text.startswith(LOW_CONFIDENCE_DISCLAIMER)
    assert answer.grounded


async def test_window_counters_and_reset() -> None:
    engine, index, _ = make_engine(settings=answer_settings(max_history=3))
    conversation: Conversation = engine.new_conversation()
    for question in ("What is a ROS 2 node?", "What is Gazebo Harmonic?", "What is a ROS 2 node?"):
        await engine.run(question, conversation)
    assert conversation.messages[0].role == "system"
    assert len(conversation.messages) == 3
    assert [m.role for m in conversation.history] == ["user", "assistant"]
    assert conversation.turns == 3
    assert conversation.retrievals == 3
    assert conversation.tokens > 0
    assert index.searches == 2  # the repeated question came from the session cache
    conversation.reset()
    assert conversation.history == []
    assert conversation.cache == {}
    answer = await engine.run("What is a ROS 2 node?", conversation)
    assert answer.turn_number == 4
    assert index.searches == 3


async def test_stream_stops_cleanly_when_the_consumer_stops() -> None:
    writer = ScriptedToolWriter(["ROS 2 node"], "one two three four five six seven")
    engine, _, _ = make_engine(writer)
    conversation = engine.new_conversation()
    stream = engine.stream("What is a ROS 2 node?", conversation)
    async for event in stream:
        if isinstance(event, Token):
            break
    await stream.aclose()  # type: ignore[attr-defined]
    assert conversation.history == []  # an interrupted turn is not remembered


@pytest.mark.parametrize(
    ("question", "medium"),
    [
        ("What is a ROS 2 node?", None),  # answered
        ("What is a ROS 2 node?", 0.99),  # answered at low confidence: the disclaimer first
        ("How do I bake sourdough bread?", None),  # refused
    ],
)
async def test_one_token_for_callers_that_read_only_the_answer(question: str, medium: float | None) -> None:
    overrides = {} if medium is None else {"confidence_medium": medium, "confidence_high": medium}
    engine, _, _ = make_engine(settings=answer_settings(**overrides))
    words = await collect(engine.stream(question, engine.new_conversation()))
    whole = await collect(engine.stream(question, engine.new_conversation(), AskOptions(stream_tokens=False)))
    by_words, at_once = done_of(words).answer, done_of(whole).answer
    assert len([e for e in words if isinstance(e, Token)]) > 3
    assert len([e for e in whole if isinstance(e, Token)]) == 1
    assert tokens_of(whole) == tokens_of(words) == at_once.text == by_words.text
    assert at_once.citations == by_words.citations
    assert at_once.confidence == by_words.confidence
    assert at_once.refusal_reason == by_words.refusal_reason
    assert (await engine.run(question, engine.new_conversation())).text == by_words.text
    assert medium is None or by_words.text.startswith(LOW_CONFIDENCE_DISCLAIMER)


def _index_with_a_reserve() -> ScriptedIndex:
    """Three passages: at top_k=2 the third, the only one naming the engine asked for, is the reserve."""
    first = "Gazebo simulates physics for robots. Physics engines compute the contacts and forces in Gazebo."
    second = "A robot model needs realistic inertia values before Gazebo can simulate it well."
    listed = "Gazebo can use the DART physics engine, which models contacts of humanoids accurately."
    return ScriptedIndex(
        [
            hit(first, 0.8, score=0.9, path="physics.md"),
            hit(second, 0.7, score=0.8, path="inertia.md"),
            hit(listed, 0.6, score=0.7, path="engines.md"),
        ]
    )


async def test_an_answer_may_cite_the_reserve_and_lists_what_it_cites() -> None:
    """The decision is made on the top_k hits; the writer may quote a reserve passage (ranked just
    below them), which the answer then cites under a number its citations list."""
    index = _index_with_a_reserve()
    embedder = HashEmbedder()
    settings = answer_settings(top_k=2)
    engine = Engine(Retriever(embedder, index, settings), ExtractiveWriter(embedder), settings)
    events = await collect(engine.stream("Which physics engines can Gazebo use?", engine.new_conversation()))
    retrieved = retrieved_of(events)
    assert [h.chunk.source_path for h in retrieved[0].result.hits] == ["physics.md", "inertia.md"]
    answer = done_of(events).answer
    assert "DART physics engine" in answer.text
    assert tokens_of(events) == answer.text
    cited = {int(n) for n in re.findall(r"\[(\d+)\]", answer.text)}
    assert cited == {c.number for c in answer.citations}
    by_number = {c.number: c.source_path for c in answer.citations}
    assert "engines.md" in by_number.values()
    # The passage that says it is cited by the number its sentence carries.
    marker = re.search(r"DART physics engine[^\[]*\[(\d+)\]", answer.text)
    assert marker is not None
    assert by_number[int(marker.group(1))] == "engines.md"


class _MarkingWriter:
    """A writer that cites the first source and a number past its sources (a model's slip)."""

    name = "marking"
    retrieves_itself = False

    async def write(self, request: WriteRequest) -> AsyncIterator[WriterEvent]:
        text = "Gazebo simulates physics [1]. It can use DART [3]."
        yield Token(text)
        yield Written(text=text, cited=[1], usage=TokenUsage(), model="marking")


async def test_a_writer_that_does_not_quote_the_reserve_cannot_cite_it() -> None:
    index = _index_with_a_reserve()
    settings = answer_settings(top_k=2)
    engine = Engine(Retriever(HashEmbedder(), index, settings), _MarkingWriter(), settings)
    events = await collect(engine.stream("Which physics engines can Gazebo use?", engine.new_conversation()))
    answer = done_of(events).answer
    assert retrieved_of(events)[0].result.reserve  # there was a reserve to cite
    assert [c.source_path for c in answer.citations] == ["physics.md"]
    # The slip names no source: dropped, not shown under a number the citations do not list.
    assert {int(n) for n in re.findall(r"\[(\d+)\]", answer.text)} == {1}
