"""Section headings over quoted units: the heading that names a unit's section, and whether the
quoted text already says it.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from functools import lru_cache

from lectern.writers.extractive.candidates import _Candidate
from lectern.writers.extractive.query import _IGNORED
from lectern.writers.units import Unit, stem_terms


def _heading_line(heading: str) -> str:
    """A heading as the line over what it heads: "Costmaps:", but "What is URDF?" as it is."""
    return heading if heading.endswith(("?", "!")) else f"{heading}:"


# Headings made only of these words name no topic ("Key Takeaways", "Next Steps", "Overview").
_HEADING_FILLER = """overview introduction summary conclusion background details notes note example examples
exercise exercises prerequisites solution solutions key takeaways learning objectives next steps quiz review
questions concepts what you will learn you'll"""
_GENERIC_HEADING_WORDS = frozenset(_HEADING_FILLER.split())
_NUMBERING = re.compile(
    r"^(?:(?:chapter|module|part|section|step|week|lesson)\s+)?[0-9IVX]+(?:\.[0-9]+)*[.:)]?\s+", re.IGNORECASE
)
MAX_HEADING_WORDS = 8


def _heading_of(c: _Candidate) -> str:
    """The heading that names the unit's section, unless it names nothing ("Overview", "Summary")."""
    path = c.hit.chunk.heading_hierarchy
    return _heading_text(c.unit.section or (path[-1] if path else ""))


@lru_cache(maxsize=4096)
def _heading_text(raw: str) -> str:
    """`_heading_of` of a heading as written; cached: an answer asks it of each unit it quotes."""
    text = _NUMBERING.sub("", raw.strip()).strip(" :")
    words = text.lower().split()
    if not words or len(words) > MAX_HEADING_WORDS or set(words) <= _GENERIC_HEADING_WORDS:
        return ""
    return text


def _names(units: Sequence[Unit], heading: str) -> bool:
    """Whether the quoted units (their texts run together) already say what the heading says."""
    wanted = stem_terms(heading) - _IGNORED
    if not wanted:
        return True
    # A unit's terms hold its text's terms (and may add the parts of hyphenated words, its short
    # items' terms): a heading word that none of them has is not in the text either, and the text is
    # not stemmed (most quoted runs miss a heading word: ~80 % on the train questions).
    if not wanted <= frozenset().union(*(u.terms for u in units)):
        return False
    return wanted <= stem_terms(" ".join(u.text for u in units))
