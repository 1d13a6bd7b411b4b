"""Packing one section's text into pieces of at most ``budget`` tokens, with a small overlap.

The text is first cut into atoms that each fit the budget, cutting as coarsely as possible: blocks
(paragraphs, lists, code), then lines, then sentences, then words, then characters. Atoms are then
packed greedily. A fenced code block that fits is one atom, so it is never split; one that does not
fit is cut between lines and each part is re-fenced so it still reads as code.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass, replace

from lectern.embeddings.base import Tokenizer
from lectern.ingest.textsplit import (
    contains_fence,
    is_fenced,
    split_blocks,
    split_fenced,
    split_lines,
    split_sentences,
    split_words,
)


class TokenCounter:
    """Batches and memoises token counts for one document."""

    def __init__(self, tokenizer: Tokenizer) -> None:
        self._tokenizer = tokenizer
        self._cache: dict[str, int] = {}

    def many(self, texts: Sequence[str]) -> list[int]:
        missing = [t for t in dict.fromkeys(texts) if t not in self._cache]
        if missing:
            self._cache.update(zip(missing, self._tokenizer.count_tokens_many(missing), strict=True))
        return [self._cache[t] for t in texts]

    def one(self, text: str) -> int:
        return self.many([text])[0]

    def by_lines(self, texts: Sequence[str]) -> list[int]:
        """Counts as sums over lines: each distinct line is counted once however many blocks, pieces
        and code parts it ends up in. Exact for tokenizers that split on whitespace (WordPiece);
        close for BPE, and the chunker verifies the final pieces exactly either way."""
        split = [t.split("\n") for t in texts]
        counts = dict(zip(*self._distinct(line for lines in split for line in lines), strict=True))
        return [sum(counts[line] for line in lines) for lines in split]

    def _distinct(self, texts: Iterable[str]) -> tuple[list[str], list[int]]:
        unique = list(dict.fromkeys(texts))
        return unique, self.many(unique)


@dataclass(frozen=True)
class Atom:
    text: str
    tokens: int
    joiner: str  # what stood between this atom and the previous one in the section text
    code: bool = False


# Levels of cutting, coarsest first.
_BLOCK, _LINE, _SENTENCE, _WORD, _CHAR = range(5)


def atomise(text: str, budget: int, counter: TokenCounter) -> list[Atom]:
    return _fit(split_blocks(text), "\n\n", _BLOCK, budget, counter)


def _fit(units: list[str], joiner: str, level: int, budget: int, counter: TokenCounter) -> list[Atom]:
    atoms: list[Atom] = []
    counts = counter.by_lines(units) if level <= _LINE else counter.many(units)
    for k, (unit, tokens) in enumerate(zip(units, counts, strict=True)):
        glue = joiner if k else ""
        if tokens <= budget or (level == _CHAR and len(unit) == 1):
            atoms.append(Atom(unit, tokens, glue, contains_fence(unit)))
            continue
        parts = _cut(unit, level, budget, counter)
        if parts:
            atoms.append(replace(parts[0], joiner=glue))
            atoms.extend(parts[1:])
    return atoms


def _cut(unit: str, level: int, budget: int, counter: TokenCounter) -> list[Atom]:
    """Split an atom that is over budget at the next finer level."""
    if level == _BLOCK:
        lines = split_lines(unit)
        if len(lines) > 1:
            return _fit(lines, "\n", _LINE, budget, counter)
        level = _LINE
    if level == _LINE:
        if is_fenced(unit):
            return _cut_code(unit, budget, counter)
        sentences = split_sentences(unit)
        if len(sentences) > 1:
            return _fit(sentences, " ", _SENTENCE, budget, counter)
        level = _SENTENCE
    if level == _SENTENCE:
        words = split_words(unit)
        if len(words) > 1:
            return _fit(words, " ", _WORD, budget, counter)
    # A single word longer than the budget (a hash, a minified line): halve it until it fits.
    middle = len(unit) // 2
    return _fit([unit[:middle], unit[middle:]], "", _CHAR, budget, counter)


def _cut_code(block: str, budget: int, counter: TokenCounter) -> list[Atom]:
    """Cut a long code block between lines; each part carries the opening and closing fence."""
    opening, body, closing = split_fenced(block)
    open_tokens, close_tokens, *body_tokens = counter.by_lines([opening, closing, *body])
    overhead = open_tokens + close_tokens
    room = budget - overhead
    if room <= 0 or not body:
        return _fit(body or [opening], "\n", _LINE + 1, budget, counter)
    atoms: list[Atom] = []
    group: list[str] = []
    used = 0

    def close_group() -> None:
        text = "\n".join([opening, *group, *([closing] if closing else [])])
        atoms.append(Atom(text, used + overhead, "\n" if atoms else "", code=True))

    for line, tokens in zip(body, body_tokens, strict=True):
        if tokens > room:
            # One line longer than a chunk: emit what we have, then the line cut into words.
            if group:
                close_group()
                group, used = [], 0
            for part in _fit([line], "\n", _SENTENCE, budget, counter):
                atoms.append(replace(part, joiner="\n", code=True))
            continue
        if used + tokens > room and group:
            close_group()
            group, used = [], 0
        group.append(line)
        used += tokens
    if group:
        close_group()
    return atoms


def _join(atoms: Sequence[Atom], head: str = "") -> str:
    parts = [head] if head else []
    for atom in atoms:
        if parts:
            parts.append(atom.joiner)
        parts.append(atom.text)
    return "".join(parts).strip()


def _overlap(atoms: Sequence[Atom], limit: int, counter: TokenCounter) -> tuple[str, int]:
    """The tail of a chunk to repeat at the start of the next: whole trailing atoms when they are
    small, else the last sentences (or words) of the last atom. Code is never cut for overlap."""
    if limit <= 0 or not atoms:
        return "", 0
    taken: list[Atom] = []
    total = 0
    # Never repeat the whole chunk: keep at least its first atom out of the overlap.
    for atom in reversed(atoms[1:]):
        if total + atom.tokens > limit:
            break
        taken.insert(0, atom)
        total += atom.tokens
    if taken:
        return _join(taken), total
    last = atoms[-1]
    if last.code:
        return "", 0
    for units, joiner in _tail_units(last.text):
        chosen: list[str] = []
        total = 0
        # Leave the first unit out so the overlap is always a strict tail.
        for unit, tokens in zip(reversed(units[1:]), reversed(counter.many(units[1:])), strict=True):
            if total + tokens > limit:
                break
            chosen.insert(0, unit)
            total += tokens
        if chosen:
            return joiner.join(chosen), total
    return "", 0


def _tail_units(text: str) -> list[tuple[list[str], str]]:
    """Ways to cut an atom's tail, coarsest first: lines, then sentences of its last line, then words."""
    lines = split_lines(text)
    last_line = lines[-1]
    options = [(lines, "\n"), (split_sentences(last_line), " "), (split_words(last_line), " ")]
    return [(units, joiner) for units, joiner in options if len(units) > 1]


def pack(atoms: Sequence[Atom], budget: int, overlap: int, counter: TokenCounter) -> list[str]:
    """Greedy packing: each piece holds as many whole atoms as fit, after the previous piece's tail."""
    overlap = min(overlap, budget // 2)
    pieces: list[str] = []
    head, head_tokens = "", 0
    i = 0
    while i < len(atoms):
        start = i
        used = head_tokens if head and head_tokens + atoms[i].tokens <= budget else 0
        lead = head if used else ""
        # Always take one atom, so a piece is never empty and the loop always advances.
        while i < len(atoms) and (i == start or used + atoms[i].tokens <= budget):
            used += atoms[i].tokens
            i += 1
        pieces.append(_join(atoms[start:i], lead))
        if i < len(atoms):
            head, head_tokens = _overlap(atoms[start:i], overlap, counter)
    return pieces
