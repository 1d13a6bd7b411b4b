"""UTCDateTime on SQLite: the fused processors write and read exactly what the two-step ones did."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta, timezone

import pytest
import sqlalchemy as sa
from sqlalchemy.dialects import postgresql, sqlite

from lectern.store.types import UTCDateTime

SQLITE = sqlite.dialect()

VALUES = [
    datetime(2026, 11, 29, 8, 2, 53, 620127, tzinfo=UTC),
    datetime(2026, 1, 1, tzinfo=UTC),  # no microseconds: still written with ".000000"
    datetime(5, 1, 2, 3, 4, 5, tzinfo=UTC),  # a year below 1000 keeps its four digits
    datetime(2026, 1, 1, tzinfo=timezone(timedelta(hours=5))),  # converted to UTC first
    datetime(2026, 6, 1, 12, 0, 0, 7, tzinfo=timezone(timedelta(hours=-3, minutes=-30))),
]


def _processors(dialect: sa.Dialect) -> tuple:  # type: ignore[type-arg]
    impl = UTCDateTime().dialect_impl(dialect)
    fused = impl.bind_processor(dialect), impl.result_processor(dialect, None)
    # TypeDecorator's own composition: process_bind_param, then the dialect's DATETIME processors
    two_step = (
        sa.TypeDecorator.bind_processor(impl, dialect),
        sa.TypeDecorator.result_processor(impl, dialect, None),
    )
    return fused, two_step


@pytest.mark.parametrize("value", VALUES)
def test_sqlite_text_and_value_unchanged(value: datetime) -> None:
    (bind, result), (bind_before, result_before) = _processors(SQLITE)
    text = bind(value)
    assert text == bind_before(value)
    back = result(text)
    assert back == result_before(text) == value
    assert back.tzinfo is UTC


@pytest.mark.parametrize(
    "text",
    ["2026-01-01 00:00:00", "2026-01-01T00:00:00.000001", "2026-01-01 00:00:00.000001+01:00", None],
)
def test_sqlite_reads_other_texts_as_before(text: str | None) -> None:
    (_, result), (_, result_before) = _processors(SQLITE)
    assert result(text) == result_before(text)


def test_sqlite_refuses_naive_values() -> None:
    (bind, _), _ = _processors(SQLITE)
    assert bind(None) is None
    with pytest.raises(ValueError, match="naive"):
        bind(datetime(2026, 1, 1))


def test_other_dialects_keep_the_composed_processors() -> None:
    dialect = postgresql.dialect()
    (bind, _), _ = _processors(dialect)
    value = datetime(2026, 1, 1, tzinfo=timezone(timedelta(hours=2)))
    assert bind(value) == value.astimezone(UTC)
