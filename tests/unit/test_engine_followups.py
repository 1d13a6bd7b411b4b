"""Follow-ups in the engine: the previous answer's files come first (a follow-up refused on those is
decided again on its plain search, and one refused with its bracketed context is decided again
without it), a second question refused as asked is searched again with the previous topic, and a refused
"does that ...?" after a how-to is searched again with the whole doing."""

from __future__ import annotations

from typing import Any

import pytest

from lectern.engine import (
    FOLLOWUP_POOL,
    PREVIOUS_SOURCE_BONUS,
    PREVIOUS_SOURCE_PASSAGES,
    AskOptions,
    Engine,
    favour_previous_sources,
    with_second_search,
)
from lectern.models import ConfidenceMetrics, RetrievalResult, SearchHit
from lectern.retrieval import CHAT_MAX_TOP_K, RetrievalParams
from tests.unit.answer_support import collect, done_of, make_engine, retrieved_of

FIRST = "What is Gazebo Harmonic?"
STANDALONE = "Which repository do I add on Ubuntu first?"


def _hits(engine: Engine) -> list[SearchHit]:
    found = engine.retriever.retrieve_sync(
        RetrievalParams("Gazebo Harmonic ROS 2 node", 4, 0.0, "hybrid", None)
    )
    assert {h.chunk.source_path for h in found.hits} == {"gazebo.md", "ros.md"}
    return found.hits


def test_previous_answers_files_move_up_a_little() -> None:
    engine, _, _ = make_engine()
    hits = _hits(engine)
    gazebo = next(h for h in hits if h.chunk.source_path == "gazebo.md")
    ros = next(h for h in hits if h.chunk.source_path == "ros.md")
    close = [gazebo.model_copy(update={"score": 0.030}), ros.model_copy(update={"score": 0.029})]
    kept = favour_previous_sources(close, frozenset({"ros.md"}), 1)
    assert [h.chunk.source_path for h in kept] == ["ros.md"]
    assert kept[0].rank == 1
    # a clearly better passage from another file keeps its place
    far = [close[0].model_copy(update={"score": 0.030 + 2 * PREVIOUS_SOURCE_BONUS}), close[1]]
    assert [h.chunk.source_path for h in favour_previous_sources(far, frozenset({"ros.md"}), 2)] == [
        "gazebo.md",
        "ros.md",
    ]


def test_only_a_previous_files_best_passages_move_up() -> None:
    """The previous answer's file cannot fill the five with its passages: past its best few, they keep
    their own score, and a better-ranked passage of another file stays in."""
    engine, _, _ = make_engine()
    hits = _hits(engine)
    gazebo = next(h for h in hits if h.chunk.source_path == "gazebo.md")
    ros = next(h for h in hits if h.chunk.source_path == "ros.md")
    many = PREVIOUS_SOURCE_PASSAGES + 2
    # one other file's passage first, then the previous file's passages just below it
    other = gazebo.model_copy(update={"score": 0.030})
    previous = [ros.model_copy(update={"score": 0.0299 - 0.0001 * i}) for i in range(many)]
    kept = favour_previous_sources([*previous, other], frozenset({"ros.md"}), many)
    paths = [h.chunk.source_path for h in kept]
    assert paths[:PREVIOUS_SOURCE_PASSAGES] == ["ros.md"] * PREVIOUS_SOURCE_PASSAGES  # the best move up
    assert paths[PREVIOUS_SOURCE_PASSAGES] == "gazebo.md"  # and the other file's passage stays in
    assert [h.score for h in kept[:PREVIOUS_SOURCE_PASSAGES]] == [
        h.score for h in previous[:PREVIOUS_SOURCE_PASSAGES]
    ]
    assert [h.rank for h in kept] == list(range(1, many + 1))


def test_a_second_search_reranks_the_first_and_adds_nothing() -> None:
    engine, _, _ = make_engine()
    hits = _hits(engine)
    first = [hits[0].model_copy(update={"score": 0.032}), hits[1].model_copy(update={"score": 0.030})]
    # without the context the second passage is clearly better, and another passage comes up
    second = [
        hits[1].model_copy(update={"score": 0.033}),
        hits[2].model_copy(update={"score": 0.031}),
        hits[0].model_copy(update={"score": 0.026}),
    ]
    fused = with_second_search(first, second)
    assert [h.chunk.id for h in fused] == [hits[1].chunk.id, hits[0].chunk.id]
    assert fused[0].score == pytest.approx((0.030 + 0.033) / 2)
    # a passage the second search missed counts its lowest score there
    missed = with_second_search(first, [second[0], second[1].model_copy(update={"score": 0.029})])
    assert [h.chunk.id for h in missed] == [hits[1].chunk.id, hits[0].chunk.id]
    assert missed[1].score == pytest.approx((0.032 + 0.029) / 2)


