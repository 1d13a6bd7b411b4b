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
from functools import lru_cache
from typing import Any

log = logging.getLogger(__name__)


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
