"""How an answer reads in a terminal: Markdown wrapped at words, then one line per source with its URL.

On a terminal the answer is rendered as Markdown one finished block (paragraph, list, code block) at a
time, so it still streams; piped elsewhere it is printed as written. URLs are printed whole on lines of
their own (never folded by Rich), so a terminal keeps them clickable.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from typing import TYPE_CHECKING

from rich.markup import escape

if TYPE_CHECKING:
    from rich.console import Console

    from lectern.models import Answer, Citation

REFUSAL_REASONS = {
    "no_passages": "no passage of the documents is close enough to the question",
    "not_answerable": "the closest passages do not answer the question",
    "off_topic": "the question names something the documents never mention",
    "selection_mismatch": "the selected text is not about the question",
    "model_refused": "the model found no answer in the passages",
    "unsupported": "the model's answer was not supported by the passages",
}


def plural(count: int, word: str) -> str:
    return f"{count} {word}" if count == 1 else f"{count} {word}s"


class MarkdownStream:
    """Collects streamed tokens; prints each Markdown block once it is complete."""

    def __init__(self, console: Console) -> None:
        self.console = console
        self.markdown = console.is_terminal
        self._buffer = ""
        self._printed_block = False
        self._after_code = False

    def feed(self, text: str) -> None:
        if not self.markdown:
            self.console.print(text, end="", markup=False, highlight=False, soft_wrap=True)
            return
        self._buffer += text
        cut = _last_block_end(self._buffer)
        if cut:
            self._print_block(self._buffer[:cut])
            self._buffer = self._buffer[cut:].lstrip("\n")

    def close(self) -> None:
        if not self.markdown:
            self.console.print()
            return
        if self._buffer.strip():
            self._print_block(self._buffer)
        self._buffer = ""

    def _print_block(self, block: str) -> None:
        if not block.strip():
            return
        from rich.markdown import Markdown  # ~0.2 s of imports, only when there is Markdown to show

        # Rich pads code blocks and lists with blank lines of its own; other blocks get one between them.
        padded = _LIST_OR_FENCE.match(block.lstrip("\n")) is not None or self._after_code
        if self._printed_block and not padded:
            self.console.print()
        self._after_code = block.rstrip().endswith("```")
        self.console.print(Markdown(block.strip("\n"), code_theme="ansi_dark", hyperlinks=True))
        self._printed_block = True


_LIST_OR_FENCE = re.compile(r"```|[-*+] |\d+[.)] ")


def _last_block_end(text: str) -> int:
    """Index just past the last blank line that lies outside a code fence, or 0."""
    end = 0
    fenced = False
    position = 0
    for line in text.splitlines(keepends=True):
        position += len(line)
        if not line.endswith("\n"):
            break  # an unfinished line
        if line.lstrip().startswith("```"):
            fenced = not fenced
        elif not fenced and not line.strip():
            end = position
    return end


def _where(c: Citation) -> str:
    section = " › ".join(c.heading_hierarchy[1:]) or c.section
    title = c.title or c.source_path
    return f"{title} › {section}" if section and section != title else title


def print_citations(console: Console, citations: Iterable[Citation], *, numbered: bool) -> None:
    """One source per line (title › section, score), its URL whole on the next line."""
    for c in citations:
        label = f"[{c.number}]" if numbered else " •"
        console.print(
            f"[bold]{escape(label)}[/] {escape(_where(c))} [dim]({c.similarity_score:.2f})[/]",
            highlight=False,
            soft_wrap=True,
        )
        link = c.url or c.source_path
        if link:
            # soft_wrap: Rich never breaks the URL into pieces; the terminal wraps it as one link.
            console.print(f"    {escape(link)}", style="cyan", highlight=False, soft_wrap=True)


def print_footer(console: Console, err_console: Console, answer: Answer) -> None:
    """Warnings, the sources (or on a refusal the related reading and why), and the confidence."""
    for warning in answer.warnings:
        err_console.print(f"[yellow]warning:[/] {escape(warning)}", highlight=False, soft_wrap=True)
    if answer.citations:
        console.print()
        console.print(f"[bold]{plural(len(answer.citations), 'Source')}[/]", highlight=False)
        print_citations(console, answer.citations, numbered=True)
    if answer.refusal_reason:
        reason = REFUSAL_REASONS.get(answer.refusal_reason, answer.refusal_reason)
        console.print(f"[dim]why: {escape(reason)}[/]", highlight=False, soft_wrap=True)
    if answer.related:
        console.print()
        console.print("[bold]Related reading[/] [dim](not sources of an answer)[/]", highlight=False)
        print_citations(console, answer.related, numbered=False)
    console.print(confidence_line(answer), highlight=False, soft_wrap=True)


def confidence_line(answer: Answer) -> str:
    c = answer.confidence
    colour = {"high": "green", "medium": "green", "low": "yellow"}.get(c.confidence_level, "red")
    ms = answer.timings.total_ms
    took = f"{ms:.0f} ms" if ms < 1000 else f"{ms / 1000:.1f} s"
    return (
        f"[dim]confidence:[/] [{colour}]{c.confidence_level}[/] "
        f"[dim](average similarity {c.average_similarity:.2f} over {plural(c.num_chunks, 'chunk')}, "
        f"{took})[/]"
    )
