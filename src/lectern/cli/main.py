"""Typer app: global options and one place that turns errors into one red line."""

from __future__ import annotations

import functools
from collections.abc import Callable
from pathlib import Path
from typing import Annotated, Any, ParamSpec, TypeVar

import click
import typer
from rich.console import Console

from lectern.errors import LecternError
from lectern.settings import Settings, load_settings

app = typer.Typer(
    name="lectern",
    help="Grounded answers from your documentation, with citations.",
    no_args_is_help=True,
    pretty_exceptions_enable=False,
    add_completion=False,
)
index_app = typer.Typer(help="Inspect the index.", no_args_is_help=True)
app.add_typer(index_app, name="index")

console = Console()
err_console = Console(stderr=True)

P = ParamSpec("P")
R = TypeVar("R")


@app.callback()
def main(
    ctx: typer.Context,
    data_dir: Annotated[
        Path | None, typer.Option("--data-dir", help="Data directory (LECTERN_DATA_DIR).")
    ] = None,
) -> None:
    """Lectern answers questions from your documents only, cites them, and says when it cannot."""
    # Kept on this invocation's context, so nothing leaks into the next one in the same process.
    ctx.obj = {"data_dir": data_dir} if data_dir is not None else {}


def settings(**extra: Any) -> Settings:
    """Settings for the running command: global options, then the command's own, over the environment."""
    ctx = click.get_current_context(silent=True)
    overrides: dict[str, Any] = dict(ctx.find_root().obj or {}) if ctx is not None else {}
    overrides.update({k: v for k, v in extra.items() if v is not None})
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
from lectern.cli import ask_cmd, eval_cmd, ingest_cmd, mcp_cmd, search_cmd, serve_cmd  # noqa: E402

__all__ = ["app", "ask_cmd", "eval_cmd", "ingest_cmd", "mcp_cmd", "search_cmd", "serve_cmd"]
