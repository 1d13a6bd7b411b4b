"""The core models. Every seed entity is a view of these, built in the face that needs it."""

from __future__ import annotations

import hashlib
import re
import uuid
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field

DocumentFormat = Literal["markdown", "mdx", "html", "text", "pdf"]

_WS = re.compile(r"\s+")


def normalise_text(text: str) -> str:
    """Whitespace-insensitive form of a text, used for content hashes."""
    return _WS.sub(" ", text).strip()


def content_hash(text: str) -> str:
    """sha256 of the normalised text: equal chunks get equal hashes wherever they come from."""
    return hashlib.sha256(normalise_text(text).encode("utf-8")).hexdigest()


# A fixed namespace so a content hash maps to the same point id in every engine and every run.
_CHUNK_NAMESPACE = uuid.UUID("6f1d3c52-9a40-4a8e-bf0e-3f4f7d2c8a11")


def chunk_point_id(chunk_hash: str) -> str:
    """A UUID derived from the content hash (Qdrant point ids must be UUIDs or integers)."""
    return str(uuid.uuid5(_CHUNK_NAMESPACE, chunk_hash))


class Section(BaseModel):
    """A run of text under one heading path, as a loader found it."""

    model_config = ConfigDict(frozen=True)

    heading_hierarchy: list[str] = Field(default_factory=list, description="Outermost heading first.")
    anchor: str = Field("", description="Anchor (slug) of the innermost heading, without '#'.")
    text: str
    page: int | None = Field(None, description="1-based page number for PDFs.")


class Document(BaseModel):
    """One source file, parsed into sections."""

    source_path: str = Field(description="POSIX path relative to the ingested root.")
    format: DocumentFormat
    title: str
    sections: list[Section]
    front_matter: dict[str, Any] = Field(default_factory=dict)
    doc_url_path: str = Field("", description="Site path of the page, e.g. /module-1/intro.")
    file_hash: str = Field("", description="sha256 of the file's bytes, for incremental ingest.")


class Chunk(BaseModel):
    """The unit of retrieval: a section or part of one, never spanning two documents."""

    text: str = Field(description="The chunk's own text, shown to users and cited.")
    content_hash: str
    chunk_index: int = Field(ge=0)
    token_count: int = Field(ge=0, description="Tokens of `search_text`, counted by the embedder's tokenizer.")
    heading_hierarchy: list[str] = Field(default_factory=list)
    title: str = ""
    chapter: str = ""
    section: str = ""
    module_name: str = ""
    chapter_id: str = ""
    url: str = ""
    source_path: str = ""
    page: int | None = None
    extra: dict[str, Any] = Field(default_factory=dict, description="Any other payload key.")

    @property
    def id(self) -> str:
        return chunk_point_id(self.content_hash)

    @property
    def search_text(self) -> str:
        """What is embedded and keyword-indexed: the heading path, then the text."""
        return heading_prefix(self.heading_hierarchy, self.title) + self.text


def heading_prefix(heading_hierarchy: list[str], title: str = "") -> str:
    """`Title > H2 > H3` plus a blank line, or nothing when there is no heading."""
    parts = list(heading_hierarchy)
    if title and (not parts or parts[0] != title):
        parts.insert(0, title)
    return (" > ".join(parts) + "\n\n") if parts else ""


SearchModeName = Literal["hybrid", "dense", "keyword"]


class SearchHit(BaseModel):
    """One chunk from an index search, with every score the callers need."""

    chunk: Chunk
    similarity: float = Field(description="Dense cosine similarity with the query, clipped to [0, 1].")
    keyword_score: float | None = Field(None, description="BM25 score, when the keyword side found it.")
    score: float = Field(description="The ranking score of the mode used (RRF for hybrid).")
    rank: int = Field(ge=1)


class CollectionInfo(BaseModel):
    """What a collection was built with; a query from another embedder is refused."""

    name: str
    embedder_name: str
    dimension: int = Field(gt=0)


class IndexStats(BaseModel):
    engine: str
    collection: str
    chunks: int
    documents: int
    embedder_name: str = ""
    dimension: int = 0
    has_ann_index: bool = False
    has_keyword_index: bool = False
    details: dict[str, Any] = Field(default_factory=dict)
