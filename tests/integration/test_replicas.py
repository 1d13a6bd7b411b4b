"""Three `lectern serve` replicas on loopback behind HAProxy (round robin, health checks on /ready),
sharing one PostgreSQL with pgvector (index + conversations) and Redis: the deployment of
docs/deploying.md, run for real. Needs the `haproxy` binary (Debian package).

The replicas write with an OpenAI-compatible chat model: a scripted fake on loopback that answers from
the first passage it is given, slowly when a test asks, so that a generation lasts long enough to be
cancelled, followed or killed mid-stream. One deployment serves the whole module (CI time).
"""

from __future__ import annotations

import json
import os
import re
import shutil
import signal
import socket
import subprocess
import sys
import time
import uuid
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import httpx
import psycopg
import pytest

from tests.fakes.openai_chat_server import FakeChatServer, Reply
from tests.services import unavailable, unique_name

pytestmark = [pytest.mark.integration, pytest.mark.redis]

# Fresh keys per run: the rate limit's counters live in the shared Redis, and outlast a run by a minute.
_RUN = uuid.uuid4().hex[:12]
KEY = f"sk-replicas-general-{_RUN}"
LIMITED_KEY = f"sk-replicas-limited-{_RUN}"
LOAD_KEY = f"sk-replicas-load-{_RUN}"
RATE = 100  # per minute and key, across all replicas
HAPROXY_CFG = Path(__file__).resolve().parents[2] / "docs" / "examples" / "haproxy.cfg"

GAZEBO = """# Simulation with Gazebo

## Physics engines

Gazebo can run the DART, Bullet or ODE physics engines. DART is the default physics engine of Gazebo.

## Choosing a physics engine

Choose the Gazebo physics engine with the physics element of the world file; Bullet suits rigid bodies.

## Physics step size

The physics engine advances the Gazebo world by a fixed step size, one millisecond by default.
"""
NAV = """# Navigation with Nav2

## The navigation stack

Nav2 plans a path with a global planner and follows the path with a controller such as the DWB controller.

## Controllers

The DWB controller of Nav2 scores candidate trajectories to follow the path; Regulated Pure Pursuit is
another Nav2 controller.

## Planners

The Nav2 global planner computes the path that the controller follows, for example with NavFn.
"""


PASSAGE = re.compile(r'<passage number="(\d+)"[^\n]*>\n(.*?)\n</passage>', re.S)
SLOW_CHUNK_S = 0.25  # per word: a slow answer streams for several seconds


class Model:
    """The fake chat model's behaviour: quote every passage it is given, citing each; the next
    ``slow`` answers are streamed a word every ``SLOW_CHUNK_S``."""

    def __init__(self) -> None:
        self.slow = 0

    def __call__(self, body: dict[str, Any]) -> Reply:
        prompt = str(body["messages"][-1]["content"])
        quoted = []
        for number, passage in PASSAGE.findall(prompt):
            lines = [ln for ln in passage.splitlines() if ln.strip() and not ln.startswith("#")]
            for sentence in re.split(r"(?<=\.)\s+", " ".join(lines).strip()):
                if sentence:
                    quoted.append(f"{sentence.rstrip('.')} [{number}].")
        if not quoted:
            return Reply(text="I don't have information about that in the documents.")
        delay = 0.0
        if self.slow > 0:
            self.slow -= 1
            delay = SLOW_CHUNK_S
        return Reply(text=" ".join(quoted), chunk_delay_s=delay)


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


@dataclass
class Cluster:
    base: Path
    env: dict[str, str]
    docs: Path
    llm: FakeChatServer
    model: Model
    pgvector_url: str
    front: str = ""
    ports: list[int] = field(default_factory=list)
    replicas: list[subprocess.Popen[bytes]] = field(default_factory=list)
    haproxy: subprocess.Popen[bytes] | None = None

    def lectern(self, *args: str) -> subprocess.CompletedProcess[str]:
        return subprocess.run(
            [sys.executable, "-m", "lectern.cli", *args],
            env=self.env,
            capture_output=True,
            text=True,
            timeout=300,
        )

    def start_replica(self, port: int) -> subprocess.Popen[bytes]:
        log = (self.base / f"replica-{port}.log").open("wb")
        return subprocess.Popen(
            [sys.executable, "-m", "lectern.cli", "serve", "--host", "127.0.0.1", "--port", str(port)],
            env=self.env,
            stdout=log,
            stderr=subprocess.STDOUT,
        )

    def direct(self, i: int) -> str:
        return f"http://127.0.0.1:{self.ports[i]}"


