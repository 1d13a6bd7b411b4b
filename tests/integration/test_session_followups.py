"""A follow-up on a stored session is answered as the same conversation in process (MiniLM, LanceDB,
extractive, the project's docs/), through a real server on SQLite and PostgreSQL.

The store-backed faces (chat API, generation API) rebuild the conversation from the store's window each
turn. A follow-up's search favours the files the previous answer cited and, refused, is searched again in
its section, so the window must carry the previous answer's citations; these pairs are answered
differently without them (checked here too, so the corpus keeps exercising it).
"""

from __future__ import annotations

import uuid
from pathlib import Path
from typing import Any

import httpx
import pytest

from lectern.api import create_app
from lectern.api.chat_models import TOP_K_MAX
from lectern.engine import AskOptions, Engine
from lectern.models import Answer
from lectern.settings import Settings, load_settings
from tests.api_support import LiveServer, ndjson
from tests.integration.engine_support import ingested_engine
from tests.integration.store_support import BACKENDS, backend_url

pytestmark = pytest.mark.integration

DOCS = Path(__file__).parent.parent.parent / "docs"
PAIRS = [
    ("How do I ingest a folder?", "Can it run offline?"),
    ("How does the search work?", "How do I configure it?"),
    ("How do I connect an LLM server?", "How do I configure it?"),
    ("How do I evaluate answers?", "What if it fails?"),
    ("What index engines are there?", "Can it run offline?"),
]
CHAT = AskOptions(top_k=5, max_top_k=TOP_K_MAX)  # what /chat/run asks with top_k 5
GENERATION = AskOptions(top_k=5)  # and /api/generation/stream with topK 5


@pytest.fixture(scope="module")
def settings(tmp_path_factory: pytest.TempPathFactory) -> Settings:
    data = tmp_path_factory.mktemp("followups")
    return load_settings(
        data_dir=data, collection="docs", database_url=f"sqlite+aiosqlite:///{data / 'store.sqlite3'}"
    )


@pytest.fixture(scope="module")
def engine(settings: Settings) -> Engine:
    return ingested_engine(settings, [DOCS])


@pytest.fixture(params=BACKENDS)
def database_url(request: pytest.FixtureRequest, tmp_path: Path) -> str:
    return backend_url(request, tmp_path)


async def in_process(
    engine: Engine, first: str, follow_up: str, options: AskOptions = CHAT, *, cited: bool = True
) -> Answer:
    conversation = engine.new_conversation()
    await engine.run(first, conversation, options)
    if not cited:  # what the store's window gave before it carried the newest answer's citations
        conversation.history[-1].citations = []
    return await engine.run(follow_up, conversation, options)


def shown(answer: Answer) -> list[tuple[Any, ...]]:
    return [(c.number, c.section, c.url, c.chunk_index) for c in answer.citations]


async def test_follow_ups_on_stored_sessions_are_answered_as_in_process(
    engine: Engine, settings: Settings, database_url: str
) -> None:
    app = create_app(settings.model_copy(update={"database_url": database_url}), engine=engine)
    expected = [await in_process(engine, first, follow_up) for first, follow_up in PAIRS]
    uncited = [await in_process(engine, first, follow_up, cited=False) for first, follow_up in PAIRS]
    generated = [await in_process(engine, first, follow_up, GENERATION) for first, follow_up in PAIRS]
    assert any(shown(a) != shown(b) or a.text != b.text for a, b in zip(expected, uncited, strict=True))

    with LiveServer(app) as live:
        async with httpx.AsyncClient(base_url=live.url, timeout=120) as client:
            for (first, follow_up), answer, generation in zip(PAIRS, expected, generated, strict=True):
                session = str(uuid.uuid4())
                for question in (first, follow_up):
                    r = await client.post(
                        "/chat/run", json={"message": question, "session_id": session, "top_k": 5}
                    )
                    assert r.status_code == 200, r.text
                body = r.json()
                assert body["response"] == answer.text, (first, follow_up)
                got = [(s["number"], s["section"], s["url"], s["chunk_index"]) for s in body["sources"]]
                assert got == (shown(answer) if answer.confidence.should_answer else [])

                session = (await client.post("/api/generation/session", json={})).json()["sessionId"]
                for question in (first, follow_up):
                    r = await client.post(
                        "/api/generation/stream", json={"sessionId": session, "prompt": question, "topK": 5}
                    )
                    assert r.status_code == 200, r.text
                deltas = ndjson(r.text)
                assert "".join(d["text"] for d in deltas if d["type"] == "token") == generation.text
                cited = [(c["number"], c["section"], c["url"]) for c in deltas[-1]["metadata"]["citations"]]
                assert cited == [(c.number, c.section, c.url) for c in generation.citations]
