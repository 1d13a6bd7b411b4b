"""`lectern ingest`: keep a collection in step with folders of documents."""

from __future__ import annotations

import re
from pathlib import Path
from typing import TYPE_CHECKING, Annotated

import typer
from rich.markup import escape
from rich.progress import (
    BarColumn,
    MofNCompleteColumn,
    Progress,
    TextColumn,
    TimeElapsedColumn,
    TimeRemainingColumn,
)
from rich.table import Table

from lectern.cli.main import app, console, err_console, fail, handles_errors, settings
from lectern.errors import InvalidInput

if TYPE_CHECKING:
    from lectern.ingest.pipeline import IngestReport

SUPPORTED = ".md, .markdown, .mdx, .html, .htm, .txt, .pdf"

if TYPE_CHECKING:
    from lectern.ingest.pipeline import IngestReport


class RichIngestProgress:
    """Files done, chunks embedded (counted per batch, from the first one), the rate and an ETA."""

    def __init__(self, progress: Progress) -> None:
        self._progress = progress
        self._task = progress.add_task("ingesting", total=None, chunks=0, rate="")
        self.chunks = 0
        self._embed_seconds = 0.0

    def start(self, total_files: int) -> None:
        self._progress.update(self._task, total=total_files)

    def file_done(self, source_path: str, status: str) -> None:
        if status != "removed":
            self._progress.advance(self._task)

    def chunks_embedded(self, count: int, seconds: float) -> None:
        """The pipeline's per-group count: the bar already counted these batch by batch."""

    def batch_embedded(self, count: int, seconds: float) -> None:
        self.chunks += count
        self._embed_seconds += seconds
        rate = f"{self.chunks / self._embed_seconds:,.0f} chunks/s" if self._embed_seconds else ""
        self._progress.update(self._task, chunks=f"{self.chunks:,}", rate=rate)


def _summary(report: IngestReport, collection: str, dry_run: bool) -> Table:
    title = f"Would ingest into '{collection}' (dry run)" if dry_run else f"Ingested into '{collection}'"
    table = Table(title=title, show_header=True, header_style="bold")
    table.add_column("", style="bold")
    table.add_column("count", justify="right")
    rows: list[tuple[str, int]] = [
        ("files added", len(report.added)),
        ("files changed", len(report.changed)),
        ("files unchanged", len(report.unchanged)),
        ("files removed", len(report.removed)),
        ("files skipped", len(report.skipped)),
    ]
    if not dry_run:
        rows += [
            ("chunks embedded", report.chunks_embedded),
            ("chunks deleted", report.chunks_deleted),
            ("chunks in collection", report.chunks_total),
        ]
    for label, count in rows:
        table.add_row(label, f"{count:,}")
    if not dry_run:
        table.add_row("seconds", f"{report.seconds:.2f}")
    return table


def _check_paths(paths: list[Path]) -> None:
    for path in paths:
        text = re.sub(r"^(\w+):/(?!/)", r"\1://", str(path))  # Path folds '//' into '/'
        if "://" in text or text.startswith(("http:", "https:", "www.")):
            raise InvalidInput(
                f"{text} is a URL; lectern ingest reads files and folders. Save the site first "
                "(e.g. wget --mirror --convert-links URL) and ingest the folder."
            )
        if not path.expanduser().exists():
            raise InvalidInput(f"{text} does not exist")


def _unsupported(paths: list[Path], include: list[str], exclude: list[str]) -> list[tuple[str, str]]:
    from lectern.ingest.files import unsupported_files

    skipped: list[tuple[str, str]] = []
    for path in paths:
        root = path.expanduser().resolve()
        if root.is_file() and root.suffix.lower() not in SUPPORTED.split(", "):
            skipped.append((root.name, f"unsupported type {root.suffix or '(none)'}"))
        for rel in unsupported_files(root, include, exclude):
            skipped.append((rel, f"unsupported type {Path(rel).suffix or '(none)'}"))
    return skipped


