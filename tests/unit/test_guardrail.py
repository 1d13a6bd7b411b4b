"""Layer 2 of the guardrail: a question naming something the retrieved text never mentions is refused."""

from __future__ import annotations

from collections.abc import Callable

import pytest

from lectern.confidence import Thresholds, assess
from lectern.guardrail import REFUSAL, coverage, is_name, related_sections, should_refuse
from lectern.models import Chunk, SearchHit
from tests.unit.answer_support import hit

ROBOTICS = [
    hit("Gazebo simulates robots with physics engines, cameras and lidar sensors.", 0.6),
    hit("A PID controller tunes its gains to follow a set point; ROS2 nodes run the loop.", 0.5),
]


def known_words(*words: str) -> Callable[[str], bool]:
    vocabulary = {w.lower() for w in words}
    return lambda term: term.lower() in vocabulary


@pytest.mark.parametrize(
    ("word", "first", "expected"),
    [
        ("Webots", False, True),
        ("ESP32", False, True),
        ("MoveIt", False, True),
        ("micro-ROS", False, True),
        ("ROS", False, True),
        ("Gazebo", True, False),
        ("quadcopter", False, False),
        ("ros_gz_bridge", True, True),
        ("setup.py", False, True),
        ("box-shaped", False, False),
    ],
)
def test_names(word: str, first: bool, expected: bool) -> None:
    assert is_name(word, first=first) is expected


def test_a_name_no_chunk_mentions_refuses() -> None:
    cover = coverage("How do I simulate a robot in Webots?", ROBOTICS, known_words("webots"))
    assert cover.unknown == ("Webots",)
    assert not cover.covered


def test_an_ordinary_word_the_collection_never_uses_refuses() -> None:
    cover = coverage("How do I tune PID gains for a quadcopter?", ROBOTICS, known_words("pid", "gains"))
    assert cover.unknown == ("quadcopter",)


def test_an_ordinary_word_used_elsewhere_in_the_collection_does_not_refuse() -> None:
    cover = coverage(
        "When is it worthwhile to simulate lidar in Gazebo?", ROBOTICS, known_words("worthwhile")
    )
    assert cover.missing == ("worthwhile",)
    assert cover.covered


def test_question_framing_words_never_count() -> None:
    cover = coverage("Why does Gazebo matter, and is it worth the effort?", ROBOTICS, known_words())
    assert "matter" not in cover.terms
    assert "worth" not in cover.terms


def test_names_match_with_or_without_the_space_before_a_version() -> None:
    assert coverage("How do ROS 2 nodes run a PID loop?", ROBOTICS, known_words()).covered
    spaced = [hit("ROS 2 nodes exchange messages over topics.", 0.6)]
    assert coverage("What do ROS2 nodes exchange?", spaced, known_words()).covered


def test_hyphenated_ordinary_words_are_covered_by_their_parts() -> None:
    chunks = [hit("Use a box shape that is shaped like the link, with mass and inertia.", 0.6)]
    assert coverage("How do I compute the inertia of a box-shaped link?", chunks, known_words()).covered


def test_should_refuse_combines_both_layers() -> None:
    t = Thresholds(0.6, 0.5, 0.4)
    good = assess([0.7, 0.7, 0.7], t)
    assert not should_refuse(good, coverage("How does Gazebo simulate lidar?", ROBOTICS, known_words()))
    assert should_refuse(good, coverage("How does Webots simulate lidar?", ROBOTICS, known_words()))
    assert should_refuse(assess([0.2], t))


def test_refusal_never_echoes_the_question() -> None:
    # The question may carry Markdown, HTML or links; the refusal is one fixed sentence.
    assert REFUSAL == "I don't have information about that in the documents."


def test_related_sections_are_close_distinct_expositions() -> None:
    hits = [
        _hit("Gazebo worlds hold models.", 0.55, path="a.md", url="/a#worlds"),
        _hit("Worlds again, same section.", 0.50, path="a.md", url="/a#worlds"),
        _hit("Quiz: which file holds a world?", 0.52, path="quiz.md", url="/quiz", kind="quiz"),
        _hit("Lighting in Unity scenes.", 0.45, path="b.md", url="/b#lights"),
        _hit("Cooking pasta.", 0.10, path="c.md", url="/c"),
    ]
    related = related_sections(hits)
    assert [h.chunk.url for h in related] == ["/a#worlds", "/b#lights"]


def _hit(text: str, similarity: float, *, path: str, url: str, kind: str = "prose") -> SearchHit:
    chunk = Chunk(
        text=text,
        content_hash=text,
        chunk_index=0,
        token_count=len(text.split()),
        source_path=path,
        url=url,
        extra={"content_kind": kind},
    )
    return SearchHit(chunk=chunk, similarity=similarity, score=similarity, rank=1)
