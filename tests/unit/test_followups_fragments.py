"""A turn that is only a fragment continues the previous question as an "and ..." does
(`followups.rewrite._is_fragment`): a subordinate clause ("if the floor is icy?") or a short noun phrase
naming a thing ("the consumer?"), when read alone it would be left as asked or only given the previous
topic in brackets. Requests, picks ("the first one?"), quantified phrases ("any cheaper option?") and
questions of their own are read as before."""

from __future__ import annotations

import pytest

from lectern.followups import standalone_query
from lectern.followups.rewrite import _is_fragment


@pytest.mark.parametrize(
    ("previous", "fragment"),
    [
        ("what late fee does the library charge for a book?", "if the borrower is a student?"),
        ("how long does the bakery keep sourdough fresh?", "when the loaf is sliced?"),
        ("how do I write a minimal producer with the queue client?", "the consumer?"),
    ],
)
def test_a_fragment_reads_as_its_and_form(previous: str, fragment: str) -> None:
    anded = standalone_query(f"and {fragment}", [previous])
    expected = anded[4:] if anded.lower().startswith("and ") else anded
    assert standalone_query(fragment, [previous]) == expected
    assert standalone_query(fragment, [previous]) != fragment


@pytest.mark.parametrize(
    "question",
    [
        "when is the report due?",  # "when" asks
        "When I say 'restart it', which service restarts?",  # a clause of its own after the comma
        "example?",  # a request, no thing
        "any cheaper option?",  # a quantified phrase
        "the first one?",  # a pick of the listed
        "explain the third prompt more?",  # a request
        "and the consumer?",  # an opener of its own
        "if it is a DVD",  # no question mark
    ],
)
def test_not_a_fragment(question: str) -> None:
    assert not _is_fragment(question)


def test_a_fragment_whose_and_form_only_brackets_is_left_as_before() -> None:
    # "and DVDs?" only carries the previous topic in brackets: nothing to gain, the fragment is kept
    previous = ["what late fee does the library charge for books?"]
    assert standalone_query("DVDs?", previous) == "DVDs?"
