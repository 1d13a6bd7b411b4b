"""Helpers for the HTTP tests: a real engine over a small in-memory corpus, the app under an ASGI client
or a real uvicorn server on loopback, and readers for SSE and NDJSON with seed 004's delta rules."""

from __future__ import annotations

import json
import re
import time
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any

import httpx
import numpy as np
from fastapi import FastAPI

from lectern.api import create_app
from lectern.engine import Engine
from lectern.models import Chunk, CollectionInfo, content_hash
from lectern.retrieval import Retriever
from lectern.settings import Settings
from lectern.writers.base import AnswerWriter
from lectern.writers.extractive import ExtractiveWriter
from tests.fakes.hash_embedder import HashEmbedder
from tests.fakes.memory_index import MemoryIndex
from tests.fakes.threaded_uvicorn import ThreadedUvicorn

# (chapter, section, text): a small textbook about robot software, in our own words.
CORPUS: list[tuple[str, str, str]] = [
    (
        "Chapter 3: ROS 2",
        "3.1 Nodes",
        "A ROS 2 node is a process that performs one job in the robot graph. Nodes talk to each other "
        "through topics, services and actions. Each node has a name that is unique in the graph.",
    ),
    (
        "Chapter 3: ROS 2",
        "3.2 Topics",
        "ROS 2 nodes communicate by publishing messages on topics. A topic is a named channel with one "
        "message type; publishers send on it and subscribers receive from it.",
    ),
    (
        "Chapter 3: ROS 2",
        "3.3 Creating a node",
        "To create a ROS 2 node in Python, subclass rclpy.node.Node, call the parent constructor with "
        "the node name, and spin it with rclpy.spin. The package needs an entry point in setup.py.",
    ),
    (
        "Chapter 4: Robot description",
        "4.1 URDF",
        "URDF, the Unified Robot Description Format, is an XML format that describes a robot's links "
        "and joints. Each link has visual, collision and inertial elements.",
    ),
    (
        "Chapter 4: Robot description",
        "4.2 Joint types",
        "URDF joint types are revolute, continuous, prismatic, fixed, floating and planar. A revolute "
        "joint rotates between limits; a prismatic joint slides along an axis.",
    ),
    (
        "Chapter 5: Simulation",
        "5.1 Gazebo",
        "Gazebo simulates robots with physics, sensors and worlds. A URDF model can be spawned in "
        "Gazebo so the same robot description drives simulation and hardware.",
    ),
    (
        "Chapter 6: Launch files",
        "6.1 Launch files",
        "ROS 2 launch files start many nodes at once with their parameters. A Python launch file "
        "returns a LaunchDescription listing Node actions.",
    ),
]

ON_TOPIC = "How do ROS 2 nodes communicate with topics?"
OFF_TOPIC = "What is the recipe for a chocolate cake with strawberries?"


def corpus_chunks() -> list[Chunk]:
    chunks = []
    for i, (chapter, section, text) in enumerate(CORPUS):
        slug = re.sub(r"[^a-z0-9]+", "-", section.lower()).strip("-")
        chunks.append(
            Chunk(
                text=text,
                content_hash=content_hash(text),
                chunk_index=i,
                token_count=len(text.split()),
                heading_hierarchy=[chapter, section],
                title=chapter,
                chapter=chapter,
                section=section,
                url=f"https://docs.example.com/book/{slug}",
                source_path=f"book/{slug}.md",
            )
        )
    return chunks


def make_engine(settings: Settings, writer: AnswerWriter | None = None) -> Engine:
    """The real engine, with the hash embedder and the in-memory index holding ``CORPUS``."""
    embedder = HashEmbedder()
    index = MemoryIndex(settings.collection)
    index.create(
        CollectionInfo(name=settings.collection, embedder_name=embedder.name, dimension=embedder.dimension)
    )
    chunks = corpus_chunks()
    index.upsert(chunks, np.asarray(embedder.embed_documents([c.search_text for c in chunks])))
    retriever = Retriever(embedder, index, settings)  # type: ignore[arg-type]
    return Engine(retriever, writer or ExtractiveWriter(embedder), settings)  # type: ignore[arg-type]


def make_settings(tmp_path: Path, **overrides: Any) -> Settings:
    values: dict[str, Any] = {
        "data_dir": tmp_path / "data",
        "database_url": f"sqlite+aiosqlite:///{tmp_path / 'lectern.sqlite3'}",
        # The hash embedder's cosine scale is far below a real model's.
        "confidence_high": 0.5,
        "confidence_medium": 0.3,
        "confidence_low": 0.2,
        "similarity_threshold": 0.0,
        "rate_limit": "",
    }
    values.update(overrides)
    return Settings(**values)


