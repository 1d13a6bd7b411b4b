"""Seed 000 routes through an in-process ASGI client, with the real engine over a small corpus:
the contract's examples replayed, its validation rules, SSE, history, delete and the error shape."""

from __future__ import annotations

import sys
import uuid
from pathlib import Path
from typing import Any

import pytest

from lectern.api.chat_models import Source
from lectern.models import Citation
from tests.api_support import (
    ISO_Z,
    OFF_TOPIC,
    ON_TOPIC,
    UUID_RE,
    app_client,
    client_for,
    make_engine,
    make_settings,
    parse_sse,
)
from tests.contracts import chat_error, check
from tests.fakes.slow_writer import FailingWriter

SOURCE_FIELDS = {"number", "chunk_text", "similarity_score", "chapter", "section", "url", "chunk_index"}
RESPONSE_FIELDS = {
    "response",
    "confidence",
    "sources",
    "session_id",
    "timestamp",
    "confidence_level",
    "should_answer",
}
# Additions beyond the contract: further reading on a refusal, why, and the answer's seq for feedback.
EXTRA_FIELDS = {"related", "refusal_reason", "message_seq", "timings", "warnings"}


def check_chat_response(body: dict[str, Any]) -> None:
    """The contract's ChatResponse: required fields, types and ranges."""
    check("chat", "ChatResponse", body)
    # Additions to the contract's fields: on a refusal, why and what to read instead; the stored
    # answer's position for feedback.
    assert RESPONSE_FIELDS <= set(body) <= RESPONSE_FIELDS | EXTRA_FIELDS, body
    for related in body.get("related", []):
        assert set(related) == SOURCE_FIELDS
    assert isinstance(body["response"], str)
    assert body["response"]
    assert 0.0 <= body["confidence"] <= 1.0
    assert UUID_RE.match(body["session_id"])
    assert ISO_Z.match(body["timestamp"]), body["timestamp"]
    assert body["confidence_level"] in {"high", "medium", "low", "insufficient"}
    assert isinstance(body["should_answer"], bool)
    assert body["should_answer"] == (body["confidence_level"] != "insufficient")
    for source in body["sources"]:
        assert set(source) == SOURCE_FIELDS
        assert len(source["chunk_text"]) <= 500
        assert 0.0 <= source["similarity_score"] <= 1.0
        assert isinstance(source["chunk_index"], int)


def check_error(body: dict[str, Any], code: str | None = None) -> None:
    """The rag-agent-api `Error` body, validated against the contract's schema."""
    chat_error(body, code)


@pytest.fixture
def settings(tmp_path: Path) -> Any:
    return make_settings(tmp_path)


async def test_basic_question_example_replays(settings: Any) -> None:
    # The contract's basicQuestion example, as sent.
    async with client_for(settings) as client:
        response = await client.post(
            "/chat/run",
            json={
                "message": "What is a ROS 2 node?",
                "stream": False,
                "top_k": 5,
                "similarity_threshold": 0.7,
            },
        )
    assert response.status_code == 200
    assert response.headers["content-type"].startswith("application/json")
    check_chat_response(response.json())


async def test_answer_has_sources_and_a_new_session(settings: Any) -> None:
    async with client_for(settings) as client:
        body = (await client.post("/chat/run", json={"message": ON_TOPIC})).json()
    check_chat_response(body)
    assert body["should_answer"] is True
    assert body["sources"], "an answer cites its sources"
    assert uuid.UUID(body["session_id"]).version == 4


async def test_refusal_matches_the_insufficient_context_example(settings: Any) -> None:
    async with client_for(settings) as client:
        body = (await client.post("/chat/run", json={"message": OFF_TOPIC})).json()
    check_chat_response(body)
    assert body["should_answer"] is False
    assert body["confidence_level"] == "insufficient"
    assert body["sources"] == []


async def test_follow_up_example_uses_the_given_session(settings: Any) -> None:
    session = "550e8400-e29b-41d4-a716-446655440000"  # the contract's followUpQuestion session
    async with client_for(settings) as client:
        first = await client.post(
            "/chat/run", json={"message": "What is a ROS 2 node?", "session_id": session}
        )
        second = await client.post(
            "/chat/run",
            json={"message": "How do I create one?", "session_id": session, "stream": False, "top_k": 5},
        )
        history = (await client.get(f"/session/{session}/history")).json()
    assert first.status_code == second.status_code == 200
    assert second.json()["session_id"] == session
    assert [m["role"] for m in history["messages"]] == ["user", "assistant", "user", "assistant"]
    assert history["messages"][2]["content"] == "How do I create one?"


