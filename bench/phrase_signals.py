"""Phrase-level answerability signals for `answerability_study.py` (a study, nothing here ships).

A near miss that gets through names a thing by words the book uses elsewhere, never together ("CAN
bus", "thermal camera", "lip-sync"); a paraphrase uses ordinary words. For the question's phrases
(adjacent content words, the parts of a hyphenated word) this looks up whether each occurs as a phrase
(stemmed, adjacent) in the retrieved passages and anywhere in the collection (a set of the collection's
adjacent stem pairs), weighted by the rarity of the phrase's rarest word in general English.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable, Sequence
from itertools import pairwise

from lectern.answerability import _DOCUMENT_WORDS, _MODIFIER_SUFFIXES, PASSAGES, _present, rarity
from lectern.followups import ACTION_WORDS, GENERIC_WORDS, STOP_WORDS
from lectern.guardrail import is_name
from lectern.models import SearchHit
from lectern.writers.units import _stem, passage_terms

PHRASE_EXTRA = (
    "ph_miss_p",  # rarest phrase absent from the passages
    "ph_miss_c",  # ... absent from the collection
    "ph_split_p",  # ... absent from the passages though both its words are there
    "ph_split_c",  # ... absent from the collection though both its words are in it
    "ph_cov",  # weighted share of the phrases found in the passages
    "ph_cov_c",  # ... in the collection
    "ph_name_miss_c",  # ph_miss_c with a name's weight 1 ("CAN" bus)
    "ph_both_miss_c",  # ph_miss_c weighted by the phrase's commoner word: both words rare-ish
)
_QWORD = re.compile(r"[A-Za-z0-9][A-Za-z0-9_+#./-]*[A-Za-z0-9+#]|[A-Za-z0-9]")
_SUB = re.compile(r"[a-z]+|\d+")
_POSSESSIVE = re.compile(r"['’]s\b")
_SKIP = STOP_WORDS | GENERIC_WORDS | ACTION_WORDS | _DOCUMENT_WORDS


def stems(text: str) -> list[str]:
    """The text's stemmed sub-words in order ("ROS 2", "ros2", "ros_2" all give ros 2)."""
    return [_stem(t) for t in _SUB.findall(_POSSESSIVE.sub("", text.lower()))]


def bigrams(texts: Iterable[str]) -> set[tuple[str, str]]:
    out: set[tuple[str, str]] = set()
    for text in texts:
        s = stems(text)
        out.update(pairwise(s))
    return out


def phrases(question: str) -> list[tuple[tuple[str, ...], list[str]]]:
    """(the phrase's stems, its words as written) for adjacent content words and hyphenated words."""
    # a hyphen's "how" part is no part of the thing named ("camera-based": camera)
    tokens = [
        "-".join(p for p in t.split("-") if p.lower() not in _MODIFIER_SUFFIXES | STOP_WORDS) or t
        for t in _QWORD.findall(_POSSESSIVE.sub("", question))
    ]
    # an acronym is content even where its letters spell a stop word ("CAN bus")
    content = [(t.lower() not in _SKIP or t.isupper()) and len(t) > 1 for t in tokens]
    out: list[tuple[tuple[str, ...], list[str]]] = []
    for i, t in enumerate(tokens):
        if content[i] and "-" in t and len(stems(t)) > 1:
            out.append((tuple(stems(t)), t.split("-")))
        if i + 1 < len(tokens) and content[i] and content[i + 1]:
            out.append((tuple(stems(t) + stems(tokens[i + 1])), [t, tokens[i + 1]]))
    return [(p, w) for p, w in out if len(p) > 1]


def _in(phrase: tuple[str, ...], pairs: set[tuple[str, str]], joined: frozenset[str]) -> bool:
    return all(p in pairs for p in pairwise(phrase)) or "".join(phrase) in joined


def phrase_signals(
    question: str, hits: Sequence[SearchHit], collection: set[tuple[str, str]], known: Callable[[str], bool]
) -> list[float]:
    top = list(hits[:PASSAGES])
    texts = [h.chunk.search_text for h in top]
    pairs = bigrams(texts)
    terms = frozenset().union(*(passage_terms(t) for t in texts)) if texts else frozenset()
    all_text = "\n".join(texts).lower()
    joined = frozenset(s for t in texts for s in stems(t))
    miss_p = miss_c = split_p = split_c = name_c = both_c = 0.0
    cov = cov_c = total = 0.0
    for phrase, words in phrases(question):
        w = max(rarity(x) for x in words)
        wn = 1.0 if any(is_name(x) for x in words) else w
        total += 0.4 + w
        in_p = _in(phrase, pairs, joined)
        in_c = in_p or _in(phrase, collection, frozenset())
        cov += (0.4 + w) * in_p
        cov_c += (0.4 + w) * in_c
        if not in_p:
            miss_p = max(miss_p, w)
            if all(_present(x, terms, all_text) for x in words):
                split_p = max(split_p, w)
        if not in_c:
            miss_c = max(miss_c, w)
            name_c = max(name_c, wn)
            both_c = max(both_c, min(rarity(x) for x in words))
            if all(known(x) for x in words):
                split_c = max(split_c, w)
    return [
        miss_p,
        miss_c,
        split_p,
        split_c,
        cov / total if total else 1.0,
        cov_c / total if total else 1.0,
        name_c,
        both_c,
    ]
