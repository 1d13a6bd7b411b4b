"""Column types that behave the same on SQLite and PostgreSQL."""

from __future__ import annotations

from collections.abc import Callable
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

    # SQLite: the two steps (this type's, then SQLite's DATETIME text) fused into one, without the
    # datetime.replace between them (~9 k instructions a call: its keyword arguments) and reading the
    # text back with its offset in one fromisoformat. The text is SQLite's default storage format,
    # YYYY-MM-DD HH:MM:SS.ffffff. A turn binds ~12 datetimes and reads ~8 (its window). Same text and
    # values (tests/unit/test_store_types.py).

    def bind_processor(self, dialect: Dialect) -> Callable[[Any], Any] | None:
        if dialect.name != "sqlite" or not _default_sqlite_format(self.impl_instance, dialect):
            return super().bind_processor(dialect)
        return _sqlite_bind

    def result_processor(self, dialect: Dialect, coltype: Any) -> Callable[[Any], Any] | None:
        if dialect.name != "sqlite" or not _default_sqlite_format(self.impl_instance, dialect):
            return super().result_processor(dialect, coltype)
        fallback = super().result_processor(dialect, coltype)
        assert fallback is not None

        def process(value: Any) -> datetime | None:
            # Only this store's own text takes the short way: anything else is parsed as before.
            if _own_text(value):
                return datetime.fromisoformat(value + "+00:00")  # aware, tzinfo is UTC
            result: datetime | None = fallback(value)
            return result

        return process


_TEXT_LEN = len("2000-01-01 00:00:00.000000")
_TEMPLATE = "%04d-%02d-%02d %02d:%02d:%02d.%06d"
_DEFAULT_FORMAT = "%(year)04d-%(month)02d-%(day)02d %(hour)02d:%(minute)02d:%(second)02d.%(microsecond)06d"


def _default_sqlite_format(impl: Any, dialect: Dialect) -> bool:
    """The dialect's DATETIME writes and reads the default text (no storage_format or regexp given)."""
    adapted = impl.dialect_impl(dialect)
    return getattr(adapted, "_storage_format", None) == _DEFAULT_FORMAT and not getattr(adapted, "_reg", None)


def _own_text(value: Any) -> bool:
    """Text as `_sqlite_bind` writes it: YYYY-MM-DD HH:MM:SS.ffffff, no offset."""
    return isinstance(value, str) and len(value) == _TEXT_LEN and value[19] == "." and value[20:].isdigit()


def _sqlite_bind(value: datetime | None) -> str | None:
    if value is None:
        return None
    if value.tzinfo is None:
        raise ValueError("naive datetimes are ambiguous; pass a timezone-aware value")
    if value.tzinfo is not UTC:
        value = value.astimezone(UTC)
    # SQLAlchemy's template, filled from a tuple (its dict costs more; isoformat more still)
    return _TEMPLATE % (
        value.year,
        value.month,
        value.day,
        value.hour,
        value.minute,
        value.second,
        value.microsecond,
    )


def json_type() -> sa.types.TypeEngine[Any]:
    """JSON on SQLite, JSONB on PostgreSQL; Python ``None`` is stored as SQL NULL."""
    return sa.JSON(none_as_null=True).with_variant(postgresql.JSONB(none_as_null=True), "postgresql")


def bigint_pk() -> sa.types.TypeEngine[int]:
    """BIGINT identity on PostgreSQL; INTEGER on SQLite, where only that spelling is the rowid alias."""
    return sa.BigInteger().with_variant(sa.Integer(), "sqlite")
