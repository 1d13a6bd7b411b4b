"""The OpenAI-compatible face through an in-process ASGI client, with the real engine over a small corpus:
the completion and chunk shapes, citations, usage, the conversation built from ``messages``, and every
error in OpenAI's shape (including the guard's). The official SDK runs against a live server in
tests/integration/test_openai_sdk.py."""

from __future__ import annotations

import json
import re
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import pytest

from lectern.api import create_app
from lectern.api.openai_compat import OPERATOR_HEADER
from lectern.engine import SYSTEM_PROMPT, Engine
from lectern.errors import VectorIndexError
from lectern.events import Token
from lectern.models import CollectionInfo
from lectern.retrieval import Retriever
from lectern.writers.base import WriteRequest, WriterEvent
from lectern.writers.extractive import ExtractiveWriter
from tests.api_support import (
    OFF_TOPIC,
    ON_TOPIC,
    app_client,
    clear_of_window_edge,
    client_for,
    make_engine,
    make_settings,
)
from tests.fakes.hash_embedder import HashEmbedder
from tests.unit.answer_support import ScriptedIndex, hit

KEY = "sk-openai-compat-test-0123"
AUTH = {"Authorization": f"Bearer {KEY}"}
CITATION_FIELDS = {
    "number",
    "title",
    "section",
    "chapter",
    "url",
    "score",
    "heading_path",
    "source_path",
    "snippet",
}


def ask(question: str = ON_TOPIC, **extra: Any) -> dict[str, Any]:
    return {"model": "lectern", "messages": [{"role": "user", "content": question}], **extra}


def check_openai_error(
    body: dict[str, Any], type_: str, code: str | None = None, param: str | None = None
) -> None:
    assert set(body) == {"error"}, body
    error = body["error"]
    assert set(error) == {"message", "type", "param", "code"}, error
    assert isinstance(error["message"], str)
    assert error["message"]
    assert error["type"] == type_, error
    assert error["code"] == code, error
    if param is not None:
        assert error["param"] == param, error


def sse_chunks(text: str) -> list[dict[str, Any] | str]:
    out: list[dict[str, Any] | str] = []
    for block in text.split("\n\n"):
        block = block.strip()
        if not block:
            continue
        assert block.startswith("data: "), block
        data = block[len("data: ") :]
        out.append(data if data == "[DONE]" else json.loads(data))
    return out


class CapturingWriter:
    """The extractive writer, remembering what the engine asked it to write."""

    def __init__(self) -> None:
        self.inner = ExtractiveWriter(HashEmbedder())  # type: ignore[arg-type]
        self.requests: list[WriteRequest] = []

    @property
    def name(self) -> str:
        return self.inner.name

    @property
    def retrieves_itself(self) -> bool:
        return False

    async def write(self, request: WriteRequest) -> AsyncIterator[WriterEvent]:
        self.requests.append(request)
        async for event in self.inner.write(request):
            yield event


async def test_models_list_the_configured_name(tmp_path: Path) -> None:
    async with client_for(make_settings(tmp_path, model_name="docs-bot")) as client:
        listed = await client.get("/v1/models")
        one = await client.get("/v1/models/docs-bot")
        other = await client.get("/v1/models/gpt-4o")
    assert listed.status_code == 200
    body = listed.json()
    assert body["object"] == "list"
    assert [m["id"] for m in body["data"]] == ["docs-bot"]
    assert body["data"][0]["object"] == "model"
    assert isinstance(body["data"][0]["created"], int)
    assert one.json()["id"] == "docs-bot"
    assert other.status_code == 404
    check_openai_error(other.json(), "invalid_request_error", "model_not_found", "model")


async def test_completion_keeps_markers_and_carries_citations(tmp_path: Path) -> None:
    async with client_for(make_settings(tmp_path)) as client:
        response = await client.post("/v1/chat/completions", json=ask())
    assert response.status_code == 200
    body = response.json()
    assert body["object"] == "chat.completion"
    assert body["id"].startswith("chatcmpl-")
    assert body["model"] == "lectern"
    assert isinstance(body["created"], int)
    (choice,) = body["choices"]
    assert choice["index"] == 0
    assert choice["finish_reason"] == "stop"
    message = choice["message"]
    assert message["role"] == "assistant"
    assert "[1]" in message["content"]
    citations = message["citations"]
    assert citations
    for n, c in enumerate(citations, start=1):
        assert set(c) == CITATION_FIELDS
        assert c["number"] == n or c["number"] >= 1
        assert c["url"].startswith("https://docs.example.com/book/")
        assert c["title"]
        assert c["section"]
        assert 0.0 <= c["score"] <= 1.0
        assert len(c["snippet"]) <= 500
    # Every [n] in the text names a listed source.
    numbers = {c["number"] for c in citations}
    assert all(f"[{n}]" in message["content"] for n in numbers)
    usage = body["usage"]
    assert usage["prompt_tokens"] > 0
    assert usage["completion_tokens"] > 0
    assert usage["total_tokens"] == usage["prompt_tokens"] + usage["completion_tokens"]
    assert body["lectern"]["should_answer"] is True
    assert body["lectern"]["confidence_level"] in {"high", "medium", "low"}


