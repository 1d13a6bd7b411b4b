"""Every example of docs/ and the README, run: the documented output is the real output.

One small corpus (this project's own docs/ folder, as `make demo` uses) is ingested once for the module;
each ```` ```console ```` example then runs in-process through the real CLI, model and index
(tests/docs_examples.py explains the format). Commands of ```` ```bash ```` blocks are parsed against
the command line, so a documented option or command that does not exist fails here too.
"""

from __future__ import annotations

import shutil
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
import typer.main
from typer.testing import CliRunner

from lectern.cli import main as cli_main
from lectern.cli.main import app
from tests.docs_examples import DOC_FILES, ROOT, Example, bash_lectern_lines, console_examples, matches

pytestmark = pytest.mark.integration

EXAMPLES = [example for path in DOC_FILES for example in console_examples(path)]
BASH_LINES = [line for path in DOC_FILES for line in bash_lectern_lines(path)]
EAGER = {"--help", "--version", "--install-completion", "--show-completion"}


@pytest.fixture(scope="module")
def workspace(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Path]:
    """A folder holding a copy of docs/ and its index (.lectern) as collection `demo`, the default
    collection here: as after `make demo`."""
    root = tmp_path_factory.mktemp("docs-examples")
    shutil.copytree(ROOT / "docs", root / "docs")
    with pytest.MonkeyPatch.context() as patch:
        patch.chdir(root)
        for name in ("LECTERN_DATA_DIR", "LECTERN_CONFIG"):
            patch.delenv(name, raising=False)
        patch.setenv("LECTERN_COLLECTION", "demo")  # as `make demo` names it
        # Output as at an 80-column terminal, without colour codes.
        patch.setattr(cli_main.console, "width", 80)
        patch.setattr(cli_main.err_console, "width", 80)
        patch.setenv("NO_COLOR", "1")
        done = CliRunner().invoke(app, ["ingest", "docs"])
        assert done.exit_code == 0, done.output
        yield root


def test_the_docs_have_runnable_examples() -> None:
    assert len(EXAMPLES) >= 8
    assert {e.where.split(":")[0] for e in EXAMPLES} >= {"README.md", "asking.md", "getting-started.md"}


@pytest.mark.parametrize("example", EXAMPLES, ids=[e.where for e in EXAMPLES])
def test_console_example(workspace: Path, example: Example) -> None:
    argv = example.argv()
    result = CliRunner().invoke(app, argv, input=example.stdin, env=example.env)
    assert result.exit_code == example.exit_code, f"{example.where}: $ {example.command}\n{result.output}"
    assert matches(example.expected, result.output), (
        f"{example.where}: the documented output of `{example.command}` differs from the real one.\n"
        "--- documented\n" + "\n".join(example.expected) + "\n--- real\n" + result.output
    )


@pytest.mark.parametrize(("where", "args"), BASH_LINES, ids=[w for w, _ in BASH_LINES])
def test_documented_command_lines_parse(where: str, args: list[str]) -> None:
    """The command and every option exist and take the values shown (files need not exist).
    Typer runs its own copy of Click, so its classes are used by duck typing."""
    if EAGER & set(args):
        pytest.skip("an eager option runs at parse time")
    command: Any = typer.main.get_command(app)
    try:
        ctx = command.make_context("lectern", list(args))
        while hasattr(command, "commands"):
            rest = [*ctx._protected_args, *ctx.args]
            if not rest:
                break
            name, sub, rest = command.resolve_command(ctx, rest)
            assert sub is not None, f"{where}: no command {rest[0]!r}"
            command = sub
            ctx = sub.make_context(name, rest, parent=ctx)
    except typer.BadParameter as exc:
        if "does not exist" not in exc.format_message():
            raise AssertionError(f"{where}: lectern {' '.join(args)}: {exc.format_message()}") from None
    except Exception as exc:  # the copy's UsageError: an unknown option or command, a bad value
        if not hasattr(exc, "format_message"):
            raise
        raise AssertionError(f"{where}: lectern {' '.join(args)}: {exc.format_message()}") from None
    assert not hasattr(command, "commands") or ctx.args == [], f"{where}: no subcommand given"


def test_bad_command_lines_are_caught() -> None:
    for args in (["ask", "--nope", "q"], ["index", "statz"], ["search", "q", "--mode", "fuzzy"]):
        with pytest.raises(AssertionError):
            test_documented_command_lines_parse("test", args)


def test_matches_understands_ellipsis() -> None:
    assert matches(["a ... b", "...", "end"], "a 12 ms b\nx\ny\nend\n")
    assert matches(["a", "...", "end"], "a\nend")
    assert not matches(["a [1] [2]"], "a [1] [4]")
    assert not matches(["one"], "one\ntwo")
