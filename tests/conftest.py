"""Fixtures shared by the whole suite. Server fixtures skip with a reason when the server is missing,
and fail instead under ``CI=true`` (see ``tests/services.py``)."""

from __future__ import annotations

import os
import tempfile
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.services import pgvector_server, require_postgres, require_redis, temporary_postgres_database

# One folder of serialised MiniLM graphs for every test and every server or CLI it starts (they inherit
# the environment): each temporary data dir would otherwise build and quantise its own (~10 s).
os.environ.setdefault("LECTERN_MODEL_CACHE", str(Path(tempfile.gettempdir()) / "lectern-test-models"))


@pytest.fixture(scope="session")
def postgres_server_url() -> str:
    """The PostgreSQL server (its maintenance database), for tests that create their own databases."""
    return require_postgres()


@pytest.fixture(scope="session")
def postgres_url(postgres_server_url: str) -> Iterator[str]:
    """A fresh database for this test run (``postgresql+asyncpg://``), dropped at the end."""
    with temporary_postgres_database(postgres_server_url) as url:
        yield url


@pytest.fixture(scope="session")
def redis_url() -> str:
    """The Redis server URL (``redis://``); tests should use keys under a unique prefix."""
    return require_redis()


@pytest.fixture(scope="session")
def pgvector_url() -> Iterator[str]:
    """A PostgreSQL with pgvector (libpq URL); tests keep apart by schema (``pgvector_schema``)."""
    with pgvector_server() as url:
        yield url
