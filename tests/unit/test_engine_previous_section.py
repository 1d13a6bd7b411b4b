"""A rewritten follow-up refused however its rewrite was searched is searched once more as asked with
where the previous answer came from (its first source's document title and heading) in brackets, and
answered when that search's passages answer the rewrite (`Engine._in_previous_section`). Not for a
question searched as asked, after a refused turn, or when that search is refused too."""

from __future__ import annotations

from typing import Any

import pytest

from lectern.conversation import Conversation, Message
from lectern.engine import Engine, _last_section
from lectern.followups import standalone_query
from lectern.models import Citation, CollectionInfo
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

GARDEN: dict[str, list[tuple[str, str]]] = {
    "tomatoes.md": [
        (
            "Watering in summer",
            "Water tomato plants deeply at the base in the morning during summer; a soaker hose keeps "
            "the leaves dry.",
        ),
        (
            "Feeding",
            "Feed tomato plants with a high-potash fertiliser every two weeks once the first fruit sets.",
        ),
    ],
    "roses.md": [
        ("Pruning roses", "Prune roses in late winter, cutting above an outward-facing bud."),
    ],
}
TITLE = "Growing Tomatoes"

FIRST = "How do I water tomato plants in summer?"
FOLLOW = "what does it need?"
SECTION = f"what does it need ({TITLE}: Watering in summer)?"
SELF_CONTAINED = "When do I prune roses?"


def _engine() -> Engine:
    embedder = HashEmbedder()
    index = MemoryIndex()
    index.create(CollectionInfo(name="garden", embedder_name=embedder.name, dimension=embedder.dimension))
    chunks = corpus_chunks(GARDEN)
    for chunk in chunks:  # each section under its document's title, as a Markdown file's chunks are
        if chunk.source_path == "tomatoes.md":
            chunk.heading_hierarchy = [TITLE, *chunk.heading_hierarchy]
    index.upsert(chunks, embedder.embed_documents([c.search_text for c in chunks]))
    settings = answer_settings()
    return Engine(Retriever(embedder, index, settings), ExtractiveWriter(embedder), settings)


async def _second(
    monkeypatch: pytest.MonkeyPatch, question: str, answered: dict[str, str]
) -> tuple[list[Any], list[str]]:
    """The second turn's events after FIRST, and every query searched in it."""
    monkeypatch.setattr(
        Engine, "_decide", decide_by_query({query: (level, 0.7) for query, level in answered.items()})
    )
    engine = _engine()
    conversation = engine.new_conversation()
    await engine.run(FIRST, conversation)
    searched: list[str] = []
    retrieve = engine.retriever.retrieve_assessed_then
    assessed = engine.retriever.retrieve_assessed

    async def spy_then(params: RetrievalParams, *args: Any, **kwargs: Any) -> Any:
        searched.append(params.query)
        return await retrieve(params, *args, **kwargs)

    async def spy(params: RetrievalParams, *args: Any, **kwargs: Any) -> Any:
        searched.append(params.query)
        return await assessed(params, *args, **kwargs)

    monkeypatch.setattr(engine.retriever, "retrieve_assessed_then", spy_then)
    monkeypatch.setattr(engine.retriever, "retrieve_assessed", spy)
    return await collect(engine.stream(question, conversation)), searched


async def test_a_refused_rewrite_is_answered_in_the_previous_answers_section(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    rewrite = standalone_query(FOLLOW, [FIRST])
    assert rewrite != FOLLOW
    events, searched = await _second(monkeypatch, FOLLOW, {FIRST: "high", SECTION: "low"})
    answer = done_of(events).answer
    assert answer.refusal_reason is None
    assert answer.grounded
    assert searched[-1] == SECTION
    assert retrieved_of(events)[-1].result.query == SECTION
    assert answer.search_query == rewrite  # decided, and written, on the rewrite's words
    assert {c.source_path for c in answer.citations} == {"tomatoes.md"}


NAMED = "does it work with a Hozelock timer?"  # names a thing of its own: a near miss's shape
NAMED_SECTION = f"does it work with a Hozelock timer ({TITLE}: Watering in summer)?"


@pytest.mark.parametrize(("level", "answered"), [("low", False), ("medium", True), ("high", True)])
async def test_a_question_naming_its_own_thing_takes_the_section_only_when_clear(
    monkeypatch: pytest.MonkeyPatch, level: str, answered: bool
) -> None:
    assert standalone_query(NAMED, [FIRST]) != NAMED
    events, searched = await _second(monkeypatch, NAMED, {FIRST: "high", NAMED_SECTION: level})
    assert searched[-1] == NAMED_SECTION
    assert (done_of(events).answer.refusal_reason is None) is answered


async def test_a_refused_section_search_leaves_the_refusal(monkeypatch: pytest.MonkeyPatch) -> None:
    events, searched = await _second(monkeypatch, FOLLOW, {FIRST: "high"})
    assert SECTION in searched
    assert done_of(events).answer.refusal_reason == "not_answerable"


async def test_a_question_searched_as_asked_is_not_searched_in_the_section(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    assert standalone_query(SELF_CONTAINED, [FIRST]) == SELF_CONTAINED
    events, searched = await _second(monkeypatch, SELF_CONTAINED, {FIRST: "high"})
    assert not any(TITLE in q for q in searched)
    assert done_of(events).answer.refusal_reason == "not_answerable"


async def test_after_a_refusal_there_is_no_section_to_search(monkeypatch: pytest.MonkeyPatch) -> None:
    events, searched = await _second(monkeypatch, FOLLOW, {SECTION: "high"})  # FIRST refused
    assert SECTION not in searched
    assert done_of(events).answer.refusal_reason == "not_answerable"


def _cited(*hierarchy: str, section: str = "") -> Citation:
    return Citation(
        number=1,
        chunk_id="c1",
        chunk_text="text",
        similarity_score=0.5,
        heading_hierarchy=list(hierarchy),
        section=section,
        source_path="a.md",
    )


@pytest.mark.parametrize(
    ("citations", "expected"),
    [
        ([_cited("Bread", "Proofing")], "Bread: Proofing"),
        ([_cited("Bread", "Shaping", "Proofing"), _cited("Cakes", "Icing")], "Bread: Proofing"),
        ([_cited("Proofing")], "Proofing"),  # title and heading the same
        ([_cited(section="Proofing")], "Proofing"),  # no hierarchy: the section
        ([], ""),  # the last answer was a refusal
    ],
)
def test_the_last_section_is_the_first_sources_title_and_heading(
    citations: list[Citation], expected: str
) -> None:
    conversation = Conversation(system_prompt="")
    conversation.add(Message("user", "How do I proof bread dough?"))
    conversation.add(Message("assistant", "text", citations=citations))
    assert _last_section(conversation) == expected
