"""Citation numbers a reader can resolve: `[n]` markers renumbered 1..k in order of first appearance.

A writer cites its sources by *its* numbers (the position of a hit among the turn's retrieved chunks,
see `lectern.writers.sources`), so "[4] ... [2]" can reach the reader with two sources. Every face
shows the rule of the chat API instead: the first source named in the answer is `[1]`, the next new
one `[2]`, ...; `sources[i]` is marker `[i + 1]` and carries `number == i + 1`.

The engine streams tokens before the answer is finished, and a token already sent cannot be changed.
So `Renumberer` rewrites the stream itself: a writer number gets its display number the first time a
marker names it, an incomplete marker (`"[1"` at the end of a token) is held back until it closes,
and the final answer text is exactly what was streamed. Markers inside code (`` `a[1]` `` or a fenced
block) are left alone; a marker that names no source of the turn is dropped, so no marker is left
without a source.
"""

from __future__ import annotations

import logging
import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from lectern.models import Answer, Citation, SearchHit
from lectern.writers.base import Written
from lectern.writers.selection import SELECTED_PATH
from lectern.writers.sources import SourceBook

if TYPE_CHECKING:
    from lectern.turn import AskOptions

log = logging.getLogger(__name__)

# [3], [1, 2], [1-3] (a range), [Source 2], [source: 2]: the forms `writers.sources` reads back.
_MARKER = re.compile(r"\[(?:sources?\s*:?\s*)?(\d+(?:\s*[-–,;]\s*\d+)*)\]", re.IGNORECASE)
_BACKTICKS = re.compile(r"`+")  # a run of backticks: inline code's (one or two) or a fence's
# What the start of a marker can look like before its `]` arrives (an over-approximation: it only
# decides whether to wait for more text).
_PREFIX = re.compile(r"\[(?:s(?:o(?:u(?:r(?:c(?:e(?:s)?)?)?)?)?)?)?\s*:?\s*[\d\s\-–,;]*", re.IGNORECASE)
_MAX_PENDING = 48  # a longer bracket is not a marker: stop waiting
_MAX_RANGE = 50
_MAX_NUMBER = 999  # "[2024]" in prose is a year, not a citation


def marker_numbers(body: str) -> list[int]:
    """The numbers a marker's inside names, in order, each once (`"1-3, 5"` -> [1, 2, 3, 5])."""
    if body.isdigit() and body.isascii():  # one number, as nearly every marker is: no splitting
        return [int(body)]
    out: list[int] = []
    for part in re.split(r"\s*[,;]\s*", body):
        bounds = re.split(r"\s*[-–]\s*", part)
        if len(bounds) == 2:
            low, high = int(bounds[0]), int(bounds[1])
            numbers = list(range(low, high + 1)) if low <= high <= low + _MAX_RANGE else []
        elif len(bounds) == 1 and bounds[0]:
            numbers = [int(bounds[0])]
        else:
            numbers = []
        out.extend(n for n in numbers if n not in out)
    return out


def display_markers(text: str) -> list[int]:
    """The display numbers of the `[n]` markers in a finished answer, in order, each once."""
    seen: list[int] = []
    code = _CodeState()
    pos = 0
    for match in _MARKER.finditer(text):
        code.advance(text[pos : match.start()])
        pos = match.end()
        if code.inside:
            continue
        seen.extend(n for n in marker_numbers(match.group(1)) if n not in seen)
    return seen


class _CodeState:
    """Whether the text so far ends inside inline code or a fenced block (markers there are code)."""

    def __init__(self) -> None:
        self.fence = False
        self.inline = False

    @property
    def inside(self) -> bool:
        return self.fence or self.inline

    def advance(self, text: str) -> None:
        if "`" not in text:  # most text: only a line break can change the state (ends inline code)
            if "\n" in text:
                self.inline = False
            return
        # The runs of backticks in order; a line break between two (or after the last) ends inline code,
        # found with `str.find` rather than a match and a step of this loop for each line break.
        at = 0
        for run in _BACKTICKS.finditer(text):
            start, end = run.span()
            if text.find("\n", at, start) >= 0:
                self.inline = False
            if end - start >= 3:
                self.fence = not self.fence
                self.inline = False
            elif not self.fence:
                self.inline = not self.inline
            at = end
        if text.find("\n", at) >= 0:
            self.inline = False


