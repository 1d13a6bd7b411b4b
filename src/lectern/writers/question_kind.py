"""What kind of answer a question calls for, and whether a sentence has that shape.

A reader's question rarely repeats the sentence that answers it ("How long should it pause?" is
answered by "Pause 0.5 s before a normal reply"), but its type says what that sentence looks like: a
cause for "why", a number for "how many / how long", a step or a command for "how do I", a contrast
for a comparison, a fix for a problem. The extractive writer gives a sentence with the cue its
question's type calls for a small lift; the cues are plain English, not any one book's words.
"""

from __future__ import annotations

import re
from typing import Literal

from lectern.prefiltered import Prefiltered

QuestionKind = Literal["why", "quantity", "problem", "compare", "how_to", "definition", "other"]

_WHY = re.compile(
    r"\b(why|how\s+come|what\s+(?:is|are)\s+the\s+(?:reason|point|benefit|advantage)s?)\b", re.I
)
_QUANTITY = re.compile(
    r"\b(how\s+(?:many|much|long|far|fast|often|big|large|small|high|close|heavy)|what\s+(?:size|version|"
    r"resolution|rate|frequency|value|percentage|number)|at\s+what\s+\w+)\b",
    re.I,
)
_PROBLEM = re.compile(
    r"\b(error|errors|fails?|failing|failed|crash\w*|won'?t|doesn'?t|does\s+not|can'?t|cannot|isn'?t|"
    r"not\s+working|broken|stuck|wrong|problem|issue|debug\w*|fix|keeps|warning)\b",
    re.I,
)
_COMPARE = re.compile(
    r"\b(differen\w*|compare\w*|comparison|versus|vs\.?|better|instead\s+of|rather\s+than|pros|cons|"
    r"trade-?offs?|advantages?|drawbacks?|downsides?)\b",
    re.I,
)
# "What does the book use for that?" / "Which library writes them?" asks for a tool by name, as a how-to
# question does: the answer names a package, a command or a file.
_HOW_TO = re.compile(
    r"\b(how\s+(?:do|can|to|should|would|could)|what\s+command|which\s+command|install|set\s*up|configure|"
    r"steps?|what\s+(?:does|do|did|should|would)\s+(?!\w+\s+mean\b)(?:\w+\s+){0,3}use|"
    r"which\s+(?:tool|package|library|plugin|program)s?)\b",
    re.I,
)
_DEFINITION = re.compile(r"^\s*(what\s+(?:is|are|does)\b|what's\b|define\b|meaning\s+of\b)", re.I)

# The cue each kind calls for.
_CAUSE = re.compile(
    r"\b(because|since|so\s+that|in\s+order\s+to|due\s+to|therefore|thus|allows?|enables?|prevents?|"
    r"avoids?|ensures?|reduces?|improves?|reason|results?\s+in|leads?\s+to|helps?)\b",
    re.I,
)
_NUMBER = re.compile(r"\d")
_CONTRAST = re.compile(
    r"\b(whereas|unlike|while|but|however|instead|than|vs\.?|versus|compared|both|rather|better|worse|"
    r"faster|slower|more|less)\b",
    re.I,
)
_FIX = re.compile(
    r"\b(solution|fix|fixes|check|ensure|make\s+sure|verify|cause|try|set|increase|decrease|reduce|"
    r"add|remove|use|install|update|enable|disable|restart|source)\b",
    re.I,
)
# An identifier, a command-line flag, a file name or a path: what a how-to answer names.
_CODE_SPAN = re.compile(
    r"`[^`]+`|\b\w+_\w+\b|\b[a-z]+[A-Z]\w*\b|(?<!\w)--?[a-z][\w-]*|\b\w+\.\w{1,4}\b|/\w+/"
)
_STEP = re.compile(
    r"^(?:\d+[.)]\s*)?(use|run|set|add|create|install|open|call|launch|source|configure|define|write|edit|"
    r"select|click|go|choose|enable|check|make|start|build|import|save|type|press|specify|pass|load)\b",
    re.I,
)


def question_kind(question: str) -> QuestionKind:
    """The kind of answer the question calls for (the first that applies, most specific first)."""
    for kind, pattern in _KINDS:
        if pattern.search(question):
            return kind
    return "other"


# Searched only where a word each needs is there (`Prefiltered`: most questions have none of most).
_KINDS: tuple[tuple[QuestionKind, Prefiltered], ...] = (
    ("why", Prefiltered(_WHY)),
    ("quantity", Prefiltered(_QUANTITY)),
    ("problem", Prefiltered(_PROBLEM)),
    ("compare", Prefiltered(_COMPARE)),
    ("how_to", Prefiltered(_HOW_TO)),
    ("definition", Prefiltered(_DEFINITION)),
)


def has_cue(text: str, kind: QuestionKind) -> bool:
    """Whether the sentence carries the cue the question's kind calls for."""
    if kind == "why":
        return bool(_CAUSE.search(text))
    if kind == "quantity":
        return bool(_NUMBER.search(text))
    if kind == "how_to":
        return bool(_STEP.match(text) or _CODE_SPAN.search(text))
    if kind == "compare":
        return bool(_CONTRAST.search(text))
    if kind == "problem":
        return bool(_FIX.search(text))
    return False  # a definition: the sentence nearest the question in meaning; "other" calls for nothing
