"""Topic summaries: the injectable summariser type and the deterministic default."""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Awaitable, Callable, Sequence

from lectern.store.models import TOPIC_SUMMARY_MAX

# Takes the user questions of a thread, oldest first; may be sync or async (an LLM call, say).
Summarizer = Callable[[Sequence[str]], str | Awaitable[str]]

_WORD = re.compile(r"[A-Za-z0-9][A-Za-z0-9+#_.'-]*")
_STOPWORD_TEXT = """
    a about above after again all also am an and any are as at be because been before being between both
    but by can could did do does doing don't down during each else even ever every example explain few for
    from further get give go had has have having he her here hers how i if in into is it its itself just
    know let like make many me more most much my need no nor not now of off on once one only or other our
    out over own please same say see she should show so some such tell than that the their them then there
    these they this those through to too under until up use used using very want was way we were what when
    where which while who whom why will with would yes you your
"""
_STOPWORDS = frozenset(_STOPWORD_TEXT.split())


def _words(text: str) -> list[str]:
    words = (w.strip(".'-").lower() for w in _WORD.findall(text))
    # Keep "ros2" and "3d", drop bare numbers and two-letter fillers.
    return [
        w
        for w in words
        if w not in _STOPWORDS and any(c.isalpha() for c in w) and (len(w) > 2 or any(c.isdigit() for c in w))
    ]


def extractive_summary(questions: Sequence[str], max_chars: int = TOPIC_SUMMARY_MAX) -> str:
    """The most frequent content words of the questions, most frequent first, ties by first use."""
    counts: Counter[str] = Counter()
    first_seen: dict[str, int] = {}
    for word in (w for q in questions for w in _words(q)):
        counts[word] += 1
        first_seen.setdefault(word, len(first_seen))
    ranked = sorted(counts, key=lambda w: (-counts[w], first_seen[w]))
    summary = ""
    for word in ranked:
        candidate = f"{summary}, {word}" if summary else word
        if len(candidate) > max_chars:
            break
        summary = candidate
    return summary


def clip_summary(text: str, max_chars: int = TOPIC_SUMMARY_MAX) -> str | None:
    """Whatever a summariser returns is normalised to one line of at most ``max_chars``."""
    line = " ".join(text.split())
    if len(line) > max_chars:
        line = line[: max_chars - 1].rstrip() + "…"
    return line or None
