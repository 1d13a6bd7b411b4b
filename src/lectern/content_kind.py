"""What kind of content a chunk is: exposition, or text that must not become an answer on its own.

Textbooks mix explanations with quizzes (questions and their answer keys), exercise prompts ("Try with
AI"), learning objectives, summaries and navigation. A sentence from those reads like an answer ("Robot
spawns without errors") but answers nothing, so the extractive writer quotes them only when no
explanatory passage is left; a refusal never offers them as related reading. Most kinds are named by
the file's path or the chunk's headings; overviews and navigation are also told by their shape (a
welcome that previews the module, a bare list of topics on a landing page or in a schedule). The kind
is recorded at ingest (`Chunk.extra["content_kind"]`) and derived the same way for chunks ingested
before it existed; a chunk recorded as prose is checked for that shape when asked (an index kept from
before the shape rules needs no re-ingest).
"""

from __future__ import annotations

import re
from functools import lru_cache
from pathlib import PurePosixPath
from typing import Literal

from lectern.models import Chunk
from lectern.prefiltered import Prefiltered

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
    return shape_kind(source_path, heading_hierarchy, text) or "prose"


# Overviews and navigation told by their shape, not by their file's name: text that welcomes the reader
# and previews what the module will teach (an overview), or a bare list of topics (short noun phrases, no
# sentence, no code) under a day or week of a schedule, or under a heading that names the course's parts
# on a folder's landing page (navigation). They name what other pages explain; quoted, they answer
# nothing ("Day 3: Robot State Publishing").
_BULLET = re.compile(r"^\s*(?:[-*+\u2022]|\d+[.)])\s+(.*)$")
_PREVIEW = re.compile(
    r"^\s*(?:welcome\s+to\b|let's\s+dive\b|ready\s+to\b|by\s+the\s+end\s+of\s+this\b|"
    r"this\s+(?:course|module|chapter|week|part|section)\s+(?:explores|covers|introduces|focuses|will)\b|"
    r"in\s+this\s+(?:course|module|chapter|week|part|section),?\s+(?:you|we)\b|"
    r"you\s+(?:will|'ll)\s+(?:learn|master|be\s+able)\b)",
    re.I,
)
_SENTENCE_END = re.compile(r"(?<=[.!?])\s+")
_SCHEDULE = re.compile(r"\b(?:day|week)s?\s+\d+", re.I)
# On a landing page, a list of topics under a heading that names a part of the course ("Chapter 2: ...",
# "Topics Covered", "Learning Path") points at those parts; one under "Extended Goals" is content.
_COURSE_UNIT = re.compile(
    r"\b(?:chapters?|modules?|lessons?|units?|parts?|weeks?|days?|topics?|activities|outline|structure|"
    r"learning\s+path|overview|contents|covered)\b",
    re.I,
)
# Docusaurus makes index.md, README.md or a file named as its folder the folder's landing page.
_LANDING_STEMS = frozenset({"index", "readme"})


def _landing(source_path: str) -> bool:
    path = PurePosixPath(source_path)
    stem = path.stem.lower()
    return stem in _LANDING_STEMS or (bool(path.parent.name) and stem == path.parent.name.lower())


def _topic_list(text: str) -> bool:
    """Three or more short noun-phrase items, with at most a lead-in and a trailer around them."""
    lines = [line for line in text.splitlines() if line.strip()]
    items = [m.group(1) for line in lines if (m := _BULLET.match(line))]
    others = [line for line in lines if not _BULLET.match(line)]
    if len(items) < 3 or len(others) > 2 or any(len(line.split()) > 12 for line in others):
        return False
    words = [len(item.split()) for item in items]
    if sum(words) / len(words) > 7 or max(words) > 9:
        return False
    return not any("`" in item or item.rstrip().endswith((".", ";")) for item in items)


