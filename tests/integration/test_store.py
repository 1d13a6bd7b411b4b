"""The conversation store against real databases: every test runs on SQLite and on PostgreSQL."""

from __future__ import annotations

import json
import uuid
from collections.abc import AsyncIterator, Sequence
from pathlib import Path

import pytest
import sqlalchemy as sa

from lectern.errors import Conflict, InvalidInput, NotFound
from lectern.store import (
    ConversationStore,
    Message,
    NewDelta,
    NewLogEvent,
    NewMessage,
    PromptStatus,
)
from lectern.store import tables as t
from tests.integration.store_support import BACKENDS, FakeClock, backend_url, open_store

pytestmark = pytest.mark.integration


@pytest.fixture(params=BACKENDS)
def database_url(request: pytest.FixtureRequest, tmp_path: Path) -> str:
    return backend_url(request, tmp_path)


@pytest.fixture
def clock() -> FakeClock:
    return FakeClock()


@pytest.fixture
async def store(database_url: str, clock: FakeClock) -> AsyncIterator[ConversationStore]:
    async with open_store(database_url, clock=clock) as store:
        yield store


def owner() -> str:
    """A fresh API key id, so tests sharing the run's PostgreSQL database never see each other."""
    return f"key-{uuid.uuid4().hex[:8]}"


def exchange(question: str, answer: str, confidence: float = 0.8) -> list[NewMessage]:
    return [
        NewMessage(role="user", content=question),
        NewMessage(role="assistant", content=answer, confidence=confidence),
    ]


async def count_rows(store: ConversationStore, table: sa.Table, column: str, value: uuid.UUID) -> int:
    async with store.engine.connect() as conn:
        query = sa.select(sa.func.count()).select_from(table).where(table.c[column] == value)
        return int((await conn.execute(query)).scalar_one())


# --- threads ----------------------------------------------------------------------------------------


async def test_get_or_create_makes_a_v4_thread_then_returns_it(store: ConversationStore) -> None:
    key = owner()
    thread, created = await store.get_or_create_thread(
        owner=key, metadata={"user_id": "u1", "tags": ["ros2"]}
    )
    assert created
    assert thread.thread_id.version == 4
    assert thread.owner == key
    assert thread.metadata == {"user_id": "u1", "tags": ["ros2"]}
    assert thread.created_at.tzinfo is not None
    assert (thread.message_count, thread.turn_count, thread.retrieval_count, thread.total_tokens) == (
        0,
        0,
        0,
        0,
    )

    again, created = await store.get_or_create_thread(thread.thread_id, owner=key, metadata={"ignored": True})
    assert not created
    assert again.thread_id == thread.thread_id
    assert again.metadata == thread.metadata


async def test_client_chosen_thread_id_is_kept(store: ConversationStore) -> None:
    thread_id = uuid.uuid4()
    thread, created = await store.get_or_create_thread(thread_id)
    assert created
    assert thread.thread_id == thread_id
    assert (await store.get_thread(thread_id)).messages == []


async def test_another_keys_thread_behaves_as_not_found(store: ConversationStore) -> None:
    alice, mallory = owner(), owner()
    thread, _ = await store.get_or_create_thread(owner=alice)
    await store.append_messages(thread.thread_id, exchange("q", "a"), owner=alice)
    tid = thread.thread_id

    with pytest.raises(NotFound):
        await store.get_thread(tid, owner=mallory)
    with pytest.raises(NotFound):
        await store.get_thread(tid)  # no key is not a master key
    with pytest.raises(NotFound):
        await store.get_or_create_thread(tid, owner=mallory)
    with pytest.raises(NotFound):
        await store.append_messages(tid, exchange("q", "a"), owner=mallory)
    with pytest.raises(NotFound):
        await store.get_messages(tid, owner=mallory)
    with pytest.raises(NotFound):
        await store.delete_thread(tid, owner=mallory)
    with pytest.raises(NotFound):
        await store.create_prompt(tid, "hi", owner=mallory)
    assert await store.list_threads(owner=mallory) == []
    assert len((await store.get_thread(tid, owner=alice)).messages) == 2


