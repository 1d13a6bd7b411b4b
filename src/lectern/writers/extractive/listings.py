"""A quoted block cut where a listing is split over chunks gets the next chunk's lines that close
the value it opened.
"""

from __future__ import annotations

import dataclasses
import re

from lectern.writers.extractive.candidates import _Candidate
from lectern.writers.extractive.code_lines import _code_line_terms

CONTINUED_LINES = 12  # lines of a split listing's next chunk quoted to close what its last line opened
# A line that opens a value ("pauses = {", "camera = Camera(", "gains: ["), not a block of statements
# ("if (ready) {", "void Start() {", a bare "{").
_OPENS_VALUE = re.compile(
    r"^(?!(?:if|else|elif|for|foreach|while|switch|try|catch|do|def|class|function|with)\b).*[\w=:,]\s*[\[({]$"
)


def _opened(line: str) -> int:
    """How many brackets the code line leaves open (negative: it closes more than it opens)."""
    return sum(line.count(b) for b in "([{") - sum(line.count(b) for b in ")]}")


def _with_listing_continued(chosen: list[_Candidate], codes: list[_Candidate]) -> list[_Candidate]:
    """A quoted code block that ends its chunk on an open bracket ("pauses = {") was cut where a long
    listing is split over chunks: the values it opens are in the next chunk of the listing. When that
    chunk was retrieved too, its opening lines up to where the bracket closes come after the block."""
    out = list(chosen)
    for c in chosen:
        if c.unit.kind != "code":
            continue
        lines = c.unit.text.split("\n")[1:-1]  # inside the fence
        body = [line for line in lines if line.strip()]
        if not body or _opened(body[-1]) <= 0 or not _OPENS_VALUE.match(body[-1].strip()):
            continue
        chunk = c.hit.chunk
        if any(k.source == c.source and k.unit.position > c.unit.position for k in codes):
            continue  # the block does not end its chunk
        nxt = [
            k
            for k in codes
            if k.unit.position == 0
            and k.hit.chunk.source_path == chunk.source_path
            and k.hit.chunk.chunk_index == chunk.chunk_index + 1
            and all(o.source != k.source or o.unit.kind != "code" for o in out)
        ]
        if not nxt:
            continue
        k = nxt[0]
        fence, *rest = k.unit.text.split("\n")
        depth, taken = _opened(body[-1]), []
        for line in rest[:-1][:CONTINUED_LINES]:
            taken.append(line)
            depth += _opened(line)
            if depth <= 0:
                break
        if depth > 0 or not taken:
            continue
        excerpt = "\n".join([fence, *taken, rest[-1]])
        unit = dataclasses.replace(
            k.unit, text=excerpt, terms=_code_line_terms(excerpt), words=len(excerpt.split())
        )
        out.append(dataclasses.replace(k, unit=unit))
    return out
