"""A chunk's text as answer units: sentences, list items, and fenced code blocks kept whole.

Units keep their order in the chunk so an answer can quote them in the order the author wrote them.
Markdown decoration (bold, links, images, HTML, admonition fences, headings, table rules) is removed from
prose so a quoted sentence reads cleanly; the words themselves are the chunk's.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, replace
from functools import lru_cache
from typing import Literal, Protocol

from lectern.stemming import stemmer_for
from lectern.writers.diagrams import diagram_lines

UnitKind = Literal["sentence", "code"]

_FENCE = re.compile(r"^(\s*)(```+|~~~+)(.*)$")
_SENTENCE_END = re.compile(r"(?<=[.!?])[\"')\]]*\s+(?=[\"'(\[]?[A-Z0-9`*])")
_ABBREV = re.compile(r"\b(?:e\.g|i\.e|etc|vs|cf|approx|fig|Dr|Mr|Ms|No)\.$", re.IGNORECASE)
# What `_ABBREV` needs to see of a sentence's end: its longest abbreviation and full stop ("approx."),
# a final newline `$` lets through, and the character before (for `\b`). A search over the whole
# sentence tries every position of it, ~40 % of splitting a long passage into units.
_ABBREV_TAIL = 9
_LIST_MARK = re.compile(r"^\s*(?:[-*+•]|\d+[.)])\s+")
_LINK = re.compile(r"!?\[([^\]]*)\]\([^)]*\)")
_HTML = re.compile(r"</?[A-Za-z][^>]*>")
_EMPHASIS = re.compile(r"(\*\*|__)(.+?)\1")
_CAPTION = re.compile(r"^[*_]*(?:figure|fig\.|table|diagram)\s*\d", re.IGNORECASE)
_TERM = re.compile(r"[a-z0-9][a-z0-9_+#.-]*[a-z0-9+#]|[a-z0-9]")

MIN_WORDS = 3
MAX_WORDS = 90
MAX_ITEM_WORDS = 60
MAX_CODE_LINES = 40


@dataclass(frozen=True)
class Unit:
    text: str
    kind: UnitKind
    position: int
    """Order within the chunk."""
    terms: frozenset[str]
    """Stemmed lower-case terms, for keyword overlap."""
    words: int
    lead_in: bool = False
    """A sentence that introduces what follows ("Run the following:"); quoted only with its code."""
    bullet: bool = False
    """A list item (rendered as one, so items without full stops do not run together)."""
    section: str = ""
    """The heading above the unit inside the chunk ("Simbody" over "Pros: highly accurate"); empty
    when the chunk's own heading path is the nearest one."""
    intro: str = ""
    """For a code block or a list's first item: the lead-in right above it when that is too short to be
    a unit of its own ("Solution:", "Fix:"); it says what the code or the list is for."""
    items: tuple[str, ...] = ()
    """List items right after the unit that are too short to be units of their own ("- Control gains",
    "- Topic: `/scan`"): quoted with it, as list items. They are not units (no position, no vector), so
    the stored sentence vectors keep lining up."""


_stem = stemmer_for("english")


def stem_terms(text: str) -> frozenset[str]:
    if len(text) <= SHORT_TEXT:
        return _short_terms(text)
    if len(text) <= MEDIUM_TEXT:
        return _medium_terms(text)
    return _terms(text)


