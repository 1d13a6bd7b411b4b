"""Answer writers for HTTP tests: one that writes slowly (to cancel mid-stream) and one that fails.

``SlowWriter`` streams a fixed answer one word at a time with a pause between words, citing source 1,
and records whether it was cancelled and when: the test's proof that a cancel reached the writer.
"""

from __future__ import annotations

import asyncio
import threading
import time
from collections.abc import AsyncIterator

from lectern.errors import ProviderError
from lectern.events import Token
from lectern.models import TokenUsage
from lectern.writers.base import WriteRequest, WriterEvent, Written


class SlowWriter:
    name = "fake:slow"
    retrieves_itself = False

    def __init__(self, words: int = 200, delay_s: float = 0.05, first_delay_s: float = 0.0) -> None:
        self.words = [f"word{i} " for i in range(words)]
        self.delay_s = delay_s
        self.first_delay_s = first_delay_s
        self.started = threading.Event()
        self.cancelled = threading.Event()
        self.cancelled_at: float | None = None
        self.calls = 0

    async def write(self, request: WriteRequest) -> AsyncIterator[WriterEvent]:
        self.calls += 1
        self.started.set()
        try:
            if self.first_delay_s:
                await asyncio.sleep(self.first_delay_s)
            for word in self.words:
                yield Token(word)
                await asyncio.sleep(self.delay_s)
        except (asyncio.CancelledError, GeneratorExit):
            self.cancelled_at = time.perf_counter()
            self.cancelled.set()
            raise
        yield Written(
            "".join(self.words),
            [1],
            TokenUsage(prompt_tokens=10, completion_tokens=len(self.words)),
            self.name,
        )


class FailingWriter:
    """Writes a few words, then its provider fails (seed 001 API_ERROR)."""

    name = "fake:failing"
    retrieves_itself = False

    def __init__(self, words_before: int = 2) -> None:
        self.words_before = words_before

    async def write(self, request: WriteRequest) -> AsyncIterator[WriterEvent]:
        for i in range(self.words_before):
            yield Token(f"partial{i} ")
        raise ProviderError("The model provider is unavailable; please retry.")
