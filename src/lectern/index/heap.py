"""Give freed heap memory back to the operating system after a large, rare allocation.

Reading a whole table into memory (a snapshot) makes LanceDB's reader allocate and free about three
times the table's size through the C allocator; glibc keeps the freed pages (90 MB at 10k chunks),
so the server's resident memory stays at its peak. ``malloc_trim`` returns them. Elsewhere than glibc
this does nothing.

A server also caps glibc's arenas (`limit_arenas`), keeps large blocks in mappings of their own
(`map_large_blocks`) and has pyarrow allocate through the C allocator (`system_arrow_pool`).
"""

from __future__ import annotations

import ctypes
import ctypes.util
import logging
import os
import sys
from functools import lru_cache
from typing import Any

log = logging.getLogger(__name__)

ARENAS_VARIABLE = "MALLOC_ARENA_MAX"
SERVER_ARENAS = 1
_M_ARENA_MAX = -8  # mallopt's parameter number (malloc.h)
MMAP_VARIABLE = "MALLOC_MMAP_THRESHOLD_"  # glibc's own spelling, trailing underscore included
SERVER_MMAP_THRESHOLD = 128 * 1024  # glibc's starting value, kept from then on
_M_MMAP_THRESHOLD = -3
ARROW_POOL_VARIABLE = "ARROW_DEFAULT_MEMORY_POOL"


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
    found = _mallopt_setting(ARENAS_VARIABLE, default)
    if found is None:
        return None
    libc, value = found
    arenas = max(1, value)
    libc.mallopt(_M_ARENA_MAX, arenas)
    return arenas


def map_large_blocks(default: int = SERVER_MMAP_THRESHOLD) -> int | None:
    """Serve blocks of `default` bytes and more from mappings of their own for this process and the
    workers it starts; the threshold in force, or None off glibc.

    glibc starts there too, but each time such a block is freed it raises the threshold to the block's
    size (up to 32 MB): from then on onnxruntime's activations (a batch of sentences embedded while
    answering) and LanceDB's read buffers come from the heap, whose freed pages stay resident. A fixed
    threshold hands them back on free: a server on SciFact's 10k chunks peaked ~110 MB lower over 30
    answers. An operator's MALLOC_MMAP_THRESHOLD_ wins: glibc has read it already."""
    found = _mallopt_setting(MMAP_VARIABLE, default)
    if found is None or found[1] < 0:
        return None
    libc, threshold = found
    libc.mallopt(_M_MMAP_THRESHOLD, threshold)
    return threshold


def system_arrow_pool() -> str:
    """pyarrow's buffers through the C allocator (with the heap settings above) rather than its bundled
    mimalloc, which keeps the segments it freed: ~18 MB less resident after a server's first answers.
    For this process and its workers; an operator's ARROW_DEFAULT_MEMORY_POOL wins. The pool asked for."""
    pool = os.environ.setdefault(ARROW_POOL_VARIABLE, "system")
    if pool == "system" and "pyarrow" in sys.modules:  # imported already: it has read the variable
        import pyarrow as pa

        pa.set_memory_pool(pa.system_memory_pool())
    return pool


def configure_server_heap() -> None:
    """The heap settings of a long-running server (`lectern serve`, `lectern mcp`): called first thing,
    before LanceDB's and onnxruntime's threads exist and before pyarrow's first buffer."""
    limit_arenas()
    map_large_blocks()
    system_arrow_pool()


def _mallopt_setting(variable: str, default: int) -> tuple[Any, int] | None:
    """libc and the whole number glibc's `variable` holds (`default` when unset, for this process and
    the workers it starts, which read it when they start); None off glibc or for a value that is not
    a whole number."""
    value = os.environ.setdefault(variable, str(default))
    libc = _libc()
    if libc is None or not hasattr(libc, "mallopt"):
        return None
    try:
        return libc, int(value)
    except ValueError:
        return None
