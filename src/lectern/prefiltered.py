"""A regular expression searched only where it can match: the words any match must hold, checked first.

The question-level patterns (its kind, the content kinds it names, whether it asks how to do something)
are long case-insensitive alternations that start with `\\b`: the regex engine can skip no position, and
tries every branch at every character of the question, folding case as it goes (~30 k instructions a
search of a short question, some ten searches an answer). Any match of such a pattern holds one of a few
literal words ("why", "come", "reason", ...); a question holding none of them, most questions for most
patterns, cannot match, and `str.find` tells so at a fraction of the cost. The result is the pattern's
own: the check only says where searching is pointless (only for ASCII text, where case folding is
plain lower-casing), and the pattern itself is searched everywhere else.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import Any

# CPython's own pattern parser (3.11+; private, so a Python that moves it makes every pattern searched
# unfiltered, which is slower, never wrong: `needed_words` returns None)
try:
    from re import _constants as _sre  # type: ignore[attr-defined]
    from re import _parser  # type: ignore[attr-defined]
except ImportError:  # pragma: no cover - a future Python
    _sre = _parser = None
    _REPEATS: tuple[Any, ...] = ()
else:
    _REPEATS = (_sre.MAX_REPEAT, _sre.MIN_REPEAT, getattr(_sre, "POSSESSIVE_REPEAT", _sre.MAX_REPEAT))


class Prefiltered:
    """`pattern.search` with the check first (module docstring); `needed` is None when the pattern
    has no such words (then it is always searched)."""

    __slots__ = ("needed", "pattern")

    def __init__(self, pattern: re.Pattern[str]) -> None:
        self.pattern = pattern
        self.needed = needed_words(pattern)

    def search(self, text: str) -> re.Match[str] | None:
        needed = self.needed
        if needed is not None and text.isascii():
            lowered = text.lower()
            for word in needed:  # a loop, not `any` over a generator: a few dozen words at most
                if word in lowered:
                    break
            else:
                return None
        return self.pattern.search(text)


def needed_words(pattern: re.Pattern[str]) -> tuple[str, ...] | None:
    """Lower-case ASCII words one of which every match of `pattern` holds (as a lower-cased substring),
    or None when no such words are found (a pattern with a non-ASCII literal among them included)."""
    if _parser is None:
        return None
    try:
        found = _needed(_parser.parse(pattern.pattern, pattern.flags).data)
    except Exception:  # the parser's output is not what this module reads: search unfiltered
        return None
    if found is None or not all(word.isascii() for word in found):
        return None
    return tuple(sorted(found))


def _needed(items: Sequence[tuple[Any, Any]]) -> frozenset[str] | None:
    """Words one of which any match of the sequence `items` holds: of its parts' (a run of literals, a
    group, an alternation each of whose branches has words, a part repeated at least once), the set
    whose shortest word is longest; None when no part has any."""
    best: frozenset[str] | None = None
    run: list[str] = []

    def consider(option: frozenset[str] | None) -> None:
        nonlocal best
        if option and (best is None or _strength(option) > _strength(best)):
            best = option

    for op, av in items:
        if op is _sre.LITERAL:
            run.append(chr(av).lower())
            continue
        if run:
            consider(frozenset({"".join(run)}))
            run = []
        if op is _sre.SUBPATTERN:
            consider(_needed(av[-1]))
        elif op is _sre.BRANCH:
            branches = [_needed(branch) for branch in av[1]]
            if all(branches):
                consider(frozenset().union(*branches))  # type: ignore[arg-type]
        elif op in _REPEATS and av[0] >= 1:
            consider(_needed(av[2]))
        elif op is getattr(_sre, "ATOMIC_GROUP", None):
            consider(_needed(av))
        # anything else (a class, an anchor, a look-around, an optional part) needs no word
    if run:
        consider(frozenset({"".join(run)}))
    return best


def _strength(words: frozenset[str]) -> tuple[int, int]:
    """Longer shortest word first (rarer in a text), then fewer words."""
    return min(len(w) for w in words), -len(words)
