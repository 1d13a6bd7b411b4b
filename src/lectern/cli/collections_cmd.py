"""`lectern collections`: the collections of this data directory, and deleting one."""

from __future__ import annotations

import json
from typing import Annotated

import typer
from rich.table import Table

from lectern.cli.main import app, console, handles_errors, settings
from lectern.errors import NotFound

collections_app = typer.Typer(
    help="List the collections (documents, chunks, last ingest), or delete one.", invoke_without_command=True
)
app.add_typer(collections_app, name="collections")


@collections_app.callback()
@handles_errors
def collections(
    ctx: typer.Context,
    as_json: Annotated[bool, typer.Option("--json", help="Print JSON instead of a table.")] = False,
) -> None:
    """List the collections: documents, chunks, embedder and when each was last ingested."""
    if ctx.invoked_subcommand is not None:
        return
    from dataclasses import asdict

    from lectern.cli.checks import known_collections
    from lectern.runtime import Runtime

    found = known_collections(Runtime(settings()))
    if as_json:
        typer.echo(json.dumps([asdict(c) for c in found], indent=2))
        return
    if not found:
        console.print("No collections yet. Run: lectern ingest PATH")
        return
    table = Table(header_style="bold", box=None, pad_edge=False)
    for column in ("collection", "documents", "chunks", "embedder", "last ingest"):
        table.add_column(column, justify="right" if column in {"documents", "chunks"} else "left")
    for c in found:
        when = (c.ingested_at or "unknown").replace("T", " ").replace("Z", " UTC")
        if not c.clean:
            when += " (interrupted: re-run lectern ingest)"
        table.add_row(c.name, f"{c.documents:,}", f"{c.chunks:,}", c.embedder_name, when)
    console.print(table)


@collections_app.command("delete")
@handles_errors
def delete(
    name: Annotated[str, typer.Argument(metavar="NAME", help="The collection to delete.")],
    yes: Annotated[bool, typer.Option("--yes", "-y", help="Do not ask for confirmation.")] = False,
) -> None:
    """Delete a collection: its index and its record of ingested files."""
    from lectern.cli.checks import known_collections
    from lectern.runtime import Runtime

    runtime = Runtime(settings(collection=name))
    names = [c.name for c in known_collections(runtime)]
    if runtime.index.info() is None and name not in names:
        listed = f"; collections: {', '.join(names)}" if names else ""
        raise NotFound(f"collection '{name}' does not exist{listed}")
    if not yes and not typer.confirm(f"Delete collection '{name}' and its index?"):
        raise typer.Exit(1)
    runtime.index.drop()
    runtime.manifest.drop_collection(name)
    from lectern.prune import prune_data_dir

    # the side stores keep only what the remaining collections' chunks need
    prune_data_dir(runtime.settings.data_dir, runtime.index, [c.name for c in runtime.manifest.collections()])
    console.print(f"Deleted collection '{name}'.")
