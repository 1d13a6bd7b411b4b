"""The official MCP client against real Lectern servers over both transports, on documents ingested by
`lectern ingest` with the local embedder into LanceDB:

- stdio: `lectern mcp` spawned as a subprocess (its own engine and conversation store);
- streamable HTTP: the API app under uvicorn on loopback, MCP at /mcp behind the API keys.
"""

from __future__ import annotations

import json
import uuid
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx2
import pytest
from mcp import Client, MCPError, StdioServerParameters
from mcp.client.stdio import stdio_client
from mcp.client.streamable_http import streamable_http_client
from mcp_types import TextContent

from lectern.api import create_app
from tests.api_support import LiveServer
from tests.integration.mcp_support import (
    API_KEY,
    DOCS,
    FOLLOW_UP,
    OFF_TOPIC,
    ON_TOPIC,
    Ingested,
    copy_data,
    ingested,
    lectern_command,
)

pytestmark = pytest.mark.integration

OTHER_KEY = "test-key-other-7d21e0"

__all__ = ["ingested"]  # the session fixture, imported for pytest


def text_of(result: Any) -> str:
    block = result.content[0]
    assert isinstance(block, TextContent)
    return block.text


async def exercise(client: Client) -> None:
    """What every transport must do: list and call both tools, read both resources, report tool errors."""
    tools = {t.name: t for t in (await client.list_tools()).tools}
    assert set(tools) == {"search_docs", "ask"}
    assert tools["search_docs"].input_schema["properties"]["top_k"]["maximum"] == 20
    assert tools["ask"].input_schema["properties"]["question"]["maxLength"] == 1000

    searched = await client.call_tool("search_docs", {"query": "message retention period", "top_k": 3})
    assert not searched.is_error, text_of(searched)
    found = searched.structured_content or {}
    assert 1 <= found["total"] <= 3
    best = found["results"][0]
    assert best["source_path"] == "guide/retention.md"
    assert best["url"].startswith("https://heron.example.com/docs/guide/retention#")
    assert best["heading_path"][0] == "Message retention"
    assert 0.0 < best["score"] <= 1.0
    assert best["title"] == "Message retention"

    asked = await client.call_tool("ask", {"question": ON_TOPIC})
    assert not asked.is_error, text_of(asked)
    answer = asked.structured_content or {}
    assert answer["should_answer"] is True
    assert "seven days" in answer["answer"]
    assert "[1]" in answer["answer"]
    assert answer["sources"][0]["url"].startswith("https://heron.example.com/docs/guide/retention#")
    assert answer["turn_number"] == 1
    assert "Sources:" in text_of(asked)

    follow_up = await client.call_tool("ask", {"question": FOLLOW_UP, "session_id": answer["session_id"]})
    assert not follow_up.is_error, text_of(follow_up)
    second = follow_up.structured_content or {}
    assert second["session_id"] == answer["session_id"]
    assert second["turn_number"] == 2
    assert "Heron" in second["search_query"]  # made standalone with the session's first question

    refused = (await client.call_tool("ask", {"question": OFF_TOPIC})).structured_content or {}
    assert refused["should_answer"] is False
    assert refused["sources"] == []

    out_of_range = await client.call_tool("search_docs", {"query": "retention", "top_k": 0})
    assert out_of_range.is_error
    assert "greater than or equal to 1" in text_of(out_of_range)
    empty = await client.call_tool("ask", {"question": "   "})
    assert empty.is_error
    assert "empty" in text_of(empty)

    listing = json.loads((await client.read_resource("lectern://documents")).contents[0].text)  # type: ignore[union-attr]
    by_path = {d["source_path"]: d for d in listing["documents"]}
    assert set(by_path) == set(DOCS)
    spaced = by_path["guide/consumer groups.md"]
    assert spaced["uri"] == "lectern://documents/guide/consumer%20groups.md"
    document = json.loads((await client.read_resource(spaced["uri"])).contents[0].text)  # type: ignore[union-attr]
    assert document["title"] == "Consumer groups"
    assert [c["chunk_index"] for c in document["chunks"]] == list(range(len(document["chunks"])))
    assert any("rebalances" in c["text"] for c in document["chunks"])
    with pytest.raises(MCPError):
        await client.read_resource("lectern://documents/guide/missing.md")


async def test_stdio_server_spawned_by_the_cli(ingested: Ingested, tmp_path: Path) -> None:
    own = copy_data(ingested, tmp_path)
    params = StdioServerParameters(
        command=lectern_command()[0],
        args=[*lectern_command()[1:], "mcp", "--log-level", "info"],
        env=own.env,
        cwd=tmp_path,
    )
    with (tmp_path / "stderr.log").open("w+", encoding="utf-8") as errlog:
        async with Client(stdio_client(params, errlog=errlog), read_timeout_seconds=120) as client:
            assert client.server_info is None or client.server_info.name == "lectern"
            await exercise(client)
        errlog.seek(0)
        logged = errlog.read()
    # Logs went to stderr as JSON lines (stdout carried only the protocol, or the client would have failed).
    assert '"event": "mcp_ready"' in logged


