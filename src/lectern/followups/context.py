"""Reading a rewritten query back: the query without the context the rewrite put after it in brackets
(`without_context`), and whether a pronoun is left in it (`has_pronoun`).
"""

from __future__ import annotations

import re

from lectern.followups.vocabulary import (
    ACTION_WORDS,
    ANAPHORA,
    MIN_OWN_CONTENT_WORDS,
    REPLACEABLE,
    content_words,
    words,
)

# What a rewrite puts after the question in brackets: "what resolution does camera example use (sensor
# simulation)?".
_BRACKETED_TAIL = re.compile(r"\s*\([^()]*\)(?=[?.!]*\s*$)")


def without_context(query: str, question: str) -> str:
    """The rewritten `query` without the context the rewrite put after it in brackets ("what resolution
    does camera example use (sensor simulation)?" -> "what resolution does camera example use?"); the
    query itself when it has none, when the brackets are the question's own, or when the rest names
    too little to search on ("Can you give an example (URDF)?": without them nothing says what about)."""
    # searched only where a closing bracket is: the pattern, tried from every position, needs one
    match = _BRACKETED_TAIL.search(query) if ")" in query else None
    if match is None or query == question or match.group(0).strip() in question:
        return query
    bare = query[: match.start()] + query[match.end() :]
    topical = [w for w in content_words(bare) if w.lower() not in ACTION_WORDS | ANAPHORA]
    return bare if len(topical) >= MIN_OWN_CONTENT_WORDS else query


def has_pronoun(text: str) -> bool:
    """Whether `text` has an "it", "them" or "they": a query without the brackets that say what the
    pronoun stands for ("which tools does it suggest for looking into it?") searches for nothing in
    particular, though its words still say what to pick from passages already found."""
    return any(w.lower() in REPLACEABLE for w in words(text))
