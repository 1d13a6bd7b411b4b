"""Give freed heap memory back to the operating system after a large, rare allocation.

Reading a whole table into memory (a snapshot) makes LanceDB's reader allocate and free about three
times the table's size through the C allocator; glibc keeps the freed pages (90 MB at 10k chunks),
so the server's resident memory stays at its peak. ``malloc_trim`` returns them. Elsewhere than glibc
this does nothing.
"""

from __future__ import annotations

import ctypes
import ctypes.util
import logging
import os
from functools import lru_cache
from typing import Any

log = logging.getLogger(__name__)

ARENAS_VARIABLE = "MALLOC_ARENA_MAX"
SERVER_ARENAS = 1
_M_ARENA_MAX = -8  # mallopt's parameter number (malloc.h)


@lru_cache(maxsize=1)
def _libc() -> Any | None:
    name = ctypes.util.find_library("c")
    if not name:
        return None
    try:
        libc = ctypes.CDLL(name)
        return libc if hasattr(libc, "malloc_trim") else None
    except OSError:
        return None


def release_free_memory() -> bool:
    """Trim the C heap; whether this platform could (glibc)."""
    libc = _libc()
    if libc is None:
        return False
    libc.malloc_trim(0)
    return True


def limit_arenas(default: int = SERVER_ARENAS) -> int | None:
    """Cap glibc's malloc arenas for this process and the workers it starts; the cap in force, or None
    off glibc.

    glibc gives threads up to 8 arenas per core, each keeping the memory its threads freed. A server's
    threads (the request pool, LanceDB's, onnxruntime's) took 15-20 MB more resident memory over 200
    SciFact answers with the default than with one arena, for no measurable CPU per answer on 2 cores.
    An operator's MALLOC_ARENA_MAX (many cores and concurrent requests) wins: glibc has read it already."""
    value = os.environ.setdefault(ARENAS_VARIABLE, str(default))  # workers read it when they start
    libc = _libc()
    if libc is None or not hasattr(libc, "mallopt"):
        return None
    try:
        arenas = max(1, int(value))
    except ValueError:
        return None
    libc.mallopt(_M_ARENA_MAX, arenas)
    return arenas