async def test_a_follow_up_keeps_top_k_of_a_wider_search() -> None:
    engine, _, _ = make_engine()
    conversation = engine.new_conversation()
    first = await engine.run("What is a ROS 2 node?", conversation)
    assert {c.source_path for c in first.citations} == {"ros.md"}
    events = await collect(engine.stream("How do I create one?", conversation))
    result = retrieved_of(events)[0].result
    assert len(result.hits) <= engine.settings.top_k
    assert [h.rank for h in result.hits] == list(range(1, len(result.hits) + 1))
    assert result.hits[0].chunk.source_path == "ros.md"
    assert done_of(events).answer.search_query == "How do I create ROS 2 node?"


async def test_a_chat_faces_follow_up_searches_the_same_pool(monkeypatch: pytest.MonkeyPatch) -> None:
    """The chat faces' top_k limit (10) bounds what a client asks for, not the follow-up's pool: /v1 and
    /chat answered follow-ups from 10 passages where the engine (and the bench) use FOLLOWUP_POOL."""
    engine, _, _ = make_engine()
    asked: list[int] = []
    retrieve = engine.retriever.retrieve_assessed

    async def spy(params: RetrievalParams, *args: Any, **kwargs: Any) -> Any:
        asked.append(params.top_k)
        return await retrieve(params, *args, **kwargs)

    monkeypatch.setattr(engine.retriever, "retrieve_assessed", spy)
    pools = []
    for options in (AskOptions(), AskOptions(max_top_k=CHAT_MAX_TOP_K)):
        conversation = engine.new_conversation()
        await engine.run("What is a ROS 2 node?", conversation, options)
        asked.clear()
        await engine.run("How do I create one?", conversation, options)
        pools.append(max(asked))
    assert pools == [FOLLOWUP_POOL, FOLLOWUP_POOL]


def _decided(confidence: ConfidenceMetrics, level: str | None) -> tuple[ConfidenceMetrics, str | None]:
    """A stand-in decision: answered at `level`, or refused as not answerable when it is None."""
    if level is not None:
        return confidence.model_copy(update={"confidence_level": level, "should_answer": True}), None
    refused = confidence.model_copy(update={"confidence_level": "insufficient", "should_answer": False})
    return refused, "not_answerable"


def _decide_by_query(answer_queries: set[str], level: str) -> Any:
    """A stand-in answerability: answers a search whose query is in `answer_queries`, at `level`."""

    async def decide(
        self: Engine,
        turn: Any,
        result: RetrievalResult,
        confidence: ConfidenceMetrics,
        found: Any = None,
    ) -> tuple[ConfidenceMetrics, str | None]:
        return _decided(confidence, level if result.query in answer_queries else None)

    return decide