def wait_ready(url: str, timeout_s: float = 120) -> None:
    deadline = time.monotonic() + timeout_s
    while time.monotonic() < deadline:
        try:
            if httpx.get(f"{url}/ready", headers={"X-API-Key": KEY}, timeout=2).status_code == 200:
                return
        except httpx.HTTPError:
            pass
        time.sleep(0.3)
    raise AssertionError(f"{url} did not become ready")


@pytest.fixture(scope="module")
def llm() -> Iterator[tuple[FakeChatServer, Model]]:
    model = Model()
    with FakeChatServer(default=model) as server:
        server.props = None  # no tool support: context-first answers
        yield server, model


@pytest.fixture(scope="module")
def cluster(
    tmp_path_factory: pytest.TempPathFactory,
    pgvector_url: str,
    redis_url: str,
    llm: tuple[FakeChatServer, Model],
) -> Iterator[Cluster]:
    haproxy = shutil.which("haproxy") or ("/usr/sbin/haproxy" if Path("/usr/sbin/haproxy").exists() else None)
    if haproxy is None:
        unavailable("HAProxy", "the haproxy binary is not installed (apt-get install haproxy)")
    base = tmp_path_factory.mktemp("replicas")
    docs = base / "docs"
    docs.mkdir()
    (docs / "gazebo.md").write_text(GAZEBO, encoding="utf-8")
    schema = unique_name("replicas")
    (base / "empty.toml").write_text("", encoding="utf-8")  # no lectern.toml of the caller's applies
    database = pgvector_url.replace("postgresql://", "postgresql+asyncpg://", 1)
    env = {
        **os.environ,
        "LECTERN_DATA_DIR": str(base / "data"),
        "LECTERN_INDEX_ENGINE": "pgvector",
        "LECTERN_PGVECTOR_URL": pgvector_url,
        "LECTERN_PGVECTOR_SCHEMA": schema,
        "LECTERN_DATABASE_URL": database,
        "LECTERN_REDIS_URL": redis_url,
        "LECTERN_API_KEYS": f'["{KEY}", "{LIMITED_KEY}", "{LOAD_KEY}"]',
        "LECTERN_RATE_LIMIT": f"{RATE}/minute",
        "LECTERN_EMBEDDING_THREADS": "1",
        "LECTERN_SHUTDOWN_DRAIN_S": "5",
        "LECTERN_CONFIG": str(base / "empty.toml"),
        "LECTERN_LLM_PROVIDER": "openai",
        "LECTERN_LLM_BASE_URL": llm[0].base_url,
        "LECTERN_LLM_API_KEY": "sk-fake",
        "LECTERN_LLM_MODEL": "fake-model",
        "LECTERN_LLM_WRITER_MODE": "context",
    }
    c = Cluster(base, env, docs, llm[0], llm[1], pgvector_url)
    ingested = c.lectern("ingest", str(docs))
    assert ingested.returncode == 0, ingested.stdout + ingested.stderr
    c.ports = [free_port() for _ in range(3)]
    front = free_port()
    c.front = f"http://127.0.0.1:{front}"
    c.replicas = [c.start_replica(p) for p in c.ports]
    try:
        for i in range(3):
            wait_ready(c.direct(i))
        config = HAPROXY_CFG.read_text(encoding="utf-8")
        config = config.replace("127.0.0.1:8080", f"127.0.0.1:{front}").replace("sk-balancer-key", KEY)
        for i, port in enumerate(c.ports, start=1):
            config = config.replace(f"127.0.0.1:900{i}", f"127.0.0.1:{port}")
        (base / "haproxy.cfg").write_text(config, encoding="utf-8")
        c.haproxy = subprocess.Popen(
            [haproxy, "-f", str(base / "haproxy.cfg"), "-db"],
            stdout=(base / "haproxy.log").open("wb"),
            stderr=subprocess.STDOUT,
        )
        wait_ready(c.front, 30)
        yield c
    finally:
        for proc in [*c.replicas, *([c.haproxy] if c.haproxy else [])]:
            if proc.poll() is None:
                proc.send_signal(signal.SIGTERM)
        for proc in [*c.replicas, *([c.haproxy] if c.haproxy else [])]:
            try:
                proc.wait(15)
            except subprocess.TimeoutExpired:
                proc.kill()


def ask(url: str, question: str, session: str | None = None, key: str = KEY) -> httpx.Response:
    body: dict[str, object] = {"message": question}
    if session:
        body["session_id"] = session
    return httpx.post(f"{url}/chat/run", json=body, headers={"X-API-Key": key}, timeout=60)


def cited(response: httpx.Response) -> set[str]:
    return {str(s.get("url") or s.get("source_path") or s) for s in response.json().get("sources", [])}


