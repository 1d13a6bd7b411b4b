"""`lectern ask` and `lectern chat`: the engine's event stream, printed.

`ask` answers one question: the answer streams as it is written, then the sources (title, section, URL,
score) and the confidence level follow. `chat` keeps a conversation: follow-up questions use the
history; `/reset`, `/sources` and `/exit`; Ctrl-C stops the answer being written, not the session.
"""

from __future__ import annotations

import asyncio
import json
import os
import select
import sys
from collections.abc import AsyncIterator
from typing import Annotated, Any

import typer
from rich.table import Table

from lectern.cli.main import app, console, err_console, handles_errors, settings
from lectern.conversation import Conversation
from lectern.engine import AskOptions, Engine
from lectern.errors import InvalidInput, LecternError
from lectern.events import Done, Event, Failed, Retrieved, Token
from lectern.index.base import SearchFilters
from lectern.models import Answer
from lectern.retrieval import CHAT_MAX_TOP_K
from lectern.writers.llm_spec import parse_llm_spec

CHAT_HELP = (
    "Ask about your documents. /sources shows the last answer's sources, /reset forgets, /exit leaves."
)
EMPTY_QUESTION = "The question is empty; please type a question."

TopK = Annotated[
    int | None, typer.Option("--top-k", "-k", min=1, max=CHAT_MAX_TOP_K, help="Chunks to retrieve (1-10).")
]
Threshold = Annotated[
    float | None,
    typer.Option("--threshold", "-t", min=0.0, max=1.0, help="Minimum similarity of a chunk (0-1)."),
]
Filters = Annotated[
    list[str] | None,
    typer.Option("--filter", "-f", help="key=value on any payload key; url_prefix=... (repeatable)."),
]
LLM = Annotated[
    str | None,
    typer.Option(
        "--llm", help="Answer writer: extractive (default) or PROVIDER:MODEL, e.g. openai:gpt-4o-mini."
    ),
]
Collection = Annotated[str | None, typer.Option("--collection", "-c", help="Collection to ask.")]


def _engine(collection: str | None, llm: str | None) -> Engine:
    overrides: dict[str, Any] = {"collection": collection}
    if llm:
        spec = parse_llm_spec(llm)
        overrides.update(spec.settings_overrides(os.environ.get("LECTERN_LLM_BASE_URL", "")))
    return Engine.from_settings(settings(**overrides), collection)


def _options(top_k: int | None, threshold: float | None, filters: list[str] | None) -> AskOptions:
    try:
        parsed = SearchFilters.parse(filters or [])
    except ValueError as exc:
        raise InvalidInput(str(exc)) from None
    return AskOptions(
        top_k=top_k,
        threshold=threshold,
        filters=None if parsed.is_empty() else parsed,
        max_top_k=CHAT_MAX_TOP_K,
    )


async def _print_stream(events: AsyncIterator[Event]) -> Answer:
    """Print tokens as they come; the finished answer, or the turn's error raised as a LecternError."""
    async for event in events:
        if isinstance(event, Token):
            console.print(event.text, end="", markup=False, highlight=False, soft_wrap=True)
        elif isinstance(event, Done):
            console.print()
            return event.answer
        elif isinstance(event, Failed):
            raise LecternError(event.message, code=event.code)
        elif isinstance(event, Retrieved):
            pass  # the sources are shown with the answer
    raise LecternError("The answer stream ended without an answer.")


def sources_table(answer: Answer) -> Table:
    table = Table(show_header=True, header_style="bold", box=None, pad_edge=False)
    table.add_column("#", justify="right")
    table.add_column("source", overflow="fold")
    table.add_column("section", overflow="fold")
    table.add_column("url", overflow="fold")
    table.add_column("score", justify="right")
    for c in answer.citations:
        section = " › ".join(c.heading_hierarchy[1:]) or c.section
        table.add_row(
            f"[{c.number}]",
            c.title or c.source_path,
            section,
            c.url or c.source_path,
            f"{c.similarity_score:.2f}",
        )
    return table


def print_footer(answer: Answer) -> None:
    for warning in answer.warnings:
        err_console.print(f"[yellow]warning:[/] {warning}", highlight=False, soft_wrap=True)
    if answer.citations:
        console.print()
        console.print(sources_table(answer))
    c = answer.confidence
    colour = {"high": "green", "medium": "green", "low": "yellow"}.get(c.confidence_level, "red")
    console.print(
        f"[dim]confidence:[/] [{colour}]{c.confidence_level}[/] "
        f"[dim](average similarity {c.average_similarity:.2f} over {c.num_chunks} chunks, "
        f"{answer.timings.total_ms:.0f} ms)[/]",
        highlight=False,
    )