class Renumberer:
    """Rewrites one answer's stream of tokens so its markers use display numbers.

    `resolvable(n)` says whether writer number `n` names a source of the turn (evaluated when the
    marker closes); a marker whose numbers all fail it is dropped.
    """

    def __init__(self, resolvable: Callable[[int], bool] | None = None) -> None:
        self.resolvable: Callable[[int], bool] = resolvable or (lambda n: n >= 1)
        self.mapping: dict[int, int] = {}
        """Writer number -> display number, in order of first appearance."""
        self._pending = ""
        self._code = _CodeState()
        self._emitted: list[str] = []

    @property
    def text(self) -> str:
        """Everything emitted so far (the final answer text once `flush` has run)."""
        return "".join(self._emitted)

    def feed(self, text: str) -> str:
        """The part of the stream that can be sent now (maybe empty: a marker may be incomplete)."""
        if not self._pending and "[" not in text and "`" not in text:
            # Most tokens are plain words: what `_drain` would do with them, without its scanning
            # (a newline is all that can change the code state without a backtick).
            if "\n" in text:
                self._code.inline = False
            return self._emit(text)
        self._pending += text
        return self._emit(self._drain(final=False))

    def flush(self) -> str:
        """The rest of the stream at its end (an unclosed bracket is plain text)."""
        return self._emit(self._drain(final=True))

    def _emit(self, out: str) -> str:
        if out:
            self._emitted.append(out)
        return out

    def _drain(self, *, final: bool) -> str:
        out: list[str] = []
        buf = self._pending
        while buf:
            start = buf.find("[")
            if start < 0:
                # A run of backticks at the end may grow (``` split over tokens): hold it back.
                keep = len(buf) - len(buf.rstrip("`")) if not final else 0
                plain, buf = buf[: len(buf) - keep], buf[len(buf) - keep :]
                out.append(plain)
                self._code.advance(plain)
                break
            if start:
                out.append(buf[:start])
                self._code.advance(buf[:start])
                buf = buf[start:]
            if self._code.inside:
                out.append("[")
                buf = buf[1:]
                continue
            match = _MARKER.match(buf)
            if match:
                out.append(self._rewrite(match.group(1)))
                buf = buf[match.end() :]
                continue
            prefix = _PREFIX.match(buf)
            could_close = prefix is not None and prefix.end() == len(buf) and len(buf) < _MAX_PENDING
            if could_close and not final:
                break  # wait for the rest of the marker
            out.append("[")
            buf = buf[1:]
        self._pending = buf
        return "".join(out)

    def _rewrite(self, body: str) -> str:
        numbers = [n for n in marker_numbers(body) if 1 <= n <= _MAX_NUMBER]
        if not numbers:
            return f"[{body}]"  # not a citation (e.g. a range too wide): leave it as written
        shown: list[int] = []
        for n in numbers:
            if n not in self.mapping:
                if not self.resolvable(n):
                    log.debug("citation_dropped", extra={"number": n})
                    continue
                self.mapping[n] = len(self.mapping) + 1
            if self.mapping[n] not in shown:
                shown.append(self.mapping[n])
        return "".join(f"[{d}]" for d in shown)

    def citations(
        self, citations: Sequence[Citation], keep_uncited: Callable[[Citation], bool]
    ) -> list[Citation]:
        """The answer's sources in display order, each carrying its display number.

        `citations` carry writer numbers. Sources no marker cites are left out, except those
        `keep_uncited` accepts (listed after the cited ones); when the text has no marker at all,
        every citation is kept (numbered in its own order: the passages the answer stands on).
        """
        by_number = {c.number: c for c in citations}
        if not self.mapping:
            return [c.model_copy(update={"number": i}) for i, c in enumerate(citations, 1)]
        out: list[Citation] = []
        for writer_number, shown in self.mapping.items():
            cited = by_number.get(writer_number)
            if cited is None:
                log.warning("citation_without_source", extra={"number": writer_number})
                continue
            out.append(cited.model_copy(update={"number": shown}))
        used = set(self.mapping)
        for c in citations:
            if c.number not in used and keep_uncited(c):
                out.append(c.model_copy(update={"number": len(out) + 1}))
        return out


def _citations(written: Written | None, sources: list[SearchHit]) -> list[Citation]:
    if written is None:
        return []
    return [
        Citation.from_hit(n, sources[n - 1]) for n in sorted(set(written.cited)) if 1 <= n <= len(sources)
    ]


@dataclass
class _Numbering:
    """One turn's citation renumbering: the writer's source numbers -> 1..k by first appearance."""

    book: SourceBook
    selected: int
    """1 when the user's selection is a source (the one after the retrieved ones), else 0."""
    streamed: list[str] = field(default_factory=list)
    """The writer's tokens as they came (its own numbers)."""
    reserve: int = 0
    """The last retrieval's reserve passages: an extractive answer may cite them past the sources."""
    renumberer: Renumberer = field(init=False)

    def __post_init__(self) -> None:
        self.renumberer = Renumberer(self._names_a_source)

    def _names_a_source(self, number: int) -> bool:
        """The sources are the retrieved passages, the selection, then the reserve
        (`writers.selection.quotable_of`)."""
        return 1 <= number <= len(self.book) + self.selected + self.reserve

    def apply(self, answer: Answer) -> Answer:
        renumberer = self.renumberer
        if answer.text != "".join(self.streamed):
            # The final text is not what streamed (verification dropped sentences, or a refusal replaced
            # it): number it afresh, so its markers run 1..k in its own order.
            renumberer = Renumberer(self.renumberer.resolvable)
            renumberer.feed(answer.text)
            renumberer.flush()
        # The selected text is cited by the engine, never marked by the writer: keep it as a source.
        citations = renumberer.citations(
            answer.citations, keep_uncited=lambda c: c.source_path == SELECTED_PATH
        )
        return answer.model_copy(update={"text": renumberer.text, "citations": citations})


def _numbering(options: AskOptions) -> _Numbering:
    selected = 1 if options.user_context and options.user_context.strip() else 0
    return _Numbering(SourceBook(), selected)


__all__ = ["Renumberer", "display_markers", "marker_numbers"]
