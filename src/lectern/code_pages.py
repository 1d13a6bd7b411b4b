"""Let go of shared-library pages a server touched once, at start-up or in a rare load, and not since.

A shared library's code and constants are mapped from its file; each page the process touches stays
in its resident set (RSS) for good, and the kernel maps up to 64 kB around each page touched (its
default fault-around). Opening a LanceDB table, reading a whole table into memory and building the
keyword index run code that no answer runs again: a server on a textbook's 1k chunks held 89 MB of
LanceDB's library after its first answers, of which the next answers ran 14 MB; on SciFact's 10k
chunks the server's file-backed RSS after 1,000 answers fell from ~190 MB to 48 MB.
``madvise(MADV_DONTNEED)`` on those mappings drops the process's page-table entries: the pages stay in
the kernel's page cache (nothing is read from disk again), and those an answer does run come back at
their first touch, as minor faults (the server's CPU per answer over 1,000 SciFact answers did not
change measurably).

Only a shared library's mappings that were never written are released: no write permission and no
private (copy-on-write) page, so nothing is lost. Python never unloads a library, so the mapping
still holds the same file when the advice arrives. Elsewhere than Linux this does nothing.
"""

from __future__ import annotations

import ctypes
import logging
import mmap
import sys
import threading
from collections.abc import Iterator
from functools import lru_cache
from pathlib import Path
from typing import Any

log = logging.getLogger(__name__)

SMAPS = Path("/proc/self/smaps")
_RELEASING = threading.Lock()  # one pass at a time; a second caller has nothing left to release
_enabled = False


def enable(on: bool = True) -> bool:
    """Turn `release_code_pages` on for this process (a long-running server); off, it does nothing.
    Whether it was on before."""
    global _enabled
    before, _enabled = _enabled, on
    return before


@lru_cache(maxsize=1)
def _madvise() -> Any | None:
    if not sys.platform.startswith("linux") or not hasattr(mmap, "MADV_DONTNEED"):
        return None
    try:
        libc = ctypes.CDLL(None, use_errno=True)
        advise = libc.madvise
    except (OSError, AttributeError):
        return None
    advise.argtypes = [ctypes.c_void_p, ctypes.c_size_t, ctypes.c_int]
    advise.restype = ctypes.c_int
    return advise


def is_shared_library(path: str) -> bool:
    """A loaded shared object (``libx.so``, ``libx.so.6``, ``mod.cpython-311-x86_64-linux-gnu.so``)."""
    name = path.rsplit("/", 1)[-1]
    return path.startswith("/") and (name.endswith(".so") or ".so." in name)


def releasable(smaps: str) -> Iterator[tuple[int, int, int]]:
    """(start, length, resident kB) of each shared-library mapping in `smaps` (the text of
    /proc/PID/smaps) with resident pages, no write permission and no private copy of a page."""
    header: tuple[int, int, str, str] | None = None
    resident = anonymous = 0

    def done() -> Iterator[tuple[int, int, int]]:
        if header is None:
            return
        start, end, perms, path = header
        if "w" not in perms and anonymous == 0 and resident > 0 and is_shared_library(path):
            yield start, end - start, resident

    for line in smaps.splitlines():
        first, _, rest = line.partition(" ")
        if first.endswith(":"):
            if first == "Rss:":
                resident = int(rest.split()[0])
            elif first == "Anonymous:":
                anonymous = int(rest.split()[0])
            continue
        if "-" not in first:
            continue
        yield from done()
        fields = rest.split(maxsplit=4)  # perms, offset, device, inode, path
        low, _, high = first.partition("-")
        path = fields[4].strip() if len(fields) > 4 else ""
        header = (int(low, 16), int(high, 16), fields[0], path)
        resident = anonymous = 0
    yield from done()


def release_code_pages() -> int:
    """Drop this process's resident pages of shared-library code and constants (see the module);
    the kB released, 0 when turned off or off Linux."""
    advise = _madvise()
    if not _enabled or advise is None:
        return 0
    with _RELEASING:
        try:
            text = SMAPS.read_text()
        except OSError:
            return 0
        released = 0
        for start, length, resident in releasable(text):
            if advise(start, length, mmap.MADV_DONTNEED) == 0:
                released += resident
    log.debug("released %d kB of shared-library pages", released)
    return released


def release_code_pages_soon() -> None:
    """`release_code_pages` on a thread of its own: reading /proc/self/smaps takes 20-70 ms, which the
    query that loaded a table should not wait for."""
    if _enabled and _madvise() is not None:
        threading.Thread(target=release_code_pages, name="lectern-code-pages", daemon=True).start()
