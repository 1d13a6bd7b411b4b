"""Random (version 4) UUIDs from a pool of ``os.urandom`` bytes.

``uuid.uuid4()`` makes one ``getrandom`` call per id, and an answer takes three (request, session,
prompt). A call that releases the GIL costs a busy server's event loop a wait to get it back (up to the
5 ms switch interval while worker threads run Python); one call per 256 ids keeps those waits off the
answer's path. The bytes are the same cryptographic ones, only read in bulk.
"""

from __future__ import annotations

import os
import threading
import uuid

POOL_BYTES = 4096  # 256 ids per getrandom call
ID_BYTES = 16


class _Pool:
    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._bytes = b""
        self._at = 0

    def take(self) -> bytes:
        with self._lock:
            if self._at + ID_BYTES > len(self._bytes):
                self._bytes, self._at = os.urandom(POOL_BYTES), 0
            start = self._at
            self._at += ID_BYTES
            return self._bytes[start : self._at]

    def reset(self) -> None:
        """A forked child must never hand out its parent's ids."""
        self._lock = threading.Lock()
        self._bytes, self._at = b"", 0


_pool = _Pool()
os.register_at_fork(after_in_child=_pool.reset)


def random_uuid() -> uuid.UUID:
    """As ``uuid.uuid4()``: 122 random bits, the version and variant set."""
    return uuid.UUID(bytes=_pool.take(), version=4)
