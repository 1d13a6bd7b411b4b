"""A numbered part asked for by its ordinal is searched by meaning in the documents' form ("day 5")."""

from __future__ import annotations

import pytest

from lectern.numbered_parts import as_numbered_parts


@pytest.mark.parametrize(
    ("question", "parts"),
    [
        ("What happens on the fifth day of the course's first week?", ["day 5", "week 1"]),
        ("and on day three?", ["day 3"]),
        ("In the week-three exercise, what examples are given?", ["week 3"]),
        ("In the first module's third week, is there anything on sensors?", ["module 1", "week 3"]),
        ("What is the second step of the install?", ["step 2"]),
        ("Which tools does the 2nd lab use?", ["lab 2"]),
        ("What does Chapter Twelve cover?", ["chapter 12"]),
        ("Is the twentieth round the last?", ["round 20"]),
        ("What does the first phase of the migration change?", ["phase 1"]),
    ],
)
def test_ordinal_parts_in_the_documents_form(question: str, parts: list[str]) -> None:
    numbered = as_numbered_parts(question).lower()
    assert all(part in numbered for part in parts)


@pytest.mark.parametrize(
    "question",
    [
        "What should I check the first time I start the server?",
        "Where is the first aid kit described?",
        "At first the build fails; why?",
        "Which one comes first?",
        "What is the last step?",  # "last" names no number
        "How long do the first two weeks take?",  # a span, not one part
        "What do the three days cover?",
        "Is this a first-class citizen?",
        "Why does the stepper fail on the fifth try?",
    ],
)
def test_other_ordinals_stay(question: str) -> None:
    assert as_numbered_parts(question) == question


def test_dense_query_says_the_part_as_numbered() -> None:
    assert as_numbered_parts("What happens on the fifth day of the first week?") == (
        "What happens on the day 5 of the week 1?"
    )
    assert as_numbered_parts("and on day three?") == "and on day 3?"
