"""An offline engine over folders ingested for real (local model, embedded index): the integration
tests' common setup."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

from lectern.embeddings import create_embedder
from lectern.engine import Engine
from lectern.index import open_index
from lectern.ingest.manifest import Manifest
from lectern.ingest.pipeline import IngestPipeline
from lectern.models import Chunk, content_hash
from lectern.retrieval import Retriever
from lectern.sentences import SentenceVectors
from lectern.settings import Settings
from lectern.writers import create_writer


def ingested_engine(settings: Settings, folders: Sequence[Path], *, sentences: bool = False) -> Engine:
    """Ingest `folders` into `settings`' collection (with the sentence vectors stored, as `lectern
    ingest` does, when `sentences`) and return an engine on it."""
    embedder = create_embedder(settings)
    index = open_index(settings, settings.collection)
    IngestPipeline(
        collection=settings.collection,
        embedder=embedder,
        index=index,
        manifest=Manifest(settings.state_db_path),
        sentences=SentenceVectors.for_data_dir(embedder, settings.data_dir) if sentences else None,
    ).ingest_paths(list(folders))
    index.optimize()
    return Engine(Retriever(embedder, index, settings), create_writer(settings, embedder=embedder), settings)


def bare_chunk(text: str, path: str, index: int) -> Chunk:
    """A chunk of `text` with no title or headings, keyed by its content hash: the index tests' rows."""
    return Chunk(
        text=text,
        content_hash=content_hash(text),
        chunk_index=index,
        token_count=len(text.split()),
        title="",
        source_path=path,
    )
