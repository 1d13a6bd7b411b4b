"""Answers are the same whether passages' units and terms are worked out, read from the store that
ingest filled, or stored on first use."""

from __future__ import annotations

from pathlib import Path

import pytest

from lectern import passage_store
from lectern.engine import Engine
from lectern.settings import load_settings
from lectern.writers.units import passage_terms, units_of
from tests.integration.engine_support import ingested_engine

pytestmark = pytest.mark.integration

DOCS = Path(__file__).parent.parent / "fixtures" / "answer_docs"
QUESTIONS = [
    "What is Gazebo Harmonic?",
    "How do I install Gazebo Harmonic?",
    "How do I create a ROS 2 node in Python?",
    "What does a URDF file describe?",
    "How do I bake sourdough bread?",
]


async def _answers(engine: Engine) -> list[str]:
    units_of.cache_clear()  # every passage from the store (or worked out), none from memory
    passage_terms.cache_clear()
    out = []
    for question in QUESTIONS:
        answer = await engine.run(question, engine.new_conversation())
        out.append(answer.model_dump_json(exclude={"timestamp", "timings"}))
    return out


async def test_answers_match_with_and_without_stored_units(tmp_path: Path) -> None:
    settings = load_settings(data_dir=tmp_path, collection="answers", query_cache_size=0)
    engine = ingested_engine(settings, [DOCS], sentences=True)  # the sentences configure the store
    store = passage_store.configure(settings.data_dir)
    assert store is not None
    assert store.stored() > 0  # ingest stored them
    try:
        from_ingest = await _answers(engine)
        passage_store.configure(None)
        worked_out = await _answers(engine)
        passage_store.configure(tmp_path / "fresh")  # an empty store: filled on first use, then read
        first_use = await _answers(engine)
        from_first_use = await _answers(engine)
    finally:
        passage_store.configure(None)
    assert from_ingest == worked_out == first_use == from_first_use
