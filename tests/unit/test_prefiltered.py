"""`Prefiltered`: a pattern searched only where a word every match needs is there finds what the pattern
finds, on any text."""

from __future__ import annotations

import random
import re

import pytest

from lectern.content_kind import _ASKED_KINDS
from lectern.prefiltered import Prefiltered, needed_words
from lectern.writers.extractive.query import _HOW_TO
from lectern.writers.question_kind import _KINDS


def test_the_words_every_match_needs() -> None:
    assert needed_words(re.compile(r"\b(why|how\s+come)\b", re.I)) == ("come", "why")
    assert needed_words(re.compile(r"won'?t|cannot")) == ("cannot", "won")
    assert needed_words(re.compile(r"\bsteps?\b", re.I)) == ("step",)
    assert needed_words(re.compile(r"(?:ab)+c")) == ("ab",)  # the longer of the two parts' words
    assert needed_words(re.compile(r"Quiz", re.I)) == ("quiz",)  # lower case, as the text is compared


@pytest.mark.parametrize(
    "pattern",
    [r"\w+", r"(?:abc)?\d", r"a|\d", r"x*", r"(?=abc)\w", "caf\u00e9s?"],
)
def test_a_pattern_without_such_words_is_always_searched(pattern: str) -> None:
    assert needed_words(re.compile(pattern)) is None  # optional, a class, a look-ahead, non-ASCII


def test_what_a_text_without_the_words_cannot_match_is_not_searched() -> None:
    searched = Prefiltered(re.compile(r"\bhow\s+come\b", re.I))
    assert searched.needed == ("come",)
    assert searched.search("How come it stops?") is not None
    assert searched.search("How does it stop?") is None
    # Beyond ASCII, case folding is not plain lower-casing ("\u017f" is an "s" to re.I): searched as is.
    long_s = Prefiltered(re.compile(r"\bself\b", re.I))
    assert long_s.search("\u017felf") is not None


_WORDS = sorted(
    {
        word
        for pattern in [*(p for _, p in _KINDS), *(p for p, _ in _ASKED_KINDS), _HOW_TO]
        for word in (pattern.needed or ())
    }
    | set(
        [
            "the",
            "a",
            "lab",
            "labs",
            "3",
            "do",
            "I",
            "it",
            "not",
            "of",
            "set",
            "up",
            "mean",
            "does",
            "use",
            "on",
            "?",
            "'t",
            "many",
            "much",
            "long",
            "size",
            "is",
            "are",
            "at",
            "modules",
            "covers",
            "objectives",
            "checks",
        ]
    )
)


def _texts(rng: random.Random, count: int) -> list[str]:
    texts = []
    for _ in range(count):
        words = [rng.choice(_WORDS) for _ in range(rng.randint(0, 9))]
        words = [w.upper() if rng.random() < 0.15 else w.title() if rng.random() < 0.15 else w for w in words]
        texts.append(rng.choice([" ", "  ", "-", ""]).join(words) + rng.choice(["", "?", " ?", ".", "s"]))
    return texts


@pytest.mark.parametrize(
    "searched",
    [*(p for _, p in _KINDS), *(p for p, _ in _ASKED_KINDS), _HOW_TO],
    ids=lambda p: p.pattern.pattern[:30],
)
def test_the_engines_patterns_find_what_they_find_unfiltered(searched: Prefiltered) -> None:
    assert searched.needed is not None  # each has words to check
    rng = random.Random(13)
    for text in _texts(rng, 6000):
        found, expected = searched.search(text), searched.pattern.search(text)
        assert (found and found.span()) == (expected and expected.span()), text
