"""`lectern serve` (the HTTP service under uvicorn) and `lectern db upgrade` (the schema migrations)."""

from __future__ import annotations

import errno
import ipaddress
import json
import os
import socket
from typing import TYPE_CHECKING, Annotated

import typer

from lectern.cli.main import app, console, err_console, fail, handles_errors, settings

db_app = typer.Typer(help="The conversation database.", no_args_is_help=True)
app.add_typer(db_app, name="db")

if TYPE_CHECKING:
    from lectern.index.base import DocumentSummary

LOOPBACK_NAMES = {"localhost", "ip6-localhost"}
WORKER_HEALTHCHECK_S = 60
GENERIC_QUESTION = "What do these documents cover?"
MAX_TITLE_CHARS = 60  # a longer title makes an unwieldy first question


def is_loopback(host: str) -> bool:
    if host.lower() in LOOPBACK_NAMES:
        return True
    try:
        return ipaddress.ip_address(host.strip("[]")).is_loopback
    except ValueError:
        return False  # a host name: it may resolve to anything


def port_problem(host: str, port: int) -> str | None:
    """Why `host:port` cannot be bound, said before minutes of model loading, or None when it can."""
    family = socket.AF_INET6 if ":" in host.strip("[]") else socket.AF_INET
    with socket.socket(family, socket.SOCK_STREAM) as probe:
        probe.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)  # as uvicorn binds
        try:
            probe.bind((host.strip("[]"), port))
        except OSError as exc:
            if exc.errno == errno.EADDRINUSE:
                return f"port {port} is in use (try --port {port + 1 if port < 65535 else 8000})"
            if exc.errno == errno.EACCES:
                return (
                    f"no permission to bind port {port} (ports below 1024 need privileges; try --port 8000)"
                )
            return f"cannot listen on {host}:{port}: {exc.strerror or exc}"
    return None


def suggested_question(documents: list[DocumentSummary]) -> str:
    """A first question the collection can answer: about its largest document's title.

    Documents rarely say what the whole collection covers, so the generic question is usually refused;
    a document's title is what a whole document explains (on this guide, 11 of 15 titles asked this way
    are answered)."""
    for doc in sorted(documents, key=lambda d: (-d.chunks, d.source_path)):
        title = " ".join(doc.title.split())
        if title and len(title) <= MAX_TITLE_CHARS:
            return f"Tell me about {title}."
    return GENERIC_QUESTION


def curl_example(url: str, question: str) -> str:
    """The `curl` line that asks `question`, quoted for a POSIX shell."""
    body = json.dumps({"message": question}, ensure_ascii=False).replace("'", "'\\''")
    return f"curl -s {url}/chat/run -H 'content-type: application/json' -d '{body}'"


def _banner(
    host: str, port: int, collection: str, chunks: int, workers: int, chat_page: bool, question: str
) -> None:
    shown = f"[{host}]" if ":" in host and not host.startswith("[") else host
    url = f"http://{shown}:{port}"
    err_console.print(
        f"[bold]Lectern[/] serving collection [bold]{collection}[/] ({chunks:,} chunks) on [cyan]{url}[/]"
        + (f" with {workers} workers" if workers > 1 else ""),
        highlight=False,
        soft_wrap=True,
    )
    err_console.print(
        f"  try:  {curl_example(url, question)}",
        highlight=False,
        soft_wrap=True,
        markup=False,
    )
    page = f"chat page: {url}/   " if chat_page else ""
    err_console.print(
        f"  {page}API docs: {url}/docs   readiness: {url}/ready", highlight=False, soft_wrap=True
    )


@app.command()
@handles_errors
def serve(
    host: Annotated[str, typer.Option("--host", help="Address to bind.")] = "127.0.0.1",
    port: Annotated[
        int, typer.Option("--port", "-p", metavar="PORT", min=1, max=65535, help="Port to listen on.")
    ] = 8000,
    workers: Annotated[
        int,
        typer.Option(
            "--workers", "-w", metavar="N", min=1, max=64, help="Worker processes (use Redis with >1)."
        ),
    ] = 1,
    insecure: Annotated[
        bool, typer.Option("--insecure", help="Serve a non-loopback address without API keys.")
    ] = False,
    collection: Annotated[
        str | None, typer.Option("--collection", "-c", metavar="NAME", help="Collection to serve.")
    ] = None,
    log_level: Annotated[
        str, typer.Option("--log-level", metavar="LEVEL", help="debug, info, warning, error.")
    ] = "info",
) -> None:
    """Run the HTTP API (chat, streaming, generation sessions); docs at /docs."""
    config = settings(collection=collection)
    problem = port_problem(host, port)
    if problem:
        raise fail(problem)

    import uvicorn

    from lectern import code_pages, word_frequency
    from lectern.api.app import create_app
    from lectern.api.logs import configure_logging, log_formatter_name, uvicorn_log_config
    from lectern.cli.checks import collection_problem
    from lectern.index.heap import configure_server_heap
    from lectern.runtime import Runtime
    from lectern.store import upgrade_database_apart

    if not is_loopback(host) and not config.api_keys and not insecure:
        raise fail(
            f"refusing to serve {host} without API keys: anyone who can reach it could use it. "
            "Set LECTERN_API_KEYS, bind 127.0.0.1, or pass --insecure."
        )
    configure_server_heap()  # before the runtime starts LanceDB's and onnxruntime's threads
    code_pages.enable(config.release_code_pages)
    runtime = Runtime(config)
    empty = collection_problem(runtime)
    if empty is not None:
        err_console.print(
            f"[yellow]warning:[/] {empty.message}. Until then every question is refused and /ready "
            "answers 503.",
            highlight=False,
            soft_wrap=True,
        )
    question = GENERIC_QUESTION if empty else suggested_question(runtime.index.documents())
    chunks = 0 if empty else runtime.index.count()
    _banner(host, port, runtime.collection, chunks, workers, config.chat_page, question)
    level = log_level.lower()
    fmt = log_formatter_name(config.log_format)
    configure_logging(level, fmt)
    # Once here rather than racing in every worker; in a process of its own (Alembic stays out of ours).
    upgrade_database_apart(config.effective_database_url)
    # A data dir `lectern ingest` did not fill (an evaluation's, a copied one) has no word-frequency
    # table: built in a process of its own, or each worker would hold wordfreq's list (~30 MB) for good.
    word_frequency.prepare_apart(config.model_cache_dir)
    code_pages.release_code_pages()  # the checks above opened the table: LanceDB code no answer runs
    options = {
        "host": host,
        "port": port,
        "log_config": uvicorn_log_config(level, fmt),
        "access_log": False,
        # on SIGTERM: stop accepting, let open streams finish for up to this long, then stop
        "timeout_graceful_shutdown": max(1, round(config.shutdown_drain_s)),
    }
    if workers == 1:
        uvicorn.run(create_app(config, metrics_host=host), **options)  # type: ignore[arg-type]
        return
    if not config.redis_url:
        err_console.print(
            "[yellow]warning:[/] without LECTERN_REDIS_URL every worker keeps its own rate-limit counts "
            "(cancels reach the worker running the prompt through the database, up to 0.1 s later)."
        )
    create_app(config)  # fail on bad settings here, not in every worker
    # Workers build their settings from the environment: pass on what the command line chose.
    os.environ["LECTERN_DATA_DIR"] = str(config.data_dir)
    os.environ["LECTERN_COLLECTION"] = config.collection
    os.environ["LECTERN_LOG_LEVEL"] = level
    os.environ["LECTERN_LOG_FORMAT"] = fmt
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