@pytest.mark.parametrize(
    ("patch", "fragment"),
    [
        ({"message": ""}, "between 1 and 1000"),
        ({"message": "   \n\t"}, "blank"),
        ({"message": "x" * 1001}, "between 1 and 1000"),
        ({"message": 42}, "string"),
        ({"session_id": "invalid-uuid"}, "UUID v4"),
        ({"session_id": "a8098c1a-f86e-11da-bd1a-00112444be1e"}, "UUID v4"),  # a v1 UUID
        ({"top_k": 0}, "top_k"),
        ({"top_k": 11}, "top_k"),
        ({"top_k": "five"}, "top_k"),
        ({"top_k": 2.5}, "top_k"),
        ({"similarity_threshold": -0.1}, "similarity_threshold"),
        ({"similarity_threshold": 1.01}, "similarity_threshold"),
        ({"similarity_threshold": True}, "similarity_threshold"),
    ],
)
async def test_invalid_requests_are_400_with_the_error_shape(
    settings: Any, patch: dict[str, Any], fragment: str
) -> None:
    async with client_for(settings) as client:
        for path in ("/chat/run", "/chat/stream"):
            response = await client.post(path, json={"message": "What is URDF?", **patch})
            assert response.status_code == 400, (path, response.text)
            check_error(response.json(), "VALIDATION_ERROR")
            assert fragment in response.json()["message"]


async def test_limits_of_the_valid_ranges_are_accepted(settings: Any) -> None:
    async with client_for(settings) as client:
        for body in (
            {"message": "x" * 1000},
            {"message": "What is URDF?", "top_k": 1, "similarity_threshold": 0.0},
            {"message": "What is URDF?", "top_k": 10, "similarity_threshold": 1.0},
        ):
            response = await client.post("/chat/run", json=body)
            assert response.status_code == 200, response.text


@pytest.mark.parametrize(
    ("content", "fragment"),
    [
        (b"{not json", "not valid JSON"),
        (b"", "required"),
        (b"[1, 2]", "object"),
        (b"{}", "message is required"),
    ],
)
async def test_malformed_bodies_are_400(settings: Any, content: bytes, fragment: str) -> None:
    async with client_for(settings) as client:
        response = await client.post(
            "/chat/run", content=content, headers={"content-type": "application/json"}
        )
    assert response.status_code == 400
    check_error(response.json(), "VALIDATION_ERROR")
    assert fragment in response.json()["message"]


async def test_stream_sends_tokens_then_one_done_with_the_response(settings: Any) -> None:
    async with client_for(settings) as client:
        response = await client.post("/chat/stream", json={"message": ON_TOPIC, "stream": True, "top_k": 5})
        assert response.status_code == 200
        assert response.headers["content-type"].startswith("text/event-stream")
        events = parse_sse(response.text)
        names = [name for name, _ in events]
        assert names[-1] == "done"
        assert names.count("done") == 1
        assert set(names[:-1]) == {"token"}
        tokens = [data for name, data in events if name == "token"]
        assert all(set(t) == {"type", "content"} and t["type"] == "token" for t in tokens)
        done = events[-1][1]
        assert done["type"] == "done"
        check_chat_response(done["metadata"])
        assert "".join(t["content"] for t in tokens) == done["metadata"]["response"]
        session = done["metadata"]["session_id"]
        history = (await client.get(f"/session/{session}/history")).json()
    # The answer is stored before `done` is sent.
    assert [m["role"] for m in history["messages"]] == ["user", "assistant"]
    assert history["messages"][1]["content"] == done["metadata"]["response"]


async def test_streaming_question_example_replays(settings: Any) -> None:
    # The contract's streamingQuestion example, as sent (its session id is new here, so it is created).
    body = {
        "message": "Explain URDF in simple terms",
        "session_id": "550e8400-e29b-41d4-a716-446655440002",
        "stream": True,
        "top_k": 5,
    }
    async with client_for(settings) as client:
        response = await client.post("/chat/stream", json=body)
    events = parse_sse(response.text)
    assert response.status_code == 200
    assert events[-1][0] == "done"
    assert events[-1][1]["metadata"]["session_id"] == body["session_id"]


async def test_provider_failure_keeps_the_question(tmp_path: Path) -> None:
    settings = make_settings(tmp_path)
    async with client_for(settings, writer=FailingWriter()) as client:
        session = str(uuid.uuid4())
        run = await client.post("/chat/run", json={"message": ON_TOPIC, "session_id": session})
        stream = await client.post("/chat/stream", json={"message": "What is URDF?", "session_id": session})
        history = (await client.get(f"/session/{session}/history")).json()
    assert run.status_code == 503
    check_error(run.json(), "SERVICE_UNAVAILABLE")
    assert run.json()["details"]["code"] == "API_ERROR"
    events = parse_sse(stream.text)
    assert events[-1][0] == "error"
    assert events[-1][1]["type"] == "error"
    check_error({k: v for k, v in events[-1][1].items() if k != "type"}, "SERVICE_UNAVAILABLE")
    assert events[-1][1]["details"]["code"] == "API_ERROR"
    # Both questions were stored before the provider failed; no answer was.
    assert [(m["role"], m["content"]) for m in history["messages"]] == [
        ("user", ON_TOPIC),
        ("user", "What is URDF?"),
    ]


