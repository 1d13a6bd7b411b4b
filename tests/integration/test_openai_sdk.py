"""The official `openai` SDK against a live Lectern server (uvicorn on loopback, local embedder, LanceDB):
answers with citations read from the SDK objects' extra fields, plain and streamed, the model list, and
the SDK's own exceptions for a bad key, an unknown model and an invalid request."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import openai
import pytest

from lectern.api import create_app
from tests.api_support import LiveServer
from tests.integration.mcp_support import (
    API_KEY,
    FOLLOW_UP,
    OFF_TOPIC,
    ON_TOPIC,
    Ingested,
    copy_data,
    ingested,
)

pytestmark = pytest.mark.integration

__all__ = ["ingested"]  # the session fixture, imported for pytest


@pytest.fixture(scope="module")
def live(ingested: Ingested, tmp_path_factory: pytest.TempPathFactory) -> Iterator[LiveServer]:
    own = copy_data(ingested, tmp_path_factory.mktemp("openai"))
    with LiveServer(create_app(own.settings(api_keys=[API_KEY]))) as server:
        yield server


@pytest.fixture
def client(live: LiveServer) -> openai.OpenAI:
    return openai.OpenAI(base_url=f"{live.url}/v1", api_key=API_KEY, max_retries=0, timeout=60)


def citations_of(extra: dict[str, Any] | None) -> list[dict[str, Any]]:
    assert extra is not None
    found = extra["citations"]
    assert isinstance(found, list)
    return found


def test_models_list_shows_lectern(client: openai.OpenAI) -> None:
    assert [m.id for m in client.models.list()] == ["lectern"]
    assert client.models.retrieve("lectern").owned_by == "lectern"


def test_answer_with_citations(client: openai.OpenAI) -> None:
    completion = client.chat.completions.create(
        model="lectern", messages=[{"role": "user", "content": ON_TOPIC}]
    )
    message = completion.choices[0].message
    assert message.content is not None
    assert "seven days" in message.content
    assert "[1]" in message.content
    assert completion.choices[0].finish_reason == "stop"
    citations = citations_of(message.model_extra)
    assert citations[0]["number"] == 1
    assert citations[0]["url"].startswith("https://heron.example.com/docs/guide/retention#")
    assert citations[0]["title"] == "Message retention"
    assert citations[0]["section"]
    assert 0.0 < citations[0]["score"] <= 1.0
    assert completion.usage is not None
    assert completion.usage.prompt_tokens > 0
    assert completion.usage.completion_tokens > 0
    assert (
        completion.usage.total_tokens == completion.usage.prompt_tokens + completion.usage.completion_tokens
    )
    assert (completion.model_extra or {})["lectern"]["should_answer"] is True


def test_streamed_answer_with_citations(client: openai.OpenAI) -> None:
    whole = client.chat.completions.create(model="lectern", messages=[{"role": "user", "content": ON_TOPIC}])
    stream = client.chat.completions.create(
        model="lectern",
        messages=[{"role": "user", "content": ON_TOPIC}],
        stream=True,
        stream_options={"include_usage": True},
    )
    chunks = list(stream)
    assert chunks[0].choices[0].delta.role == "assistant"
    text = "".join(c.choices[0].delta.content or "" for c in chunks if c.choices)
    assert text == whole.choices[0].message.content
    final = next(c for c in chunks if c.choices and c.choices[0].finish_reason == "stop")
    assert citations_of(final.choices[0].delta.model_extra) == citations_of(
        whole.choices[0].message.model_extra
    )
    usage = chunks[-1].usage
    assert chunks[-1].choices == []
    assert usage is not None
    assert whole.usage is not None
    assert usage.total_tokens == whole.usage.total_tokens


def test_history_and_refusal(client: openai.OpenAI) -> None:
    first = client.chat.completions.create(model="lectern", messages=[{"role": "user", "content": ON_TOPIC}])
    follow_up = client.chat.completions.create(
        model="lectern",
        messages=[
            {"role": "system", "content": "Be brief."},
            {"role": "user", "content": ON_TOPIC},
            {"role": "assistant", "content": first.choices[0].message.content or ""},
            {"role": "user", "content": FOLLOW_UP},
        ],
    )
    assert "Heron" in (follow_up.model_extra or {})["lectern"]["search_query"]
    refused = client.chat.completions.create(
        model="lectern", messages=[{"role": "user", "content": OFF_TOPIC}]
    )
    content = refused.choices[0].message.content or ""
    assert content.startswith("I don't have information about")
    assert content.endswith("in the documents.")
    assert citations_of(refused.choices[0].message.model_extra) == []


def test_bad_key_raises_authentication_error(live: LiveServer) -> None:
    bad = openai.OpenAI(base_url=f"{live.url}/v1", api_key="not-the-key", max_retries=0)
    with pytest.raises(openai.AuthenticationError) as raised:
        bad.chat.completions.create(model="lectern", messages=[{"role": "user", "content": ON_TOPIC}])
    assert raised.value.status_code == 401
    assert raised.value.code == "invalid_api_key"
    assert raised.value.type == "invalid_request_error"
    with pytest.raises(openai.AuthenticationError):
        bad.models.list()


def test_unknown_model_and_invalid_request(client: openai.OpenAI) -> None:
    with pytest.raises(openai.NotFoundError) as missing:
        client.chat.completions.create(model="gpt-4o", messages=[{"role": "user", "content": ON_TOPIC}])
    assert missing.value.code == "model_not_found"
    with pytest.raises(openai.BadRequestError) as invalid:
        client.chat.completions.create(model="lectern", messages=[{"role": "user", "content": "x" * 1001}])
    assert invalid.value.type == "invalid_request_error"
    assert invalid.value.param == "messages.0.content"
