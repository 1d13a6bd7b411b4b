"""Courtesy words and acknowledgements do not change how a follow-up is read (`lectern.courtesy.
without_courtesy`): "..., please?", "please ...", "thanks! ...", "ok, ..." are read past, so the readings
that look at a question's first and last words still see them; a question that stands alone is still
searched exactly as asked."""

from __future__ import annotations

import pytest

from lectern.courtesy import without_courtesy
from lectern.followups import standalone_query

PREVIOUS = ["How do I write a minimal producer with the queue client library?"]


@pytest.mark.parametrize(
    ("question", "plain"),
    [
        ("and the consumer, please?", "and the consumer?"),
        ("and the consumer please", "and the consumer"),
        ("please explain the retry policy", "explain the retry policy"),
        ("thanks! and how do I close it?", "and how do I close it?"),
        ("great, what about the consumer?", "what about the consumer?"),
        ("ok, how do I close it?", "how do I close it?"),
        ("ok so how do I close it?", "ok so how do I close it?"),  # no comma: "ok so" carries on
        ("please?", "please?"),  # nothing left: kept
        ("is the pleasant mode on by default?", "is the pleasant mode on by default?"),
    ],
)
def test_without_courtesy(question: str, plain: str) -> None:
    assert without_courtesy(question) == plain


@pytest.mark.parametrize(
    "dressed",
    [
        "{q}, please?",
        "thanks! {q}?",
        "ok, {q}?",
        "please {q}?",
    ],
)
@pytest.mark.parametrize("question", ["and the consumer", "how do I close it", "what about the consumer"])
def test_courtesy_does_not_change_the_reading(dressed: str, question: str) -> None:
    plain = standalone_query(f"{question}?", PREVIOUS)
    assert plain != f"{question}?"  # the plain question is a follow-up, rewritten
    assert standalone_query(dressed.format(q=question), PREVIOUS) == plain


def test_a_question_that_stands_alone_is_kept_as_asked() -> None:
    asked = "Thanks! How do I configure dead-letter queues in the queue client library?"
    assert standalone_query(asked, PREVIOUS) == asked


@pytest.mark.parametrize(
    ("question", "plain"),
    [
        ("also, how do I close it?", "how do I close it?"),
        ("hmm, and the consumer?", "and the consumer?"),
        ("oh wait, what about the consumer?", "oh wait, what about the consumer?"),  # no comma after "oh"
        ("also, wait, what's a dead-letter queue?", "what's a dead-letter queue?"),
        ("well-known ports, which ones does it use?", "well-known ports, which ones does it use?"),
    ],
)
def test_a_filler_before_the_question_is_read_past(question: str, plain: str) -> None:
    assert without_courtesy(question) == plain
