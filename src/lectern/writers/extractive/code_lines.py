"""A code block's lines and their terms (identifiers split), and the line that says what was asked
(with its neighbours) when no sentence does.
"""

from __future__ import annotations

import dataclasses
import re
import textwrap
from functools import lru_cache

from lectern.writers.extractive.candidates import _Candidate
from lectern.writers.extractive.code_quoting import _cited_with
from lectern.writers.extractive.query import _IGNORED
from lectern.writers.units import stem_terms

CODE_LINE_SHARE = 0.4  # a code line quoted for itself holds at least this share of the question's words
CODE_LINE_TERMS = 2  # ... and at least this many of them
# For "how much / at what force" a line that sets a number is the answer's shape: it needs less of the
# question's words.
QUANTITY_LINE_SHARE = 0.3
_VALUE = re.compile(r"[=:]\s*\(?-?\d")
_IDENTIFIER_PARTS = re.compile(r"[\W_]+|(?<=[a-z])(?=[A-Z])")


def _code_line_terms(line: str) -> frozenset[str]:
    """A code line's terms with its identifiers split ("intimate_zone", "maxVelocity")."""
    return stem_terms(line) | stem_terms(" ".join(_IDENTIFIER_PARTS.split(line)))


@lru_cache(maxsize=4096)
def _code_block_terms(block: str) -> frozenset[str]:
    """`_code_line_terms` of a whole block."""
    return frozenset().union(*(terms for _, terms in _code_lines(block)))


@lru_cache(maxsize=4096)
def _code_lines(block: str) -> tuple[tuple[str, frozenset[str]], ...]:
    """Each line of a fenced block with its terms (cached: the same blocks come back across answers,
    and only the chosen block is split again to quote it)."""
    return tuple((line, _code_line_terms(line)) for line in block.split("\n"))


MIN_ABBREVIATION = 3  # shorter initials ("hd", "tf") match too much by chance
MAX_ABBREVIATED_WORDS = 4


def _abbreviations(query: str) -> dict[str, frozenset[str]]:
    """The initials of each run of the query's words that starts and ends with a content word, with the
    run's terms: code names a thing by its initials ("horizontal_fov" for "field of view")."""
    tokens = re.findall(r"[A-Za-z0-9]+", query)
    out: dict[str, frozenset[str]] = {}
    for start in range(len(tokens)):
        for end in range(start + 1, min(len(tokens), start + MAX_ABBREVIATED_WORDS)):
            run = tokens[start : end + 1]
            if any(stem_terms(run[k]) <= _IGNORED for k in (0, -1)):
                continue
            initials = "".join(w[0] for w in run).lower()
            if len(initials) >= MIN_ABBREVIATION:
                out[initials] = stem_terms(" ".join(run)) - _IGNORED
    return out


def _spelled_out(terms: frozenset[str], short: dict[str, frozenset[str]]) -> frozenset[str]:
    """The query terms that a line's abbreviations stand for."""
    return frozenset().union(*(short[t] for t in terms if t in short))


def _with_code_lines(
    chosen: list[_Candidate],
    codes: list[_Candidate],
    candidates: list[_Candidate],
    query: str,
    query_terms: frozenset[str],
    *,
    quantity: bool = False,
) -> list[_Candidate]:
    """The line of a code block that says what was asked ("self.intimate_zone = (0.0, 0.45)  # 0-1.5
    feet"), with the lines around it, when no sentence says it and the answer quotes no code: a value
    that lives only in a configuration or an example is still the documents' answer."""
    if not query_terms or not codes or any(c.unit.kind == "code" for c in chosen):
        return chosen
    quoted = {c.source for c in chosen}
    short = _abbreviations(query)
    best: tuple[float, _Candidate, int] | None = None
    for code in codes:
        for i, (line, terms) in enumerate(_code_lines(code.unit.text)[1:-1], start=1):
            found = (terms | _spelled_out(terms, short)) & query_terms
            share = len(found) / len(query_terms)
            enough = share >= CODE_LINE_SHARE or (
                quantity and share >= QUANTITY_LINE_SHARE and _VALUE.search(line) is not None
            )
            if len(found) < CODE_LINE_TERMS or not enough:
                continue
            score = share + 0.2 * code.rank_prior + (0.2 if code.source in quoted else 0.0)
            if best is None or score > best[0]:
                best = (score, code, i)
    if best is None:
        return chosen
    _, code, i = best
    # The line and its neighbours still inside the block, in the block's fence
    lines = code.unit.text.split("\n")
    end = min(len(lines) - 1, i + 2)
    # A line that heads a list written in comments ("# Recommended effects:" / "# - Bloom: ...") brings
    # the whole list: its items are what it names.
    while end < len(lines) - 1 and end - i <= COMMENT_LIST_LINES and _COMMENT_ITEM.match(lines[end]):
        end += 1
    body = [line for line in lines[max(1, i - 1) : end] if line.strip()]
    excerpt = "\n".join([lines[0], textwrap.dedent("\n".join(body)), lines[-1]])
    unit = dataclasses.replace(
        code.unit, text=excerpt, terms=_code_line_terms(excerpt), words=len(excerpt.split())
    )
    excerpted = dataclasses.replace(code, unit=unit)
    return [*chosen, excerpted, *_cited_with(excerpted, chosen, candidates)]


COMMENT_LIST_LINES = 8  # items of a list written in comments quoted after the line that heads it
_COMMENT_ITEM = re.compile(r"^\s*(?:#|//|--|;|%)\s*(?:[-*•]|\d+[.)])\s+\S")
