"""A database outage is logged once when it starts, once per interval while it lasts, and once when it
ends: a service under load would otherwise write a traceback for every request (thousands a minute)."""

from __future__ import annotations

import logging
import threading
import time
from collections.abc import Callable

log = logging.getLogger("lectern.store")

REPORT_EVERY_S = 30.0


class OutageLog:
    def __init__(self, every_s: float = REPORT_EVERY_S, clock: Callable[[], float] = time.monotonic) -> None:
        self.every_s = every_s
        self._clock = clock
        self._lock = threading.Lock()  # SQLite's worker threads and the event loop both report
        self.down_since: float | None = None
        self._reported_at = 0.0
        self._failures = 0  # since the last line
        self.total_failures = 0

    @property
    def down(self) -> bool:
        return self.down_since is not None

    def failed(self, exc: BaseException) -> None:
        now = self._clock()
        with self._lock:
            self._failures += 1
            self.total_failures += 1
            if self.down_since is None:
                self.down_since = self._reported_at = now
                self._failures = 0
                line, extra = "database unavailable", {}
            elif now - self._reported_at >= self.every_s:
                line = "database still unavailable"
                extra = {"failed_operations": self._failures, "down_s": round(now - self.down_since, 1)}
                self._reported_at = now
                self._failures = 0
            else:
                return
        log.error(line, extra={**extra, "error_type": type(exc).__name__, "error_message": str(exc)[:300]})

    def succeeded(self) -> None:
        if self.down_since is None:  # the common case: one attribute read, no lock
            return
        now = self._clock()
        with self._lock:
            if self.down_since is None:
                return
            down_s, self.down_since = now - self.down_since, None
            failures, self._failures = self._failures, 0
        log.warning(
            "database reachable again", extra={"down_s": round(down_s, 1), "failed_operations": failures}
        )
