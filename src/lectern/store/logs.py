"""Seed 002 AgentLogEntry events, stored for monitoring and per-thread debugging."""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime
from uuid import UUID

import sqlalchemy as sa
from sqlalchemy.engine import Connection

from lectern.store import convert
from lectern.store import tables as t
from lectern.store.base import StoreBase
from lectern.store.models import EventType, LogEvent, NewLogEvent
from lectern.store.statements import Statements

_INSERT = sa.insert(t.log_events)
_EVENT_FIELDS = convert.new_row_fields(NewLogEvent)


class LogOps(StoreBase):
    async def log_events(self, events: Sequence[NewLogEvent]) -> None:
        """Store a batch in one transaction (on SQLite every write transaction queues for one lock, so
        a request should log its stages together rather than one by one)."""
        if not events:
            return
        now = self._now()
        rows = [_row(e, now) for e in events]

        def work(ex: Statements) -> None:
            ex.run(_INSERT, rows)

        await self._write_statements(work)

    async def log_event(self, event: NewLogEvent) -> None:
        await self.log_events([event])

    async def list_log_events(
        self,
        *,
        thread_id: UUID | None = None,
        event_type: EventType | None = None,
        since: datetime | None = None,
        limit: int = 100,
    ) -> list[LogEvent]:
        """The newest ``limit`` matching events, oldest first."""
        query = sa.select(t.log_events)
        if thread_id is not None:
            query = query.where(t.log_events.c.thread_id == thread_id)
        if event_type is not None:
            query = query.where(t.log_events.c.event_type == event_type)
        if since is not None:
            query = query.where(t.log_events.c.timestamp >= since)
        query = query.order_by(t.log_events.c.timestamp.desc(), t.log_events.c.event_id.desc()).limit(limit)

        def work(conn: Connection) -> list[LogEvent]:
            return [convert.log_event(r) for r in reversed(conn.execute(query).all())]

        return await self._read(work)


def _row(event: NewLogEvent, now: datetime) -> dict[str, object]:
    row: dict[str, object] = convert.attributes(event, _EVENT_FIELDS)
    row["timestamp"] = event.timestamp or now
    return row
