"""`lectern search` and `lectern index stats`: look inside the index without an answer writer."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Annotated, Literal

import typer
from rich.markup import escape
from rich.table import Table

from lectern.cli.main import app, console, handles_errors, index_app, settings
from lectern.errors import InvalidInput

# lectern.models.SearchModeName, spelled here so `--help` does not import pydantic's models.
SearchModeName = Literal["hybrid", "dense", "keyword"]


@app.command()
@handles_errors
def search(
    query: Annotated[str, typer.Argument(metavar="QUERY", help="What to look for.")],
    top_k: Annotated[
        int, typer.Option("--top-k", "-k", metavar="N", min=1, max=20, help="Number of hits (1-20).")
    ] = 5,
    filters: Annotated[
        list[str] | None,
        typer.Option(
            "--filter",
            "-f",
            metavar="KEY=VALUE",
            help="Only chunks whose KEY equals VALUE (any payload key, or url_prefix=...); repeatable.",
        ),
    ] = None,
    mode: Annotated[
        SearchModeName | None,
        typer.Option("--mode", help="hybrid (default), dense or keyword.", show_default=False),
    ] = None,
    collection: Annotated[
        str | None, typer.Option("--collection", "-c", metavar="NAME", help="Collection to search.")
    ] = None,
    as_json: Annotated[bool, typer.Option("--json", help="Print JSON instead of a table.")] = False,
) -> None:
    """Search the index and show the best chunks with their scores."""
    if not query.strip():
        raise InvalidInput("the query is empty")
    from lectern.cli.checks import check_filters, require_collection
    from lectern.index.base import SearchFilters
    from lectern.runtime import Runtime

    config = settings(collection=collection)
    runtime = Runtime(config)
    try:
        parsed = SearchFilters.parse(filters or [])
    except ValueError as exc:
        raise InvalidInput(str(exc)) from None
    require_collection(runtime)
    check_filters(runtime, parsed)
    runtime.check_embedder()
    chosen = mode or config.search_mode
    # Every mode gets the query vector, so every hit shows its real cosine similarity (keyword too).
    vector = runtime.embedder.embed_query(query)
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
            f"[bold]{escape(where)}[/]\n[dim]{escape(chunk.url or chunk.source_path)}[/]",
            escape(chunk.text[:300] + ("…" if len(chunk.text) > 300 else "")),
        )
    console.print(table)


@index_app.command("stats")
@handles_errors
def stats(
    collection: Annotated[
        str | None, typer.Option("--collection", "-c", metavar="NAME", help="Collection to describe.")
    ] = None,
    verbose: Annotated[
        bool, typer.Option("--verbose", "-v", help="Also show the engine's internals.")
    ] = False,
    as_json: Annotated[bool, typer.Option("--json", help="Print every figure as JSON.")] = False,
) -> None:
    """Documents, chunks, embedder, last ingest and size on disk of a collection."""
    from lectern.cli.checks import known_collections, require_collection
    from lectern.runtime import Runtime

    runtime = Runtime(settings(collection=collection))
    require_collection(runtime)
    info = runtime.index.stats()
    summary = next((c for c in known_collections(runtime) if c.name == runtime.collection), None)
    size = _size_on_disk(runtime.settings.index_dir, runtime.collection)
    if as_json:
        payload = info.model_dump(mode="json")
        payload["last_ingest"] = summary.ingested_at if summary else None
        payload["size_bytes"] = size
        typer.echo(json.dumps(payload, indent=2))
        return
    table = Table(
        title=f"Collection '{info.collection}'",
        title_justify="left",
        show_header=False,
        box=None,
        pad_edge=False,
    )
    table.add_column(style="bold")
    table.add_row("documents", f"{info.documents:,}")
    table.add_row("chunks", f"{info.chunks:,}")
    table.add_row("embedder", f"{info.embedder_name} ({info.dimension} dimensions)")
    last = summary.ingested_at if summary and summary.ingested_at else "unknown"
    if summary and not summary.clean:
        last += " (interrupted: re-run lectern ingest)"
    table.add_row("last ingest", last.replace("T", " ").replace("Z", " UTC"))
    table.add_row("size on disk", _human_bytes(size) if size is not None else "n/a (served by the engine)")
    if verbose:
        table.add_row("engine", info.engine)
        table.add_row("ANN index", "yes" if info.has_ann_index else "no (exact search)")
        table.add_row("keyword index", "yes" if info.has_keyword_index else "no")
        for key, value in info.details.items():
            table.add_row(key, str(value))
    console.print(table)


def _size_on_disk(index_dir: Path, collection: str) -> int | None:
    """Bytes under the collection's folder in the index directory, when the engine keeps one there."""
    candidates = (
        index_dir / "lancedb" / f"{collection}.lance",
        index_dir / "qdrant" / "collection" / collection,
    )
    folders = [p for p in candidates if p.is_dir()]
    if not folders:
        return None
    return sum(f.stat().st_size for folder in folders for f in folder.rglob("*") if f.is_file())


def _human_bytes(size: int) -> str:
    value = float(size)
    for unit in ("bytes", "KB", "MB", "GB"):
        if value < 1024 or unit == "GB":
            return f"{value:,.0f} {unit}" if unit == "bytes" else f"{value:,.1f} {unit}"
        value /= 1024
    return f"{size} bytes"
