"""An engine whose writer talks to a scripted OpenAI-compatible server, over a small in-memory corpus:
shared by the LLM-writer integration tests."""

from __future__ import annotations

from collections.abc import AsyncIterator
from typing import Any

from lectern.engine import Engine
from lectern.events import Event
from lectern.models import Chunk, CollectionInfo, content_hash
from lectern.retrieval import Retriever
from lectern.settings import Settings, load_settings
from lectern.writers.openai_chat import OpenAIChatWriter
from tests.fakes.hash_embedder import HashEmbedder
from tests.fakes.memory_index import MemoryIndex
from tests.fakes.openai_chat_server import FakeChatServer


def llm_engine(
    server: FakeChatServer, docs: list[tuple[str, str]], **overrides: Any
) -> tuple[Engine, OpenAIChatWriter]:
    """`docs` are (section, text) pairs of one page, "ros2.md"."""
    values: dict[str, Any] = {
        "llm_provider": "openai",
        "llm_base_url": server.base_url,
        "llm_api_key": "k",
        "llm_model": "fake-model",
        "llm_stall_timeout_s": 5.0,
        "search_mode": "dense",
        **overrides,
    }
    settings: Settings = load_settings(**values)
    embedder = HashEmbedder()
    index = MemoryIndex("test")
    index.create(CollectionInfo(name="test", embedder_name=embedder.name, dimension=embedder.dimension))
    chunks = [
        Chunk(
            text=text,
            content_hash=content_hash(text),
            chunk_index=i,
            token_count=len(text.split()),
            heading_hierarchy=["ROS 2 Basics", section],
            title="ROS 2 Basics",
            section=section,
            url=f"https://docs.example.com/ros2#{section.lower()}",
            source_path="ros2.md",
        )
        for i, (section, text) in enumerate(docs)
    ]
    index.upsert(chunks, embedder.embed_documents([c.search_text for c in chunks]))
    writer = OpenAIChatWriter(settings, retry_backoff_s=0.01)
    return Engine(Retriever(embedder, index, settings, collection="test"), writer, settings), writer


async def events_of(stream: AsyncIterator[Event]) -> list[Event]:
    return [event async for event in stream]
