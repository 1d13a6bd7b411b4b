"""Citations a client can resolve, on every face, over many real answers (MiniLM, LanceDB, extractive).

The rule: markers are numbered 1..k in order of first appearance, `sources[i]` is `[i + 1]` and carries
`number == i + 1`, no marker without a source and no source without a marker; the streamed tokens are
the final text (nothing renumbered after it was sent).
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import pytest

from lectern.api import create_app
from lectern.api.logs import LogSink
from lectern.api.turns import Turns
from lectern.citations import display_markers
from lectern.engine import Engine
from lectern.events import Done, Token
from lectern.mcp import Backend, BackendSlot, create_mcp_server
from lectern.settings import Settings, load_settings
from lectern.store import ConversationStore, upgrade_database
from tests.api_support import app_client, ndjson, parse_sse
from tests.integration.engine_support import ingested_engine

pytestmark = pytest.mark.integration

ROOT = Path(__file__).parent.parent.parent
CORPORA = [ROOT / "tests" / "fixtures" / "answer_docs", ROOT / "docs"]
_HEADING = re.compile(r"^#{1,4}\s+(.+?)\s*#*$", re.MULTILINE)


def questions() -> list[str]:
    """Questions a reader of these pages would ask: one per heading, in two forms."""
    out: list[str] = []
    for corpus in CORPORA:
        for page in sorted(corpus.glob("*.md")):
            for heading in _HEADING.findall(page.read_text(encoding="utf-8")):
                words = re.sub(r"[`*_\[\]()]", "", heading).strip()
                if 2 <= len(words.split()) <= 8:
                    out.append(f"What is {words}?" if len(out) % 2 else f"How does {words} work?")
    return out


QUESTIONS = questions()


def check_rule(text: str, numbers: list[int]) -> None:
    markers = display_markers(text)
    assert markers == list(range(1, len(markers) + 1)), (markers, text)
    assert numbers == list(range(1, len(numbers) + 1)), numbers
    if markers:
        assert markers == numbers, (markers, numbers, text)


@pytest.fixture(scope="module")
def settings(tmp_path_factory: pytest.TempPathFactory) -> Settings:
    data = tmp_path_factory.mktemp("citations")
    return load_settings(
        data_dir=data, collection="citations", database_url=f"sqlite+aiosqlite:///{data / 'store.sqlite3'}"
    )


@pytest.fixture(scope="module")
def engine(settings: Settings) -> Engine:
    return ingested_engine(settings, CORPORA)


def test_there_are_many_questions() -> None:
    assert len(QUESTIONS) >= 40


async def test_engine_stream_keeps_the_rule_on_every_answer(engine: Engine) -> None:
    answered = 0
    for question in QUESTIONS:
        tokens: list[str] = []
        done = None
        async for event in engine.stream(question, engine.new_conversation()):
            if isinstance(event, Token):
                tokens.append(event.text)
            elif isinstance(event, Done):
                done = event.answer
        assert done is not None, question
        assert "".join(tokens) == done.text  # what was sent is the final text
        check_rule(done.text, [c.number for c in done.citations])
        answered += bool(done.citations)
    assert answered >= len(QUESTIONS) // 3  # the rule was tested on real citations, not only refusals


async def test_every_http_face_keeps_the_rule(engine: Engine, settings: Settings) -> None:
    sample = QUESTIONS[:: max(1, len(QUESTIONS) // 12)]
    async with app_client(create_app(settings, engine=engine)) as client:
        for question in sample:
            run = (await client.post("/chat/run", json={"message": question})).json()
            check_rule(run["response"], [s["number"] for s in run["sources"]])

            stream = await client.post("/chat/stream", json={"message": question})
            events = [data for _, data in parse_sse(stream.text)]
            done = events[-1]
            assert done["type"] == "done"
            text = "".join(e["content"] for e in events if e["type"] == "token")
            assert text == done["metadata"]["response"]
            check_rule(text, [s["number"] for s in done["metadata"]["sources"]])

            session = (await client.post("/api/generation/session", json={})).json()["sessionId"]
            gen = ndjson(
                (
                    await client.post(
                        "/api/generation/stream", json={"sessionId": session, "prompt": question}
                    )
                ).text
            )
            text = "".join(d["text"] for d in gen if d["type"] == "token")
            assert gen[-1]["type"] == "done"
            check_rule(text, [c["number"] for c in gen[-1]["metadata"]["citations"]])

            body: dict[str, Any] = {"model": "lectern", "messages": [{"role": "user", "content": question}]}
            completion = (await client.post("/v1/chat/completions", json=body)).json()
            message = completion["choices"][0]["message"]
            check_rule(message["content"], [c["number"] for c in message["citations"]])


async def test_mcp_ask_keeps_the_rule(engine: Engine, settings: Settings) -> None:
    from mcp import Client

    await upgrade_database(settings.effective_database_url)
    store = ConversationStore.from_settings(settings)
    slot = BackendSlot(Backend(engine, Turns(engine, store, LogSink(None), history=20), settings))
    try:
        async with Client(create_mcp_server(slot)) as client:
            for question in QUESTIONS[1 :: max(1, len(QUESTIONS) // 8)]:
                result = await client.call_tool("ask", {"question": question})
                data = result.structured_content
                assert data is not None
                assert not result.is_error
                check_rule(data["answer"], [s["number"] for s in data["sources"]])
    finally:
        await store.close()