@asynccontextmanager
async def app_client(app: FastAPI, **headers: str) -> AsyncIterator[httpx.AsyncClient]:
    """The app with its lifespan running, under an in-process ASGI client."""
    async with app.router.lifespan_context(app):
        transport = httpx.ASGITransport(app=app)
        async with httpx.AsyncClient(transport=transport, base_url="http://testserver", headers=headers) as c:
            yield c


@asynccontextmanager
async def client_for(
    settings: Settings, *, writer: AnswerWriter | None = None, **headers: str
) -> AsyncIterator[httpx.AsyncClient]:
    async with app_client(create_app(settings, engine=make_engine(settings, writer)), **headers) as client:
        yield client


class LiveServer:
    """The app under a real uvicorn on a free loopback port, in a thread with its own event loop."""

    def __init__(self, app: FastAPI) -> None:
        self.app = app
        self._uvicorn = ThreadedUvicorn(
            app, what="the API server", start_timeout_s=30, timeout_graceful_shutdown=2, access_log=False
        )
        self.server = self._uvicorn.server
        self.port: int = self._uvicorn.port

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    def __enter__(self) -> LiveServer:
        self._uvicorn.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self._uvicorn.stop(timeout_s=15)


# --- wire formats --------------------------------------------------------------------------------


def parse_sse(text: str) -> list[tuple[str, dict[str, Any]]]:
    """(type, JSON data) for each SSE event of a whole stream; comments (pings) are skipped. The type is
    the event's name when it has one (`/v1` has none: "message"), else the JSON's `type` (chat API)."""
    events = []
    for block in re.split(r"\r?\n\r?\n", text):
        name, data = "", []
        for line in block.splitlines():
            if line.startswith("event:"):
                name = line[6:].strip()
            elif line.startswith("data:"):
                data.append(line[5:].lstrip())
        if data:
            raw = "\n".join(data)
            parsed = json.loads(raw) if raw != "[DONE]" else {}
            kind = parsed.get("type") if isinstance(parsed, dict) and not name else None
            events.append((name or (kind if isinstance(kind, str) else "message"), parsed))
    return events


UUID_RE = re.compile(r"^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$")
ISO_Z = re.compile(r"^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$")


def check_delta(d: dict[str, Any]) -> None:
    """Seed 004's GenerationDelta, by its rules (our reading of the contract, written out here)."""
    assert set(d) <= {"promptId", "type", "seq", "text", "role", "metadata"}, d
    assert isinstance(d["promptId"], str), d
    assert UUID_RE.match(d["promptId"]), d
    assert d["type"] in {"token", "done", "error"}, d
    assert type(d["seq"]) is int, d
    assert d["seq"] >= 0, d
    assert d["role"] in {"assistant", "system", "user"}, d
    assert d.get("text") is None or isinstance(d["text"], str), d
    assert d.get("metadata") is None or isinstance(d["metadata"], dict), d
    if d["type"] == "token":
        assert isinstance(d.get("text"), str), d
    if d["type"] == "error":
        meta = d.get("metadata") or {}
        assert isinstance(meta.get("code"), str), d
        assert isinstance(meta.get("message"), str), d


def check_stream(deltas: list[dict[str, Any]]) -> None:
    """One prompt id; seq 0, 1, 2, ... without gaps; tokens then exactly one final done or error."""
    assert deltas, "no deltas"
    for d in deltas:
        check_delta(d)
    assert len({d["promptId"] for d in deltas}) == 1
    assert [d["seq"] for d in deltas] == list(range(len(deltas)))
    assert all(d["type"] == "token" for d in deltas[:-1])
    assert deltas[-1]["type"] in {"done", "error"}


def ndjson(text: str) -> list[dict[str, Any]]:
    return [json.loads(line) for line in text.splitlines() if line.strip()]


async def clear_of_window_edge(window_s: float = 60.0, margin_s: float = 3.0) -> None:
    """Wait, if need be, until a fixed rate-limit window has at least `margin_s` left. The limiter's
    windows start at multiples of `window_s` since the epoch, and its sliding-window count approximates
    the previous window's hits, so a burst that straddles a boundary can be let through by design."""
    import asyncio

    into = time.time() % window_s
    if into > window_s - margin_s:
        await asyncio.sleep(window_s - into + 0.05)
