"""Column types that behave the same on SQLite and PostgreSQL."""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Any

import sqlalchemy as sa
from sqlalchemy.dialects import postgresql
from sqlalchemy.engine import Dialect


class UTCDateTime(sa.TypeDecorator[datetime]):
    """A timestamptz that always comes back timezone-aware in UTC.

    SQLite has no time zones and returns naive values; storing everything as UTC keeps text comparisons
    (``last_active_at < cutoff``) correct there as well.
    """

    impl = sa.DateTime(timezone=True)
    cache_ok = True

    def process_bind_param(self, value: datetime | None, dialect: Dialect) -> datetime | None:
        if value is None:
            return None
        if value.tzinfo is None:
            raise ValueError("naive datetimes are ambiguous; pass a timezone-aware value")
        value = value.astimezone(UTC)
        return value.replace(tzinfo=None) if dialect.name == "sqlite" else value

    def process_result_value(self, value: datetime | None, dialect: Dialect) -> datetime | None:
        if value is None:
            return None
        return value.replace(tzinfo=UTC) if value.tzinfo is None else value.astimezone(UTC)


def json_type() -> sa.types.TypeEngine[Any]:
    """JSON on SQLite, JSONB on PostgreSQL; Python ``None`` is stored as SQL NULL."""
    return sa.JSON(none_as_null=True).with_variant(postgresql.JSONB(none_as_null=True), "postgresql")


def bigint_pk() -> sa.types.TypeEngine[int]:
    """BIGINT identity on PostgreSQL; INTEGER on SQLite, where only that spelling is the rowid alias."""
    return sa.BigInteger().with_variant(sa.Integer(), "sqlite")
