"""Review 15 (dev15): a third turn "and if ...?" after a second "what if ...?" swapped the second turn's
condition for its own and dropped what that turn had been read with: "what if the dough does not rise
(how do I bake sourdough bread)?" then "and if the crust burns?" searched "what if the crust burns?", the
bread gone. A swapped phrase ends where the bracket of an earlier turn's setting begins, so the setting
stays. Written before the rule; on main the four three-turn conversations below lost their first turn
(domains no earlier probe file used: sourdough, an aquarium, a passport, balcony tomatoes), and the
two-turn ones read as they do now.
"""

import pytest

from lectern.followups import standalone_query


@pytest.mark.parametrize(
    ("turns", "expected"),
    [
        (
            ["how do I bake sourdough bread?", "what if the dough does not rise?", "and if the crust burns?"],
            "what if the crust burns (how do I bake sourdough bread)?",
        ),
        (
            [
                "how do I set up a home aquarium?",
                "what if the water turns cloudy?",
                "and if the fish stop eating?",
            ],
            "what if the fish stop eating (how do I set up a home aquarium)?",
        ),
        (
            ["how do I renew my passport?", "what if my old one is lost?", "and if I need it within a week?"],
            "what if I need it within a week (how do I renew my passport)?",
        ),
        (
            [
                "how do I grow tomatoes on a balcony?",
                "what if the leaves turn yellow?",
                "and if the fruit splits?",
            ],
            "what if the fruit splits (how do I grow tomatoes on a balcony)?",
        ),
    ],
)
def test_swapped_condition_keeps_the_earlier_setting(turns: list[str], expected: str) -> None:
    assert standalone_query(turns[-1], turns[:-1]) == expected


@pytest.mark.parametrize(
    ("turns", "expected"),
    [
        # two turns: nothing in brackets to keep, the condition is swapped as before
        (
            ["what if my flight is cancelled?", "and if the airline offers no refund?"],
            "what if the airline offers no refund?",
        ),
        (
            ["how do I configure Nginx as a reverse proxy on Linux?", "and on macOS?"],
            "how do I configure Nginx as a reverse proxy on macOS?",
        ),
    ],
)
def test_two_turn_swaps_unchanged(turns: list[str], expected: str) -> None:
    assert standalone_query(turns[-1], turns[:-1]) == expected
