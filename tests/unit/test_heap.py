"""Returning freed C heap to the OS: a no-op where the platform cannot, never an error."""

from __future__ import annotations

import sys

import pytest

from lectern.index import heap


def test_release_free_memory_runs_on_glibc() -> None:
    released = heap.release_free_memory()
    if sys.platform.startswith("linux"):
        assert released is True


def test_release_free_memory_without_libc(monkeypatch: pytest.MonkeyPatch) -> None:
    heap._libc.cache_clear()
    monkeypatch.setattr(heap.ctypes.util, "find_library", lambda name: None)
    try:
        assert heap.release_free_memory() is False
    finally:
        heap._libc.cache_clear()
