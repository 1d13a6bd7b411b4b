"""The examples of docs/ and the README, read from their fenced blocks.

A ```` ```console ```` block is runnable: each ``$ lectern ...`` line is a command, and the lines after it
(up to the next ``$``) are its expected output. In the expected output a line ``...`` stands for any
number of lines, and ``...`` inside a line for any text (timings, scores that may move). A command that
should fail ends with ``# exit N``.

Every ``lectern`` line of a ```` ```bash ```` block (not run: servers, other machines' paths) is still
parsed against the real command line, so an option that does not exist cannot be documented.
"""

from __future__ import annotations

import re
import shlex
from dataclasses import dataclass, field
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
DOC_FILES = sorted([ROOT / "README.md", *(ROOT / "docs").glob("*.md")])

_FENCE = re.compile(r"^```(\S*)[^\n]*\n(.*?)^```\s*$", re.MULTILINE | re.DOTALL)
_EXIT = re.compile(r"\s+#\s*exit\s+(\d+)\s*$")


@dataclass
class Example:
    """One command of a console block and what it prints."""

    where: str  # file:line, for the test id and failure message
    command: str
    expected: list[str] = field(default_factory=list)
    exit_code: int = 0
    stdin: str | None = None
    env: dict[str, str] = field(default_factory=dict)

    def argv(self) -> list[str]:
        """The arguments after `lectern`, and any `echo TEXT |` in front as stdin."""
        command = self.command
        if "|" in command:
            before, _, command = command.partition("|")
            echoed = shlex.split(before)
            if echoed[:1] == ["echo"]:
                self.stdin = " ".join(echoed[1:]) + "\n"
            elif echoed[:1] == ["printf"] and len(echoed) == 2:
                self.stdin = echoed[1].replace("\\n", "\n")
            else:
                raise ValueError(
                    f"{self.where}: only `echo`/`printf '...' | lectern ...` pipes are supported"
                )
        words = shlex.split(command)
        while words and "=" in words[0] and not words[0].startswith("-"):
            name, _, value = words.pop(0).partition("=")
            self.env[name] = value
        if words[:1] != ["lectern"]:
            raise ValueError(f"{self.where}: a console example must run lectern, not {words[:1]}")
        return words[1:]


def _line_of(text: str, offset: int) -> int:
    return text.count("\n", 0, offset) + 1


def console_examples(path: Path) -> list[Example]:
    text = path.read_text(encoding="utf-8")
    examples: list[Example] = []
    for block in _FENCE.finditer(text):
        if block.group(1) != "console":
            continue
        first = _line_of(text, block.start(2))
        current: Example | None = None
        for number, line in enumerate(block.group(2).splitlines(), start=first):
            if line.startswith("$ "):
                command = line[2:].strip()
                exit_code = 0
                if match := _EXIT.search(command):
                    exit_code = int(match.group(1))
                    command = command[: match.start()]
                current = Example(f"{path.name}:{number}", command, exit_code=exit_code)
                examples.append(current)
            elif current is not None:
                current.expected.append(line)
    return examples


def bash_lectern_lines(path: Path) -> list[tuple[str, list[str]]]:
    """(file:line, arguments after `lectern`) of every lectern command in the bash blocks."""
    text = path.read_text(encoding="utf-8")
    found: list[tuple[str, list[str]]] = []
    for block in _FENCE.finditer(text):
        if block.group(1) not in {"bash", "sh", "shell"}:
            continue
        first = _line_of(text, block.start(2))
        for number, line in _commands(block.group(2), first):
            words = shlex.split(line, comments=True)
            while words and ("=" in words[0] and not words[0].startswith("-")):
                words = words[1:]  # VAR=value in front
            if words[:2] == ["uv", "run"]:
                words = words[2:]
            if words[:1] == [".venv/bin/lectern"]:
                words = ["lectern", *words[1:]]
            if words[:1] == ["lectern"]:
                found.append((f"{path.name}:{number}", words[1:]))
    return found


def _commands(body: str, first: int) -> list[tuple[int, str]]:
    """(line number, command) with backslash-continued lines joined onto their first line."""
    out: list[tuple[int, str]] = []
    pending = ""
    start = first
    for number, line in enumerate(body.splitlines(), start=first):
        if not pending:
            start = number
        if line.endswith("\\"):
            pending += line[:-1] + " "
            continue
        out.append((start, pending + line))
        pending = ""
    return out


def matches(expected: list[str], actual: str) -> bool:
    """Whether the output fits the expected lines, with `...` as a wildcard (see the module doc)."""
    pattern = ""
    for line in _trim(expected):
        if line.strip() == "...":
            pattern += r"(?:[^\n]*\n)*?"
        else:
            pieces = [re.escape(p) for p in line.rstrip().split("...")]
            pattern += r"[^\n]*".join(pieces) + r"[ \t]*\n"
    return re.fullmatch(pattern, "\n".join(_trim(actual.splitlines())) + "\n") is not None


def _trim(lines: list[str]) -> list[str]:
    """Trailing spaces off every line, blank lines off both ends."""
    out = [line.rstrip() for line in lines]
    while out and not out[0]:
        out.pop(0)
    while out and not out[-1]:
        out.pop()
    return out
