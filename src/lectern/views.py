"""Display helpers shared by the faces: clipped snippets and the numbered-source view of a citation."""

from __future__ import annotations

from pydantic import BaseModel, Field

from lectern.models import Citation

SNIPPET_CHARS = 500  # seeds 000 and 003 show at most 500 characters of a chunk


def clip(text: str, limit: int = SNIPPET_CHARS) -> str:
    """At most `limit` characters, ending with '…' when cut."""
    return text if len(text) <= limit else text[: limit - 1].rstrip() + "…"


def unit_score(similarity: float) -> float:
    """A similarity as shown to clients: within [0, 1], four decimals."""
    return round(min(max(similarity, 0.0), 1.0), 4)


class CitedSource(BaseModel):
    """A numbered source of an answer: `[n]` in the answer refers to `number` n."""

    number: int = Field(ge=1)
    title: str
    section: str
    chapter: str
    url: str
    score: float = Field(ge=0.0, le=1.0, description="Cosine similarity of the cited chunk.")
    heading_path: list[str]
    source_path: str
    snippet: str = Field(description=f"The cited chunk's text, at most {SNIPPET_CHARS} characters.")

    @classmethod
    def of(cls, c: Citation) -> CitedSource:
        return cls(
            number=c.number,
            title=c.title,
            section=c.section,
            chapter=c.chapter,
            url=c.url,
            score=unit_score(c.similarity_score),
            heading_path=list(c.heading_hierarchy),
            source_path=c.source_path,
            snippet=clip(c.chunk_text),
        )
