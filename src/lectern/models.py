"""The core models. Every seed entity is a view of these, built in the face that needs it."""

from __future__ import annotations

import hashlib
import re
import uuid
from functools import lru_cache
from typing import TYPE_CHECKING, Any, Literal, TypeAlias

from pydantic import BaseModel, ConfigDict, Field, PrivateAttr

if TYPE_CHECKING:
    import numpy as np
    from numpy.typing import NDArray

    Vector: TypeAlias = NDArray[np.float32] | list[float]
else:
    Vector = Any  # taken as given, never validated: no numpy import here, no per-float check

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


@lru_cache(maxsize=4096)
def chunk_point_id(chunk_hash: str) -> str:
    """A UUID derived from the content hash (Qdrant point ids must be UUIDs or integers). Cached: each
    citation of a passage asks it again (a uuid5 is a SHA-1 and a UUID object, ~4 us)."""
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
    token_count: int = Field(
        ge=0, description="Tokens of `search_text`, counted by the embedder's tokenizer."
    )
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
        """What is embedded and keyword-indexed: the heading path, then the text. Made once per chunk
        object (an answer asks it of each passage ~2-3 times, and the passages' cached terms are looked
        up by it: the same string object keeps its hash, a new one is hashed afresh, ~1 us a kB), and
        again whenever the text, title or headings are no longer those it was made from (a copy with
        other ones, a list changed in place). Kept beside the fields in `__dict__`, where pydantic's
        equality, copies and serialisation look only at the fields."""
        held = self.__dict__.get(_SEARCH_TEXT)
        if (
            held is not None
            and held[0] is self.text
            and held[1] is self.title
            and held[2] == self.heading_hierarchy
        ):
            made: str = held[3]
            return made
        made = heading_prefix(self.heading_hierarchy, self.title) + self.text
        self.__dict__[_SEARCH_TEXT] = (self.text, self.title, list(self.heading_hierarchy), made)
        return made


_SEARCH_TEXT = "_search_text"  # not a field: no pydantic name starts with an underscore


def heading_prefix(heading_hierarchy: list[str], title: str = "") -> str:
    """`H1 > H2 > H3` plus a blank line, or nothing when there is no heading.

    Loaders start the hierarchy with the page's H1 (or its title when it has none), so the title is
    only used for a chunk without headings; repeating it would spend tokens of the model's window.
    """
    parts = list(heading_hierarchy) or ([title] if title else [])
    return (" > ".join(parts) + "\n\n") if parts else ""


SearchModeName = Literal["hybrid", "dense", "keyword"]


class SearchHit(BaseModel):
    """One chunk from an index search, with every score the callers need."""

    chunk: Chunk
    similarity: float = Field(description="Dense cosine similarity with the query, clipped to [0, 1].")
    keyword_score: float | None = Field(None, description="BM25 score, when the keyword side found it.")
    score: float = Field(description="The ranking score of the mode used (RRF for hybrid).")
    rank: int = Field(ge=1)
    # The chunk's stored vector when the engine returns it (confidence diversity needs it); kept out of
    # every serialisation so wire payloads stay small. A float32 array from LanceDB: as Python floats
    # (and validated one by one) the vectors of a search cost ~0.2 ms of CPU more per answer.
    vector: Vector | None = Field(None, exclude=True, repr=False)

    def __eq__(self, other: object) -> bool:
        # an array's `==` is elementwise: compare the vectors value by value, the rest as pydantic does
        if not isinstance(other, SearchHit):
            return NotImplemented
        mine, theirs = dict(self.__dict__), dict(other.__dict__)
        return _same_vector(mine.pop("vector"), theirs.pop("vector")) and mine == theirs


def _same_vector(a: Vector | None, b: Vector | None) -> bool:
    if a is None or b is None:
        return a is b
    return len(a) == len(b) and all(float(x) == float(y) for x, y in zip(a, b, strict=True))


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


# --- answering ----------------------------------------------------------------------------------

ConfidenceLevel = Literal["high", "medium", "low", "insufficient"]


class ChunkMetadata(BaseModel):
    """Seed 000's per-chunk metadata in a RetrievalResult."""

    chapter: str
    section: str
    url: str
    chunk_index: int
    content_hash: str


