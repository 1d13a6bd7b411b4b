"""The follow-up examples in docs/asking.md are what the rewriting does."""

from __future__ import annotations

from pathlib import Path

import pytest

from lectern.followups import standalone_query

ASKING = Path(__file__).resolve().parents[2] / "docs" / "asking.md"
HEADER = "| after | you ask | searched as |"


def _examples() -> list[tuple[str, str, str]]:
    lines = ASKING.read_text(encoding="utf-8").splitlines()
    at = lines.index(HEADER) + 2  # past the header and its |---| line
    rows = []
    for line in lines[at:]:
        if not line.startswith("|"):
            break
        cells = [cell.strip() for cell in line.strip("|").split("|")]
        assert len(cells) == 3, line
        rows.append((cells[0], cells[1], cells[2]))
    return rows


EXAMPLES = _examples()


def test_the_table_is_there() -> None:
    assert len(EXAMPLES) >= 10


@pytest.mark.parametrize(("previous", "question", "searched"), EXAMPLES, ids=[e[1] for e in EXAMPLES])
def test_documented_rewrite(previous: str, question: str, searched: str) -> None:
    assert standalone_query(question, [previous]) == searched
