"""Hand-built `RetrievalResult`s and a scripted `retrieve` callback for writer tests."""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass, field

from lectern.models import Chunk, RetrievalResult, SearchHit, content_hash
from lectern.writers.base import RetrieveCall


def hit(
    text: str,
    *,
    similarity: float = 0.8,
    rank: int = 1,
    title: str = "Guide",
    section: str = "Intro",
    url: str = "https://docs.example.com/guide#intro",
    chunk_index: int = 0,
) -> SearchHit:
    chunk = Chunk(
        text=text,
        content_hash=content_hash(text),
        chunk_index=chunk_index,
        token_count=max(1, len(text.split())),
        heading_hierarchy=[title, section],
        title=title,
        section=section,
        url=url,
        source_path="guide.md",
    )
    return SearchHit(chunk=chunk, similarity=similarity, score=similarity, rank=rank)


def result(query: str, hits: Iterable[SearchHit], *, sufficient: bool | None = None) -> RetrievalResult:
    found = list(hits)
    average = sum(h.similarity for h in found) / len(found) if found else 0.0
    return RetrievalResult(
        query=query,
        hits=found,
        average_score=average,
        has_sufficient_context=bool(found) if sufficient is None else sufficient,
        total_candidates=len(found),
    )


@dataclass
class ScriptedRetrieve:
    """A `Retrieve` callback: answers from `by_query` (or `default`) and records every call."""

    by_query: dict[str, RetrievalResult] = field(default_factory=dict)
    default: Callable[[RetrieveCall], RetrievalResult] | None = None
    calls: list[RetrieveCall] = field(default_factory=list)

    async def __call__(self, call: RetrieveCall) -> RetrievalResult:
        self.calls.append(call)
        if call.query in self.by_query:
            return self.by_query[call.query]
        if self.default is not None:
            return self.default(call)
        return result(call.query, [], sufficient=False)
