"""Shared pieces of the answer-engine unit tests: a tiny corpus in a MemoryIndex, scripted writers and
indexes that count what they are asked."""

from __future__ import annotations

from collections.abc import AsyncIterator, Mapping, Sequence
from typing import Any

import numpy as np
from numpy.typing import NDArray

from lectern.engine import Engine
from lectern.events import Done, Event, Failed, Retrieved, Token
from lectern.index.base import SearchFilters
from lectern.models import (
    Chunk,
    CollectionInfo,
    ConfidenceMetrics,
    RetrievalResult,
    SearchHit,
    SearchModeName,
    TokenUsage,
    content_hash,
)
from lectern.retrieval import Retriever
from lectern.settings import Settings, load_settings
from lectern.writers.base import RetrieveCall, WriteRequest, WriterEvent, Written
from lectern.writers.extractive import ExtractiveWriter
from tests.fakes.hash_embedder import HashEmbedder
from tests.fakes.memory_index import MemoryIndex

DOCS: dict[str, list[tuple[str, str]]] = {
    "gazebo.md": [
        (
            "Gazebo Harmonic",
            "Gazebo Harmonic is a robot simulator with physics engines and sensor models. "
            "It simulates cameras, lidar and IMU sensors for robots.",
        ),
        (
            "Installing Gazebo Harmonic",
            "To install Gazebo Harmonic on Ubuntu, add the OSRF apt repository first. "
            "Then install the gz-harmonic package:\n\n```bash\nsudo apt-get update\n"
            "sudo apt-get install gz-harmonic\n```\n\nCheck the install by running gz sim.",
        ),
    ],
    "ros.md": [
        (
            "ROS 2 nodes",
            "A ROS 2 node is a process that performs computation. Nodes communicate over topics "
            "with publish and subscribe. Each node should do one job well.",
        ),
        (
            "Creating a ROS 2 node",
            "To create a ROS 2 node in Python, subclass rclpy Node and call rclpy spin. "
            "Give every node a unique name so the graph stays readable.",
        ),
    ],
}


def corpus_chunks(docs: dict[str, list[tuple[str, str]]] | None = None) -> list[Chunk]:
    """Chunks of `docs` (path: [(heading, text), ...]; default DOCS), one per section."""
    chunks = []
    for path, sections in (DOCS if docs is None else docs).items():
        for i, (heading, text) in enumerate(sections):
            chunks.append(
                Chunk(
                    text=text,
                    content_hash=content_hash(text),
                    chunk_index=i,
                    token_count=len(text.split()),
                    heading_hierarchy=[heading],
                    title=heading,
                    section=heading,
                    source_path=path,
                    url=f"https://docs.example/{path.removesuffix('.md')}#{i}",
                )
            )
    return chunks


def answer_settings(**overrides: Any) -> Settings:
    """Thresholds on the fake embedder's scale (bag-of-words cosines)."""
    values: dict[str, Any] = {
        "confidence_high": 0.6,
        "confidence_medium": 0.3,
        "confidence_low": 0.15,
        "similarity_threshold": 0.05,
        "top_k": 3,
    }
    values.update(overrides)
    return load_settings(**values)


def filled_index(embedder: HashEmbedder | None = None) -> tuple[MemoryIndex, HashEmbedder]:
    embedder = embedder or HashEmbedder()
    index = MemoryIndex()
    index.create(CollectionInfo(name="test", embedder_name=embedder.name, dimension=embedder.dimension))
    chunks = corpus_chunks()
    index.upsert(chunks, embedder.embed_documents([c.search_text for c in chunks]))
    embedder.document_calls.clear()
    return index, embedder


def make_engine(
    writer: Any = None, settings: Settings | None = None
) -> tuple[Engine, MemoryIndex, HashEmbedder]:
    index, embedder = filled_index()
    settings = settings or answer_settings()
    retriever = Retriever(embedder, index, settings)
    return Engine(retriever, writer or ExtractiveWriter(embedder), settings), index, embedder


async def collect(stream: AsyncIterator[Event]) -> list[Event]:
    return [event async for event in stream]


