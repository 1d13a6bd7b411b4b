"""A follow-up over ``/v1/chat/completions`` is searched as in a session: the files the previous answer
cited move up (`lectern.engine.favour_previous_sources`) whatever the client sends back: the assistant's
text only, the message as it came (with ``citations``), its own questions alone, or a system message
first. Before, only a session knew those files, and /v1 follow-ups were searched without them."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from lectern import engine as engine_module
from lectern.api import create_app
from lectern.api.openai_sources import MAX_REPLAYED, citations_of
from lectern.engine import Engine
from lectern.models import SearchHit
from tests.api_support import ON_TOPIC, app_client, make_engine, make_settings

FOLLOW_UP = "How do I create them in Python?"


@pytest.fixture
def favoured(monkeypatch: pytest.MonkeyPatch) -> list[frozenset[str]]:
    """The previous answer's files each follow-up's search favoured."""
    seen: list[frozenset[str]] = []
    real = engine_module.favour_previous_sources

    def spy(hits: list[SearchHit], previous: frozenset[str], top_k: int) -> list[SearchHit]:
        seen.append(previous)
        return real(hits, previous, top_k)

    monkeypatch.setattr(engine_module, "favour_previous_sources", spy)
    return seen


async def in_session(engine: Engine, favoured: list[frozenset[str]]) -> tuple[str, frozenset[str]]:
    conversation = engine.new_conversation()
    first = await engine.run(ON_TOPIC, conversation)
    favoured.clear()
    await engine.run(FOLLOW_UP, conversation)
    return first.text, favoured[-1]


def questions_run(engine: Engine, monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """The questions `engine.run` is asked from now on (a replayed previous question is run; the
    request's own question is streamed)."""
    asked: list[str] = []
    run = engine.run

    async def counting(question: str, *args: Any, **kwargs: Any) -> Any:
        asked.append(question)
        return await run(question, *args, **kwargs)

    monkeypatch.setattr(engine, "run", counting)
    return asked


def messages(kind: str, first: dict[str, Any]) -> list[dict[str, Any]]:
    answer = {"role": "assistant", "content": first["content"]}
    if kind == "users":
        return [{"role": "user", "content": ON_TOPIC}, {"role": "user", "content": FOLLOW_UP}]
    if kind == "echoed":
        answer = {k: v for k, v in first.items() if v is not None}
    lead = [{"role": "system", "content": "You are a helpful assistant."}] if kind == "system" else []
    return [*lead, {"role": "user", "content": ON_TOPIC}, answer, {"role": "user", "content": FOLLOW_UP}]


@pytest.mark.parametrize("kind", ["content", "echoed", "users", "system"])
async def test_a_follow_up_favours_the_previous_answers_files(
    tmp_path: Path, favoured: list[frozenset[str]], kind: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    settings = make_settings(tmp_path)
    engine = make_engine(settings)
    first_text, expected = await in_session(engine, favoured)
    assert expected
    async with app_client(create_app(settings, engine=engine)) as client:
        response = await client.post(
            "/v1/chat/completions",
            json={"model": "lectern", "messages": [{"role": "user", "content": ON_TOPIC}]},
        )
        first = response.json()["choices"][0]["message"]
        assert first["content"] == first_text
        favoured.clear()
        replayed = questions_run(engine, monkeypatch)
        response = await client.post(
            "/v1/chat/completions", json={"model": "lectern", "messages": messages(kind, first)}
        )
    assert response.status_code == 200
    assert favoured[-1] == expected
    # echoed citations name the files; otherwise the previous question is asked again
    assert replayed == ([] if kind == "echoed" else [ON_TOPIC])


async def test_the_answerability_probability_is_reported(tmp_path: Path) -> None:
    settings = make_settings(tmp_path)
    async with app_client(create_app(settings, engine=make_engine(settings))) as client:
        response = await client.post(
            "/v1/chat/completions",
            json={"model": "lectern", "messages": [{"role": "user", "content": ON_TOPIC}]},
        )
    extension = response.json()["lectern"]
    assert "answerability" in extension
    assert extension["answerability"] is None or 0.0 <= extension["answerability"] <= 1.0


THIRD = "And how do I list them?"


@pytest.mark.parametrize("kind", ["content", "users"])
async def test_a_third_turn_is_searched_as_in_a_session(
    tmp_path: Path, favoured: list[frozenset[str]], kind: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The second answer's files, which the third turn favours, came from a search that favoured the
    first answer's files: both answers are recalled, oldest first, as a session had them."""
    settings = make_settings(tmp_path)
    engine = make_engine(settings)
    conversation = engine.new_conversation()
    texts = []
    favoured.clear()
    for question in (ON_TOPIC, FOLLOW_UP, THIRD):
        texts.append((await engine.run(question, conversation)).text)
    in_session = list(favoured)
    assert len(in_session) == 2
    assert all(in_session)
    history: list[dict[str, Any]] = []
    for question, text in zip((ON_TOPIC, FOLLOW_UP), texts, strict=False):
        history.append({"role": "user", "content": question})
        if kind == "content":
            history.append({"role": "assistant", "content": text})
    history.append({"role": "user", "content": THIRD})
    replayed = questions_run(engine, monkeypatch)
    async with app_client(create_app(settings, engine=engine)) as client:
        favoured.clear()
        response = await client.post("/v1/chat/completions", json={"model": "lectern", "messages": history})
    assert response.status_code == 200
    assert response.json()["choices"][0]["message"]["content"] == texts[2]
    assert replayed == [ON_TOPIC, FOLLOW_UP]  # the third is streamed, not replayed
    assert [f for f in favoured if f] == in_session


async def test_answers_are_recalled_so_far_back_at_most(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    settings = make_settings(tmp_path)
    engine = make_engine(settings)
    questions = [ON_TOPIC, FOLLOW_UP, THIRD, "And how do I remove them?", "And rename them?", "Why?"]
    replayed = questions_run(engine, monkeypatch)
    async with app_client(create_app(settings, engine=engine)) as client:
        response = await client.post(
            "/v1/chat/completions",
            json={"model": "lectern", "messages": [{"role": "user", "content": q} for q in questions]},
        )
    assert response.status_code == 200
    # the three questions before the last one, oldest first (the last one is streamed)
    assert replayed == questions[-1 - MAX_REPLAYED : -1]


def test_echoed_citations_keep_where_the_answer_came_from() -> None:
    """An echoed citation keeps its heading path: a refused follow-up is searched again in the previous
    answer's section, as in a session (`Engine._in_previous_section`); malformed parts are dropped."""
    echoed = {
        "citations": [
            {
                "source_path": "bread.md",
                "title": "Bread",
                "section": "Proofing",
                "heading_path": ["Bread", "Proofing"],
            },
            {"source_path": "cakes.md", "title": 3, "heading_path": "Icing"},
            {"title": "no file"},
        ]
    }
    cited = citations_of(echoed)
    assert [c.source_path for c in cited] == ["bread.md", "cakes.md"]
    assert (cited[0].title, cited[0].section, cited[0].heading_hierarchy) == (
        "Bread",
        "Proofing",
        ["Bread", "Proofing"],
    )
    assert (cited[1].title, cited[1].section, cited[1].heading_hierarchy) == ("", "", [])