class RetrievalTimings(BaseModel):
    """Seed 002's stage timings, in milliseconds."""

    embedding_ms: float = 0.0
    search_ms: float = 0.0
    ranking_ms: float = 0.0
    cached: bool = False


class RetrievalResult(BaseModel):
    """Seed 000 RetrievalResult: the chunks that passed the threshold, best first, deduplicated."""

    query: str
    hits: list[SearchHit] = Field(default_factory=list)
    average_score: float = Field(0.0, ge=0.0, le=1.0)
    has_sufficient_context: bool = False
    timings: RetrievalTimings = Field(default_factory=RetrievalTimings)
    total_candidates: int = Field(0, ge=0, description="Hits before threshold and dedup (seed 002 stats).")
    threshold: float = Field(0.0, ge=0.0, le=1.0)
    collection: str = ""
    top_k: int = Field(5, ge=1)
    mode: SearchModeName = "hybrid"
    # Seed 000's query_embedding; excluded from serialisation (a face that wants it reads the attribute).
    query_embedding: list[float] | None = Field(None, exclude=True, repr=False)
    # The hits ranked just below `hits` (past the threshold, from the same search): passages the extractive
    # writer may quote from when they hold what the top ones miss. Never part of the answerability
    # decision or the confidence, and a source only when an answer cites one (`writers.selection.
    # quotable_of`); excluded from serialisation like the query's vector.
    reserve: list[SearchHit] = Field(default_factory=list, exclude=True, repr=False)
    # `query_embedding` as a float32 array and the list it was made from (`query_vector`)
    _query_array: tuple[list[float], Any] | None = PrivateAttr(default=None)

    def query_vector(self) -> NDArray[np.float32] | None:
        """`query_embedding` as a read-only float32 vector, made once per list: the answerability
        decision and the writer both read it, and a 384-float list made an array cost ~20-60 us each
        time (the same floats: every float32 is exactly a Python float and back)."""
        embedding = self.query_embedding
        if embedding is None:
            return None
        held = self._query_array
        if held is not None and held[0] is embedding:  # a copy with another embedding makes its own
            vector: NDArray[np.float32] = held[1]
            return vector
        import numpy as np  # only where a vector is asked for (this module loads without numpy)

        vector = np.array(embedding, dtype=np.float32)
        vector.flags.writeable = False
        self._query_array = (embedding, vector)
        return vector

    def hold_query_vector(self, vector: NDArray[np.float32]) -> None:
        """Keep `vector`, the float32 values `query_embedding` was made from, for `query_vector`."""
        if self.query_embedding is not None:
            held = vector.reshape(-1).copy()
            held.flags.writeable = False
            self._query_array = (self.query_embedding, held)

    @property
    def chunks(self) -> list[str]:
        return [h.chunk.text for h in self.hits]

    @property
    def scores(self) -> list[float]:
        return [h.similarity for h in self.hits]

    @property
    def metadata(self) -> list[ChunkMetadata]:
        return [
            ChunkMetadata(
                chapter=h.chunk.chapter,
                section=h.chunk.section,
                url=h.chunk.url,
                chunk_index=h.chunk.chunk_index,
                content_hash=h.chunk.content_hash,
            )
            for h in self.hits
        ]


class ConfidenceMetrics(BaseModel):
    """Seed 000 ConfidenceMetrics, computed by `lectern.confidence`."""

    average_similarity: float = Field(ge=0.0, le=1.0)
    min_similarity: float = Field(ge=0.0, le=1.0)
    max_similarity: float = Field(ge=0.0, le=1.0)
    num_chunks: int = Field(ge=0)
    chunk_diversity: float = Field(ge=0.0, le=1.0)
    confidence_level: ConfidenceLevel
    should_answer: bool
    answerability: float | None = Field(
        None,
        ge=0.0,
        le=1.0,
        exclude=True,
        description="The answerability decision's probability that the passages answer the question.",
    )


