"""The answer's text: best source first, the author's order within a source, prose run together,
list items and code kept apart, each source cited by its last unit; the fallback quote.
"""

from __future__ import annotations

import re

from lectern.models import SearchHit
from lectern.writers.extractive.candidates import _Candidate
from lectern.writers.extractive.headings import _heading_line, _heading_of, _names

_STATED_LEAD_IN = re.compile(r"(?:^|[.!?]\s)[^.!?]*?\w+\s+\w+\s+\w+[^.!?]*:$")


def _closed(text: str) -> str:
    """A lead-in quoted without what it leads into ("Solution: spawn above ground level:", its code
    left out) ends as the statement it is, not with a colon pointing at nothing; a bare label
    ("Solution:") keeps its colon."""
    # Only a text ending in a colon (`$`: or a colon and a final line break) can match: the others,
    # most units, skip the search: its lazy scan from each sentence start was ~8 % of an answer's
    # instructions with the query cached (bench/callgrind_answers.py).
    return f"{text[:-1]}." if text.endswith((":", ":\n")) and _STATED_LEAD_IN.search(text) else text


def _cite(sentence: str, number: int) -> str:
    if sentence and sentence[-1] in ".!?:;":
        return f"{sentence[:-1]} [{number}]{sentence[-1]}"
    return f"{sentence} [{number}]"


def _render(chosen: list[_Candidate]) -> tuple[str, list[int]]:
    """Best source first, the author's order within a source; prose sentences run together, list items
    stay list items, code blocks stand alone. Each source's last sentence or item carries its `[n]`.
    A quoted run of units is headed by its section's heading when its own words do not name it
    ("Simbody:" over "Pros: highly accurate")."""
    rank: dict[int, float] = {}
    for c in chosen:
        rank[c.source] = max(rank.get(c.source, -1e9), c.score)
    blocks: list[tuple[str, list[str]]] = []  # ("prose" | "list" | "code" | "heading", pieces)

    def add(kind: str, text: str) -> tuple[int, int]:
        """Add a piece; where it went (block, piece)."""
        if blocks and blocks[-1][0] == kind and kind not in ("code", "heading"):
            blocks[-1][1].append(text)
        else:
            blocks.append((kind, [text]))
        return len(blocks) - 1, len(blocks[-1][1]) - 1

    for source in sorted(rank, key=lambda s: -rank[s]):
        group = sorted((c for c in chosen if c.source == source), key=lambda c: c.unit.position)
        units = [c.unit for c in group]
        cited = max((i for i, u in enumerate(units) if u.kind == "sentence"), default=-1)
        headings = [_heading_of(c) for c in group]
        shown = ""
        label: tuple[int, int] | None = None  # the last heading or code lead-in shown for this source
        for i, unit in enumerate(units):
            heading = headings[i]
            if heading and heading != shown:
                shown = heading
                under = [u for u, h in zip(units, headings, strict=True) if h == heading]
                # Code alone names nothing a reader sees: its heading says what it is (and is cited).
                if cited < 0 or not _names(under, heading):
                    label = add("heading", heading)
            if unit.kind == "code":
                if unit.intro:  # "Solution:" says what the code is for
                    label = add("prose", unit.intro)
                add("code", unit.text)
                continue
            if unit.intro:  # "Solutions:" says what the list is
                add("prose", unit.intro)
            following = units[i + 1].position if i + 1 < len(units) else None
            continued = bool(unit.items) or following == unit.position + 1
            body = unit.text if continued else _closed(unit.text)
            text = _cite(body, source) if i == cited else body
            add("list" if unit.bullet else "prose", text)
            for item in unit.items:  # short items quoted with the unit above them
                add("list", item)
        if cited < 0 and label is not None:
            # Only code quoted: the line over it carries the source's number, so the source is cited.
            b, p = label
            blocks[b][1][p] = _cite(blocks[b][1][p], source)
    # A heading is a paragraph of its own: the plain text and the rendered Markdown then read the same
    # (a single line break would join it to the next sentence in a browser).
    rendered = [
        " ".join(pieces)
        if kind == "prose"
        else "\n".join(f"- {p}" for p in pieces)
        if kind == "list"
        else _heading_line(pieces[0])
        if kind == "heading"
        else pieces[0]
        for kind, pieces in blocks
    ]
    return "\n\n".join(rendered), sorted(rank)


def _fallback(hit: SearchHit, number: int) -> tuple[str, list[int]]:
    """No sentence-like unit at all (a chunk of headings or a table): quote the chunk's opening words."""
    words = hit.chunk.text.split()
    text = " ".join(words[:60]) + ("…" if len(words) > 60 else "")
    return f"{text} [{number}]", [number]