async def test_append_stores_messages_in_order_with_counters(
    store: ConversationStore, clock: FakeClock
) -> None:
    key = owner()
    thread, _ = await store.get_or_create_thread(owner=key)
    prompt_id = uuid.uuid4()
    sources = [{"chapter": "3", "section": "3.2", "url": "https://x/3#2", "chunk_index": 15}]
    clock.advance(5)
    stored = await store.append_messages(
        thread.thread_id,
        [
            NewMessage(role="user", content="What is URDF?"),
            NewMessage(
                role="assistant",
                content="URDF is an XML format.",
                confidence=0.91,
                sources=sources,
                citations=[{"index": 1, "url": "https://x/3#2"}],
                prompt_id=prompt_id,
            ),
        ],
        owner=key,
        retrievals=1,
        tokens=42,
    )
    assert [m.seq for m in stored] == [0, 1]
    # What the append returns is typed as validation would type it, and is what a read gives back.
    assert stored == [Message.model_validate(m.model_dump()) for m in stored]

    view = await store.get_thread(thread.thread_id, owner=key)
    assert view.messages == stored
    assert [(m.seq, m.role, m.content) for m in view.messages] == [
        (0, "user", "What is URDF?"),
        (1, "assistant", "URDF is an XML format."),
    ]
    answer = view.messages[1]
    assert answer.confidence == pytest.approx(0.91)
    assert answer.sources == sources
    assert answer.prompt_id == prompt_id
    assert view.messages[0].confidence is None
    assert view.messages[0].timestamp == clock.now
    assert view.updated_at == clock.now
    assert (view.message_count, view.turn_count, view.retrieval_count, view.total_tokens) == (2, 1, 1, 42)

    await store.append_messages(
        thread.thread_id, exchange("Example?", "Sure."), owner=key, retrievals=2, tokens=8
    )
    view = await store.get_thread(thread.thread_id, owner=key)
    assert (view.message_count, view.turn_count, view.retrieval_count, view.total_tokens) == (4, 2, 3, 50)


async def test_append_rejects_empty_batches_and_missing_threads(store: ConversationStore) -> None:
    thread, _ = await store.get_or_create_thread()
    with pytest.raises(InvalidInput):
        await store.append_messages(thread.thread_id, [])
    with pytest.raises(NotFound):
        await store.append_messages(uuid.uuid4(), exchange("q", "a"))


async def test_active_window_is_the_last_50_and_older_messages_are_archived_not_deleted(
    store: ConversationStore,
) -> None:
    thread, _ = await store.get_or_create_thread()
    tid = thread.thread_id
    for i in range(30):
        await store.append_messages(tid, exchange(f"question {i}", f"answer {i}"))

    view = await store.get_thread(tid)
    assert len(view.messages) == 50
    assert [m.seq for m in view.messages] == list(range(10, 60))
    assert not any(m.archived for m in view.messages)

    everything = await store.get_messages(tid, include_archived=True)
    assert [m.seq for m in everything] == list(range(60))
    assert [m.seq for m in everything if m.archived] == list(range(10))

    page = await store.get_messages(tid, include_archived=True, before_seq=10, limit=4)
    assert [m.seq for m in page] == [6, 7, 8, 9]
    assert [m.seq for m in await store.get_messages(tid, limit=3)] == [57, 58, 59]


async def test_start_turn_stores_the_question_and_returns_the_window_before_it(
    store: ConversationStore, clock: FakeClock
) -> None:
    key = owner()
    tid = uuid.uuid4()
    window, question = await store.start_turn(
        tid, NewMessage(role="user", content="q0"), owner=key, history=4
    )
    assert window == []
    assert (question.seq, question.role, question.content) == (0, "user", "q0")
    await store.append_messages(tid, [NewMessage(role="assistant", content="a0", confidence=0.7)], owner=key)
    for i in range(1, 4):
        clock.advance(1)
        await store.append_messages(tid, exchange(f"q{i}", f"a{i}"), owner=key)

    window, question = await store.start_turn(
        tid, NewMessage(role="user", content="q4"), owner=key, history=5
    )
    assert [(m.seq, m.role, m.content) for m in window] == [
        (3, "assistant", "a1"),
        (4, "user", "q2"),
        (5, "assistant", "a2"),
        (6, "user", "q3"),
        (7, "assistant", "a3"),
    ]
    assert window[-1].confidence == pytest.approx(0.8)
    assert question.seq == 8
    view = await store.get_thread(tid, owner=key)
    assert (view.message_count, view.turn_count) == (9, 5)
    assert view.updated_at == clock.now