class Citation(BaseModel):
    """A numbered source of an answer: `[n]` in the text refers to `number` n.

    Carries seed 000's Source fields and seed 001's citation fields, so every face can build its view.
    """

    number: int = Field(ge=1)
    chunk_id: str
    chunk_text: str
    similarity_score: float = Field(ge=0.0, le=1.0)
    title: str = ""
    chapter: str = ""
    section: str = ""
    url: str = ""
    chapter_id: str = ""
    module_name: str = ""
    heading_hierarchy: list[str] = Field(default_factory=list)
    token_count: int = 0
    chunk_index: int = 0
    content_hash: str = ""
    source_path: str = ""
    page: int | None = None

    @classmethod
    def from_hit(cls, number: int, hit: SearchHit) -> Citation:
        c = hit.chunk
        return cls(
            number=number,
            chunk_id=c.id,
            chunk_text=c.text,
            similarity_score=hit.similarity,
            title=c.title,
            chapter=c.chapter,
            section=c.section,
            url=c.url,
            chapter_id=c.chapter_id,
            module_name=c.module_name,
            heading_hierarchy=list(c.heading_hierarchy),
            token_count=c.token_count,
            chunk_index=c.chunk_index,
            content_hash=c.content_hash,
            source_path=c.source_path,
            page=c.page,
        )


class TokenUsage(BaseModel):
    prompt_tokens: int = 0
    completion_tokens: int = 0

    @property
    def total_tokens(self) -> int:
        return self.prompt_tokens + self.completion_tokens


class AnswerTimings(BaseModel):
    """Milliseconds per stage of one turn."""

    retrieval: RetrievalTimings = Field(default_factory=RetrievalTimings)
    generation_ms: float = 0.0
    total_ms: float = 0.0


RefusalReason = Literal[
    "no_passages",  # nothing retrieved above the similarity threshold (or an empty collection)
    "not_answerable",  # the answerability decision: the passages do not answer the question
    "off_topic",  # the question names something the documents never mention
    "selection_mismatch",  # selected-text-only: the selection is not about the question
    "model_refused",  # an LLM writer said the documents do not answer
    "unsupported",  # an LLM answer failed verification against its passages
]


VerificationVerdict = Literal["supported", "partial", "unsupported", "model_refused"]


class Verification(BaseModel):
    """How an LLM answer held up against the passages the model was given (`lectern.verification`)."""

    verdict: VerificationVerdict
    sentences: int = Field(0, ge=0, description="Sentences that state something (checked).")
    supported: int = Field(0, ge=0, description="Of those, supported by the passages they cite.")
    removed: int = Field(0, ge=0, description="Unsupported sentences dropped from the answer.")
    flagged: int = Field(0, ge=0, description="Unsupported sentences kept, marked as unverified.")
    uncited: int = Field(0, ge=0, description="Factual sentences with no citation.")
    invalid_citations: list[int] = Field(
        default_factory=list, description="Cited numbers that name no passage the model was given."
    )
    passages: int = Field(0, ge=0, description="Passages the model was given this turn.")
    ms: float = Field(0.0, ge=0.0, description="Time spent verifying.")


class Answer(BaseModel):
    """One answered (or refused) turn. Seeds 000-003's responses are views of this."""

    text: str
    citations: list[Citation] = Field(default_factory=list)
    confidence: ConfidenceMetrics
    grounded: bool = Field(description="Based on retrieved or user-given text (not a refusal).")
    retrieval_used: bool
    retrieval_count: int = Field(0, ge=0, description="Retrievals performed this turn.")
    search_query: str = Field("", description="The query actually searched, after follow-up rewriting.")
    model_used: str
    usage: TokenUsage = Field(default_factory=TokenUsage)
    timings: AnswerTimings = Field(default_factory=AnswerTimings)
    turn_number: int = Field(1, ge=1)
    timestamp: str = Field(description="ISO 8601 UTC with milliseconds and Z.")
    error: str | None = None
    warnings: list[str] = Field(default_factory=list)
    related: list[Citation] = Field(
        default_factory=list,
        description="On a refusal: up to three of the closest sections, as further reading (not sources).",
    )
    refusal_reason: RefusalReason | None = Field(
        None, description="Why the question was refused; None when it was answered."
    )
    verification: Verification | None = Field(
        None, description="An LLM answer's check against its passages; None for other writers."
    )

    @property
    def sources_cited(self) -> list[str]:
        return [c.url or c.source_path for c in self.citations]

    @property
    def grounding_confidence(self) -> float:
        return self.confidence.average_similarity if self.grounded else 0.0

    @property
    def execution_time_seconds(self) -> float:
        return self.timings.total_ms / 1000.0
