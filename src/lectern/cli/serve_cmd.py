"""`lectern serve` (the HTTP service under uvicorn) and `lectern db upgrade` (the schema migrations)."""

from __future__ import annotations

import ipaddress
import os
from typing import Annotated

import typer

from lectern.cli.main import app, console, err_console, fail, handles_errors, settings

db_app = typer.Typer(help="The conversation database.", no_args_is_help=True)
app.add_typer(db_app, name="db")

LOOPBACK_NAMES = {"localhost", "ip6-localhost"}
WORKER_HEALTHCHECK_S = 60


def is_loopback(host: str) -> bool:
    if host.lower() in LOOPBACK_NAMES:
        return True
    try:
        return ipaddress.ip_address(host.strip("[]")).is_loopback
    except ValueError:
        return False  # a host name: it may resolve to anything


@app.command()
@handles_errors
def serve(
    host: Annotated[str, typer.Option("--host", help="Address to bind.")] = "127.0.0.1",
    port: Annotated[int, typer.Option("--port", "-p", min=1, max=65535)] = 8000,
    workers: Annotated[
        int, typer.Option("--workers", "-w", min=1, max=64, help="Worker processes (use Redis with >1).")
    ] = 1,
    insecure: Annotated[
        bool, typer.Option("--insecure", help="Serve a non-loopback address without API keys.")
    ] = False,
    collection: Annotated[str | None, typer.Option("--collection", "-c")] = None,
    log_level: Annotated[str, typer.Option("--log-level", help="debug, info, warning, error.")] = "info",
) -> None:
    """Run the HTTP API (chat, streaming, generation sessions); docs at /docs."""
    import uvicorn

    from lectern.api.app import create_app
    from lectern.api.logs import configure_logging, uvicorn_log_config
    from lectern.store import upgrade_database_sync

    config = settings(collection=collection)
    if not is_loopback(host) and not config.api_keys and not insecure:
        raise fail(
            f"refusing to serve {host} without API keys: anyone who can reach it could use it. "
            "Set LECTERN_API_KEYS, bind 127.0.0.1, or pass --insecure."
        )
    level = log_level.lower()
    configure_logging(level)
    # Once here rather than racing in every worker.
    upgrade_database_sync(config.effective_database_url)
    options = {"host": host, "port": port, "log_config": uvicorn_log_config(level), "access_log": False}
    if workers == 1:
        uvicorn.run(create_app(config), **options)  # type: ignore[arg-type]
        return
    if not config.redis_url:
        err_console.print(
            "[yellow]warning:[/] without LECTERN_REDIS_URL every worker keeps its own rate-limit counts and "
            "a cancel reaches only the worker running that prompt."
        )
    create_app(config)  # fail on bad settings here, not in every worker
    # Workers build their settings from the environment: pass on what the command line chose.
    os.environ["LECTERN_DATA_DIR"] = str(config.data_dir)
    os.environ["LECTERN_COLLECTION"] = config.collection
    os.environ["LECTERN_LOG_LEVEL"] = level
    # A worker loads the embedding model before it answers the supervisor's pings; on a busy machine
    # that takes longer than uvicorn's 5 s, and a healthy worker would be killed and restarted.
    uvicorn.run(
        "lectern.api.app:app_factory",
        factory=True,
        workers=workers,
        timeout_worker_healthcheck=WORKER_HEALTHCHECK_S,
        **options,  # type: ignore[arg-type]
    )


@db_app.command("upgrade")
@handles_errors
def db_upgrade(
    revision: Annotated[str, typer.Argument(help="Target revision.")] = "head",
) -> None:
    """Migrate the conversation database (LECTERN_DATABASE_URL, SQLite by default) to the newest schema."""
    import asyncio

    from lectern.store import current_revision, upgrade_database_sync

    url = settings().effective_database_url
    upgrade_database_sync(url, revision)
    console.print(f"database at revision [bold]{asyncio.run(current_revision(url))}[/]")
