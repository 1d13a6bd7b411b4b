"""The answerability decision and the extractive writer on real components (local MiniLM, LanceDB,
the shipped decision model): paraphrases are answered, a fact in one passage of a small folder is
answered, near misses and off-topic questions are refused with related reading, never echoing the
question, and a self-contained second question is searched as asked."""

from __future__ import annotations

from pathlib import Path

import pytest

from lectern.answerability import load_model
from lectern.engine import Engine
from lectern.guardrail import REFUSAL
from lectern.settings import Settings, load_settings
from tests.integration.engine_support import ingested_engine

pytestmark = pytest.mark.integration

FIXTURES = Path(__file__).parent.parent / "fixtures"


def _engine(tmp: Path, folder: Path) -> Engine:
    settings = load_settings(data_dir=tmp, collection="answerability")
    return ingested_engine(settings, [folder], sentences=True)


@pytest.fixture(scope="module")
def docs(tmp_path_factory: pytest.TempPathFactory) -> Engine:
    return _engine(tmp_path_factory.mktemp("answer-docs"), FIXTURES / "answer_docs")


@pytest.fixture(scope="module")
def manual(tmp_path_factory: pytest.TempPathFactory) -> Engine:
    return _engine(tmp_path_factory.mktemp("small-docs"), FIXTURES / "small_docs")


def test_the_local_model_ships_a_trained_decision() -> None:
    model = load_model("local:all-MiniLM-L6-v2")
    assert model is not None
    assert 0.0 < model.threshold <= model.medium <= model.high < 1.0


def test_the_shipped_decision_was_trained_at_the_default_similarity_threshold() -> None:
    # The signals read the passages that pass the threshold: a decision trained at another threshold sees
    # other passages (and other similarities) than the engine gives it. Retrain after changing the default.
    model = load_model("local:all-MiniLM-L6-v2")
    assert model is not None
    assert model.report["similarity_threshold"] == Settings.model_fields["similarity_threshold"].default


async def test_a_fact_in_one_passage_of_a_small_folder_is_answered(manual: Engine) -> None:
    answer = await manual.run("How long is the toaster warranty?", manual.new_conversation())
    assert answer.confidence.should_answer, answer.refusal_reason
    assert "three years" in answer.text
    assert answer.citations[0].source_path == "toaster-manual.md"
    assert answer.confidence.answerability is not None


async def test_a_table_row_answers_a_question_about_it(manual: Engine) -> None:
    answer = await manual.run(
        "What browning level gives medium toast, and how long does it take?", manual.new_conversation()
    )
    assert answer.confidence.should_answer, answer.refusal_reason
    assert "2 min 15 s" in answer.text


async def test_a_paraphrase_is_answered(docs: Engine) -> None:
    # The reader does not know the name (URDF) of what they ask about.
    answer = await docs.run(
        "Which file format describes the links and joints of a robot?", docs.new_conversation()
    )
    assert answer.confidence.should_answer, answer.refusal_reason
    assert answer.citations[0].source_path == "urdf.md"
    assert "URDF" in answer.text


async def test_a_near_miss_is_refused_with_related_reading(docs: Engine) -> None:
    answer = await docs.run("How do I simulate a robot in Webots?", docs.new_conversation())
    assert answer.text == REFUSAL
    assert not answer.confidence.should_answer
    assert answer.confidence.confidence_level == "insufficient"
    assert answer.citations == []
    assert answer.refusal_reason in ("off_topic", "not_answerable")
    assert answer.related
    assert answer.related[0].source_path == "gazebo.md"


async def test_an_off_topic_question_is_refused_without_echoing_it(docs: Engine) -> None:
    question = "How do I bake <img src=x onerror=alert(1)> sourdough bread?"
    answer = await docs.run(question, docs.new_conversation())
    assert answer.text == REFUSAL
    assert answer.refusal_reason in ("no_passages", "not_answerable", "off_topic")
    assert "img" not in answer.text


async def test_a_self_contained_second_question_is_searched_as_asked(docs: Engine) -> None:
    conversation = docs.new_conversation()
    await docs.run("What is Gazebo Harmonic?", conversation)
    second = "What is a ROS 2 node and how does it differ from a topic?"
    answer = await docs.run(second, conversation)
    assert answer.search_query == second
