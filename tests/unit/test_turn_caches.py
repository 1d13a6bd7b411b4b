"""The per-session retrieval caches a server keeps: the most recent sessions' only, memory bounded."""

from __future__ import annotations

from typing import Any, cast
from uuid import uuid4

from lectern.api import turns
from lectern.api.turns import Turns


def _turns() -> Turns:
    none = cast(Any, None)  # cache_for touches neither the engine, the store nor the sink
    return Turns(none, none, none, history=4)


def test_only_the_most_recent_sessions_keep_their_cache() -> None:
    keeper = _turns()
    first, second = uuid4(), uuid4()
    kept = keeper.cache_for(first)
    kept[cast(Any, "key")] = cast(Any, "result")
    keeper.cache_for(second)
    for _ in range(turns.CACHE_SESSIONS - 2):
        keeper.cache_for(uuid4())
    assert keeper.cache_for(first) is kept  # used again: now the most recent
    keeper.cache_for(uuid4())  # one session too many: the least recent (second) goes
    assert len(keeper._caches) == turns.CACHE_SESSIONS
    assert second not in keeper._caches
    assert keeper.cache_for(first) == {cast(Any, "key"): "result"}


def test_the_cap_bounds_a_small_servers_memory() -> None:
    assert turns.CACHE_SESSIONS <= 128  # ~110 kB a session at top 8 (vectors as Python floats)
