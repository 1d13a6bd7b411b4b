"""Builds the configured providers once per process, for every face (CLI, HTTP, MCP)."""

from __future__ import annotations

from dataclasses import dataclass, field
from functools import cached_property

from lectern.embeddings import create_embedder
from lectern.embeddings.base import Embedder
from lectern.embeddings.cache import with_query_cache
from lectern.errors import EmbedderMismatch
from lectern.index import open_index
from lectern.index.base import VectorIndex
from lectern.ingest.manifest import Manifest
from lectern.settings import Settings


@dataclass
class Runtime:
    settings: Settings
    collection: str = field(default="")

    def __post_init__(self) -> None:
        self.collection = self.collection or self.settings.collection

    @cached_property
    def embedder(self) -> Embedder:
        # Queries only: ingestion's documents pass straight through.
        return with_query_cache(create_embedder(self.settings), self.settings.query_cache_size)

    @cached_property
    def index(self) -> VectorIndex:
        return open_index(self.settings, self.collection)

    @cached_property
    def manifest(self) -> Manifest:
        return Manifest(self.settings.state_db_path)

    def check_embedder(self) -> None:
        """Refuse to query a collection with an embedder other than the one that built it."""
        info = self.index.info()
        if info is None:
            return
        embedder = self.embedder
        if info.embedder_name != embedder.name or info.dimension != embedder.dimension:
            raise EmbedderMismatch(
                f"Collection '{self.collection}' was built with {info.embedder_name} "
                f"({info.dimension} dims) but the configured embedder is {embedder.name} "
                f"({embedder.dimension} dims). Set LECTERN_EMBEDDER to match, or re-ingest into "
                "another collection."
            )