async def test_the_window_carries_the_newest_answers_citations_only(store: ConversationStore) -> None:
    # A follow-up's search reads the previous answer's files and section; older answers' citations stay
    # in the store. A question left unanswered (a failed turn) does not hide the answer before it.
    key, tid = owner(), uuid.uuid4()
    cited = [
        {"number": 1, "source_path": f"notes/{dish}.md", "section": "Resting", "heading_hierarchy": [dish]}
        for dish in ("bread", "steak")
    ]
    for i, citation in enumerate(cited):
        await store.start_turn(tid, NewMessage(role="user", content=f"q{i}"), owner=key)
        answer = NewMessage(role="assistant", content=f"a{i}", confidence=0.7, citations=[citation])
        await store.append_messages(tid, [answer], owner=key)
    await store.start_turn(tid, NewMessage(role="user", content="unanswered"), owner=key)

    window, _ = await store.start_turn(tid, NewMessage(role="user", content="q3"), owner=key, history=10)
    got = [(m.content, None if m.citations_json is None else json.loads(m.citations_json)) for m in window]
    assert got == [("q0", None), ("a0", None), ("q1", None), ("a1", [cited[1]]), ("unanswered", None)]
    window, _ = await store.start_turn(tid, NewMessage(role="user", content="q4"), owner=key, history=1)
    assert [(m.content, m.citations_json) for m in window] == [("q3", None)]


async def test_start_turn_creates_only_when_asked_and_never_for_another_key(store: ConversationStore) -> None:
    alice, mallory = owner(), owner()
    with pytest.raises(NotFound):
        await store.start_turn(uuid.uuid4(), NewMessage(role="user", content="q"), owner=alice, create=False)
    tid = uuid.uuid4()
    await store.start_turn(tid, NewMessage(role="user", content="q"), owner=alice)
    for create in (True, False):
        with pytest.raises(NotFound):
            await store.start_turn(tid, NewMessage(role="user", content="x"), owner=mallory, create=create)
    view = await store.get_thread(tid, owner=alice)
    assert [m.content for m in view.messages] == ["q"]


async def test_list_threads_most_recent_first_and_by_archive_state(
    store: ConversationStore, clock: FakeClock
) -> None:
    key = owner()
    first, _ = await store.get_or_create_thread(owner=key)
    clock.advance(10)
    second, _ = await store.get_or_create_thread(owner=key)
    clock.advance(10)
    await store.append_messages(first.thread_id, exchange("q", "a"), owner=key)

    listed = await store.list_threads(owner=key)
    assert [t.thread_id for t in listed] == [first.thread_id, second.thread_id]
    assert listed[0].message_count == 2

    clock.advance(7200)
    await store.archive_idle()
    await store.append_messages(second.thread_id, exchange("q", "a"), owner=key)  # resumes second
    assert [t.thread_id for t in await store.list_threads(owner=key, archived=True)] == [first.thread_id]
    assert [t.thread_id for t in await store.list_threads(owner=key, archived=False)] == [second.thread_id]
    assert len(await store.list_threads(owner=key, limit=1)) == 1


async def test_delete_thread_cascades_to_everything_it_owns(store: ConversationStore) -> None:
    key = owner()
    thread, _ = await store.get_or_create_thread(owner=key)
    tid = thread.thread_id
    await store.append_messages(tid, exchange("q", "a"), owner=key)
    prompt, _ = await store.create_prompt(tid, "q", owner=key)
    await store.append_deltas(prompt.prompt_id, [NewDelta(type="token", text="a")], owner=key)
    await store.log_event(NewLogEvent(event_type="query_received", thread_id=tid))

    await store.delete_thread(tid, owner=key)

    with pytest.raises(NotFound):
        await store.get_thread(tid, owner=key)
    with pytest.raises(NotFound):
        await store.get_prompt(prompt.prompt_id, owner=key)
    with pytest.raises(NotFound):
        await store.delete_thread(tid, owner=key)
    assert await count_rows(store, t.messages, "thread_id", tid) == 0
    assert await count_rows(store, t.prompts, "thread_id", tid) == 0
    assert await count_rows(store, t.prompt_deltas, "prompt_id", prompt.prompt_id) == 0
    assert await count_rows(store, t.log_events, "thread_id", tid) == 0


