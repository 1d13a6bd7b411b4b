"""The MCP face's wire shapes: tool results (structured content, with an output schema) and resource bodies.

Views of the core models, built here like every face builds its own; `text` renders the readable block
that accompanies the structured content for clients that only show text.
"""

from __future__ import annotations

from typing import Any
from urllib.parse import quote

from pydantic import BaseModel, Field

from lectern import debug
from lectern.index.base import DocumentSummary
from lectern.models import (
    Answer,
    Chunk,
    ConfidenceLevel,
    ConfidenceMetrics,
    RetrievalResult,
    SearchHit,
    Verification,
)
from lectern.views import CitedSource, unit_score

DOCUMENTS_URI = "lectern://documents"
DOCUMENT_TEMPLATE = "lectern://documents/{+source_path}"


def document_uri(source_path: str) -> str:
    """The resource URI of one document: its path with slashes kept, anything else percent-encoded.

    The template is `{+source_path}` (RFC 6570 reserved expansion), so a client may also send the path
    fully encoded (`guide%2Finstall.md`); both name the same document.
    """
    return f"{DOCUMENTS_URI}/{quote(source_path, safe='/')}"


class RetrievedChunk(BaseModel):
    """One chunk of `search_docs`, best first."""

    rank: int = Field(ge=1)
    text: str = Field(description="The chunk's full text.")
    score: float = Field(ge=0.0, le=1.0, description="Cosine similarity between the query and the chunk.")
    title: str
    section: str
    chapter: str
    url: str
    heading_path: list[str] = Field(description="Headings from the page title down to the chunk.")
    source_path: str
    chunk_index: int
    resource_uri: str = Field(description="Read this resource for every chunk of the chunk's document.")

    @classmethod
    def of(cls, hit: SearchHit) -> RetrievedChunk:
        c = hit.chunk
        return cls(
            rank=hit.rank,
            text=c.text,
            score=unit_score(hit.similarity),
            title=c.title,
            section=c.section,
            chapter=c.chapter,
            url=c.url,
            heading_path=list(c.heading_hierarchy),
            source_path=c.source_path,
            chunk_index=c.chunk_index,
            resource_uri=document_uri(c.source_path),
        )


class SearchDocsResult(BaseModel):
    query: str
    results: list[RetrievedChunk]
    total: int = Field(ge=0)
    average_score: float = Field(ge=0.0, le=1.0)
    has_sufficient_context: bool = Field(description="Whether these chunks are enough to answer from.")
    confidence_level: ConfidenceLevel
    execution_time_ms: float

    @classmethod
    def of(
        cls, result: RetrievalResult, confidence: ConfidenceMetrics, elapsed_ms: float
    ) -> SearchDocsResult:
        return cls(
            query=result.query,
            results=[RetrievedChunk.of(h) for h in result.hits],
            total=len(result.hits),
            average_score=round(result.average_score, 4),
            has_sufficient_context=result.has_sufficient_context,
            confidence_level=confidence.confidence_level,
            execution_time_ms=round(elapsed_ms, 1),
        )

    def text(self) -> str:
        if not self.results:
            return f"No chunks matched {self.query!r}."
        lines = [f"{self.total} chunks for {self.query!r} (confidence {self.confidence_level}):"]
        for r in self.results:
            where = " > ".join(r.heading_path) or r.title or r.source_path
            lines.append(f"\n[{r.rank}] {where} (score {r.score:.3f})\n{r.url or r.source_path}\n{r.text}")
        return "\n".join(lines)


class AnswerSource(CitedSource):
    """A numbered source of an answer: `[n]` in the answer refers to `number` n."""


class AskResult(BaseModel):
    answer: str = Field(description="The answer, with [n] markers that refer to sources.")
    session_id: str = Field(description="Pass it back to ask a follow-up in the same conversation.")
    sources: list[AnswerSource]
    confidence: float = Field(ge=0.0, le=1.0, description="Average similarity of what was retrieved.")
    confidence_level: ConfidenceLevel
    should_answer: bool = Field(description="False when the documents do not cover the question.")
    grounded: bool
    turn_number: int = Field(ge=1)
    search_query: str = Field(description="What was searched (follow-ups are made standalone).")
    timestamp: str
    refusal_reason: str | None = Field(None, description="Why the question was refused; null when answered.")
    related: list[AnswerSource] = Field(
        default_factory=list, description="On a refusal: the closest sections, as further reading."
    )
    verification: Verification | None = Field(
        None, description="An LLM answer's check against the passages the model was given; null otherwise."
    )
    timings: dict[str, Any] = Field(
        default_factory=dict,
        description="Stage timings in ms (embedding, search, ranking, generation, total).",
    )
    warnings: list[str] = Field(
        default_factory=list, description="What limited the answer, e.g. a TOKEN_LIMIT trim of the history."
    )

    @classmethod
    def of(cls, answer: Answer, session_id: str) -> AskResult:
        return cls(
            answer=answer.text,
            session_id=session_id,
            sources=[AnswerSource.of(c) for c in answer.citations],
            confidence=round(min(max(answer.confidence.average_similarity, 0.0), 1.0), 4),
            confidence_level=answer.confidence.confidence_level,
            should_answer=answer.confidence.should_answer,
            grounded=answer.grounded,
            turn_number=answer.turn_number,
            search_query=answer.search_query,
            timestamp=answer.timestamp,
            refusal_reason=answer.refusal_reason,
            related=[AnswerSource.of(c) for c in answer.related],
            verification=answer.verification,
            timings=debug.timings(answer),
            warnings=list(answer.warnings),
        )

    def text(self) -> str:
        blocks = [self.answer]
        if self.sources:
            lines = ["Sources:"]
            for s in self.sources:
                where = " > ".join(s.heading_path) or s.title or s.source_path
                lines.append(f"[{s.number}] {where} {s.url or s.source_path} (score {s.score:.3f})")
            blocks.append("\n".join(lines))
        if self.related:
            lines = ["Related reading:"]
            for s in self.related:
                where = " > ".join(s.heading_path) or s.title or s.source_path
                lines.append(f"- {where} {s.url or s.source_path}")
            blocks.append("\n".join(lines))
        blocks.append(
            f"Confidence: {self.confidence_level} (should_answer: {str(self.should_answer).lower()}); "
            f"session_id: {self.session_id}"
        )
        return "\n\n".join(blocks)


class DocumentEntry(BaseModel):
    source_path: str
    title: str
    url: str
    chunks: int
    uri: str

    @classmethod
    def of(cls, d: DocumentSummary) -> DocumentEntry:
        return cls(
            source_path=d.source_path,
            title=d.title,
            url=d.url,
            chunks=d.chunks,
            uri=document_uri(d.source_path),
        )


class DocumentList(BaseModel):
    collection: str
    documents: list[DocumentEntry]


class DocumentChunk(BaseModel):
    chunk_index: int
    heading_path: list[str]
    section: str
    url: str
    page: int | None = None
    token_count: int
    text: str

    @classmethod
    def of(cls, c: Chunk) -> DocumentChunk:
        return cls(
            chunk_index=c.chunk_index,
            heading_path=list(c.heading_hierarchy),
            section=c.section,
            url=c.url,
            page=c.page,
            token_count=c.token_count,
            text=c.text,
        )


class DocumentChunks(BaseModel):
    source_path: str
    title: str
    chunks: list[DocumentChunk]