@pytest.fixture(scope="module")
def live(ingested: Ingested, tmp_path_factory: pytest.TempPathFactory) -> Iterator[LiveServer]:
    own = copy_data(ingested, tmp_path_factory.mktemp("mcp-http"))
    with LiveServer(create_app(own.settings(api_keys=[API_KEY, OTHER_KEY]))) as server:
        yield server


def keyed(key: str | None = API_KEY, seen: list[int] | None = None) -> httpx2.AsyncClient:
    async def record(response: httpx2.Response) -> None:
        if seen is not None:
            seen.append(response.status_code)

    headers = {"Authorization": f"Bearer {key}"} if key else {}
    return httpx2.AsyncClient(headers=headers, timeout=120, event_hooks={"response": [record]})


async def test_streamable_http_behind_the_api_keys(live: LiveServer) -> None:
    async with keyed() as http, Client(streamable_http_client(f"{live.url}/mcp", http_client=http)) as client:
        await exercise(client)


async def test_streamable_http_accepts_the_x_api_key_header(live: LiveServer) -> None:
    async with (
        httpx2.AsyncClient(headers={"X-API-Key": API_KEY}, timeout=120) as http,
        Client(streamable_http_client(f"{live.url}/mcp", http_client=http)) as client,
    ):
        result = await client.call_tool("search_docs", {"query": "broker port"})
        assert not result.is_error
        assert (result.structured_content or {})["results"][0]["source_path"] == "reference/cli.md"


@pytest.mark.parametrize("key", [None, "wrong-key"])
async def test_streamable_http_without_a_valid_key_is_401(live: LiveServer, key: str | None) -> None:
    seen: list[int] = []
    async with keyed(key, seen) as http:
        with pytest.raises(BaseException) as raised:  # noqa: PT011 - the SDK wraps the HTTP error in groups
            async with Client(streamable_http_client(f"{live.url}/mcp", http_client=http)) as client:
                await client.list_tools()
    assert 401 in seen
    assert all(status == 401 for status in seen)
    assert not isinstance(raised.value, KeyboardInterrupt)


async def test_sessions_are_per_key_threads(live: LiveServer) -> None:
    """A session id is a conversation thread of the API: the same key can continue it over /chat/run."""
    async with keyed() as http, Client(streamable_http_client(f"{live.url}/mcp", http_client=http)) as client:
        answer = (await client.call_tool("ask", {"question": ON_TOPIC})).structured_content or {}
    async with keyed() as http:
        history = await http.get(f"{live.url}/session/{answer['session_id']}/history")
    assert history.status_code == 200
    messages = history.json()["messages"]
    assert [m["role"] for m in messages] == ["user", "assistant"]
    assert messages[1]["content"] == answer["answer"]
    assert uuid.UUID(answer["session_id"]).version == 4


async def test_sessions_are_bound_to_the_key_that_opened_them(live: LiveServer) -> None:
    """The transport is stateless (no Mcp-Session-Id is issued, so there is no transport session another
    key could take over; a made-up one is not honoured as one); the conversation behind ``ask``'s
    session_id belongs to the key that opened it: another key is refused as if it did not exist."""
    async with keyed() as http, Client(streamable_http_client(f"{live.url}/mcp", http_client=http)) as client:
        answer = (await client.call_tool("ask", {"question": ON_TOPIC})).structured_content or {}
    session = answer["session_id"]
    async with (
        keyed(OTHER_KEY) as http,
        Client(streamable_http_client(f"{live.url}/mcp", http_client=http)) as other,
    ):
        taken = await other.call_tool("ask", {"question": FOLLOW_UP, "session_id": session})
    assert taken.is_error
    assert "not found" in text_of(taken).lower()
    async with keyed(OTHER_KEY) as http:
        history = await http.get(f"{live.url}/session/{session}/history")
        raw = await http.post(
            f"{live.url}/mcp",
            json={"jsonrpc": "2.0", "id": 1, "method": "tools/list"},
            headers={"Accept": "application/json, text/event-stream", "Mcp-Session-Id": session},
        )
    assert history.status_code == 404
    assert "mcp-session-id" not in raw.headers  # stateless: no transport session to bind or steal
    # The first key's conversation is untouched by the refused attempt.
    async with keyed() as http:
        mine = await http.get(f"{live.url}/session/{session}/history")
    assert [m["role"] for m in mine.json()["messages"]] == ["user", "assistant"]