# --- topic summary ------------------------------------------------------------------------------


async def test_topic_summary_is_written_after_five_exchanges(store: ConversationStore) -> None:
    thread, _ = await store.get_or_create_thread()
    tid = thread.thread_id
    questions = [
        "What is URDF?",
        "How do URDF joints work?",
        "Can URDF describe sensors?",
        "How do I load URDF in RViz?",
    ]
    for q in questions:
        await store.append_messages(tid, exchange(q, "..."))
    assert (await store.get_thread(tid)).topic_summary is None

    await store.append_messages(tid, [NewMessage(role="user", content="What about URDF xacro macros?")])
    assert (await store.get_thread(tid)).topic_summary is None  # the fifth exchange is not complete yet
    await store.append_messages(tid, [NewMessage(role="assistant", content="...", confidence=0.7)])

    summary = (await store.get_thread(tid)).topic_summary
    assert summary is not None
    assert summary.startswith("urdf")
    assert len(summary) <= 200


async def test_injected_async_summariser_gets_the_user_questions(database_url: str, clock: FakeClock) -> None:
    seen: list[list[str]] = []

    async def summarise(questions: Sequence[str]) -> str:
        seen.append(list(questions))
        return "Discussion about robots " + "x" * 300

    async with open_store(database_url, clock=clock, summarizer=summarise) as store:
        thread, _ = await store.get_or_create_thread()
        for i in range(5):
            await store.append_messages(thread.thread_id, exchange(f"q{i}", "a"))
        view = await store.get_thread(thread.thread_id)

    assert seen == [["q0", "q1", "q2", "q3", "q4"]]
    assert view.topic_summary is not None
    assert view.topic_summary.startswith("Discussion about robots")
    assert len(view.topic_summary) == 200


async def test_failing_summariser_does_not_fail_the_append(database_url: str, clock: FakeClock) -> None:
    def broken(questions: Sequence[str]) -> str:
        raise RuntimeError("model down")

    async with open_store(database_url, clock=clock, summarizer=broken) as store:
        thread, _ = await store.get_or_create_thread()
        for i in range(5):
            await store.append_messages(thread.thread_id, exchange(f"q{i}", "a"))
        view = await store.get_thread(thread.thread_id)
    assert view.message_count == 10
    assert view.topic_summary is None


# --- idle archiving -----------------------------------------------------------------------------


async def test_idle_threads_are_archived_and_resume_on_the_next_request(
    store: ConversationStore, clock: FakeClock
) -> None:
    key = owner()
    idle, _ = await store.get_or_create_thread(owner=key)
    await store.append_messages(idle.thread_id, exchange("q", "a"), owner=key)
    clock.advance(50 * 60)
    busy, _ = await store.get_or_create_thread(owner=key)

    clock.advance(20 * 60)  # idle: 70 minutes, busy: 20 minutes
    assert await store.archive_idle() >= 1
    assert (await store.get_thread(idle.thread_id, owner=key)).archived
    assert not (await store.get_thread(busy.thread_id, owner=key)).archived

    # Reading does not resume; the archived thread keeps all its messages.
    view = await store.get_thread(idle.thread_id, owner=key)
    assert view.archived
    assert len(view.messages) == 2

    resumed, created = await store.get_or_create_thread(idle.thread_id, owner=key)
    assert not created
    assert not resumed.archived
    assert resumed.last_active_at == clock.now

    clock.advance(2 * 3600)
    await store.archive_idle()
    await store.append_messages(idle.thread_id, exchange("back", "again"), owner=key)
    assert not (await store.get_thread(idle.thread_id, owner=key)).archived

    clock.advance(2 * 3600)
    await store.archive_idle()
    await store.create_prompt(idle.thread_id, "and again", owner=key)
    assert not (await store.get_thread(idle.thread_id, owner=key)).archived


async def test_archive_idle_counts_only_newly_archived_threads(tmp_path: Path) -> None:
    clock = FakeClock()
    async with open_store(f"sqlite+aiosqlite:///{tmp_path / 'a.sqlite3'}", clock=clock) as store:
        for _ in range(3):
            await store.get_or_create_thread()
        assert await store.archive_idle() == 0
        clock.advance(3601)
        assert await store.archive_idle() == 3
        assert await store.archive_idle() == 0


