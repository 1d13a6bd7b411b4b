"""With an answerability model, the extractive answer is decided and composed in the retrieval's worker
call (one hand-off to a thread per answer) and is the answer the writer would have composed itself."""

from __future__ import annotations

import asyncio
import threading
from collections.abc import AsyncIterator, Callable
from typing import Any, TypeVar

import pytest

from lectern import engine as engine_module
from lectern.answerability import FEATURES, AnswerabilityModel
from lectern.confidence import refused
from lectern.engine import AskOptions, Engine
from lectern.events import Token
from lectern.models import Answer
from lectern.writers.base import Composed, WriteRequest, WriterEvent
from lectern.writers.extractive import ExtractiveWriter
from tests.unit.answer_support import collect, done_of, make_engine

T = TypeVar("T")
QUESTION = "What is a ROS 2 node?"


def _model(bias: float) -> AnswerabilityModel:
    """Every question gets the probability sigmoid(bias): 0.95 answers (high), 0.05 refuses."""
    n = len(FEATURES)
    return AnswerabilityModel("fake", (0.0,) * n, (1.0,) * n, (0.0,) * n, bias, 0.5, 0.6, 0.9, report={})


class _ThreadedWriter(ExtractiveWriter):
    """Records the thread each answer is composed in."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.threads: list[str] = []

    def compose(self, request: WriteRequest) -> tuple[str, list[int]]:
        self.threads.append(threading.current_thread().name)
        return super().compose(request)


class _Delegating:
    """An AnswerWriter that is not a ComposingWriter: writes with the writer it wraps."""

    def __init__(self, inner: ExtractiveWriter) -> None:
        self.inner = inner
        self.name = inner.name
        self.retrieves_itself = False

    def write(self, request: WriteRequest) -> AsyncIterator[WriterEvent]:
        return self.inner.write(request)


def _engine(monkeypatch: pytest.MonkeyPatch, bias: float) -> tuple[Engine, _ThreadedWriter]:
    monkeypatch.setattr(engine_module, "load_model", lambda name: _model(bias))
    engine, _, embedder = make_engine()
    writer = _ThreadedWriter(embedder)
    engine = Engine(engine.retriever, writer, engine.settings)
    return engine, writer


def _count_hand_offs(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    names: list[str] = []
    real = asyncio.to_thread

    async def counted(func: Callable[..., T], /, *args: Any, **kwargs: Any) -> T:
        names.append(getattr(func, "__name__", "?"))
        return await real(func, *args, **kwargs)

    monkeypatch.setattr(asyncio, "to_thread", counted)
    return names


def _same(a: Answer, b: Answer) -> None:
    assert a.text == b.text
    assert a.citations == b.citations
    assert a.confidence == b.confidence
    assert a.refusal_reason == b.refusal_reason
    assert a.usage == b.usage


async def test_an_answer_is_decided_and_composed_in_the_retrievals_worker_call(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    engine, writer = _engine(monkeypatch, 3.0)
    hand_offs = _count_hand_offs(monkeypatch)
    answer = await engine.run(QUESTION, engine.new_conversation())
    assert len(hand_offs) == 1  # the retrieval's, which also decided and composed
    assert len(writer.threads) == 1
    assert writer.threads[0] != threading.main_thread().name
    assert answer.confidence.confidence_level == "high"
    assert answer.citations
    assert answer.timings.generation_ms > 0  # composing counts as generation, wherever it ran

    # The answer the writer composes itself (not a ComposingWriter: the engine hands the request over).
    engine.writer = _Delegating(writer)
    _same(await engine.run(QUESTION, engine.new_conversation()), answer)
    assert len(hand_offs) == 3  # retrieval, then the writer's own


async def test_a_refusal_composes_nothing(monkeypatch: pytest.MonkeyPatch) -> None:
    engine, writer = _engine(monkeypatch, -3.0)
    answer = await engine.run(QUESTION, engine.new_conversation())
    assert answer.refusal_reason == "not_answerable"
    assert writer.threads == []


async def test_a_cached_retrieval_is_decided_and_written_afterwards(monkeypatch: pytest.MonkeyPatch) -> None:
    engine, writer = _engine(monkeypatch, 3.0)
    conversation = engine.new_conversation()
    first = await engine.run(QUESTION, conversation)
    again = await engine.run(QUESTION, conversation)  # from the session's cache: nothing prepared
    assert again.timings.retrieval.cached
    _same(again, first)
    assert len(writer.threads) == 2


@pytest.mark.parametrize("stream", [True, False])
async def test_a_composed_answer_streams_as_the_writer_would(
    monkeypatch: pytest.MonkeyPatch, stream: bool
) -> None:
    engine, _ = _engine(monkeypatch, 3.0)
    events = await collect(
        engine.stream(QUESTION, engine.new_conversation(), AskOptions(stream_tokens=stream))
    )
    tokens = [e for e in events if isinstance(e, Token)]
    assert (len(tokens) > 3) if stream else (len(tokens) == 1)
    assert "".join(t.text for t in tokens) == done_of(events).answer.text


async def test_the_writer_sends_an_answer_composed_ahead_as_is() -> None:
    class Refuses(ExtractiveWriter):
        def compose(self, request: WriteRequest) -> tuple[str, list[int]]:
            raise AssertionError("composed already")

    composed = Composed("A node is a process [1]. It talks over topics [2].", [1, 2], 1.5)
    request = WriteRequest(QUESTION, QUESTION, [], "", None, None, None, _no_retrieve, composed=composed)
    for stream in (True, False):
        request.stream = stream
        events = [event async for event in Refuses().write(request)]
        *tokens, written = events
        assert "".join(t.text for t in tokens if isinstance(t, Token)) == composed.text
        assert len(tokens) == (11 if stream else 1)
        assert written == engine_module.Written(
            text=composed.text, cited=[1, 2], usage=written.usage, model="extractive"
        )
        assert written.usage.completion_tokens == 11  # words, either way


async def _no_retrieve(call: object) -> Any:
    raise AssertionError("no retrieval")


STANDALONE = "Which repository do I add on Ubuntu first?"
RETRY = "Which repository do I add on Ubuntu first (Gazebo Harmonic)?"  # with the previous topic


async def test_a_refusal_is_searched_again_with_the_previous_topic_in_the_same_worker_call(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    engine, _ = _engine(monkeypatch, -3.0)  # every search refused: the second question is tried again
    conversation = engine.new_conversation()
    await engine.run("What is Gazebo Harmonic?", conversation)
    judged: list[tuple[str, Any]] = []
    real_decide = Engine._decide

    async def decide(self: Engine, turn: Any, result: Any, confidence: Any, found: Any = None) -> Any:
        judged.append((result.query, found))
        return await real_decide(self, turn, result, confidence, found)

    monkeypatch.setattr(Engine, "_decide", decide)
    hand_offs = _count_hand_offs(monkeypatch)
    events = await collect(engine.stream(STANDALONE, conversation))
    answer = done_of(events).answer
    assert answer.refusal_reason == "not_answerable"
    assert answer.retrieval_count == 2
    # the first search was decided in its worker call (no _decide), the second one here, on its signals
    [(query, found)] = judged
    assert query == RETRY
    assert found is not None
    assert hand_offs == ["work"]  # both searches and their signals in one worker call


def _answers_the_retry(monkeypatch: pytest.MonkeyPatch) -> None:
    """Signals that say which query was searched, and a decision that answers only the retry."""
    monkeypatch.setattr(Engine, "_signals", lambda self, query, result, carried=frozenset(): result.query)

    def decided(model: Any, confidence: Any, found: Any) -> Any:
        if found == RETRY:
            return confidence.model_copy(update={"confidence_level": "medium", "should_answer": True}), None
        return refused(confidence), "not_answerable"

    monkeypatch.setattr(engine_module, "_decided", decided)


async def test_a_retry_searched_in_the_first_worker_call_answers_as_one_searched_after_it(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    engine, _ = _engine(monkeypatch, 3.0)
    _answers_the_retry(monkeypatch)
    hand_offs = _count_hand_offs(monkeypatch)
    answers = []
    for searched_first in (True, False):
        if not searched_first:  # the search with the previous topic made after the first worker call
            monkeypatch.setattr(Engine, "_retry_here", lambda *args: None)
        conversation = engine.new_conversation()
        await engine.run("What is Gazebo Harmonic?", conversation)
        hand_offs.clear()
        answer = await engine.run(STANDALONE, conversation)
        assert answer.search_query == RETRY
        assert answer.refusal_reason is None
        assert answer.grounded
        assert answer.retrieval_count == 2
        # the search with the previous topic is kept in the session's cache either way
        assert any(key[0] == RETRY.lower() for key in conversation.cache)
        assert hand_offs == (["work", "compose"] if searched_first else ["work", "work", "compose"])
        answers.append(answer)
    _same(answers[0], answers[1])
