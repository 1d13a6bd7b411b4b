"""The MCP face in process: the official client against `create_mcp_server` over the real engine (hash
embedder, in-memory index) and a real SQLite conversation store. Schemas state the seeds' ranges, tool
results carry structured content and text, failures are tool errors, resources list and read documents.
The stdio and streamable HTTP transports run in tests/integration/test_mcp_live.py."""

from __future__ import annotations

import json
import uuid
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import pytest
from mcp import Client, MCPError
from mcp_types import TextContent

from lectern.api.logs import LogSink
from lectern.api.turns import Turns
from lectern.mcp import Backend, BackendSlot, create_mcp_server
from lectern.mcp.http import transport_security
from lectern.mcp.models import document_uri
from lectern.settings import Settings
from lectern.store import ConversationStore, upgrade_database
from tests.api_support import OFF_TOPIC, ON_TOPIC, app_client, corpus_chunks, make_engine, make_settings

FOLLOW_UP = "How do I create them in Python?"


@pytest.fixture
def settings(tmp_path: Path) -> Settings:
    return make_settings(tmp_path)


@pytest.fixture
async def store(settings: Settings) -> AsyncIterator[ConversationStore]:
    await upgrade_database(settings.effective_database_url)
    store = ConversationStore.from_settings(settings)
    yield store
    await store.close()


@pytest.fixture
def slot(settings: Settings, store: ConversationStore) -> BackendSlot:
    engine = make_engine(settings)
    return BackendSlot(Backend(engine, Turns(engine, store, LogSink(None), history=20), settings))


def connect(slot: BackendSlot) -> Client:
    """A client over the server in process (entered in each test: anyio scopes cannot span a fixture)."""
    return Client(create_mcp_server(slot))


def text_of(result: Any) -> str:
    block = result.content[0]
    assert isinstance(block, TextContent)
    return block.text


async def test_tools_state_the_seed_ranges(slot: BackendSlot) -> None:
    async with connect(slot) as client:
        tools = {t.name: t for t in (await client.list_tools()).tools}
        assert set(tools) == {"search_docs", "ask"}
        search = tools["search_docs"].input_schema["properties"]
        assert tools["search_docs"].input_schema["required"] == ["query"]
        assert (search["query"]["minLength"], search["query"]["maxLength"]) == (1, 1000)
        assert (search["top_k"]["minimum"], search["top_k"]["maximum"], search["top_k"]["default"]) == (
            1,
            20,
            5,
        )
        threshold = search["similarity_threshold"]["anyOf"][0]
        assert (threshold["minimum"], threshold["maximum"]) == (0.0, 1.0)
        assert "filters" in search
        ask = tools["ask"].input_schema["properties"]
        assert tools["ask"].input_schema["required"] == ["question"]
        assert "ctx" not in ask
        assert (ask["question"]["minLength"], ask["question"]["maxLength"]) == (1, 1000)
        top_k = ask["top_k"]["anyOf"][0]
        assert (top_k["minimum"], top_k["maximum"]) == (1, 10)
        assert ask["user_context"]["anyOf"][0]["maxLength"] == 10_000
        assert "session_id" in ask
        for tool in tools.values():
            assert tool.description
            assert tool.output_schema is not None
            assert tool.annotations is not None
        assert set(tools["ask"].output_schema["required"]) >= {
            "answer",
            "session_id",
            "sources",
            "should_answer",
        }
        assert tools["search_docs"].annotations.read_only_hint is True


async def test_search_docs_returns_chunks_with_metadata(slot: BackendSlot) -> None:
    async with connect(slot) as client:
        result = await client.call_tool("search_docs", {"query": "ROS 2 nodes topics", "top_k": 3})
        assert not result.is_error
        data = result.structured_content
        assert data is not None
        assert data["total"] == len(data["results"]) <= 3
        assert data["results"]
        first = data["results"][0]
        assert set(first) >= {"text", "score", "title", "section", "url", "heading_path", "source_path"}
        assert 0.0 <= first["score"] <= 1.0
        assert first["url"].startswith("https://docs.example.com/book/")
        assert first["heading_path"][0].startswith("Chapter")
        assert first["resource_uri"] == document_uri(first["source_path"])
        assert [r["rank"] for r in data["results"]] == list(range(1, data["total"] + 1))
        text = text_of(result)
        assert first["url"] in text
        assert first["text"][:40] in text