# A word or a few (a question's words, their runs, a heading) recurs within an answer and across
# answers: its terms are kept; a passage's are kept by `passage_terms` where they recur.
SHORT_TEXT = 64
# A heading path, a line of code, a question with its carried words: longer than a few words but not a
# passage, and asked again in every answer that reads the passage it comes from (the writer's headings and
# code lines, the answerability decision's top heading: ~6 an answer, ~70 % of them seen before on
# textbook-a's rotating questions, ~10 us each to stem; ~2 kB an entry).
MEDIUM_TEXT = 512
MEDIUM_KEPT = 2048
# Passages whose terms and units (and sentence vectors, `lectern.sentences`; built chunks,
# `lectern.index.lancedb_snapshot`) a server keeps. An answer reads a few dozen, most of them twice
# (answerability, then the writer), and each kept one costs ~20-30 kB of Python objects. 1024 holds the
# passages a 1k-chunk book's distinct questions come back to: with 512, 106 rotating questions over
# textbook-a rebuilt ~4 chunks and read ~8 passages from SQLite an answer, and the engine's CPU an answer
# was 7.15 / 6.90 ms against 5.91 / 6.25 ms with 1024 (bench/stage_cpu.py --server-heap, alternated).
# Across a 10k-chunk collection's answers passages seldom recur, so there it only costs memory: a
# server on SciFact's 10k chunks levels off at 356 MB after 2,000-3,000 answers (323 MB with 512; no
# change in its CPU an answer).
PASSAGES_KEPT = 1024


def _terms(text: str) -> frozenset[str]:
    return frozenset(map(_stem, _TERM.findall(text.lower())))


_short_terms = lru_cache(maxsize=16384)(_terms)
_medium_terms = lru_cache(maxsize=MEDIUM_KEPT)(_terms)


def with_parts(terms: frozenset[str]) -> frozenset[str]:
    """The terms and the parts of each hyphenated one ("spring-mass" also matches "spring")."""
    parts = {p for t in terms if "-" in t for p in t.split("-") if len(p) > 2 and p.isalpha()}
    return terms | frozenset(_stem(p) for p in parts) if parts else terms


class PassageData(Protocol):
    """Where passages' units and terms are kept between processes (`lectern.passage_store`)."""

    def units(self, text: str) -> tuple[Unit, ...] | None: ...
    def keep_units(self, text: str, found: tuple[Unit, ...]) -> None: ...
    def terms(self, text: str) -> frozenset[str] | None: ...
    def keep_terms(self, text: str, found: frozenset[str]) -> None: ...


_stored: PassageData | None = None


def use_store(store: PassageData | None) -> None:
    """Read passages' units and terms from `store`, and keep there the ones it lacks (None: work every
    passage out). The in-memory caches stay: a store gives the same values."""
    global _stored
    _stored = store


@lru_cache(maxsize=PASSAGES_KEPT)
def passage_terms(text: str) -> frozenset[str]:
    """`stem_terms` of a passage: passages recur across answers (and the answerability decision and
    the writer both read them), so each is stemmed once, or read from the store."""
    store = _stored
    if store is None or len(text) <= SHORT_TEXT:
        return stem_terms(text)
    found = store.terms(text)
    if found is None:
        found = _terms(text)  # `stem_terms` of a long text
        store.keep_terms(text, found)
    return found


def _clean(line: str) -> str:
    # Each pattern only where what it starts with is (no match, no change): most lines have none.
    if "[" in line:
        line = _LINK.sub(r"\1", line)
    if "<" in line:
        line = _without_tags(line)
    if "**" in line or "__" in line:
        line = _EMPHASIS.sub(r"\2", line)
    # as `re.sub(r"\s+", " ", line).strip()`: `\s`, `split()` and `strip()` take the same whitespace
    return " ".join(line.split())


def _without_tags(line: str) -> str:
    """HTML tags out of the prose, kept inside inline code: "the `<link>` element" names a tag, and an
    answer reading "the ` ` element" says nothing."""
    if "`" not in line:
        return _HTML.sub(" ", line)
    parts = line.split("`")  # even parts are prose, odd ones code spans (an unclosed one stays prose)
    last = len(parts) - 1 if len(parts) % 2 == 0 else len(parts)
    return "`".join(p if i % 2 and i < last else _HTML.sub(" ", p) for i, p in enumerate(parts))


_RULE_CHARS = "-=*_|: "