def _previews(text: str, *, landing: bool) -> bool:
    """Every prose sentence of the chunk welcomes the reader or previews what will be taught; on a
    landing page, half of them do (the rest there sells the module: "ROS 2 is the backbone of ...")."""
    lines = [line for line in text.splitlines() if line.strip() and not _BULLET.match(line)]
    sentences = [s for line in lines for s in _SENTENCE_END.split(line) if s.strip()]
    previews = sum(bool(_PREVIEW.match(s)) for s in sentences)
    return bool(sentences) and (previews == len(sentences) or (landing and 2 * previews >= len(sentences)))


def shape_kind(
    source_path: str, heading_hierarchy: list[str] | tuple[str, ...], text: str
) -> ContentKind | None:
    """The kind the chunk's shape tells (an overview or navigation, see above), or None."""
    landing = _landing(source_path)
    if _previews(text, landing=landing):
        return "overview"
    innermost = heading_hierarchy[-1] if heading_hierarchy else ""
    named = bool(_SCHEDULE.search(innermost)) or (landing and bool(_COURSE_UNIT.search(innermost)))
    return "navigation" if named and _topic_list(text) else None


# A reader who names an exercise, a lab or a quiz ("in the perception lab", "the practice exercise",
# "how much of the grade") wants its text, and one who asks for the prerequisites or a summary wants
# that section: for such a question those chunks answer as exposition does. "Lab" alone is also a
# place ("our lab", "a lab with flaky Wi-Fi"), so it counts only as "Lab 2" or "the ... lab". One who
# asks about the course itself ("which weeks of the course ...", "what does this module cover") wants
# its plan: its landing pages and its "what you'll learn" sections.
_COURSE = re.compile(
    r"\b(courses?|curriculum|syllabus|semester|schedule[sd]?|weeks?|time estimates?|"
    r"(modules?|chapters?|units?) (covers?|includes?))\b",
    re.I,
)
# Each pattern with the kinds it names: a question about the course (`_COURSE`) asks for its navigation
# and its overviews, searched once; each searched only where a word it needs is there (`Prefiltered`).
_ASKED_KINDS: tuple[tuple[Prefiltered, tuple[ContentKind, ...]], ...] = (
    (
        Prefiltered(re.compile(r"\b(quiz(zes)?|self[- ]checks?|review questions?|answer keys?)\b", re.I)),
        ("quiz",),
    ),
    (
        Prefiltered(
            re.compile(
                r"\b(exercises?|assignments?|homework|deliverables?|grades?|graded|grading|try with ai|"
                r"labs?\s+\d+|(the|this|that|each|every|next|last)\s+(\w+\s+){0,3}?labs?)\b",
                re.I,
            )
        ),
        ("exercise",),
    ),
    (
        Prefiltered(
            re.compile(
                r"\b(learning (objectives|outcomes|goals)|prerequisites?|summary|summari[sz]e|"
                r"key takeaways|recap)\b",
                re.I,
            )
        ),
        ("overview",),
    ),
    (Prefiltered(_COURSE), ("navigation", "overview")),
)


def asked_kinds(question: str) -> frozenset[ContentKind]:
    """The content kinds other than prose that the question asks about by name."""
    return frozenset(kind for pattern, kinds in _ASKED_KINDS if pattern.search(question) for kind in kinds)


@lru_cache(maxsize=16_384)
def _cached(source_path: str, headings: tuple[str, ...], text: str) -> ContentKind:
    return classify(source_path, headings, text)


def kind_of(chunk: Chunk) -> ContentKind:
    """The recorded kind, or the derived one for a chunk ingested before kinds were recorded."""
    recorded = chunk.extra.get("content_kind")
    if recorded == "prose":  # perhaps recorded before kinds were told by shape: tell them now
        return _cached_prose(chunk.source_path, tuple(chunk.heading_hierarchy), chunk.text)
    if recorded in ("quiz", "exercise", "overview", "navigation"):
        return recorded  # type: ignore[no-any-return]
    return _cached(chunk.source_path, tuple(chunk.heading_hierarchy), chunk.text)


@lru_cache(maxsize=16_384)
def _cached_prose(source_path: str, headings: tuple[str, ...], text: str) -> ContentKind:
    return shape_kind(source_path, headings, text) or "prose"