async def test_search_docs_filters(slot: BackendSlot) -> None:
    async with connect(slot) as client:
        result = await client.call_tool(
            "search_docs",
            {"query": "robot description joints", "filters": {"chapter": "Chapter 4: Robot description"}},
        )
        assert not result.is_error
        chapters = {r["chapter"] for r in (result.structured_content or {})["results"]}
        assert chapters == {"Chapter 4: Robot description"}
        prefixed = await client.call_tool(
            "search_docs", {"query": "nodes", "filters": {"url_prefix": "https://docs.example.com/book/6"}}
        )
        assert {r["section"] for r in (prefixed.structured_content or {})["results"]} == {"6.1 Launch files"}


@pytest.mark.parametrize(
    ("arguments", "message"),
    [
        ({"query": "nodes", "top_k": 21}, "less than or equal to 20"),
        ({"query": "nodes", "top_k": 0}, "greater than or equal to 1"),
        ({"query": ""}, "at least 1 character"),
        ({"query": "   "}, "The search query is empty."),
        ({"query": "nodes", "similarity_threshold": 1.5}, "less than or equal to 1"),
        ({"query": "nodes", "filters": {"colour": "red"}}, "Unknown filter key(s) colour"),
    ],
)
async def test_search_docs_errors_are_tool_errors(
    slot: BackendSlot, arguments: dict[str, Any], message: str
) -> None:
    async with connect(slot) as client:
        result = await client.call_tool("search_docs", arguments)
        assert result.is_error
        assert message in text_of(result)
        assert result.structured_content is None


async def test_ask_answers_with_numbered_sources(slot: BackendSlot) -> None:
    async with connect(slot) as client:
        result = await client.call_tool("ask", {"question": ON_TOPIC})
        assert not result.is_error
        data = result.structured_content
        assert data is not None
        assert "[1]" in data["answer"]
        assert data["should_answer"] is True
        assert data["confidence_level"] in {"high", "medium", "low"}
        assert data["sources"]
        assert [s["number"] for s in data["sources"]] == sorted(s["number"] for s in data["sources"])
        for source in data["sources"]:
            assert f"[{source['number']}]" in data["answer"]
            assert source["url"].startswith("https://docs.example.com/book/")
            assert 0.0 <= source["score"] <= 1.0
            assert len(source["snippet"]) <= 500
        assert uuid.UUID(data["session_id"]).version == 4
        text = text_of(result)
        assert text.startswith(data["answer"])
        assert "Sources:" in text
        assert data["session_id"] in text


async def test_follow_up_in_the_same_session(slot: BackendSlot, store: ConversationStore) -> None:
    async with connect(slot) as client:
        first = (await client.call_tool("ask", {"question": ON_TOPIC})).structured_content or {}
        second = await client.call_tool("ask", {"question": FOLLOW_UP, "session_id": first["session_id"]})
        assert not second.is_error
        data = second.structured_content or {}
        assert data["session_id"] == first["session_id"]
        assert data["turn_number"] == 2
        assert data["search_query"] != FOLLOW_UP  # made standalone with the session's history
        assert "Python" in data["answer"]
        # The conversation lives in the store, like the HTTP API's sessions.
        thread = await store.get_thread(uuid.UUID(first["session_id"]))
        assert [m.role for m in thread.messages if m.role != "system"] == [
            "user",
            "assistant",
            "user",
            "assistant",
        ]
        # A new session knows nothing of it.
        fresh = (await client.call_tool("ask", {"question": FOLLOW_UP})).structured_content or {}
        assert fresh["turn_number"] == 1
        assert fresh["session_id"] != first["session_id"]


async def test_out_of_scope_question_is_refused(slot: BackendSlot) -> None:
    async with connect(slot) as client:
        result = await client.call_tool("ask", {"question": OFF_TOPIC})
        assert not result.is_error
        data = result.structured_content or {}
        assert data["should_answer"] is False
        assert data["confidence_level"] == "insufficient"
        assert data["sources"] == []
        assert data["answer"].startswith("I don't have information about")


@pytest.mark.parametrize(
    ("arguments", "message"),
    [
        ({"question": ""}, "at least 1 character"),
        ({"question": "   "}, "The question is empty"),
        ({"question": "x" * 1001}, "at most 1000 characters"),
        ({"question": ON_TOPIC, "top_k": 11}, "less than or equal to 10"),
        ({"question": ON_TOPIC, "session_id": "zzzzzzzz-zzzz-4zzz-8zzz-zzzzzzzzzzzz"}, "UUID v4"),
        ({"question": ON_TOPIC, "session_id": str(uuid.uuid1())}, "UUID v4"),
        ({"question": ON_TOPIC, "user_context": "y" * 10_001}, "at most 10000 characters"),
    ],
)
async def test_ask_errors_are_tool_errors(slot: BackendSlot, arguments: dict[str, Any], message: str) -> None:
    async with connect(slot) as client:
        result = await client.call_tool("ask", arguments)
        assert result.is_error
        assert message in text_of(result)