def _skip_line(line: str) -> bool:
    s = line.strip()
    return (
        not s
        or s.startswith(("#", ":::", "<!--", "import ", "export "))
        or _CAPTION.match(s) is not None
        or not s.strip(_RULE_CHARS)  # a rule: only these characters (a set of a long line cost ~20 us)
        or s.startswith("---")
    )


_HEADING = re.compile(r"^\s{0,3}#{1,6}\s+(.+?)\s*#*\s*$")
_TABLE_RULE = re.compile(r"^\s*\|?\s*:?-{2,}:?\s*(\|\s*:?-{2,}:?\s*)*\|?\s*$")


def _cells(line: str) -> list[str] | None:
    """The cells of a Markdown table line, or None for prose."""
    s = line.strip()
    if not s.startswith("|") and " | " not in s:
        return None
    if s.startswith("```"):
        return None
    return [_clean(c) for c in s.strip("|").split("|")]


def _table_row(cells: list[str], header: list[str] | None) -> str:
    """A table row as a sentence a reader can quote on its own: "Term: definition" for two columns,
    "Row: Column: value; Column: value" with the header's names for more ("RTX 2070" alone answers
    nothing; "GPU: Minimum: RTX 2070; Recommended: RTX 4080" does)."""
    if not cells or not any(cells):
        return ""
    if len(cells) == 2 and (header is None or len(cells[1].split()) >= 4):
        return f"{cells[0]}: {cells[1]}" if all(cells) else ""
    names = header if header is not None and len(header) == len(cells) else [""] * len(cells)
    pairs = zip(names[1:], cells[1:], strict=True)
    parts = [f"{name}: {value}" if name else value for name, value in pairs if value]
    return f"{cells[0]}: {'; '.join(parts)}" if cells[0] and parts else ""


def _sentences(paragraph: str) -> list[str]:
    parts: list[str] = []
    for piece in _SENTENCE_END.split(paragraph):
        if parts and _ABBREV.search(parts[-1][-_ABBREV_TAIL:]):
            parts[-1] = f"{parts[-1]} {piece}"
        else:
            parts.append(piece)
    return [p.strip() for p in parts if p.strip()]


BlockKind = Literal["sentence", "code", "bullet", "item", "heading"]
"""A paragraph (split into sentences), a code block, a list item or table row, or a diagram line
(quoted whole, never split at its full stops), or a heading (not a unit: it names the units below)."""


def _blocks(text: str) -> list[tuple[BlockKind, str]]:
    """Paragraphs, list items and table rows (each its own block) and fenced code blocks, in order."""
    out: list[tuple[BlockKind, str]] = []
    para: list[str] = []
    kind: list[BlockKind] = ["sentence"]
    lines = text.splitlines()
    header: list[str] | None = None
    i = 0

    def flush() -> None:
        if para:
            out.append((kind[0], " ".join(para)))
            para.clear()
        kind[0] = "sentence"

    while i < len(lines):
        line = lines[i]
        fence = _FENCE.match(line)
        if fence:
            flush()
            marker = fence.group(2)
            block = [line.strip()]
            i += 1
            while i < len(lines) and not lines[i].strip().startswith(marker[:3]):
                block.append(lines[i])
                i += 1
            block.append(marker)
            language = fence.group(3).strip().lower()
            if language == "mermaid":
                # A diagram's labels and arrows are the author's words; its syntax is not.
                out.extend(("item", line) for line in diagram_lines("\n".join(block[1:-1])))
            elif language not in {"text", "plaintext", "output"}:
                out.append(("code", "\n".join(block)))  # program output answers nothing
            i += 1
            continue
        cells = _cells(line)
        if cells is not None:
            flush()
            if _TABLE_RULE.match(line):
                pass
            elif header is None:
                header = cells  # a table's first row names its columns
            else:
                row = _table_row(cells, header)
                if row:
                    out.append(("bullet", row))
            i += 1
            continue
        header = None
        heading = _HEADING.match(line)
        if heading:
            flush()
            out.append(("heading", _clean(heading.group(1))))
        elif _skip_line(line):
            flush()
        elif _LIST_MARK.match(line):
            flush()
            kind[0] = "bullet"
            para.append(_LIST_MARK.sub("", line))
        else:
            para.append(line.strip())
        i += 1
    flush()
    return out


