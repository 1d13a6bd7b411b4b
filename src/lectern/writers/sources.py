"""How the sources of one turn are numbered, and how `[n]` markers in an answer are read back.

The contract between a tool-calling writer and the engine:

- The sources of a turn are the **union of the hits of every retrieval made this turn, in retrieval
  order** (the first retrieval's hits in their rank order, then the second's, ...), **deduplicated by
  `chunk.content_hash`**: a hit already seen keeps the number it got first.
- Source `n` (1-based) is the n-th hit of that union. The model sees these numbers (the `source` key
  of each tool result) and cites them as `[n]`.
- `Written.cited` lists the numbers the final text cites (ascending, each once, only those that name
  a source). The engine, which saw every retrieval as a `Retrieved` event in the same order, builds
  the same union with `union_hits` and maps `n` to `Citation.from_hit(n, union[n - 1])`.
- Text the user selected (`WriteRequest.user_context`) is not numbered by the writer (the model is
  told it needs no marker); the engine cites it itself, after the union (number `len(union) + 1`).

Retrievals that failed contribute nothing; a retrieval the engine made before writing (a
`WriteRequest.retrieval`) is the first of the turn.
"""

from __future__ import annotations

import re
from collections.abc import Iterable

from lectern.models import RetrievalResult, SearchHit

# [3], [1, 2], [1][2], [1-3] (a range), [Source 2], [source: 2]
_MARKER = re.compile(r"\[(?:sources?\s*:?\s*)?(\d+(?:\s*[-–,;]\s*\d+)*)\]", re.IGNORECASE)
_MAX_RANGE = 50


class SourceBook:
    """The numbered sources of one turn, grown retrieval by retrieval."""

    def __init__(self) -> None:
        self.hits: list[SearchHit] = []
        self._numbers: dict[str, int] = {}

    def __len__(self) -> int:
        return len(self.hits)

    def add(self, result: RetrievalResult) -> list[int]:
        """Number the result's hits (new ones get the next numbers) and return each hit's number."""
        return self.add_hits(result.hits)

    def add_hits(self, hits: Iterable[SearchHit]) -> list[int]:
        numbers = []
        for hit in hits:
            key = hit.chunk.content_hash
            number = self._numbers.get(key)
            if number is None:
                self.hits.append(hit)
                number = self._numbers[key] = len(self.hits)
            numbers.append(number)
        return numbers

    def cited(self, text: str) -> list[int]:
        return parse_citations(text, len(self.hits))


def union_hits(results: Iterable[RetrievalResult]) -> list[SearchHit]:
    """The turn's numbered sources: `union_hits(...)[n - 1]` is source `n`."""
    book = SourceBook()
    for result in results:
        book.add(result)
    return book.hits


def parse_citations(text: str, n_sources: int) -> list[int]:
    """The source numbers cited in `text` as `[n]` markers, ascending, each once, within 1..n_sources."""
    found: set[int] = set()
    for match in _MARKER.finditer(text):
        for part in re.split(r"\s*[,;]\s*", match.group(1)):
            bounds = re.split(r"\s*[-–]\s*", part)
            if len(bounds) == 2:
                low, high = int(bounds[0]), int(bounds[1])
                if low <= high <= low + _MAX_RANGE:
                    found.update(range(low, high + 1))
            elif len(bounds) == 1:
                found.add(int(bounds[0]))
    return sorted(n for n in found if 1 <= n <= n_sources)