async def test_history_shape(settings: Any) -> None:
    async with client_for(settings) as client:
        session = (await client.post("/chat/run", json={"message": ON_TOPIC})).json()["session_id"]
        response = await client.get(f"/session/{session}/history")
    assert response.status_code == 200
    thread = response.json()
    assert set(thread) >= {"thread_id", "messages", "created_at", "updated_at"}
    assert thread["thread_id"] == session
    assert ISO_Z.match(thread["created_at"])
    assert ISO_Z.match(thread["updated_at"])
    user, assistant = thread["messages"]
    # confidence is for assistant messages only; seq and turn_id are Lectern's (a question and its
    # answer share the turn id)
    assert set(user) == {"role", "content", "timestamp", "seq", "turn_id"}
    assert set(assistant) == {"role", "content", "timestamp", "confidence", "seq", "turn_id"}
    assert user["turn_id"] == assistant["turn_id"]
    assert (user["seq"], assistant["seq"]) == (0, 1)
    assert 0.0 <= assistant["confidence"] <= 1.0


async def test_history_and_delete_errors(settings: Any) -> None:
    async with client_for(settings) as client:
        unknown = str(uuid.uuid4())
        missing = await client.get(f"/session/{unknown}/history")
        malformed = await client.get("/session/not-a-uuid/history")
        delete_missing = await client.delete(f"/session/{unknown}")
    assert missing.status_code == 404
    check_error(missing.json(), "NOT_FOUND")
    assert malformed.status_code == 400
    check_error(malformed.json(), "VALIDATION_ERROR")
    check_error(delete_missing.json(), "NOT_FOUND")
    assert delete_missing.status_code == 404


async def test_delete_removes_the_session(settings: Any) -> None:
    async with client_for(settings) as client:
        session = (await client.post("/chat/run", json={"message": ON_TOPIC})).json()["session_id"]
        deleted = await client.delete(f"/session/{session}")
        after = await client.get(f"/session/{session}/history")
    assert deleted.status_code == 204
    assert deleted.content == b""
    assert after.status_code == 404


async def test_topic_summary_after_five_exchanges_and_a_fifty_message_window(settings: Any) -> None:
    async with client_for(settings) as client:
        session = str(uuid.uuid4())
        for i in range(26):
            question = "What are URDF joint types?" if i % 2 else f"How do ROS 2 nodes use topics ({i})?"
            response = await client.post("/chat/run", json={"message": question, "session_id": session})
            assert response.status_code == 200
            if i == 4:
                summary = (await client.get(f"/session/{session}/history")).json().get("topic_summary")
                assert summary, "a topic summary is written once a thread has five exchanges"
        thread = (await client.get(f"/session/{session}/history")).json()
    assert len(thread["messages"]) == 50  # 52 stored; the active window is the last 50
    assert thread["messages"][-2]["content"] == "What are URDF joint types?"
    assert len(thread["topic_summary"]) <= 200


async def test_an_archived_session_resumes_on_the_next_question(settings: Any) -> None:
    from datetime import UTC, datetime, timedelta

    app_settings = settings
    from lectern.api import create_app

    app = create_app(app_settings, engine=make_engine(app_settings))
    async with app_client(app) as client:
        session = (await client.post("/chat/run", json={"message": ON_TOPIC})).json()["session_id"]
        store = app.state.services.store
        later = datetime.now(UTC) + timedelta(seconds=app_settings.session_idle_archive_s + 60)
        assert await store.archive_idle(later) >= 1
        assert (await store.get_thread(uuid.UUID(session))).archived
        response = await client.post("/chat/run", json={"message": "What is URDF?", "session_id": session})
        thread = await store.get_thread(uuid.UUID(session))
    assert response.status_code == 200
    assert not thread.archived
    assert len(thread.messages) == 4


def test_source_text_is_cut_to_500_characters() -> None:
    citation = Citation(number=1, chunk_id="x", chunk_text="word " * 300, similarity_score=0.9)
    assert len(Source.of(citation).chunk_text) == 500


async def test_openapi_and_docs(settings: Any) -> None:
    async with client_for(settings) as client:
        spec = (await client.get("/openapi.json")).json()
        docs = await client.get("/docs")
    for path in (
        "/chat/run",
        "/chat/stream",
        "/session/{session_id}/history",
        "/session/{session_id}",
        "/api/generation/session",
        "/api/generation/stream",
        "/api/generation/cancel",
        "/health",
        "/ready",
    ):
        assert path in spec["paths"], path
    assert docs.status_code == 200
    assert "swagger" in docs.text.lower()


async def test_run_closes_the_turns_event_stream_itself(settings: Any) -> None:
    # An async generator left open at Done is closed later through the event loop's finaliser hook
    # (a self-pipe write, a wake-up and a task per answer); /chat/run closes the turn's stream itself.
    finalised: list[str] = []
    hooks = sys.get_asyncgen_hooks()

    def counting(agen: Any) -> None:
        finalised.append(agen.__qualname__)
        if hooks.finalizer is not None:
            hooks.finalizer(agen)

    sys.set_asyncgen_hooks(firstiter=hooks.firstiter, finalizer=counting)
    try:
        async with client_for(settings) as client:
            for _ in range(2):
                response = await client.post("/chat/run", json={"message": ON_TOPIC})
                assert response.status_code == 200
    finally:
        sys.set_asyncgen_hooks(firstiter=hooks.firstiter, finalizer=hooks.finalizer)
    assert "Turns.events" not in finalised
