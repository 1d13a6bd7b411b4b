"""`lectern eval retrieval`: retrieval quality on a BEIR data set."""

from __future__ import annotations

import json
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, cast

import typer
from rich.table import Table

from lectern.cli.main import app, console, handles_errors, settings
from lectern.errors import InvalidInput

if TYPE_CHECKING:
    from rich.progress import TaskID

    from lectern.models import SearchModeName

eval_app = typer.Typer(help="Measure retrieval quality.", no_args_is_help=True)
app.add_typer(eval_app, name="eval")

ALL_MODES: list[SearchModeName] = ["dense", "keyword", "hybrid"]


@eval_app.command("retrieval")
@handles_errors
def retrieval(
    beir: Annotated[
        Path, typer.Option("--beir", help="Folder of a BEIR data set.", exists=True, file_okay=False)
    ],
    split: Annotated[str, typer.Option("--split", help="qrels split to score.")] = "test",
    modes: Annotated[
        # list[str]: typer cannot build a list of a Literal type (the whole CLI failed to start).
        list[str] | None,
        typer.Option("--mode", help="Mode to score: dense, keyword or hybrid (repeatable); default all."),
    ] = None,
    collection: Annotated[
        str | None, typer.Option("--collection", "-c", help="Collection to ingest into (default beir-NAME).")
    ] = None,
    output: Annotated[Path | None, typer.Option("--output", "-o", help="Where to write the JSON.")] = None,
) -> None:
    """Print nDCG@10, Recall@10, Recall@100 and MRR@10 per search mode, and write them as JSON."""
    from rich.progress import (
        BarColumn,
        MofNCompleteColumn,
        Progress,
        TextColumn,
        TimeElapsedColumn,
        TimeRemainingColumn,
    )

    from lectern.evaluation.beir import load_beir
    from lectern.evaluation.retrieval import evaluate_retrieval
    from lectern.ingest.pipeline import IngestOptions
    from lectern.runtime import Runtime

    name = beir.resolve().name
    config = settings(collection=collection or f"beir-{name}")
    runtime = Runtime(config)
    dataset = load_beir(beir, split)
    with Progress(
        TextColumn("{task.description:<22}"),
        BarColumn(),
        MofNCompleteColumn(),
        TimeElapsedColumn(),
        TextColumn("· ETA"),
        TimeRemainingColumn(),
        console=console,
        transient=True,
    ) as bar:
        tasks: dict[str, TaskID] = {}

        def progress(stage: str, done: int, total: int) -> None:
            if stage not in tasks:
                tasks[stage] = bar.add_task(stage, total=total)
            bar.update(tasks[stage], completed=done, total=total)

        result = evaluate_retrieval(
            dataset,
            name=name,
            split=split,
            embedder=runtime.embedder,
            index=runtime.index,
            manifest=runtime.manifest,
            collection=runtime.collection,
            modes=_modes(modes),
            options=IngestOptions(
                max_tokens=config.chunk_max_tokens,
                overlap_tokens=config.chunk_overlap_tokens,
                flush_chunks=config.ingest_flush_chunks,
            ),
            progress=progress,
        )
    table = Table(
        title=f"{name} ({split}): {result.queries} queries, {result.documents} docs, {result.chunks} chunks",
        header_style="bold",
    )
    for column in ("mode", "nDCG@10", "Recall@10", "Recall@100", "MRR@10", "p50 ms", "p99 ms"):
        table.add_column(column, justify="right" if column != "mode" else "left")
    for row in result.results:
        m = row.metrics
        table.add_row(
            row.mode,
            f"{m['ndcg@10']:.4f}",
            f"{m['recall@10']:.4f}",
            f"{m['recall@100']:.4f}",
            f"{m['mrr@10']:.4f}",
            f"{row.query_seconds_p50 * 1000:.1f}",
            f"{row.query_seconds_p99 * 1000:.1f}",
        )
    console.print(table)
    target = output or config.data_dir / "eval" / f"retrieval-{name}-{split}.json"
    target.parent.mkdir(parents=True, exist_ok=True)
    target.write_text(json.dumps(result.as_dict(), indent=2), encoding="utf-8")
    console.print(f"Wrote {target}")


def _modes(given: list[str] | None) -> list[SearchModeName]:
    unknown = sorted(set(given or ()) - set(ALL_MODES))
    if unknown:
        raise InvalidInput(f"unknown --mode {', '.join(unknown)}; use dense, keyword or hybrid")
    return cast("list[SearchModeName]", given) if given else ALL_MODES
