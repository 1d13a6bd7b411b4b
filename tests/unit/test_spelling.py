"""Misspelt question words are put right against the documents' words and everyday English."""

from __future__ import annotations

import pytest

from lectern.spelling import misspelt, respelt
from tests.unit.answer_support import collect, done_of, make_engine

DOCUMENT_WORDS = frozenset({"connect", "connecting", "navigation", "instead", "axis", "recognizer", "gazebo"})


def _knows(word: str) -> bool:
    return word.lower() in DOCUMENT_WORDS


@pytest.mark.parametrize(
    ("question", "expected"),
    [
        ("how do i conect isaac sim to ros2", "how do i connect isaac sim to ros2"),
        ("its still not conecting what shoud i check", "its still not connecting what should i check"),
        ("can i send a navigaton goal from rviz insted", "can i send a navigation goal from rviz instead"),
        ("and the z axsis", "and the z axis"),
    ],
)
def test_a_slip_becomes_the_everyday_word_the_documents_use(question: str, expected: str) -> None:
    assert misspelt(question)
    assert respelt(question, _knows) == expected


@pytest.mark.parametrize(
    "question",
    [
        "is mujoco one of the options too",  # a rare word with no everyday neighbour: a name
        "how do i train a wake word model with porcupine?",  # everyday enough to be meant
        "Can I use Conect with Gazebo?",  # a capital marks a name
        "which speech recognizer does it use?",  # the documents use it
        "wich way does the x axis point",  # too short: "which" or "with"?
    ],
)
def test_names_short_words_and_the_documents_own_words_stay(question: str) -> None:
    assert respelt(question, _knows) == question


def test_a_derived_word_is_not_a_slip_of_its_stem() -> None:
    # "springy" is one letter more than "spring", not a slip of it
    assert respelt("do springy joints help?", lambda w: w == "spring") == "do springy joints help?"


async def test_the_engine_searches_the_respelt_question_and_keeps_the_users_words() -> None:
    engine, _, _ = make_engine()
    conversation = engine.new_conversation()
    answer = await engine.run("which sensr models does gazebo harmonic have", conversation)
    assert answer.search_query == "which sensor models does gazebo harmonic have"
    assert conversation.history[0].content == "which sensr models does gazebo harmonic have"
    # a follow-up with a slip is respelt, and rewritten from the respelt question before it
    events = await collect(engine.stream("how do i instal it?", conversation))
    # ("it" is the one that has the sensor models, which come in brackets)
    assert done_of(events).answer.search_query == "how do i install gazebo harmonic (sensor models)?"


@pytest.mark.parametrize(("word", "near"), [("patching", "matching"), ("springy", "springs")])
def test_a_word_in_its_own_right_is_not_a_slip_of_a_commoner_one(word: str, near: str) -> None:
    # both near words are common and used by the documents, but only a few times commoner
    question = f"what is {word} used for?"
    assert respelt(question, lambda w: w == near) == question


@pytest.mark.parametrize(
    ("question", "near"),
    [
        ("instead of just patching the next bit?", "watching"),  # patch (4.2) + ing; watching 4.9
        ("how the planner copes with stairs", "comes"),  # cope + s
    ],
)
def test_an_everyday_word_with_a_regular_ending_is_no_slip(question: str, near: str) -> None:
    # wordfreq counts "patching" (2.9) apart from "patch": rare as a slip, but a form of a common word
    assert respelt(question, lambda w: w == near) == question


@pytest.mark.parametrize(
    ("question", "expected"),
    [
        ("from the begining", "from the beginning"),  # "begin" would have doubled its n
        ("it stoped moving", "it stopped moving"),
        ("keeps runing out", "keeps running out"),  # "rune" is no likelier a stem than "run"
    ],
)
def test_a_missed_double_letter_is_still_a_slip(question: str, expected: str) -> None:
    assert respelt(question, lambda w: w in {"beginning", "stopped", "running"}) == expected


@pytest.mark.parametrize(
    ("question", "expected"),
    [
        ("is it worth useing a simulator", "is it worth using a simulator"),  # "use" drops its e
        ("when makeing the map", "when making the map"),
        ("it never matchs the model", "it never matches the model"),  # "-es" after a hiss
        ("the arm tryed again", "the arm tried again"),  # "y" becomes "i"
    ],
)
def test_an_ending_added_the_wrong_way_is_still_a_slip(question: str, expected: str) -> None:
    assert respelt(question, lambda w: w in {"using", "making", "matches", "tried"}) == expected


def test_a_long_run_of_letters_is_left_quickly() -> None:
    # a pasted hash or a held key is no slip of an everyday word, and its slips are too many to look up
    question = "what does " + "a" * 5000 + " mean"
    assert respelt(question, lambda w: False) == question
