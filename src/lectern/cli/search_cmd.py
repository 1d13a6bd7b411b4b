"""`lectern search` and `lectern index stats`: look inside the index without an answer writer."""

from __future__ import annotations

import json
from typing import Annotated

import typer
from rich.table import Table

from lectern.cli.main import app, console, handles_errors, index_app, settings
from lectern.errors import InvalidInput
from lectern.index.base import SearchFilters
from lectern.models import SearchModeName
from lectern.runtime import Runtime


@app.command()
@handles_errors
def search(
    query: Annotated[str, typer.Argument(help="What to look for.")],
    top_k: Annotated[int, typer.Option("--top-k", "-k", min=1, max=20, help="Number of hits (1-20).")] = 5,
    filters: Annotated[
        list[str] | None,
        typer.Option("--filter", "-f", help="key=value on any payload key; url_prefix=... (repeatable)."),
    ] = None,
    mode: Annotated[SearchModeName | None, typer.Option("--mode", help="hybrid, dense or keyword.")] = None,
    collection: Annotated[str | None, typer.Option("--collection", "-c")] = None,
    as_json: Annotated[bool, typer.Option("--json", help="Print JSON instead of a table.")] = False,
) -> None:
    """Search the index and show the best chunks with their scores."""
    if not query.strip():
        raise InvalidInput("the query is empty")
    config = settings(collection=collection)
    runtime = Runtime(config)
    try:
        parsed = SearchFilters.parse(filters or [])
    except ValueError as exc:
        raise InvalidInput(str(exc)) from None
    runtime.check_embedder()
    chosen = mode or config.search_mode
    vector = runtime.embedder.embed_query(query) if chosen != "keyword" else None
    hits = runtime.index.search(vector=vector, text=query, mode=chosen, top_k=top_k, filters=parsed)
    if as_json:
        payload = [
            {
                "rank": h.rank,
                "score": h.score,
                "similarity": h.similarity,
                "keyword_score": h.keyword_score,
                **h.chunk.model_dump(),
            }
            for h in hits
        ]
        typer.echo(json.dumps(payload, indent=2, ensure_ascii=False))
        return
    if not hits:
        console.print("[yellow]No matching chunks.[/]")
        return
    table = Table(title=f"{chosen} search: {query}", header_style="bold", show_lines=True)
    table.add_column("#", justify="right")
    table.add_column("similarity", justify="right")
    table.add_column("source")
    table.add_column("text")
    for hit in hits:
        chunk = hit.chunk
        where = " › ".join(chunk.heading_hierarchy) or chunk.title
        table.add_row(
            str(hit.rank),
            f"{hit.similarity:.3f}",
            f"[bold]{where}[/]\n[dim]{chunk.url or chunk.source_path}[/]",
            chunk.text[:300] + ("…" if len(chunk.text) > 300 else ""),
        )
    console.print(table)


@index_app.command("stats")
@handles_errors
def stats(
    collection: Annotated[str | None, typer.Option("--collection", "-c")] = None,
    as_json: Annotated[bool, typer.Option("--json")] = False,
) -> None:
    """Chunks, documents, embedder and indexes of a collection."""
    runtime = Runtime(settings(collection=collection))
    info = runtime.index.stats()
    if as_json:
        typer.echo(info.model_dump_json(indent=2))
        return
    table = Table(title=f"Collection '{info.collection}' ({info.engine})", show_header=False)
    for key, value in info.model_dump(exclude={"details"}).items():
        table.add_row(key, str(value))
    for key, value in info.details.items():
        table.add_row(key, str(value))
    console.print(table)
