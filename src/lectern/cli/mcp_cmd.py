"""`lectern mcp`: the MCP server on stdio, for Claude Desktop, IDEs and agent frameworks.

stdout carries the protocol and nothing else: logs are JSON lines on stderr, and while the server runs
the SDK points file descriptor 1 at stderr so a stray print cannot corrupt the stream.
"""

from __future__ import annotations

from typing import Annotated

import typer

from lectern.cli.main import app, handles_errors, settings


@app.command()
@handles_errors
def mcp(
    collection: Annotated[str | None, typer.Option("--collection", "-c", help="Collection to serve.")] = None,
    log_level: Annotated[
        str, typer.Option("--log-level", help="debug, info, warning, error (to stderr).")
    ] = "warning",
) -> None:
    """Serve the knowledge base over MCP on stdio: tools search_docs and ask, resources lectern://documents."""
    from lectern.index.heap import configure_server_heap

    configure_server_heap()  # as `lectern serve`
    import anyio

    from lectern import code_pages, word_frequency
    from lectern.api.logs import configure_logging
    from lectern.mcp import run_stdio

    config = settings(collection=collection)
    code_pages.enable(config.release_code_pages)  # as `lectern serve`: table loads release their code
    configure_logging(log_level.lower())
    word_frequency.prepare_apart(config.model_cache_dir)  # as `lectern serve`: wordfreq's list stays out
    anyio.run(run_stdio, config)
