"""Worker threads serve the oldest request first (lectern.oldest_first), and the service uses them."""

from __future__ import annotations

import asyncio
import queue
import threading
import time
from pathlib import Path

import pytest
from starlette.types import Receive, Scope, Send

from lectern.api import create_app
from lectern.api.middleware import RequestContext
from lectern.oldest_first import OldestFirstExecutor, OldestFirstQueue, arrival
from tests.api_support import app_client, make_engine, make_settings


def test_work_runs_in_order_of_its_requests_arrival_then_of_submission() -> None:
    pool = OldestFirstExecutor(1)
    gate = threading.Event()
    ran: list[str] = []
    try:
        blocker = pool.submit(gate.wait)  # the one thread is busy: everything below queues
        done = []
        for name, arrived in [("new", 30.0), ("old", 10.0), ("middle", 20.0), ("old-second", 10.0)]:
            token = arrival.set(arrived)
            try:
                done.append(pool.submit(ran.append, name))
            finally:
                arrival.reset(token)
        gate.set()
        for future in [blocker, *done]:
            future.result(timeout=5)
    finally:
        pool.shutdown()
    assert ran == ["old", "old-second", "middle", "new"]


def test_work_outside_a_request_counts_as_arriving_when_submitted() -> None:
    pool = OldestFirstExecutor(1)
    gate = threading.Event()
    ran: list[str] = []
    try:
        blocker = pool.submit(gate.wait)
        token = arrival.set(time.monotonic() + 3600)  # a request that arrives after the work below
        try:
            later = pool.submit(ran.append, "request")
        finally:
            arrival.reset(token)
        earlier = pool.submit(ran.append, "no request")
        gate.set()
        for future in (blocker, later, earlier):
            future.result(timeout=5)
    finally:
        pool.shutdown()
    assert ran == ["no request", "request"]


def test_shutdown_runs_what_is_queued_then_stops_every_thread() -> None:
    pool = OldestFirstExecutor(3)
    gate = threading.Event()
    busy = [pool.submit(gate.wait) for _ in range(3)]
    queued = [pool.submit(lambda n=n: n * 2) for n in range(5)]
    gate.set()
    pool.shutdown(wait=True)
    assert [f.result() for f in queued] == [0, 2, 4, 6, 8]
    assert all(f.done() for f in busy)
    assert not any(t.is_alive() for t in pool._threads)
    with pytest.raises(RuntimeError):
        pool.submit(print)


def test_the_queue_answers_like_simple_queue_when_empty() -> None:
    q = OldestFirstQueue()
    with pytest.raises(queue.Empty):
        q.get_nowait()
    with pytest.raises(queue.Empty):
        q.get(timeout=0.01)
    q.put(None)  # the pool's wake-up at shutdown comes after any work
    q.put("work")
    assert (q.qsize(), q.empty()) == (2, False)
    assert [q.get(), q.get()] == ["work", None]


async def test_asyncio_to_thread_takes_the_arrival_of_the_awaiting_request() -> None:
    loop = asyncio.get_running_loop()
    pool = OldestFirstExecutor(1)
    loop.set_default_executor(pool)
    gate = threading.Event()
    ran: list[str] = []

    async def request(name: str, arrived: float) -> None:
        arrival.set(arrived)  # each task has its own copy of the context
        await asyncio.to_thread(ran.append, name)

    blocker = asyncio.ensure_future(asyncio.to_thread(gate.wait))
    await asyncio.sleep(0.01)
    tasks = [asyncio.ensure_future(request(n, a)) for n, a in [("b", 2.0), ("c", 3.0), ("a", 1.0)]]
    await asyncio.sleep(0.01)  # all three queued behind the blocker
    gate.set()
    await asyncio.gather(blocker, *tasks)
    assert ran == ["a", "b", "c"]


async def test_the_middleware_marks_each_request_with_its_arrival() -> None:
    seen: list[float | None] = []

    async def endpoint(scope: Scope, receive: Receive, send: Send) -> None:
        seen.append(arrival.get())
        await send({"type": "http.response.start", "status": 204, "headers": []})
        await send({"type": "http.response.body", "body": b""})

    async def receive() -> dict[str, object]:
        return {"type": "http.request", "body": b""}

    async def send(message: dict[str, object]) -> None:
        pass

    app = RequestContext(endpoint)
    scope = {"type": "http", "method": "GET", "path": "/x", "headers": []}
    before = time.monotonic()
    await app(scope, receive, send)  # type: ignore[arg-type]
    await app(scope, receive, send)  # type: ignore[arg-type]
    first, second = seen
    assert first is not None
    assert second is not None
    assert before <= first <= second <= time.monotonic()
    assert arrival.get() is None  # reset once the request is over


async def test_the_service_runs_worker_thread_calls_oldest_request_first(tmp_path: Path) -> None:
    settings = make_settings(tmp_path)
    async with app_client(create_app(settings, engine=make_engine(settings))) as client:
        assert (await client.get("/health")).status_code == 200
        worker = await asyncio.to_thread(threading.current_thread)
        assert worker.name.startswith("lectern")