async def test_stream_role_first_then_deltas_then_citations_and_done(tmp_path: Path) -> None:
    async with client_for(make_settings(tmp_path)) as client:
        whole = (await client.post("/v1/chat/completions", json=ask())).json()
        response = await client.post(
            "/v1/chat/completions", json=ask(stream=True, stream_options={"include_usage": True})
        )
    assert response.status_code == 200
    assert response.headers["content-type"].startswith("text/event-stream")
    chunks = sse_chunks(response.text)
    assert chunks[-1] == "[DONE]"
    events = [c for c in chunks if isinstance(c, dict)]
    assert all(e["object"] == "chat.completion.chunk" for e in events)
    assert len({e["id"] for e in events}) == 1
    assert events[0]["choices"][0]["delta"]["role"] == "assistant"
    final, usage_chunk = events[-2], events[-1]
    assert final["choices"][0]["finish_reason"] == "stop"
    assert final["choices"][0]["delta"]["citations"] == whole["choices"][0]["message"]["citations"]
    assert all(e["choices"][0]["finish_reason"] is None for e in events[:-2])
    content = "".join(e["choices"][0]["delta"].get("content") or "" for e in events[:-1])
    assert content == whole["choices"][0]["message"]["content"]
    assert usage_chunk["choices"] == []
    assert usage_chunk["usage"] == whole["usage"]
    assert all(e["usage"] is None for e in events[:-1])


async def test_stream_without_usage_has_no_usage_chunk(tmp_path: Path) -> None:
    async with client_for(make_settings(tmp_path)) as client:
        response = await client.post("/v1/chat/completions", json=ask(stream=True))
    events = [c for c in sse_chunks(response.text) if isinstance(c, dict)]
    assert events[-1]["choices"][0]["finish_reason"] == "stop"
    assert all("usage" not in e for e in events)


async def test_refusal_is_a_normal_completion_without_citations(tmp_path: Path) -> None:
    async with client_for(make_settings(tmp_path)) as client:
        response = await client.post("/v1/chat/completions", json=ask(OFF_TOPIC))
    assert response.status_code == 200
    body = response.json()
    message = body["choices"][0]["message"]
    assert message["content"].startswith("I don't have information about")
    assert message["content"].endswith("in the documents.")
    assert message["citations"] == []
    assert body["choices"][0]["finish_reason"] == "stop"
    assert body["lectern"]["should_answer"] is False


async def test_earlier_messages_are_the_history(tmp_path: Path) -> None:
    writer = CapturingWriter()
    settings = make_settings(tmp_path)
    first = (await _complete(settings, writer, ask())).json()["choices"][0]["message"]["content"]
    follow_up = {
        "model": "lectern",
        "messages": [
            {"role": "system", "content": "Answer in a friendly tone."},
            {"role": "user", "content": ON_TOPIC},
            {"role": "assistant", "content": first},
            {"role": "tool", "content": "ignored", "tool_call_id": "x"},
            {"role": "user", "content": [{"type": "text", "text": "How do I create them in Python?"}]},
        ],
    }
    response = await _complete(settings, writer, follow_up)
    assert response.status_code == 200
    request = writer.requests[-1]
    assert [(m.role, m.content) for m in request.history] == [("user", ON_TOPIC), ("assistant", first)]
    assert request.question == "How do I create them in Python?"
    # Follow-ups are made standalone with the history, as in every face.
    assert request.search_query != request.question
    # The client's system message is appended to Lectern's rules, never replacing them.
    assert request.system_prompt.startswith(SYSTEM_PROMPT)
    assert request.system_prompt.endswith(f"{OPERATOR_HEADER}\nAnswer in a friendly tone.")
    # Nothing is stored: the same follow-up without history is a fresh conversation.
    assert response.json()["lectern"]["search_query"] == request.search_query


