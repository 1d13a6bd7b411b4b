"""`lectern ingest`, `lectern ask` and `lectern chat` as a user runs them: real processes, the chat in a
pseudo-terminal (stdlib `pty`, so Ctrl-C reaches it as SIGINT from the terminal driver)."""

from __future__ import annotations

import fcntl
import os
import pty
import re
import select
import signal
import struct
import subprocess
import sys
import termios
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

pytestmark = pytest.mark.integration

DOCS = Path(__file__).parent.parent / "fixtures" / "answer_docs"
ANSI = re.compile(r"\x1b\[[0-9;?]*[A-Za-z]")
PROMPT = "you>"
# Long enough that every source link is wider than an 80-column terminal.
BASE_URL = "https://docs.example.com/robotics-textbook/version-2/simulation-guides"


def lectern(data_dir: Path, *args: str) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "NO_COLOR": "1", "COLUMNS": "200"}
    return subprocess.run(
        [sys.executable, "-m", "lectern.cli", "--data-dir", str(data_dir), *args],
        capture_output=True,
        text=True,
        env=env,
        timeout=300,
        check=False,
    )


@pytest.fixture(scope="module")
def data_dir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    path = tmp_path_factory.mktemp("cli-chat")
    done = lectern(path, "ingest", str(DOCS), "--collection", "chat", "--base-url", BASE_URL)
    assert done.returncode == 0, done.stderr
    return path


class Terminal:
    """A child process on a pseudo-terminal, read until a pattern shows up."""

    def __init__(self, argv: list[str], columns: int = 200) -> None:
        pid, fd = pty.fork()
        if pid == 0:  # the child: the pty is its controlling terminal
            # A terminal's Ctrl-C must reach the chat as it would for a user: an earlier test (or a
            # library in this pytest process) may have left SIGINT ignored, which exec would inherit.
            signal.signal(signal.SIGINT, signal.SIG_DFL)
            signal.pthread_sigmask(signal.SIG_UNBLOCK, {signal.SIGINT})
            env = {**os.environ, "NO_COLOR": "1", "TERM": "dumb", "COLUMNS": str(columns)}
            os.execvpe(argv[0], argv, env)
        fcntl.ioctl(fd, termios.TIOCSWINSZ, struct.pack("HHHH", 50, columns, 0, 0))
        self.pid, self.fd = pid, fd
        self.seen = ""

    def expect(self, pattern: str, timeout: float = 120.0) -> str:
        deadline = time.monotonic() + timeout
        while True:
            text = ANSI.sub("", self.seen).replace("\r", "")
            index = text.find(pattern)
            if index >= 0:
                self.seen = text[index + len(pattern) :]
                return text[: index + len(pattern)]
            left = deadline - time.monotonic()
            if left <= 0:
                raise AssertionError(f"{pattern!r} not seen; got {text[-2000:]!r}")
            ready, _, _ = select.select([self.fd], [], [], min(left, 1.0))
            if ready:
                try:
                    chunk = os.read(self.fd, 65536)
                except OSError:  # the child closed the terminal
                    chunk = b""
                if not chunk:
                    raise AssertionError(f"{pattern!r} not seen before exit; got {text[-2000:]!r}")
                self.seen += chunk.decode("utf-8", "replace")

    def send(self, text: str) -> None:
        os.write(self.fd, text.encode())

    def wait(self, timeout: float = 30.0) -> int:
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            pid, status = os.waitpid(self.pid, os.WNOHANG)
            if pid:
                return os.waitstatus_to_exitcode(status)
            try:
                if select.select([self.fd], [], [], 0.2)[0]:
                    os.read(self.fd, 65536)
            except OSError:
                pass
        raise AssertionError("the chat did not exit")


@pytest.fixture
def chat(data_dir: Path) -> Iterator[Terminal]:
    term = Terminal(
        [sys.executable, "-m", "lectern.cli", "--data-dir", str(data_dir), "chat", "--collection", "chat"]
    )
    yield term
    try:
        os.kill(term.pid, 9)
        os.waitpid(term.pid, 0)
    except (ProcessLookupError, ChildProcessError):
        pass