# --- prompts ------------------------------------------------------------------------------------


async def test_prompt_lifecycle_and_replay(store: ConversationStore) -> None:
    key = owner()
    thread, _ = await store.get_or_create_thread(owner=key)
    prompt, created = await store.create_prompt(thread.thread_id, "Explain embeddings", owner=key)
    assert created
    assert prompt.status is PromptStatus.IN_FLIGHT
    assert prompt.thread_id == thread.thread_id
    assert prompt.owner == key

    first = await store.append_deltas(
        prompt.prompt_id,
        [NewDelta(type="token", text="Vector "), NewDelta(type="token", text="embeddings ")],
        owner=key,
    )
    assert [d.seq for d in first] == [0, 1]
    more = await store.append_deltas(
        prompt.prompt_id, [NewDelta(type="token", text="are.", seq=2)], owner=key
    )
    assert [d.seq for d in more] == [2]

    done = await store.finish_prompt(
        prompt.prompt_id,
        PromptStatus.DONE,
        owner=key,
        token_count=3,
        deltas=[NewDelta(type="done", metadata={"tokenCount": 3})],
    )
    assert done.status is PromptStatus.DONE
    assert done.token_count == 3
    assert done.delta_count == 4
    assert done.finished_at is not None

    replay = await store.get_deltas(prompt.prompt_id, owner=key)
    assert [(d.seq, d.type, d.text) for d in replay] == [
        (0, "token", "Vector "),
        (1, "token", "embeddings "),
        (2, "token", "are."),
        (3, "done", None),
    ]
    assert replay[3].metadata == {"tokenCount": 3}
    assert [d.seq for d in await store.get_deltas(prompt.prompt_id, owner=key, after_seq=1)] == [2, 3]
    assert await store.get_prompt(prompt.prompt_id, owner=key) == done


async def test_finished_prompts_cannot_change(store: ConversationStore) -> None:
    thread, _ = await store.get_or_create_thread()
    prompt, _ = await store.create_prompt(thread.thread_id, "q")
    error_delta = NewDelta(
        type="error", role="system", metadata={"code": "provider_timeout", "message": "stalled"}
    )
    errored = await store.finish_prompt(
        prompt.prompt_id,
        PromptStatus.ERROR,
        error_code="provider_timeout",
        error_message="stalled",
        deltas=[error_delta],
    )
    assert (errored.status, errored.error_code, errored.error_message) == (
        PromptStatus.ERROR,
        "provider_timeout",
        "stalled",
    )
    for status in (PromptStatus.DONE, PromptStatus.CANCELLED, PromptStatus.ERROR):
        with pytest.raises(Conflict):
            await store.finish_prompt(prompt.prompt_id, status)
    with pytest.raises(Conflict):
        await store.append_deltas(prompt.prompt_id, [NewDelta(type="token", text="late")])
    with pytest.raises(InvalidInput):
        await store.finish_prompt(prompt.prompt_id, PromptStatus.IN_FLIGHT)
    assert len(await store.get_deltas(prompt.prompt_id)) == 1


async def test_cancel_from_another_request_stops_the_stream(store: ConversationStore) -> None:
    thread, _ = await store.get_or_create_thread()
    prompt, _ = await store.create_prompt(thread.thread_id, "q")
    await store.append_deltas(prompt.prompt_id, [NewDelta(type="token", text="a")])
    cancelled = await store.finish_prompt(
        prompt.prompt_id,
        PromptStatus.CANCELLED,
        thread_id=thread.thread_id,
        deltas=[NewDelta(type="done", metadata={"finishReason": "cancelled"})],
    )
    assert cancelled.status is PromptStatus.CANCELLED
    with pytest.raises(Conflict):  # the streaming request learns of the cancel on its next write
        await store.append_deltas(prompt.prompt_id, [NewDelta(type="token", text="b")])
    assert [d.type for d in await store.get_deltas(prompt.prompt_id)] == ["token", "done"]


ORPHANED = NewDelta(type="done", metadata={"finishReason": "cancelled", "reason": "orphaned"})