def test_answers_through_the_balancer_and_history_on_any_replica(cluster: Cluster) -> None:
    first = ask(cluster.front, "Which physics engines can Gazebo run?")
    assert first.status_code == 200, first.text
    assert "DART" in first.json()["response"]
    session = first.json()["session_id"]
    second = ask(cluster.front, "Which one is the default?", session)
    assert second.status_code == 200
    # every replica reads the same conversation from PostgreSQL
    for i in range(3):
        history = httpx.get(
            f"{cluster.direct(i)}/session/{session}/history", headers={"X-API-Key": KEY}, timeout=10
        )
        assert history.status_code == 200
        assert len(history.json()["messages"]) == 4


def test_rate_limit_is_shared_by_the_replicas(cluster: Cluster) -> None:
    headers = {"X-API-Key": LIMITED_KEY}
    statuses = [
        httpx.get(f"{cluster.front}/v1/models", headers=headers, timeout=10).status_code
        for _ in range(RATE + 5)
    ]
    assert statuses.count(200) == RATE
    assert statuses.count(429) == 5


GENERATION = "/api/generation"
ENGINES_Q = "Which physics engines can Gazebo run?"


def new_session(url: str) -> str:
    made = httpx.post(f"{url}{GENERATION}/session", headers={"X-API-Key": KEY}, timeout=10)
    assert made.status_code == 201, made.text
    return str(made.json()["sessionId"])


def prompt_body(session: str, prompt: str, key: str | None = None) -> dict[str, Any]:
    body: dict[str, Any] = {"sessionId": session, "prompt": prompt}
    if key is not None:
        body["idempotencyKey"] = key
    return body


def read_deltas(lines: Iterator[str]) -> list[dict[str, Any]]:
    return [json.loads(line) for line in lines if line.strip()]


def test_a_cancel_landing_on_another_replica_stops_the_generation(cluster: Cluster) -> None:
    session = new_session(cluster.front)
    cluster.model.slow = 1
    disconnects = len(cluster.llm.disconnects)
    with (
        httpx.Client(headers={"X-API-Key": KEY}, timeout=60) as client,
        client.stream(
            "POST", f"{cluster.front}{GENERATION}/stream", json=prompt_body(session, ENGINES_Q)
        ) as r,
    ):
        assert r.status_code == 200
        runner, prompt_id = r.headers["X-Served-By"], r.headers["X-Prompt-Id"]
        lines = r.iter_lines()
        first = json.loads(next(lines))
        assert first["type"] == "token"
        sent = time.monotonic()
        cancel = client.post(
            f"{cluster.front}{GENERATION}/cancel", json={"sessionId": session, "promptId": prompt_id}
        )
        assert cancel.status_code == 204, cancel.text
        # round robin: the cancel went to another replica, which signals the runner through Redis
        assert cancel.headers["X-Served-By"] != runner
        rest = read_deltas(lines)
        final_after = time.monotonic() - sent  # the cancel's round trip included
    assert rest[-1]["type"] == "done"
    assert rest[-1]["metadata"]["finishReason"] == "cancelled"
    assert rest[-1]["metadata"]["reason"] == "client_cancelled"
    assert final_after <= 0.2, f"the final delta came {final_after * 1000:.0f} ms after the cancel"
    # the runner stopped its request to the model, not only the stream
    deadline = time.monotonic() + 5
    while len(cluster.llm.disconnects) == disconnects and time.monotonic() < deadline:
        time.sleep(0.05)
    assert len(cluster.llm.disconnects) > disconnects
    print(f"cancel on {cancel.headers['X-Served-By']} stopped {runner}: final delta {final_after:.3f}s")


def test_a_retried_key_on_another_replica_follows_then_replays(cluster: Cluster) -> None:
    session = new_session(cluster.front)
    body = prompt_body(session, ENGINES_Q, key="retry-across-replicas")
    url = f"{cluster.front}{GENERATION}/stream"
    cluster.model.slow = 1
    with httpx.Client(headers={"X-API-Key": KEY}, timeout=60) as client:
        with client.stream("POST", url, json=body) as first:
            assert first.status_code == 200
            runner, prompt_id = first.headers["X-Served-By"], first.headers["X-Prompt-Id"]
            lines = first.iter_lines()
            original = [json.loads(next(lines))]
            assert original[0]["type"] == "token"
            # the client retries (say its connection looked dead): the retry runs nothing new
            with client.stream("POST", url, json=body) as again:
                assert again.status_code == 200
                assert again.headers["X-Served-By"] != runner
                assert again.headers["X-Prompt-Id"] == prompt_id
                assert again.headers["X-Idempotent-Replay"] == "true"
                followed = read_deltas(again.iter_lines())
            original += read_deltas(lines)
        replayed = client.post(url, json=body)
    assert original[-1]["type"] == "done"
    assert original[-1]["metadata"]["finishReason"] == "stop"
    assert sum(d["type"] == "token" for d in original) >= 2  # streamed in several deltas
    assert followed == original
    assert replayed.headers["X-Served-By"] not in (runner, again.headers["X-Served-By"])
    assert read_deltas(iter(replayed.text.splitlines())) == original
    history = httpx.get(f"{cluster.front}/session/{session}/history", headers={"X-API-Key": KEY}, timeout=10)
    assert [m["role"] for m in history.json()["messages"]] == ["user", "assistant"]  # answered once


