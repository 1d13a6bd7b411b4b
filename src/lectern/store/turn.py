"""Whose turn it is to write a SQLite file, across processes (``lectern serve --workers N``).

Two processes that write one file meet at SQLite's write lock, and SQLite's busy handler waits for it
by sleeping 1, 2, 5, 10, 15... ms between tries: a lock held for 10 ms cost the other process ~19 ms,
and with both processes committing back to back a waiter keeps waking to find the lock taken again.
An exclusive ``flock`` on a file beside the database (``<database>.turn``) hands the turn over when
it is released: the kernel wakes the waiter at once.

The wait is bounded. A process that stops while it holds the turn (SIGSTOP, a debugger, swapping)
must not stop the others: after ``wait_s`` a writer goes on without the turn, to SQLite's own lock
and busy_timeout, as it would with no turn at all, and so do this process's later writes until the
turn comes free again (a thread keeps waiting for it, then hands it back). So a stopped process costs
the others one wait of ``wait_s``, never more, and an acknowledged write is committed as always:
the turn only orders writers, SQLite's lock still guards the file. A process that dies releases its
turn with its file descriptors.

The turn alternates. A writer that releases the turn and wants it again at once (its next batch
queued behind the last) would win it back before a waiting process's thread had even woken: the
other process starved until its wait ran out. So a writer passes a second lock, the entry
(``<database>.turn-entry``), on its way to the turn, and a writer blocked on the turn keeps the entry
meanwhile: the releaser, wanting the turn back, now queues at the entry behind it.
"""

from __future__ import annotations

import fcntl
import logging
import os
import queue
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

log = logging.getLogger("lectern.store")

TURN_SUFFIX = ".turn"
ENTRY_SUFFIX = ".turn-entry"
TURN_WAIT_S = 0.5  # far longer than any write transaction; a stopped holder costs the others this, once


class _Ask:
    """One writer waiting for the turn on the waiter thread."""

    __slots__ = ("given_up", "granted", "handed")

    def __init__(self) -> None:
        self.handed = threading.Event()
        self.granted = False
        self.given_up = False


class WriteTurn:
    """The turn of one database file. ``acquire`` and ``release`` are called by the one thread that
    writes (the store's writer thread); ``acquire`` says whether the turn is held."""

    def __init__(self, path: Path, *, wait_s: float = TURN_WAIT_S) -> None:
        self.path = path
        self.wait_s = wait_s
        self._waiter: threading.Thread | None = None
        self._fd = self._entry = -1
        try:
            self._fd = _open(path)
            self._entry = _open(path.with_name(path.name.removesuffix(TURN_SUFFIX) + ENTRY_SUFFIX))
        except OSError as exc:
            if self._fd >= 0:
                os.close(self._fd)
            # another user's file, a read-only folder: SQLite's own lock still keeps writes apart
            log.warning("writing %s without turns: %s", path.name.removesuffix(TURN_SUFFIX), exc)
            self._fd = self._entry = -1
        self._lock = threading.Lock()
        self._asks: queue.SimpleQueue[_Ask | None] = queue.SimpleQueue()  # None: close
        # Set when a wait ran out while the waiter thread still waits: writers skip the turn until it
        # gets it (and hands it back), so a stopped holder costs one wait, not one per write. For good
        # when the files cannot be opened.
        self.stalled = self._fd < 0

    def acquire(self) -> bool:
        """Take the turn, waiting up to ``wait_s``; False: go on without it (SQLite's lock still holds)."""
        if self.stalled:
            return False
        try:
            fcntl.flock(self._entry, fcntl.LOCK_EX | fcntl.LOCK_NB)
            try:
                fcntl.flock(self._fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
            except BlockingIOError:
                pass  # keep the entry while the waiter thread waits for the turn
            else:
                fcntl.flock(self._entry, fcntl.LOCK_UN)
                return True
        except BlockingIOError:
            pass
        # Another process has it: a blocking flock, woken at its release, on a thread that can outlive
        # our wait (this thread cannot be woken out of a blocking flock).
        ask = _Ask()
        self._start_waiter()
        self._asks.put(ask)
        ask.handed.wait(self.wait_s)
        with self._lock:
            if ask.granted:
                return True
            ask.given_up = True
            self.stalled = True
        return False

    def release(self) -> None:
        fcntl.flock(self._fd, fcntl.LOCK_UN)

    @contextmanager
    def taken(self) -> Iterator[None]:
        """The turn for one write, when `acquire` gets it; the write goes on either way."""
        held = self.acquire()
        try:
            yield
        finally:
            if held:
                self.release()

    def _start_waiter(self) -> None:
        if self._waiter is None:
            # A daemon: it may wait for a stopped process for ever, and must not hold up exit.
            self._waiter = threading.Thread(target=self._wait_loop, name="lectern-store-turn", daemon=True)
            self._waiter.start()

    def _wait_loop(self) -> None:
        while True:
            ask = self._asks.get()
            if ask is None:
                os.close(self._fd)
                os.close(self._entry)
                return
            fcntl.flock(self._entry, fcntl.LOCK_EX)  # held already if the turn alone was taken
            fcntl.flock(self._fd, fcntl.LOCK_EX)
            fcntl.flock(self._entry, fcntl.LOCK_UN)
            with self._lock:
                if not ask.given_up:
                    ask.granted = True
                    ask.handed.set()
                    continue
                # the writer went on without it: give the turn back and use it again from now on
                fcntl.flock(self._fd, fcntl.LOCK_UN)
                self.stalled = False

    def close(self) -> None:
        """After the last write. The file is closed by the waiter thread when there is one (once it has
        the turn back, if it is still waiting for it)."""
        self.stalled = True  # no more turns
        if self._fd < 0:
            return
        if self._waiter is None:
            os.close(self._fd)
            os.close(self._entry)
        else:
            self._asks.put(None)


def _open(path: Path) -> int:
    return os.open(path, os.O_RDWR | os.O_CREAT | os.O_CLOEXEC, 0o644)


def turn_path(database: str) -> Path:
    """The turn file of a SQLite database file."""
    return Path(database).expanduser().with_name(Path(database).name + TURN_SUFFIX)
