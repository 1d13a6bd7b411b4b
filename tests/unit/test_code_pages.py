"""Releasing shared-library pages a server ran once: only never-written library mappings, only when on."""

from __future__ import annotations

import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from lectern import code_pages

LIB = "/venv/lib/python3.11/site-packages/lancedb/_lancedb.abi3.so"

SMAPS = f"""\
7f0000000000-7f0000100000 r--p 00000000 fd:00 11 {LIB}
Size:               1024 kB
Rss:                 512 kB
Anonymous:             0 kB
7f0000100000-7f0000900000 r-xp 00100000 fd:00 11 {LIB}
Rss:                4096 kB
Anonymous:             0 kB
7f0000900000-7f0000a00000 r--p 00900000 fd:00 11 {LIB}
Rss:                1024 kB
Anonymous:          1024 kB
7f0000a00000-7f0000a10000 rw-p 00a00000 fd:00 11 {LIB}
Rss:                  64 kB
Anonymous:            64 kB
7f0000b00000-7f0000c00000 r-xp 00000000 fd:00 12 /usr/lib/x86_64-linux-gnu/libc.so.6
Rss:                   0 kB
Anonymous:             0 kB
7f0000c00000-7f0000d00000 r--s 00000000 fd:00 13 /data/models/query-int8.onnx
Rss:                 900 kB
Anonymous:             0 kB
7f0000d00000-7f0000e00000 rw-p 00000000 00:00 0
Rss:                1024 kB
Anonymous:          1024 kB
7f0000e00000-7f0000f00000 r-xp 00000000 fd:00 14 /usr/lib/x86_64-linux-gnu/libstdc++.so.6.0.30
Rss:                 128 kB
Anonymous:             0 kB
"""


def test_only_never_written_library_mappings_with_resident_pages_are_releasable() -> None:
    found = list(code_pages.releasable(SMAPS))
    assert found == [
        (0x7F0000000000, 0x100000, 512),  # constants
        (0x7F0000100000, 0x800000, 4096),  # code
        # not the relocated constants (private copies), the data, an empty mapping, a model file or
        # anonymous memory
        (0x7F0000E00000, 0x100000, 128),  # the last mapping of the file counts too
    ]


@pytest.mark.parametrize(
    ("path", "library"),
    [
        (LIB, True),
        ("/usr/lib/x86_64-linux-gnu/libc.so.6", True),
        ("/venv/numpy/_core/_multiarray_umath.cpython-311-x86_64-linux-gnu.so", True),
        ("/data/models/query-int8.onnx", False),
        ("/data/index/table.lance", False),
        ("/data/sonnets.txt", False),
        ("[heap]", False),
        ("", False),
    ],
)
def test_shared_libraries_by_name(path: str, library: bool) -> None:
    assert code_pages.is_shared_library(path) is library


@pytest.fixture
def turned_on() -> Iterator[None]:
    before = code_pages.enable()
    try:
        yield
    finally:
        code_pages.enable(before)


def test_enable_says_what_it_replaces(turned_on: None) -> None:
    assert code_pages.enable(False) is True
    assert code_pages.enable(True) is False


def test_nothing_is_released_unless_turned_on(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(code_pages, "_enabled", False)
    calls: list[int] = []
    monkeypatch.setattr(code_pages, "_madvise", lambda: lambda *args: calls.append(1) or 0)
    assert code_pages.release_code_pages() == 0
    assert calls == []


def test_each_releasable_mapping_is_advised_once(
    turned_on: None, monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    smaps = tmp_path / "smaps"
    smaps.write_text(SMAPS)
    calls: list[tuple[int, int, int]] = []

    def advise(start: int, length: int, advice: int) -> int:
        calls.append((start, length, advice))
        return 0

    monkeypatch.setattr(code_pages, "SMAPS", smaps)
    monkeypatch.setattr(code_pages, "_madvise", lambda: advise)
    assert code_pages.release_code_pages() == 512 + 4096 + 128
    assert [(start, length) for start, length, _ in calls] == [
        (0x7F0000000000, 0x100000),
        (0x7F0000100000, 0x800000),
        (0x7F0000E00000, 0x100000),
    ]
    assert {advice for _, _, advice in calls} == {code_pages.mmap.MADV_DONTNEED}


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="/proc and madvise")
def test_released_code_still_runs(turned_on: None) -> None:
    import numpy as np

    before = np.linalg.norm(np.arange(12.0).reshape(3, 4), axis=1)
    assert code_pages.release_code_pages() > 0  # numpy's and the interpreter's libraries at least
    after = np.linalg.norm(np.arange(12.0).reshape(3, 4), axis=1)  # faulted back in from the page cache
    assert after.tolist() == before.tolist()
    assert code_pages.release_code_pages() >= 0


def test_soon_releases_on_a_thread_of_its_own(turned_on: None, monkeypatch: pytest.MonkeyPatch) -> None:
    import threading

    done = threading.Event()
    names: list[str] = []

    def release() -> int:
        names.append(threading.current_thread().name)
        done.set()
        return 0

    monkeypatch.setattr(code_pages, "release_code_pages", release)
    code_pages.release_code_pages_soon()
    assert done.wait(5)
    assert names == ["lectern-code-pages"]
