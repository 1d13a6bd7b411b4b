"""A second question that names too little to stand alone ("how long does the first rise take?" after
"How do I make a sourdough starter?"), answered as asked only at low confidence, is searched again with
the previous topic, and that reading is kept when it is answered clearly and more probably
(`Engine._clearer_with_previous_topic`). A question that names a thing of its own, one answered well as
asked, and a first question are never searched again."""

from __future__ import annotations

from typing import Any

import pytest

from lectern.engine import Engine
from lectern.followups import with_previous_topic
from lectern.models import CollectionInfo
from lectern.retrieval import RetrievalParams, Retriever
from lectern.writers.extractive import ExtractiveWriter
from tests.fakes.hash_embedder import HashEmbedder
from tests.fakes.memory_index import MemoryIndex
from tests.unit.answer_support import (
    answer_settings,
    collect,
    corpus_chunks,
    decide_by_query,
    done_of,
    retrieved_of,
)

KITCHEN: dict[str, list[tuple[str, str]]] = {
    "sourdough.md": [
        (
            "Making a sourdough starter",
            "Mix equal weights of flour and water in a jar and feed the starter every day. "
            "The first rise takes about eight hours in a warm kitchen.",
        ),
    ],
    "soup.md": [
        (
            "Tuscan bean soup",
            "Soak the beans overnight. The soup simmers for two hours; the first rise of the "
            "foam is skimmed off.",
        ),
    ],
}

FIRST = "How do I make a sourdough starter?"
VAGUE = "How long does the first rise take?"
NAMED = "How long does the Tuscan bean soup simmer?"


def _engine() -> Engine:
    embedder = HashEmbedder()
    index = MemoryIndex()
    index.create(CollectionInfo(name="kitchen", embedder_name=embedder.name, dimension=embedder.dimension))
    chunks = corpus_chunks(KITCHEN)
    index.upsert(chunks, embedder.embed_documents([c.search_text for c in chunks]))
    settings = answer_settings()
    return Engine(Retriever(embedder, index, settings), ExtractiveWriter(embedder), settings)


async def _second(
    monkeypatch: pytest.MonkeyPatch, question: str, decisions: dict[str, tuple[str, float]]
) -> tuple[list[Any], list[str]]:
    """The second turn's events after FIRST, and every query the retriever was asked for in it."""
    monkeypatch.setattr(Engine, "_decide", decide_by_query({FIRST: ("high", 0.9), **decisions}))
    engine = _engine()
    conversation = engine.new_conversation()
    await engine.run(FIRST, conversation)
    searched: list[str] = []
    retrieve = engine.retriever.retrieve_assessed_then  # every search goes through it

    async def spy(params: RetrievalParams, *args: Any, **kwargs: Any) -> Any:
        searched.append(params.query)
        return await retrieve(params, *args, **kwargs)

    monkeypatch.setattr(engine.retriever, "retrieve_assessed_then", spy)
    return await collect(engine.stream(question, conversation)), searched


async def test_a_vague_second_question_answered_weakly_takes_the_previous_topic(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    retry = with_previous_topic(VAGUE, [FIRST])
    assert retry == "How long does the first rise take (sourdough starter)?"
    events, searched = await _second(monkeypatch, VAGUE, {VAGUE: ("low", 0.55), retry: ("medium", 0.8)})
    answer = done_of(events).answer
    assert answer.search_query == retry
    assert answer.refusal_reason is None
    assert answer.confidence.confidence_level == "medium"
    assert answer.confidence.answerability == pytest.approx(0.8)
    assert searched == [VAGUE, retry]
    assert [r.result.query for r in retrieved_of(events)] == [VAGUE, retry]
    assert answer.retrieval_count == 2


@pytest.mark.parametrize(
    "retried",
    [
        ("low", 0.7),  # no clearer: a low answer either way keeps the question as asked
        ("medium", 0.5),  # clearer level, but less probable
        None,  # refused with the topic
    ],
)
async def test_a_retry_no_better_keeps_the_question_as_asked(
    monkeypatch: pytest.MonkeyPatch, retried: tuple[str, float] | None
) -> None:
    retry = with_previous_topic(VAGUE, [FIRST])
    decisions = {VAGUE: ("low", 0.55), **({retry: retried} if retried else {})}
    events, searched = await _second(monkeypatch, VAGUE, decisions)
    answer = done_of(events).answer
    assert searched == [VAGUE, retry]  # searched again, not taken
    assert answer.search_query == VAGUE
    assert answer.confidence.confidence_level == "low"
    assert answer.retrieval_count == 1


async def test_a_question_naming_its_own_thing_is_not_searched_again(monkeypatch: pytest.MonkeyPatch) -> None:
    retry = with_previous_topic(NAMED, [FIRST])
    events, searched = await _second(monkeypatch, NAMED, {NAMED: ("low", 0.55), retry: ("high", 0.95)})
    assert searched == [NAMED]
    assert done_of(events).answer.search_query == NAMED


async def test_a_vague_question_answered_well_as_asked_is_not_searched_again(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    retry = with_previous_topic(VAGUE, [FIRST])
    events, searched = await _second(monkeypatch, VAGUE, {VAGUE: ("medium", 0.7), retry: ("high", 0.95)})
    assert searched == [VAGUE]
    assert done_of(events).answer.search_query == VAGUE


async def test_a_first_question_answered_weakly_is_not_searched_again(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr(Engine, "_decide", decide_by_query({VAGUE: ("low", 0.55)}))
    engine = _engine()
    answer = await engine.run(VAGUE, engine.new_conversation())
    assert answer.search_query == VAGUE
    assert answer.retrieval_count == 1
