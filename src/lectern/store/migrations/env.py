"""Alembic environment: runs on the connection ``lectern.store.migrate`` hands over, or opens its own
(async) engine from the URL in the config's attributes, falling back to Lectern's settings."""

from __future__ import annotations

import asyncio

from alembic import context
from sqlalchemy.engine import Connection

from lectern.store.tables import metadata


def _run(connection: Connection) -> None:
    context.configure(
        connection=connection,
        target_metadata=metadata,
        compare_type=True,
        # SQLite can only ALTER by copying tables; batch mode does that for later migrations.
        render_as_batch=connection.dialect.name == "sqlite",
    )
    with context.begin_transaction():
        context.run_migrations()


async def _run_own_engine(url: str) -> None:
    from lectern.store.engine import create_store_engine, writer

    engine = create_store_engine(url)
    try:
        async with writer(engine).begin() as conn:
            await conn.run_sync(_run)
    finally:
        await engine.dispose()


def _main() -> None:
    if context.is_offline_mode():
        raise RuntimeError("Lectern migrations run online only (upgrade_database)")
    connection = context.config.attributes.get("connection")
    if connection is not None:
        _run(connection)
        return
    url = context.config.attributes.get("url")
    if url is None:
        from lectern.settings import get_settings

        url = get_settings().effective_database_url
    asyncio.run(_run_own_engine(url))


_main()
