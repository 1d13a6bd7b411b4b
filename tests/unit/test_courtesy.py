"""A dressed single question is read as the plain one (`lectern.courtesy.without_courtesy`): greetings,
courtesy words and preambles that carry no content are left out of what is searched, judged and written
for, while the question as asked is what the conversation stores. Preambles whose verb asks ("explain
X", "tell me about X") keep it, and a "can" that asks is kept."""

from __future__ import annotations

from collections.abc import AsyncIterator

import pytest

from lectern.courtesy import without_courtesy
from lectern.writers.base import WriteRequest, WriterEvent
from lectern.writers.extractive import ExtractiveWriter
from tests.unit.answer_support import collect, done_of, make_engine


@pytest.mark.parametrize(
    ("question", "plain"),
    [
        # greetings
        ("Hi! How do I rotate the log files?", "How do I rotate the log files?"),
        ("hello, what is a retention policy?", "what is a retention policy?"),
        ("hey there, how do I rotate the log files?", "how do I rotate the log files?"),
        ("Good morning! What port does the broker listen on?", "What port does the broker listen on?"),
        ("hi how do I rotate the log files", "how do I rotate the log files"),
        # preambles with no content
        ("Can you tell me: what is a retention policy?", "what is a retention policy?"),
        ("can you tell me how the broker stores offsets?", "how the broker stores offsets?"),
        ("Could you please tell me what a partition is?", "what a partition is?"),
        ("I was wondering, how do I rotate the log files?", "how do I rotate the log files?"),
        ("quick question: what port does the broker use?", "what port does the broker use?"),
        ("Do you know how to rotate the log files?", "how to rotate the log files?"),
        ("could you explain the retention policy", "explain the retention policy"),
        # trailing courtesy
        ("How do I rotate the log files, please?", "How do I rotate the log files?"),
        ("How do I rotate the log files? Thanks!", "How do I rotate the log files?"),
        ("What is a partition? Thank you", "What is a partition?"),
        ("what is a partition, cheers", "what is a partition"),
        ("I need the port. Which one is it? Thanks?", "I need the port. Which one is it?"),
        ("I need the port and how to set it., please?", "I need the port and how to set it."),
        # layers, each in turn
        ("Hi! Quick question: can you tell me how offsets work? Thanks!", "how offsets work?"),
    ],
)
def test_dressing_is_left_out(question: str, plain: str) -> None:
    assert without_courtesy(question) == plain
    assert without_courtesy(plain) == plain  # the reading is stable


@pytest.mark.parametrize(
    "question",
    [
        "Hi",
        "Thanks!",
        "please?",
        "Hello!",
        "Can ROS run on Windows?",  # "can" asks here
        "can you use the client library with Python 2?",  # and here ("you": anyone)
        "Tell me about retention policies",  # "tell me about" asks
        "Explain the retention policy",
        "I wonder if the broker supports TLS?",  # "if ...": no question of its own to keep
        "Can you show me how to rotate the log files?",
        "can you walk me through an example?",
        "Is the thank-you page configurable?",
        "How do hierarchical greetings work in the protocol?",
        "Hill climbing: how does it work?",
        "Question answering models: which one is fastest?",
    ],
)
def test_kept_as_asked(question: str) -> None:
    assert without_courtesy(question) == question


def test_only_courtesy_left_of_please_help() -> None:
    assert without_courtesy("please help") == "help"


class _Recording(ExtractiveWriter):
    def __init__(self) -> None:
        super().__init__()
        self.requests: list[WriteRequest] = []

    async def write(self, request: WriteRequest) -> AsyncIterator[WriterEvent]:
        self.requests.append(request)
        async for event in super().write(request):
            yield event


async def test_engine_reads_the_plain_question_and_stores_it_as_asked() -> None:
    plain_engine, _, _ = make_engine()
    plain = done_of(
        await collect(plain_engine.stream("What is a ROS 2 node?", plain_engine.new_conversation()))
    )
    writer = _Recording()
    engine, _, _ = make_engine(writer)
    conversation = engine.new_conversation()
    asked = "Hi! Can you tell me: What is a ROS 2 node? Thanks!"
    answer = done_of(await collect(engine.stream(asked, conversation))).answer
    assert answer.search_query == "What is a ROS 2 node?"
    assert answer.text == plain.answer.text
    assert [c.source_path for c in answer.citations] == [c.source_path for c in plain.answer.citations]
    assert writer.requests[0].question == "What is a ROS 2 node?"
    assert conversation.history[0].content == asked  # stored as asked
