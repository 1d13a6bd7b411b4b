"""The kind of answer a question calls for, and the cue a sentence of that kind carries."""

from __future__ import annotations

import pytest

from lectern.writers.question_kind import has_cue, question_kind


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
