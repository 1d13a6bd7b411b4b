"""What kind of content a chunk is: exposition, or text that must not become an answer on its own.

Textbooks mix explanations with quizzes (questions and their answer keys), exercise prompts ("Try with
AI"), learning objectives, summaries and navigation. A sentence from those reads like an answer ("Robot
spawns without errors") but answers nothing, so the extractive writer quotes them only when no
explanatory passage is left; a refusal never offers them as related reading. The kind is recorded at
ingest (`Chunk.extra["content_kind"]`) and derived the same way for chunks ingested before it existed.
"""

from __future__ import annotations

import re
from functools import lru_cache
from typing import Literal

from lectern.models import Chunk

ContentKind = Literal["prose", "quiz", "exercise", "overview", "navigation"]

_PATH_KINDS: tuple[tuple[re.Pattern[str], ContentKind], ...] = (
    (re.compile(r"(^|/)(quiz(zes)?|self-check)(/|[-_.]|$)", re.I), "quiz"),
    (
        re.compile(r"(^|/)(try-with-ai|exercises?|labs?)(/|[-_.]|$)|[-_](exercises?|lab)\.mdx?$", re.I),
        "exercise",
    ),
)
_HEADING_KINDS: tuple[tuple[re.Pattern[str], ContentKind], ...] = (
    (
        re.compile(
            r"\b(quiz|check your understanding|self[- ]assessment|review questions|answer key)\b", re.I
        ),
        "quiz",
    ),
    (
        re.compile(
            r"\b(try with ai|exercises?|hands-on (lab|exercise)|lab \d|challenge|assignment|"
            r"practice problems?|deliverables?|success criteria)\b",
            re.I,
        ),
        "exercise",
    ),
    (
        re.compile(
            r"\b(learning objectives|learning outcomes|what you('ll| will) learn|objectives|prerequisites|"
            r"summary|key takeaways|recap|in this chapter|chapter overview|next steps|what's next|"
            r"further reading|references|resources)\b",
            re.I,
        ),
        "overview",
    ),
    (re.compile(r"\b(table of contents|navigation|contents)\b", re.I), "navigation"),
)
# "Assessment" names a course's tests and its grading alike ("Assessments: 25% capstone, late work loses
# 5% a day"): a file so named holds a quiz where its headings or its text say so.
_ASSESSMENT_PATH = re.compile(r"(^|/)assessments?(/|[-_.]|$)", re.I)
_QUIZ_HEADING = re.compile(r"\b(quiz(zes)?|questions?)\b", re.I)
_QUESTION_LINE = re.compile(r"\?\s*(\*\*)?\s*$", re.M)
_QUIZ_TEXT = re.compile(r"^\s*(\*\*)?(answer|correct answer|solution)\s*[:：]", re.I | re.M)
_OPTIONS = re.compile(r"^\s*[-*]?\s*\(?[A-Da-d][).]\s+\S", re.M)


def classify(source_path: str, heading_hierarchy: list[str] | tuple[str, ...], text: str) -> ContentKind:
    """The content kind from the file's path, the chunk's innermost headings and its text."""
    for pattern, kind in _PATH_KINDS:
        if pattern.search(source_path):
            return kind
    if _ASSESSMENT_PATH.search(source_path) and (
        any(_QUIZ_HEADING.search(h) for h in list(heading_hierarchy)[-2:])
        or _QUESTION_LINE.search(text)
        or len(_OPTIONS.findall(text)) >= 2
        or _QUIZ_TEXT.search(text)
    ):
        return "quiz"
    for heading in reversed(list(heading_hierarchy)[-2:]):
        for pattern, kind in _HEADING_KINDS:
            if pattern.search(heading):
                return kind
    if _QUIZ_TEXT.search(text) and len(_OPTIONS.findall(text)) >= 3:
        return "quiz"
    return "prose"


# A reader who names an exercise, a lab or a quiz ("in the perception lab", "the practice exercise",
# "how much of the grade") wants its text, and one who asks for the prerequisites or a summary wants
# that section: for such a question those chunks answer as exposition does. "Lab" alone is also a
# place ("our lab", "a lab with flaky Wi-Fi"), so it counts only as "Lab 2" or "the ... lab".
_ASKED_KINDS: tuple[tuple[re.Pattern[str], ContentKind], ...] = (
    (re.compile(r"\b(quiz(zes)?|self[- ]checks?|review questions?|answer keys?)\b", re.I), "quiz"),
    (
        re.compile(
            r"\b(exercises?|assignments?|homework|deliverables?|grades?|graded|grading|try with ai|"
            r"labs?\s+\d+|(the|this|that|each|every|next|last)\s+(\w+\s+){0,3}?labs?)\b",
            re.I,
        ),
        "exercise",
    ),
    (
        re.compile(
            r"\b(learning (objectives|outcomes|goals)|prerequisites?|summary|summari[sz]e|"
            r"key takeaways|recap)\b",
            re.I,
        ),
        "overview",
    ),
)


def asked_kinds(question: str) -> frozenset[ContentKind]:
    """The content kinds other than prose that the question asks about by name."""
    return frozenset(kind for pattern, kind in _ASKED_KINDS if pattern.search(question))


@lru_cache(maxsize=16_384)
def _cached(source_path: str, headings: tuple[str, ...], text: str) -> ContentKind:
    return classify(source_path, headings, text)


def kind_of(chunk: Chunk) -> ContentKind:
    """The recorded kind, or the derived one for a chunk ingested before kinds were recorded."""
    recorded = chunk.extra.get("content_kind")
    if recorded in ("prose", "quiz", "exercise", "overview", "navigation"):
        return recorded  # type: ignore[no-any-return]
    return _cached(chunk.source_path, tuple(chunk.heading_hierarchy), chunk.text)
