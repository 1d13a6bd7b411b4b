"""`lectern ingest`: keep a collection in step with folders of documents."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn
from rich.table import Table

from lectern.cli.main import app, console, handles_errors, settings
from lectern.ingest.pipeline import IngestOptions, IngestPipeline, IngestReport
from lectern.runtime import Runtime


class RichIngestProgress:
    """Files done, chunks embedded and the embedding rate, on one live bar."""

    def __init__(self, progress: Progress) -> None:
        self._progress = progress
        self._task = progress.add_task("ingesting", total=None, chunks=0, rate="")
        self._chunks = 0
        self._embed_seconds = 0.0

    def start(self, total_files: int) -> None:
        self._progress.update(self._task, total=total_files)

    def file_done(self, source_path: str, status: str) -> None:
        if status != "removed":
            self._progress.advance(self._task)

    def chunks_embedded(self, count: int, seconds: float) -> None:
        self._chunks += count
        self._embed_seconds += seconds
        rate = f"{self._chunks / self._embed_seconds:,.0f} chunks/s" if self._embed_seconds else ""
        self._progress.update(self._task, chunks=self._chunks, rate=rate)


def _summary(report: IngestReport, collection: str) -> Table:
    table = Table(title=f"Ingested into '{collection}'", show_header=True, header_style="bold")
    table.add_column("", style="bold")
    table.add_column("count", justify="right")
    for label, count in (
        ("files added", len(report.added)),
        ("files changed", len(report.changed)),
        ("files unchanged", len(report.unchanged)),
        ("files removed", len(report.removed)),
        ("files skipped", len(report.skipped)),
        ("chunks embedded", report.chunks_embedded),
        ("chunks deleted", report.chunks_deleted),
        ("chunks in collection", report.chunks_total),
    ):
        table.add_row(label, f"{count:,}")
    table.add_row("seconds", f"{report.seconds:.2f}")
    return table


@app.command()
@handles_errors
def ingest(
    paths: Annotated[list[Path], typer.Argument(help="Files or folders to ingest.")],
    collection: Annotated[str | None, typer.Option("--collection", "-c", help="Collection name.")] = None,
    base_url: Annotated[
        str | None, typer.Option("--base-url", help="Site base URL used to build source links.")
    ] = None,
    include: Annotated[
        list[str] | None, typer.Option("--include", help="Glob to include (repeatable).")
    ] = None,
    exclude: Annotated[
        list[str] | None, typer.Option("--exclude", help="Glob to exclude (repeatable).")
    ] = None,
) -> None:
    """Ingest documents. Unchanged files cost nothing; removed files leave the index."""
    config = settings(collection=collection, site_base_url=base_url)
    runtime = Runtime(config)
    options = IngestOptions(
        include=include or (),
        exclude=exclude or (),
        base_url=config.site_base_url,
        max_tokens=config.chunk_max_tokens,
        overlap_tokens=config.chunk_overlap_tokens,
        flush_chunks=config.ingest_flush_chunks,
    )
    with Progress(
        TextColumn("[progress.description]{task.description}"),
        BarColumn(),
        MofNCompleteColumn(),
        TextColumn("files · {task.fields[chunks]} chunks embedded · {task.fields[rate]}"),
        TimeElapsedColumn(),
        console=console,
        transient=True,
    ) as bar:
        pipeline = IngestPipeline(
            collection=runtime.collection,
            embedder=runtime.embedder,
            index=lambda: runtime.index,
            manifest=runtime.manifest,
            progress=RichIngestProgress(bar),
        )
        report = pipeline.ingest_paths(paths, options)
    console.print(_summary(report, runtime.collection))
    if report.skipped:
        skipped = Table(title="Skipped files", header_style="bold yellow")
        skipped.add_column("file")
        skipped.add_column("reason")
        for path, reason in report.skipped:
            skipped.add_row(path, reason)
        console.print(skipped)