async def test_a_cancel_recorded_elsewhere_is_finished_by_its_live_owner(store: ConversationStore) -> None:
    key = owner()
    thread, _ = await store.get_or_create_thread(owner=key)
    prompt, _ = await store.create_prompt(thread.thread_id, "q", owner=key)
    # Another process cancels while the owner's lease is fresh: only the status is recorded.
    assert await store.cancel_prompt(prompt.prompt_id, owner=key, lease_s=6, final=ORPHANED)
    recorded = await store.get_prompt(prompt.prompt_id, owner=key)
    assert (recorded.status, recorded.delta_count) == (PromptStatus.CANCELLED, 0)
    assert recorded.finished_at is not None
    with pytest.raises(Conflict):  # a second cancel finds it finished
        await store.cancel_prompt(prompt.prompt_id, owner=key, lease_s=6, final=ORPHANED)
    # The owner stops and stores what it streamed, as a cancel of its own would.
    done = NewDelta(type="done", metadata={"finishReason": "cancelled", "reason": "client_cancelled"})
    finished = await store.finish_prompt(
        prompt.prompt_id,
        PromptStatus.CANCELLED,
        owner=key,
        token_count=1,
        deltas=[NewDelta(type="token", text="a"), done],
    )
    assert (finished.status, finished.token_count, finished.delta_count) == (PromptStatus.CANCELLED, 1, 2)
    assert [d.type for d in await store.get_deltas(prompt.prompt_id, owner=key)] == ["token", "done"]
    with pytest.raises(Conflict):  # once: no second final delta
        await store.finish_prompt(prompt.prompt_id, PromptStatus.CANCELLED, owner=key, deltas=[done])


async def test_an_owner_that_finished_before_seeing_the_cancel_stores_its_answer(
    store: ConversationStore,
) -> None:
    thread, _ = await store.get_or_create_thread()
    prompt, _ = await store.create_prompt(thread.thread_id, "q")
    assert await store.cancel_prompt(prompt.prompt_id, lease_s=6, final=ORPHANED)
    # The answer was complete (its `done` sent) before the owner looked: what it sent is stored.
    done = await store.finish_prompt(
        prompt.prompt_id,
        PromptStatus.DONE,
        token_count=1,
        deltas=[NewDelta(type="token", text="a"), NewDelta(type="done", metadata={"finishReason": "stop"})],
    )
    assert (done.status, done.delta_count) == (PromptStatus.DONE, 2)


async def test_a_cancel_of_a_prompt_whose_owner_died_finishes_it(
    store: ConversationStore, clock: FakeClock
) -> None:
    thread, _ = await store.get_or_create_thread()
    prompt, _ = await store.create_prompt(thread.thread_id, "q")
    clock.advance(10)  # the lease lapsed: nobody renews it
    assert not await store.cancel_prompt(prompt.prompt_id, lease_s=6, final=ORPHANED)
    cancelled = await store.get_prompt(prompt.prompt_id)
    assert (cancelled.status, cancelled.delta_count) == (PromptStatus.CANCELLED, 1)
    stored = await store.get_deltas(prompt.prompt_id)
    assert [(d.type, d.metadata) for d in stored] == [("done", ORPHANED.metadata)]
    with pytest.raises(Conflict):  # an owner that comes back late does not add a second final delta
        await store.finish_prompt(prompt.prompt_id, PromptStatus.CANCELLED, deltas=[ORPHANED])


async def test_prompt_statuses_reads_the_status_of_each_prompt(store: ConversationStore) -> None:
    thread, _ = await store.get_or_create_thread()
    running, _ = await store.create_prompt(thread.thread_id, "q")
    cancelled, _ = await store.create_prompt(thread.thread_id, "q")
    await store.cancel_prompt(cancelled.prompt_id, lease_s=6, final=ORPHANED)
    assert await store.prompt_statuses([]) == {}
    statuses = await store.prompt_statuses([running.prompt_id, cancelled.prompt_id, uuid.uuid4()])
    assert statuses == {
        running.prompt_id: PromptStatus.IN_FLIGHT,
        cancelled.prompt_id: PromptStatus.CANCELLED,
    }


async def test_out_of_order_delta_seq_is_a_conflict(store: ConversationStore) -> None:
    thread, _ = await store.get_or_create_thread()
    prompt, _ = await store.create_prompt(thread.thread_id, "q")
    await store.append_deltas(prompt.prompt_id, [NewDelta(type="token", text="a", seq=0)])
    with pytest.raises(Conflict):
        await store.append_deltas(prompt.prompt_id, [NewDelta(type="token", text="a", seq=0)])
    with pytest.raises(Conflict):
        await store.append_deltas(prompt.prompt_id, [NewDelta(type="token", text="c", seq=2)])
    assert (await store.get_prompt(prompt.prompt_id)).delta_count == 1


