"""Keep-alive connections spread evenly over the worker processes of ``serve --workers N``.

The workers share one listening socket and the operating system hands each new connection to
whichever worker accepts first; a keep-alive connection then stays with that worker for good. A pool
of long-lived connections (a proxy's, a load generator's) ends up split unevenly: 32 connections went
6/26 to 17/15 over two workers, the busier worker answered its share at up to twice the other's
latency, and it alone set the tail (p99). So each worker publishes how many connections sent it a
request lately in a small table that the sibling workers share (a file mapped in memory, one slot per
worker), and a worker that holds at least two more than the least busy one asks one client to
reconnect: ``Connection: close`` on a response, once per ``MOVE_EVERY_S`` at most. HTTP/1.1 clients
open a new connection for their next request, which the operating system may hand to any worker;
repeated, the counts even out. Answers are unchanged; a moved client pays one loopback connect.

Only uvicorn's worker processes (``multiprocessing`` children) share a table: the siblings of one
supervisor find the same file by its process id. A single process serves as before.
"""

from __future__ import annotations

import asyncio
import contextlib
import fcntl
import logging
import math
import mmap
import multiprocessing
import os
import struct
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

log = logging.getLogger(__name__)

SLOTS = 64  # `serve --workers` allows up to 64
_SLOT = struct.Struct("=iid")  # pid, connections, when it was written (time.monotonic, system-wide)
# A connection counts while a request on it is being answered, and for this long after the answer
# (clients that wait longer between questions stop counting). Had a slow answer stopped counting
# (1.3 s at the tail under load), the siblings would have moved clients back and forth.
ACTIVE_S = 1.0
PUBLISH_EVERY_S = 0.2  # how often a worker refreshes its slot
STALE_S = 1.0  # a slot not refreshed for this long belongs to a worker that is gone or stuck
# At most one client asked to reconnect per worker per this long: a moved client's new connection is
# counted when its next request arrives, a few milliseconds later.
MOVE_EVERY_S = 0.05


def should_move(mine: int, others: list[int]) -> bool:
    """Whether a worker holding ``mine`` connections should hand one over, the live siblings holding
    ``others``: only when the least busy one would still hold no more than this one afterwards."""
    return bool(others) and mine - min(others) >= 2


def table_path(supervisor_pid: int) -> Path:
    shm = Path("/dev/shm")
    folder = shm if shm.is_dir() and os.access(shm, os.W_OK) else Path(tempfile.gettempdir())
    return folder / f"lectern-workers-{supervisor_pid}"


class WorkerTable:
    """The siblings' shared slots: this worker writes its own and reads the others'."""

    def __init__(self, path: Path, pid: int | None = None) -> None:
        self.path = path
        self.pid = pid or os.getpid()
        fd = os.open(path, os.O_RDWR | os.O_CREAT | os.O_NOFOLLOW, 0o600)
        try:
            if os.fstat(fd).st_uid != os.getuid():  # another user's file could feed us counts
                raise PermissionError(f"{path} belongs to another user")
            fcntl.flock(fd, fcntl.LOCK_EX)  # siblings start at once: one claims a slot at a time
            if os.fstat(fd).st_size < SLOTS * _SLOT.size:
                os.ftruncate(fd, SLOTS * _SLOT.size)
            self._map = mmap.mmap(fd, SLOTS * _SLOT.size)
            self.slot = self._claim()
            fcntl.flock(fd, fcntl.LOCK_UN)
        finally:
            os.close(fd)

    def _claim(self) -> int:
        now = time.monotonic()
        for slot in range(SLOTS):
            pid, _, written = _SLOT.unpack_from(self._map, slot * _SLOT.size)
            if pid == 0 or pid == self.pid or now - written > STALE_S * 5:
                self.publish(0, slot=slot)
                return slot
        raise RuntimeError("no free worker slot")

    def publish(self, connections: int, *, slot: int | None = None) -> None:
        index = self.slot if slot is None else slot
        _SLOT.pack_into(self._map, index * _SLOT.size, self.pid, connections, time.monotonic())

    def others(self) -> list[int]:
        """The connections of every sibling that refreshed its slot lately."""
        since = time.monotonic() - STALE_S
        return [
            connections
            for slot, (pid, connections, written) in enumerate(_SLOT.iter_unpack(self._map))
            if pid and written >= since and slot != self.slot
        ]

    def close(self) -> None:
        """Frees this worker's slot; the last worker out removes the file."""
        _SLOT.pack_into(self._map, self.slot * _SLOT.size, 0, 0, 0.0)
        empty = all(_SLOT.unpack_from(self._map, s * _SLOT.size)[0] == 0 for s in range(SLOTS))
        self._map.close()
        if empty:
            with contextlib.suppress(OSError):
                self.path.unlink()


class Balancer:
    """One worker's side: notes each request's connection, publishes the count, and says when a
    response should ask its client to reconnect."""

    def __init__(self, table: WorkerTable, clock: Callable[[], float] = time.monotonic) -> None:
        self.table = table
        self._clock = clock
        # connection (client address and port) -> when its last response ended (inf: one is running)
        self._seen: dict[object, float] = {}
        self._moved_at = -MOVE_EVERY_S

    def connections(self) -> int:
        return len(self._seen)

    def arrived(self, client: object) -> None:
        """Records a request on ``client``'s connection; a new one is published at once, so that the
        siblings' moves see where a moved client landed."""
        new = client not in self._seen
        self._seen[client] = math.inf  # busy until its response ends: never quiet meanwhile
        if new:
            self.table.publish(len(self._seen))

    def finished(self, client: object) -> None:
        """A response to ``client`` ended: its quiet time counts from here."""
        if client in self._seen:
            self._seen[client] = self._clock()

    def should_close(self, client: object) -> bool:
        """Whether the response to ``client`` should ask it to reconnect (forgetting it if so)."""
        if len(self._seen) < 2:  # `should_move` needs two more than a sibling: no need to read the table
            return False
        now = self._clock()
        if now - self._moved_at < MOVE_EVERY_S or not should_move(len(self._seen), self.table.others()):
            return False
        self._moved_at = now
        self._seen.pop(client, None)  # it reconnects, perhaps to another worker
        self.table.publish(len(self._seen))
        return True

    def refresh(self) -> None:
        """Forgets connections quiet for ``ACTIVE_S`` and publishes the count (a heartbeat too)."""
        cutoff = self._clock() - ACTIVE_S
        for client in [c for c, at in self._seen.items() if at < cutoff]:
            del self._seen[client]
        self.table.publish(len(self._seen))

    async def run(self) -> None:
        while True:
            self.refresh()
            await asyncio.sleep(PUBLISH_EVERY_S)


def sibling_balancer() -> Balancer | None:
    """A balancer when this process is one of a supervisor's workers (uvicorn --workers), else None."""
    if multiprocessing.parent_process() is None:
        return None
    try:
        return Balancer(WorkerTable(table_path(os.getppid())))
    except (OSError, RuntimeError, ValueError):
        log.warning("worker_balance_unavailable", exc_info=True)
        return None
