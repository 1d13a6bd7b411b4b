"""One turn at a time per session: a second question on a session waits for the first to be answered.

Without this, 50 concurrent questions on one session were stored as 50 questions then 50 answers, and
each answer was written from a history that lacked the answers before it. Turns queue in arrival order
(``asyncio.Lock`` is fair); a full queue, or a wait longer than the limit, is a 429 ``session_busy`` with
Retry-After. The queue is per process: replicas behind a balancer should route a session to one replica
(sticky sessions) for the same guarantee.
"""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator, Callable
from contextlib import asynccontextmanager
from dataclasses import dataclass, field
from uuid import UUID

from lectern.errors import LecternError
from lectern.settings import Settings


class SessionBusy(LecternError):
    code = "session_busy"
    http_status = 429
    retry_after_s = 1


@dataclass
class _Slot:
    lock: asyncio.Lock = field(default_factory=asyncio.Lock)
    users: int = 0  # the turn being answered and the ones waiting


class SessionQueue:
    def __init__(self, *, max_waiting: int = 8, wait_s: float = 60.0) -> None:
        self.max_waiting = max_waiting
        self.wait_s = wait_s
        self._slots: dict[UUID, _Slot] = {}

    @classmethod
    def from_settings(cls, settings: Settings) -> SessionQueue:
        return cls(max_waiting=settings.session_max_waiting, wait_s=settings.session_turn_wait_s)

    def waiting(self, session_id: UUID) -> int:
        slot = self._slots.get(session_id)
        return 0 if slot is None else max(0, slot.users - 1)

    @asynccontextmanager
    async def turn(self, session_id: UUID) -> AsyncIterator[None]:
        release = await self.acquire(session_id)
        try:
            yield
        finally:
            release()

    async def acquire(self, session_id: UUID) -> Callable[[], None]:
        """Wait for the session's turn; the returned function ends it (calling it again does nothing),
        for faces whose turn outlives the route (a stream ends when its response does)."""
        slot = self._slots.setdefault(session_id, _Slot())
        if slot.users - 1 >= self.max_waiting:
            raise SessionBusy(
                f"Session {session_id} already has {self.max_waiting} questions waiting for an answer; "
                "retry once they are answered."
            )
        slot.users += 1
        try:
            async with asyncio.timeout(self.wait_s):
                await slot.lock.acquire()
        except BaseException as exc:  # timed out or cancelled while waiting: leave the queue
            self._leave(session_id, slot)
            if isinstance(exc, TimeoutError):
                raise SessionBusy(
                    f"Session {session_id} was still answering an earlier question after {self.wait_s:g} s; "
                    "retry shortly."
                ) from None
            raise
        done = False

        def release() -> None:
            nonlocal done
            if not done:
                done = True
                slot.lock.release()
                self._leave(session_id, slot)

        return release

    def _leave(self, session_id: UUID, slot: _Slot) -> None:
        slot.users -= 1
        if slot.users == 0 and self._slots.get(session_id) is slot:
            del self._slots[session_id]
