"""Probe conversations for a comparative without "than" ("how do newer systems differ ...?") over several
kinds of documents: a robotics book, a hardware kit's guide, a database service's docs, a recipe site,
a 3D printer manual and a cloud billing FAQ. A comparative before a noun the previous question named
weighs that noun against the one just talked about, so the question keeps its words and takes the
previous subject in brackets; one before a noun of its own, or with a "than", is left to the other
rules."""

import pytest

from lectern.followups import standalone_query


@pytest.mark.parametrize(
    ("previous", "question", "query"),
    [
        (
            "what does a robot's dialogue system consist of?",
            "how do newer systems differ from the classic pipeline?",
            "how do newer systems differ from the classic pipeline (robot's dialogue system consist)?",
        ),
        (
            "which sensors does the starter kit use?",
            "are there cheaper sensors I could buy?",
            "are there cheaper sensors I could buy (starter kit sensors)?",
        ),
        (
            "which database engines does the service support?",
            "do newer engines handle JSON columns?",
            "do newer engines handle JSON columns (service database engines)?",
        ),
        (
            "what printers does the slicer support?",
            "are bigger printers slower to calibrate?",
            "are bigger printers slower to calibrate (slicer printers)?",
        ),
        (
            "what plans does the cloud offer?",
            "which cheaper plans include backups?",
            "which cheaper plans include backups (cloud plans)?",
        ),
    ],
)
def test_a_comparative_before_the_previous_noun_leans_on_it(previous: str, question: str, query: str) -> None:
    assert standalone_query(question, [previous]) == query


@pytest.mark.parametrize(
    ("previous", "question"),
    [
        # the noun is the question's own
        ("how do I install Gazebo?", "is there a faster way to install Isaac Sim on Ubuntu?"),
        ("how do I proof dough overnight?", "which cheaper stand mixers knead bread dough well?"),
        # "than" says what it is weighed against
        (
            "which database engines does the service support?",
            "are newer engines faster than Postgres 12 at bulk imports?",
        ),
    ],
)
def test_a_comparative_of_its_own_stands_alone(previous: str, question: str) -> None:
    assert standalone_query(question, [previous]) == question
