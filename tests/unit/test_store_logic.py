"""Pure logic of the conversation store: summaries, input models, URL checks, transient errors."""

from __future__ import annotations

from datetime import datetime
from pathlib import Path

import pytest
from pydantic import ValidationError
from sqlalchemy.exc import OperationalError

from lectern.errors import ConfigError
from lectern.settings import Settings
from lectern.store import NewDelta, NewLogEvent, NewMessage, PromptStatus, extractive_summary
from lectern.store.engine import create_store_engine, is_transient, parse_url
from lectern.store.summary import clip_summary


def test_summary_ranks_content_words_by_frequency_then_first_use() -> None:
    questions = [
        "What is URDF?",
        "How do I write a URDF joint?",
        "Can a URDF joint have limits?",
        "Show me a Gazebo example",
    ]
    assert extractive_summary(questions) == "urdf, joint, write, limits, gazebo"


def test_summary_is_deterministic_and_bounded() -> None:
    questions = [f"topic{i} " * (i % 7 + 1) for i in range(200)]
    first = extractive_summary(questions)
    assert first == extractive_summary(list(questions))
    assert 0 < len(first) <= 200
    assert len(extractive_summary(questions, max_chars=20)) <= 20


def test_summary_of_nothing_is_empty() -> None:
    assert extractive_summary([]) == ""
    assert extractive_summary(["what is it?", "how do you do that"]) == ""


def test_summary_keeps_short_words_with_digits_but_not_bare_numbers() -> None:
    assert extractive_summary(["ROS 2 nodes in ros2 and 3D, in 2024"]) == "ros, nodes, ros2, 3d"


def test_clip_summary_flattens_and_truncates() -> None:
    assert clip_summary("  two\nlines  ") == "two lines"
    clipped = clip_summary("x" * 500)
    assert clipped is not None
    assert len(clipped) == 200
    assert clipped.endswith("…")
    assert clip_summary("   ") is None


def test_confidence_is_for_assistant_messages_only() -> None:
    assert NewMessage(role="assistant", content="a", confidence=0.9).confidence == 0.9
    with pytest.raises(ValidationError):
        NewMessage(role="user", content="q", confidence=0.9)
    with pytest.raises(ValidationError):
        NewMessage(role="assistant", content="a", confidence=1.5)
    with pytest.raises(ValidationError):
        NewMessage(role="function", content="x")


def test_message_timestamps_must_be_aware() -> None:
    with pytest.raises(ValidationError):
        NewMessage(role="user", content="q", timestamp=datetime(2025, 1, 1))


def test_deltas_follow_the_generation_delta_schema() -> None:
    with pytest.raises(ValidationError):
        NewDelta(type="token")
    with pytest.raises(ValidationError):
        NewDelta(type="error", metadata={"code": "provider_timeout"})
    with pytest.raises(ValidationError):
        NewDelta(type="token", text="x", seq=-1)
    assert NewDelta(type="done").role == "assistant"
    NewDelta(type="error", role="system", metadata={"code": "c", "message": "m"})


def test_log_event_types_are_the_seed_ones() -> None:
    NewLogEvent(event_type="retrieval_performed", duration_ms=3.0)
    with pytest.raises(ValidationError):
        NewLogEvent(event_type="results_ranked")


def test_prompt_status_knows_which_are_finished() -> None:
    assert not PromptStatus.IN_FLIGHT.finished
    assert all(s.finished for s in (PromptStatus.DONE, PromptStatus.CANCELLED, PromptStatus.ERROR))
    assert PromptStatus("Cancelled") is PromptStatus.CANCELLED


def test_database_urls_are_checked() -> None:
    assert parse_url("postgresql+asyncpg://u@h/db").get_backend_name() == "postgresql"
    with pytest.raises(ConfigError, match="LECTERN_DATABASE_URL"):
        parse_url("postgresql://u@h/db")  # sync driver
    with pytest.raises(ConfigError, match="LECTERN_DATABASE_URL"):
        parse_url("not a url")
    with pytest.raises(ConfigError, match="file"):
        create_store_engine("sqlite+aiosqlite://")


def test_default_url_is_a_sqlite_file_in_the_data_dir(tmp_path: Path) -> None:
    settings = Settings(data_dir=tmp_path)
    url = parse_url(settings.effective_database_url)
    assert url.drivername == "sqlite+aiosqlite"
    assert url.database is not None
    assert url.database.endswith("lectern.sqlite3")


def test_transient_errors_are_lock_timeouts_and_deadlocks() -> None:
    class PgError(Exception):
        def __init__(self, code: str) -> None:
            self.pgcode = code

    assert is_transient(OperationalError("BEGIN", {}, Exception("database is locked")))
    assert is_transient(OperationalError("UPDATE", {}, PgError("40P01")))
    assert not is_transient(OperationalError("UPDATE", {}, PgError("23505")))
    assert not is_transient(OperationalError("SELECT", {}, Exception("no such table: threads")))
    assert not is_transient(ValueError("x"))


def test_log_event_timestamps_must_be_aware() -> None:
    with pytest.raises(ValidationError):
        NewLogEvent(event_type="error", timestamp=datetime(2025, 1, 1))
