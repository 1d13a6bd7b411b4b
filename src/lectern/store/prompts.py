"""Seed 004 prompts: InFlight → Done | Cancelled | Error, idempotency keys, and stored deltas for replay."""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime, timedelta
from typing import Any
from uuid import UUID, uuid4

import sqlalchemy as sa
from sqlalchemy.engine import Connection

from lectern.errors import Conflict, InvalidInput, NotFound
from lectern.store import convert
from lectern.store import tables as t
from lectern.store.base import StoreBase
from lectern.store.models import Delta, NewDelta, Prompt, PromptStatus

ABANDONED = "abandoned"


class PromptOps(StoreBase):
    async def create_prompt(
        self,
        thread_id: UUID,
        text: str,
        *,
        owner: str | None = None,
        idempotency_key: str | None = None,
    ) -> tuple[Prompt, bool]:
        """A new InFlight prompt, or the existing one when ``idempotency_key`` was used in this session.

        Returns ``(prompt, created)``. With ``created=False`` the caller replays ``get_deltas`` instead of
        generating again. The session must exist (NotFound otherwise) and is resumed if archived. Safe
        under races: the UNIQUE(thread_id, idempotency_key) constraint decides, and the loser reads the
        winner's row.
        """
        if not text.strip():
            raise InvalidInput("Prompt text cannot be empty")

        def work(conn: Connection) -> tuple[Prompt, bool]:
            now = self._now()
            self._resume(conn, thread_id, owner, now)
            if idempotency_key is not None:
                existing = self._by_key(conn, thread_id, idempotency_key)
                if existing is not None:
                    return existing, False
            prompt_id = uuid4()
            insert = self._insert_ignore(t.prompts).values(
                prompt_id=prompt_id,
                thread_id=thread_id,
                owner=owner,
                text=text,
                idempotency_key=idempotency_key,
                status=PromptStatus.IN_FLIGHT.value,
                created_at=now,
            )
            row = conn.execute(insert.returning(*t.prompts.c)).first()
            if row is None:
                # Only the idempotency key can conflict: a concurrent request with it won the race.
                key = idempotency_key
                winner = None if key is None else self._by_key(conn, thread_id, key)
                if winner is None:
                    message = f"Prompt in session {thread_id} could not be created"
                    raise Conflict(message, code="prompt_conflict")
                return winner, False
            return convert.prompt(row), True

        return await self._write(work)

    def _by_key(self, conn: Connection, thread_id: UUID, key: str) -> Prompt | None:
        query = sa.select(t.prompts).where(
            t.prompts.c.thread_id == thread_id, t.prompts.c.idempotency_key == key
        )
        row = conn.execute(query).first()
        return None if row is None else convert.prompt(row)

    def _prompt_row(
        self,
        conn: Connection,
        prompt_id: UUID,
        owner: str | None,
        thread_id: UUID | None,
        *,
        lock: bool = False,
    ) -> sa.Row[Any]:
        query = sa.select(t.prompts).where(t.prompts.c.prompt_id == prompt_id)
        if lock:
            query = query.with_for_update()
        row = conn.execute(query).first()
        if row is None or row.owner != owner or (thread_id is not None and row.thread_id != thread_id):
            raise NotFound(f"Prompt {prompt_id} not found", code="prompt_not_found")
        return row

    async def get_prompt(
        self, prompt_id: UUID, *, owner: str | None = None, thread_id: UUID | None = None
    ) -> Prompt:
        """The prompt; NotFound if missing, another key's, or (when given) in another session."""

        def work(conn: Connection) -> Prompt:
            return convert.prompt(self._prompt_row(conn, prompt_id, owner, thread_id))

        return await self._read(work)

    async def append_deltas(
        self, prompt_id: UUID, deltas: Sequence[NewDelta], *, owner: str | None = None
    ) -> list[Delta]:
        """Store deltas in order and return them numbered. Conflict once the prompt has finished (a
        cancelled stream learns it here) or when a given ``seq`` is not the next one."""

        def work(conn: Connection) -> list[Delta]:
            row = self._prompt_row(conn, prompt_id, owner, None, lock=True)
            _require_in_flight(row)
            return self._insert_deltas(conn, row, deltas)

        return await self._write(work)

    async def finish_prompt(
        self,
        prompt_id: UUID,
        status: PromptStatus,
        *,
        owner: str | None = None,
        thread_id: UUID | None = None,
        token_count: int | None = None,
        error_code: str | None = None,
        error_message: str | None = None,
        deltas: Sequence[NewDelta] = (),
    ) -> Prompt:
        """Move an InFlight prompt to Done, Cancelled or Error, storing final ``deltas`` in the same
        transaction. Conflict if it has already finished (exactly one finisher wins a race)."""
        if not status.finished:
            raise InvalidInput("finish_prompt needs Done, Cancelled or Error")

        def work(conn: Connection) -> Prompt:
            row = self._prompt_row(conn, prompt_id, owner, thread_id, lock=True)
            _require_in_flight(row)
            self._insert_deltas(conn, row, deltas)
            values: dict[str, Any] = {
                "status": status.value,
                "finished_at": self._now(),
                "error_code": error_code,
                "error_message": error_message,
            }
            if token_count is not None:
                values["token_count"] = token_count
            update = (
                sa.update(t.prompts)
                .where(t.prompts.c.prompt_id == prompt_id)
                .values(**values)
                .returning(*t.prompts.c)
            )
            return convert.prompt(conn.execute(update).one())

        return await self._write(work)

    def _insert_deltas(self, conn: Connection, row: sa.Row[Any], deltas: Sequence[NewDelta]) -> list[Delta]:
        start: int = row.delta_count
        stored: list[Delta] = []
        for i, d in enumerate(deltas):
            if d.seq is not None and d.seq != start + i:
                raise Conflict(
                    f"Delta seq {d.seq} for prompt {row.prompt_id} is out of order; expected {start + i}",
                    code="delta_out_of_order",
                )
            stored.append(Delta(prompt_id=row.prompt_id, seq=start + i, **d.model_dump(exclude={"seq"})))
        if stored:
            conn.execute(sa.insert(t.prompt_deltas), [d.model_dump() for d in stored])
            conn.execute(
                sa.update(t.prompts)
                .where(t.prompts.c.prompt_id == row.prompt_id)
                .values(delta_count=start + len(stored))
            )
        return stored

    async def get_deltas(
        self,
        prompt_id: UUID,
        *,
        owner: str | None = None,
        after_seq: int = -1,
        limit: int | None = None,
    ) -> list[Delta]:
        """Stored deltas in seq order, for replaying an idempotent repeat (or tailing one in flight)."""

        def work(conn: Connection) -> list[Delta]:
            self._prompt_row(conn, prompt_id, owner, None)
            query = (
                sa.select(t.prompt_deltas)
                .where(t.prompt_deltas.c.prompt_id == prompt_id, t.prompt_deltas.c.seq > after_seq)
                .order_by(t.prompt_deltas.c.seq)
            )
            if limit is not None:
                query = query.limit(limit)
            return [convert.delta(r) for r in conn.execute(query)]

        return await self._read(work)

    async def abandon_stale_prompts(self, older_than_s: float, now: datetime | None = None) -> int:
        """Mark prompts InFlight for longer than ``older_than_s`` as Error ``abandoned``: their replica
        died mid-stream, and an idempotent repeat should not wait on them forever."""
        at = now or self._now()
        update = (
            sa.update(t.prompts)
            .where(
                t.prompts.c.status == PromptStatus.IN_FLIGHT.value,
                t.prompts.c.created_at < at - timedelta(seconds=older_than_s),
            )
            .values(
                status=PromptStatus.ERROR.value,
                finished_at=at,
                error_code=ABANDONED,
                error_message="The generation stopped without finishing.",
            )
        )

        def work(conn: Connection) -> int:
            return conn.execute(update).rowcount

        return await self._write(work)


def _require_in_flight(row: sa.Row[Any]) -> None:
    if row.status != PromptStatus.IN_FLIGHT.value:
        raise Conflict(f"Prompt {row.prompt_id} is already {row.status}", code="prompt_finished")
