"""/chat/stream sends what the engine produced back to back in one write (``bursts``), in order, and
stops the engine before it returns when the client leaves."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator

import pytest

from lectern.api.chat import bursts
from lectern.events import Event, Token


async def test_back_to_back_events_come_in_one_burst_and_a_pause_starts_the_next() -> None:
    async def engine() -> AsyncIterator[Event]:
        for n in range(3):
            yield Token(f"a{n}")
        await asyncio.sleep(0.01)  # a writer waiting on its model
        for n in range(2):
            yield Token(f"b{n}")

    got = [[e.text for e in burst if isinstance(e, Token)] async for burst in bursts(engine())]
    assert got == [["a0", "a1", "a2"], ["b0", "b1"]]


async def test_a_token_is_not_held_back_for_the_next_one() -> None:
    release = asyncio.Event()

    async def engine() -> AsyncIterator[Event]:
        yield Token("first")
        await release.wait()
        yield Token("second")

    stream = bursts(engine())
    first = await asyncio.wait_for(stream.__anext__(), 1)  # "second" cannot come: it waits on release
    assert [e.text for e in first if isinstance(e, Token)] == ["first"]
    release.set()
    assert [e.text for e in await stream.__anext__() if isinstance(e, Token)] == ["second"]
    await stream.aclose()


async def test_leaving_early_stops_the_engine_before_returning() -> None:
    stopped: list[str] = []

    async def engine() -> AsyncIterator[Event]:
        try:
            yield Token("one")
            await asyncio.sleep(60)
            yield Token("never")
        finally:
            await asyncio.sleep(0)  # cleanup that itself awaits
            stopped.append("engine")

    stream = bursts(engine())
    await stream.__anext__()
    await stream.aclose()
    assert stopped == ["engine"]


async def test_an_engine_error_reaches_the_stream() -> None:
    async def engine() -> AsyncIterator[Event]:
        yield Token("one")
        raise RuntimeError("boom")

    seen: list[str] = []

    async def read() -> None:
        async for burst in bursts(engine()):
            seen.extend(e.text for e in burst if isinstance(e, Token))

    with pytest.raises(RuntimeError, match="boom"):
        await read()
    assert seen == ["one"]
