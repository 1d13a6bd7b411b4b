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


# The kind of value a question asks, by its words ("how long" a time, "how far" a length, "what rate" a
# frequency ...), and the units that state each kind. A plain "how much" / "what value" asks any kind.
# (the first digit, then the look back: a pattern that opens with a digit class is scanned for it
# fast, one that opens with a look-behind is tried at every character)
_NUM = r"\d(?<![\w.]\d)\d*(?:\.\d+)?\s?"
_UNITS: dict[str, str] = {
    "time": r"(?:ms|s|sec|secs|seconds?|min|mins|minutes?|h|hrs?|hours?|days?|weeks?|milliseconds?)",
    "length": r"(?:m|cm|mm|km|nm|feet|foot|ft|in|inch(?:es)?|meters?|metres?|centimeters?|millimeters?)",
    "frequency": r"(?:hz|khz|mhz|ghz|fps|/s|per\s+second|times\s+per\s+\w+)",
    "speed": r"(?:m/s|km/h|mph|rad/s|deg/s|fps|hz|x)",
    "size": r"(?:gb|mb|kb|tb|gib|mib|bits?|bytes?|px|pixels?|parameters?|[kmb]\b)",
    "mass": r"(?:kg|g|grams?|kilograms?|lbs?)",
    "share": r"(?:%|percent)",
    "angle": r"(?:°|degrees?|deg|rad|radians?)",
}
_ASKED_KIND: tuple[tuple[str, re.Pattern[str]], ...] = tuple(
    (kind, re.compile(pattern, re.I))
    for kind, pattern in (
        (
            "time",
            r"\bhow\s+(?:long|quick(?:ly)?|slow)|\bwhat\s+(?:\w+\s+)?(?:timeout|duration|delay|latency|"
            r"interval|period)s?\b|\bat\s+what\s+(?:time|point)\b",
        ),
        (
            "length",
            r"\bhow\s+(?:far|wide|tall|deep|close|high|low)\b|\bwhat\s+(?:\w+\s+)?(?:distance|width|"
            r"height|length|radius|offset|spacing)s?\b",
        ),
        (
            "frequency",
            r"\bhow\s+often\b|\bwhat\s+(?:\w+\s+)?(?:rate|frequency)\b|\bat\s+what\s+(?:rate|"
            r"frequency)\b",
        ),
        (
            "speed",
            r"\bhow\s+(?:fast|much\s+(?:faster|slower|quicker))\b|\bwhat\s+(?:\w+\s+)?speed\b|"
            r"\bat\s+what\s+speed\b",
        ),
        (
            "size",
            r"\bhow\s+(?:big|large|small)\b|\bhow\s+much\s+(?:\w+\s+)?(?:memory|vram|ram|disk|storage|"
            r"space)\b|\bwhat\s+(?:\w+\s+)?(?:size|resolution|capacity|bandwidth)\b",
        ),
        ("mass", r"\bhow\s+heavy\b|\bwhat\s+(?:\w+\s+)?(?:weight|mass|payload)\b"),
        ("share", r"\bwhat\s+(?:\w+\s+)?(?:percentage|share|accuracy|fraction)\b|\bhow\s+much\s+of\b"),
        ("range", r"\bwhat\s+(?:\w+\s+)?range\b|\bbetween\s+what\b|\bfrom\s+what\b"),
        ("angle", r"\bwhat\s+(?:\w+\s+)?angle\b|\bhow\s+many\s+degrees\b"),
    )
)
_RANGE = re.compile(r"\d(?<![\w.]\d)\d*(?:\.\d+)?\s*(?:,|-|–|to)\s*-?\d+(?:\.\d+)?(?![\w.])", re.I)
_STATES: dict[str, re.Pattern[str]] = {
    **{kind: re.compile(_NUM + units + r"(?![\w])", re.I) for kind, units in _UNITS.items()},
    "range": _RANGE,
}


def asked_values(question: str) -> frozenset[str]:
    """The kinds of value (`_UNITS`' keys) the question asks for; empty for a question that asks none."""
    return frozenset(kind for kind, pattern in _ASKED_KIND if pattern.search(question))


def states_value(text: str, kinds: frozenset[str]) -> bool:
    """Whether the text states a value of one of `kinds` (a number with such a unit after it)."""
    return any(_STATES[kind].search(text) for kind in kinds)


def question_kind(question: str) -> QuestionKind:
    """The kind of answer the question calls for (the first that applies, most specific first)."""
    for kind, pattern in _KINDS:
        if pattern.search(question):
            return kind
    return "other"


_KINDS: tuple[tuple[QuestionKind, re.Pattern[str]], ...] = (
    ("why", _WHY),
    ("quantity", _QUANTITY),
    ("problem", _PROBLEM),
    ("compare", _COMPARE),
    ("how_to", _HOW_TO),
    ("definition", _DEFINITION),
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
