"""Which chunks are exposition: quizzes, exercise prompts and chapter overviews never lead an answer."""

from __future__ import annotations

import pytest

from lectern.content_kind import asked_kinds, classify, kind_of
from lectern.models import Chunk


@pytest.mark.parametrize(
    ("path", "headings", "text", "kind"),
    [
        ("01-module/02-topics.md", ["Topics", "Publishers"], "A publisher sends messages.", "prose"),
        ("01-module/quizzes/01-quiz-intro.md", ["Quiz"], "Which is a node?", "quiz"),
        ("01-module/try-with-ai/01-ai-intro.md", ["Try with AI"], "Ask your AI to explain.", "exercise"),
        ("ch1.md", ["Chapter 1", "Learning Objectives"], "By the end you will be able to ...", "overview"),
        ("ch1.md", ["Chapter 1", "Key Takeaways"], "Nodes are processes.", "overview"),
        # A course's grading page is not a quiz; a quiz filed under assessments is.
        ("assessments.md", ["Submission Guidelines", "Late Work"], "- Late work loses 5% a day", "prose"),
        ("assessments/week-1.md", ["Week 1", "Quiz"], "Test your knowledge of nodes.", "quiz"),
        ("assessments/w1.md", ["Week 1", "Check"], "1. What is a node?\n- a) A file\n- b) A process", "quiz"),
        (
            "ch1.md",
            ["Chapter 1", "Check"],
            "1. What is a node?\n- a) A file\n- b) A process\n- c) A topic\n**Answer:** b",
            "quiz",
        ),
    ],
)
def test_classify(path: str, headings: list[str], text: str, kind: str) -> None:
    assert classify(path, headings, text) == kind


TOPICS = "- URDF and SDF basics\n- Robot state publishing\n- Spawning robots in Gazebo\n"
WELCOME = (
    "Welcome to Module 1! In this module, you'll master ROS 2, the middleware of modern robots. "
    "Just as a nervous system coordinates movement, ROS 2 connects sensors and actuators."
)


@pytest.mark.parametrize(
    ("path", "headings", "text", "kind"),
    [
        # A bare list of topics under a day of a schedule, or under a heading that names the course's
        # parts on a folder's landing page (Docusaurus: index, README, or named as its folder).
        ("week-2/notes.md", ["Week 2", "Day 3: Robot State Publishing"], TOPICS, "navigation"),
        ("module-2/index.md", ["Module 2", "Topics Covered"], "Topics:\n\n" + TOPICS, "navigation"),
        ("module-2/README.md", ["Module 2", "Chapter 2: Models"], TOPICS, "navigation"),
        ("module-2/module-2.md", ["Module 2", "Learning Path"], TOPICS, "navigation"),
        # The same list is content under another heading, on another page, or with code or sentences.
        ("capstone/index.md", ["Capstone", "Extended Goals"], TOPICS, "prose"),
        ("module-2/robots.md", ["Robots", "Topics Covered"], TOPICS, "prose"),
        ("module-2/index.md", ["Module 2", "Topics Covered"], TOPICS + "- Run `gz sim`\n", "prose"),
        (
            "module-2/index.md",
            ["Module 2", "Topics Covered"],
            "- A link is a rigid body.\n- A joint connects two links.\n- A frame has an origin.\n",
            "prose",
        ),
        # Welcome and preview sentences: all of a chunk's, or half of a landing page's.
        ("module-1/index.md", ["Module 1", "Overview"], WELCOME, "overview"),
        ("module-1/ros2.md", ["Module 1", "Overview"], WELCOME, "prose"),
        ("module-4/intro.md", ["Module 4"], "Welcome to Module 4, where we delve into robots.", "overview"),
        ("ch1.md", ["Links"], "You will learn links.\n\nA link is a rigid body with a shape.", "prose"),
    ],
)
def test_navigation_is_told_by_its_shape(path: str, headings: list[str], text: str, kind: str) -> None:
    assert classify(path, headings, text) == kind


def test_a_chunk_recorded_as_prose_is_told_by_its_shape_at_answer_time() -> None:
    base = {"content_hash": "h", "chunk_index": 0, "token_count": 3, "text": WELCOME}
    landing = Chunk(source_path="m/index.md", extra={"content_kind": "prose"}, **base)  # type: ignore[arg-type]
    chapter = Chunk(source_path="m/ros2.md", extra={"content_kind": "prose"}, **base)  # type: ignore[arg-type]
    assert kind_of(landing) == "overview"
    assert kind_of(chapter) == "prose"


def test_recorded_kind_wins_and_old_chunks_are_derived() -> None:
    base = {"content_hash": "h", "chunk_index": 0, "token_count": 3, "text": "Which is a node?"}
    recorded = Chunk(source_path="a.md", extra={"content_kind": "exercise"}, **base)  # type: ignore[arg-type]
    derived = Chunk(source_path="quizzes/q.md", **base)  # type: ignore[arg-type]
    assert kind_of(recorded) == "exercise"
    assert kind_of(derived) == "quiz"


def test_table_rows_keep_their_column_names() -> None:
    from lectern.writers.units import units_of

    text = (
        "Hardware:\n\nPart | Minimum | Recommended\nGPU | RTX 2070 | RTX 4080\nRAM | 32 GB | 64 GB\n\nDone."
    )
    rows = [u.text for u in units_of(text) if u.bullet]
    assert rows == [
        "GPU: Minimum: RTX 2070; Recommended: RTX 4080",
        "RAM: Minimum: 32 GB; Recommended: 64 GB",
    ]


@pytest.mark.parametrize(
    ("question", "kinds"),
    [
        ("In the walking and grasping lab, what torque limit does the controller set?", {"exercise"}),
        ("Which robot model does Isaac Sim Lab 1 use?", {"exercise"}),
        ("For the exercises, how much of the grade goes to the write-up?", {"exercise"}),
        ("Our robot lives in a lab with a flaky connection. Which speech model works offline?", set()),
        ("My lab is about to buy a workstation: which GPU?", set()),
        ("What does the quiz on URDF ask?", {"quiz"}),
        ("What are the prerequisites for the navigation module?", {"overview"}),
        ("What is a ROS 2 topic?", set()),
        ("Which weeks of the course are spent on the Isaac module?", {"navigation", "overview"}),
        ("What does the perception module cover?", {"navigation", "overview"}),
    ],
)
def test_asked_kinds(question: str, kinds: set[str]) -> None:
    assert asked_kinds(question) == kinds
