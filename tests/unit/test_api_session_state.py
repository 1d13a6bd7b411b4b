"""Seed entities through the API: session status and counters (generation API and history view), stage
timings on every face that answers, the per-session retrieval cache across requests, and warnings (a
TOKEN_LIMIT trim) reported on every face."""

from __future__ import annotations

import json
import uuid
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

from lectern.writers.base import WriteRequest, WriterEvent, Written
from lectern.writers.extractive import ExtractiveWriter
from tests.api_support import ON_TOPIC, client_for, make_settings, ndjson, parse_sse
from tests.contracts import generation_error
from tests.fakes.hash_embedder import HashEmbedder

KEY_A = "sk-state-key-a-0123456789"
KEY_B = "sk-state-key-b-0123456789"
TRIM = "TOKEN_LIMIT: the conversation is longer than the model's context window; 2 messages were left out."


class TrimmingWriter(ExtractiveWriter):
    """The extractive writer, reporting the history trim an LLM writer reports when a long session no
    longer fits the model's window."""

    async def write(self, request: WriteRequest) -> AsyncIterator[WriterEvent]:  # type: ignore[override]
        async for event in super().write(request):
            if isinstance(event, Written) and request.history:
                event = Written(event.text, event.cited, event.usage, event.model, [*event.warnings, TRIM])
            yield event


async def test_session_status_and_counters(tmp_path: Path) -> None:
    settings = make_settings(tmp_path, api_keys=[KEY_A, KEY_B])
    a, b = {"X-API-Key": KEY_A}, {"X-API-Key": KEY_B}
    async with client_for(settings) as client:
        session = (
            await client.post("/api/generation/session", json={"owner": "docs-team"}, headers=a)
        ).json()["sessionId"]
        fresh = (await client.get(f"/api/generation/session/{session}", headers=a)).json()
        for _ in range(2):
            r = await client.post("/chat/run", json={"message": ON_TOPIC, "session_id": session}, headers=a)
            assert r.status_code == 200
        state = await client.get(f"/api/generation/session/{session}", headers=a)
        history = (await client.get(f"/session/{session}/history", headers=a)).json()
        foreign = await client.get(f"/api/generation/session/{session}", headers=b)
        malformed = await client.get("/api/generation/session/not-a-uuid", headers=a)
    assert fresh["status"] == "Active"
    assert fresh["turnCount"] == 0
    assert fresh["owner"] == "docs-team"
    body = state.json()
    assert state.status_code == 200
    assert body["sessionId"] == session
    assert (body["turnCount"], body["messageCount"]) == (2, 4)
    assert body["retrievalCount"] >= 2
    assert body["status"] == "Active"
    assert (history["turn_count"], history["retrieval_count"]) == (2, body["retrievalCount"])
    assert history["archived"] is False
    assert foreign.status_code == 404
    generation_error(foreign.json(), "session_not_found")
    assert malformed.status_code == 400


async def test_timings_cache_and_warnings_on_every_face(tmp_path: Path) -> None:
    settings = make_settings(tmp_path)
    writer = TrimmingWriter(HashEmbedder())  # type: ignore[arg-type]
    async with client_for(settings, writer=writer) as client:
        first = await client.post("/chat/run", json={"message": ON_TOPIC})
        session = first.json()["session_id"]
        # The same question again in the session: its retrieval comes from the session's cache.
        again = await client.post("/chat/run", json={"message": ON_TOPIC, "session_id": session})
        stream = await client.post("/chat/stream", json={"message": ON_TOPIC, "session_id": session})
        gen = await client.post("/api/generation/stream", json={"sessionId": session, "prompt": ON_TOPIC})
        v1 = await client.post(
            "/v1/chat/completions",
            json={
                "model": "lectern",
                "messages": [
                    {"role": "user", "content": "What is a ROS 2 node?"},
                    {"role": "assistant", "content": "A process in the robot graph."},
                    {"role": "user", "content": ON_TOPIC},
                ],
            },
        )
    assert "total;dur=" in first.headers["server-timing"]
    assert first.json()["timings"]["total_ms"] > 0
    assert "warnings" not in first.json()  # a first turn has no history to trim
    assert again.json()["timings"]["retrieval_cached"] is True
    assert 'cache;desc="retrieval from the session cache"' in again.headers["server-timing"]
    assert again.json()["warnings"] == [TRIM]
    done = parse_sse(stream.text)[-1][1]
    assert done["type"] == "done"
    assert done["metadata"]["warnings"] == [TRIM]
    assert done["metadata"]["timings"]["total_ms"] > 0
    final = ndjson(gen.text)[-1]
    assert final["type"] == "done"
    assert final["metadata"]["warnings"] == [TRIM]
    assert final["metadata"]["timings"]["total_ms"] > 0
    assert v1.status_code == 200, v1.text
    assert "total;dur=" in v1.headers["server-timing"]
    lectern: dict[str, Any] = v1.json()["lectern"]
    assert lectern["warnings"] == [TRIM]
    assert lectern["timings"]["total_ms"] > 0
    json.dumps(lectern)
    assert uuid.UUID(session).version == 4
