"""A numbered part asked for by its ordinal: documentation and course material head their parts
"Week 1", "Day 5: Review", "Step 4", "Lab 3", while readers ask for "the fifth day of the first week",
"week three" or "the 2nd step". The search by meaning finds the part better in the documents' form, so
the query is embedded with each such part written as its noun and numeral ("day 5", "week 1", "step 2");
the keyword search keeps the words asked (the numerals there rank a schedule that lists every week
first: bench/numbered_parts_study.py).

Only an ordinal next to a part noun counts: "first" or "last" alone, "the first time", "first aid" and
"at first" stay as they are (no part noun follows).
"""

from __future__ import annotations

import re

from lectern.english import NUMBER_WORDS, ORDINAL_WORDS, word_set

ORDINALS = {w: i for i, w in enumerate(ORDINAL_WORDS, start=1)}
NUMBERS = {w: i for i, w in enumerate(NUMBER_WORDS, start=1)}

# Nouns that name the numbered parts of a course, a guide or a plan (general English, any domain).
PART_NOUNS = word_set(
    "day week month year quarter semester module chapter section subsection step stage lesson "
    "lab unit part phase session exercise level tier round lecture tutorial assignment milestone "
    "sprint iteration task problem appendix volume episode workshop"
)

_ORDINAL = r"(?P<ord>" + "|".join(ORDINAL_WORDS) + r"|\d{1,2}(?:st|nd|rd|th))"
_NOUN = r"(?P<noun>" + "|".join(sorted(PART_NOUNS)) + r")"
_NUMBER = r"(?P<num>" + "|".join(NUMBER_WORDS) + r")"
# "the fifth day", "the 2nd step", "first-week": the ordinal before its singular noun
_BEFORE = re.compile(rf"(?<![\w-]){_ORDINAL}[\s-]+{_NOUN}(?![\w-])", re.IGNORECASE)
# "day three", "week-three": the noun with the number spelt out after it
_AFTER = re.compile(rf"(?<![\w-]){_NOUN}[\s-]+{_NUMBER}(?![\w-])", re.IGNORECASE)


_WORD = re.compile(r"[^\W_]+")
_COUNTS = frozenset(ORDINALS) | frozenset(NUMBERS)
_SUFFIXED = re.compile(r"\d{1,2}(?:st|nd|rd|th)")


def _may_name_parts(text: str) -> bool:
    """A cheap test first: most questions hold no part noun, or no count, and skip the patterns."""
    words = set(_WORD.findall(text.lower()))
    if words.isdisjoint(PART_NOUNS):
        return False
    return not words.isdisjoint(_COUNTS) or any(_SUFFIXED.fullmatch(w) for w in words if w[0].isdigit())


def _number(word: str) -> int:
    word = word.lower()
    if word in ORDINALS:
        return ORDINALS[word]
    if word in NUMBERS:
        return NUMBERS[word]
    return int(re.sub(r"\D", "", word))


def _numbered(match: re.Match[str]) -> str:
    groups = match.groupdict()
    count = groups.get("ord") or groups.get("num") or ""
    return f"{match.group('noun')} {_number(count)}"


def _matches(text: str) -> list[re.Match[str]]:
    if not _may_name_parts(text):
        return []
    found = [*_BEFORE.finditer(text), *_AFTER.finditer(text)]
    return sorted(found, key=lambda m: m.start())


def as_numbered_parts(text: str) -> str:
    """`text` with each ordinal part written as the documents number it ("on the fifth day" ->
    "on the day 5"): for the query's meaning, where a word added at the end would weigh little."""
    if not _may_name_parts(text):
        return text
    return _AFTER.sub(_numbered, _BEFORE.sub(_numbered, text))