async def test_idempotency_key_returns_the_existing_prompt(store: ConversationStore) -> None:
    thread, _ = await store.get_or_create_thread()
    other, _ = await store.get_or_create_thread()
    prompt, created = await store.create_prompt(
        thread.thread_id, "How does RAG work?", idempotency_key="req-1"
    )
    again, created_again = await store.create_prompt(
        thread.thread_id, "How does RAG work?", idempotency_key="req-1"
    )
    assert created
    assert not created_again
    assert again.prompt_id == prompt.prompt_id

    elsewhere, created_elsewhere = await store.create_prompt(other.thread_id, "q", idempotency_key="req-1")
    assert created_elsewhere
    assert elsewhere.prompt_id != prompt.prompt_id
    no_key_1, _ = await store.create_prompt(thread.thread_id, "q")
    no_key_2, _ = await store.create_prompt(thread.thread_id, "q")
    assert no_key_1.prompt_id != no_key_2.prompt_id


async def test_prompts_of_another_key_or_session_are_not_found(store: ConversationStore) -> None:
    alice = owner()
    thread, _ = await store.get_or_create_thread(owner=alice)
    other, _ = await store.get_or_create_thread(owner=alice)
    prompt, _ = await store.create_prompt(thread.thread_id, "q", owner=alice)
    with pytest.raises(NotFound):
        await store.get_prompt(prompt.prompt_id, owner=owner())
    with pytest.raises(NotFound):
        await store.get_prompt(prompt.prompt_id, owner=alice, thread_id=other.thread_id)
    with pytest.raises(NotFound):
        await store.finish_prompt(prompt.prompt_id, PromptStatus.CANCELLED, owner=owner())
    with pytest.raises(NotFound):
        await store.get_deltas(prompt.prompt_id, owner=owner())
    with pytest.raises(NotFound):
        await store.get_prompt(uuid.uuid4(), owner=alice)
    with pytest.raises(NotFound):
        await store.create_prompt(uuid.uuid4(), "q", owner=alice)
    with pytest.raises(InvalidInput):
        await store.create_prompt(thread.thread_id, "   ", owner=alice)


async def test_stale_in_flight_prompts_are_abandoned(store: ConversationStore, clock: FakeClock) -> None:
    thread, _ = await store.get_or_create_thread()
    stale, _ = await store.create_prompt(thread.thread_id, "q")
    clock.advance(600)
    fresh, _ = await store.create_prompt(thread.thread_id, "q")
    assert await store.abandon_stale_prompts(300) >= 1
    abandoned = await store.get_prompt(stale.prompt_id)
    assert (abandoned.status, abandoned.error_code) == (PromptStatus.ERROR, "abandoned")
    assert (await store.get_prompt(fresh.prompt_id)).status is PromptStatus.IN_FLIGHT


# --- log events ---------------------------------------------------------------------------------


async def test_log_events_round_trip(store: ConversationStore, clock: FakeClock) -> None:
    thread, _ = await store.get_or_create_thread()
    tid = thread.thread_id
    await store.log_events(
        [
            NewLogEvent(event_type="query_received", thread_id=tid, details={"query_text": "What is URDF?"}),
            NewLogEvent(event_type="embedding_generated", thread_id=tid, duration_ms=12.5),
        ]
    )
    clock.advance(1)
    await store.log_event(NewLogEvent(event_type="response_sent", thread_id=tid, duration_ms=250.0))
    await store.log_event(NewLogEvent(event_type="error", details={"error_details": "no thread"}))

    events = await store.list_log_events(thread_id=tid)
    assert [e.event_type for e in events] == ["query_received", "embedding_generated", "response_sent"]
    assert events[0].details == {"query_text": "What is URDF?"}
    assert events[1].duration_ms == pytest.approx(12.5)
    assert events[2].timestamp == clock.now
    sent = await store.list_log_events(thread_id=tid, event_type="response_sent")
    assert [e.duration_ms for e in sent] == [250.0]
    assert [e.event_type for e in await store.list_log_events(thread_id=tid, limit=1)] == ["response_sent"]
