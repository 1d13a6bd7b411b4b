"""Schema migrations (Alembic), shipped inside the package so they run from an installed wheel.

``upgrade_database(url)`` runs at server start and behind ``lectern db upgrade``. To write the next
migration against a scratch database::

    from alembic import command
    from lectern.store.migrate import alembic_config
    command.revision(alembic_config("sqlite+aiosqlite:///scratch.db"), "what changed", autogenerate=True)

and set ``HEAD`` to its revision. A database already at ``HEAD`` is recognised by one query, without
importing Alembic (and Mako): ~11 MB a long-running server would keep for nothing.
"""

from __future__ import annotations

import asyncio
from typing import TYPE_CHECKING

import sqlalchemy as sa
from sqlalchemy.engine import Connection
from sqlalchemy.ext.asyncio import AsyncEngine

from lectern.apart import run_apart
from lectern.store.engine import create_store_engine, writer

if TYPE_CHECKING:
    from alembic.config import Config

# A package resource, not a path: Alembic finds it wherever lectern is installed.
SCRIPT_LOCATION = "lectern.store:migrations"
# The newest migration's revision (a test checks it is Alembic's head).
HEAD = "0003"
# Any constant; replicas starting together take turns instead of racing to CREATE TABLE.
_PG_LOCK_KEY = 0x1EC7E2


def alembic_config(url: str | None = None) -> Config:
    """A Config without an ini file. The URL goes in ``attributes``, which, unlike main options, does
    not treat ``%`` in passwords as interpolation."""
    from alembic.config import Config

    config = Config()
    config.set_main_option("script_location", SCRIPT_LOCATION)
    if url is not None:
        config.attributes["url"] = url
    return config


def head_revision() -> str | None:
    from alembic.script import ScriptDirectory

    return ScriptDirectory.from_config(alembic_config()).get_current_head()


async def upgrade_database(url: str, revision: str = "head") -> None:
    """Bring the database at ``url`` to ``revision``; a no-op when it is there already.

    One transaction for the whole upgrade (both engines have transactional DDL), so a failed upgrade
    leaves the schema as it was.
    """
    engine = create_store_engine(url)
    try:
        if revision in ("head", HEAD) and await _at_revision(engine, HEAD):
            return
        async with writer(engine).begin() as conn:
            if conn.dialect.name == "postgresql":
                await conn.execute(sa.text("SELECT pg_advisory_xact_lock(:key)"), {"key": _PG_LOCK_KEY})
            await conn.run_sync(_upgrade, revision)
    finally:
        await engine.dispose()


def upgrade_database_sync(url: str, revision: str = "head") -> None:
    """For synchronous callers such as the CLI; not from inside a running event loop."""
    asyncio.run(upgrade_database(url, revision))


def upgrade_database_apart(url: str, timeout_s: float = 300.0) -> None:
    """`upgrade_database_sync` to HEAD for a long-running server: a database not at HEAD yet (a first
    start, a new release) is migrated in a Python process of its own, so Alembic and Mako (~9.5 MB
    of a SciFact server's peak) never stay in the server's memory. Where that process fails, the
    upgrade runs here, so it fails (or not) with the error it always gave."""
    if asyncio.run(_is_at_head(url)):
        return
    code = "import sys; from lectern.store.migrate import upgrade_database_sync; "
    code += "upgrade_database_sync(sys.stdin.read())"  # the URL may hold a password: not in argv
    if not run_apart(
        code, [], timeout_s=timeout_s, event="database_upgrade_apart_failed", stdin=url.encode()
    ):
        upgrade_database_sync(url)


async def _is_at_head(url: str) -> bool:
    engine = create_store_engine(url)
    try:
        return await _at_revision(engine, HEAD)
    finally:
        await engine.dispose()


async def current_revision(url: str) -> str | None:
    """The revision the database is at; None when it has never been migrated."""
    engine = create_store_engine(url)
    try:
        async with engine.connect() as conn:
            return await conn.run_sync(_current)
    finally:
        await engine.dispose()


def _current(connection: Connection) -> str | None:
    from alembic.runtime.migration import MigrationContext

    revision: str | None = MigrationContext.configure(connection).get_current_revision()
    return revision


async def _at_revision(engine: AsyncEngine, revision: str) -> bool:
    """Whether Alembic's version table holds exactly `revision` (False when there is none yet)."""
    try:
        async with engine.connect() as conn:
            rows = (await conn.execute(sa.text("SELECT version_num FROM alembic_version"))).all()
    except sa.exc.DBAPIError:  # no version table: never migrated
        return False
    return [r[0] for r in rows] == [revision]


def _upgrade(connection: Connection, revision: str) -> None:
    from alembic import command

    config = alembic_config()
    config.attributes["connection"] = connection  # env.py runs on this connection and its transaction
    command.upgrade(config, revision)