def test_chat_session(chat: Terminal) -> None:
    chat.expect(PROMPT)
    chat.send("What is Gazebo Harmonic?\r")
    answer = chat.expect(PROMPT)
    assert "robot simulator" in answer
    assert "confidence" in answer

    chat.send("   \r")  # blank input: INVALID_INPUT, asked again
    assert "The question is empty" in chat.expect(PROMPT)

    chat.send("How do I install it?\r")  # a follow-up: the history says what "it" is
    assert "gz-harmonic" in chat.expect(PROMPT)

    chat.send("/sources\r")
    assert "Installing Gazebo" in chat.expect(PROMPT)  # the install section is the first source

    chat.send("\x03")  # Ctrl-C at the prompt does not end the session
    assert "Ctrl-C stops an answer" in chat.expect(PROMPT)

    chat.send("/reset\r")
    assert "Conversation forgotten" in chat.expect(PROMPT)
    chat.send("/sources\r")
    assert "No sources yet" in chat.expect(PROMPT)

    chat.send("How do I bake sourdough bread?\r")
    assert "I don't have information about that in the documents." in chat.expect(PROMPT)

    chat.send("/exit\r")
    assert chat.wait() == 0


def test_ask_prints_answer_sources_and_confidence(data_dir: Path) -> None:
    done = lectern(data_dir, "ask", "--collection", "chat", "What is a ROS 2 node?")
    assert done.returncode == 0, done.stderr
    assert "A node is a process" in done.stdout
    assert "ros2.md" in done.stdout or "ROS 2 basics" in done.stdout
    assert "confidence:" in done.stdout


def test_ask_errors_exit_non_zero_with_one_red_line(data_dir: Path) -> None:
    blank = lectern(data_dir, "ask", "--collection", "chat", "  ")
    assert blank.returncode == 1
    assert blank.stderr.strip().splitlines() == ["error: The question is empty; please type a question."]
    too_many = lectern(data_dir, "ask", "--collection", "chat", "--top-k", "11", "What is URDF?")
    assert too_many.returncode == 2  # a usage error, from the option's range


def test_ask_at_an_80_column_terminal(data_dir: Path) -> None:
    """Markdown wrapped at words, one source per line, each link whole (the terminal wraps it, not us)."""
    term = Terminal(
        [
            sys.executable,
            "-m",
            "lectern.cli",
            "--data-dir",
            str(data_dir),
            "ask",
            "-c",
            "chat",
            "How do I install Gazebo Harmonic?",
        ],
        columns=80,
    )
    shown = term.expect("confidence:")
    shown += term.expect(")")
    assert term.wait() == 0
    lines = shown.splitlines()
    links = [line.strip() for line in lines if line.strip().startswith(BASE_URL)]
    assert links, shown
    assert max(len(link) for link in links) > 80  # whole, on one logical line: the terminal wraps it
    prose = [line for line in lines if not line.strip().startswith(BASE_URL)]
    assert all(len(line) <= 80 for line in prose), shown
    assert "sudo apt-get install gz-harmonic" in shown
    assert "Source" in shown
    assert " 1 sources" not in shown


def test_chat_help_session_and_bare_commands(data_dir: Path) -> None:
    term = Terminal(
        [sys.executable, "-m", "lectern.cli", "--data-dir", str(data_dir), "chat", "-c", "chat"], columns=80
    )
    term.expect(PROMPT)
    term.send("/help\r")
    listed = term.expect(PROMPT)
    assert "/sources" in listed
    assert "/session" in listed
    term.send("/session\r")
    assert re.search(r"session [0-9a-f-]{36}", term.expect(PROMPT))
    term.send("help\r")
    assert "taken as /help" in term.expect(PROMPT)
    term.send("exit\r")
    assert term.wait() == 0