@lru_cache(maxsize=PASSAGES_KEPT)
def units_of(text: str) -> tuple[Unit, ...]:
    """The chunk's answer units (cached by text: the same chunk comes back across questions), read
    from the store when it has them."""
    store = _stored
    if store is None:
        return split_units(text)
    found = store.units(text)
    if found is None:
        found = split_units(text)
        store.keep_units(text, found)
    return found


def split_units(text: str) -> tuple[Unit, ...]:
    """The chunk's answer units, worked out (uncached)."""
    units: list[Unit] = []
    blocks = _blocks(text)
    section = ""
    intro = ""  # a lead-in too short to quote, kept for the code block right after it
    for kind, body in blocks:
        prose = kind in ("bullet", "sentence")
        clean = _clean(body) if prose else ""  # once per block
        short = prose and len(clean.split()) < MIN_WORDS
        if short and not clean.endswith(":"):
            _keep_short(units, kind, clean, section)
            if kind == "sentence":
                section = clean  # a line of its own ("Curriculum Learning") titles what follows
            intro = ""
            continue
        if kind == "heading":
            section, intro = body, ""
            continue
        if kind == "code":
            lines = body.count("\n") + 1
            if 3 <= lines <= MAX_CODE_LINES:
                terms = stem_terms(body)
                units.append(
                    Unit(body, "code", len(units), terms, len(body.split()), section=section, intro=intro)
                )
            intro = ""
            continue
        text = body if kind == "item" else clean
        # The first item of a list keeps a lead-in too short to quote ("Solutions:" over "1. Validate").
        item_intro = intro if kind == "bullet" else ""
        # A list item is one thought ("ODE: a physics library. It is Gazebo's default."): split it
        # only when it is too long to quote whole.
        whole = kind == "item" or (kind == "bullet" and len(text.split()) <= MAX_ITEM_WORDS)
        sentences = [text] if whole else _sentences(text)  # a paragraph is never whole: split once
        last = sentences[-1] if kind == "sentence" and text else ""
        intro = last if last.endswith(":") and len(last.split()) < 2 else ""
        for sentence in sentences:
            n = len(sentence.split())
            lead_in = sentence.endswith(":")
            if (MIN_WORDS <= n <= MAX_WORDS) or (lead_in and n >= 2):
                terms = stem_terms(sentence)
                if "-" in sentence:  # only a hyphenated term has parts (`with_parts` reads every term)
                    terms = with_parts(terms)
                bullet = kind != "sentence"
                unit = Unit(sentence, "sentence", len(units), terms, n, lead_in, bullet, section, item_intro)
                units.append(unit)
                item_intro = ""
    return tuple(units)


def _keep_short(units: list[Unit], kind: BlockKind, text: str, section: str) -> None:
    """A list item too short to be a unit goes with the unit before it (the list's lead-in or the
    item above it, under the same heading), so a list of short items is quoted whole."""
    if kind != "bullet" or not text or not units or units[-1].kind != "sentence":
        return
    if units[-1].section != section:
        return
    last = units[-1]
    if not (last.bullet or last.lead_in or last.items):
        return
    units[-1] = replace(last, items=(*last.items, text), terms=last.terms | with_parts(stem_terms(text)))


def split_tokens(text: str) -> list[str]:
    """Word-level stream tokens: each word with the whitespace after it, so the pieces join to `text`."""
    return re.findall(r"\S+\s*|\s+", text)


def count_tokens(text: str) -> int:
    """`len(split_tokens(text))` without the pieces (an answer not streamed counts them only): a leading
    run of whitespace is a token, then each word; `str.split` and the regex's `\\s` agree on what
    whitespace is (`str.isspace`)."""
    return len(text.split()) + (1 if text[:1].isspace() else 0)
