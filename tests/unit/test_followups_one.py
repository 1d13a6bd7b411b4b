"""A "one" with no describing word of its own ("which one", "the one about ...", "that one") stands for the
thing the previous question listed or asked which of (`lectern.ordinals.one_asked_for`), whatever the
phrasing around it; a choice between two named things, another pointing word or a correction keeps it."""

from __future__ import annotations

import pytest

from lectern.followups import standalone_query
from lectern.ordinals import one_asked_for


@pytest.mark.parametrize(
    ("previous", "question", "query"),
    [
        (
            "what payment methods does the checkout page accept?",
            "which one works without a card?",
            "which payment method works without a card (checkout page accept)?",
        ),
        (
            "what are the trails in the national park?",
            "which one is the longest?",
            "which trail is the longest (in the national park)?",
        ),
        (
            "list the backup strategies in the admin guide",
            "which one keeps the most history?",
            "which backup strategy keeps the most history (in the admin guide)?",
        ),
        (
            "which sourdough starter does the baking guide recommend?",
            "how often do I feed that one?",
            "how often do I feed the sourdough starter (baking guide)?",
        ),
    ],
)
def test_one_is_the_thing_asked_which_of(previous: str, question: str, query: str) -> None:
    assert one_asked_for(question, previous) == query
    assert standalone_query(question, [previous]) == query


@pytest.mark.parametrize(
    ("previous", "question"),
    [
        # a choice between two named things: no head to name, the pair says it
        ("should I rent or buy a bike for commuting?", "which one is cheaper?"),
        # another pointing word says more of what is meant
        ("what limits does the API list for uploads?", "which one is about sending them in batches?"),
        ("what plans does the gym offer?", "which of those is the one with a pool?"),
        # a correction swaps its own phrase
        ("what sizes does the shop stock?", "no, I meant the one for children"),
        # "one of" picks among things, it names none
        ("what plans does the gym offer?", "is the one of them with a pool cheaper?"),
    ],
)
def test_one_kept(previous: str, question: str) -> None:
    assert one_asked_for(question, previous) is None
