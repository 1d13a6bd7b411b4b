"""Run a one-off job in a Python process of its own, so that its peak memory (a model being quantised,
a word list being loaded) never becomes a long-running server's."""

from __future__ import annotations

import logging
import subprocess
import sys
from collections.abc import Sequence

log = logging.getLogger(__name__)


def run_apart(
    code: str, args: Sequence[str], *, timeout_s: float, event: str, stdin: bytes | None = None
) -> bool:
    """Run `code` (Python source; its arguments in `sys.argv[1:]`, `stdin` on its standard input: what
    a process list must not show) with this interpreter. Whether it exited cleanly; a failure is
    logged as `event` with the end of its stderr, never raised."""
    try:
        done = subprocess.run(
            [sys.executable, "-c", code, *args],
            input=stdin,
            capture_output=True,
            timeout=timeout_s,
            check=False,
        )
    except (OSError, subprocess.SubprocessError):
        log.warning(event, exc_info=True)
        return False
    if done.returncode != 0:
        log.warning(event, extra={"stderr": done.stderr.decode(errors="replace")[-2000:]})
    return done.returncode == 0
