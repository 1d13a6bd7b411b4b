"""Concurrent requests on one session never lose or duplicate a message, on SQLite and PostgreSQL."""

from __future__ import annotations

import asyncio
import uuid
from collections.abc import AsyncIterator
from contextlib import AsyncExitStack
from pathlib import Path

import pytest

from lectern.errors import Conflict
from lectern.store import ConversationStore, NewDelta, NewMessage, PromptStatus
from tests.integration.store_support import BACKENDS, backend_url, open_store

pytestmark = pytest.mark.integration

N = 20


@pytest.fixture(params=BACKENDS)
def database_url(request: pytest.FixtureRequest, tmp_path: Path) -> str:
    return backend_url(request, tmp_path)


@pytest.fixture
async def store(database_url: str) -> AsyncIterator[ConversationStore]:
    async with open_store(database_url) as store:
        yield store


async def assert_each_message_once(
    store: ConversationStore, thread_id: uuid.UUID, contents: set[str]
) -> None:
    stored = await store.get_messages(thread_id, include_archived=True)
    assert [m.seq for m in stored] == list(range(len(contents)))  # no gaps, no duplicates
    assert sorted(m.content for m in stored) == sorted(contents)
    view = await store.get_thread(thread_id)
    assert view.message_count == len(contents)
    assert view.turn_count == len(contents)


async def test_20_concurrent_appends_on_one_session(store: ConversationStore) -> None:
    thread, _ = await store.get_or_create_thread()
    contents = {f"message {i}" for i in range(N)}
    results = await asyncio.gather(
        *(store.append_messages(thread.thread_id, [NewMessage(role="user", content=c)]) for c in contents)
    )
    assert sorted(r[0].seq for r in results) == list(range(N))
    await assert_each_message_once(store, thread.thread_id, contents)


async def test_20_concurrent_first_turns_on_one_new_session(store: ConversationStore) -> None:
    """Clients may pick the session id: their first requests race to create the thread."""
    thread_id = uuid.uuid4()
    contents = {f"question {i}" for i in range(N)}
    results = await asyncio.gather(
        *(store.start_turn(thread_id, NewMessage(role="user", content=c), history=20) for c in contents)
    )
    assert sorted(question.seq for _, question in results) == list(range(N))
    await assert_each_message_once(store, thread_id, contents)


async def test_concurrent_appends_from_separate_engines(database_url: str) -> None:
    """Four stores, four connection pools: what several API replicas (or processes) look like."""
    async with AsyncExitStack() as stack:
        stores = [await stack.enter_async_context(open_store(database_url)) for _ in range(4)]
        thread, _ = await stores[0].get_or_create_thread()
        contents = [f"replica {i % 4} message {i}" for i in range(N)]
        await asyncio.gather(
            *(
                stores[i % 4].append_messages(thread.thread_id, [NewMessage(role="user", content=text)])
                for i, text in enumerate(contents)
            )
        )
        await assert_each_message_once(stores[0], thread.thread_id, set(contents))


async def test_concurrent_batches_stay_contiguous(store: ConversationStore) -> None:
    thread, _ = await store.get_or_create_thread()

    async def pair(i: int) -> list[int]:
        stored = await store.append_messages(
            thread.thread_id,
            [NewMessage(role="user", content=f"q{i}"), NewMessage(role="assistant", content=f"a{i}")],
        )
        return [m.seq for m in stored]

    seqs = await asyncio.gather(*(pair(i) for i in range(N)))
    assert all(s[1] == s[0] + 1 for s in seqs)  # a batch is never interleaved with another
    stored = await store.get_messages(thread.thread_id, include_archived=True)
    assert [m.seq for m in stored] == list(range(2 * N))
    assert [m.seq for m in stored if m.archived] == []  # 40 messages: all inside the window


async def test_concurrent_get_or_create_of_one_id_creates_it_once(store: ConversationStore) -> None:
    thread_id = uuid.uuid4()
    results = await asyncio.gather(*(store.get_or_create_thread(thread_id) for _ in range(10)))
    assert sum(created for _, created in results) == 1
    assert {t.thread_id for t, _ in results} == {thread_id}


async def test_concurrent_duplicate_idempotency_keys_create_one_prompt(store: ConversationStore) -> None:
    thread, _ = await store.get_or_create_thread()
    results = await asyncio.gather(
        *(store.create_prompt(thread.thread_id, "q", idempotency_key="retry-me") for _ in range(10))
    )
    assert sum(created for _, created in results) == 1
    assert len({p.prompt_id for p, _ in results}) == 1


async def test_exactly_one_concurrent_finish_wins(store: ConversationStore) -> None:
    thread, _ = await store.get_or_create_thread()
    prompt, _ = await store.create_prompt(thread.thread_id, "q")
    statuses = [PromptStatus.DONE, PromptStatus.CANCELLED, PromptStatus.ERROR] * 3
    # Every finisher stores at least its final delta, as the service's do: a Cancelled prompt with no
    # delta is one cancelled by another process whose owner is still to finish it (`awaits_owner`).
    outcomes = await asyncio.gather(
        *(
            store.finish_prompt(
                prompt.prompt_id, s, deltas=[NewDelta(type="done", metadata={"status": s.value})]
            )
            for s in statuses
        ),
        return_exceptions=True,
    )
    winners = [o for o in outcomes if not isinstance(o, BaseException)]
    assert len(winners) == 1
    assert all(isinstance(o, Conflict) for o in outcomes if isinstance(o, BaseException))
    assert (await store.get_prompt(prompt.prompt_id)).status is winners[0].status
