"""Alembic migrations: upgrade from empty, idempotent, equal to the schema the code queries."""

from __future__ import annotations

import asyncio
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
import sqlalchemy as sa
from alembic.autogenerate import compare_metadata
from alembic.runtime.migration import MigrationContext
from alembic.script import ScriptDirectory

import lectern.store
from lectern.store import (
    ConversationStore,
    current_revision,
    head_revision,
    upgrade_database,
    upgrade_database_apart,
    upgrade_database_sync,
)
from lectern.store.engine import create_store_engine
from lectern.store.migrate import HEAD, alembic_config
from lectern.store.tables import metadata
from tests.services import temporary_postgres_database

pytestmark = pytest.mark.integration

TABLES = {"threads", "messages", "prompts", "prompt_deltas", "log_events", "feedback", "alembic_version"}


@pytest.fixture(params=["sqlite", pytest.param("postgres", marks=pytest.mark.postgres)])
def empty_database_url(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[str]:
    """A database nobody has touched: a new SQLite file (in a folder that does not exist yet), or a
    new PostgreSQL database."""
    if request.param == "sqlite":
        yield f"sqlite+aiosqlite:///{tmp_path / 'new' / 'lectern.sqlite3'}"
        return
    with temporary_postgres_database(request.getfixturevalue("postgres_server_url")) as url:
        yield url


async def table_names(url: str) -> set[str]:
    engine = create_store_engine(url)
    try:
        async with engine.connect() as conn:
            return set(await conn.run_sync(lambda sync: sa.inspect(sync).get_table_names()))
    finally:
        await engine.dispose()


async def schema_diff(url: str) -> list[Any]:
    engine = create_store_engine(url)
    try:
        async with engine.connect() as conn:
            return await conn.run_sync(
                lambda sync: compare_metadata(
                    MigrationContext.configure(sync, opts={"compare_type": True}), metadata
                )
            )
    finally:
        await engine.dispose()


def test_migrations_ship_inside_the_package() -> None:
    script = ScriptDirectory.from_config(alembic_config())
    package_dir = Path(lectern.store.__file__).parent
    assert Path(script.dir).resolve() == (package_dir / "migrations").resolve()
    assert head_revision() == "0003" == HEAD  # HEAD: the no-op check that does not import Alembic


def test_a_database_at_head_is_upgraded_without_importing_alembic(tmp_path: Path) -> None:
    url = f"sqlite+aiosqlite:///{tmp_path / 'lectern.sqlite3'}"
    upgrade_database_sync(url)
    probe = (
        "import asyncio, sys\n"
        "from lectern.store import upgrade_database\n"
        f"asyncio.run(upgrade_database({url!r}))\n"
        "print(sorted({m.split('.')[0] for m in sys.modules} & {'alembic', 'mako'}))"
    )
    done = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, check=True)
    assert done.stdout.strip() == "[]"
    assert asyncio.run(current_revision(url)) == HEAD


def test_a_new_database_is_upgraded_apart_without_importing_alembic(tmp_path: Path) -> None:
    url = f"sqlite+aiosqlite:///{tmp_path / 'lectern.sqlite3'}"
    probe = (
        "import sys\n"
        "from lectern.store import upgrade_database_apart\n"
        "upgrade_database_apart(sys.stdin.read())\n"
        "print(sorted({m.split('.')[0] for m in sys.modules} & {'alembic', 'mako'}))"
    )
    done = subprocess.run(
        [sys.executable, "-c", probe], input=url, capture_output=True, text=True, check=True
    )
    assert done.stdout.strip() == "[]"
    assert asyncio.run(current_revision(url)) == HEAD


def test_an_upgrade_that_fails_apart_runs_here(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    url = f"sqlite+aiosqlite:///{tmp_path / 'lectern.sqlite3'}"
    monkeypatch.setattr(lectern.store.migrate, "run_apart", lambda *args, **kwargs: False)
    upgrade_database_apart(url)
    assert asyncio.run(current_revision(url)) == HEAD


async def test_upgrade_from_empty_then_again_is_a_no_op(empty_database_url: str) -> None:
    assert await current_revision(empty_database_url) is None
    await upgrade_database(empty_database_url)
    assert await current_revision(empty_database_url) == head_revision()
    assert await table_names(empty_database_url) == TABLES

    async with ConversationStore.from_url(empty_database_url) as store:
        thread, _ = await store.get_or_create_thread()
    await upgrade_database(empty_database_url)  # idempotent, and keeps the data
    async with ConversationStore.from_url(empty_database_url) as store:
        assert (await store.get_thread(thread.thread_id)).thread_id == thread.thread_id
    assert await current_revision(empty_database_url) == head_revision()


async def test_migrated_schema_matches_the_tables_the_code_uses(empty_database_url: str) -> None:
    await upgrade_database(empty_database_url)
    assert await schema_diff(empty_database_url) == []


async def test_replicas_upgrading_at_once_do_not_collide(empty_database_url: str) -> None:
    await asyncio.gather(*(upgrade_database(empty_database_url) for _ in range(4)))
    assert await current_revision(empty_database_url) == head_revision()


async def test_sqlite_connections_use_wal_foreign_keys_and_a_busy_timeout(tmp_path: Path) -> None:
    url = f"sqlite+aiosqlite:///{tmp_path / 'wal.sqlite3'}"
    await upgrade_database(url)
    engine = create_store_engine(url, busy_timeout_ms=1234)
    try:
        async with engine.connect() as conn:
            pragma = {
                name: (await conn.exec_driver_sql(f"PRAGMA {name}")).scalar()
                for name in ("journal_mode", "foreign_keys", "busy_timeout")
            }
    finally:
        await engine.dispose()
    assert pragma == {"journal_mode": "wal", "foreign_keys": 1, "busy_timeout": 1234}
