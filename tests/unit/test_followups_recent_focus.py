"""Third and later turns refer to the most recent focus (fu24): a "that", "that one" or "it" after a turn
that picked one of the things the turn before asked for, or narrowed it to a new thing, stands for what
that turn picked, not for the first turn's topic. Probe conversations over documents no book holds (a
gym, a travel guide, a cookbook, a NAS backup guide); a turn that names its own topic stays as asked.
"""

import pytest

from lectern.followups import standalone_query


@pytest.mark.parametrize(
    ("previous", "question", "query"),
    [
        (
            [
                "what risks does the travel guide list for backpackers?",
                "which one is about losing your passport?",
            ],
            "how do I avoid that?",
            "how do I avoid that (the one about losing your passport, travel risks for backpackers)?",
        ),
        (
            ["what plans does the gym offer?", "which one includes the pool?"],
            "how much does that one cost?",
            "how much does the one that includes the pool cost (gym plans)?",
        ),
        (
            ["what plans does the gym offer?", "which one includes the pool?"],
            "how much does it cost?",
            "how much does it cost (the one that includes the pool, gym plans)?",
        ),
    ],
)
def test_pick_then_pointer(previous: list[str], question: str, query: str) -> None:
    assert standalone_query(question, previous) == query


@pytest.mark.parametrize(
    ("previous", "question"),
    [
        (
            ["what plans does the gym offer?", "which one includes the pool?"],
            "how do I book a personal trainer session?",
        ),
        (
            ["what risks does the travel guide list?", "which one is about theft?"],
            "how do I renew a passport?",
        ),
    ],
)
def test_own_topic_stays_as_asked(previous: list[str], question: str) -> None:
    assert standalone_query(question, previous) == question


@pytest.mark.parametrize(
    ("previous", "question", "query"),
    [
        (
            ["what dishes does the cookbook list for winter?", "what's in the lentil one?"],
            "how long does it take to cook?",
            "how long does lentil dish take to cook (cookbook winter)?",
        ),
        (
            ["what sections does the driving exam have?", "what's in the hazard one?"],
            "how long is it?",
            "how long is hazard section (driving exam)?",
        ),
    ],
)
def test_kind_picked_then_it(previous: list[str], question: str, query: str) -> None:
    """ "it" after "what's in the <word> one?" is the one that turn picked, not the first turn's topic."""
    assert standalone_query(question, previous) == query


@pytest.mark.parametrize(
    ("previous", "question"),
    [
        # an ordinal or "other" picks by no word of its own: left to the readings before
        (["what sections does the driving exam have?", "what's in the first one?"], "how long is it?"),
        (["what sections does the driving exam have?", "what's in the other one?"], "how long is it?"),
    ],
)
def test_no_kind_named(previous: list[str], question: str) -> None:
    from lectern.followups.picks import _the_kind_picked

    assert _the_kind_picked(question, previous[-1], previous[0]) is None


@pytest.mark.parametrize(
    "second",
    [
        "what's in the hazard one?",
        "tell me about the hazard one",
        "what about the hazard one?",
        "and the hazard one?",
    ],
)
@pytest.mark.parametrize("third", ["how long is it?", "ok, what's its pass mark?"])
def test_kind_picked_dressed(second: str, third: str) -> None:
    """However the pick and the pointer are dressed, "it" is the hazard section, the exam in brackets."""
    query = standalone_query(third, ["what sections does the driving exam have?", second])
    assert "hazard section" in query
    assert query.endswith("(driving exam)?")


@pytest.mark.parametrize(
    "second",
    [
        "which one is about losing your passport?",
        "which of them is about losing your passport?",
        "which one covers losing your passport?",
    ],
)
@pytest.mark.parametrize(
    "third", ["how do I avoid that?", "how do I avoid that one?", "how do I avoid this?"]
)
def test_pick_then_pointer_dressed(second: str, third: str) -> None:
    """A "that", "that one" or "this" after any wording of the pick is the one picked, the list after it."""
    query = standalone_query(third, ["what risks does the travel guide list for backpackers?", second])
    assert "losing your passport" in query
    assert "travel risks for backpackers" in query


@pytest.mark.parametrize(
    ("second", "third", "query"),
    [
        (
            "tell me about the one about theft",
            "how do I avoid that?",
            "how do I avoid that (the one about theft, travel risks for backpackers)?",
        ),
        (
            "which is the one about theft?",
            "how do I avoid it?",
            "how do I avoid it (the one about theft, travel risks for backpackers)?",
        ),
    ],
)
def test_the_one_said(second: str, third: str, query: str) -> None:
    """A pick said as "the one about X" in any question is the one a later pointer stands for."""
    assert (
        standalone_query(third, ["what risks does the travel guide list for backpackers?", second]) == query
    )


@pytest.mark.parametrize(
    ("previous", "question", "query"),
    [
        (
            ["how do I enable caching in the web server?"],
            "what does the config for that look like?",
            "what does the config for that look like (caching in the web server)?",
        ),
        (
            ["what plans does the gym offer?"],
            "does that plan include meals?",
            "does the plan include meals (gym plans)?",
        ),
    ],
)
def test_that_before_the_verb(previous: list[str], question: str, query: str) -> None:
    """A "that" before the verb a "do" asks with is a pronoun ("for that look like"), not "the look"; one
    before a noun the verb follows is a determiner ("that plan include")."""
    assert standalone_query(question, previous) == query
