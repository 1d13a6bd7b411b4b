"""The kind of answer a question calls for, and the cue a sentence of that kind carries."""

from __future__ import annotations

import pytest

from lectern.writers.question_kind import asked_values, has_cue, question_kind, states_value


@pytest.mark.parametrize(
    ("question", "kind"),
    [
        ("Why does my robot need a physics engine at all?", "why"),
        ("How long should the robot pause before it speaks?", "quantity"),
        ("How many beams does the laser scanner send per sweep?", "quantity"),
        ("RViz keeps warning that a frame does not exist. What now?", "problem"),
        ("My build fails with a missing package error", "problem"),
        ("What's the difference between a service and an action?", "compare"),
        ("How do I list the microphones my computer can see?", "how_to"),
        ("What is a node?", "definition"),
        ("I want a floor plan from my laser scans. What does the book use for that?", "how_to"),
        ("Which library writes the point clouds?", "how_to"),
        ("What does it mean to use an LLM as a planner?", "definition"),
        ("Which post-processing effects does the book recommend?", "other"),
    ],
)
def test_question_kind(question: str, kind: str) -> None:
    assert question_kind(question) == kind


def test_each_kind_has_its_cue() -> None:
    assert has_cue("Sensors are simulated because hardware time is expensive.", "why")
    assert not has_cue("Sensors are simulated in the lab.", "why")
    assert has_cue("Pause 0.5 s before a normal reply.", "quantity")
    assert not has_cue("Pause briefly before a reply.", "quantity")
    assert has_cue("Run `gz sim` to open the world.", "how_to")
    assert has_cue("Set the domain ID on both machines.", "how_to")
    assert not has_cue("Worlds hold models and lights.", "how_to")
    assert has_cue("Unlike a topic, a service answers each request.", "compare")
    assert has_cue("Solution: check that the frame names match the link names.", "problem")
    assert not has_cue("Frames are named after links.", "other")


def test_a_hyphenated_word_is_not_taken_for_a_command_line_flag() -> None:
    assert not has_cue("A spring-mass model of the leg.", "how_to")
    assert has_cue("Pass --verbose to see each step.", "how_to")


@pytest.mark.parametrize(
    ("question", "kinds"),
    [
        ("How quick is the speech-to-text model?", {"time"}),
        ("How far apart sideways should the feet land?", {"length"}),
        ("Roughly how much GPU memory does the whole system use?", {"size"}),
        ("At what rate does the camera publish?", {"frequency"}),
        ("How much faster does mapping run on the graphics card?", {"speed"}),
        ("What light range does the randomiser use?", {"range"}),
        ("Which size of the model does the book recommend?", set()),  # a choice, not a value
        ("What is a node?", set()),
    ],
)
def test_the_kind_of_value_a_question_asks(question: str, kinds: set[str]) -> None:
    assert asked_values(question) == frozenset(kinds)


def test_a_value_of_the_asked_kind_is_a_number_with_its_unit() -> None:
    assert states_value("Step width: 0.2 m", frozenset({"length"}))
    assert states_value("Latency (RTX 3060): 0.6s", frozenset({"time"}))
    assert states_value("Breakdown: Grounding DINO: 5.2 GB", frozenset({"size"}))
    assert states_value("'light_intensity': (500, 5000)", frozenset({"range"}))
    assert not states_value("Step width: 0.2 m", frozenset({"time"}))  # a length, not a time
    assert not states_value("Install ROS 2 on an RTX 3060 for Module 3", frozenset({"time", "size"}))