async def test_usage_counts_the_history(tmp_path: Path) -> None:
    settings = make_settings(tmp_path)
    async with client_for(settings) as client:
        short = (await client.post("/v1/chat/completions", json=ask())).json()["usage"]
        long_history = {
            "model": "lectern",
            "messages": [
                {"role": "user", "content": "Tell me about URDF joint types and links in robots."},
                {"role": "assistant", "content": "URDF describes links and joints of a robot [1]."},
                {"role": "user", "content": ON_TOPIC},
            ],
        }
        longer = (await client.post("/v1/chat/completions", json=long_history)).json()["usage"]
    assert longer["prompt_tokens"] > short["prompt_tokens"]


async def _complete(settings: Any, writer: CapturingWriter, body: dict[str, Any]) -> Any:
    async with app_client(create_app(settings, engine=make_engine(settings, writer))) as client:  # type: ignore[arg-type]
        return await client.post("/v1/chat/completions", json=body)


@pytest.mark.parametrize(
    ("body", "param"),
    [
        ({"model": "lectern", "messages": []}, "messages"),
        ({"messages": [{"role": "user", "content": "hi"}]}, "model"),
        (ask(""), "messages.0.content"),
        (ask("   "), "messages.0.content"),
        (ask("x" * 1001), "messages.0.content"),
        ({"model": "lectern", "messages": [{"role": "assistant", "content": "hi"}]}, "messages.0.role"),
        ({"model": "lectern", "messages": [{"role": "robot", "content": "hi"}]}, "messages.0.role"),
        (ask(n=2), "n"),
        (ask(top_k=11), "top_k"),
        (ask(similarity_threshold=1.5), "similarity_threshold"),
        (
            {
                "model": "lectern",
                "messages": [{"role": "user", "content": [{"type": "image_url", "image_url": {"url": "x"}}]}],
            },
            "messages.0.content",
        ),
        (
            {
                "model": "lectern",
                "messages": [{"role": "system", "content": "s" * 10_001}, {"role": "user", "content": "hi"}],
            },
            "messages",
        ),
    ],
)
async def test_invalid_requests_are_400_in_openai_shape(
    tmp_path: Path, body: dict[str, Any], param: str
) -> None:
    async with client_for(make_settings(tmp_path)) as client:
        response = await client.post("/v1/chat/completions", json=body)
    assert response.status_code == 400, response.text
    check_openai_error(response.json(), "invalid_request_error", None, param)


async def test_sampling_parameters_are_accepted_and_ignored(tmp_path: Path) -> None:
    body = ask(temperature=0.3, top_p=0.9, max_tokens=50, stop=["\n"], user="u1", seed=7, presence_penalty=0)
    async with client_for(make_settings(tmp_path)) as client:
        response = await client.post("/v1/chat/completions", json=body)
    assert response.status_code == 200


async def test_unknown_model_is_404(tmp_path: Path) -> None:
    async with client_for(make_settings(tmp_path)) as client:
        response = await client.post("/v1/chat/completions", json={**ask(), "model": "gpt-4o"})
    assert response.status_code == 404
    check_openai_error(response.json(), "invalid_request_error", "model_not_found", "model")


async def test_keys_use_bearer_and_fail_in_openai_shape(tmp_path: Path) -> None:
    async with client_for(make_settings(tmp_path, api_keys=[KEY])) as client:
        missing = await client.post("/v1/chat/completions", json=ask())
        wrong = await client.get("/v1/models", headers={"Authorization": "Bearer nope"})
        good = await client.post("/v1/chat/completions", json=ask(), headers=AUTH)
        listed = await client.get("/v1/models", headers={"X-API-Key": KEY})
        other_face = await client.post("/chat/run", json={"message": ON_TOPIC})
    for denied in (missing, wrong):
        assert denied.status_code == 401
        check_openai_error(denied.json(), "invalid_request_error", "invalid_api_key")
        assert denied.headers["www-authenticate"] == "Bearer"
        assert denied.headers["content-length"] == str(len(denied.content))
    assert good.status_code == 200
    assert listed.status_code == 200
    # Other faces keep their own error shape.
    assert other_face.status_code == 401
    assert other_face.json()["error"] == "AUTHENTICATION_ERROR"  # the chat API's Error body
    assert "type" not in other_face.json()


