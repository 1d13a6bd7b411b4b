"""kill -9 of a real server process in the middle of a keyed generation, then a restart on the same
database: a retry with the same idempotency key gets the complete answer within seconds, under the same
prompt id, and the session's history ends with that answer (SQLite and PostgreSQL)."""

from __future__ import annotations

import json
import os
import signal
import socket
import subprocess
import sys
import time
import uuid
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import httpx
import pytest

from tests.api_support import ON_TOPIC, check_stream, ndjson

pytestmark = pytest.mark.integration

ROOT = Path(__file__).resolve().parents[2]


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


class Server:
    """tests.integration.slow_server in a process of its own; ``writer``: its WORDS and DELAY_S."""

    def __init__(self, data: Path, url: str, writer: tuple[str, ...] = ()) -> None:
        self.data, self.url_db, self.writer = data, url, writer
        self.port = free_port()
        self.process: subprocess.Popen[bytes] | None = None

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    def start(self) -> None:
        log = (self.data / f"server-{self.port}.log").open("ab")
        self.process = subprocess.Popen(
            [
                sys.executable,
                "-m",
                "tests.integration.slow_server",
                str(self.data),
                str(self.port),
                self.url_db,
                *self.writer,
            ],
            cwd=ROOT,
            env={**os.environ, "PYTHONPATH": str(ROOT)},
            stdout=log,
            stderr=subprocess.STDOUT,
        )
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline:
            try:
                if httpx.get(f"{self.url}/health", timeout=1).status_code == 200:
                    return
            except httpx.HTTPError:
                time.sleep(0.1)
        raise AssertionError(
            "the server did not start: " + (self.data / f"server-{self.port}.log").read_text()
        )

    def kill(self) -> None:
        assert self.process is not None
        self.process.send_signal(signal.SIGKILL)
        self.process.wait(timeout=10)

    def stop(self) -> None:
        if self.process is not None and self.process.poll() is None:
            self.process.terminate()
            try:
                self.process.wait(timeout=10)
            except subprocess.TimeoutExpired:
                self.process.kill()


@contextmanager
def started(*servers: Server) -> Iterator[None]:
    """The servers started, and stopped at the end whatever happened."""
    try:
        for server in servers:
            server.start()
        yield
    finally:
        for server in servers:
            server.stop()


@pytest.fixture(params=["sqlite", "postgresql"])
def database_url(request: pytest.FixtureRequest, tmp_path: Path) -> str:
    if request.param == "postgresql":
        return str(request.getfixturevalue("postgres_url"))
    return f"sqlite+aiosqlite:///{tmp_path / 'lectern.sqlite3'}"


@pytest.fixture
def servers(tmp_path: Path, database_url: str) -> Iterator[tuple[Server, Server]]:
    first, second = Server(tmp_path, database_url), Server(tmp_path, database_url)
    try:
        yield first, second
    finally:
        first.stop()
        second.stop()


def test_kill_9_mid_generation_then_a_retried_key_gets_the_whole_answer(
    servers: tuple[Server, Server],
) -> None:
    first, second = servers
    first.start()
    key = f"k-{uuid.uuid4()}"
    with httpx.Client(base_url=first.url, timeout=30) as client:
        session = client.post("/api/generation/session", json={}).json()["sessionId"]
        body = {"sessionId": session, "prompt": ON_TOPIC, "idempotencyKey": key}
        with client.stream("POST", "/api/generation/stream", json=body) as stream:
            prompt_id = stream.headers["x-prompt-id"]
            lines = stream.iter_lines()
            seen = [json.loads(next(lines)) for _ in range(5)]
            assert all(d["type"] == "token" for d in seen)
            first.kill()  # mid-generation: no shutdown, no final write
            with pytest.raises(httpx.HTTPError):
                for _ in lines:
                    pass
    second.start()
    with httpx.Client(base_url=second.url, timeout=60) as client:
        started = time.monotonic()
        retry = client.post("/api/generation/stream", json=body)
        elapsed = time.monotonic() - started
        history = client.get(f"/session/{session}/history").json()
    deltas = ndjson(retry.text)
    check_stream(deltas)
    assert retry.headers["x-prompt-id"] == prompt_id
    assert deltas[-1]["type"] == "done", deltas[-1]
    assert deltas[-1]["metadata"]["finishReason"] == "stop"
    assert sum(d["type"] == "token" for d in deltas) == 60  # the whole answer, not the cut one
    assert elapsed < 20, elapsed
    answer = "".join(d["text"] for d in deltas if d["type"] == "token")
    assert history["messages"][-1]["role"] == "assistant"
    assert history["messages"][-1]["content"] == answer
