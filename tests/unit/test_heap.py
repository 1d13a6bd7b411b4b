"""Returning freed C heap to the OS: a no-op where the platform cannot, never an error."""

from __future__ import annotations

import os
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


class _FakeLibc:
    def __init__(self) -> None:
        self.calls: list[tuple[int, int]] = []

    def malloc_trim(self, pad: int) -> int:
        return 1

    def mallopt(self, param: int, value: int) -> int:
        self.calls.append((param, value))
        return 1


@pytest.fixture
def libc(monkeypatch: pytest.MonkeyPatch) -> _FakeLibc:
    fake = _FakeLibc()
    monkeypatch.setattr(heap, "_libc", lambda: fake)
    return fake


def test_a_server_caps_its_arenas_and_its_workers_too(
    libc: _FakeLibc, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv(heap.ARENAS_VARIABLE, "")  # registered, so the test's change is undone
    monkeypatch.delenv(heap.ARENAS_VARIABLE)
    assert heap.limit_arenas() == 1
    assert libc.calls == [(heap._M_ARENA_MAX, 1)]
    assert heap.os.environ[heap.ARENAS_VARIABLE] == "1"  # spawned workers start with it


def test_an_operators_arena_count_wins(libc: _FakeLibc, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv(heap.ARENAS_VARIABLE, "4")
    assert heap.limit_arenas() == 4
    assert libc.calls == [(heap._M_ARENA_MAX, 4)]
    monkeypatch.setenv(heap.ARENAS_VARIABLE, "many")
    assert heap.limit_arenas() is None  # glibc ignores it as well


def test_no_arena_cap_without_glibc(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(heap, "_libc", lambda: None)
    monkeypatch.setenv(heap.ARENAS_VARIABLE, "1")
    assert heap.limit_arenas() is None


def test_a_server_maps_large_blocks_for_itself_and_its_workers(
    libc: _FakeLibc, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv(heap.MMAP_VARIABLE, "")  # registered, so the test's change is undone
    monkeypatch.delenv(heap.MMAP_VARIABLE)
    assert heap.map_large_blocks() == 128 * 1024
    assert libc.calls == [(heap._M_MMAP_THRESHOLD, 128 * 1024)]  # fixed: glibc no longer raises it
    assert os.environ[heap.MMAP_VARIABLE] == "131072"  # spawned workers start with it


def test_an_operators_mmap_threshold_wins(libc: _FakeLibc, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv(heap.MMAP_VARIABLE, "1048576")
    assert heap.map_large_blocks() == 1048576
    assert libc.calls == [(heap._M_MMAP_THRESHOLD, 1048576)]
    monkeypatch.setenv(heap.MMAP_VARIABLE, "large")
    assert heap.map_large_blocks() is None
    monkeypatch.setattr(heap, "_libc", lambda: None)
    assert heap.map_large_blocks() is None


def test_a_server_has_pyarrow_allocate_through_the_c_allocator() -> None:
    """In a process of its own: the pool is process-wide, and read when pyarrow is imported."""
    import subprocess

    probe = (
        "import os; os.environ.pop('ARROW_DEFAULT_MEMORY_POOL', None)\n"
        "from lectern.index import heap\n"
        "print(heap.system_arrow_pool())\n"
        "import pyarrow as pa\n"
        "print(pa.default_memory_pool().backend_name, pa.array([1, 2]).sum().as_py())\n"
    )
    after = "import pyarrow as pa\nfrom lectern.index import heap\nheap.system_arrow_pool()\n"
    after += "print(pa.default_memory_pool().backend_name)\n"
    operator = "import os; os.environ['ARROW_DEFAULT_MEMORY_POOL'] = 'mimalloc'\n" + probe.split("\n", 1)[1]
    outputs = [
        subprocess.run(
            [sys.executable, "-c", code], capture_output=True, text=True, check=True
        ).stdout.split()
        for code in (probe, after, operator)
    ]
    assert outputs == [["system", "system", "3"], ["system"], ["mimalloc", "mimalloc", "3"]]
