"""`lectern report`: what readers asked, the documentation's gaps, feedback and cited pages."""

from __future__ import annotations

import asyncio
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import TYPE_CHECKING, Annotated

import typer
from rich.table import Table

from lectern.cli.main import app, console, handles_errors, settings

if TYPE_CHECKING:
    # Imported when the command runs: the other commands (and --help) never load the store.
    from lectern.report import Report


@app.command()
@handles_errors
def report(
    days: Annotated[int, typer.Option("--days", "-d", min=1, max=366, help="The last N days.")] = 7,
    collection: Annotated[
        str | None,
        typer.Option("--collection", "-c", metavar="NAME", help="Collection the answers came from."),
    ] = None,
    as_json: Annotated[bool, typer.Option("--json", help="Print JSON instead of tables.")] = False,
    html_path: Annotated[
        Path | None, typer.Option("--html", help="Also write a self-contained HTML report here.")
    ] = None,
) -> None:
    """What readers asked (by topic), what the docs could not answer, unhelpful answers, cited pages."""
    from lectern.report import make_report, render_html
    from lectern.runtime import Runtime
    from lectern.store import ConversationStore, upgrade_database

    config = settings(collection=collection)
    runtime = Runtime(config)
    until = datetime.now(UTC)

    async def run() -> Report:
        await upgrade_database(config.effective_database_url)
        store = ConversationStore.from_settings(config)
        try:
            return await make_report(
                store,
                runtime.index,
                runtime.embedder,
                since=until - timedelta(days=days),
                until=until,
                low_below=config.confidence_medium,
            )
        finally:
            await store.close()

    result = asyncio.run(run())
    if html_path is not None:
        html_path.write_text(render_html(result), encoding="utf-8")
    if as_json:
        console.print_json(result.model_dump_json())
        return
    _print(result)
    if html_path is not None:
        console.print(f"HTML report written to {html_path}")


def _print(r: Report) -> None:
    t = r.totals
    console.print(
        f"[bold]{t.questions}[/] questions in {t.sessions} conversations since {r.since[:10]}: "
        f"{t.refused} not answered, {t.low_confidence} low confidence, {t.helpful} 👍 / {t.unhelpful} 👎"
    )
    topics = Table(title="Topics", title_justify="left")
    for col in ("Topic", "Questions", "Not answered", "Low conf.", "Examples"):
        topics.add_column(col, overflow="fold")
    for tp in r.topics[:20]:
        topics.add_row(
            tp.label, str(tp.questions), str(tp.refused), str(tp.low_confidence), " · ".join(tp.examples[:3])
        )
    console.print(topics)
    gaps = Table(title="Documentation gaps (not answered or low confidence)", title_justify="left")
    for col in ("Topic", "Questions", "Examples"):
        gaps.add_column(col, overflow="fold")
    for g in r.gaps[:20]:
        gaps.add_row(g.label, str(g.questions), " · ".join(g.examples[:3]))
    console.print(gaps)
    negative = Table(title="Answers marked unhelpful", title_justify="left")
    for col in ("Asked", "Question", "Comment"):
        negative.add_column(col, overflow="fold")
    for f in r.negative_feedback[:20]:
        negative.add_row(f.asked_at[:16], f.question, f.comment or "")
    console.print(negative)
    pages = Table(title="Most cited pages", title_justify="left")
    pages.add_column("Page", overflow="fold")
    pages.add_column("Answers citing it")
    for p in r.most_cited:
        pages.add_row(p.page, str(p.citations))
    console.print(pages)
    never = ", ".join(p.page for p in r.never_cited[:30]) or "none"
    console.print(f"[bold]Never cited[/] ({len(r.never_cited)}): {never}")
