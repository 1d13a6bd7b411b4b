"""The gaps report: topics, gaps, feedback and page counts from stored turns."""

from __future__ import annotations

import uuid
from collections.abc import Sequence
from datetime import UTC, datetime

import numpy as np

from lectern.index.base import DocumentSummary
from lectern.report import build_report, render_html
from lectern.store.feedback import ReportTurn

T0 = datetime(2025, 3, 3, 9, 0, tzinfo=UTC)
T1 = datetime(2025, 3, 10, 9, 0, tzinfo=UTC)


def turn(
    question: str, urls: Sequence[str] = (), confidence: float = 0.7, rating: str | None = None
) -> ReportTurn:
    return ReportTurn(
        thread_id=uuid.uuid4(),
        asked_at=T0,
        question=question,
        answer="An answer [1].",
        confidence=confidence if urls else 0.0,
        citations=[{"url": u, "title": u} for u in urls],
        rating=rating,
        comment="Missing detail" if rating == "down" else None,
    )


def by_keyword(texts: Sequence[str]) -> np.ndarray:
    """A fake embedder: one axis per subject, so the grouping is known."""
    subjects = ("gazebo", "ros", "bread")
    return np.array([[1.0 if s in t.lower() else 0.0 for s in subjects] + [0.01] for t in texts])


def test_topics_gaps_feedback_and_pages() -> None:
    turns = [
        turn("How do I install Gazebo?", ["/sim/gazebo#install"]),
        turn("Which Gazebo version works?", ["/sim/gazebo#versions"], confidence=0.3),
        turn("What is a ROS node?", ["/ros/nodes#what"], rating="down"),
        turn("How do I bake bread?"),
        turn("Can I bake bread with ROS?"),
    ]
    docs = [
        DocumentSummary("sim/gazebo.md", "Gazebo", "/sim/gazebo", 3),
        DocumentSummary("ros/nodes.md", "Nodes", "/ros/nodes", 2),
        DocumentSummary("urdf.md", "URDF", "/urdf", 2),
    ]
    report = build_report(turns, since=T0, until=T1, documents=docs, embed=by_keyword, low_below=0.5)

    assert report.totals.questions == 5
    assert (report.totals.refused, report.totals.low_confidence, report.totals.unhelpful) == (2, 1, 1)
    labels = [t.label for t in report.topics]
    assert any("gazebo" in label for label in labels)
    gazebo = next(t for t in report.topics if "gazebo" in t.label)
    assert (gazebo.questions, gazebo.low_confidence) == (2, 1)
    assert sum(g.questions for g in report.gaps) == 3
    assert report.negative_feedback[0].comment == "Missing detail"
    assert [(p.page, p.citations) for p in report.most_cited] == [("/sim/gazebo", 2), ("/ros/nodes", 1)]
    assert [p.page for p in report.never_cited] == ["/urdf"]
    page = render_html(report)
    assert "<svg" in page
    assert "http" not in page.replace("http-equiv", "")  # nothing fetched from anywhere
    assert "How do I bake bread?" in page


def test_html_escapes_questions() -> None:
    report = build_report([turn("<script>alert(1)</script>")], since=T0, until=T1)
    assert "<script>alert" not in render_html(report)
