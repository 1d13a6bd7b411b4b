"""The question's words that say what it asks: the terms the units are matched on (`_query_terms`),
and whether it asks how to do something (`_HOW_TO`).
"""

from __future__ import annotations

import re

from lectern.followups import GENERIC_WORDS, STOP_WORDS
from lectern.prefiltered import Prefiltered
from lectern.writers.units import stem_terms

_IGNORED = frozenset(stem_terms(" ".join(STOP_WORDS | GENERIC_WORDS)))
# A question that asks for a yes or a no ("Does the publisher need to know who reads?", "Can the robot
# combine pointing with speech?"), not a request to the assistant ("Can you show me ...").
_YES_NO = re.compile(
    r"^\s*(?:can|could|does|do|did|is|are|was|were|should|will|would|has|have)\b(?!\s+you\b)", re.I
)
_STOP = frozenset(stem_terms(" ".join(STOP_WORDS)))
# searched only where a word it needs is there (`Prefiltered`)
_HOW_TO = Prefiltered(
    re.compile(
        r"\b(how\s+(do|can|to|should|would)|install|command|commands|run|launch|create|write|code|example|"
        r"implement|configure|set\s*up|setup|build|syntax|snippet)\b|\bhow\s*\?\s*$",
        re.IGNORECASE,
    )
)


def _query_terms(question: str, query: str) -> frozenset[str]:
    """The query's terms that say what it is about: generic words ("need", "use", "point") say little
    in "what do I need?", but a yes/no question turns on its verb ("does it need to know who reads?"
    is answered by "publishers don't need to know their subscribers"), so there they count."""
    terms = stem_terms(query)
    if _YES_NO.match(question):
        return terms - _STOP or terms
    return terms - _IGNORED or terms
