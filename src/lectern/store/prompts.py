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
from lectern.store.models import Delta, NewDelta, Prompt, PromptStatus, ThreadInfo

ABANDONED = "abandoned"
INTERRUPTED = "interrupted"
# A lapsed lease: the process generating the prompt stopped renewing it (it died).
RESTARTABLE = frozenset({ABANDONED, INTERRUPTED})


class PromptOps(StoreBase):
    async def create_prompt(
        self,
        thread_id: UUID,
        text: str,
        *,
        owner: str | None = None,
        idempotency_key: str | None = None,
        lease_s: float | None = None,
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
                if existing is not None and self._interrupted(existing, now, lease_s):
                    # The process that ran it died: the retry runs it again, under the same prompt id.
                    return self._restart(conn, existing, now), True
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
                heartbeat_at=now,
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

    @staticmethod
    def _interrupted(prompt: Prompt, now: datetime, lease_s: float | None) -> bool:
        """Recovered as interrupted, or InFlight with a lease that lapsed (``lease_s`` given)."""
        if prompt.status is PromptStatus.ERROR:
            return prompt.error_code in RESTARTABLE
        if prompt.status is not PromptStatus.IN_FLIGHT or lease_s is None:
            return False
        beat = prompt.heartbeat_at or prompt.created_at
        return beat < now - timedelta(seconds=lease_s)

    def _restart(self, conn: Connection, prompt: Prompt, now: datetime) -> Prompt:
        conn.execute(sa.delete(t.prompt_deltas).where(t.prompt_deltas.c.prompt_id == prompt.prompt_id))
        update = (
            sa.update(t.prompts)
            .where(t.prompts.c.prompt_id == prompt.prompt_id)
            .values(
                status=PromptStatus.IN_FLIGHT.value,
                delta_count=0,
                token_count=0,
                error_code=None,
                error_message=None,
                finished_at=None,
                heartbeat_at=now,
            )
            .returning(*t.prompts.c)
        )
        return convert.prompt(conn.execute(update).one())

    async def heartbeat(self, prompt_ids: Sequence[UUID]) -> None:
        """Renew the lease of prompts this process is generating."""
        if not prompt_ids:
            return
        update = (
            sa.update(t.prompts)
            .where(
                t.prompts.c.prompt_id.in_(list(prompt_ids)),
                t.prompts.c.status == PromptStatus.IN_FLIGHT.value,
            )
            .values(heartbeat_at=self._now())
        )

        def work(conn: Connection) -> None:
            conn.execute(update)

        await self._write(work)

    async def recover_interrupted(self, lease_s: float, now: datetime | None = None) -> int:
        """Mark InFlight prompts whose lease lapsed as Error ``interrupted`` (their process died); a retry
        with the same idempotency key runs them again. Returns how many were recovered."""
        at = now or self._now()
        cutoff = at - timedelta(seconds=lease_s)
        beat = sa.func.coalesce(t.prompts.c.heartbeat_at, t.prompts.c.created_at)
        update = (
            sa.update(t.prompts)
            .where(t.prompts.c.status == PromptStatus.IN_FLIGHT.value, beat < cutoff)
            .values(
                status=PromptStatus.ERROR.value,
                finished_at=at,
                error_code=INTERRUPTED,
                error_message="The generation was interrupted (the server stopped); retry to run it again.",
            )
        )

        def work(conn: Connection) -> int:
            return conn.execute(update).rowcount

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

    async def session_status(self, thread_id: UUID, *, owner: str | None = None) -> tuple[ThreadInfo, str]:
        """Seed 004's SessionStatus with seed 003's counters: ``Active`` while a prompt runs or the
        session is in use, ``Completed`` once archived as idle, ``Cancelled``/``Error`` when its latest
        prompt ended so. NotFound for a missing or foreign session."""

        def work(conn: Connection) -> tuple[ThreadInfo, str]:
            info = convert.thread_info(self._thread_row(conn, thread_id, owner))
            latest = conn.execute(
                sa.select(t.prompts.c.status)
                .where(t.prompts.c.thread_id == thread_id)
                .order_by(t.prompts.c.created_at.desc())
                .limit(1)
            ).scalar()
            if latest == PromptStatus.IN_FLIGHT.value:
                return info, "Active"
            if info.archived:
                return info, "Completed"
            if latest in (PromptStatus.CANCELLED.value, PromptStatus.ERROR.value):
                return info, str(latest)
            return info, "Active"

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
        transaction. Conflict if it has already finished (exactly one finisher wins a race). A finisher
        stores at least its final delta: a Cancelled prompt without one is a cancel recorded by another
        process that its owner is still to finish (`awaits_owner`), which this call may complete."""
        if not status.finished:
            raise InvalidInput("finish_prompt needs Done, Cancelled or Error")

        def work(conn: Connection) -> Prompt:
            row = self._prompt_row(conn, prompt_id, owner, thread_id, lock=True)
            if not awaits_owner(convert.prompt(row)):  # the owner completes a cancel recorded elsewhere
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

    async def cancel_prompt(
        self,
        prompt_id: UUID,
        *,
        lease_s: float,
        final: NewDelta,
        owner: str | None = None,
        thread_id: UUID | None = None,
    ) -> bool:
        """Cancel an InFlight prompt that some other process generates (or generated). While its lease
        is fresh (that process is alive) only the status is set: the owner notices (``prompt_statuses``),
        stops, and stores its deltas and token count with ``finish_prompt``, as a cancel of its own
        would. A lapsed lease (the process died) is finished here with ``final``. True when the owner
        is left to finish it; Conflict if the prompt has already finished."""

        def work(conn: Connection) -> bool:
            row = self._prompt_row(conn, prompt_id, owner, thread_id, lock=True)
            _require_in_flight(row)
            now = self._now()
            alive = not self._interrupted(convert.prompt(row), now, lease_s)
            if not alive:
                self._insert_deltas(conn, row, [final])
            conn.execute(
                sa.update(t.prompts)
                .where(t.prompts.c.prompt_id == prompt_id)
                .values(status=PromptStatus.CANCELLED.value, finished_at=now)
            )
            return alive

        return await self._write(work)

    async def prompt_statuses(self, prompt_ids: Sequence[UUID]) -> dict[UUID, PromptStatus]:
        """The status of each of these prompts (by primary key): how the process generating them learns
        of a cancel recorded by another process when no Redis carries the signal."""
        if not prompt_ids:
            return {}
        query = sa.select(t.prompts.c.prompt_id, t.prompts.c.status).where(
            t.prompts.c.prompt_id.in_(list(prompt_ids))
        )

        def work(conn: Connection) -> dict[UUID, PromptStatus]:
            return {row.prompt_id: PromptStatus(row.status) for row in conn.execute(query)}

        return await self._read(work)

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


def awaits_owner(prompt: Prompt) -> bool:
    """Cancelled by another process while its owner was alive: the owner's deltas are still to come
    (every other way to finish a prompt stores at least its final delta)."""
    return prompt.status is PromptStatus.CANCELLED and prompt.delta_count == 0


def _require_in_flight(row: sa.Row[Any]) -> None:
    if row.status != PromptStatus.IN_FLIGHT.value:
        raise Conflict(f"Prompt {row.prompt_id} is already {row.status}", code="prompt_finished")
