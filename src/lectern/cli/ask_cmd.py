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
from typing import TYPE_CHECKING, Annotated, Any

import typer
from rich.markup import escape

from lectern.cli.main import app, console, err_console, handles_errors, settings
from lectern.cli.render import MarkdownStream, plural, print_citations, print_footer
from lectern.errors import InvalidInput, LecternError

if TYPE_CHECKING:
    from lectern.conversation import Conversation
    from lectern.engine import AskOptions, Engine
    from lectern.events import Event
    from lectern.models import Answer

CHAT_MAX_TOP_K = 10  # lectern.retrieval.CHAT_MAX_TOP_K, without importing the retrieval stack for --help
CHAT_COMMANDS = {
    "/help": "this list",
    "/sources": "the last answer's sources, one per line",
    "/reset": "forget the conversation and start again",
    "/session": "the session id",
    "/exit": "leave (also /quit or Ctrl-D)",
}
CHAT_HELP = "Ask about your documents. /help lists the commands; /exit or Ctrl-D leaves."
# Typed alone, these are almost surely meant as commands, not questions about the documents.
BARE_COMMANDS = {"exit": "/exit", "quit": "/exit", "help": "/help", "reset": "/reset", "sources": "/sources"}
EMPTY_QUESTION = "The question is empty; please type a question."

TopK = Annotated[
    int | None,
    typer.Option("--top-k", "-k", metavar="N", min=1, max=CHAT_MAX_TOP_K, help="Chunks to retrieve (1-10)."),
]
Threshold = Annotated[
    float | None,
    typer.Option(
        "--threshold", "-t", metavar="SIM", min=0.0, max=1.0, help="Minimum similarity of a chunk (0-1)."
    ),
]
Filters = Annotated[
    list[str] | None,
    typer.Option(
        "--filter",
        "-f",
        metavar="KEY=VALUE",
        help="Only chunks whose KEY equals VALUE (title, chapter, section, source_path, a front-matter key, "
        "or url_prefix=...); repeatable.",
    ),
]
LLM = Annotated[
    str | None,
    typer.Option(
        "--llm",
        metavar="PROVIDER:MODEL",
        help="Answer writer: extractive (default), or e.g. openai:gpt-4o-mini, ollama:llama3.2, "
        "vllm:MODEL, llamacpp:MODEL, openrouter:MODEL.",
    ),
]
Collection = Annotated[
    str | None, typer.Option("--collection", "-c", metavar="NAME", help="Collection to ask (default docs).")
]


def _engine(collection: str | None, llm: str | None, filters: list[str] | None = None) -> Engine:
    """The engine for a collection that exists and has chunks, with filters that match something."""
    from lectern.cli.checks import check_filters, require_collection
    from lectern.engine import Engine
    from lectern.runtime import Runtime
    from lectern.writers.llm_spec import parse_llm_spec

    overrides: dict[str, Any] = {"collection": collection}
    if llm:
        spec = parse_llm_spec(llm)
        overrides.update(spec.settings_overrides(os.environ.get("LECTERN_LLM_BASE_URL", "")))
    config = settings(**overrides)
    runtime = Runtime(config, collection or "")
    require_collection(runtime)
    check_filters(runtime, _filters(filters))
    return Engine.from_settings(config, collection, runtime=runtime)


def _filters(filters: list[str] | None) -> Any:
    from lectern.index.base import SearchFilters

    try:
        parsed = SearchFilters.parse(filters or [])
    except ValueError as exc:
        raise InvalidInput(str(exc)) from None
    return None if parsed.is_empty() else parsed


def _options(top_k: int | None, threshold: float | None, filters: list[str] | None) -> AskOptions:
    from lectern.engine import AskOptions

    return AskOptions(top_k=top_k, threshold=threshold, filters=_filters(filters), max_top_k=CHAT_MAX_TOP_K)


async def _print_stream(events: AsyncIterator[Event]) -> Answer:
    """Print the answer as it is written; the finished answer, or the turn's error as a LecternError."""
    from lectern.events import Done, Failed, Token

    out = MarkdownStream(console)
    streamed: list[str] = []
    async for event in events:
        if isinstance(event, Token):
            streamed.append(event.text)
            out.feed(event.text)
        elif isinstance(event, Done):
            out.close()
            answer = event.answer
            if "".join(streamed).strip() != answer.text.strip():
                # The model's words did not all hold up against its sources: redraw the verified answer.
                console.print("\n[bold]Checked against the sources:[/bold]")
                checked = MarkdownStream(console)
                checked.feed(answer.text)
                checked.close()
            return answer
        elif isinstance(event, Failed):
            out.close()
            raise LecternError(event.message, code=event.code)
    raise LecternError("The answer stream ended without an answer.")


def _question(question: str | None) -> str:
    """The argument, or the whole of stdin when it is '-' or absent and stdin is not a terminal."""
    if question is None or question == "-":
        if question is None and sys.stdin.isatty():
            raise InvalidInput(
                'no question: lectern ask "QUESTION", or pipe one in: echo QUESTION | lectern ask'
            )
        question = sys.stdin.read()
    if not question.strip():
        raise InvalidInput(EMPTY_QUESTION)
    return question.strip()


@app.command()
@handles_errors
def ask(
    question: Annotated[
        str | None,
        typer.Argument(
            metavar="QUESTION",
            help="Your question about the documents; '-' or nothing reads it from stdin.",
            show_default=False,
        ),
    ] = None,
    top_k: TopK = None,
    threshold: Threshold = None,
    filters: Filters = None,
    llm: LLM = None,
    collection: Collection = None,
    as_json: Annotated[bool, typer.Option("--json", help="Print the answer as JSON.")] = False,
) -> None:
    """Answer a question from the documents, with its sources and how confident the answer is."""
    text = _question(question)
    options = _options(top_k, threshold, filters)
    engine = _engine(collection, llm, filters)
    conversation = engine.new_conversation()
    if as_json:
        answer = asyncio.run(engine.run(text, conversation, options))
        payload = answer.model_dump(mode="json")
        payload["should_answer"] = answer.confidence.should_answer
        typer.echo(json.dumps(payload, indent=2, ensure_ascii=False))
        return
    answer = asyncio.run(_print_stream(engine.stream(text, conversation, options)))
    print_footer(console, err_console, answer)


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
    engine = _engine(collection, llm, filters)
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
        if command in BARE_COMMANDS:
            command = BARE_COMMANDS[command]
            console.print(f"[dim](taken as {command}; to ask it as a question, add more words)[/]")
        if command in {"/exit", "/quit"}:
            return
        if command == "/help":
            for name, what in CHAT_COMMANDS.items():
                console.print(f"  [bold]{name:<9}[/] {what}", highlight=False)
            continue
        if command == "/session":
            console.print(f"session {conversation.session_id}", highlight=False)
            continue
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
                f"[yellow]Unknown command {escape(line.strip())!r}.[/] [dim]/help lists the commands.[/]",
                highlight=False,
            )
            continue
        if not line.strip():
            console.print(f"[yellow]{EMPTY_QUESTION}[/]")
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
    console.print("[bold magenta]lectern>[/]")
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
    if answer.citations:
        console.print(
            f"[dim]confidence {c.confidence_level}, {plural(len(answer.citations), 'source')} (/sources)[/]",
            highlight=False,
        )
    else:
        print_footer(console, err_console, answer)  # a refusal: why, and what to read instead
    return answer


def _show_sources(answer: Answer | None) -> None:
    if answer is None or not answer.citations:
        console.print("[dim]No sources yet.[/]")
        return
    print_citations(console, answer.citations, numbered=True)