async def test_rate_limit_is_429_in_openai_shape(tmp_path: Path) -> None:
    await clear_of_window_edge()
    async with client_for(make_settings(tmp_path, rate_limit="1/minute")) as client:
        first = await client.get("/v1/models")
        second = await client.get("/v1/models")
    assert first.status_code == 200
    assert second.status_code == 429
    check_openai_error(second.json(), "requests", "rate_limit_exceeded")
    assert int(second.headers["retry-after"]) >= 1


async def test_body_limit_is_413_in_openai_shape(tmp_path: Path) -> None:
    async with client_for(make_settings(tmp_path, max_body_bytes=2048)) as client:
        response = await client.post("/v1/chat/completions", json=ask("x" * 900, padding="y" * 4000))
    assert response.status_code == 413
    check_openai_error(response.json(), "invalid_request_error", "payload_too_large")


async def test_index_failure_is_503_before_the_stream_starts(tmp_path: Path) -> None:
    settings = make_settings(tmp_path)
    engine = make_engine(settings)

    def broken(**_: Any) -> Any:
        raise VectorIndexError("Unable to retrieve content")

    engine.retriever.index.search = broken  # type: ignore[method-assign]
    async with app_client(create_app(settings, engine=engine)) as client:
        plain = await client.post("/v1/chat/completions", json=ask())
        streamed = await client.post("/v1/chat/completions", json=ask(stream=True))
    for response in (plain, streamed):
        assert response.status_code == 503
        assert response.headers["content-type"] == "application/json"
        check_openai_error(response.json(), "server_error", "service_unavailable")


class FailingMidway:
    """Writes a few words, then fails: the failure arrives after the 200 and the first chunks."""

    name = "failing"
    retrieves_itself = False

    async def write(self, request: WriteRequest) -> AsyncIterator[WriterEvent]:
        yield Token("Partial ")
        raise VectorIndexError("Unable to retrieve content")


async def test_failure_mid_stream_is_an_error_event(tmp_path: Path) -> None:
    settings = make_settings(tmp_path)
    engine = make_engine(settings, FailingMidway())  # type: ignore[arg-type]
    async with app_client(create_app(settings, engine=engine)) as client:
        response = await client.post("/v1/chat/completions", json=ask(stream=True))
    assert response.status_code == 200
    chunks = sse_chunks(response.text)
    assert "[DONE]" not in chunks
    last = chunks[-1]
    assert isinstance(last, dict)
    check_openai_error(last, "server_error", "service_unavailable")


async def test_a_quoted_reserve_passage_is_listed_under_its_marker_whole_and_streamed(tmp_path: Path) -> None:
    """The writer may quote a passage ranked just below the top_k (the retrieval's reserve): the answer
    lists it among its citations under the number its marker carries, in the completion and the stream."""
    first = "Gazebo simulates physics for robots. Physics engines compute the contacts and forces in Gazebo."
    second = "A robot model needs realistic inertia values before Gazebo can simulate it well."
    listed = "Gazebo can use the DART physics engine, which models contacts of humanoids accurately."
    settings = make_settings(tmp_path, top_k=2)
    embedder = HashEmbedder()
    info = CollectionInfo(name=settings.collection, embedder_name=embedder.name, dimension=embedder.dimension)
    hits = [
        hit(first, 0.8, score=0.9, path="physics.md"),
        hit(second, 0.7, score=0.8, path="inertia.md"),
        hit(listed, 0.6, score=0.7, path="engines.md"),
    ]
    index = ScriptedIndex(hits, info=info)
    engine = Engine(Retriever(embedder, index, settings), ExtractiveWriter(embedder), settings)
    question = ask("Which physics engines can Gazebo use?")
    async with app_client(create_app(settings, engine=engine), **AUTH) as client:
        whole = (await client.post("/v1/chat/completions", json=question)).json()
        streamed = await client.post("/v1/chat/completions", json={**question, "stream": True})
    message = whole["choices"][0]["message"]
    numbers = {int(n) for n in re.findall(r"\[(\d+)\]", message["content"])}
    by_number = {c["number"]: c["source_path"] for c in message["citations"]}
    assert numbers == set(by_number)
    marker = re.search(r"DART physics engine[^\[]*\[(\d+)\]", message["content"])
    assert marker is not None
    assert by_number[int(marker.group(1))] == "engines.md"
    events = [c for c in sse_chunks(streamed.text) if isinstance(c, dict)]
    content = "".join(e["choices"][0]["delta"].get("content") or "" for e in events)
    assert content == message["content"]
    assert events[-1]["choices"][0]["delta"]["citations"] == message["citations"]