@app.command()
@handles_errors
def ingest(
    paths: Annotated[list[Path], typer.Argument(metavar="PATH", help="Files or folders to ingest.")],
    collection: Annotated[
        str | None,
        typer.Option("--collection", "-c", metavar="NAME", help="Collection name (default docs)."),
    ] = None,
    base_url: Annotated[
        str | None,
        typer.Option("--base-url", metavar="URL", help="Site base URL used to build source links."),
    ] = None,
    include: Annotated[
        list[str] | None, typer.Option("--include", metavar="GLOB", help="Glob to include (repeatable).")
    ] = None,
    exclude: Annotated[
        list[str] | None, typer.Option("--exclude", metavar="GLOB", help="Glob to exclude (repeatable).")
    ] = None,
    dry_run: Annotated[
        bool,
        typer.Option(
            "--dry-run", help="Show which files would be added, changed and removed; change nothing."
        ),
    ] = False,
) -> None:
    """Ingest documents. Unchanged files cost nothing; removed files leave the index.

    Supported: Markdown, MDX, HTML, plain text and PDF. Stopped with Ctrl-C, the same command resumes.
    """
    from lectern import word_frequency
    from lectern.ingest.pipeline import IngestOptions, IngestPipeline
    from lectern.ingest.resume import ResumableEmbedder
    from lectern.runtime import Runtime
    from lectern.sentences import SentenceVectors

    _check_paths(paths)
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
    unsupported = _unsupported(paths, include or [], exclude or [])
    if dry_run:
        preview = IngestPipeline(
            collection=runtime.collection,
            embedder=runtime.embedder,
            index=lambda: runtime.index,
            manifest=runtime.manifest,
        ).preview(paths, options)
        preview.skipped.extend(unsupported)
        _print_report(preview, runtime.collection, dry_run=True)
        return
    with Progress(
        TextColumn("[progress.description]{task.description}"),
        BarColumn(),
        MofNCompleteColumn(),
        TextColumn("files · {task.fields[chunks]} chunks embedded · {task.fields[rate]}"),
        TimeElapsedColumn(),
        TextColumn("· ETA"),
        TimeRemainingColumn(),
        console=console,
        transient=True,
    ) as bar:
        progress = RichIngestProgress(bar)
        embedder = ResumableEmbedder(
            runtime.embedder, config.data_dir / "ingest-resume.sqlite3", on_batch=progress.batch_embedded
        )
        resumable = embedder.pending()
        pipeline = IngestPipeline(
            collection=runtime.collection,
            embedder=embedder,
            index=lambda: runtime.index,
            manifest=runtime.manifest,
            progress=progress,
            sentences=SentenceVectors.for_data_dir(runtime.embedder, runtime.settings.data_dir),
            data_dir=runtime.settings.data_dir,
        )
        try:
            report = pipeline.ingest_paths(paths, options)
        except KeyboardInterrupt:
            bar.stop()
            raise fail(
                f"interrupted after embedding {progress.chunks:,} chunks; they are kept, and running the "
                "same command again resumes from there",
                130,
            ) from None
        embedder.finished()
    # Answers rate how rare a question's words are; a table prepared now spares each one-shot
    # `lectern ask` loading the word-frequency package (~0.4 s). Built once per package version.
    word_frequency.prepare(runtime.settings.model_cache_dir)
    if resumable and embedder.reused:
        console.print(f"Resumed: {embedder.reused:,} chunks embedded by the interrupted run were reused.")
    report.skipped.extend(unsupported)
    _print_report(report, runtime.collection, dry_run=False)
    if not (report.added or report.changed or report.unchanged):
        err_console.print(
            f"[yellow]warning:[/] no file could be ingested from {', '.join(escape(str(p)) for p in paths)}"
            f" (supported: {SUPPORTED})",
            highlight=False,
            soft_wrap=True,
        )
        raise typer.Exit(1)


def _print_report(report: IngestReport, collection: str, *, dry_run: bool) -> None:
    console.print(_summary(report, collection, dry_run))
    if report.sentences_backfilled:
        console.print(
            f"Sentence vectors computed for {report.sentences_backfilled:,} chunks "
            "(stored by an earlier version in another form); answers no longer need to embed them."
        )
    if dry_run:
        for label, files in (("add", report.added), ("change", report.changed), ("remove", report.removed)):
            for name in files:
                console.print(f"  would {label:<6} {escape(name)}", highlight=False, soft_wrap=True)
    if report.skipped:
        skipped = Table(title="Skipped files", header_style="bold yellow")
        skipped.add_column("file", overflow="fold")
        skipped.add_column("reason")
        for path, reason in report.skipped:
            skipped.add_row(escape(path), escape(reason))
        console.print(skipped)