@app.command()
@handles_errors
def ask(
    question: Annotated[str, typer.Argument(help="Your question about the documents.")],
    top_k: TopK = None,
    threshold: Threshold = None,
    filters: Filters = None,
    llm: LLM = None,
    collection: Collection = None,
    as_json: Annotated[bool, typer.Option("--json", help="Print the answer as JSON.")] = False,
) -> None:
    """Answer a question from the documents, with its sources and how confident the answer is."""
    if not question.strip():
        raise InvalidInput(EMPTY_QUESTION)
    options = _options(top_k, threshold, filters)
    engine = _engine(collection, llm)
    conversation = engine.new_conversation()
    if as_json:
        answer = asyncio.run(engine.run(question, conversation, options))
        payload = answer.model_dump(mode="json")
        payload["should_answer"] = answer.confidence.should_answer
        typer.echo(json.dumps(payload, indent=2, ensure_ascii=False))
        return
    answer = asyncio.run(_print_stream(engine.stream(question, conversation, options)))
    print_footer(answer)


@app.command()
@handles_errors
def chat(
    top_k: TopK = None,
    threshold: Threshold = None,
    filters: Filters = None,
    llm: LLM = None,
    collection: Collection = None,
) -> None:
    """Talk with your documents: follow-up questions use the conversation so far."""
    options = _options(top_k, threshold, filters)
    engine = _engine(collection, llm)
    conversation = engine.new_conversation()
    console.print(f"[dim]{CHAT_HELP}[/]", highlight=False)
    last: Answer | None = None
    prompt = _prompt("[bold cyan]you>[/] ")
    while True:
        try:
            line = _read_line(prompt)
        except EOFError:
            console.print()
            return
        except KeyboardInterrupt:
            console.print("\n[dim](Ctrl-C stops an answer; /exit or Ctrl-D leaves)[/]")
            continue
        command = line.strip().lower()
        if command in {"/exit", "/quit"}:
            return
        if command == "/reset":
            conversation.reset()
            last = None
            console.print("[dim]Conversation forgotten.[/]")
            continue
        if command == "/sources":
            _show_sources(last)
            continue
        if command.startswith("/"):
            console.print(
                f"[yellow]Unknown command {line.strip()!r}.[/] [dim]{CHAT_HELP}[/]", highlight=False
            )
            continue
        if not line.strip():
            console.print(f"[yellow]{EMPTY_QUESTION}[/]")  # seed 001 INVALID_INPUT: prompt again
            continue
        last = _chat_turn(engine, conversation, line, options) or last


def _prompt(markup: str) -> str:
    """The prompt rendered once (with colour on a terminal), for `input()` to print.

    `input()` writes the prompt itself, so a Ctrl-C pressed as soon as the prompt shows lands inside
    `input()`; printing it through Rich first left a window where the interrupt hit Rich mid-render
    and swallowed the next lines.
    """
    with console.capture() as captured:
        console.print(markup, end="")
    return captured.get()


def _read_line(prompt: str) -> str:
    """`input()`, except that Ctrl-C always reaches it.

    The kernel may deliver SIGINT to any thread, and after a first answer the process has native
    threads (LanceDB's runtime, onnxruntime's pool). Python then only sets a flag, and a main thread
    blocked in `input()`'s read never sees it. Waiting with short `select` timeouts returns to Python
    often enough that a pending Ctrl-C raises KeyboardInterrupt at once.
    """
    if os.name != "posix" or not sys.stdin.isatty():
        return input(prompt)
    sys.stdout.write(prompt)
    sys.stdout.flush()
    while not select.select([sys.stdin], [], [], 0.1)[0]:
        pass
    line = sys.stdin.readline()
    if not line:
        raise EOFError
    return line.rstrip("\n")


def _chat_turn(
    engine: Engine, conversation: Conversation, question: str, options: AskOptions
) -> Answer | None:
    console.print("[bold magenta]lectern>[/] ", end="")
    try:
        answer = asyncio.run(_print_stream(engine.stream(question, conversation, options)))
    except KeyboardInterrupt:
        console.print("\n[dim](stopped)[/]")
        return None
    except LecternError as exc:
        console.print()
        err_console.print(f"[bold red]error:[/] {exc.message}", highlight=False, soft_wrap=True)
        return None
    c = answer.confidence
    console.print(
        f"[dim]confidence {c.confidence_level}, {len(answer.citations)} sources (/sources)[/]",
        highlight=False,
    )
    return answer


def _show_sources(answer: Answer | None) -> None:
    if answer is None or not answer.citations:
        console.print("[dim]No sources yet.[/]")
        return
    console.print(sources_table(answer))