def test_live_reingest_is_seen_by_every_replica(cluster: Cluster) -> None:
    question = "Which controller does Nav2 use to follow a path?"
    (cluster.docs / "nav.md").write_text(NAV, encoding="utf-8")
    (cluster.docs / "gazebo.md").unlink()
    started = time.monotonic()
    ingested = cluster.lectern("ingest", str(cluster.docs))
    assert ingested.returncode == 0, ingested.stdout + ingested.stderr
    committed = time.monotonic()
    for i in range(3):  # no restart: the next question on each replica sees the new index
        answer = ask(cluster.direct(i), question)
        assert answer.status_code == 200
        assert "DWB" in answer.json()["response"], answer.json()
        gone = ask(cluster.direct(i), "Which physics engines can Gazebo run?")
        assert not any("gazebo" in s.lower() for s in cited(gone)), gone.json()
    visible = time.monotonic() - committed
    print(f"re-ingest took {committed - started:.1f}s; visible on all replicas {visible:.2f}s after it ended")


def test_sigkill_of_a_replica_under_load(cluster: Cluster) -> None:
    """The balancer routes around a killed replica; every 200 has its messages stored; the prompt the
    replica was generating does not stay InFlight: its lease lapses and a keyed retry runs it again."""
    questions = ["Which controller does Nav2 use to follow a path?"] * 24
    url = f"{cluster.front}{GENERATION}/stream"
    body = prompt_body(new_session(cluster.front), questions[0], key="survives-sigkill")

    def one(q: str) -> tuple[int, str | None]:
        try:
            r = ask(cluster.front, q, key=LOAD_KEY)
        except httpx.HTTPError:
            return 0, None
        return r.status_code, r.json().get("session_id") if r.status_code == 200 else None

    cluster.model.slow = 1
    with httpx.Client(headers={"X-API-Key": KEY}, timeout=60) as client:
        with client.stream("POST", url, json=body) as doomed:
            assert doomed.status_code == 200
            prompt_id = doomed.headers["X-Prompt-Id"]
            victim = int(doomed.headers["X-Served-By"].removeprefix("r")) - 1
            lines = doomed.iter_lines()
            assert json.loads(next(lines))["type"] == "token"
            with ThreadPoolExecutor(4) as pool:
                futures = [pool.submit(one, q) for q in questions[:8]]
                time.sleep(0.3)
                cluster.replicas[victim].send_signal(signal.SIGKILL)
                futures += [pool.submit(one, q) for q in questions[8:]]
                results = [f.result() for f in futures]
            try:
                cut = read_deltas(lines)
            except httpx.HTTPError:
                cut = []
            assert all(d["type"] == "token" for d in cut)  # the stream broke off; no answer was made up
        survivor = (victim + 1) % 3
        ok = [session for status, session in results if status == 200]
        # requests in flight on the killed replica may fail; the balancer sends the rest elsewhere
        assert len(ok) >= len(questions) - 4, results
        assert all(status in (200, 502, 503, 0) for status, _ in results)
        for session in ok:
            history = httpx.get(
                f"{cluster.direct(survivor)}/session/{session}/history",
                headers={"X-API-Key": LOAD_KEY},
                timeout=10,
            )
            assert history.status_code == 200
            assert [m["role"] for m in history.json()["messages"]] == ["user", "assistant"]
        after = [ask(cluster.front, questions[0], key=LOAD_KEY).status_code for _ in range(6)]
        assert after == [200] * 6  # the health check has taken the dead replica out

        started = time.monotonic()
        retried = client.post(url, json=body)
        recovered_in = time.monotonic() - started
    assert retried.status_code == 200
    assert retried.headers["X-Prompt-Id"] == prompt_id  # the same prompt, run again
    deltas = read_deltas(iter(retried.text.splitlines()))
    assert deltas[-1]["type"] == "done"
    assert deltas[-1]["metadata"]["finishReason"] == "stop"
    assert "DWB" in "".join(d.get("text", "") for d in deltas)
    assert recovered_in < 15, recovered_in
    with psycopg.connect(cluster.pgvector_url) as conn:
        rows = conn.execute("SELECT prompt_id::text, status FROM prompts").fetchall()
    assert (prompt_id, "Done") in rows
    assert not [row for row in rows if row[1] == "InFlight"], rows
    print(f"the killed replica's prompt was re-run by a keyed retry in {recovered_in:.1f}s")