def tokens_of(events: Sequence[Event]) -> str:
    return "".join(e.text for e in events if isinstance(e, Token))


def done_of(events: Sequence[Event]) -> Done:
    done = [e for e in events if isinstance(e, Done)]
    assert len(done) == 1, events
    return done[0]


def failed_of(events: Sequence[Event]) -> Failed:
    failed = [e for e in events if isinstance(e, Failed)]
    assert len(failed) == 1, events
    return failed[0]


def retrieved_of(events: Sequence[Event]) -> list[Retrieved]:
    return [e for e in events if isinstance(e, Retrieved)]


class ScriptedToolWriter:
    """A tool-calling writer: makes the scripted retrievals, then streams its canned text whatever it found
    (like a model that ignores a poor retrieval)."""

    def __init__(self, queries: Sequence[str], text: str, cited: Sequence[int] = (1,)) -> None:
        self.queries = list(queries)
        self.text = text
        self.cited = list(cited)
        self.calls = 0
        self.results: list[Any] = []
        self.errors: list[str] = []

    @property
    def name(self) -> str:
        return "scripted-llm"

    @property
    def retrieves_itself(self) -> bool:
        return True

    async def write(self, request: WriteRequest) -> AsyncIterator[WriterEvent]:
        self.calls += 1
        for query in self.queries:
            try:
                self.results.append(await request.retrieve(RetrieveCall(query=query)))
            except Exception as exc:  # a real writer reports it to the model and goes on
                self.errors.append(getattr(exc, "code", type(exc).__name__))
        for word in self.text.split(" "):
            yield Token(word + " ")
        yield Written(
            text=" ".join(self.text.split(" ")) + " ",
            cited=self.cited,
            usage=TokenUsage(prompt_tokens=10, completion_tokens=5),
            model="scripted-model",
        )


class CountingWriter(ExtractiveWriter):
    def __init__(self, embedder: HashEmbedder | None = None) -> None:
        super().__init__(embedder)
        self.calls = 0

    async def write(self, request: WriteRequest) -> AsyncIterator[WriterEvent]:
        self.calls += 1
        async for event in super().write(request):
            yield event


class ScriptedIndex(MemoryIndex):
    """Returns the given hits for every search and records what it was asked."""

    def __init__(
        self, hits: list[SearchHit], *, fail: bool = False, info: CollectionInfo | None = None
    ) -> None:
        super().__init__()
        self.hits = hits
        self.fail = fail
        self.asked: list[dict[str, Any]] = []
        self._info = info

    def search(
        self,
        *,
        vector: NDArray[np.float32] | None,
        text: str,
        mode: SearchModeName = "hybrid",
        top_k: int = 5,
        filters: SearchFilters | None = None,
    ) -> list[SearchHit]:
        self.searches += 1
        self.asked.append({"text": text, "mode": mode, "top_k": top_k, "filters": filters})
        if self.fail:
            raise RuntimeError("connection refused")
        return [h.model_copy() for h in self.hits[:top_k]]


def hit(
    text: str, similarity: float, score: float | None = None, rank: int = 1, path: str = "a.md"
) -> SearchHit:
    chunk = Chunk(
        text=text, content_hash=content_hash(text), chunk_index=0, token_count=3, source_path=path, title=path
    )
    return SearchHit(
        chunk=chunk,
        similarity=similarity,
        score=similarity if score is None else score,
        rank=rank,
        vector=None,
    )


def decide_by_query(decisions: Mapping[str, tuple[str, float]]) -> Any:
    """A stand-in for `Engine._decide`: a search whose query is listed is answered at its level and
    probability; any other is refused as not answerable."""

    async def decide(
        self: Engine,
        turn: Any,
        result: RetrievalResult,
        confidence: ConfidenceMetrics,
        found: Any = None,
    ) -> tuple[ConfidenceMetrics, str | None]:
        if result.query not in decisions:
            update = {"confidence_level": "insufficient", "should_answer": False, "answerability": 0.1}
            return confidence.model_copy(update=update), "not_answerable"
        level, probability = decisions[result.query]
        update = {"confidence_level": level, "should_answer": True, "answerability": probability}
        return confidence.model_copy(update=update), None

    return decide
