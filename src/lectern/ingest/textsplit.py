"""Cutting text at natural boundaries: blocks, lines, sentences, words. Fenced code stays in one unit."""

from __future__ import annotations

import re

_FENCE_OPEN = re.compile(r"^[ \t]*(`{3,}|~{3,})")
_SENTENCE_END = re.compile(r"(?<=[.!?;:])\s+(?=\S)")


def _fence_close(line: str, fence: str) -> bool:
    stripped = line.strip()
    return len(stripped) >= len(fence) and set(stripped) == {fence[0]}


def split_units(text: str) -> list[list[str]]:
    """Lines grouped so that a fenced code block (open line to close line) is one group."""
    units: list[list[str]] = []
    lines = text.split("\n")
    i = 0
    while i < len(lines):
        match = _FENCE_OPEN.match(lines[i])
        if match is None:
            units.append([lines[i]])
            i += 1
            continue
        fence = match.group(1)
        j = i + 1
        while j < len(lines) and not _fence_close(lines[j], fence):
            j += 1
        units.append(lines[i : j + 1])
        i = j + 1
    return units


def split_blocks(text: str) -> list[str]:
    """Paragraph-level blocks: separated by blank lines, except blank lines inside fenced code."""
    blocks: list[str] = []
    current: list[str] = []
    for unit in split_units(text):
        if len(unit) == 1 and not unit[0].strip():
            if current:
                blocks.append("\n".join(current))
                current = []
            continue
        current.extend(unit)
    if current:
        blocks.append("\n".join(current))
    return blocks


def split_lines(block: str) -> list[str]:
    """Lines of a block, each fenced code block kept as one 'line'."""
    return ["\n".join(unit) for unit in split_units(block)]


def is_fenced(text: str) -> bool:
    """True when ``text`` starts with a code fence (so it is, or opens, a code block)."""
    return _FENCE_OPEN.match(text) is not None


def contains_fence(text: str) -> bool:
    return any(_FENCE_OPEN.match(line) for line in text.split("\n"))


def split_sentences(text: str) -> list[str]:
    return [s for s in _SENTENCE_END.split(text) if s]


def split_words(text: str) -> list[str]:
    return text.split()


def split_fenced(block: str) -> tuple[str, list[str], str]:
    """(opening fence line, code lines, closing fence line or '' when unclosed)."""
    lines = block.split("\n")
    opening, body = lines[0], lines[1:]
    match = _FENCE_OPEN.match(opening)
    if body and match is not None and _fence_close(body[-1], match.group(1)):
        return opening, body[:-1], body[-1]
    return opening, body, ""
