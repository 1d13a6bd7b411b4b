"""Keep-alive connections spread over `serve --workers N` (lectern.api.balance): the shared slots, the
decision to move a client, the `Connection: close` it puts on a response, and when it is on."""

from __future__ import annotations

import multiprocessing
from pathlib import Path

import pytest
from starlette.types import Message, Receive, Scope, Send

from lectern.api import app as app_module
from lectern.api import balance, create_app
from lectern.api.balance import Balancer, WorkerTable, should_move, sibling_balancer
from lectern.api.middleware import RequestContext
from tests.api_support import app_client, make_engine, make_settings


@pytest.mark.parametrize(
    ("mine", "others", "expected"),
    [
        (18, [14], True),  # 17/15 after the move: closer
        (17, [15], True),  # 16/16
        (16, [15], False),  # moving one would only swap the two
        (16, [16], False),
        (26, [6, 30], True),  # the least busy sibling counts
        (5, [], False),  # alone: nowhere to go
    ],
)
def test_a_worker_moves_a_client_only_when_that_evens_the_split(
    mine: int, others: list[int], expected: bool
) -> None:
    assert should_move(mine, others) is expected


def test_siblings_claim_their_own_slots_and_read_each_other(tmp_path: Path) -> None:
    path = tmp_path / "table"
    first, second = WorkerTable(path, pid=1001), WorkerTable(path, pid=1002)
    assert first.slot != second.slot
    first.publish(7)
    second.publish(3)
    assert first.others() == [3]
    assert second.others() == [7]
    first.close()
    assert second.others() == []  # a freed slot is nobody's
    assert path.exists()
    second.close()
    assert not path.exists()  # the last worker out removes the file


def test_a_sibling_that_stopped_refreshing_its_slot_is_left_out(tmp_path: Path) -> None:
    path = tmp_path / "table"
    mine, gone = WorkerTable(path, pid=1001), WorkerTable(path, pid=1002)
    balance._SLOT.pack_into(gone._map, gone.slot * balance._SLOT.size, 1002, 0, -1e9)  # long ago
    assert mine.others() == []
    # and its slot goes to a new worker
    assert WorkerTable(path, pid=1003).slot == gone.slot


class Clock:
    def __init__(self) -> None:
        self.now = 100.0

    def __call__(self) -> float:
        return self.now


def test_a_busier_worker_asks_one_client_at_a_time_to_reconnect(tmp_path: Path) -> None:
    path = tmp_path / "table"
    clock = Clock()
    busy = Balancer(WorkerTable(path, pid=1001), clock)
    idle = WorkerTable(path, pid=1002)
    idle.publish(1)
    for port in range(4):
        busy.arrived(("127.0.0.1", port))
    assert busy.should_close(("127.0.0.1", 0))
    assert busy.connections() == 3  # forgotten: it reconnects, perhaps to the sibling
    assert busy.table.others() == [1]
    assert not busy.should_close(("127.0.0.1", 1))  # one move per MOVE_EVERY_S
    clock.now += balance.MOVE_EVERY_S
    idle.publish(2)  # the moved client landed there
    assert not busy.should_close(("127.0.0.1", 1))  # 3 against 2: even enough


def test_connections_quiet_for_a_while_stop_counting_but_not_while_answered(tmp_path: Path) -> None:
    clock = Clock()
    worker = Balancer(WorkerTable(tmp_path / "table", pid=1001), clock)
    for port in range(3):
        worker.arrived(("127.0.0.1", port))
    worker.finished(("127.0.0.1", 1))
    clock.now += balance.ACTIVE_S / 2
    worker.finished(("127.0.0.1", 2))
    clock.now += balance.ACTIVE_S * 0.75
    worker.refresh()
    assert worker.connections() == 2  # port 1 was quiet too long; port 0's answer is still running
    clock.now += balance.ACTIVE_S * 10
    worker.refresh()
    assert worker.connections() == 1


async def _respond(app: RequestContext, port: int) -> list[tuple[bytes, bytes]]:
    async def endpoint(scope: Scope, receive: Receive, send: Send) -> None:
        await send({"type": "http.response.start", "status": 200, "headers": []})
        await send({"type": "http.response.body", "body": b"ok"})

    app.app = endpoint
    started: list[Message] = []

    async def receive() -> Message:
        return {"type": "http.request", "body": b""}

    async def send(message: Message) -> None:
        if message["type"] == "http.response.start":
            started.append(message)

    scope = {"type": "http", "method": "GET", "path": "/x", "headers": [], "client": ["127.0.0.1", port]}
    await app(scope, receive, send)
    return list(started[0]["headers"])


async def test_the_response_to_a_moved_client_says_connection_close(tmp_path: Path) -> None:
    path = tmp_path / "table"
    busy = Balancer(WorkerTable(path, pid=1001), Clock())
    WorkerTable(path, pid=1002).publish(0)
    for port in range(2):
        busy.arrived(("127.0.0.1", port))
    app = RequestContext(lambda scope, receive, send: None, balancer=busy)  # type: ignore[arg-type,return-value]
    assert (b"connection", b"close") in await _respond(app, 2)  # 3 here, none there
    assert (b"connection", b"close") not in await _respond(app, 3)  # the next one waits its turn
    plain = RequestContext(lambda scope, receive, send: None)  # type: ignore[arg-type,return-value]
    assert (b"connection", b"close") not in await _respond(plain, 4)


def test_a_process_that_is_nobody_s_worker_does_not_balance() -> None:
    assert sibling_balancer() is None


def _child_balances(found: multiprocessing.queues.SimpleQueue[object]) -> None:
    balancer = sibling_balancer()
    found.put(None if balancer is None else str(balancer.table.path))
    if balancer is not None:
        balancer.table.close()


def test_a_supervisor_s_worker_process_balances_through_a_table_named_after_it() -> None:
    context = multiprocessing.get_context("spawn")  # as uvicorn starts its workers
    found = context.SimpleQueue()
    child = context.Process(target=_child_balances, args=(found,))
    child.start()
    child.join(60)
    path = found.get()
    assert path == str(balance.table_path(multiprocessing.current_process().pid or 0))
    assert not Path(str(path)).exists()  # its one worker left


async def test_the_service_balances_with_its_siblings_unless_told_not_to(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    table = tmp_path / "table"
    sibling = WorkerTable(table, pid=1002)
    made: list[Balancer] = []

    def as_a_worker() -> Balancer:
        made.append(Balancer(WorkerTable(table, pid=1001)))
        for port in range(2):  # two other clients here, none at the sibling
            made[-1].arrived(("10.0.0.1", port))
        return made[-1]

    monkeypatch.setattr(app_module, "sibling_balancer", as_a_worker)
    settings = make_settings(tmp_path)
    async with app_client(create_app(settings, engine=make_engine(settings))) as client:
        sibling.publish(0)
        response = await client.get("/health")
        assert response.headers["connection"] == "close"
        assert len(sibling.others()) == 1  # the worker's slot, live
    assert sibling.others() == []  # the worker's slot freed when it stopped

    made.clear()
    off = make_settings(tmp_path, worker_balance=False)
    async with app_client(create_app(off, engine=make_engine(off))) as client:
        assert "connection" not in (await client.get("/health")).headers
    assert made == []


def test_a_table_path_that_is_a_link_is_refused(tmp_path: Path) -> None:
    target = tmp_path / "elsewhere"
    target.write_bytes(b"")
    (tmp_path / "table").symlink_to(target)
    with pytest.raises(OSError, match="symbolic links"):  # ELOOP: O_NOFOLLOW
        WorkerTable(tmp_path / "table", pid=1001)
