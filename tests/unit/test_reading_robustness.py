"""A reader's question, whatever its text, never makes the reading rules raise, and a long one is read
quickly (no regular expression that backtracks without end)."""

from __future__ import annotations

import time

from hypothesis import given, settings
from hypothesis import strategies as st

from lectern.answerability import clause_parts, measures_asked, question_terms, sentence_parts
from lectern.followups import standalone_query
from lectern.spelling import respelt

# Pieces a reader writes that the rules look for: corrections, "and", "how come", capitals, measures.
_PIECES = [
    "no, I meant",
    "sorry, I mean",
    "no, I meant Isaac Sim, how do I install that?",
    "and",
    "and then",
    "and put it down again?",
    "and echo?",
    "and how fast?",
    "how come?",
    "how",
    "which size",
    "which version of",
    "CAN",
    "IT",
    "US",
    "OR",
    "AS",
    "AM",
    "per",
    "how far",
    "how big is",
    "what about",
    "that",
    "this",
    "it",
    "them",
    "is it hard for",
    "to",
    "the",
    "one",
    "?",
    ",",
    ".",
    "(",
    ")",
    "'",
    "\u2019",
    "-",
    "e.g.",
    "stoped",
    "occured",
    "patching",
    "ing",
    "ed",
    "es",
    "s",
    "é",
    "ß",
    "İ",
    "\u00a0",
    "\n",
    "🤖",
    "",
]
_WORDY = st.lists(st.one_of(st.sampled_from(_PIECES), st.text(max_size=8)), max_size=14).map(" ".join)
_TEXT = st.one_of(st.text(max_size=60), _WORDY, st.sampled_from(_PIECES))
_PREVIOUS = [
    "how does the robot pick up the cup?",
    "how far can the robot walk on one charge?",
    "how do I publish a message from the terminal?",
    "can a URDF describe a whole room with furniture in it?",
    "what are the upsides of the one-big-model approach for a home robot?",
    "Whisper is too slow on my laptop.",
    "so what value does a static walk have (duty factor)?",
    "",
    "?",
    "(",
]
_PREVIOUS_TURNS = st.lists(st.one_of(st.sampled_from(_PREVIOUS), _TEXT), max_size=3)


@settings(max_examples=400, deadline=None)
@given(question=_TEXT, previous=_PREVIOUS_TURNS)
def test_standalone_query_never_raises(question: str, previous: list[str]) -> None:
    assert isinstance(standalone_query(question, previous), str)


@settings(max_examples=400, deadline=None)
@given(question=_TEXT)
def test_answerability_readings_never_raise(question: str) -> None:
    assert isinstance(question_terms(question), list)
    assert isinstance(measures_asked(question), frozenset)
    assert isinstance(sentence_parts(question), list)
    assert isinstance(clause_parts(question), list)


@settings(max_examples=300, deadline=None)
@given(question=_TEXT, known=st.booleans())
def test_respelt_never_raises(question: str, known: bool) -> None:
    assert isinstance(respelt(question, lambda _word: known), str)


_LONG = [
    "no, I meant " + "the robot arm " * 700 + ", how do I install that?",
    "and " * 2500,
    "how " * 2500 + "come?",
    "CAN IT US OR " * 700 + "?",
    "which size " * 900,
    "is it " + "very " * 2000 + "hard for a robot to walk?",
    "a" * 10_000,
    ("x-" * 5000) + "y",
    "and then " + "pick " * 2000 + "it up?",
    "and how " + "fast " * 2000 + "?",
    ("word, " * 1700) + "?",
    " " * 10_000 + "?",
]


def test_long_questions_are_read_quickly() -> None:
    previous = ["how does the robot pick up the cup?", "how far can the robot walk on one charge?"]
    for question in _LONG:
        start = time.process_time()
        standalone_query(question, previous)
        standalone_query(question, [question])
        question_terms(question)
        measures_asked(question)
        sentence_parts(question)
        clause_parts(question)
        respelt(question, lambda _word: False)
        took = time.process_time() - start
        assert took < 2.0, (question[:40], took)