async def test_a_second_question_refused_as_asked_is_tried_with_the_previous_topic(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    retry = f"{STANDALONE.rstrip('?')} (Gazebo Harmonic)?"
    monkeypatch.setattr(Engine, "_decide", _decide_by_query({FIRST, retry}, "medium"))
    engine, _, _ = make_engine()
    conversation = engine.new_conversation()
    await engine.run(FIRST, conversation)
    events = await collect(engine.stream(STANDALONE, conversation))
    answer = done_of(events).answer
    assert answer.search_query == retry
    assert answer.refusal_reason is None
    assert answer.grounded
    assert answer.retrieval_count == 2
    assert [r.result.query for r in retrieved_of(events)] == [STANDALONE, retry]


async def test_a_weak_second_try_leaves_the_refusal(monkeypatch: pytest.MonkeyPatch) -> None:
    retry = f"{STANDALONE.rstrip('?')} (Gazebo Harmonic)?"
    monkeypatch.setattr(Engine, "_decide", _decide_by_query({FIRST, retry}, "low"))
    engine, _, _ = make_engine()
    conversation = engine.new_conversation()
    await engine.run(FIRST, conversation)
    answer = await engine.run(STANDALONE, conversation)
    assert answer.refusal_reason == "not_answerable"
    assert answer.search_query == STANDALONE


async def test_a_weak_second_try_answers_a_question_that_names_too_little(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    # no name, few topic words: the question is about the previous topic, so a low answer will do
    vague = "Which repository do I add first?"
    retry = f"{vague.rstrip('?')} (Gazebo Harmonic)?"
    monkeypatch.setattr(Engine, "_decide", _decide_by_query({FIRST, retry}, "low"))
    engine, _, _ = make_engine()
    conversation = engine.new_conversation()
    await engine.run(FIRST, conversation)
    answer = await engine.run(vague, conversation)
    assert answer.refusal_reason is None
    assert answer.search_query == retry


async def test_a_first_question_is_never_tried_again(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(Engine, "_decide", _decide_by_query(set(), "high"))
    engine, _, _ = make_engine()
    answer = await engine.run(STANDALONE, engine.new_conversation())
    assert answer.refusal_reason == "not_answerable"
    assert answer.retrieval_count == 1


HOW_TO = "How do I install Gazebo Harmonic?"
THAT = "does that take long?"
DOING = "does that take long to install Gazebo Harmonic?"


async def test_a_that_after_a_how_to_is_searched_with_the_whole_doing(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    # the first search carries the doing, not the topic glued after the question
    monkeypatch.setattr(Engine, "_decide", _decide_by_query({HOW_TO, DOING}, "medium"))
    engine, _, _ = make_engine()
    conversation = engine.new_conversation()
    await engine.run(HOW_TO, conversation)
    events = await collect(engine.stream(THAT, conversation))
    answer = done_of(events).answer
    assert answer.refusal_reason is None
    assert answer.grounded
    assert answer.search_query == DOING
    assert answer.retrieval_count == 1
    assert [r.result.query for r in retrieved_of(events)] == [DOING]


async def test_a_refused_doing_is_not_tried_again(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(Engine, "_decide", _decide_by_query({HOW_TO}, "high"))
    engine, _, _ = make_engine()
    conversation = engine.new_conversation()
    await engine.run(HOW_TO, conversation)
    answer = await engine.run(THAT, conversation)
    assert answer.refusal_reason == "not_answerable"
    assert answer.search_query == DOING
    # decided again on the plain search of the same query, then once as asked in the previous answer's
    # section (`Engine._in_previous_section`), never with another reading
    assert answer.retrieval_count == 3


def _decide_by_call(answer_from: int) -> Any:
    """A stand-in answerability: answers the first decision (the first question's) and those from the
    `answer_from`-th on, refuses the ones in between."""
    calls: list[str] = []

    async def decide(
        self: Engine,
        turn: Any,
        result: RetrievalResult,
        confidence: ConfidenceMetrics,
        found: Any = None,
    ) -> tuple[ConfidenceMetrics, str | None]:
        calls.append(result.query)
        return _decided(confidence, "low" if len(calls) == 1 or len(calls) >= answer_from else None)

    return decide


async def test_a_refused_follow_up_is_decided_again_on_its_plain_search(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr(Engine, "_decide", _decide_by_call(answer_from=3))
    engine, _, _ = make_engine()
    conversation = engine.new_conversation()
    first = await engine.run("What is a ROS 2 node?", conversation)
    assert first.citations
    events = await collect(engine.stream("How do I create one?", conversation))
    answer = done_of(events).answer
    assert answer.refusal_reason is None
    assert answer.grounded
    assert answer.search_query == "How do I create ROS 2 node?"
    # the search favouring the previous answer's files, then the same query searched plainly
    assert [r.result.query for r in retrieved_of(events)] == [answer.search_query] * 2
    assert answer.retrieval_count == 2


async def test_a_follow_up_refused_on_both_searches_stays_refused(monkeypatch: pytest.MonkeyPatch) -> None:
    # the favouring search, the plain one, then as asked in the previous answer's section
    monkeypatch.setattr(Engine, "_decide", _decide_by_call(answer_from=5))
    engine, _, _ = make_engine()
    conversation = engine.new_conversation()
    await engine.run("What is a ROS 2 node?", conversation)
    answer = await engine.run("How do I create one?", conversation)
    assert answer.refusal_reason == "not_answerable"
    assert answer.retrieval_count == 3


async def test_no_second_search_without_the_brackets_that_say_what_its_pronoun_is(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """ "which plugins does it need for sensors (Gazebo Harmonic and a ROS 2 node)?": without the
    brackets "it" stands for nothing, so that search would rank passages on the other words alone."""
    engine, _, _ = make_engine()
    asked: list[str] = []
    retrieve = engine.retriever.retrieve_assessed

    async def spy(params: RetrievalParams, *args: Any, **kwargs: Any) -> Any:
        asked.append(params.query)
        return await retrieve(params, *args, **kwargs)

    monkeypatch.setattr(engine.retriever, "retrieve_assessed", spy)
    conversation = engine.new_conversation()
    first = await engine.run("What is the difference between Gazebo Harmonic and a ROS 2 node?", conversation)
    assert first.citations
    asked.clear()
    answer = await engine.run("which plugins does it need for sensors?", conversation)
    assert answer.search_query == "which plugins does it need for sensors (Gazebo Harmonic and a ROS 2 node)?"
    assert asked
    assert all("(" in query for query in asked)


REPORTED = "How do I stop the voice node from reacting to background chatter?"
POINTING = "where do I set how aggressive it is?"
WITH_CONTEXT = "where do I set how aggressive voice node is (reacting to background chatter)?"
BARE = "where do I set how aggressive voice node is?"


@pytest.mark.parametrize(("level", "answered"), [("medium", True), ("low", False)])
async def test_a_refused_rewrite_is_decided_again_without_its_brackets(
    monkeypatch: pytest.MonkeyPatch, level: str, answered: bool
) -> None:
    """The bracketed context keeps the search on the topic, but its words can make a follow-up look
    unanswered; without them the follow-up (its pronoun replaced) is answered at high or medium only."""
    monkeypatch.setattr(Engine, "_decide", _decide_by_query({BARE}, level))
    engine, _, _ = make_engine()
    conversation = engine.new_conversation()
    await engine.run(REPORTED, conversation)
    events = await collect(engine.stream(POINTING, conversation))
    answer = done_of(events).answer
    assert (answer.refusal_reason is None) is answered
    assert answer.search_query == (BARE if answered else WITH_CONTEXT)
    assert [r.result.query for r in retrieved_of(events)] == (
        [WITH_CONTEXT, BARE] if answered else [WITH_CONTEXT]
    )
