"""A turn on a stored session gives the engine the previous answer's citations (its files and section, which
a follow-up's search reads), as a conversation in process has them; only the newest answer's are read."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from lectern.api import create_app
from lectern.api.turns import _citations
from lectern.conversation import Conversation, Message
from lectern.engine import Engine
from lectern.models import Chunk, Citation, CollectionInfo, content_hash
from lectern.retrieval import Retriever
from lectern.writers.extractive import ExtractiveWriter
from tests.api_support import app_client, make_settings
from tests.fakes.hash_embedder import HashEmbedder
from tests.fakes.memory_index import MemoryIndex

NOTES = [
    ("Bread", "Proofing", "Let bread dough rise in a warm place for one to two hours, until it has doubled."),
    (
        "Bread",
        "Baking",
        "Bake a plain bread loaf at 230 degrees for thirty-five minutes, until it sounds hollow.",
    ),
    ("Steak", "Searing", "Sear a steak in a smoking hot pan for three minutes on each side for medium rare."),
    ("Steak", "Resting", "Rest a seared steak on a warm plate for five minutes so its juices settle."),
    (
        "Rice",
        "Cooking",
        "Cook one cup of rice with one and a half cups of water, covered, for fifteen minutes.",
    ),
]


def cooking_engine(tmp_path: Path) -> Engine:
    settings = make_settings(tmp_path)
    embedder = HashEmbedder()
    index = MemoryIndex(settings.collection)
    index.create(
        CollectionInfo(name=settings.collection, embedder_name=embedder.name, dimension=embedder.dimension)
    )
    chunks = [
        Chunk(
            text=text,
            content_hash=content_hash(text),
            chunk_index=i,
            token_count=len(text.split()),
            heading_hierarchy=[title, section],
            title=title,
            chapter=title,
            section=section,
            source_path=f"notes/{title.lower()}.md",
        )
        for i, (title, section, text) in enumerate(NOTES)
    ]
    index.upsert(chunks, np.asarray(embedder.embed_documents([c.search_text for c in chunks])))
    return Engine(Retriever(embedder, index, settings), ExtractiveWriter(embedder), settings)  # type: ignore[arg-type]


def cited(citations: list[Citation]) -> list[tuple[str, str, str, list[str]]]:
    return [(c.source_path, c.title, c.section, c.heading_hierarchy) for c in citations]


async def test_a_chat_api_follow_up_reads_the_previous_answers_citations(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    engine = cooking_engine(tmp_path)
    questions = ["How do I sear a steak?", "How do I rest it?", "How do I bake a bread loaf?"]
    in_process = engine.new_conversation()
    answers = [await engine.run(q, in_process) for q in questions[:2]]
    assert answers[0].citations
    assert answers[1].citations

    seen: list[list[Message]] = []  # each turn's history as the engine got it
    stream = engine.stream

    def spy(question: str, conversation: Conversation, options: Any = None) -> Any:
        seen.append(list(conversation.history))
        return stream(question, conversation, options)

    monkeypatch.setattr(engine, "stream", spy)
    session = "4b8f2c55-5a1e-4c53-9d44-2f2b8e1c0a11"
    async with app_client(create_app(make_settings(tmp_path), engine=engine)) as client:
        for question in questions:
            r = await client.post("/chat/run", json={"message": question, "session_id": session})
            assert r.status_code == 200, r.text

    # the second turn reads the first answer's files, titles, sections and heading paths
    second = seen[1]
    assert [m.role for m in second] == ["user", "assistant"]
    assert cited(second[-1].citations) == cited(answers[0].citations)
    assert second[-1].citations[0].chunk_text == answers[0].citations[0].chunk_text
    # the third, the second answer's; the first answer's stay in the store (no one reads them)
    third = seen[2]
    assert [m.role for m in third] == ["user", "assistant", "user", "assistant"]
    assert cited(third[-1].citations) == cited(answers[1].citations)
    assert third[1].citations == []


def test_a_stored_citation_that_is_not_one_is_left_out() -> None:
    good = Citation(number=1, chunk_id="c1", chunk_text="Rest it.", similarity_score=0.6, section="Resting")
    stored = [good.model_dump(mode="json"), {"number": 0, "source_path": "notes/odd.md"}, "steak"]
    assert _citations(json.dumps(stored)) == [good]
    assert _citations(json.dumps([good.model_dump(mode="json")])) == [good]
    assert _citations("{not json") == []
    assert _citations(None) == []
    assert _citations("[]") == []
