"""Typer app: global options and one place that turns errors into one red line.

Importing this module and the command modules stays cheap (no engine, index, model or server code at
module level): `lectern --help`, `--version` and shell completion answer at once, and each command
imports only what it runs.
"""

from __future__ import annotations

import functools
from collections.abc import Callable
from contextvars import ContextVar
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any, ParamSpec, TypeVar

import typer
from rich.console import Console

from lectern import __version__
from lectern.errors import LecternError

if TYPE_CHECKING:
    from lectern.settings import Settings

app = typer.Typer(
    name="lectern",
    help="Grounded answers from your documentation, with citations.",
    no_args_is_help=True,
    pretty_exceptions_enable=False,
    add_completion=True,
    rich_markup_mode=None,  # plain Click help: flags read as flags (typer's Rich help shows <bool>)
)
index_app = typer.Typer(help="Inspect the index.", no_args_is_help=True)
app.add_typer(index_app, name="index")

console = Console()
err_console = Console(stderr=True)

P = ParamSpec("P")
R = TypeVar("R")


def _print_version(value: bool) -> None:
    if value:
        typer.echo(f"lectern {__version__}")
        raise typer.Exit()


@app.callback()
def main(
    ctx: typer.Context,
    data_dir: Annotated[
        Path | None,
        typer.Option(
            "--data-dir", metavar="DIR", help="Data directory (LECTERN_DATA_DIR, default .lectern)."
        ),
    ] = None,
    version: Annotated[
        bool,
        typer.Option("--version", callback=_print_version, is_eager=True, help="Print the version and exit."),
    ] = False,
) -> None:
    """Lectern answers questions from your documents only, cites them, and says when it cannot."""
    # Set on every invocation (None when not given), so nothing leaks into the next one in the same
    # process. Typer runs commands under its own copy of Click, so `click.get_current_context()` never
    # sees this invocation: the value travels in a context variable instead.
    _global_options.set({"data_dir": data_dir} if data_dir is not None else {})


_global_options: ContextVar[dict[str, Any]] = ContextVar("lectern_global_options", default={})  # noqa: B039


def settings(**extra: Any) -> Settings:
    """Settings for the running command: global options, then the command's own, over the environment."""
    overrides: dict[str, Any] = dict(_global_options.get())
    overrides.update({k: v for k, v in extra.items() if v is not None})
    from lectern.settings import load_settings

    return load_settings(**overrides)


def fail(message: str, code: int = 1) -> typer.Exit:
    err_console.print(f"[bold red]error:[/] {message}", highlight=False, soft_wrap=True)
    return typer.Exit(code)


def handles_errors(func: Callable[P, R]) -> Callable[P, R]:
    """Every command: a LecternError becomes one red line and a non-zero exit, never a traceback."""

    @functools.wraps(func)
    def wrapper(*args: P.args, **kwargs: P.kwargs) -> R:
        try:
            return func(*args, **kwargs)
        except LecternError as exc:
            raise fail(exc.message) from None
        except KeyboardInterrupt:
            raise fail("interrupted", 130) from None

    return wrapper


# Commands register themselves on `app` when their modules are imported.
from lectern.cli import (  # noqa: E402
    ask_cmd,
    collections_cmd,
    eval_cmd,
    ingest_cmd,
    mcp_cmd,
    report_cmd,
    search_cmd,
    serve_cmd,
)

__all__ = [
    "app",
    "ask_cmd",
    "collections_cmd",
    "eval_cmd",
    "ingest_cmd",
    "mcp_cmd",
    "report_cmd",
    "search_cmd",
    "serve_cmd",
]