async def test_engine_failure_is_a_tool_error(slot: BackendSlot) -> None:
    async with connect(slot) as client:

        def broken(**_: Any) -> Any:
            raise RuntimeError("disk on fire")

        slot.get().engine.retriever.index.search = broken  # type: ignore[method-assign]
        asked = await client.call_tool("ask", {"question": ON_TOPIC})
        searched = await client.call_tool("search_docs", {"query": ON_TOPIC})
        for result in (asked, searched):
            assert result.is_error
            assert "Unable to retrieve content" in text_of(result)
            assert "disk on fire" not in text_of(result)


async def test_not_ready_is_a_tool_error() -> None:
    async with Client(create_mcp_server(BackendSlot())) as client:
        result = await client.call_tool("search_docs", {"query": "nodes"})
        assert result.is_error
        assert "starting" in text_of(result)
        with pytest.raises(MCPError, match="starting"):
            await client.read_resource("lectern://documents")


async def test_resources_list_and_read_documents(slot: BackendSlot) -> None:
    async with connect(slot) as client:
        listed = await client.list_resources()
        assert [str(r.uri) for r in listed.resources] == ["lectern://documents"]
        templates = await client.list_resource_templates()
        assert [t.uri_template for t in templates.resource_templates] == [
            "lectern://documents/{+source_path}"
        ]
        body = json.loads((await client.read_resource("lectern://documents")).contents[0].text)  # type: ignore[union-attr]
        paths = [d["source_path"] for d in body["documents"]]
        assert paths == sorted({c.source_path for c in corpus_chunks()})
        entry = body["documents"][0]
        assert entry["uri"] == f"lectern://documents/{entry['source_path']}"
        for uri in (entry["uri"], "lectern://documents/" + entry["source_path"].replace("/", "%2F")):
            read = await client.read_resource(uri)
            doc = json.loads(read.contents[0].text)  # type: ignore[union-attr]
            assert doc["source_path"] == entry["source_path"]
            assert doc["chunks"]
            assert doc["chunks"][0]["text"]
            assert read.contents[0].mime_type == "application/json"
        with pytest.raises(MCPError, match="No document"):
            await client.read_resource("lectern://documents/book/missing.md")
        with pytest.raises(MCPError):
            await client.read_resource("lectern://documents/..%2F..%2Fetc%2Fpasswd")


def test_document_uri_keeps_slashes_and_encodes_the_rest() -> None:
    assert document_uri("guide/consumer groups.md") == "lectern://documents/guide/consumer%20groups.md"


async def test_http_endpoint_without_keys_answers_loopback_hosts_only(tmp_path: Path) -> None:
    settings = make_settings(tmp_path)
    assert transport_security(settings).enable_dns_rebinding_protection
    assert not transport_security(make_settings(tmp_path, api_keys=["k"])).enable_dns_rebinding_protection
    from lectern.api import create_app

    message = {"jsonrpc": "2.0", "id": 1, "method": "ping"}
    headers = {"Accept": "application/json, text/event-stream", "Content-Type": "application/json"}
    async with app_client(create_app(settings, engine=make_engine(settings))) as client:
        rebound = await client.post("/mcp", json=message, headers={**headers, "Host": "evil.example"})
        foreign = await client.post(
            "/mcp",
            json=message,
            headers={**headers, "Host": "127.0.0.1:8000", "Origin": "https://evil.example"},
        )
    assert rebound.status_code == 421
    assert foreign.status_code == 403


async def test_turn_numbers_count_the_sessions_turns_beyond_the_window(
    settings: Settings, store: ConversationStore
) -> None:
    """MCP reported 1...11, 11, 11 over 14 turns (it counted the user messages in the history window)."""
    engine = make_engine(settings)
    slot = BackendSlot(Backend(engine, Turns(engine, store, LogSink(None), history=4), settings))
    numbers = []
    async with connect(slot) as client:
        session = None
        for _ in range(8):
            args = {"question": ON_TOPIC, **({"session_id": session} if session else {})}
            result = (await client.call_tool("ask", args)).structured_content or {}
            session = result["session_id"]
            numbers.append(result["turn_number"])
            assert result["timings"]["total_ms"] > 0  # stage timings on this face too
    assert numbers == list(range(1, 9))
