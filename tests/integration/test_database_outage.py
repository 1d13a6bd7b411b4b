"""PostgreSQL stopped under load and started again, behind a real server: every request gets a 200 or a
503 with Retry-After in the contract's Error shape, every 200's question and answer are in the history
afterwards, the outage is logged a few times (not once per request) and the service recovers without a
restart."""

from __future__ import annotations

import asyncio
import logging
import time
import uuid
from pathlib import Path
from typing import Any

import httpx
import pytest

from lectern.api import create_app
from lectern.store import ConversationStore
from tests.api_support import LiveServer, make_engine, make_settings
from tests.contracts import chat_error
from tests.services import private_postgres

pytestmark = [pytest.mark.integration, pytest.mark.postgres]

WORKERS = 8
SESSIONS = 4
QUESTIONS = ["How do ROS 2 nodes communicate with topics?", "What are URDF joint types?"]


async def test_postgres_stopped_under_load(tmp_path: Path, caplog: pytest.LogCaptureFixture) -> None:
    caplog.set_level(logging.INFO)
    with private_postgres() as pg:
        settings = make_settings(tmp_path, database_url=pg.url)
        sessions = [str(uuid.uuid4()) for _ in range(SESSIONS)]
        results: list[tuple[str, str, httpx.Response]] = []
        phase = {"name": "before"}
        with LiveServer(create_app(settings, engine=make_engine(settings))) as live:
            async with httpx.AsyncClient(base_url=live.url, timeout=30) as client:
                stop_at = time.monotonic() + 1e9

                async def worker(n: int) -> None:
                    i = 0
                    while time.monotonic() < stop_at:
                        session = sessions[(n + i) % SESSIONS]
                        question = f"{QUESTIONS[i % 2]} (w{n} #{i} {phase['name']})"
                        i += 1
                        response = await client.post(
                            "/chat/run", json={"message": question, "session_id": session}
                        )
                        results.append((session, question, response))
                        if response.status_code == 503:
                            await asyncio.sleep(0.05)

                tasks = [asyncio.create_task(worker(n)) for n in range(WORKERS)]
                await asyncio.sleep(1.5)
                phase["name"] = "down"
                await asyncio.to_thread(pg.stop)
                await asyncio.sleep(2.5)
                await asyncio.to_thread(pg.start)
                phase["name"] = "after"
                stop_at = time.monotonic() + 3.0
                await asyncio.gather(*tasks)
                # Recovered without a restart: a fresh session works end to end.
                final = await client.post("/chat/run", json={"message": QUESTIONS[0]})
                assert final.status_code == 200, final.text

        statuses = [r.status_code for _, _, r in results]
        assert set(statuses) <= {200, 503}, sorted(set(statuses))
        assert statuses.count(503) >= 1, "the outage was not seen"
        assert any(r.status_code == 200 and q.endswith(" after)") for _, q, r in results)
        for _, _, r in results:
            if r.status_code == 503:
                assert r.headers.get("retry-after", "").isdigit(), r.headers
                body: dict[str, Any] = r.json()
                chat_error(body, "SERVICE_UNAVAILABLE")
                assert body["details"]["code"] == "database_unavailable", body

        store = ConversationStore.from_url(pg.url)
        try:
            for session in sessions:
                messages = await store.get_messages(uuid.UUID(session), include_archived=True)
                stored_questions = {m.content for m in messages if m.role == "user"}
                stored_answers = {m.content for m in messages if m.role == "assistant"}
                for s, q, r in results:
                    if s == session and r.status_code == 200:
                        assert q in stored_questions, q
                        assert r.json()["response"] in stored_answers
        finally:
            await store.close()

    outage_lines = [rec for rec in caplog.records if rec.getMessage().startswith("database unavailable")]
    assert 1 <= len(outage_lines) <= 3, len(outage_lines)
    assert statuses.count(503) > len(outage_lines)
    assert not [rec for rec in caplog.records if rec.getMessage() == "unhandled error"]
    assert any(rec.getMessage() == "database reachable again" for rec in caplog.records)
