"""The write turn of a SQLite file (lectern.store.turn): one holder at a time across open files, a
bounded wait for a holder that never lets go, and turns that alternate instead of starving a waiter."""

from __future__ import annotations

import fcntl
import os
import threading
import time
from pathlib import Path

import pytest

from lectern.store.turn import WriteTurn, turn_path


@pytest.fixture
def path(tmp_path: Path) -> Path:
    return turn_path(str(tmp_path / "lectern.sqlite3"))


def test_the_turn_file_sits_beside_the_database(tmp_path: Path) -> None:
    assert turn_path(str(tmp_path / "db.sqlite3")) == tmp_path / "db.sqlite3.turn"


def test_a_free_turn_is_taken_at_once_and_given_back(path: Path) -> None:
    first, second = WriteTurn(path), WriteTurn(path)
    assert first.acquire()
    first.release()
    assert second.acquire()
    second.release()
    first.close()
    second.close()


def test_a_holder_that_never_lets_go_costs_one_bounded_wait(path: Path) -> None:
    holder, writer = WriteTurn(path), WriteTurn(path, wait_s=0.2)
    assert holder.acquire()
    started = time.monotonic()
    assert not writer.acquire()  # went on without the turn
    assert 0.15 < time.monotonic() - started < 2
    started = time.monotonic()
    assert not writer.acquire()  # and does not wait again while the holder keeps it
    assert time.monotonic() - started < 0.05
    holder.release()
    deadline = time.monotonic() + 5
    while writer.stalled and time.monotonic() < deadline:  # the waiter thread took it and gave it back
        time.sleep(0.01)
    assert not writer.stalled
    assert writer.acquire()
    # held now: the other one cannot have it
    probe = os.open(path, os.O_RDWR)
    with pytest.raises(BlockingIOError):
        fcntl.flock(probe, fcntl.LOCK_EX | fcntl.LOCK_NB)
    os.close(probe)
    writer.release()
    holder.close()
    writer.close()


def test_turns_alternate_when_the_holder_wants_it_back_at_once(path: Path) -> None:
    first, second = WriteTurn(path, wait_s=10), WriteTurn(path, wait_s=10)
    order: list[str] = []
    assert first.acquire()

    def wait_for_the_turn() -> None:
        assert second.acquire()
        order.append("second")
        time.sleep(0.05)
        second.release()

    waiting = threading.Thread(target=wait_for_the_turn)
    waiting.start()
    entry = os.open(path.with_name(path.name + "-entry"), os.O_RDWR)
    deadline = time.monotonic() + 5
    while time.monotonic() < deadline:  # until the second waits on the turn, holding the entry
        try:
            fcntl.flock(entry, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            break
        fcntl.flock(entry, fcntl.LOCK_UN)
        time.sleep(0.005)
    os.close(entry)
    first.release()
    assert first.acquire()  # at once again: without the entry this would win the turn straight back
    order.append("first")
    first.release()
    waiting.join(10)
    assert order == ["second", "first"]
    first.close()
    second.close()


def test_a_turn_file_that_cannot_be_opened_means_no_turns(tmp_path: Path) -> None:
    blocked = tmp_path / "blocked"
    blocked.mkdir()
    path = turn_path(str(blocked / "lectern.sqlite3"))
    path.mkdir()  # a directory where the file should be: cannot be opened for writing
    turn = WriteTurn(path)
    assert not turn.acquire()  # writes go on, at SQLite's own lock
    turn.close()
